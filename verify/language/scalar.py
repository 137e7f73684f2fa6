"""The scalar evaluator: a claim's environment at one step and its evaluation into a tally,
one value at a time.  The whole-trace evaluator (verify.language.columns) uses it where columns
cannot express a value; tests use it as the oracle of the columns."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from perceptron._numbers import format_rational
from verify.language.expr import evaluate
from verify.language.quantities import PREVIOUS_SWEEP, SWEEP_QUANTITIES
from verify.language.violation import Violation
from verify.numbers import exact as X

__all__ = ["ClaimTally", "Env", "eval_claim", "exact_json", "format_value", "sides", "ALPHA_COUNTS"]

#: The key of an end's values under which a replay gives the updates made on each point (alpha
#: inside an aggregate reads its point's count there).
ALPHA_COUNTS = "_alpha_counts"


@dataclass
class ClaimTally:
    """Evaluations of one claim on one trace (or dataset)."""

    evaluations: int = 0
    violation: Violation | None = None
    unknown: str | None = None
    min_slack: object = None
    min_slack_at: dict | None = None
    not_applicable: str | None = None
    #: steps where the claim's premise (given) was false: the claim did not apply there
    premise_unmet: int = 0


def format_value(v) -> str:
    if isinstance(v, X.Vec):
        return "(" + ", ".join(format_value(c) for c in v.components()) + ")"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, X.Surd):
        return f"{v!r} (~{X.to_float(v):.6g})"
    text = format_rational(v)
    if isinstance(v, Fraction) and v.denominator != 1 and len(text) > 7:  # a long quotient: its size at a glance
        return f"{text} (~{X.to_float(v):.6g})"
    return text


def exact_json(v) -> dict:
    """An exact number for results.json: its exact text and a float approximation (null when
    it is beyond the float range: JSON has no infinities)."""
    f = X.to_float(v)
    return {"exact": repr(v) if isinstance(v, X.Surd) else format_rational(v),
            "approx": round(f, 12) if math.isfinite(f) else None}


class Env:
    __slots__ = ("vals", "ctx", "history", "cache", "_prev")

    def __init__(self, ctx, vals: dict, history=None):
        self.ctx, self.vals, self.history = ctx, vals, history
        self.cache: dict = {}
        self._prev: dict = {}

    def get(self, name):
        v = self.vals.get(name)
        if v is not None:
            return v
        if name == "w_hat":
            v = X.vconcat(self.get("w"), [X.div(self.get("b"), self.ctx.R)])
        elif name == "x_hat":
            v = X.vconcat(self.get("x"), [self.ctx.R])
        elif name in self.ctx.consts:
            v = self.ctx.consts[name]
        elif name in PREVIOUS_SWEEP and "sweep" in self.vals:
            raise _NotHere(name)  # a step of the first sweep: there is no sweep before it
        else:
            raise _Unavailable(name)
        self.vals[name] = v
        return v

    def prev(self, j):
        if j in self._prev:
            return self._prev[j]
        if not self.history or len(self.history) < j:
            raise _NotHere(f"prev(..., {j})")
        entry = self.history[-j]
        vals = dict(self.vals)
        for key in ("w_hat", ALPHA_COUNTS, *SWEEP_QUANTITIES, *PREVIOUS_SWEEP):  # counts of the run so far: no state it goes back to
            vals.pop(key, None)
        if isinstance(entry, dict):  # a declared variant's whole state before the update (w, b, k, sumsq, ...)
            vals.update(entry)
        else:
            w, b, k, sumsq = entry
            vals.update({"w": w, "b": b, "k": Fraction(k), "sumsq": sumsq})
        env = Env(self.ctx, vals, list(self.history)[:-j])
        self._prev[j] = env
        return env

    def points(self):
        counts = self.vals.get(ALPHA_COUNTS)
        if callable(counts):  # the updates on each point so far, at a visit or update
            counts = self.vals[ALPHA_COUNTS] = counts()
        for j, (x, y) in enumerate(zip(self.ctx.rows, self.ctx.y)):
            vals = dict(self.vals)
            vals.update({"x": x, "y": Fraction(y)})
            if counts is not None:
                vals["alpha"] = Fraction(counts[j])
            vals.pop("x_hat", None)
            yield Env(self.ctx, vals, self.history)


class _Unavailable(KeyError):
    """A quantity the claim needs does not exist for this run (makes the verdict unknown)."""


class _NotHere(LookupError):
    """The claim does not speak about this step (prev(e, j) before the j-th update): skipped."""


def _slack(tree, env):
    """The exact slack of a top-level comparison a op b (>= 0 when it holds), else None."""
    if tree[0] != "cmp" or len(tree[1]) != 1 or tree[1][0] in ("==", "!="):
        return None
    a, b = evaluate(tree[2][0], env), evaluate(tree[2][1], env)
    if isinstance(a, X.Vec):
        return None
    return X.sub(b, a) if tree[1][0] in ("<", "<=") else X.sub(a, b)


def sides(tree, env) -> dict:
    """Both sides of a comparison where a claim fails ({"sides", "ops"}), or, for a claim of the
    form A or B (A and B), the value of each part ({"parts", "connective"}), for display."""
    if tree[0] in ("or", "and"):
        parts = []
        for item in tree[1]:
            try:
                value = "true" if evaluate(item, env) else "false"
            except Exception:  # noqa: BLE001 - only for display
                value = "undefined here"
            inner = sides(item, env) if item[0] == "cmp" else {}  # an aggregate's value alone (no one point is it)
            shown = " ".join(f"{s} {o}" for s, o in zip(inner["sides"], inner["ops"])) + " " + inner["sides"][-1] \
                if "sides" in inner else ""
            parts.append(f"{shown} ({value})" if shown else value)
        return {"parts": parts, "connective": tree[0]}
    if tree[0] == "agg" and tree[1] in ("all_i", "any_i"):
        return _point_sides(tree, env)
    if tree[0] != "cmp":
        return {}
    try:
        vals = [evaluate(p, env) for p in tree[2]]
    except Exception:  # noqa: BLE001 - only for display; the verdict came from evaluate
        return {}
    return {"sides": [format_value(v) for v in vals], "ops": list(tree[1])}


def _point_sides(tree, env) -> dict:
    """all_i(c) where it fails: the first point where c is false and c's sides there; any_i(c):
    false at every point, with c's sides at the first ({"fails_at_point", "quantifier", ...})."""
    try:
        for j, penv in enumerate(env.points()):
            if not evaluate(tree[2], penv) or tree[1] == "any_i":
                inner = sides(tree[2], penv)
                return {"fails_at_point": j, "quantifier": tree[1], **inner}
    except Exception:  # noqa: BLE001 - only for display; the verdict came from evaluate
        return {}
    return {}


