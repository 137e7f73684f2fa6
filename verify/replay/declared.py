"""Replay of a declared variant's trace: the declaration (perceptron.declared) re-run one visit at
a time by the claim language's own exact evaluator (verify.language.expr on verify.numbers.exact values), not
by the learner's block engine, and every record compared with it.

The checks are those of the built-in replay: visit numbers, points, epochs, labels, scores,
mistake flags, update counts, the state after every update, and the end record (with the
declared outputs); the first disagreement is reported at its visit and claims are then not
evaluated on the trace.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

from perceptron._numbers import NumberError, format_rational, parse_rational
from perceptron.declared import signed_score_test
from perceptron.limits import MAX_NUMBER_CHARS
from verify.language.expr import MAX_PREV, evaluate
from verify.language.quantities import sweep_values
from verify.language.scalar import ALPHA_COUNTS, Env, eval_claim
from verify.numbers import exact as X
from verify.numbers.exact import sign_or_tie
from verify.numbers.integers import same_ratio
from verify.replay.loop import Sweep, follow_rule
from verify.replay.records import (
    Inconsistency,
    RecordChecker,
    augmented_bias,
    end_mismatch,
    run_values,
    short_value,
)
from verify.language.assumptions import CONVERGED, STRICT_MARGIN

__all__ = ["replay_declared", "DeclaredRun", "Values", "as_value", "declared_constants"]


class Values:
    """An environment for evaluating a declaration's expressions: the step's own values over a
    base (constants and state), looked up by get()."""

    __slots__ = ("vals", "base")

    def __init__(self, vals: dict, base: dict | None = None):
        self.vals, self.base = vals, base

    def get(self, name):
        v = self.vals.get(name)
        if v is not None:
            return v
        if self.base is not None and name in self.base:
            return self.base[name]
        raise X.ExactError(f"{name} has no value here")


_CMPS = {"<": lambda c: c < 0, "<=": lambda c: c <= 0, ">": lambda c: c > 0, ">=": lambda c: c >= 0,
         "==": lambda c: c == 0, "!=": lambda c: c != 0}


def as_value(v):
    return Fraction(v) if isinstance(v, int) else v


def declared_constants(ctx) -> dict:
    """The constants a declaration's expressions read on a run: eta, n, d, R2, R and its
    parameters with the run's values."""
    return {"eta": ctx.eta, "n": Fraction(ctx.n), "d": Fraction(ctx.d), "R2": ctx.R2, "R": ctx.R, **ctx.declared_values}


class DeclaredRun:
    """A declared variant's state on one dataset, stepped by the claim evaluator: the replay
    follows a trace with it, the search branches it (``copy``)."""

    def __init__(self, ctx):
        decl = ctx.var
        self.ctx, self.decl = ctx, decl
        self.consts = declared_constants(ctx)
        init = Values({**self.consts, "w0": ctx.w0, "b0": ctx.b0})
        self.state = {s: as_value(evaluate(c.tree, init)) for s, c in decl.state}
        self.k = 0
        self.sumsq = Fraction(0)
        self._signed, self._c = signed_score_test(decl.mistake.tree), None
        self._rebase()

    def _rebase(self):
        self.base = {**self.consts, **self.state, "k": Fraction(self.k)}

    def copy(self) -> "DeclaredRun":
        other = object.__new__(DeclaredRun)
        other.ctx, other.decl, other.consts = self.ctx, self.decl, self.consts
        other.state, other.k, other.sumsq, other.base = dict(self.state), self.k, self.sumsq, self.base
        other._signed, other._c = self._signed, self._c
        return other

    def env(self, extra: dict) -> Values:
        return Values(extra, self.base)

    def score(self, i):
        return evaluate(self.decl.score.tree, self.env({"x": self.ctx.rows[i]}))

    def decide(self, i, s):
        """(out, whether the declared mistake condition holds) for point i with score s."""
        out = sign_or_tie(s, self.ctx.tie)
        yi = self.ctx.y[i]
        if self._signed is not None:  # y * score OP c: c (free of the point) once per state
            label, op, c_tree = self._signed
            if self._c is None or self._c[0] != self.k:
                self._c = (self.k, evaluate(c_tree, self.env({})))
            lab = yi if label == "y" else out
            return out, _CMPS[op](X.compare(s if lab == 1 else X.neg(s), self._c[1]))
        y = Fraction(yi)
        return out, bool(evaluate(self.decl.mistake.tree, self.env({"y": y, "score": s, "out": Fraction(out)})))

    def update(self, i, s, out, t):
        x = self.ctx.rows[i]
        e = self.env({"x": x, "y": Fraction(self.ctx.y[i]), "score": s, "out": Fraction(out), "t": Fraction(t),
                      "i": Fraction(i)})
        new = {v: as_value(evaluate(c.tree, e)) for v, c in self.decl.update}
        self.state.update(new)
        self.k += 1
        self.sumsq = self.sumsq + X.vdot(x, x)
        self._c = None
        self._rebase()

    def outputs(self, t, epochs) -> dict:
        e = Values({**self.consts, **self.state, "k": Fraction(self.k), "t": Fraction(t), "epochs": Fraction(epochs)})
        return {o: as_value(evaluate(c.tree, e)) for o, c in self.decl.outputs}

    def before(self) -> dict:
        """The state as prev(...) sees it: every state variable, b (0 without one), k, sumsq."""
        return {**self.state, "b": self.state.get("b", Fraction(0)), "k": Fraction(self.k), "sumsq": self.sumsq}

    def claim_vals(self, **extra) -> dict:
        """The values claims see: the constants, the state (b = 0 without one), k, sumsq."""
        vals = {**self.consts, **self.state, "k": Fraction(self.k), "sumsq": self.sumsq, **extra}
        vals.setdefault("b", Fraction(0))
        return vals


