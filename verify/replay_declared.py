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
from .expr import MAX_PREV, evaluate

__all__ = ["replay_declared"]


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


def replay_declared(ctx, tr, visit_claims, update_claims, end_claims, tallies, name):
    """Returns an Inconsistency, or None with the claims' tallies filled in."""
    from .replay import Inconsistency, _CyclicRule, _end_mismatch, _Env, _eval_claim

    decl, p = ctx.var, ctx.params
    n = ctx.n
    consts = {"eta": ctx.eta, "n": Fraction(n), "d": Fraction(ctx.d), "R2": ctx.R2, "R": ctx.R}
    consts.update(ctx.declared_values)
    init = _Vals({**consts, "w0": ctx.w0, "b0": ctx.b0})
    state = {}
    try:
        for s, c in decl.state:
            state[s] = _as_value(evaluate(c.tree, init))
    except (X.ExactError, ArithmeticError) as e:
        return Inconsistency(None, f"the declaration's initial state cannot be computed exactly: {e}")
    recorded_all = tr.header.get("record", "visits") == "visits"
    k = 0
    sumsq = Fraction(0)
    history = deque(maxlen=MAX_PREV)
    rec = 0
    nrec = len(tr.t)
    upd_index = 0
    gam_strict = ctx.strict_gamma()
    tie = ctx.tie

    def env(extra: dict) -> _Vals:
        return _Vals({**consts, **state, "k": Fraction(k), **extra})

    def score_of(i):
        return evaluate(decl.score.tree, env({"x": ctx.rows[i]}))

    def decide(i, s):
        out = _sgn(s, tie)
        return out, bool(evaluate(decl.mistake.tree, env({"y": Fraction(ctx.y[i]), "score": s, "out": Fraction(out)})))

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
        rs = Fraction(tr.score[rec])
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
        expect_k = k + (1 if mistake else 0)
        if int(tr.k[rec]) != expect_k:
            return Inconsistency(t, f"update count after this visit should be {expect_k}; the trace has {int(tr.k[rec])}")
        rec += 1
        return None

    def check_update(t, i):
        nonlocal upd_index
        if upd_index >= len(tr.upd_t) or int(tr.upd_t[upd_index]) != t:
            return Inconsistency(t, "the rule requires an update here; the trace records no weights for it")
        rw, rb = tr.weights_after(upd_index)
        upd_index += 1
        w = state["w"]
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
        vals = {**consts, **state, "k": Fraction(k), "t": Fraction(t), "i": Fraction(i), "x": x, "y": y, "score": s,
                "out": Fraction(out), "sumsq": sumsq}
        if "b" not in state:
            vals["b"] = Fraction(0)
        return vals

    def visit(t, epoch, i):
        nonlocal k, sumsq
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
        history.append((state["w"], state.get("b", Fraction(0)), k, sumsq))
        upd_env = env({"x": x, "y": y, "score": s, "out": Fraction(out), "t": Fraction(t), "i": Fraction(i)})
        new = {v: _as_value(evaluate(c.tree, upd_env)) for v, c in decl.update}
        state.update(new)
        k += 1
        sumsq = sumsq + X.vdot(x, x)
        bad = check_update(t, i)
        if bad:
            return True, bad
        if update_claims:
            e = _Env(ctx, claim_vals(t, i, x, y, s, out), history)
            for c in update_claims:
                _eval_claim(c, e, tallies[c.id], {"dataset": name, "t": t, "point": i, "k": k},
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
            while (step := rule.next(k, t)) is not None:
                t += 1
                mistake, bad = visit(t, *step)
                if bad:
                    return bad
                if rule.after(mistake, k):
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
                if k >= p.max_updates:
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
    got = {"updates": k, "epochs": epochs, "visits": t, "converged": converged, "stop": stop,
           "w": list(w.components()), "b": state["b"] if "b" in state else _bias_of(p, w.components())}
    out_env = _Vals({**consts, **state, "k": Fraction(k), "t": Fraction(t), "epochs": Fraction(epochs)})
    outputs = {}
    try:
        for o, c in decl.outputs:
            outputs[o] = _as_value(evaluate(c.tree, out_env))
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
        vals = {**consts, **state, **outputs, "k": Fraction(k), "mistakes": Fraction(k), "epochs": Fraction(epochs),
                "converged": Fraction(1 if converged else 0), "sumsq": sumsq, "t": Fraction(t),
                "stopped_by_budget": Fraction(0 if converged else 1)}
        vals.setdefault("b", Fraction(0))
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
