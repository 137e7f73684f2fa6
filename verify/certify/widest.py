"""The maximum-margin hyperplane, exactly.

"The best separator" of a perceptron with a bias of its own is the hyperplane (w_opt, b_opt),
|w_opt| = 1, whose margin min_i y_i (w_opt.x_i + b_opt) is the largest: gamma.  It is the hard
margin SVM's (w, b) = argmin |w|^2 subject to y_i (w.x_i + b) >= 1, normalised: w_opt = w/|w|,
b_opt = b/|w|, gamma = 1/|w|.  For rational points (w, b) is rational, and the KKT conditions of
that convex program certify it exactly: multipliers alpha_i >= 0 with w = sum_i alpha_i y_i x_i
(and sum_i alpha_i y_i = 0 with a bias), alpha_i > 0 only where y_i (w.x_i + b) = 1, and
y_i (w.x_i + b) >= 1 for every i.  Each condition is checked over the rationals here, so gamma is
the maximum margin itself (gamma_lo = gamma_hi), not an interval around it.

The support is guessed from the dual QP's floats (verify.certify.certificates) and corrected
exactly (a point whose multiplier comes out negative leaves it, the most violated point joins
it); where that does not settle, small supports are tried one by one.

With one class only and a bias there is no such hyperplane: every point is on the same side of
planes moved ever further away, and the margin is unbounded (``ONE_CLASS``).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

__all__ = ["widest", "integer_separator", "missing_widest", "ONE_CLASS", "MAX_SUPPORTS", "MAX_SUPPORT_SIZE", "WIDEST_NAMES"]

#: Why a biased maximum-margin separator does not exist on one-class data.
ONE_CLASS = ("no maximum-margin separator: every point has the same label (with a bias the plane "
             "can be moved past them all: the margin is unbounded)")
#: The quantities of the maximum-margin separator (and of the interval around its margin).
WIDEST_NAMES = ("w_opt", "b_opt", "gamma", "v_opt", "c_opt", "m_opt", "w_hat_opt", "gamma_lo", "gamma_hi")
#: Supports tried one by one (after the guided guesses) before giving up, and the most points
#: for which they are.
MAX_SUPPORTS = 2_000
MAX_TRIED_POINTS = 12
#: Most points of a support solved exactly (a linear system of that size over the rationals);
#: past it the hyperplane is not certified here (verify.certify.certificates then gives its
#: certified interval [gamma_lo, gamma_hi]).
MAX_SUPPORT_SIZE = 24
#: Active-set corrections of the QP's support.
MAX_STEPS = 40


def missing_widest(claim, ctx) -> str | None:
    """Why ``claim`` does not apply to the run context ``ctx`` (verify.replay.dispatch.RunContext)
    where the data have no maximum-margin separator (``ctx.no_widest``: a bias and one class) and
    the claim reads one of its quantities (WIDEST_NAMES); None otherwise.  The rule of
    verify.replay.dispatch.applicable, said before its generic "undefined here"."""
    why = getattr(ctx, "no_widest", None)
    if why is None or getattr(ctx, "separator_kind", None) == "given":
        return None
    names: set = set()
    for compiled in (claim.compiled, getattr(claim, "given", None)):
        names |= set(getattr(compiled, "names", ()) or ())
    read = [q for q in WIDEST_NAMES if q in names]
    return f"{read[0]} is undefined here: {why}" if read else None


def widest(rows, y, bias: bool, hint=None):
    """(w, b, alpha) of the maximum-margin hyperplane of the rational points ``rows`` (labels ``y``,
    +-1), exactly, with KKT multipliers verifying it: y_i (w.x_i + b) >= 1 with equality on the
    support, so gamma = 1/|w|; alpha: the multipliers of every point (0 off the support).
    ``bias``: b free (else b = 0).  ``hint``: the dual QP's float
    multipliers, to guess the support.  None where the data are not separable (or, with a bias,
    have one class) or no support certified within MAX_SUPPORTS."""
    rows = [[Fraction(a) for a in r] for r in rows]
    y = [int(v) for v in y]
    n = len(rows)
    if n == 0 or (bias and len(set(y)) < 2):
        return None
    gram = _Gram(rows)
    tried: set = set()
    for support in _guided(rows, y, bias, gram, hint, tried):
        got = _certified(rows, y, bias, gram, support)
        if got is not None:
            return _full(got, support, n)
    if n > MAX_TRIED_POINTS:
        return None
    for k in range(1, min(n, len(rows[0]) + (2 if bias else 1)) + 1):
        for support in itertools.combinations(range(n), k):
            if len(tried) > MAX_SUPPORTS:
                return None
            if support in tried or (bias and len({y[i] for i in support}) < 2):
                continue
            tried.add(support)
            got = _certified(rows, y, bias, gram, support)
            if got is not None:
                return _full(got, support, n)
    return None


def _full(got, support, n):
    w, b, alpha = got
    full = [Fraction(0)] * n
    for a, i in zip(alpha, support):
        full[i] = a
    return w, b, full


def _guided(rows, y, bias, gram, hint, tried):
    """Supports from the QP's multipliers, corrected exactly: a negative multiplier leaves, the
    most violated point joins (an active-set step), a few times."""
    n = len(rows)
    if hint is None:
        return
    top = max((float(v) for v in hint), default=0.0) or 1.0
    support = tuple(i for i in range(n) if float(hint[i]) > 1e-7 * top)
    for _ in range(min(2 * n + 2, MAX_STEPS)):
        if not support or support in tried or len(support) > MAX_SUPPORT_SIZE:
            return
        tried.add(support)
        yield support
        sol = _solve_kkt(y, bias, gram, support)
        if sol is None:
            return
        alpha, b = sol
        neg = [i for i, a in zip(support, alpha) if a < 0]
        if neg:
            worst = min(neg, key=lambda i: alpha[support.index(i)])
            support = tuple(i for i in support if i != worst)
            continue
        w = _combine(rows, y, support, alpha)
        slack = [(y[i] * (_dot(w, rows[i]) + b), i) for i in range(n) if i not in support]
        low = min(slack, default=None)
        if low is None or low[0] >= 1:
            return
        support = tuple(sorted(support + (low[1],)))


def _certified(rows, y, bias, gram, support):
    """(w, b, alpha) where the KKT conditions hold exactly on this support, else None."""
    sol = _solve_kkt(y, bias, gram, support)
    if sol is None:
        return None
    alpha, b = sol
    if any(a < 0 for a in alpha):
        return None
    w = _combine(rows, y, support, alpha)
    if not any(w):
        return None
    if any(y[i] * (_dot(w, rows[i]) + b) < 1 for i in range(len(rows))):
        return None
    if bias and sum(a * y[i] for a, i in zip(alpha, support)) != 0:
        return None
    return w, b, alpha


def _solve_kkt(y, bias, gram, support):
    """alpha on the support (and b) with y_i (sum_j alpha_j y_j x_j.x_i + b) = 1 on the support
    and sum_j alpha_j y_j = 0 (with a bias); one solution (free unknowns 0), or None."""
    k = len(support)
    A = []
    for i in support:
        row = [Fraction(y[i] * y[j]) * gram(i, j) for j in support]
        A.append(row + ([Fraction(y[i])] if bias else []) + [Fraction(1)])
    if bias:
        A.append([Fraction(y[j]) for j in support] + [Fraction(0), Fraction(0)])
    x = _gauss(A, k + (1 if bias else 0))
    if x is None:
        return None
    return x[:k], (x[k] if bias else Fraction(0))


def _gauss(A, m):
    """One solution of the augmented system A (rows of m coefficients and a right side) over
    the rationals, free unknowns 0; None when inconsistent."""
    A = [r[:] for r in A]
    pivots, r = [], 0
    for c in range(m):
        p = next((i for i in range(r, len(A)) if A[i][c] != 0), None)
        if p is None:
            continue
        A[r], A[p] = A[p], A[r]
        inv = 1 / A[r][c]
        A[r] = [v * inv for v in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c] != 0:
                f = A[i][c]
                A[i] = [a - f * b for a, b in zip(A[i], A[r])]
        pivots.append(c)
        r += 1
    if any(all(v == 0 for v in row[:m]) and row[m] != 0 for row in A[r:]):
        return None
    x = [Fraction(0)] * m
    for i, c in enumerate(pivots):
        x[c] = A[i][m]
    return x


class _Gram:
    """x_i.x_j exactly, computed when first asked (a support is a few points of many)."""

    def __init__(self, rows):
        self.rows, self.known = rows, {}

    def __call__(self, i, j):
        key = (i, j) if i <= j else (j, i)
        got = self.known.get(key)
        if got is None:
            got = self.known[key] = _dot(self.rows[i], self.rows[j])
        return got


def _combine(rows, y, support, alpha):
    d = len(rows[0])
    return [sum((a * y[i] * rows[i][j] for a, i in zip(alpha, support)), Fraction(0)) for j in range(d)]


def _dot(a, b):
    return sum((p * q for p, q in zip(a, b)), Fraction(0))


def integer_separator(w, b):
    """(v, c, m): w and b scaled by the least common multiple L of their denominators, v integer,
    c = L b and the margin m = L (of y_i (v.x_i + c) >= L, with equality on the support)."""
    L = math.lcm(*[Fraction(a).denominator for a in w], Fraction(b).denominator)
    return [int(a * L) for a in w], Fraction(b) * L, Fraction(L)