# --------------------------------------------------------------------------- float traces

class DeclaredReplay:
    """A declared run stepped by the replay loop (verify.replay.loop): each visit scored and
    decided by the declaration's own expressions, its record checked, the state updated and
    compared with the trace's, claims evaluated on the way."""

    def __init__(self, ctx, tr, run: DeclaredRun, visit_claims, update_claims, tallies, name):
        self.ctx, self.tr, self.run = ctx, tr, run
        self.records = RecordChecker(tr, ctx.params.order, ctx.y)
        self.visit_claims, self.update_claims, self.tallies, self.name = visit_claims, update_claims, tallies, name
        self.history = deque(maxlen=MAX_PREV)
        self.gam_strict = ctx.strict_gamma()
        self.t = 0  # the visit being replayed
        self.sweep = Sweep()
        # the updates made on each point (claims' alpha), unless the declaration keeps its own alpha
        self.alpha = None if "alpha" in run.state else [0] * ctx.n

    @property
    def k(self) -> int:
        return self.run.k

    def is_mistake(self, i) -> bool:
        return self.run.decide(i, self.run.score(i))[1]

    def why_not(self, i) -> str:
        return f"the declared mistake condition fails at point {i}"

    def most_violated(self, candidates):
        raise ValueError("declared variants have no max-violation order")

    def _claims(self, claims, env, where):
        for c in claims:
            eval_claim(c, env, self.tallies[c.id], where, self.gam_strict if STRICT_MARGIN in c.assume else None)

    def _score_differs(self, rec, i, s):
        rs = self.tr.score_value(rec)
        if X.compare(rs, s) == 0:
            return None
        return f"score of point {i} recomputed from the data is {short_value(s)}; the trace has {short_value(rs)}"

    def visit(self, t, epoch, i):
        ctx, run = self.ctx, self.run
        self.t = t
        s = run.score(i)
        out, mistake = run.decide(i, s)
        if self.records.recorded(mistake, t):
            def describe():
                holds = "holds" if mistake else "fails"
                return f"the declared mistake condition {holds} at point {i} (score {short_value(s)}, y = {ctx.y[i]})"
            bad = self.records.visit(t, epoch, i, mistake, run.k, describe, lambda rec: self._score_differs(rec, i, s))
            if bad:
                return mistake, bad
        vals = None
        sweep = self.sweep.at(t, epoch, run.k, mistake)
        if self.visit_claims or self.update_claims:  # the step's values, only when a claim reads them
            vals = dict(t=Fraction(t), i=Fraction(i), x=ctx.rows[i], y=Fraction(ctx.y[i]), score=s, out=Fraction(out),
                        **run_values(self.tr.end))
            vals.update(sweep_values(t, sweep))
            if self.alpha is not None:
                vals[ALPHA_COUNTS] = tuple(self.alpha)
        if self.visit_claims:
            self._claims(self.visit_claims, Env(ctx, run.claim_vals(**vals)), {"dataset": self.name, "t": t, "point": i})
        if not mistake:
            return False, None
        self.history.append(run.before())
        run.update(i, s, out, t)
        if self.alpha is not None:
            self.alpha[i] += 1
        bad = self._check_update(t, i)
        if bad:
            return True, bad
        if self.update_claims:
            vals.update(sweep_values(t, sweep))
            if self.alpha is not None:
                vals[ALPHA_COUNTS] = tuple(self.alpha)
            self._claims(self.update_claims, Env(ctx, run.claim_vals(**vals), self.history),
                         {"dataset": self.name, "t": t, "point": i, "k": run.k})
        return True, None

    def _check_update(self, t, i):
        u, bad = self.records.update(t)
        if bad:
            return bad
        tr, state = self.tr, self.run.state
        w = state["w"]
        if isinstance(w, X.Vec) and w.plain and not w.extra and same_ratio(tr.w[u], int(tr.w_den[u]), w.num, w.den):
            # the recorded numerators over the record's denominator equal ours over ours: compared
            # as integers (cross-multiplied), no Fraction built; a difference is located below
            if "b" not in state or Fraction(int(tr.b[u]), int(tr.b_den[u])) == state["b"]:
                return None
        rw, rb = tr.weights_after(u)
        wf = w.components()
        if len(rw) != len(wf) or [Fraction(v) for v in rw] != wf:
            j = next((j for j, (a, c) in enumerate(zip(rw, wf)) if Fraction(a) != c), 0)
            return Inconsistency(t, f"w after the update on point {i} should be {short_value(w)}; the trace has "
                                    f"w[{j}] = {format_rational(Fraction(rw[j]))} instead of {format_rational(wf[j])}")
        if "b" in state and (rb is None or Fraction(rb) != state["b"]):
            return Inconsistency(t, f"b after the update should be {short_value(state['b'])}; the trace has "
                                    f"{'none' if rb is None else format_rational(Fraction(rb))}")
        return None


