"""Free names: statements "for all w" are evaluated over a stated set of values of w, never at
one value where they happen to hold.

A claim with ``free = ["w", "c:positive"]`` (``when = "dataset"``) is evaluated on a dataset at
every assignment of its free names drawn from FREE_VALUES: vectors are every integer vector in
[-FREE_BOX, FREE_BOX]^d (0 included: "for all w" includes w = 0), scalars the listed
rationals.  The evaluations are exact; the first assignment where the claim is false is a
counterexample (dataset, values).  The set evaluated is reported with the verdict.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from verify.numbers import exact as X

__all__ = ["assignments", "describe", "FREE_BOX", "MAX_FREE_DIM", "MAX_ASSIGNMENTS"]

#: Coordinates of free vectors range over the integers in [-FREE_BOX, FREE_BOX].
FREE_BOX = 1
#: Free vectors are enumerated on datasets of at most this dimension ((2 FREE_BOX + 1)^d values).
MAX_FREE_DIM = 4
#: Most assignments evaluated per dataset (the product over free names); beyond it the dataset
#: is skipped and the verdict says so.
MAX_ASSIGNMENTS = 2000
#: Most (assignment, point) evaluations per dataset: a claim over the points costs n per
#: assignment; datasets beyond it are skipped (and listed) rather than slowing the audit.
MAX_WORK = 10000
#: Values of free scalars, by type: negative, zero, fractional and above 1.
FREE_VALUES = {
    "scalar": tuple(Fraction(v) for v in ("-1", "0", "1/2", "2")),
    "positive": tuple(Fraction(v) for v in ("1/2", "1", "3")),
    "label": (Fraction(-1), Fraction(1)),
}


def _values(ty: str, d: int):
    if ty == "vector":
        return [X.vec_from_fractions(v) for v in itertools.product(range(-FREE_BOX, FREE_BOX + 1), repeat=d)]
    return list(FREE_VALUES[ty])


def assignments(free: dict, d: int, n: int = 1):
    """Every assignment {name: value} for a dataset of n points in dimension d, or a string
    saying why the dataset is skipped (a limit)."""
    if any(ty == "vector" for ty in free.values()) and d > MAX_FREE_DIM:
        return f"dimension {d} > {MAX_FREE_DIM} (MAX_FREE_DIM: free vectors are enumerated exhaustively)"
    names = list(free)
    pools = [_values(free[n], d) for n in names]
    total = 1
    for p in pools:
        total *= len(p)
    if total > MAX_ASSIGNMENTS:
        return f"{total} assignments > {MAX_ASSIGNMENTS} (MAX_ASSIGNMENTS)"
    if total * n > MAX_WORK:
        return f"{total} assignments x {n} points > {MAX_WORK} (MAX_WORK)"
    return [dict(zip(names, combo)) for combo in itertools.product(*pools)]


def describe(free: dict) -> str:
    parts = []
    for n, ty in free.items():
        if ty == "vector":
            parts.append(f"{n}: every integer vector in [-{FREE_BOX}, {FREE_BOX}]^d")
        else:
            parts.append(f"{n}: {', '.join(str(v) for v in FREE_VALUES[ty])}")
    return "; ".join(parts) + f" (datasets with d <= {MAX_FREE_DIM} and assignments x points <= {MAX_WORK})"
