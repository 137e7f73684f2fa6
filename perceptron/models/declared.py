"""The learner's model of a declared variant (perceptron.declared): its state, scores,
mistakes and updates, exact or float, for the one run loop of perceptron.run.

Exact values are Fractions (scalars) and ``Q`` arrays: integer numerators (int64 while a bound
proves they cannot wrap, else Python integers) over one positive denominator.  A block of points
is scored by one matrix-vector product (``dot(w, x)`` with x the block's rows) and its mistake
condition is evaluated on the whole block, as the built-in variants are.

Float runs evaluate the same expressions in float64.  Each decision is certified: the mistake
condition is evaluated on intervals (perceptron._interval, outward rounding) that enclose the
exact value of every score (the float product's rounding bound); a point the intervals cannot
decide is decided exactly, from the float state (each float an exact binary rational) and the
exact data.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import _interval as I
from .._numbers import U as _U
from .._numbers import error_scale as _error_scale
from .rationals import DeclaredError, Q, check_bits, q_reduce, q_sign
from ..declared import signed_score_test, split_dot
from .declared_arith import FAULTS, ExactArith, FloatArith, compile_tree, declared_fault, faults_of, q_vec, score_pattern

__all__ = ["DeclaredModel", "DeclaredError", "FAULTS"]


class DeclaredModel:
    """State, scores, mistakes and updates of a declared variant (the interface of the built-in
    models of perceptron.run: scores, mistakes, update, weights, final)."""

    declared = True

    def __init__(self, decl, ds, params, X, D, consts: dict):
        self.decl = decl
        self.exact = params.arithmetic == "exact"
        self.n, self.d = X.shape
        self.X, self.D = X, D
        self.tie = decl.sign0 if decl.sign0 is not None else params.sign0
        self.has_bias = "b" in dict(decl.state)
        self.k = 0
        ar = ExactArith if self.exact else FloatArith
        self._score = compile_tree(decl.score.tree, ar)
        self._mistake = compile_tree(decl.mistake.tree, ar)
        self._update = [(s, compile_tree(c.tree, ar)) for s, c in decl.update]
        self._outputs = [(o, compile_tree(c.tree, ar)) for o, c in decl.outputs]
        if self.exact:
            self.rows = Q(X, D, None)
            cv = {k: Fraction(v) for k, v in consts.items()}
        else:
            cv = {k: float(v) for k, v in consts.items()}
            self.Xexact = None
            self.ds, self.params = ds, params
            dots: list = []
            self._split = split_dot(decl.score.tree, dots)  # dot(v, x) -> __dotJ__: one product per block
            self._score_split = compile_tree(self._split, FloatArith)
            self._dot_v = [compile_tree(v, FloatArith) for v in dots]
            self._score_exact = compile_tree(decl.score.tree, ExactArith)
            sp, mp = score_pattern(decl.score.tree), signed_score_test(decl.mistake.tree)
            self._fast_score = None if sp is None else (compile_tree(sp[0], FloatArith),
                                                        None if sp[1] is None else compile_tree(sp[1], FloatArith),
                                                        sp[1] is not None and sp[1] == decl.score.tree[3])
            self._fast_mistake = None if mp is None else (mp[0], mp[1], compile_tree(mp[2], FloatArith))
            self._mistake_exact = compile_tree(decl.mistake.tree, ExactArith)
            # the product's rounding bound per row (perceptron.run's), doubled, as for the built-in variants
            self.err2 = 2 * (1 + 8 * _U) * _error_scale(self.d) * np.sqrt(np.einsum("ij,ij->i", X, X))
        self.consts = cv
        init_env = dict(cv)
        w0 = params.w0 if params.w0 is not None else (0,) * self.d
        if len(w0) != self.d:
            from ..params import ParamError
            raise ParamError(f"initial weights have {len(w0)} entries; the model has {self.d} (after augmentation)")
        b0 = Fraction(params.b0 or 0)
        if self.exact:
            w0q = Q(np.zeros(self.d, dtype=np.int64), 1, 0) if params.w0 is None else q_vec([Fraction(v) for v in w0])
            init_env.update({"w0": w0q, "b0": b0})
        else:
            init_env.update({"w0": np.array([float(v) for v in w0]), "b0": float(b0)})
        self.state = {}
        for s, c in decl.state:
            try:
                v = compile_tree(c.tree, ar)(init_env)
            except (*FAULTS, DeclaredError) as e:
                raise declared_fault(f"state.{s}", c.source, e) from None
            if not self.exact and np.ndim(v) == 1:
                v = np.array(v, dtype=np.float64)
            self.state[s] = v
        self._uses_out = "out" in decl.mistake.names
        self._update_names = set().union(*(c.names for _, c in decl.update))
        self._rebase()

    # ---- scores and decisions
    def _rebase(self):
        """The constants, the state and k: the base every evaluation starts from (rebuilt at an
        update; a step's own names are set on a copy)."""
        self._base = {**self.consts, **self.state, "k": Fraction(self.k) if self.exact else float(self.k)}

    def _env(self):
        return dict(self._base)

    @faults_of("score")
    def scores(self, idx, lo=None):
        env = self._env()
        if self.exact:
            rows = Q(self.X[lo:lo + len(idx)] if lo is not None else self.X[idx], self.D, self.rows.ma)
        else:
            rows = self.X[lo:lo + len(idx)] if lo is not None else self.X[idx]
        env["x"] = rows
        if not self.exact and self._fast_score is not None:
            return self._fast_scores(env, rows, idx, lo)
        if self.exact:
            s = self._score(env)
            return s if isinstance(s, Q) else Q(np.full(len(idx), Fraction(s).numerator, dtype=object), Fraction(s).denominator)
        m = len(idx)
        idx = np.asarray(idx) if lo is None else np.arange(lo, lo + m)
        dots = {}
        for j, fv in enumerate(self._dot_v):  # each product once, with its bound against the exact data:
            v = fv(env)                      # err_i |v| (the product and the rounded x), doubled
            p = rows @ v
            env[f"__dot{j}__"] = p
            e = self.err2[idx] * float(np.sqrt(np.dot(v, v))) + 1e-300 if v.any() else None
            dots[f"__dot{j}__"] = I.point(p) if e is None else (np.nextafter(p - e, -np.inf), np.nextafter(p + e, np.inf))
        s = np.array(np.broadcast_to(np.asarray(self._score_split(env), dtype=np.float64), (m,)))
        try:
            slo, shi = (np.broadcast_to(v, (m,)) for v in I.ieval(self._split, _Points(self._base, m, dots), m))
            unsure = np.flatnonzero((slo <= 0) & (shi >= 0) & (slo != shi))  # a point interval is exact
        except I.IntervalError:
            slo = shi = None
            unsure = np.arange(m)
        if unsure.size:  # the sign of a score near 0 is decided exactly (as the built-in variants do)
            sg = np.array([self._exact_score_sign(int(idx[j])) for j in unsure], dtype=np.float64)
            s[unsure] = np.where(np.sign(s[unsure]) == sg, s[unsure], sg * np.maximum(np.abs(s[unsure]), 5e-324))
            s[unsure[sg == 0]] = 0.0
        self._last = (idx, None, slo, shi, None)
        return s

    def _fast_scores(self, env, rows, idx, lo):
        """Float scores of a block, s = x.v (+ a), each within e of the exact score of the float
        state on the exact data: e = 2 err_i |v| (the product and the rounding of x, doubled as
        the built-in variants do) + 4u |s| (the addition, and the rounding of s +- e itself), so
        no outward rounding step is needed."""
        fv, fa, a_first = self._fast_score
        m = len(idx)
        v = fv(env)
        p = rows @ v
        a = None if fa is None else float(fa(env))
        s = p if a is None else (a + p if a_first else p + a)
        nv = float(np.sqrt(np.dot(v, v)))
        if nv == 0:  # every product is exactly 0: the score is a (or 0) exactly
            e = 0.0
            unsure = ()
        else:
            e = (self.err2[lo:lo + m] if lo is not None else self.err2[idx]) * nv + (4 * _U) * np.abs(s) + 1e-300
            unsure = np.flatnonzero(np.abs(s) <= e)
        if len(unsure):  # the sign of a score near 0 is decided exactly (as the built-in variants do)
            where = np.asarray(idx) if lo is None else np.arange(lo, lo + m)
            sg = np.array([self._exact_score_sign(int(where[j])) for j in unsure], dtype=np.float64)
            s[unsure] = np.where(np.sign(s[unsure]) == sg, s[unsure], sg * np.maximum(np.abs(s[unsure]), 5e-324))
            s[unsure[sg == 0]] = 0.0
        self._last = (idx, lo, None, None, (s, e))
        return s

    def all_scores(self):
        return self.scores(np.arange(self.n), lo=0)

    def outs(self, s):
        sg = q_sign(s) if self.exact else np.sign(s).astype(np.int64)
        sg = np.asarray(sg, dtype=np.int64)
        if self.tie != 0:
            sg = np.where(sg == 0, self.tie, sg)
        return sg

    @faults_of("mistake")
    def mistakes(self, s, ys) -> np.ndarray:
        env = self._env()
        if self.exact:
            env.update({"score": s, "y": Q(ys.astype(np.int64), 1, 1)})
            if self._uses_out:
                env["out"] = Q(self.outs(s), 1, 1)
            m = self._mistake(env)
            return np.broadcast_to(np.asarray(m, dtype=bool), (len(ys),)).copy()
        outs = self.outs(s) if self._uses_out else ys  # out only where the mistake condition reads it
        return self._certified_mistakes(s, ys, outs)

    def _certified_mistakes(self, s, ys, outs):
        """Exact decisions for the float state: intervals first, Fractions where they cannot decide."""
        idx, lo, slo, shi, fast = self._last
        m = len(ys)
        decided = None
        if fast is not None:
            sc, e = fast
            if self._fast_mistake is not None:
                label, op, fc = self._fast_mistake
                c = float(fc(self._base))  # the float run's value of c (its float constants), exact as a float
                if np.isfinite(c):
                    ls = sc * (ys if label == "y" else outs)  # exact: labels are -1, +1
                    decided = I._cmp(op, (ls - e, ls + e), (c, c))  # e's slack covers the rounding of ls +- e
            if decided is None:
                slo, shi = np.nextafter(sc - e, -np.inf), np.nextafter(sc + e, np.inf)
        if decided is None and slo is not None:
            step = {"score": (slo, shi), "y": I.point(ys.astype(np.float64)),
                    "out": I.point(outs.astype(np.float64))}  # out = sign(score): certified by scores()
            try:
                decided = np.broadcast_to(np.asarray(I.ieval(self.decl.mistake.tree, _Points(self._base, m, step), m)), (m,))
            except I.IntervalError:
                decided = None
        if decided is None:
            decided = np.full(m, -1)
        out = decided == 1
        unsure = np.flatnonzero(decided < 0)
        if unsure.size:
            where = np.asarray(idx) if lo is None else np.arange(lo, lo + m)
            out = out.copy()
            for j in unsure:
                out[j] = self._exact_mistake(int(where[j]), int(ys[j]))
        return out

    def _exact_score(self, i: int):
        """The exact score of point i (exact data) under the float state (exact binary rationals)."""
        if self.Xexact is None:
            from ..params import exact_inputs
            self.Xexact = exact_inputs(self.ds, self.params)
        Xn, D = self.Xexact
        env = {k: (_frac_state(v)) for k, v in self._env().items()}
        env["x"] = Q(Xn[i:i + 1], D, None)
        s = self._score_exact(env)
        return (s[0] if isinstance(s, Q) else Fraction(s)), env

    def _exact_score_sign(self, i: int) -> int:
        s, _ = self._exact_score(i)
        return (s > 0) - (s < 0)

    def _exact_mistake(self, i: int, y: int) -> bool:
        s, env = self._exact_score(i)
        sg = (s > 0) - (s < 0)
        out = sg if sg != 0 else self.tie
        env.update({"score": s, "y": Fraction(y), "out": Fraction(out)})
        return bool(self._mistake_exact(env))

    # ---- updates
    def update(self, i: int, y: int, out: int, s_i=None, t: int = 0):
        env = self._env()
        if self.exact:
            env["x"] = Q(self.X[i], self.D, None)
            env["y"] = Fraction(y)
            names = self._update_names  # only the step's values the update names
            for name, value in (("out", out), ("score", s_i), ("t", t), ("i", i)):
                if name in names:
                    env[name] = Fraction(value)
        else:
            env.update({"x": self.X[i], "y": float(y), "out": float(out), "score": float(s_i), "t": float(t), "i": float(i)})
        new = {}
        for (s, f), (_, c) in zip(self._update, self.decl.update):
            try:
                new[s] = f(env)
            except (*FAULTS, DeclaredError) as e:
                raise declared_fault(f"update.{s}", c.source, e) from None
        for s, v in new.items():
            if self.exact and isinstance(v, Q):
                v = q_reduce(v)
                check_bits(v.den)
                check_bits(v.ma, "numerator")
            elif self.exact:
                v = Fraction(v)
                check_bits(v.denominator)
                check_bits(v.numerator, "numerator")
            elif np.ndim(v) == 1:
                v = np.asarray(v, dtype=np.float64)
            else:
                v = float(v)
            if not self.exact and not np.all(np.isfinite(v)):
                raise DeclaredError(f"the float state {s} is no longer finite after update {self.k + 1} (an overflow); "
                                    "run it --exact")
            self.state[s] = v
        self.k += 1
        self._rebase()

    def weights(self):
        """(w, b) as the recorder stores them: exact w as a Q (numerators over one denominator)
        and b a Fraction, or floats."""
        w = self.state["w"]
        b = self.state.get("b") if self.has_bias else None
        if self.exact:
            return Q(w.num.copy(), w.den, w._ma), b
        return w.copy(), b

    def final(self):
        w, b = self.weights()
        return w.fractions() if self.exact else [float(v) for v in w], b

    def outputs(self, t: int, epochs: int) -> dict:
        env = self._env()
        env.update({"t": Fraction(t) if self.exact else float(t), "epochs": Fraction(epochs) if self.exact else float(epochs)})
        out = {}
        for (o, f), (_, c) in zip(self._outputs, self.decl.outputs):
            try:
                v = f(env)
            except (*FAULTS, DeclaredError) as e:
                raise declared_fault(f"outputs.{o}", c.source, e) from None
            if isinstance(v, Q):
                v = v.fractions()
            elif isinstance(v, np.ndarray):
                v = [float(a) for a in v]
            elif not self.exact:
                v = float(v)
            if not self.exact and not np.all(np.isfinite(v)):
                raise declared_fault(f"outputs.{o}", c.source, OverflowError("not finite"))
            out[o] = v
        return out


class _Points:
    """Intervals for perceptron._interval.ieval: a step's own (``step``) over exact point
    intervals of the float state and constants (each float an exact binary rational), built
    for the M points of a block when first asked for."""

    def __init__(self, base: dict, m: int, step: dict):
        self.base, self.m, self.vals = base, m, dict(step)

    def get(self, name):
        v = self.vals.get(name)
        if v is None:
            b = self.base[name]
            a = np.full(self.m, b, dtype=np.float64) if np.ndim(b) == 0 else np.broadcast_to(b, (self.m, len(b)))
            v = self.vals[name] = I.point(a)
        return v


def _frac_state(v):
    if isinstance(v, np.ndarray):
        return q_vec([Fraction(float(a)) for a in v])
    if isinstance(v, Q):
        return v
    return Fraction(float(v)) if not isinstance(v, Fraction) else v
