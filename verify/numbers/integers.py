"""Integer arrays for exact arithmetic: int64 while a bound proves nothing wraps (INT64_SAFE),
Python integers beyond it.  Every fast path of the replay and of the column evaluator uses
these, never its own copy."""

from __future__ import annotations

import numpy as np

from perceptron._numbers import INT64_SAFE, maxabs, narrow_ints

__all__ = ["INT64_SAFE", "maxabs", "narrow_ints", "as_object", "int_mul", "int_add", "row_dot", "scaled",
           "same_ratio", "first_rows"]


def as_object(a: np.ndarray) -> np.ndarray:
    """a as an array of Python integers (no copy when it is one already)."""
    return a if a.dtype == object else a.astype(object)


def int_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a * b elementwise, exactly."""
    if a.dtype != object and b.dtype != object and maxabs(a) * maxabs(b) < INT64_SAFE:
        return a * b
    return as_object(a) * as_object(b)


def int_add(a: np.ndarray, b: np.ndarray, sb: int = 1) -> np.ndarray:
    """a + sb b elementwise (sb = 1 or -1), exactly."""
    if a.dtype != object and b.dtype != object and maxabs(a) + maxabs(b) < INT64_SAFE:
        return a + b if sb == 1 else a - b
    return as_object(a) + as_object(b) if sb == 1 else as_object(a) - as_object(b)


def row_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise dot products of two (R, d) integer matrices (either may be a broadcast row)."""
    d = a.shape[1]
    if a.dtype != object and b.dtype != object and maxabs(a) * maxabs(b) * max(d, 1) < INT64_SAFE:
        return np.einsum("ij,ij->i", a, b)
    if d == 0:
        return np.zeros(max(a.shape[0], b.shape[0]), dtype=np.int64)
    return (as_object(a) * as_object(b)).sum(axis=1)


def scaled(a: np.ndarray, f: int) -> np.ndarray:
    """a * f for an integer f >= 1, exactly."""
    if f == 1:
        return a
    if a.dtype != object and f < INT64_SAFE and maxabs(a) * f < INT64_SAFE:
        return a * f
    return a.astype(object) * f


def same_ratio(a, da: int, b, db: int) -> bool:
    """a / da == b / db elementwise, for integer arrays, exactly (int64 when the cross products
    cannot overflow, else Python integers)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype != object and b.dtype != object and a.size:
        ma, mb = maxabs(a), maxabs(b)
        if ma * db < INT64_SAFE and mb * da < INT64_SAFE:
            return bool(np.array_equal(a.astype(np.int64) * db, b.astype(np.int64) * da))
    return all(int(x) * db == int(y) * da for x, y in zip(a.ravel().tolist(), b.ravel().tolist()))


def first_rows(parts):
    """Indices of the first occurrence of each distinct row of the columns ``parts`` (int64
    arrays of shape (m, c)), in order.  Exact: the columns are packed into one int64 key when
    their ranges fit in 63 bits (an offset and a width per column), else rows are sorted
    lexicographically."""
    cols = [c[:, j] for c in parts for j in range(c.shape[1])]
    m = len(cols[0]) if cols else 0
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    key = np.zeros(m, dtype=np.int64)
    bits = 0
    for c in cols:
        lo, hi = int(c.min()), int(c.max())
        width = (hi - lo).bit_length()
        bits += width
        if bits > 62:
            break
        key = (key << width) | (c - lo) if width else key
    else:
        _, first = np.unique(key, return_index=True)
        first.sort()
        return first
    order = np.lexsort(cols[::-1])
    srt = np.stack(cols, axis=1)[order]
    new = np.ones(m, dtype=bool)
    new[1:] = (srt[1:] != srt[:-1]).any(axis=1)
    # the first occurrence of each row: lexsort is stable, so within equal rows the smallest index comes first
    first = order[new]
    first.sort()
    return first

