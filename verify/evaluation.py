"""What both replays (built-in and declared variants) and the searches share: a claim's
environment at a step, its evaluation into a tally, the inconsistency a replay reports, the
stopping rule of the cyclic and random orders, and the comparison of end records."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from perceptron._numbers import NumberError, format_rational, parse_rational

from . import _exact as X
from .expr import evaluate

__all__ = ["Inconsistency", "ClaimTally", "exact_json"]


@dataclass
class Inconsistency:
    t: int | None
    message: str

    def __str__(self):
        return (f"visit {self.t}: " if self.t is not None else "") + self.message


@dataclass
class ClaimTally:
    """Evaluations of one claim on one trace (or dataset)."""

    evaluations: int = 0
    violation: dict | None = None
    unknown: str | None = None
    min_slack: object = None
    min_slack_at: dict | None = None
    not_applicable: str | None = None


#: Coordinates an inconsistency message shows of a vector (the differing one is named apart):
#: a doctored trace of a 1000-dimensional run is one readable line, not 10 KB.
SHOWN_COORDINATES = 8


def _short(values) -> str:
    """A vector for an inconsistency message: its first SHOWN_COORDINATES coordinates."""
    vals = [format_rational(Fraction(v)) for v in values]
    more = f", ... ({len(vals)} coordinates)" if len(vals) > SHOWN_COORDINATES else ""
    return "(" + ", ".join(vals[:SHOWN_COORDINATES]) + more + ")"


def _fmt(v) -> str:
    if isinstance(v, X.Vec):
        return "(" + ", ".join(_fmt(c) for c in v.components()) + ")"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, X.Surd):
        return f"{v!r} (~{X.to_float(v):.6g})"
    return format_rational(v)


def exact_json(v) -> dict:
    """An exact number for results.json: its exact text and a float approximation (null when
    it is beyond the float range: JSON has no infinities)."""
    f = X.to_float(v)
    return {"exact": repr(v) if isinstance(v, X.Surd) else format_rational(v),
            "approx": round(f, 12) if math.isfinite(f) else None}


class _Env:
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
        for key in ("w_hat",):
            vals.pop(key, None)
        if isinstance(entry, dict):  # a declared variant's whole state before the update (w, b, k, sumsq, ...)
            vals.update(entry)
        else:
            w, b, k, sumsq = entry
            vals.update({"w": w, "b": b, "k": Fraction(k), "sumsq": sumsq})
        env = _Env(self.ctx, vals, list(self.history)[:-j])
        self._prev[j] = env
        return env

    def points(self):
        for x, y in zip(self.ctx.rows, self.ctx.y):
            vals = dict(self.vals)
            vals.update({"x": x, "y": Fraction(y)})
            vals.pop("x_hat", None)
            yield _Env(self.ctx, vals, self.history)


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


def _sides(tree, env) -> dict:
    if tree[0] != "cmp":
        return {}
    try:
        vals = [evaluate(p, env) for p in tree[2]]
    except Exception:  # noqa: BLE001 - only for display; the verdict came from evaluate
        return {}
    return {"sides": [_fmt(v) for v in vals], "ops": list(tree[1])}


def _eval_claim(claim, env, tally: ClaimTally, where: dict, gamma_strict=None):
    if tally.violation is not None:
        return  # refuted on this trace: the first violation is the evidence
    if gamma_strict is not None:
        env = _Env(env.ctx, {**env.vals, "gamma": gamma_strict}, env.history)
    elif "gamma" in env.vals:
        env = _Env(env.ctx, {k: v for k, v in env.vals.items() if k != "gamma"}, env.history)
    try:
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
            tally.violation = {**where, **_sides(claim.compiled.tree, env)}
        return
    if slack is not None and (tally.min_slack is None or X.compare(slack, tally.min_slack) < 0):
        tally.min_slack = slack
        tally.min_slack_at = dict(where)


class _CyclicRule:
    """The stopping rule of the cyclic and random orders, as the learner applies it, for both
    replays: an epoch without a mistake converges; max_epochs, max_updates (checked before an
    epoch and after each update), max_visits and the slides/pocket patience end the run."""

    def __init__(self, ctx, p, stop_when_clean: bool = True):
        self.p = p
        self.stop_when_clean = stop_when_clean
        self.steps = _order_iter(ctx, p.order)
        self.max_visits = p.max_visits if p.max_visits is not None else float("inf")
        self.cur_epoch, self.clean, self.unchanged = 0, True, 0
        self.epochs, self.stop, self.converged = 0, None, False

    def next(self, k: int, t: int):
        """(epoch, point) of the next visit, or None when the run has ended (see ``stop``)."""
        epoch, i = next(self.steps)
        if epoch != self.cur_epoch:
            if self.cur_epoch and self.clean and self.stop_when_clean:
                self.converged, self.stop = True, "converged"
                return None
            if epoch > self.p.max_epochs:
                self.stop = "max_epochs"
                return None
            if k >= self.p.max_updates:
                self.stop = "max_updates"
                return None
            self.cur_epoch, self.clean = epoch, True
        self.epochs = epoch
        if t >= self.max_visits:
            self.stop = "max_visits"
            return None
        return epoch, i

    def after(self, mistake: bool, k: int) -> bool:
        """Account for a visit; True when the run ends with it."""
        if mistake:
            self.clean, self.unchanged = False, 0
            if k >= self.p.max_updates:
                self.stop = "max_updates"
                return True
            return False
        self.unchanged += 1
        if self.p.patience is not None and self.unchanged >= self.p.patience:
            self.stop = "unchanged"
            return True
        return False


def _order_iter(ctx, order: str):
    """Visit sequence for cyclic / random orders: yields (epoch, index)."""
    n = ctx.n
    rng = np.random.default_rng(int(order.split(":")[1])) if order.startswith("random:") else None
    epoch = 0
    while True:
        epoch += 1
        perm = rng.permutation(n) if rng is not None else range(n)
        for i in perm:
            yield epoch, int(i)


def _canonical(v):
    """An exact value (or a list of them) as the learner's end record writes it."""
    if isinstance(v, list):
        return [_canonical(x) for x in v]
    return format_rational(v) if isinstance(v, (Fraction, int)) else v


