"""What every model shares: the output of a score (its sign, or the tie value at 0) and the
mistakes of a block."""

from __future__ import annotations

import numpy as np

__all__ = ["mistakes_of", "outs_of", "sign_or_tie"]


def mistakes_of(s, ys, tie: int) -> np.ndarray:
    """out != y with out = sign(s), sign(0) = tie; for tie = 0 that is y s <= 0."""
    if tie == 0:
        return (s * ys) <= 0
    return outs_of(s, tie) != ys


def outs_of(s, tie: int) -> np.ndarray:
    out = np.sign(s).astype(np.int64) if s.dtype != object else np.array([(v > 0) - (v < 0) for v in s], dtype=np.int64)
    if tie != 0:
        out[out == 0] = tie
    return out


def sign_or_tie(v, tie):
    return 1 if v > 0 else -1 if v < 0 else tie
