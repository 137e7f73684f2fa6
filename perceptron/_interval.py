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

__all__ = ["TRUE", "FALSE", "UNDECIDED", "UNDEFINED", "ieval", "ieval_distinct", "point", "IntervalError", "Intervals",
           "WatchedIntervals"]

TRUE, FALSE, UNDECIDED = 1, 0, -1
#: A condition on an undefined value (a division by zero): only an exact arithmetic says so,
#: and the logic below reads it as the claim evaluator does (left to right, stopping at the
#: first operand that decides or is undefined).
UNDEFINED = -2
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


def _connect(a, b, decides):
    """a and b (``decides`` = FALSE) or a or b (``decides`` = TRUE), read left to right: the
    operand that decides wins, and an undefined one counts where it is reached first."""
    other = FALSE if decides == TRUE else TRUE
    out = np.where((a == decides) | (b == decides), decides, np.where((a == other) & (b == other), other, UNDECIDED))
    if a.min(initial=0) == UNDEFINED or b.min(initial=0) == UNDEFINED:
        out = np.where((a == other) & (b == UNDEFINED), UNDEFINED, out)
        out = np.where((a == UNDECIDED) & (b == UNDEFINED), UNDECIDED, out)
        out = np.where(a == UNDEFINED, UNDEFINED, out)
    return out


def _and(a, b):
    return _connect(a, b, FALSE)


def _or(a, b):
    return _connect(a, b, TRUE)


def _not(r):
    return np.where(r == TRUE, FALSE, np.where(r == FALSE, TRUE, np.where(r == UNDEFINED, UNDEFINED, UNDECIDED)))


class Intervals:
    """The interval arithmetic the walker (``ieval``) computes with.  Another arithmetic (the
    search's exact one, verify.searching.radicals) gives the same names over its own values."""

    const = staticmethod(const)
    neg = staticmethod(neg)
    add = staticmethod(add)
    sub = staticmethod(sub)
    mul = staticmethod(mul)
    div = staticmethod(div)
    sq = staticmethod(sq)
    sqrt = staticmethod(sqrt)
    dot = staticmethod(dot)
    cmp = staticmethod(_cmp)

    @staticmethod
    def choose(c, a, b):
        """``a if c else b`` row by row: a where the condition c is TRUE, b where FALSE, the hull
        of both where c is undecided (the value is one of them), NaN where c is undefined."""
        t, f, u = c == TRUE, c == FALSE, c == UNDEFINED
        if a[0].ndim == 2:
            t, f, u = t[:, None], f[:, None], u[:, None]
        lo = np.where(t, a[0], np.where(f, b[0], np.minimum(a[0], b[0])))
        hi = np.where(t, a[1], np.where(f, b[1], np.maximum(a[1], b[1])))
        return np.where(u, np.nan, lo), np.where(u, np.nan, hi)

    @staticmethod
    def over(a, k: int):
        """Integers divided by the positive integer k."""
        a = point(a)
        return a if k == 1 else div(a, point(np.full(a[0].shape, k)))

    @staticmethod
    def is_vec(v):
        return v[0].ndim == 2

    @staticmethod
    def scale(op, v, s):
        """op(vector, scalar), the scalar broadcast over the coordinates."""
        return op((v[0], v[1]), (s[0][:, None], s[1][:, None]))

    @staticmethod
    def columns(v):
        return [(v[0][:, j], v[1][:, j]) for j in range(v[0].shape[1])]

    @staticmethod
    def stack(parts):
        return np.stack([a[0] for a in parts], axis=1), np.stack([a[1] for a in parts], axis=1)

    @staticmethod
    def abs(a):
        lo = np.where(a[0] >= 0, a[0], np.where(a[1] <= 0, -a[1], 0.0))
        return lo, np.maximum(np.abs(a[0]), np.abs(a[1]))

    @staticmethod
    def extreme(name, vals):
        """Elementwise min or max of several values."""
        f = np.minimum.reduce if name == "min" else np.maximum.reduce
        return f([v[0] for v in vals]), f([v[1] for v in vals])

    @staticmethod
    def rounded(name, a):
        f = np.ceil if name == "ceil" else np.floor
        return f(a[0]), f(a[1])

    @staticmethod
    def sign(a):
        return np.sign(a[0]), np.sign(a[1])

    @staticmethod
    def undefined(v):
        """Rows where the value is known to be undefined: intervals never know (WatchedIntervals
        remembers where they may be)."""
        return np.zeros(len(v[0]), dtype=bool)

    @staticmethod
    def key(v, m: int):
        """The value's rows as int64 columns (its bounds' bits: equal bits, equal intervals), or
        None when it is not one row per candidate."""
        if not (isinstance(v, tuple) and len(v) == 2 and all(isinstance(a, np.ndarray) and a.dtype == np.float64
                                                              and a.ndim in (1, 2) and len(a) == m for a in v)):
            return None
        return [np.ascontiguousarray(a).view(np.int64).reshape(m, -1) for a in (v[:1] if v[0] is v[1] else v)]

    @staticmethod
    def take(v, rows):
        return v[0][rows], v[1][rows]

    @classmethod
    def sized(cls, m: int):
        """The arithmetic for ``m`` rows (one without per-row state serves any number)."""
        return cls


