"""The replay of a declared variant's float trace: the declaration's own expressions in float64
(the same IEEE operations as the learner's), every decision certified exact by intervals (and
Fractions where they cannot decide), the records read in blocks (verify.replay.records)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from perceptron import _interval as I
from perceptron.declared import split_dot
from perceptron.params import prepare_inputs
from verify.language.expr import evaluate
from verify.numbers import exact as X
from verify.numbers.exact import sign_or_tie
from verify.replay.declared import Values
from verify.replay.records import (
    Inconsistency,
    RecordChecker,
    augmented_bias,
    end_mismatch,
)

__all__ = ["replay_declared_float", "FLOAT_BLOCK"]

#: Visits scored at once by the float replay (bounds its temporary arrays).
FLOAT_BLOCK = 4096


def _feval(tree, env: dict):
    """A declaration's expression in float64, operation by operation as written (the learner's
    float run performs the same IEEE operations, so the values agree bit for bit).  Written here
    on purpose, not taken from the learner (perceptron.models.declared_arith.compile_tree): the
    replay checks the learner's float updates, so it must not compute them with the learner's code."""
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


def replay_declared_float(ctx, tr):
    """A declared variant's float trace, replayed in blocks of visits between updates: scores of
    the float state on the float data (within the rounding bound of the recorded ones), each
    decision the exact one for the float state and the exact data (intervals, Fractions where
    they cannot decide), each update bit for bit the declaration's float operations, and the end
    record.  Returns an Inconsistency or None."""
    p = ctx.params
    if tr.header.get("record") != "visits" or not (p.order == "cyclic" or p.order.startswith("random:")):
        return Inconsistency(None, "cannot verify: float traces of declared variants are replayed for the cyclic and "
                                   "random orders, recorded visit by visit; re-run it with --exact to check this one")
    return _DeclaredFloatRun(ctx, tr).replay()


class _DeclaredFloatRun:
    """A declared variant's float64 run, block by block."""

    def __init__(self, ctx, tr):
        self.ctx, self.tr, self.p, self.decl = ctx, tr, ctx.params, ctx.var
        self.Xf, _ = prepare_inputs(ctx.ds, self.p)
        Xf = self.Xf
        n, d = Xf.shape
        self.n = n
        self.y = np.asarray(ctx.y, dtype=np.int64)
        unit = 2.0 ** -53
        gamma = (d + 3) * unit / (1 - (d + 3) * unit)  # the product (d terms) and the rounding of x
        self.err = 1.01 * gamma * np.sqrt(np.einsum("ij,ij->i", Xf, Xf))
        r2 = float(np.max(np.cumsum(Xf * Xf, axis=1)[:, -1])) if Xf.size else 0.0
        self.consts = {"eta": float(ctx.eta), "n": float(n), "d": float(d), "R2": r2, "R": math.sqrt(r2),
                       **{k: float(v) for k, v in ctx.declared_values.items()}}
        w0 = np.array([float(v) for v in ctx.w0.components()])
        init = {**self.consts, "w0": w0, "b0": float(ctx.b0)}
        self.state = {}
        for s, c in self.decl.state:
            v = _feval(c.tree, init)
            self.state[s] = np.array(v, dtype=np.float64) if np.ndim(v) == 1 else float(v)
        self.dots: list = []
        self.score_split = split_dot(self.decl.score.tree, self.dots)
        self.records = RecordChecker(tr, self.p.order, ctx.y)
        self.k = self.t = 0

    def scores(self, idx):
        """Float scores of the points idx, and intervals that enclose their exact values."""
        decl, rows = self.decl, self.Xf[idx]
        env = {**self.consts, **self.state, "k": float(self.k), "x": rows}
        s = np.broadcast_to(np.asarray(_feval(decl.score.tree, env), dtype=np.float64), (len(idx),))
        m = len(idx)
        ivals = {}
        for name, v in {**self.consts, **self.state, "k": float(self.k)}.items():
            if np.ndim(v) == 0:
                ivals[name] = I.point(np.full(m, v))
        for j, vt in enumerate(self.dots):
            vv = np.asarray(_feval(vt, env), dtype=np.float64)
            prod = rows @ vv
            e = 2 * self.err[idx] * float(np.sqrt(np.dot(vv, vv)))
            ivals[f"__dot{j}__"] = (np.nextafter(prod - e, -np.inf), np.nextafter(prod + e, np.inf)) if e.any() else I.point(prod)
        try:
            lo, hi = I.ieval(self.score_split, _IEnv(ivals), m)
        except (I.IntervalError, KeyError, TypeError):
            lo, hi = np.full(m, -np.inf), np.full(m, np.inf)
        return s, lo, hi, ivals

    def exact(self, i):
        """(score, out, mistake) exactly: the float state as binary rationals, the exact data."""
        decl = self.decl
        vals = {k2: (X.vec_from_fractions([Fraction(float(a)) for a in v]) if np.ndim(v) == 1 else Fraction(float(v)))
                for k2, v in {**self.consts, **self.state}.items()}
        vals.update({"k": Fraction(self.k), "x": self.ctx.rows[i]})
        sc = evaluate(decl.score.tree, Values(vals))
        out = sign_or_tie(sc, self.ctx.tie)
        vals.update({"score": sc, "y": Fraction(int(self.y[i])), "out": Fraction(out)})
        return sc, out, bool(evaluate(decl.mistake.tree, Values(vals)))

    def decide(self, idx, s, lo, hi, ivals):
        """(mistakes, outputs) of the points idx, exact: by the intervals, else by exact()."""
        m, tie = len(idx), self.ctx.tie
        sg = np.where(lo > 0, 1, np.where(hi < 0, -1, 2))
        sg = np.where((lo == 0) & (hi == 0), 0, sg)
        outs = np.where(sg == 0, tie, sg)
        env = dict(ivals)
        env["score"] = (lo, hi)
        env["y"] = I.point(self.y[idx].astype(np.float64))
        env["out"] = I.point(outs.astype(np.float64))
        try:
            dec = np.asarray(I.ieval(self.decl.mistake.tree, _IEnv(env), m)) if not (sg == 2).all() else np.full(m, I.UNDECIDED)
        except (I.IntervalError, KeyError, TypeError):
            dec = np.full(m, I.UNDECIDED)
        dec = np.where(sg == 2, I.UNDECIDED, dec)
        mist = dec == I.TRUE
        outs = outs.copy()
        for j in np.flatnonzero(dec == I.UNDECIDED):
            _, outs[j], mist[j] = self.exact(int(idx[j]))
        return mist, outs

    def visit_block(self, epoch, idx):
        """Visit the points idx up to the first mistake; returns (visits made, the mistake's
        position or None, inconsistency)."""
        s, lo, hi, ivals = self.scores(idx)
        mist, outs = self.decide(idx, s, lo, hi, ivals)
        hits = np.flatnonzero(mist)
        cnt = int(hits[0]) + 1 if hits.size else len(idx)
        rec = self.records.rec
        bound = 2 * np.maximum(np.abs(hi[:cnt] - s[:cnt]), np.abs(s[:cnt] - lo[:cnt]))
        have = min(cnt, len(self.tr.t) - rec)
        unbounded = np.flatnonzero(~np.isfinite(bound[:have]))
        if unbounded.size:  # no rounding bound to hold the recorded score to: it is not checked, so not trusted
            q = int(unbounded[0])
            return cnt, None, Inconsistency(self.t + q + 1, f"cannot verify: the score of point {int(idx[q])} has no "
                                                            "rounding bound (its interval evaluation failed), so the "
                                                            "recorded score cannot be checked; re-run it with --exact")
        score_ok = np.ones(cnt, dtype=bool)
        score_ok[:have] = np.abs(self.tr.score[rec:rec + have] - s[:have]) <= bound[:have] + 1e-300

        def describe(q):
            holds = "holds" if mist[q] else "fails"
            return f"the declared mistake condition {holds} at point {int(idx[q])} (exactly, for the float state)"

        def score_message(q):
            return (f"score of point {int(idx[q])} recomputed is {float(s[q])!r}; the trace has "
                    f"{float(self.tr.score[rec + q])!r} (beyond the rounding bound {float(bound[q]):.3g})")
        bad = self.records.block(self.t, epoch, idx[:cnt], mist[:cnt], self.k, score_ok, describe, score_message)
        self.t += cnt
        if bad or not hits.size:
            return cnt, None, bad
        return cnt, int(outs[cnt - 1]), self.update(int(idx[cnt - 1]), int(outs[cnt - 1]))

    def update(self, i, out):
        """The declaration's float update on point i at visit t, against the trace's record."""
        u, bad = self.records.update(self.t)
        if bad:
            return bad
        env = {**self.consts, **self.state, "k": float(self.k), "x": self.Xf[i], "y": float(self.y[i]), "out": float(out),
               "score": float(self.tr.score[self.records.rec - 1]), "t": float(self.t), "i": float(i)}
        new = {v: _feval(c.tree, env) for v, c in self.decl.update}
        for v, val in new.items():
            self.state[v] = np.asarray(val, dtype=np.float64) if np.ndim(val) == 1 else float(val)
        self.k += 1
        if not np.array_equal(np.asarray(self.tr.w[u], dtype=np.float64), self.state["w"]):
            return Inconsistency(self.t, "w after the update differs from the declaration's float64 update")
        if "b" in self.state and float(self.tr.b[u]) != self.state["b"]:
            return Inconsistency(self.t, "b after the update differs from the declaration's float64 update")
        return None

    def epoch(self, epoch, order, max_visits):
        """One epoch; returns (clean, stop, inconsistency)."""
        pos, clean, n = 0, True, self.n
        while pos < n:
            m = min(FLOAT_BLOCK, n - pos)
            if max_visits != float("inf"):
                m = min(m, int(max_visits) - self.t)
                if m <= 0:
                    return clean, "max_visits", None
            cnt, out, bad = self.visit_block(epoch, order[pos:pos + m])
            if bad:
                return clean, None, bad
            pos += cnt
            if out is not None:
                clean = False
                if self.k >= self.p.max_updates:
                    return clean, "max_updates", None
        return clean, None, None

    def replay(self):
        p, decl, n = self.p, self.decl, self.n
        rng = np.random.default_rng(int(p.order.split(":")[1])) if p.order.startswith("random:") else None
        max_visits = p.max_visits if p.max_visits is not None else float("inf")
        epoch, stop, converged = 0, None, False
        while True:
            if epoch >= p.max_epochs:
                stop = "max_epochs"
                break
            if self.k >= p.max_updates:
                stop = "max_updates"
                break
            epoch += 1
            clean, stop, bad = self.epoch(epoch, rng.permutation(n) if rng is not None else np.arange(n), max_visits)
            if bad:
                return bad
            if stop is not None:
                break
            if clean and decl.stop == "converged":
                converged, stop = True, "converged"
                break
        if decl.stop == "epochs" or stop != "converged":
            allidx = np.arange(n)
            converged = not self.decide(allidx, *self.scores(allidx))[0].any()
        return self.records.finish(self.t, stop) or self.end(epoch, stop, converged)

    def end(self, epoch, stop, converged):
        """The end record (and the declared outputs) against the trace's."""
        state, p = self.state, self.p
        w = state["w"]
        got = {"updates": self.k, "epochs": epoch, "visits": self.t, "converged": converged, "stop": stop,
               "w": [float(v) for v in w], "b": state["b"] if "b" in state else float(augmented_bias(p, list(w)))}
        bad = end_mismatch(self.tr.end, got, exact=False)
        if bad is not None:
            return bad
        if self.decl.outputs:
            env = {**self.consts, **state, "k": float(self.k), "t": float(self.t), "epochs": float(epoch)}
            want = {}
            for o, c in self.decl.outputs:
                v = _feval(c.tree, env)
                want[o] = [float(a) for a in v] if np.ndim(v) == 1 else float(v)
            if self.tr.end.get("outputs") != want:
                return Inconsistency(None, "the trace's end record has other outputs than the re-run's")
        return None
