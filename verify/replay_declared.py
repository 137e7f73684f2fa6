"""Replay of a declared variant's trace: the declaration (perceptron.declared) re-run one visit at
a time by the claim language's own exact evaluator (verify.expr on verify._exact values), not
by the learner's block engine, and every record compared with it.

The checks are those of the built-in replay: visit numbers, points, epochs, labels, scores,
mistake flags, update counts, the state after every update, and the end record (with the
declared outputs); the first disagreement is reported at its visit and claims are then not
evaluated on the trace.
"""

from __future__ import annotations

from collections import deque
from fractions import Fraction

from perceptron._numbers import format_rational

from . import _exact as X
from .evaluation import Inconsistency, _CyclicRule, _end_mismatch, _Env, _eval_claim, _same_ratio
from .expr import MAX_PREV, evaluate

__all__ = ["replay_declared", "Stepper"]


class _Vals:
    """An environment for evaluating a declaration's expressions: a dict with get()."""

    __slots__ = ("vals",)

    def __init__(self, vals: dict):
        self.vals = vals

    def get(self, name):
        try:
            return self.vals[name]
        except KeyError:
            raise X.ExactError(f"{name} has no value here") from None


def _sgn(v, tie):
    s = X.sign(v)
    return s if s != 0 else tie


def _as_value(v):
    return Fraction(v) if isinstance(v, int) else v


def _fmt(v) -> str:
    if isinstance(v, X.Vec):
        comps = v.components()
        more = f", ... ({len(comps)} coordinates)" if len(comps) > 8 else ""
        return "(" + ", ".join(format_rational(c) for c in comps[:8]) + more + ")"
    if isinstance(v, X.Surd):
        return f"{v!r} (~{X.to_float(v):.6g})"
    return format_rational(v)


class Stepper:
    """A declared variant's state on one dataset, stepped by the claim evaluator: the replay
    follows a trace with it, the search branches it (``copy``)."""

    def __init__(self, ctx):
        decl = ctx.var
        self.ctx, self.decl = ctx, decl
        self.consts = {"eta": ctx.eta, "n": Fraction(ctx.n), "d": Fraction(ctx.d), "R2": ctx.R2, "R": ctx.R,
                       **ctx.declared_values}
        init = _Vals({**self.consts, "w0": ctx.w0, "b0": ctx.b0})
        self.state = {s: _as_value(evaluate(c.tree, init)) for s, c in decl.state}
        self.k = 0
        self.sumsq = Fraction(0)

    def copy(self) -> "Stepper":
        other = object.__new__(Stepper)
        other.ctx, other.decl, other.consts = self.ctx, self.decl, self.consts
        other.state, other.k, other.sumsq = dict(self.state), self.k, self.sumsq
        return other

    def env(self, extra: dict) -> _Vals:
        return _Vals({**self.consts, **self.state, "k": Fraction(self.k), **extra})

    def score(self, i):
        return evaluate(self.decl.score.tree, self.env({"x": self.ctx.rows[i]}))

    def decide(self, i, s):
        """(out, whether the declared mistake condition holds) for point i with score s."""
        out = _sgn(s, self.ctx.tie)
        y = Fraction(self.ctx.y[i])
        return out, bool(evaluate(self.decl.mistake.tree, self.env({"y": y, "score": s, "out": Fraction(out)})))

    def update(self, i, s, out, t):
        x = self.ctx.rows[i]
        e = self.env({"x": x, "y": Fraction(self.ctx.y[i]), "score": s, "out": Fraction(out), "t": Fraction(t),
                      "i": Fraction(i)})
        new = {v: _as_value(evaluate(c.tree, e)) for v, c in self.decl.update}
        self.state.update(new)
        self.k += 1
        self.sumsq = self.sumsq + X.vdot(x, x)

    def outputs(self, t, epochs) -> dict:
        e = _Vals({**self.consts, **self.state, "k": Fraction(self.k), "t": Fraction(t), "epochs": Fraction(epochs)})
        return {o: _as_value(evaluate(c.tree, e)) for o, c in self.decl.outputs}

    def claim_vals(self, **extra) -> dict:
        """The values claims see: the constants, the state (b = 0 without one), k, sumsq."""
        vals = {**self.consts, **self.state, "k": Fraction(self.k), "sumsq": self.sumsq, **extra}
        vals.setdefault("b", Fraction(0))
        return vals


