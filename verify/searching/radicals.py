"""Exact arithmetic over a batch of candidates, for what the interval screen leaves undecided
(an equality that holds, a bound met with equality).

Every value of the search's quantities is, row by row, ``c * sqrt(r)`` with ``c = n/d``
rational and ``r`` a positive integer (1 for a rational value): the domain's points, weights
and separators are integers over known denominators, and norms, R and the margin are square
roots of rationals.  This form is closed under ``* / sqrt`` of rationals; a sum is exact when
both terms have the same radicand (or radicands whose product is a square), and a comparison
is always exact (signs, then squares).  A row that leaves the form (a sum of different square
roots, a square root of an irrational, a division by zero, ceil of an irrational) is marked
undecided and goes, like the interval screen's undecided rows, to the learner's exact replay.

Integers are int64 while a magnitude bound shows the operation cannot overflow, Python
integers (object arrays) past it.  ``Radicals`` gives the names the walker of
perceptron._interval computes with, so one walker serves both arithmetics.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from perceptron._interval import FALSE, TRUE, UNDECIDED, UNDEFINED

__all__ = ["Q", "Radicals", "integers", "scaled"]

#: int64 operations whose operands' magnitudes multiply (or add) past this go to Python
#: integers: the bound keeps every int64 product below 2^63 with room for the sum that follows.
_SAFE = float(2**61)
#: Small primes whose squares are taken out of a radicand (so that sqrt(20) and 2 sqrt(5) meet).
_PRIMES = (2, 3, 5, 7, 11, 13)
#: Radicands in a batch past which their square parts are found once for each distinct value.
_DISTINCT_FROM = 64


@dataclass(frozen=True)
class Q:
    """Row-wise c sqrt(r), c = n/d in lowest terms, d > 0, r >= 1; ``bad`` rows are undecided.
    ``undef`` rows are undefined (a division by zero, the root of a negative number): the
    corpus's evaluator says so of such a row, and it is never a counterexample.  Scalars have
    shape (M,), vectors (M, D)."""
    n: np.ndarray
    d: np.ndarray
    r: np.ndarray
    bad: np.ndarray
    undef: np.ndarray


def _wide(*arrays):
    """The arrays as Python integers when any of them already is."""
    if any(a.dtype == object for a in arrays):
        return tuple(a.astype(object) for a in arrays)
    return arrays


def _big(a) -> float:
    return float(np.abs(a).max(initial=0)) if a.dtype != object else float("inf")


def _times(a, b):
    """a * b exactly (int64 while the magnitudes allow it)."""
    a, b = _wide(a, b)
    if a.dtype != object and _big(a) * _big(b) >= _SAFE:
        a, b = a.astype(object), b.astype(object)
    return a * b


def _plus(a, b):
    a, b = _wide(a, b)
    if a.dtype != object and _big(a) + _big(b) >= _SAFE:
        a, b = a.astype(object), b.astype(object)
    return a + b


def _lowest(n, d, r, bad, undef) -> Q:
    n, d = _wide(n, d)
    if d.dtype == object or not (d == 1).all():  # (over 1 everywhere, as integer arithmetic keeps it: in lowest terms)
        g = np.gcd(n, d)
        g = np.where(g == 0, 1, g)
        n, d = n // g, d // g
    zero = n == 0
    d = np.where(zero, 1, d)
    r = np.where(zero, 1, r)
    return Q(n, d, r, bad, undef)


def integers(a) -> Q:
    """Exact integers (any integer array)."""
    a = np.asarray(a)
    a = a.astype(object) if a.dtype == object else a.astype(np.int64)
    one = np.ones(a.shape, dtype=np.int64)
    no = np.zeros(a.shape, dtype=bool)
    return Q(a, one, one, no, no)


def scaled(a, k: int) -> Q:
    """Integers divided by the positive integer k."""
    q = integers(a)
    return q if k == 1 else _lowest(q.n, np.full(q.n.shape, k, dtype=np.int64), q.r, q.bad, q.undef)


def _reduce_radicand(n, r):
    """Move square factors of r into n: a perfect square entirely, the small primes' squares (found
    once for each distinct radicand: a batch holds few, as R^2 and |v|^2 of a small grid)."""
    if not (r != 1).any():
        return n, r
    if r.dtype != object and r.size > _DISTINCT_FROM:
        u, inv = np.unique(r.ravel(), return_inverse=True)
        f, ru = _square_parts(np.ones(u.shape, dtype=np.int64), u)
        return _times(n, f[inv].reshape(r.shape)), ru[inv].reshape(r.shape)
    return _square_parts(n, r)


def _square_parts(n, r):
    """_reduce_radicand, value by value."""
    s, ok = _isqrt(r)
    n = np.where(ok, _times(n, s), n)
    r = np.where(ok, 1, r)
    for p in _PRIMES:
        pp = p * p
        while True:
            hit = (r % pp == 0) & (r > 1)
            if not hit.any():
                break
            r = np.where(hit, r // pp, r)
            n = np.where(hit, _times(n, np.full(n.shape, p, dtype=np.int64)), n)
    return n, r


def _isqrt(r):
    """(s, ok): s = isqrt(r) where r is a perfect square (ok), exactly."""
    if r.dtype == object:
        import math

        s = np.frompyfunc(lambda v: math.isqrt(int(v)) if v >= 0 else 0, 1, 1)(r).astype(object)
        return s, s * s == r
    s = np.floor(np.sqrt(np.maximum(r, 0).astype(np.float64))).astype(np.int64)
    for _ in range(2):  # the float root is within one of the integer root below 2^61
        s = np.where(s * s > r, s - 1, s)
        s = np.where((s + 1) * (s + 1) <= r, s + 1, s)
    return s, (s * s == r) & (r >= 0)


class Radicals:
    """The exact arithmetic, under the names the walker uses (perceptron._interval.Intervals)."""

    over = staticmethod(scaled)
    @staticmethod
    def const(f: Fraction, m: int) -> Q:
        f = Fraction(f)
        n = np.full(m, f.numerator, dtype=object if abs(f.numerator) >= 2**62 else np.int64)
        d = np.full(m, f.denominator, dtype=object if f.denominator >= 2**62 else np.int64)
        no = np.zeros(m, dtype=bool)
        return Q(n, d, np.ones(m, dtype=np.int64), no, no)

    @staticmethod
    def neg(a: Q) -> Q:
        return Q(-a.n, a.d, a.r, a.bad, a.undef)

    @staticmethod
    def add(a: Q, b: Q) -> Q:
        same = (a.r == b.r) | (a.n == 0) | (b.n == 0)
        r = np.where(a.n == 0, b.r, a.r)
        # radicands whose product is a square: sqrt(rb) = s / ra * sqrt(ra)
        if same.all():
            s, ok = a.r, same
        else:
            s, ok = _isqrt(_times(a.r, b.r))
        conv = ~same & ok
        bn = np.where(conv, _times(b.n, s), b.n)
        bd = np.where(conv, _times(b.d, a.r), b.d)
        n = _plus(_times(a.n, bd), _times(bn, a.d))
        d = _times(a.d, bd)
        bad = a.bad | b.bad | ~(same | ok)
        return _lowest(n, d, r, bad, a.undef | b.undef)

    @classmethod
    def sub(cls, a: Q, b: Q) -> Q:
        return cls.add(a, cls.neg(b))

    @staticmethod
    def mul(a: Q, b: Q) -> Q:
        n, r = _reduce_radicand(_times(a.n, b.n), _times(a.r, b.r))
        return _lowest(n, _times(a.d, b.d), r, a.bad | b.bad, a.undef | b.undef)

    @staticmethod
    def div(a: Q, b: Q) -> Q:
        """(ca/cb) sqrt(ra/rb) = ca / (cb rb) * sqrt(ra rb); a division by zero is undefined."""
        zero = b.n == 0
        bn = np.where(zero, 1, b.n)
        sgn = np.sign(bn)
        n, r = _reduce_radicand(_times(_times(a.n, b.d), sgn), _times(a.r, b.r))
        d = _times(_times(np.abs(bn), a.d), b.r)
        return _lowest(n, d, r, a.bad | b.bad, a.undef | b.undef | zero)

    @classmethod
    def sq(cls, a: Q) -> Q:
        return cls.mul(a, a)

    @staticmethod
    def sqrt(a: Q) -> Q:
        """sqrt(n/d) = sqrt(n d) / d, for rational non-negative values."""
        bad = a.bad | (a.r != 1)
        undef = a.undef | (a.n < 0)
        skip = bad | undef
        nn = np.where(skip, 0, a.n)
        n, r = _reduce_radicand(np.ones(nn.shape, dtype=np.int64), _times(nn, a.d))
        return _lowest(n, np.where(skip, 1, a.d), np.where(r == 0, 1, r), bad, undef)

    @classmethod
    def dot(cls, a: Q, b: Q) -> Q:
        acc = cls.const(Fraction(0), a.n.shape[0])
        for ca, cb in zip(cls.columns(a), cls.columns(b)):
            acc = cls.add(acc, cls.mul(ca, cb))
        return acc

    @classmethod
    def sign_of_difference(cls, a: Q, b: Q):
        """sign(a - b) row by row, exactly: by signs, then by squares (c^2 r)."""
        sa, sb = np.sign(a.n), np.sign(b.n)
        ka = _times(_times(_times(a.n, a.n), a.r), _times(b.d, b.d))
        kb = _times(_times(_times(b.n, b.n), b.r), _times(a.d, a.d))
        mag = np.sign(_plus(ka, -kb)).astype(np.int64)
        return np.where(sa != sb, np.sign(sa - sb), sa * mag).astype(np.int64)

    @classmethod
    def cmp(cls, o: str, a: Q, b: Q):
        s = cls.sign_of_difference(a, b)
        t = {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "==": s == 0, "!=": s != 0}[o]
        return np.where(a.undef | b.undef, UNDEFINED, np.where(a.bad | b.bad, UNDECIDED, np.where(t, TRUE, FALSE)))

    @staticmethod
    def choose(c, a: Q, b: Q) -> Q:
        """``a if c else b`` row by row: a where the condition c is TRUE, b where FALSE;
        undecided where c is, undefined where c is."""
        t, und, undef = c == TRUE, c == UNDECIDED, c == UNDEFINED
        if a.n.ndim == 2:
            t, und, undef = t[:, None], und[:, None], undef[:, None]
        (an, bn), (ad, bd) = _wide(a.n, b.n), _wide(a.d, b.d)
        return Q(np.where(t, an, bn), np.where(t, ad, bd), np.where(t, a.r, b.r), np.where(t, a.bad, b.bad) | und,
                 np.where(t, a.undef, b.undef) | undef)

    @staticmethod
    def is_vec(v: Q) -> bool:
        return v.n.ndim == 2

    @staticmethod
    def scale(op, v: Q, s: Q) -> Q:
        return op(v, Q(s.n[:, None], s.d[:, None], s.r[:, None], s.bad[:, None], s.undef[:, None]))

    @staticmethod
    def columns(v: Q) -> list:
        return [Q(v.n[:, j], v.d[:, j], v.r[:, j], v.bad[:, j], v.undef[:, j]) for j in range(v.n.shape[1])]

    @staticmethod
    def stack(parts) -> Q:
        def st(field):
            arrs = _wide(*[getattr(p, field) for p in parts])
            return np.stack(arrs, axis=1)
        return Q(st("n"), st("d"), st("r"), st("bad"), st("undef"))

    @staticmethod
    def abs(a: Q) -> Q:
        return Q(np.abs(a.n), a.d, a.r, a.bad, a.undef)

    @classmethod
    def extreme(cls, name: str, vals) -> Q:
        out = vals[0]
        for v in vals[1:]:
            s = cls.sign_of_difference(v, out)
            take = (s < 0) if name == "min" else (s > 0)
            n, vn = _wide(out.n, v.n)
            d, vd = _wide(out.d, v.d)
            out = Q(np.where(take, vn, n), np.where(take, vd, d), np.where(take, v.r, out.r), out.bad | v.bad,
                    out.undef | v.undef)
        return out

    @staticmethod
    def rounded(name: str, a: Q) -> Q:
        """ceil or floor of a rational value (an irrational one is undecided)."""
        q = a.n // a.d if name == "floor" else -((-a.n) // a.d)
        one = np.ones(q.shape, dtype=np.int64)
        return Q(q, one, one, a.bad | (a.r != 1), a.undef)

    @staticmethod
    def key(v, m: int):
        """The value's rows as int64 columns (its exact form: equal columns, equal numbers), or None
        when it is not one row per candidate or holds Python integers."""
        if not isinstance(v, Q) or v.n.dtype == object or v.d.dtype == object or v.r.dtype == object or len(v.n) != m:
            return None
        return [a.astype(np.int64, copy=False).reshape(m, -1) for a in (v.n, v.d, v.r, v.bad, v.undef)]

    @staticmethod
    def take(v: Q, rows) -> Q:
        return Q(v.n[rows], v.d[rows], v.r[rows], v.bad[rows], v.undef[rows])

    @classmethod
    def sized(cls, m: int):
        return cls

    @staticmethod
    def undefined(v: Q):
        """Rows where the value is undefined (a division by zero, the root of a negative number)."""
        return v.undef.reshape(len(v.undef), -1).any(axis=1) if v.undef.ndim > 1 else v.undef

    @staticmethod
    def sign(a: Q) -> Q:
        s = np.sign(a.n).astype(np.int64)
        one = np.ones(s.shape, dtype=np.int64)
        return Q(s, one, one, a.bad, a.undef)
