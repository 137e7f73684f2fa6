"""Exact values of a declared run: rationals and ``Q`` arrays (integer numerators, int64 while a
bound proves they cannot wrap, else Python integers, over one positive denominator), with the
arithmetic the declared model's evaluators use, under MAX_STATE_BITS."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._numbers import INT64_SAFE, maxabs

__all__ = ["Q", "DeclaredError", "MAX_STATE_BITS", "big", "q_of", "scaled_ints", "check_bits", "q_add", "q_mul", "q_div",
           "q_neg", "q_reduce", "q_sign", "q_dot", "exact_sqrt"]


#: Bits of a numerator or denominator a declared run's exact state may reach: eta_k = 1/k makes
#: denominators grow like lcm(1..k), PA-I's steps like a product of |x|^2; past this the run stops
#: with a clear error.  1 600 bits (482 digits) keeps every "p/q" of its trace within the
#: 1 000 characters a trace's number may have (perceptron.limits.MAX_NUMBER_CHARS), so that what
#: the learner writes, check can read.
MAX_STATE_BITS = 1600


class DeclaredError(ArithmeticError):
    """A declared run that cannot go on exactly (a limit, an irrational value, division by 0)."""


def big(a):
    return a if a.dtype == object else a.astype(object)


class Q:
    """An array of rationals num / den (den > 0, an int)."""

    __slots__ = ("num", "den", "_ma")

    def __init__(self, num, den: int, ma: int | None = None):
        self.num, self.den, self._ma = num, den, ma

    @property
    def ma(self) -> int:
        if self._ma is None:
            self._ma = maxabs(self.num)
        return self._ma

    def __len__(self):
        return len(self.num)

    def __getitem__(self, j):
        if isinstance(j, (int, np.integer)):
            return Fraction(int(self.num[j]), self.den)
        return Q(self.num[j], self.den)

    def fractions(self) -> list:
        return [Fraction(int(v), self.den) for v in self.num]


def q_of(v) -> Q:
    """A rational scalar as a 0-d Q (it broadcasts against arrays)."""
    if isinstance(v, Q):
        return v
    f = Fraction(v)
    big = abs(f.numerator) >= INT64_SAFE
    return Q(np.array(f.numerator, dtype=object if big else np.int64), f.denominator, abs(f.numerator))


def scaled_ints(num, ma: int, f: int):
    """num * f, in int64 when the bound allows."""
    if f == 1:
        return num
    if num.dtype != object and ma * abs(f) < INT64_SAFE and abs(f) < INT64_SAFE:  # f itself must be an int64
        return num * f
    return big(num) * f


def check_bits(value: int, what: str = "denominator"):
    bits = abs(int(value)).bit_length()
    if bits > MAX_STATE_BITS:
        raise DeclaredError(f"limit reached: an exact value needs a {what} of {bits} bits, over {MAX_STATE_BITS} "
                            "(perceptron.models.rationals.MAX_STATE_BITS)" + ("; run it with --float" if what == "denominator" else ""))


def q_add(a, b, sign: int = 1):
    if not isinstance(a, Q) and not isinstance(b, Q):
        return a + b if sign == 1 else a - b
    a, b = q_of(a), q_of(b)
    L = a.den * b.den // math.gcd(a.den, b.den)
    fa, fb = L // a.den, L // b.den
    bound = a.ma * fa + b.ma * fb
    na, nb = a.num, b.num
    if na.dtype == object or nb.dtype == object or max(bound, fa, fb) >= INT64_SAFE:  # the factors are int64s too
        na, nb = big(na), big(nb)
    na = na * fa if fa != 1 else na
    nb = nb * fb if fb != 1 else nb
    return Q(na + nb if sign == 1 else na - nb, L, bound)


def q_mul(a, b):
    if not isinstance(a, Q) and not isinstance(b, Q):
        return a * b
    if not isinstance(a, Q):
        a, b = b, a
    if not isinstance(b, Q):
        f = Fraction(b)
        return q_reduce(Q(scaled_ints(a.num, a.ma, f.numerator), a.den * f.denominator, a.ma * abs(f.numerator)))
    bound = a.ma * b.ma
    na, nb = a.num, b.num
    if na.dtype == object or nb.dtype == object or bound >= INT64_SAFE:
        na, nb = big(na), big(nb)
    return q_reduce(Q(na * nb, a.den * b.den, bound))


def q_div(a, b):
    if isinstance(b, Q):
        raise DeclaredError("division by a per-point value is not supported in a declaration's block evaluation")
    if b == 0:
        raise DeclaredError("division by zero")
    return q_mul(a, 1 / Fraction(b))


def q_neg(a):
    return Q(-a.num, a.den, a._ma) if isinstance(a, Q) else -a


def q_reduce(q: Q) -> Q:
    """Divide out the common factor of numerators and denominator once the denominator is large."""
    if q.den < (1 << 62):
        return q
    g = q.den
    if q.num.dtype == object:
        for v in q.num.ravel():
            g = math.gcd(g, int(v))
            if g == 1:
                break
    else:
        g = math.gcd(g, int(np.gcd.reduce(q.num.ravel())) if q.num.size else 0)
    if g > 1:
        q = Q(q.num // g, q.den // g, q.ma // g if q._ma is not None else None)
    check_bits(q.den)
    return q


def q_sign(a):
    """Signs of the numerators (the denominator is positive)."""
    if isinstance(a, Q):
        if a.num.dtype == object:
            return np.array([(v > 0) - (v < 0) for v in a.num.ravel()], dtype=np.int64).reshape(a.num.shape)
        return np.sign(a.num)
    return (a > 0) - (a < 0)


def q_dot(a: Q, b: Q):
    """dot of two vectors (a Fraction), or of a vector with a block of rows (a Q per row)."""
    rows, vec = (b, a) if b.num.ndim == 2 else (a, b)
    m = rows.num.shape[-1]
    bound = rows.ma * vec.ma * max(m, 1)
    rn, vn = rows.num, vec.num
    if rn.dtype == object or vn.dtype == object or bound >= INT64_SAFE:
        rn, vn = big(rn), big(vn)
    if rows.num.ndim == 2:
        return Q(rn @ vn, rows.den * vec.den, None)
    return Fraction(int(rn @ vn), rows.den * vec.den)


def exact_sqrt(v):
    f = Fraction(v)
    if f < 0:
        raise DeclaredError("square root of a negative number")
    p, q = math.isqrt(f.numerator), math.isqrt(f.denominator)
    if p * p != f.numerator or q * q != f.denominator:
        raise DeclaredError(f"sqrt({f}) is irrational: an exact run cannot hold it; run the declaration with --float")
    return Fraction(p, q)
