"""Replay of a declared variant's trace: the declaration (perceptron.declared) re-run one visit at
a time by the claim language's own exact evaluator (verify.language.expr on verify.numbers.exact values), not
by the learner's block engine, and every record compared with it.

The checks are those of the built-in replay: visit numbers, points, epochs, labels, scores,
mistake flags, update counts, the state after every update, and the end record (with the
declared outputs); the first disagreement is reported at its visit and claims are then not
evaluated on the trace.
"""

from __future__ import annotations

import math
from collections import deque
from fractions import Fraction

import numpy as np

from perceptron._numbers import format_rational
from perceptron.declared import signed_score_test, split_dot
from verify.language.expr import MAX_PREV, evaluate
from verify.language.scalar import Env, eval_claim
from verify.numbers import exact as X
from verify.numbers.exact import sign_or_tie
from verify.numbers.integers import same_ratio
from verify.replay.loop import follow_rule
from verify.replay.records import (
    Inconsistency,
    RecordChecker,
    augmented_bias,
    end_mismatch,
    short_value,
)

__all__ = ["replay_declared", "replay_declared_float", "DeclaredRun"]


class _Vals:
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


def _as_value(v):
    return Fraction(v) if isinstance(v, int) else v


class DeclaredRun:
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

    def env(self, extra: dict) -> _Vals:
        return _Vals(extra, self.base)

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
        new = {v: _as_value(evaluate(c.tree, e)) for v, c in self.decl.update}
        self.state.update(new)
        self.k += 1
        self.sumsq = self.sumsq + X.vdot(x, x)
        self._c = None
        self._rebase()

    def outputs(self, t, epochs) -> dict:
        e = _Vals({**self.consts, **self.state, "k": Fraction(self.k), "t": Fraction(t), "epochs": Fraction(epochs)})
        return {o: _as_value(evaluate(c.tree, e)) for o, c in self.decl.outputs}

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
            eval_claim(c, env, self.tallies[c.id], where, self.gam_strict if "strict_margin" in c.assume else None)

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
        if self.records.recorded(mistake):
            def describe():
                holds = "holds" if mistake else "fails"
                return f"the declared mistake condition {holds} at point {i} (score {short_value(s)}, y = {ctx.y[i]})"
            bad = self.records.visit(t, epoch, i, mistake, run.k, describe, lambda rec: self._score_differs(rec, i, s))
            if bad:
                return mistake, bad
        x, y = ctx.rows[i], Fraction(ctx.y[i])
        vals = dict(t=Fraction(t), i=Fraction(i), x=x, y=y, score=s, out=Fraction(out))
        if self.visit_claims:
            self._claims(self.visit_claims, Env(ctx, run.claim_vals(**vals)), {"dataset": self.name, "t": t, "point": i})
        if not mistake:
            return False, None
        self.history.append(run.before())
        run.update(i, s, out, t)
        bad = self._check_update(t, i)
        if bad:
            return True, bad
        if self.update_claims:
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


def _outputs_mismatch(end: dict, outputs: dict):
    """The first declared output where the trace's end record differs from the re-run's."""
    have = end.get("outputs")
    want = {o: (format_rational(v) if isinstance(v, Fraction) else
                [format_rational(c) for c in v.components()] if isinstance(v, X.Vec) else repr(v)) for o, v in outputs.items()}
    if have == want:
        return None
    diff = next((o for o in want if not isinstance(have, dict) or have.get(o) != want[o]), None)
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
                              stopped_by_budget=Fraction(0 if end.converged else 1))
        step._claims([c for c in end_claims if end.converged or "converged" not in c.assume],
                     Env(ctx, vals, step.history), {"dataset": name, "end": True, "k": k})
    return None