def eval_claim(claim, env, tally: ClaimTally, where: dict, gamma_strict=None):
    if tally.violation is not None:
        return  # refuted on this trace: the first violation is the evidence
    if gamma_strict is not None:
        env = Env(env.ctx, {**env.vals, "gamma": gamma_strict}, env.history)
    elif "gamma" in env.vals:
        env = Env(env.ctx, {k: v for k, v in env.vals.items() if k != "gamma"}, env.history)
    try:
        if getattr(claim, "given", None) is not None and not evaluate(claim.given.tree, env):
            tally.premise_unmet += 1
            return
        ok = evaluate(claim.compiled.tree, env)
        slack = _slack(claim.compiled.tree, env) if ok else None
    except _NotHere:
        return
    except _Unavailable as e:
        if tally.unknown is None:
            tally.unknown = f"{e.args[0]} is not available here ({where})"
        return
    except (X.ExactError, ArithmeticError) as e:
        if tally.unknown is None:
            tally.unknown = f"{e} ({where})"
        return
    tally.evaluations += 1
    if not ok:
        if tally.violation is None:
            tally.violation = Violation.at(where, sides(claim.compiled.tree, env))
        return
    if slack is not None and (tally.min_slack is None or X.compare(slack, tally.min_slack) < 0):
        tally.min_slack = slack
        tally.min_slack_at = dict(where)

