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

import math
from fractions import Fraction

import numpy as np

from .. import _interval as I
from .._numbers import INT64_SAFE
from .._numbers import U as _U
from .._numbers import error_scale as _error_scale
from .rationals import (DeclaredError, Q, big, check_bits, exact_sqrt, q_add, q_div, q_dot,
                        q_mul, q_neg, q_of, q_reduce, q_sign)
from ..declared import PER_POINT, names_in, signed_score_test, split_dot

__all__ = ["DeclaredModel", "DeclaredError", "FAULTS"]


#: The faults of a declaration's arithmetic at run time (a division by 0, 0 ** -1, a float
#: overflow, numpy's raised divide): each is the declaration's error, reported with its field.
FAULTS = (ZeroDivisionError, OverflowError, FloatingPointError)


def _fault(field: str, source: str, e: Exception) -> DeclaredError:
    """The declaration's run-time fault, naming the field and its expression."""
    if isinstance(e, DeclaredError):
        return DeclaredError(f"{field} = {source!r}: {e}")
    what = ("a division by zero" if isinstance(e, ZeroDivisionError) or "divide by zero" in str(e) else
            "a value beyond the float range (an overflow)" if isinstance(e, OverflowError) or "overflow" in str(e) else
            str(e))
    return DeclaredError(f"{field} = {source!r} fails at run time: {what}")