def _feval(tree, env: dict):
    """A declaration's expression in float64, operation by operation as written (the learner's
    float run performs the same IEEE operations, so the values agree bit for bit)."""
    op = tree[0]
    if op == "num":
        return float(tree[1])
    if op == "name":
        return env[tree[1]]
    if op == "neg":
        return -_feval(tree[1], env)
    if op == "bin":
        a, b = _feval(tree[2], env), _feval(tree[3], env)
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[tree[1]]()
    if op == "pow":
        return _feval(tree[1], env) ** tree[2]
    if op == "cmp":
        vals = [_feval(t, env) for t in tree[2]]
        out = True
        for o, a, b in zip(tree[1], vals, vals[1:]):
            out = out & {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                         "==": np.equal, "!=": np.not_equal}[o](a, b)
        return out
    if op in ("and", "or"):
        vals = [_feval(t, env) for t in tree[1]]
        out = vals[0]
        for v in vals[1:]:
            out = np.logical_and(out, v) if op == "and" else np.logical_or(out, v)
        return out
    if op == "not":
        return np.logical_not(_feval(tree[1], env))
    if op == "if":
        c = _feval(tree[1], env)
        if np.ndim(c):
            return np.where(c, _feval(tree[2], env), _feval(tree[3], env))
        return _feval(tree[2], env) if c else _feval(tree[3], env)
    if op == "call":
        name, args = tree[1], [_feval(t, env) for t in tree[2]]
        if name == "dot":
            a, b = args
            return b @ a if np.ndim(b) == 2 else (a @ b if np.ndim(a) == 2 else float(np.dot(a, b)))
        if name == "norm2":
            return float(np.dot(args[0], args[0]))
        if name == "norm":
            return float(np.sqrt(np.dot(args[0], args[0])))
        if name == "vec":
            return np.array([float(a) for a in args])
        fn = {"sqrt": np.sqrt, "abs": np.abs, "sign": np.sign, "ceil": np.ceil, "floor": np.floor}.get(name)
        if fn is not None:
            return fn(args[0])
        out = args[0]
        for a in args[1:]:
            out = np.minimum(out, a) if name == "min" else np.maximum(out, a)
        return out
    raise X.ExactError(f"{op} cannot be evaluated in float")


class _IEnv:
    def __init__(self, vals):
        self.vals = vals

    def get(self, name):
        return self.vals[name]


#: Visits scored at once by the float replay (bounds its temporary arrays).
FLOAT_BLOCK = 4096