def replay_declared(ctx, tr, visit_claims, update_claims, end_claims, tallies, name):
    """Returns an Inconsistency, or None with the claims' tallies filled in."""
    decl, p = ctx.var, ctx.params
    n = ctx.n
    try:
        run = Stepper(ctx)
    except (X.ExactError, ArithmeticError) as e:
        return Inconsistency(None, f"the declaration's initial state cannot be computed exactly: {e}")
    state = run.state
    recorded_all = tr.header.get("record", "visits") == "visits"
    history = deque(maxlen=MAX_PREV)
    rec = 0
    nrec = len(tr.t)
    upd_index = 0
    gam_strict = ctx.strict_gamma()
    score_of, decide = run.score, run.decide

    def check_record(t, epoch, i, s, mistake):
        nonlocal rec
        if rec >= nrec:
            return Inconsistency(t, f"the rule requires a visit to point {i} (epoch {epoch}); the trace has ended")
        rt = int(tr.t[rec])
        if rt != t:
            what = "a visit" if rt > t else "a repeated or out-of-order visit"
            return Inconsistency(t, f"the trace records visit number {rt} where the rule requires visit {t} ({what} is missing or extra)")
        if int(tr.i[rec]) != i:
            return Inconsistency(t, f"the rule ({p.order} order) requires point {i}; the trace has point {int(tr.i[rec])}")
        if int(tr.epoch[rec]) != epoch:
            return Inconsistency(t, f"epoch should be {epoch}; the trace has {int(tr.epoch[rec])}")
        if int(tr.y[rec]) != ctx.y[i]:
            return Inconsistency(t, f"point {i} has label {ctx.y[i]} in the dataset; the trace records {int(tr.y[rec])}")
        rs = tr.score_value(rec)
        if X.compare(rs, s) != 0:
            return Inconsistency(t, f"score of point {i} recomputed from the data is {_fmt(s)}; the trace has {_fmt(rs)}")
        if bool(tr.mistake[rec]) != mistake:
            if mistake:
                return Inconsistency(t, f"the declared mistake condition holds at point {i} (score {_fmt(s)}, y = {ctx.y[i]}): "
                                        "the rule requires an update, the trace records none")
            return Inconsistency(t, f"the declared mistake condition fails at point {i} (score {_fmt(s)}, y = {ctx.y[i]}): "
                                    "the rule forbids an update, the trace records one")
        if not mistake and upd_index < len(tr.upd_t) and int(tr.upd_t[upd_index]) == t:
            return Inconsistency(t, "the trace records weights after this visit; the rule makes no update here")
        expect_k = run.k + (1 if mistake else 0)
        if int(tr.k[rec]) != expect_k:
            return Inconsistency(t, f"update count after this visit should be {expect_k}; the trace has {int(tr.k[rec])}")
        rec += 1
        return None

    def check_update(t, i):
        nonlocal upd_index
        if upd_index >= len(tr.upd_t) or int(tr.upd_t[upd_index]) != t:
            return Inconsistency(t, "the rule requires an update here; the trace records no weights for it")
        u = upd_index
        upd_index += 1
        w = state["w"]
        if isinstance(w, X.Vec) and w.plain and not w.extra and _same_ratio(tr.w[u], int(tr.w_den[u]), w.num, w.den):
            # the recorded numerators over the record's denominator equal ours over ours: compared
            # as integers (cross-multiplied), no Fraction built; a difference is located below
            if "b" not in state or Fraction(int(tr.b[u]), int(tr.b_den[u])) == state["b"]:
                return None
        rw, rb = tr.weights_after(u)
        wf = w.components()
        if len(rw) != len(wf) or [Fraction(v) for v in rw] != wf:
            j = next((j for j, (a, c) in enumerate(zip(rw, wf)) if Fraction(a) != c), 0)
            return Inconsistency(t, f"w after the update on point {i} should be {_fmt(w)}; the trace has "
                                    f"w[{j}] = {format_rational(Fraction(rw[j]))} instead of {format_rational(wf[j])}")
        if "b" in state and (rb is None or Fraction(rb) != state["b"]):
            return Inconsistency(t, f"b after the update should be {_fmt(state['b'])}; the trace has "
                                    f"{'none' if rb is None else format_rational(Fraction(rb))}")
        return None

    def claim_vals(t, i, x, y, s, out):
        return run.claim_vals(t=Fraction(t), i=Fraction(i), x=x, y=y, score=s, out=Fraction(out))

    def visit(t, epoch, i):
        s = score_of(i)
        out, mistake = decide(i, s)
        if recorded_all or mistake:
            bad = check_record(t, epoch, i, s, mistake)
            if bad:
                return mistake, bad
        x, y = ctx.rows[i], Fraction(ctx.y[i])
        if visit_claims:
            e = _Env(ctx, claim_vals(t, i, x, y, s, out))
            for c in visit_claims:
                _eval_claim(c, e, tallies[c.id], {"dataset": name, "t": t, "point": i},
                            gam_strict if "strict_margin" in c.assume else None)
        if not mistake:
            return False, None
        history.append((state["w"], state.get("b", Fraction(0)), run.k, run.sumsq))
        run.update(i, s, out, t)
        bad = check_update(t, i)
        if bad:
            return True, bad
        if update_claims:
            e = _Env(ctx, claim_vals(t, i, x, y, s, out), history)
            for c in update_claims:
                _eval_claim(c, e, tallies[c.id], {"dataset": name, "t": t, "point": i, "k": run.k},
                            gam_strict if "strict_margin" in c.assume else None)
        return True, None

    def all_correct():
        return not any(decide(i, score_of(i))[1] for i in range(n))

    t = epochs = 0
    converged, stop = False, None
    max_visits = p.max_visits if p.max_visits is not None else float("inf")
    try:
        if p.order == "cyclic" or p.order.startswith("random:"):
            rule = _CyclicRule(ctx, p, stop_when_clean=decl.stop == "converged")
            while (step := rule.next(run.k, t)) is not None:
                t += 1
                mistake, bad = visit(t, *step)
                if bad:
                    return bad
                if rule.after(mistake, run.k):
                    break
            epochs, stop, converged = rule.epochs, rule.stop, rule.converged
            if decl.stop == "epochs":
                converged = all_correct()
        elif p.order.startswith("sequence:"):
            body = p.order.split(":", 1)[1]
            for step, j in enumerate([int(v) for v in body.split(",")] if body else [], 1):
                if not 0 <= j < n:
                    return Inconsistency(t + 1, f"the sequence names point {j}; the dataset has {n}")
                if not decide(j, score_of(j))[1]:
                    return Inconsistency(t + 1, f"the declared mistake condition fails at point {j}: the rule forbids an update on it")
                t += 1
                epochs = step
                _, bad = visit(t, step, j)
                if bad:
                    return bad
            converged = all_correct()
            stop = "converged" if converged else "sequence_end"
        else:  # first: every step looks at all points, takes the first that needs an update
            epoch = 0
            while True:
                mist = [decide(i, score_of(i))[1] for i in range(n)]
                epoch += 1
                epochs = epoch
                if not any(mist):
                    m = n if max_visits == float("inf") else max(0, min(n, int(max_visits) - t))
                    for i in range(m):
                        t += 1
                        _, bad = visit(t, epoch, i)
                        if bad:
                            return bad
                    converged = m == n
                    stop = "converged" if converged else "max_visits"
                    break
                if run.k >= p.max_updates:
                    stop = "max_updates"
                    break
                if epoch > p.max_epochs:
                    epochs, stop = epoch - 1, "max_epochs"
                    break
                j = mist.index(True)
                if t + j + 1 > max_visits:
                    stop = "max_visits"
                    break
                for i in range(j + 1):
                    t += 1
                    _, bad = visit(t, epoch, i)
                    if bad:
                        return bad
    except (X.ExactError, ArithmeticError) as e:
        return Inconsistency(t or None, f"the declaration cannot be evaluated exactly here: {e}")
    if recorded_all and rec != nrec:
        return Inconsistency(int(tr.t[rec]), f"the rule ends the run after visit {t} ({stop}); the trace goes on to {nrec} visits")
    if upd_index != len(tr.upd_t):
        return Inconsistency(int(tr.upd_t[upd_index]), "the trace records an update the rule never makes")
    w = state["w"]
    k = run.k
    got = {"updates": k, "epochs": epochs, "visits": t, "converged": converged, "stop": stop,
           "w": list(w.components()), "b": state["b"] if "b" in state else _bias_of(p, w.components())}
    try:
        outputs = run.outputs(t, epochs)
    except (X.ExactError, ArithmeticError) as e:
        return Inconsistency(None, f"the declared outputs cannot be computed exactly: {e}")
    bad = _end_mismatch(tr.end, got, exact=True)
    if bad is not None:
        return bad
    if outputs or "outputs" in tr.end:
        have = tr.end.get("outputs")
        want = {o: (format_rational(v) if isinstance(v, Fraction) else
                    [format_rational(c) for c in v.components()] if isinstance(v, X.Vec) else repr(v)) for o, v in outputs.items()}
        if have != want:
            diff = next((o for o in want if not isinstance(have, dict) or have.get(o) != want[o]), None)
            return Inconsistency(None, f"the re-run's output {diff} is {_fmt(outputs[diff])}; the trace's end record says "
                                       f"{str(have.get(diff) if isinstance(have, dict) else have)[:60]}" if diff else
                                       "the trace's end record has outputs the declaration does not declare")
    if end_claims:
        vals = run.claim_vals(**outputs, mistakes=Fraction(k), epochs=Fraction(epochs), t=Fraction(t),
                              converged=Fraction(1 if converged else 0), stopped_by_budget=Fraction(0 if converged else 1))
        e = _Env(ctx, vals, history)
        for c in end_claims:
            if "converged" in c.assume and not converged:
                continue
            _eval_claim(c, e, tallies[c.id], {"dataset": name, "end": True, "k": k},
                        gam_strict if "strict_margin" in c.assume else None)
    return None


def _bias_of(p, w):
    if p.augment == "first":
        return w[0]
    if p.augment == "last":
        return w[-1]
    return Fraction(0)