def _end_mismatch(end: dict, got: dict, exact: bool):
    """The first field where the trace's end record differs from the re-run's end."""
    def norm(v):
        if isinstance(v, list):
            return [norm(x) for x in v]
        if v is None or isinstance(v, bool):
            return v
        if exact:
            return Fraction(v) if not isinstance(v, str) else parse_rational(v)
        return float(v)

    for key, want in got.items():
        have = end.get(key)
        try:
            if key in ("w", "b", "w_pocket"):  # the canonical "p/q" text first: no parse of long numbers
                same = exact and _canonical(want) == have or norm(have) == norm(want)
            else:
                same = type(have) is type(want) and have == want
        except (ValueError, TypeError, ZeroDivisionError, NumberError):
            same = False
        if not same:
            return Inconsistency(None, f"the re-run ends with {key} = {_show(want)}; the trace's end record says "
                                       f"{_show(have)}")
    return None


def _show(v) -> str:
    """A value of an end record, briefly."""
    if isinstance(v, list):
        return f"a list of {len(v)}"
    return (format_rational(v) if isinstance(v, Fraction) else str(v))[:60]


def _same_ratio(a, da: int, b, db: int) -> bool:
    """a / da == b / db elementwise, for integer arrays, exactly (int64 when the cross products
    cannot overflow, else Python integers)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype != object and b.dtype != object and a.size:
        ma, mb = int(np.abs(a).max()), int(np.abs(b).max())
        if ma * db < 2**62 and mb * da < 2**62:
            return bool(np.array_equal(a.astype(np.int64) * db, b.astype(np.int64) * da))
    return all(int(x) * db == int(y) * da for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))


def _sgn(v, tie):
    s = X.sign(v)
    return s if s != 0 else tie


def _augmented_bias(p, w):
    """The bias an end record states for a run without a b: the augmented coordinate, or 0."""
    if p.augment == "first":
        return w[0]
    if p.augment == "last":
        return w[-1]
    return Fraction(0)