def replay_declared_float(ctx, tr):
    """A declared variant's float trace, replayed in blocks of visits between updates: scores of
    the float state on the float data (within the rounding bound of the recorded ones), each
    decision the exact one for the float state and the exact data (intervals, Fractions where
    they cannot decide), each update bit for bit the declaration's float operations, and the end
    record.  Returns an Inconsistency or None."""
    from perceptron import _interval as I
    from perceptron.params import prepare_inputs
    from verify.replay.records import Inconsistency, end_mismatch

    decl, p = ctx.var, ctx.params
    if tr.header.get("record") != "visits" or not (p.order == "cyclic" or p.order.startswith("random:")):
        return Inconsistency(None, "cannot verify: float traces of declared variants are replayed for the cyclic and "
                                   "random orders, recorded visit by visit; re-run it with --exact to check this one")
    Xf, _ = prepare_inputs(ctx.ds, p)
    n, d = Xf.shape
    y = np.asarray(ctx.y, dtype=np.int64)
    unit = 2.0 ** -53
    gamma = (d + 3) * unit / (1 - (d + 3) * unit)  # the product (d terms) and the rounding of x
    err = 1.01 * gamma * np.sqrt(np.einsum("ij,ij->i", Xf, Xf))
    r2 = float(np.max(np.cumsum(Xf * Xf, axis=1)[:, -1])) if Xf.size else 0.0
    consts = {"eta": float(ctx.eta), "n": float(n), "d": float(d), "R2": r2, "R": math.sqrt(r2),
              **{k: float(v) for k, v in ctx.declared_values.items()}}
    w0 = np.array([float(v) for v in ctx.w0.components()])
    init = {**consts, "w0": w0, "b0": float(ctx.b0)}
    state = {}
    for s, c in decl.state:
        v = _feval(c.tree, init)
        state[s] = np.array(v, dtype=np.float64) if np.ndim(v) == 1 else float(v)
    dots: list = []
    score_split = split_dot(decl.score.tree, dots)
    tie = ctx.tie
    k = t = rec = upd = 0
    nrec = len(tr.t)
    rng = np.random.default_rng(int(p.order.split(":")[1])) if p.order.startswith("random:") else None
    max_visits = p.max_visits if p.max_visits is not None else float("inf")

    def scores(idx):
        rows = Xf[idx]
        env = {**consts, **state, "k": float(k), "x": rows}
        s = np.broadcast_to(np.asarray(_feval(decl.score.tree, env), dtype=np.float64), (len(idx),))
        m = len(idx)
        ivals = {}
        for name, v in {**consts, **state, "k": float(k)}.items():
            if np.ndim(v) == 0:
                ivals[name] = I.point(np.full(m, v))
        for j, vt in enumerate(dots):
            vv = np.asarray(_feval(vt, env), dtype=np.float64)
            prod = rows @ vv
            e = 2 * err[idx] * float(np.sqrt(np.dot(vv, vv)))
            ivals[f"__dot{j}__"] = (np.nextafter(prod - e, -np.inf), np.nextafter(prod + e, np.inf)) if e.any() else I.point(prod)
        try:
            lo, hi = I.ieval(score_split, _IEnv(ivals), m)
        except (I.IntervalError, KeyError, TypeError):
            lo, hi = np.full(m, -np.inf), np.full(m, np.inf)
        return s, lo, hi, ivals

    def exact(i):
        """(score, out, mistake) exactly: the float state as binary rationals, the exact data."""
        from fractions import Fraction as F

        vals = {k2: (X.vec_from_fractions([F(float(a)) for a in v]) if np.ndim(v) == 1 else F(float(v)))
                for k2, v in {**consts, **state}.items()}
        vals.update({"k": F(k), "x": ctx.rows[i]})
        sc = evaluate(decl.score.tree, _Vals(vals))
        out = sign_or_tie(sc, tie)
        vals.update({"score": sc, "y": F(int(y[i])), "out": F(out)})
        return sc, out, bool(evaluate(decl.mistake.tree, _Vals(vals)))

    def decide(idx, s, lo, hi, ivals):
        m = len(idx)
        sg = np.where(lo > 0, 1, np.where(hi < 0, -1, 2))
        sg = np.where((lo == 0) & (hi == 0), 0, sg)
        outs = np.where(sg == 0, tie, sg)
        env = dict(ivals)
        env["score"] = (lo, hi)
        env["y"] = I.point(y[idx].astype(np.float64))
        env["out"] = I.point(outs.astype(np.float64))
        try:
            dec = np.asarray(I.ieval(decl.mistake.tree, _IEnv(env), m)) if not (sg == 2).all() else np.full(m, I.UNDECIDED)
        except (I.IntervalError, KeyError, TypeError):
            dec = np.full(m, I.UNDECIDED)
        dec = np.where(sg == 2, I.UNDECIDED, dec)
        mist = dec == I.TRUE
        outs = outs.copy()
        for j in np.flatnonzero(dec == I.UNDECIDED):
            _, outs[j], mist[j] = exact(int(idx[j]))
        return mist, outs

    epoch = 0
    stop = None
    converged = False
    while True:
        if epoch >= p.max_epochs:
            stop = "max_epochs"
            break
        if k >= p.max_updates:
            stop = "max_updates"
            break
        epoch += 1
        order = rng.permutation(n) if rng is not None else np.arange(n)
        pos, clean = 0, True
        while pos < n:
            m = min(FLOAT_BLOCK, n - pos)
            if max_visits != float("inf"):
                m = min(m, int(max_visits) - t)
                if m <= 0:
                    stop = "max_visits"
                    break
            idx = order[pos:pos + m]
            s, lo, hi, ivals = scores(idx)
            mist, outs = decide(idx, s, lo, hi, ivals)
            hits = np.flatnonzero(mist)
            j = int(hits[0]) if hits.size else m - 1
            cnt = j + 1
            seg = slice(rec, rec + cnt)
            if rec + cnt > nrec:
                return Inconsistency(t + nrec - rec + 1, f"the rule requires visit {t + nrec - rec + 1}; the trace has ended")
            want_t = np.arange(t + 1, t + cnt + 1)
            want_k = np.full(cnt, k)
            if hits.size:
                want_k[-1] += 1
            bound = 2 * np.maximum(np.abs(hi[:cnt] - s[:cnt]), np.abs(s[:cnt] - lo[:cnt]))
            checks = [(tr.t[seg] != want_t, lambda q: f"the trace records visit number {int(tr.t[rec + q])} where the rule "
                                                      f"requires visit {t + q + 1}"),
                      (tr.i[seg] != idx[:cnt], lambda q: f"the rule ({p.order} order) requires point {int(idx[q])}; the "
                                                         f"trace has point {int(tr.i[rec + q])}"),
                      (tr.epoch[seg] != epoch, lambda q: f"epoch should be {epoch}; the trace has {int(tr.epoch[rec + q])}"),
                      (tr.y[seg] != y[idx[:cnt]], lambda q: f"point {int(idx[q])} has label {int(y[idx[q]])} in the dataset; "
                                                            f"the trace records {int(tr.y[rec + q])}"),
                      (~(np.abs(tr.score[seg] - s[:cnt]) <= bound + 1e-300),
                       lambda q: f"score of point {int(idx[q])} recomputed is {float(s[q])!r}; the trace has "
                                 f"{float(tr.score[rec + q])!r} (beyond the rounding bound {float(bound[q]):.3g})"),
                      (tr.mistake[seg] != mist[:cnt], lambda q: f"the declared mistake condition "
                                                                f"{'holds' if mist[q] else 'fails'} at point {int(idx[q])} "
                                                                f"(exactly, for the float state); the trace says mistake = "
                                                                f"{bool(tr.mistake[rec + q])}"),
                      (tr.k[seg] != want_k, lambda q: f"update count after this visit should be {int(want_k[q])}; the "
                                                      f"trace has {int(tr.k[rec + q])}")]
            first = min((int(np.argmax(bad)), n_) for n_, (bad, _) in enumerate(checks) if bad.any()) if any(
                bad.any() for bad, _ in checks) else None
            if first is not None:
                q, which = first
                return Inconsistency(t + q + 1, checks[which][1](q))
            nxt_upd = int(tr.upd_t[upd]) if upd < len(tr.upd_t) else None
            if nxt_upd is not None and nxt_upd <= t + cnt and not (hits.size and nxt_upd == t + cnt):
                return Inconsistency(nxt_upd, "the trace records weights after this visit; the rule makes no update here")
            rec += cnt
            t += cnt
            pos += cnt
            if not hits.size:
                continue
            clean = False
            i = int(idx[j])
            if nxt_upd != t:
                return Inconsistency(t, "the rule requires an update here; the trace records no weights for it")
            env = {**consts, **state, "k": float(k), "x": Xf[i], "y": float(y[i]), "out": float(outs[j]),
                   "score": float(tr.score[rec - 1]), "t": float(t), "i": float(i)}
            new = {v: _feval(c.tree, env) for v, c in decl.update}
            for v, val in new.items():
                state[v] = np.asarray(val, dtype=np.float64) if np.ndim(val) == 1 else float(val)
            k += 1
            if not np.array_equal(np.asarray(tr.w[upd], dtype=np.float64), state["w"]):
                return Inconsistency(t, "w after the update differs from the declaration's float64 update")
            if "b" in state and float(tr.b[upd]) != state["b"]:
                return Inconsistency(t, "b after the update differs from the declaration's float64 update")
            upd += 1
            if k >= p.max_updates:
                stop = "max_updates"
                break
        if stop is not None:
            break
        if clean and decl.stop == "converged":
            converged, stop = True, "converged"
            break
    if decl.stop == "epochs" or stop != "converged":
        allidx = np.arange(n)
        s, lo, hi, ivals = scores(allidx)
        converged = not decide(allidx, s, lo, hi, ivals)[0].any()
    if rec != nrec:
        return Inconsistency(int(tr.t[rec]), f"the rule ends the run after visit {t} ({stop}); the trace goes on to {nrec} visits")
    if upd != len(tr.upd_t):
        return Inconsistency(int(tr.upd_t[upd]), "the trace records an update the rule never makes")
    w = state["w"]
    got = {"updates": k, "epochs": epoch, "visits": t, "converged": converged, "stop": stop, "w": [float(v) for v in w],
           "b": state["b"] if "b" in state else float(augmented_bias(p, list(w)))}
    bad = end_mismatch(tr.end, got, exact=False)
    if bad is not None:
        return bad
    if decl.outputs:
        env = {**consts, **state, "k": float(k), "t": float(t), "epochs": float(epoch)}
        want = {}
        for o, c in decl.outputs:
            v = _feval(c.tree, env)
            want[o] = [float(a) for a in v] if np.ndim(v) == 1 else float(v)
        if tr.end.get("outputs") != want:
            return Inconsistency(None, "the trace's end record has other outputs than the re-run's")
    return None