class WatchedIntervals(Intervals):
    """The interval arithmetic, remembering the rows (``doubt``) where a value may be undefined: a
    divisor whose interval holds 0, the root of a number that may be negative.  Intervals read an
    undecided comparison as one on a defined value (``a and b`` is false where b is, whatever a),
    where the claim evaluator stops at an undefined a: a caller sends the doubtful rows to an
    exact evaluation."""

    def __init__(self, m: int):
        self.doubt = np.zeros(m, dtype=bool)

    def sized(self, m: int):
        return WatchedIntervals(m)

    def absorb(self, other, rows):
        """The doubt of ``other``, computed on some rows, spread back to ours (``rows``: the row of
        other's that each of ours is)."""
        self.doubt |= other.doubt[rows]

    def _mark(self, rows):
        rows = np.asarray(rows)
        self.doubt |= rows.reshape(len(rows), -1).any(axis=1) if rows.ndim > 1 else rows

    def div(self, a, b):
        self._mark((b[0] <= 0) & (b[1] >= 0) | np.isnan(b[0]) | np.isnan(b[1]))
        return div(a, b)

    def sqrt(self, a):
        self._mark((a[0] < 0) | np.isnan(a[0]))
        return sqrt(a)


def _is_condition(tree) -> bool:
    """Whether a subtree evaluates to TRUE / FALSE / UNDECIDED rather than to a value."""
    return tree[0] in ("cmp", "and", "or", "not") or tree[0] == "agg" and tree[1] in ("all_i", "any_i")