def _same_number(have, want: Fraction) -> bool:
    """One recorded output number against the re-run's, compared as numbers (any spelling of
    the same rational is the same output).  A text longer than a spelled number may be
    (MAX_NUMBER_CHARS: parsing is quadratic in its length) is compared with the re-run's value
    written as train writes it (format_rational): an exact output may be longer than that, and
    what train writes, check reads."""
    if not isinstance(have, str):
        return False
    if len(have) > MAX_NUMBER_CHARS:
        return have == format_rational(want)
    return parse_rational(have) == want


def _same_value(have, want) -> bool:
    """A recorded output ("p/q" text, or a list of them) against the re-run's exact value."""
    try:
        if isinstance(want, X.Vec):
            comps = want.components()
            return isinstance(have, list) and len(have) == len(comps) and all(
                _same_number(h, c) for h, c in zip(have, comps))
        if isinstance(want, Fraction):
            return _same_number(have, want)
    except NumberError:
        return False
    return have == repr(want)


def _outputs_mismatch(end: dict, outputs: dict):
    """The first declared output where the trace's end record differs from the re-run's."""
    have = end.get("outputs")
    if isinstance(have, dict) and set(have) == set(outputs) and all(_same_value(have[o], v) for o, v in outputs.items()):
        return None
    diff = next((o for o in outputs if not isinstance(have, dict) or not _same_value(have.get(o), outputs[o])), None)
    if diff is None:
        return Inconsistency(None, "the trace's end record has outputs the declaration does not declare")
    return Inconsistency(None, f"the re-run's output {diff} is {short_value(outputs[diff])}; the trace's end record says "
                               f"{str(have.get(diff) if isinstance(have, dict) else have)[:60]}")


def replay_declared(ctx, tr, visit_claims, update_claims, end_claims, tallies, name):
    """Replay a declared variant's exact trace; returns an Inconsistency, or None with the
    claims' tallies filled in."""
    decl, p = ctx.var, ctx.params
    try:
        run = DeclaredRun(ctx)
    except (X.ExactError, ArithmeticError) as e:
        return Inconsistency(None, f"cannot verify: the declaration's initial state cannot be computed exactly: {e}")
    step = DeclaredReplay(ctx, tr, run, visit_claims, update_claims, tallies, name)
    try:
        end = follow_rule(ctx, p, step, stop_when_clean=decl.stop == "converged")
        if isinstance(end, Inconsistency):
            return end
        if decl.stop == "epochs" and (p.order == "cyclic" or p.order.startswith("random:")):
            end.converged = all(not step.is_mistake(i) for i in range(ctx.n))
    except (X.ExactError, ArithmeticError) as e:
        return Inconsistency(step.t or None, f"cannot verify: the declaration cannot be evaluated exactly here: {e}")
    bad = step.records.finish(end.visits, end.stop)
    if bad is not None:
        return bad
    state, k = run.state, run.k
    w = state["w"]
    got = {"updates": k, "epochs": end.epochs, "visits": end.visits, "converged": end.converged, "stop": end.stop,
           "w": list(w.components()), "b": state["b"] if "b" in state else augmented_bias(p, w.components())}
    try:
        outputs = run.outputs(end.visits, end.epochs)
    except (X.ExactError, ArithmeticError) as e:
        return Inconsistency(None, f"cannot verify: the declared outputs cannot be computed exactly: {e}")
    bad = end_mismatch(tr.end, got, exact=True)
    if bad is None and (outputs or "outputs" in tr.end):
        bad = _outputs_mismatch(tr.end, outputs)
    if bad is not None:
        return bad
    if end_claims:
        vals = run.claim_vals(**outputs, mistakes=Fraction(k), epochs=Fraction(end.epochs), t=Fraction(end.visits),
                              converged=Fraction(1 if end.converged else 0),
                              stopped_by_budget=Fraction(0 if end.converged else 1),
                              **({ALPHA_COUNTS: tuple(step.alpha)} if step.alpha is not None else {}))
        step._claims([c for c in end_claims if end.converged or CONVERGED not in c.assume],
                     Env(ctx, vals, step.history), {"dataset": name, "end": True, "k": k})
    return None

