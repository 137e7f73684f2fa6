"""Vectors with a given Gram matrix, exactly: a symbolic counterexample made concrete.

z3 refutes a proof step over inner products (the Gram abstraction): its model gives
<w,w> = 1, <w,x> = -1, <x,x> = 2, ... .  A reader wants vectors.  A rational positive
semidefinite Gram matrix G factors as G = L D L^T with L and D rational (no pivoting is
needed: a zero pivot of a PSD matrix has a zero column below it); each pivot d = p/q is a sum
of four rational squares (Lagrange: p q = a^2 + b^2 + c^2 + e^2, so d = (a/q)^2 + ... + (e/q)^2,
with sympy's sum_of_four_squares), so the rows of L sqrt(D), spread over four coordinates per
pivot, are rational vectors whose inner products are exactly G.  ``realise`` checks that they
are before returning them.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["realise", "NotRealisable", "MAX_SQUARE_BITS"]

#: Bits of the integer p*q split into four squares (sympy factors it): past this the model's
#: vectors are not given (the inner products still are).
MAX_SQUARE_BITS = 200


class NotRealisable(ValueError):
    """The matrix is not positive semidefinite, or its pivots are too large to split."""


def realise(gram: list[list[Fraction]]) -> list[list[Fraction]]:
    """Rational vectors v_1 .. v_n with <v_i, v_j> = gram[i][j] exactly (coordinates that are
    zero in every vector dropped)."""
    from sympy.solvers.diophantine.diophantine import sum_of_four_squares

    n = len(gram)
    G = [[Fraction(v) for v in row] for row in gram]
    if any(G[i][j] != G[j][i] for i in range(n) for j in range(n)):
        raise NotRealisable("the inner products are not symmetric")
    L = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    D = [Fraction(0)] * n
    for j in range(n):
        d = G[j][j] - sum(L[j][k] ** 2 * D[k] for k in range(j))
        if d < 0:
            raise NotRealisable("the inner products are not those of vectors (a negative pivot)")
        D[j] = d
        for i in range(j + 1, n):
            s = G[i][j] - sum(L[i][k] * L[j][k] * D[k] for k in range(j))
            if d == 0:
                if s != 0:
                    raise NotRealisable("the inner products are not those of vectors (a zero pivot, a non-zero column)")
                L[i][j] = Fraction(0)
            else:
                L[i][j] = s / d
    roots = []
    for d in D:
        if d == 0:
            roots.append((Fraction(0),) * 4)
            continue
        pq = d.numerator * d.denominator
        if pq.bit_length() > MAX_SQUARE_BITS:
            raise NotRealisable(f"a pivot of {pq.bit_length()} bits (limit MAX_SQUARE_BITS = {MAX_SQUARE_BITS})")
        roots.append(tuple(Fraction(int(a), d.denominator) for a in sum_of_four_squares(pq)))
    vecs = [[L[i][j] * r for j in range(n) for r in roots[j]] for i in range(n)]
    keep = [c for c in range(4 * n) if any(v[c] != 0 for v in vecs)] or [0]
    vecs = [[v[c] for c in keep] for v in vecs]
    for i in range(n):
        for j in range(n):
            if sum(a * b for a, b in zip(vecs[i], vecs[j])) != G[i][j]:
                raise AssertionError("realised vectors do not have the Gram matrix")  # a bug, never a verdict
    return vecs
