"""The numerics under the certificates: exact integer products of the data with a vector, the
data as floats for the solver, the dual QP of the widest separator (clarabel) and the exact
point of the convex hull(s) that rounded dual weights make (verify.certify.certificates turns
them into certificates, each checked exactly)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np

__all__ = ["as_int_matrix", "floats_of", "int_matvec", "products", "CSC", "dual_qp", "hull_point"]


def as_int_matrix(Xn) -> np.ndarray:
    return Xn if Xn.dtype == object else Xn.astype(object)


def floats_of(Xn, D) -> np.ndarray:
    """Xn / D as doubles (only for the numerical solvers: every verdict is decided exactly)."""
    try:
        out = np.asarray(Xn, dtype=np.float64) / float(D)
        if np.all(np.isfinite(out)):
            return out
    except OverflowError:
        pass
    # beyond the float range: the solvers see Xn scaled by one power of 2 (a common positive
    # factor changes no direction, no sign and no feasibility)
    ints = [int(a) for a in np.asarray(Xn).ravel()]
    shift = max(0, max((abs(a).bit_length() for a in ints), default=0) - 1000)
    return np.array([float(Fraction(a, 1 << shift)) for a in ints], dtype=np.float64).reshape(np.asarray(Xn).shape)


def int_matvec(M: np.ndarray, v) -> list[int]:
    """Exact M @ v for an integer matrix M and Python integers v, as Python integers.  With M
    in int64, v is split into signed limbs small enough that each int64 product M @ limb cannot
    wrap (|M| max * limb * columns < 2^62), and the limbs' products are recombined exactly:
    one or a few int64 matrix-vector products instead of Python-integer arithmetic per entry."""
    v = [int(a) for a in v]
    if M.dtype == object or not v:
        return [int(s) for s in as_int_matrix(M).dot(np.array(v, dtype=object))] if v else [0] * M.shape[0]
    mmax = int(np.abs(M).max()) if M.size else 0
    if mmax == 0:
        return [0] * M.shape[0]
    bits = 61 - mmax.bit_length() - max(1, M.shape[1]).bit_length()
    if bits < 8:
        return [int(s) for s in M.astype(object).dot(np.array(v, dtype=object))]
    base = 1 << bits
    signs = [1 if a >= 0 else -1 for a in v]
    rest = [abs(a) for a in v]
    total = [0] * M.shape[0]
    shift = 0
    while any(rest):
        limb = np.array([sg * (a & (base - 1)) for sg, a in zip(signs, rest)], dtype=np.int64)
        rest = [a >> bits for a in rest]
        part = (M @ limb).tolist()
        total = [t + (q << shift) for t, q in zip(total, part)]
        shift += bits
    return total


def products(Xn, v) -> list[int]:
    """Exact v.x_i for every row of the integer matrix Xn (Python integers)."""
    return int_matvec(np.asarray(Xn), v)


class CSC:
    """A dense matrix in compressed sparse column form, as clarabel reads a scipy.sparse
    csc_matrix (shape, data, indices, indptr): building it directly spares loading
    scipy.sparse (0.07-0.15 s of every `check`) for one conversion."""

    def __init__(self, dense: np.ndarray):
        mask = dense != 0
        self.shape = dense.shape
        rows, cols = np.nonzero(mask.T)  # column-major order: (column, row) pairs
        self.indices = cols.astype(np.int64)
        self.data = np.ascontiguousarray(dense.T[mask.T], dtype=np.float64)
        self.indptr = np.concatenate([[0], np.cumsum(mask.sum(axis=0))]).astype(np.int64)
        self.has_canonical_format = True

    def getformat(self) -> str:
        return "csc"


def dual_qp(Xn, D, y, bias):
    """lambda minimising |sum lambda_i y_i x_i| over the simplex (per class with a bias)."""
    import clarabel

    Xf = floats_of(Xn, D)
    scale = float(np.abs(Xf).max()) or 1.0
    yf = np.array(y, dtype=float)
    Z = yf[:, None] * (Xf / scale)
    n = len(y)
    G = Z @ Z.T
    if bias:
        groups = [yf > 0, yf < 0]
        if not all(g.any() for g in groups):
            groups = [g for g in groups if g.any()]
    else:
        groups = [np.ones(n, dtype=bool)]
    Aeq = np.vstack([g.astype(float) for g in groups])
    A = CSC(np.vstack([Aeq, -np.eye(n)]))
    b = np.concatenate([np.ones(len(groups)), np.zeros(n)])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-12
    settings.tol_feas = 1e-12
    settings.direct_solve_method = "faer"  # supernodal LDL: the Gram block is dense (0.13 -> 0.08 s at n = 400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = clarabel.DefaultSolver(CSC(np.triu(G)), np.zeros(n), A, b,
                                     [clarabel.ZeroConeT(len(groups)), clarabel.NonnegativeConeT(n)], settings).solve()
    status = str(sol.status)
    if "Solved" not in status:
        return None, status
    return np.maximum(np.array(sol.x), 0.0), status


def hull_point(Xn, D, y, bias, l):
    """The point z of the hull(s) that the integer weights l_i >= 0 make, normalised exactly
    per hull (lambda_i = l_i / L_g; with a bias, the positives' point minus the negatives'):
    (z's numerators over Lall D, |z|^2 (halved with a bias: gamma* <= |z|), the number of
    hulls), or None where a hull's weights are all 0."""
    n = len(y)
    yi = np.array(y)
    groups = [yi > 0, yi < 0] if bias else [np.ones(n, dtype=bool)]
    groups = [g for g in groups if g.any()]
    sums = [sum(l[i] for i in np.nonzero(g)[0]) for g in groups]
    if any(L == 0 for L in sums):
        return None
    # z = sum_g sign_g * (1/L_g) sum_{i in g} l_i x_i  (with a bias: positives minus negatives)
    Lall = math.prod(sums)
    coef = np.zeros(n, dtype=object)
    for g, L in zip(groups, sums):
        for i in np.nonzero(g)[0]:
            coef[i] = int(y[i]) * l[i] * (Lall // L)
    znum = int_matvec(np.ascontiguousarray(np.asarray(Xn).T), coef.tolist())  # z = znum / (Lall * D), exactly
    z2 = Fraction(sum(int(a) * int(a) for a in znum), (Lall * D) ** 2)
    if bias and len(groups) == 2:
        z2 /= 4
    return znum, z2, len(groups)
