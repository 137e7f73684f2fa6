"""Exact numbers for claim evaluation: rationals, sums of square roots and vectors
(verify.numbers.exact), and the integer helpers every int64 fast path shares
(verify.numbers.integers)."""