def ieval(tree, env, m: int, arith=Intervals):
    """Evaluate a compiled tree over M candidates, to TRUE, FALSE or UNDECIDED per candidate
    (a condition) or a value of ``arith`` (intervals unless told).  ``env.get(name)`` returns
    values, ``env.prev(j)`` an env, ``env.points()`` per-point envs (for the _i aggregates).
    Undefined operations (0/0, inf - inf) give NaN bounds, which compare as undecided."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _ieval(tree, env, m, arith)


#: ieval_distinct computes the inner operations on the distinct rows only while there are at
#: most this share of them (past it, finding them costs more than it saves).
DISTINCT_SHARE = 0.5
#: Odd 64-bit multipliers of the row hash that groups rows (a collision is caught: every row
#: is compared with the one it is grouped with, and rows are then all evaluated).
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93],
                dtype=np.uint64)


def _leaves(tree, out: list) -> list:
    """The subtrees that read the candidates (names, earlier states, aggregates over the
    points), outermost, in order: the rest of the tree is arithmetic on their values."""
    op = tree[0]
    if op in ("name", "prev", "agg"):
        out.append(tree)
    elif op in ("neg", "not", "pow"):
        _leaves(tree[1], out)
    elif op == "bin":
        _leaves(tree[2], out)
        _leaves(tree[3], out)
    elif op in ("cmp", "call"):
        for t in tree[2]:
            _leaves(t, out)
    elif op == "if":
        for t in tree[1:4]:
            _leaves(t, out)
    elif op in ("and", "or"):
        for t in tree[1]:
            _leaves(t, out)
    elif op != "num":  # an operation this walk does not know: its parts are not found
        raise IntervalError(f"{op} is not split into leaves")
    return out


def _distinct_rows(cols, m: int):
    """(first, inverse): one row of each distinct row of the int64 columns ``cols`` and, for
    every row, the index of its distinct row in ``first``; None when the hash grouped two
    different rows (then the caller evaluates every row)."""
    h = np.zeros(m, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j, c in enumerate(cols):  # (a double's low bits are often zero: fold its high half down first)
            x = c.view(np.uint64)
            h = (h ^ x ^ (x >> np.uint64(32))) * _MIX[j % len(_MIX)]
            h ^= h >> np.uint64(29)
    order = np.argsort(h)
    hs = h[order]
    new = np.empty(m, dtype=bool)
    new[0] = True
    np.not_equal(hs[1:], hs[:-1], out=new[1:])
    first = order[new]
    inverse = np.empty(m, dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    rep = first[inverse]
    if not all(np.array_equal(c[rep], c) for c in cols):
        return None
    return first, inverse


def ieval_distinct(tree, env, m: int, arith):
    """``ieval`` of a condition, with its arithmetic computed once per distinct row of the values
    it reads: the leaves (names, earlier states, aggregates) are evaluated on every row, then the
    rows whose leaves are the same bits (or the same exact numbers) share one evaluation of the
    rest, which is a function of them alone.  The answer is ``ieval``'s, row for row."""
    try:
        leaves = _leaves(tree, []) if _is_condition(tree) else None
    except IntervalError:
        leaves = None
    if leaves is None:
        return ieval(tree, env, m, arith)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        known = {id(t): _ieval(t, env, m, arith) for t in leaves}
        cols = []
        for v in known.values():
            got = [v.astype(np.int64).reshape(m, -1)] if isinstance(v, np.ndarray) and v.shape == (m,) \
                else arith.key(v, m)
            if got is None:
                return _ieval(tree, env, m, arith, known)
            cols += [c[:, j] for c in got for j in range(c.shape[1])]
        rows = _distinct_rows(cols, m) if cols and m > 1 else None
        if rows is None or len(rows[0]) > DISTINCT_SHARE * m:
            return _ieval(tree, env, m, arith, known)
        first, inverse = rows
        inner = arith.sized(len(first))
        res = _ieval(tree, None, len(first), inner,
                     {k: (v[first] if isinstance(v, np.ndarray) else arith.take(v, first)) for k, v in known.items()})
        if inner is not arith:
            arith.absorb(inner, inverse)
        return res[inverse]


def _icmp(tree, vals, m: int, A):
    """A chained comparison of the values ``vals`` of its parts, row by row: undefined where any
    part is (the claim evaluator computes every part before it compares)."""
    undef = np.zeros(m, dtype=bool)
    for v, t in zip(vals, tree[2]):
        undef |= (v == UNDEFINED) if _is_condition(t) else A.undefined(v)
    return np.where(undef, UNDEFINED, _chain(tree, vals, m, A))


def _chain(tree, vals, m: int, A):
    res = np.full(m, TRUE)
    for o, a, b, ta in zip(tree[1], vals, vals[1:], tree[2]):
        if _is_condition(ta):  # conditions compared (== / !=): decided where both are
            same = np.where(a == b, TRUE, FALSE)
            both = ((a == TRUE) | (a == FALSE)) & ((b == TRUE) | (b == FALSE))
            eq = np.where(both, same, np.where((a == UNDEFINED) | (b == UNDEFINED), UNDEFINED, UNDECIDED))
            res = _and(res, _not(eq) if o == "!=" else eq)
            continue
        if A.is_vec(a):  # == / != componentwise
            eq = np.full(m, TRUE)
            for ca, cb in zip(A.columns(a), A.columns(b)):
                eq = _and(eq, A.cmp("==", ca, cb))
            res = _and(res, _not(eq) if o == "!=" else eq)
            continue
        res = _and(res, A.cmp(o, a, b))
    return res


