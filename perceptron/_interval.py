"""Vectorised interval evaluation of the expression language, for screening many values at once:
the search's candidates (verify.searching.enumeration), the declared variants' float decisions
(perceptron.models.declared) and their replay (verify.replay.declared).

Every value is a pair (lo, hi) of float64 arrays with lo <= true value <= hi: each basic
operation is computed in round-to-nearest and then widened outward by one ulp, which is a
rigorous enclosure for +, -, *, /, sqrt.  A comparison is then certainly true, certainly false
or undecided (TRUE, FALSE, UNDECIDED); callers decide only with the first two and send the
undecided ones to an exact evaluator.  Scalars have shape (M,), vectors (M, D).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["TRUE", "FALSE", "UNDECIDED", "ieval", "point", "IntervalError"]

TRUE, FALSE, UNDECIDED = 1, 0, -1
_INF = np.inf


class IntervalError(ArithmeticError):
    """Outside what the interval screen handles (the caller falls back to exact evaluation)."""


def _down(a):
    return np.nextafter(a, -_INF)


def _up(a):
    return np.nextafter(a, _INF)


def point(a) -> tuple:
    """An exact float array as a (degenerate) interval."""
    a = np.asarray(a, dtype=np.float64)
    return a, a


def const(f: Fraction, m: int) -> tuple:
    v = float(f)
    lo, hi = (v, v) if Fraction(v) == f else (math.nextafter(v, -math.inf), math.nextafter(v, math.inf))
    return np.full(m, lo), np.full(m, hi)


#: Below this magnitude, integer-valued doubles add, subtract and multiply exactly.
_EXACT = 2.0**52


def _exact(a, b, r):
    """Where both operands are exact integers and the result is below 2^52: no widening."""
    return (a[0] == a[1]) & (b[0] == b[1]) & (np.floor(a[0]) == a[0]) & (np.floor(b[0]) == b[0]) & (np.abs(r) < _EXACT)


def _widen(a, b, lo, hi):
    ex = _exact(a, b, lo) & (lo == hi)
    return np.where(ex, lo, _down(lo)), np.where(ex, hi, _up(hi))


def add(a, b):
    return _widen(a, b, a[0] + b[0], a[1] + b[1])


def sub(a, b):
    return _widen(a, b, a[0] - b[1], a[1] - b[0])


def neg(a):
    return -a[1], -a[0]


def mul(a, b):
    p = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    lo = np.minimum(np.minimum(p[0], p[1]), np.minimum(p[2], p[3]))
    hi = np.maximum(np.maximum(p[0], p[1]), np.maximum(p[2], p[3]))
    return _widen(a, b, lo, hi)


def div(a, b):
    bad = (b[0] <= 0) & (b[1] >= 0)
    safe_lo = np.where(bad, 1.0, b[0])
    safe_hi = np.where(bad, 1.0, b[1])
    inv = (_down(1.0 / safe_hi), _up(1.0 / safe_lo))
    lo, hi = mul(a, inv)
    return np.where(bad, -_INF, lo), np.where(bad, _INF, hi)


def sqrt(a):
    lo = np.sqrt(np.maximum(a[0], 0.0))
    hi = np.sqrt(np.maximum(a[1], 0.0))
    return np.maximum(_down(lo), 0.0), _up(np.where(a[1] < 0, _INF, hi))


def sq(a):
    lo = np.where((a[0] <= 0) & (a[1] >= 0), 0.0, np.minimum(a[0] * a[0], a[1] * a[1]))
    hi = np.maximum(a[0] * a[0], a[1] * a[1])
    return _widen(a, a, lo, hi)


def dot(a, b):
    """Row-wise dot of two (M, D) interval vectors."""
    lo = np.zeros(a[0].shape[0])
    hi = np.zeros(a[0].shape[0])
    acc = (lo, hi)
    for j in range(a[0].shape[1]):
        acc = add(acc, mul((a[0][:, j], a[1][:, j]), (b[0][:, j], b[1][:, j])))
    return acc


def _vec_scalar(op, v, s):
    lo, hi = op((v[0], v[1]), (s[0][:, None], s[1][:, None]))
    return lo, hi


def _cmp(o, a, b):
    if o in ("<", "<="):
        t = (a[1] < b[0]) if o == "<" else (a[1] <= b[0])
        f = (a[0] >= b[1]) if o == "<" else (a[0] > b[1])
    elif o in (">", ">="):
        t = (a[0] > b[1]) if o == ">" else (a[0] >= b[1])
        f = (a[1] <= b[0]) if o == ">" else (a[1] < b[0])
    elif o == "==":
        t = (a[0] == a[1]) & (b[0] == b[1]) & (a[0] == b[0])
        f = (a[1] < b[0]) | (a[0] > b[1])
    else:
        t = (a[1] < b[0]) | (a[0] > b[1])
        f = (a[0] == a[1]) & (b[0] == b[1]) & (a[0] == b[0])
    return np.where(t, TRUE, np.where(f, FALSE, UNDECIDED))


def _and(a, b):
    return np.where((a == FALSE) | (b == FALSE), FALSE, np.where((a == TRUE) & (b == TRUE), TRUE, UNDECIDED))


def _or(a, b):
    return np.where((a == TRUE) | (b == TRUE), TRUE, np.where((a == FALSE) & (b == FALSE), FALSE, UNDECIDED))


def _is_vec(v):
    return v[0].ndim == 2


def ieval(tree, env, m: int):
    """Evaluate a compiled tree over M candidates.  ``env.get(name)`` returns intervals,
    ``env.prev(j)`` an env, ``env.points()`` per-point envs (for the _i aggregates).
    Undefined operations (0/0, inf - inf) give NaN bounds, which compare as undecided."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _ieval(tree, env, m)