def _faults(field: str):
    """Run a method of the model, turning an arithmetic fault into the named field's error."""
    def wrap(method):
        def run(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except (*FAULTS, DeclaredError) as e:
                raise _fault(field, getattr(self.decl, field).source, e) from None
        run.__name__, run.__doc__ = method.__name__, method.__doc__
        return run
    return wrap


# --------------------------------------------------------------------------- evaluators

class _Exact:
    """Exact closures: Fractions and Q."""

    @staticmethod
    def num(v):
        return v

    add, mul, div, neg = staticmethod(q_add), staticmethod(q_mul), staticmethod(q_div), staticmethod(q_neg)

    @staticmethod
    def sub(a, b):
        return q_add(a, b, -1)

    @staticmethod
    def cmp(o, a, b):
        if isinstance(a, Q) and not isinstance(b, Q) and b == 0:
            s = q_sign(a)  # a block against 0 (y * score <= 0): the numerators' signs
        elif isinstance(b, Q) and not isinstance(a, Q) and a == 0:
            s = -q_sign(b)
        elif isinstance(a, Q) or isinstance(b, Q):
            s = q_sign(q_add(a, b, -1))
        else:
            s = (a > b) - (a < b)
        return _CMP[o](s)

    @staticmethod
    def pow(a, e):
        if isinstance(a, Q):
            if e < 0:
                raise DeclaredError("negative powers of per-point values are not supported")
            out = a
            for _ in range(e - 1):
                out = q_mul(out, a)
            return out if e else Q(np.ones_like(a.num), 1, 1)
        return Fraction(a) ** e

    @staticmethod
    def call(name, args):
        if name == "dot":
            return q_dot(args[0], args[1])
        if name == "norm2":
            return q_dot(args[0], args[0])
        if name == "norm":
            return exact_sqrt(q_dot(args[0], args[0]))
        if name == "sqrt":
            return exact_sqrt(args[0])
        if name == "vec":
            return _q_vec([Fraction(a) for a in args])
        if any(isinstance(a, Q) for a in args):
            return _block_call(name, args)
        if name == "abs":
            return abs(args[0])
        if name == "sign":
            return Fraction((args[0] > 0) - (args[0] < 0))
        if name == "min":
            return min(args)
        if name == "max":
            return max(args)
        if name == "ceil":
            return Fraction(math.ceil(args[0]))
        if name == "floor":
            return Fraction(math.floor(args[0]))
        raise DeclaredError(f"{name}() is not available here")

    @staticmethod
    def where(c, a, b):
        if isinstance(c, np.ndarray):
            a, b = q_of(a), q_of(b)
            L = a.den * b.den // math.gcd(a.den, b.den)
            na, nb = big(a.num) * (L // a.den), big(b.num) * (L // b.den)
            return Q(np.where(c, na, nb), L)
        return a if c else b


def _block_call(name, args):
    if name == "abs" and isinstance(args[0], Q):
        a = args[0]
        return Q(abs(a.num), a.den, a._ma)
    if name == "sign":
        return Q(q_sign(args[0]).astype(np.int64), 1, 1)
    if name in ("min", "max"):
        out = args[0]
        for b in args[1:]:
            s = q_sign(q_add(out, b, -1))
            pick = (s > 0) if name == "min" else (s < 0)
            out = _Exact.where(np.asarray(pick), b, out)
        return out
    raise DeclaredError(f"{name}() of a per-point value is not supported")


def _q_vec(fr: list) -> Q:
    den = 1
    for f in fr:
        den = den * f.denominator // math.gcd(den, f.denominator)
    nums = [int(f * den) for f in fr]
    big = any(abs(v) >= INT64_SAFE for v in nums)
    return Q(np.array(nums, dtype=object if big else np.int64), den)


_CMP = {"<": lambda s: s < 0, "<=": lambda s: s <= 0, ">": lambda s: s > 0, ">=": lambda s: s >= 0,
        "==": lambda s: s == 0, "!=": lambda s: s != 0}


class _Float:
    """float64 closures (numpy arrays for vectors and blocks)."""

    @staticmethod
    def num(v):
        return float(v)

    @staticmethod
    def add(a, b):
        return a + b

    @staticmethod
    def sub(a, b):
        return a - b

    @staticmethod
    def mul(a, b):
        return a * b

    @staticmethod
    def div(a, b):
        return a / b

    @staticmethod
    def neg(a):
        return -a

    @staticmethod
    def cmp(o, a, b):
        return {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                "==": np.equal, "!=": np.not_equal}[o](a, b)

    @staticmethod
    def pow(a, e):
        return a ** e

    @staticmethod
    def call(name, args):
        if name == "dot":
            a, b = args
            return b @ a if np.ndim(b) == 2 else (a @ b if np.ndim(a) == 2 else float(np.dot(a, b)))
        if name == "norm2":
            return float(np.dot(args[0], args[0]))
        if name == "norm":
            return float(np.sqrt(np.dot(args[0], args[0])))
        if name == "sqrt":
            return np.sqrt(args[0])
        if name == "vec":
            return np.array([float(a) for a in args])
        if name == "abs":
            return np.abs(args[0])
        if name == "sign":
            return np.sign(args[0])
        if name == "min":
            return _fold(np.minimum, args)
        if name == "max":
            return _fold(np.maximum, args)
        if name == "ceil":
            return np.ceil(args[0])
        if name == "floor":
            return np.floor(args[0])
        raise DeclaredError(f"{name}() is not available here")

    @staticmethod
    def where(c, a, b):
        return np.where(c, a, b) if isinstance(c, np.ndarray) else (a if c else b)


def _fold(f, args):
    out = args[0]
    for a in args[1:]:
        out = f(out, a)
    return out


def _signed_score_test(tree, ar):
    """The mistake conditions of most variants, y * score OP c (perceptron.declared.
    signed_score_test), compiled exactly to integer comparisons of the score numerators: the
    result is the generic evaluation's, with fewer operations per block."""
    found = signed_score_test(tree) if ar is _Exact else None
    if found is None:
        return None
    label, _, rhs = found
    fr, test = compile_tree(rhs, ar), _CMP[tree[1][0]]

    def f(env):
        sc, lab, c = env["score"], env[label], fr(env)
        if not isinstance(sc, Q) or not isinstance(lab, Q) or isinstance(c, Q):
            return _Exact.cmp(tree[1][0], q_mul(lab, sc), c)
        c = Fraction(c)
        ys = lab.num  # -1/+1 (den 1)
        if c == 0:
            return test(q_sign(sc) * ys)
        if sc.num.dtype != object and max(sc.ma * c.denominator + abs(c.numerator) * sc.den, c.denominator,
                                          abs(c.numerator)) < INT64_SAFE:  # every factor an int64 too
            return test(np.sign(sc.num * ys * c.denominator - c.numerator * sc.den))
        num = big(sc.num) * big(ys) * c.denominator - c.numerator * sc.den
        return test(np.array([(v > 0) - (v < 0) for v in num], dtype=np.int64))
    return f


def compile_tree(tree, ar):
    """A closure env -> value for a compiled expression tree, in the arithmetic ``ar``."""
    fast = _signed_score_test(tree, ar) if tree[0] == "cmp" else None
    if fast is not None:
        return fast
    op = tree[0]
    if op == "num":
        v = ar.num(tree[1])
        return lambda env: v
    if op == "name":
        nm = tree[1]
        return lambda env: env[nm]
    if op == "neg":
        f = compile_tree(tree[1], ar)
        return lambda env: ar.neg(f(env))
    if op == "bin":
        o, fa, fb = tree[1], compile_tree(tree[2], ar), compile_tree(tree[3], ar)
        g = {"+": ar.add, "-": ar.sub, "*": ar.mul, "/": ar.div}[o]
        return lambda env: g(fa(env), fb(env))
    if op == "pow":
        f, e = compile_tree(tree[1], ar), tree[2]
        return lambda env: ar.pow(f(env), e)
    if op == "cmp":
        ops, fs = tree[1], [compile_tree(p, ar) for p in tree[2]]
        if len(ops) == 1:
            o, fa, fb = ops[0], fs[0], fs[1]
            return lambda env: ar.cmp(o, fa(env), fb(env))

        def chain(env):
            vals = [f(env) for f in fs]
            out = True
            for o, a, b in zip(ops, vals, vals[1:]):
                out = out & ar.cmp(o, a, b)
            return out
        return chain
    if op in ("and", "or"):
        fs = [compile_tree(v, ar) for v in tree[1]]
        comb = np.logical_and if op == "and" else np.logical_or
        return lambda env: _fold(comb, [f(env) for f in fs])
    if op == "not":
        f = compile_tree(tree[1], ar)
        return lambda env: np.logical_not(f(env))
    if op == "if":
        fc, fa, fb = (compile_tree(t, ar) for t in tree[1:])

        def choose(env):
            c = fc(env)
            if isinstance(c, np.ndarray) and c.ndim:
                return ar.where(c, fa(env), fb(env))
            return fa(env) if c else fb(env)
        return choose
    if op == "call":
        name, fs = tree[1], [compile_tree(a, ar) for a in tree[2]]
        return lambda env: ar.call(name, [f(env) for f in fs])
    raise DeclaredError(f"{op} is not allowed in a declaration")


# --------------------------------------------------------------------------- the model


def _score_pattern(tree):
    """(v, addend) for a score dot(v, x) or dot(v, x) + a (a free of x), else None: the float
    path then scores a block with one product and one bound, as the built-in variants do."""
    def dot_x(t):
        if t[0] == "call" and t[1] == "dot" and ("name", "x") in t[2]:
            v = t[2][0] if t[2][1] == ("name", "x") else t[2][1]
            return v if "x" not in names_in(v) else None
        return None

    v = dot_x(tree)
    if v is not None:
        return v, None
    if tree[0] == "bin" and tree[1] == "+":
        for a, b in ((tree[2], tree[3]), (tree[3], tree[2])):
            v = dot_x(a)
            if v is not None and not (names_in(b) & PER_POINT):
                return v, b
    return None


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
        ar = _Exact if self.exact else _Float
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
            self._score_split = compile_tree(self._split, _Float)
            self._dot_v = [compile_tree(v, _Float) for v in dots]
            self._score_exact = compile_tree(decl.score.tree, _Exact)
            sp, mp = _score_pattern(decl.score.tree), signed_score_test(decl.mistake.tree)
            self._fast_score = None if sp is None else (compile_tree(sp[0], _Float),
                                                        None if sp[1] is None else compile_tree(sp[1], _Float),
                                                        sp[1] is not None and sp[1] == decl.score.tree[3])
            self._fast_mistake = None if mp is None else (mp[0], mp[1], compile_tree(mp[2], _Float))
            self._mistake_exact = compile_tree(decl.mistake.tree, _Exact)
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
            w0q = Q(np.zeros(self.d, dtype=np.int64), 1, 0) if params.w0 is None else _q_vec([Fraction(v) for v in w0])
            init_env.update({"w0": w0q, "b0": b0})
        else:
            init_env.update({"w0": np.array([float(v) for v in w0]), "b0": float(b0)})
        self.state = {}
        for s, c in decl.state:
            try:
                v = compile_tree(c.tree, ar)(init_env)
            except (*FAULTS, DeclaredError) as e:
                raise _fault(f"state.{s}", c.source, e) from None
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

    @_faults("score")
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

    @_faults("mistake")
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
                raise _fault(f"update.{s}", c.source, e) from None
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
                raise _fault(f"outputs.{o}", c.source, e) from None
            if isinstance(v, Q):
                v = v.fractions()
            elif isinstance(v, np.ndarray):
                v = [float(a) for a in v]
            elif not self.exact:
                v = float(v)
            if not self.exact and not np.all(np.isfinite(v)):
                raise _fault(f"outputs.{o}", c.source, OverflowError("not finite"))
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
        return _q_vec([Fraction(float(a)) for a in v])
    if isinstance(v, Q):
        return v
    return Fraction(float(v)) if not isinstance(v, Fraction) else v
