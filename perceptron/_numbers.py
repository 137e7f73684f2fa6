"""Exact numbers: parsing the notes' and the datasets' number spellings into rationals.

Every number a dataset spells (``3``, ``-1/3``, ``-3 % 7``, ``1.3``, ``2e-3``) is read as the
rational it spells, never through a float.  Values are carried as integer numerators over one
common positive denominator, so that the learners can run in machine integers.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np

__all__ = ["parse_rational", "format_rational", "common_denominator", "to_int_array", "INT64_SAFE", "maxabs", "narrow_ints", "fits_text"]

#: Largest magnitude we let an int64 intermediate reach before switching to Python integers.
#: Kept at 2**62 rather than 2**63 - 1 so that one further addition of two in-range values
#: cannot wrap before the next check.
INT64_SAFE = 2**62


class NumberError(ValueError):
    """A cell that does not spell a finite rational number."""


_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def parse_rational(text: str) -> Fraction:
    """Parse ``p``, ``p/q``, ``p % q`` or a decimal / scientific literal into a Fraction.

    NaN, infinities and anything else are rejected with :class:`NumberError`, as are numbers
    longer than MAX_NUMBER_CHARS characters or with a decimal exponent beyond MAX_EXPONENT
    (``1e999999999`` would be a rational of a billion digits): both are checked before any
    conversion starts.
    """
    from .limits import MAX_EXPONENT, MAX_NUMBER_CHARS

    s = text.strip()
    if not s:
        raise NumberError("empty value")
    if len(s) > MAX_NUMBER_CHARS:
        raise NumberError(f"a number of {len(s)} characters exceeds the limit of {MAX_NUMBER_CHARS} "
                          "(perceptron.limits.MAX_NUMBER_CHARS)")
    if "%" in s:
        s = s.replace(" ", "").replace("%", "/")
    low = s.lower()
    if "nan" in low or "inf" in low:
        raise NumberError(f"not a finite number: {text.strip()!r}")
    if "/" in s:
        p, _, q = (part.strip() for part in s.partition("/"))
        if not (_INTEGER.fullmatch(p) and _INTEGER.fullmatch(q)):
            raise NumberError(f"not a number: {text.strip()!r}")
        num, den = int(p), int(q)
        if den == 0:
            raise NumberError(f"zero denominator: {text.strip()!r}")
        return Fraction(num, den)
    m = _DECIMAL.fullmatch(s)
    if m is None:
        raise NumberError(f"not a number: {text.strip()!r}")
    if m.group(2) and abs(int(m.group(2)[1:])) > MAX_EXPONENT:
        raise NumberError(f"exponent of {text.strip()!r} exceeds the limit of {MAX_EXPONENT} "
                          "(perceptron.limits.MAX_EXPONENT)")
    return Fraction(s)


def format_rational(value) -> str:
    """``"p/q"`` (or ``"p"`` when q = 1) for an int or Fraction; the inverse of parse_rational."""
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    f = Fraction(value)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def common_denominator(denominators) -> int:
    """Least common multiple of positive integers (1 for none).

    Raises NumberError once it passes MAX_DENOMINATOR_BITS (checked as it grows, so that
    1 200 cells 1/p with distinct primes p stop at the limit rather than after building a
    15 000-bit number and everything scaled by it)."""
    from .limits import MAX_DENOMINATOR_BITS

    den = 1
    for q in set(int(q) for q in denominators):
        den = math.lcm(den, q)
        if den.bit_length() > MAX_DENOMINATOR_BITS:
            raise NumberError(f"the common denominator of the values exceeds {MAX_DENOMINATOR_BITS} bits "
                              "(perceptron.limits.MAX_DENOMINATOR_BITS: every exact quantity of a run is scaled by it)")
    return den


def to_int_array(values) -> np.ndarray:
    """An int64 array when every value fits comfortably, else an object array of Python ints."""
    arr = np.asarray(values, dtype=object)
    if arr.size == 0:
        return arr.astype(np.int64)
    flat = arr.ravel()
    hi = max(flat.max(), -flat.min())
    if hi < INT64_SAFE:
        return arr.astype(np.int64)
    return arr


#: Unit roundoff of float64.
U = 2.0**-53


def error_scale(d: int) -> float:
    """A bound on |float score - exact score| per unit of |x| |w|, for a d-term product taken
    in any order on the correctly rounded inputs (and, for the unit variant, on the rounded
    x/|x|): gamma_{d+2} for the product and the rounding of x, doubled for the rounding of
    x/|x|, inflated by 1% for the rounding of the bound itself."""
    gamma = (d + 2) * U / (1 - (d + 2) * U)
    return 1.01 * 2 * gamma


def maxabs(a) -> int:
    """max |a_j| of an integer array (int64 or Python integers), 0 when it is empty: the one
    bound every int64 fast path compares with INT64_SAFE."""
    if a.size == 0:
        return 0
    if a.dtype == object:  # Python integers: numpy's reductions compare them exactly, in one C loop
        return abs(int(max(a.max(), -a.min())))
    return int(max(a.max(), -a.min()))


def narrow_ints(values) -> np.ndarray:
    """Integers (an array or any sequence of Python integers) as an int64 array where every
    value is below INT64_SAFE in magnitude, else as an array of Python integers: the int64
    fast paths rely on that bound."""
    if isinstance(values, np.ndarray):
        a = values
    else:
        vals = values if isinstance(values, list) else list(values)
        try:
            a = np.array(vals, dtype=np.int64)
        except OverflowError:
            return np.array([int(v) for v in vals], dtype=object)
    if a.dtype == object:
        return a.astype(np.int64) if maxabs(a) < INT64_SAFE else a
    if maxabs(a) >= INT64_SAFE:
        return np.array([int(v) for v in a.ravel().tolist()], dtype=object).reshape(a.shape)
    return a.astype(np.int64, copy=False)


def fits_text(v: Fraction, limit: int) -> bool:
    """Whether v written "p/q" (format_rational) takes at most ``limit`` characters; decided from
    the bit lengths first, so a huge value is never converted to text."""
    bits = v.numerator.bit_length() + v.denominator.bit_length()
    if bits * 0.30103 > limit + 4:  # log10(2): fewer digits than that cannot spell it
        return False
    return len(format_rational(v)) <= limit