def _ieval(tree, env, m: int):
    ieval = _ieval
    op = tree[0]
    if op == "num":
        return const(tree[1], m)
    if op == "name":
        return env.get(tree[1])
    if op == "neg":
        a = ieval(tree[1], env, m)
        return neg(a)
    if op == "not":
        r = ieval(tree[1], env, m)
        return np.where(r == TRUE, FALSE, np.where(r == FALSE, TRUE, UNDECIDED))
    if op == "bin":
        a, b = ieval(tree[2], env, m), ieval(tree[3], env, m)
        o = tree[1]
        va, vb = _is_vec(a), _is_vec(b)
        if o == "+":
            return add(a, b)
        if o == "-":
            return sub(a, b)
        if o == "*":
            if va and not vb:
                return _vec_scalar(mul, a, b)
            if vb and not va:
                return _vec_scalar(mul, b, a)
            return mul(a, b)
        if o == "/":
            return _vec_scalar(div, a, b) if va else div(a, b)
    if op == "pow":
        a, e = ieval(tree[1], env, m), tree[2]
        if e < 0:
            a, e = div(const(Fraction(1), m), a), -e
        if e == 2:
            return sq(a)
        out = const(Fraction(1), m)
        for _ in range(e):
            out = mul(out, a)
        return out
    if op == "cmp":
        vals = [ieval(p, env, m) for p in tree[2]]
        res = np.full(m, TRUE)
        for o, a, b in zip(tree[1], vals, vals[1:]):
            if _is_vec(a):  # == / != componentwise
                eq = np.full(m, TRUE)
                for j in range(a[0].shape[1]):
                    eq = _and(eq, _cmp("==", (a[0][:, j], a[1][:, j]), (b[0][:, j], b[1][:, j])))
                if o == "!=":
                    eq = np.where(eq == TRUE, FALSE, np.where(eq == FALSE, TRUE, UNDECIDED))
                res = _and(res, eq)
                continue
            res = _and(res, _cmp(o, a, b))
        return res
    if op == "and":
        res = np.full(m, TRUE)
        for t in tree[1]:
            res = _and(res, ieval(t, env, m))
        return res
    if op == "or":
        res = np.full(m, FALSE)
        for t in tree[1]:
            res = _or(res, ieval(t, env, m))
        return res
    if op == "prev":
        return ieval(tree[1], env.prev(tree[2]), m)
    if op == "agg":
        name, sub_ = tree[1], tree[2]
        vals = [ieval(sub_, pe, m) for pe in env.points()]
        if name in ("all_i", "any_i"):
            res = np.full(m, TRUE if name == "all_i" else FALSE)
            for v in vals:
                res = _and(res, v) if name == "all_i" else _or(res, v)
            return res
        if name == "sum_i":
            acc = const(Fraction(0), m)
            for v in vals:
                acc = add(acc, v)
            return acc
        lo = np.minimum.reduce([v[0] for v in vals]) if name == "min_i" else np.maximum.reduce([v[0] for v in vals])
        hi = np.minimum.reduce([v[1] for v in vals]) if name == "min_i" else np.maximum.reduce([v[1] for v in vals])
        return lo, hi
    if op == "call":
        name = tree[1]
        args = [ieval(a, env, m) for a in tree[2]]
        if name == "dot":
            return dot(args[0], args[1])
        if name == "norm2":
            return dot(args[0], args[0])
        if name == "norm":
            return sqrt(dot(args[0], args[0]))
        if name == "sqrt":
            return sqrt(args[0])
        if name == "abs":
            a = args[0]
            lo = np.where(a[0] >= 0, a[0], np.where(a[1] <= 0, -a[1], 0.0))
            return lo, np.maximum(np.abs(a[0]), np.abs(a[1]))
        if name in ("min", "max"):
            f = np.minimum if name == "min" else np.maximum
            lo, hi = args[0]
            for a in args[1:]:
                lo, hi = f(lo, a[0]), f(hi, a[1])
            return lo, hi
        if name in ("ceil", "floor"):
            f = np.ceil if name == "ceil" else np.floor
            return f(args[0][0]), f(args[0][1])
        if name == "sign":
            a = args[0]
            return np.sign(a[0]), np.sign(a[1])
        if name == "vec":
            return (np.stack([a[0] for a in args], axis=1), np.stack([a[1] for a in args], axis=1))
    raise IntervalError(f"{op} {tree[1] if len(tree) > 1 else ''} is not screened by intervals")
