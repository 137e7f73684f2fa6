"""Exact numbers: parsing the notes' and the datasets' number spellings into rationals.

Every number a dataset spells (``3``, ``-1/3``, ``-3 % 7``, ``1.3``, ``2e-3``) is read as the
rational it spells, never through a float.  Values are carried as integer numerators over one
common positive denominator, so that the learners can run in machine integers.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = ["parse_rational", "format_rational", "common_denominator", "to_int_array", "INT64_SAFE"]

#: Largest magnitude we let an int64 intermediate reach before switching to Python integers.
#: Kept at 2**62 rather than 2**63 - 1 so that one further addition of two in-range values
#: cannot wrap before the next check.
INT64_SAFE = 2**62


class NumberError(ValueError):
    """A cell that does not spell a finite rational number."""


def parse_rational(text: str) -> Fraction:
    """Parse ``p``, ``p/q``, ``p % q`` or a decimal / scientific literal into a Fraction.

    NaN, infinities and anything else are rejected with :class:`NumberError`.
    """
    s = text.strip()
    if not s:
        raise NumberError("empty value")
    if "%" in s:
        s = s.replace(" ", "").replace("%", "/")
    low = s.lower()
    if "nan" in low or "inf" in low:
        raise NumberError(f"not a finite number: {text.strip()!r}")
    if "/" in s:
        p, _, q = s.partition("/")
        try:
            num, den = int(p), int(q)
        except ValueError:
            raise NumberError(f"not a number: {text.strip()!r}") from None
        if den == 0:
            raise NumberError(f"zero denominator: {text.strip()!r}")
        return Fraction(num, den)
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise NumberError(f"not a number: {text.strip()!r}") from None


def format_rational(value) -> str:
    """``"p/q"`` (or ``"p"`` when q = 1) for an int or Fraction; the inverse of parse_rational."""
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    f = Fraction(value)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def common_denominator(denominators) -> int:
    """Least common multiple of positive integers (1 for none)."""
    uniq = set(int(q) for q in denominators)
    return math.lcm(*uniq) if uniq else 1


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
