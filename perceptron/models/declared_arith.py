"""The arithmetic a declared variant's expressions are evaluated in: exact (Fractions and ``Q``
arrays, perceptron.models.rationals) and float64 with interval bounds, each as the functions a
compiled expression tree calls (compile_tree), and the faults an expression may raise, named
with the declaration's field (perceptron.models.declared.DeclaredModel runs them)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._numbers import INT64_SAFE
from .rationals import DeclaredError, Q, big, exact_sqrt, q_add, q_div, q_dot, q_mul, q_neg, q_of, q_sign
from ..declared import PER_POINT, names_in, signed_score_test

__all__ = ["FAULTS", "ExactArith", "FloatArith", "declared_fault", "faults_of", "q_vec", "score_pattern", "compile_tree"]


#: The faults of a declaration's arithmetic at run time (a division by 0, 0 ** -1, a float
#: overflow, numpy's raised divide): each is the declaration's error, reported with its field.
FAULTS = (ZeroDivisionError, OverflowError, FloatingPointError)


def declared_fault(field: str, source: str, e: Exception) -> DeclaredError:
    """The declaration's run-time fault, naming the field and its expression."""
    if isinstance(e, DeclaredError):
        return DeclaredError(f"{field} = {source!r}: {e}")
    what = ("a division by zero" if isinstance(e, ZeroDivisionError) or "divide by zero" in str(e) else
            "a value beyond the float range (an overflow)" if isinstance(e, OverflowError) or "overflow" in str(e) else
            str(e))
    return DeclaredError(f"{field} = {source!r} fails at run time: {what}")


def faults_of(field: str):
    """Run a method of the model, turning an arithmetic fault into the named field's error."""
    def wrap(method):
        def run(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except (*FAULTS, DeclaredError) as e:
                raise declared_fault(field, getattr(self.decl, field).source, e) from None
        run.__name__, run.__doc__ = method.__name__, method.__doc__
        return run
    return wrap


# --------------------------------------------------------------------------- evaluators

class ExactArith:
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
            return q_vec([Fraction(a) for a in args])
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
            out = ExactArith.where(np.asarray(pick), b, out)
        return out
    raise DeclaredError(f"{name}() of a per-point value is not supported")


def q_vec(fr: list) -> Q:
    den = 1
    for f in fr:
        den = den * f.denominator // math.gcd(den, f.denominator)
    nums = [int(f * den) for f in fr]
    big = any(abs(v) >= INT64_SAFE for v in nums)
    return Q(np.array(nums, dtype=object if big else np.int64), den)


_CMP = {"<": lambda s: s < 0, "<=": lambda s: s <= 0, ">": lambda s: s > 0, ">=": lambda s: s >= 0,
        "==": lambda s: s == 0, "!=": lambda s: s != 0}


class FloatArith:
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
    found = signed_score_test(tree) if ar is ExactArith else None
    if found is None:
        return None
    label, _, rhs = found
    fr, test = compile_tree(rhs, ar), _CMP[tree[1][0]]

    def f(env):
        sc, lab, c = env["score"], env[label], fr(env)
        if not isinstance(sc, Q) or not isinstance(lab, Q) or isinstance(c, Q):
            return ExactArith.cmp(tree[1][0], q_mul(lab, sc), c)
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


def score_pattern(tree):
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