def _icall(name: str, args, A):
    """A function of the claim language on interval values, or None for one not screened."""
    if name == "dot":
        return A.dot(args[0], args[1])
    if name == "norm2":
        return A.dot(args[0], args[0])
    if name == "norm":
        return A.sqrt(A.dot(args[0], args[0]))
    if name == "sqrt":
        return A.sqrt(args[0])
    if name == "abs":
        return A.abs(args[0])
    if name in ("min", "max"):
        return A.extreme(name, args)
    if name in ("ceil", "floor"):
        return A.rounded(name, args[0])
    if name == "sign":
        return A.sign(args[0])
    if name == "vec":
        return A.stack(args)
    return None


def _ieval(tree, env, m: int, A, known=None):
    """(``known``: values already computed, by the id of their subtree: see ieval_distinct.)"""
    if known is not None and id(tree) in known:
        return known[id(tree)]
    op = tree[0]
    if op == "num":
        return A.const(tree[1], m)
    if op == "name":
        return env.get(tree[1])
    if op == "neg":
        return A.neg(_ieval(tree[1], env, m, A, known))
    if op == "not":
        return _not(_ieval(tree[1], env, m, A, known))
    if op == "bin":
        a, b = _ieval(tree[2], env, m, A, known), _ieval(tree[3], env, m, A, known)
        o = tree[1]
        va, vb = A.is_vec(a), A.is_vec(b)
        if o == "+":
            return A.add(a, b)
        if o == "-":
            return A.sub(a, b)
        if o == "*":
            if va and not vb:
                return A.scale(A.mul, a, b)
            if vb and not va:
                return A.scale(A.mul, b, a)
            return A.mul(a, b)
        if o == "/":
            return A.scale(A.div, a, b) if va else A.div(a, b)
    if op == "pow":
        a, e = _ieval(tree[1], env, m, A, known), tree[2]
        if e < 0:
            a, e = A.div(A.const(Fraction(1), m), a), -e
        if e == 2:
            return A.sq(a)
        out = A.const(Fraction(1), m)
        for _ in range(e):
            out = A.mul(out, a)
        return out
    if op == "cmp":
        return _icmp(tree, [_ieval(p, env, m, A, known) for p in tree[2]], m, A)
    if op == "if":  # a if c else b: the branch c picks, row by row
        c, a, b = (_ieval(t, env, m, A, known) for t in tree[1:4])
        if _is_condition(tree[2]):
            agree = (a == b) & ((a == TRUE) | (a == FALSE))
            return np.where(c == TRUE, a, np.where(c == FALSE, b, np.where(c == UNDEFINED, UNDEFINED,
                                                                            np.where(agree, a, UNDECIDED))))
        return A.choose(c, a, b)
    if op in ("and", "or"):
        res = np.full(m, TRUE if op == "and" else FALSE)
        for t in tree[1]:
            res = (_and if op == "and" else _or)(res, _ieval(t, env, m, A, known))
        return res
    if op == "prev":
        return _ieval(tree[1], env.prev(tree[2]), m, A)  # (another state: nothing known of it)
    if op == "agg":
        name, sub_ = tree[1], tree[2]
        vals = [_ieval(sub_, pe, m, A) for pe in env.points()]
        if name in ("all_i", "any_i"):
            res = np.full(m, TRUE if name == "all_i" else FALSE)
            for v in vals:
                res = _and(res, v) if name == "all_i" else _or(res, v)
            return res
        if name == "sum_i":  # numbers or vectors: from the first point's value
            acc = vals[0]
            for v in vals[1:]:
                acc = A.add(acc, v)
            return acc
        return A.extreme(name[:3], vals)
    if op == "call":
        got = _icall(tree[1], [_ieval(a, env, m, A, known) for a in tree[2]], A)
        if got is not None:
            return got
    raise IntervalError(f"{op} {tree[1] if len(tree) > 1 else ''} is not screened by intervals")
