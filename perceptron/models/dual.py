"""The dual (kernel) model: one alpha per point, scores through the Gram matrix (exact
integers over one denominator, or float64)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .._numbers import to_int_array
from ..datasets import Dataset
from ..params import MAX_KERNEL_POINTS, ParamError, Params
from .common import mistakes_of

__all__ = ["Dual"]


class Dual:
    """Kernel perceptron: counts alpha_i; scores kept for all points, updated per step."""

    def __init__(self, ds: Dataset, params: Params, X, D):
        self.exact = params.arithmetic == "exact"
        self.n = X.shape[0]
        if self.n > MAX_KERNEL_POINTS:
            raise ParamError(f"the kernel variant holds the n x n Gram matrix: {self.n} points exceed "
                             f"{MAX_KERNEL_POINTS} (perceptron.run.MAX_KERNEL_POINTS)")
        self.tie = 0
        y = ds.y.astype(np.int64)
        if self.exact:
            K_num, K_den = _gram_exact(X, D, params)
            eta = Fraction(params.eta)
            self.K = K_num
            self.score_den = K_den * eta.denominator
            self.eta_num = eta.numerator
            self.F = np.zeros(self.n, dtype=K_num.dtype)
        else:
            self.K = _gram_float(X, params)
            self.eta = float(params.eta)
            self.F = np.zeros(self.n)
        self.alpha = np.zeros(self.n, dtype=np.int64)
        self.y = y
        self.has_bias = False
        self.linear = params.kernel == "linear"
        self.X, self.D, self.eta_q = X, D, params.eta

    def scores(self, idx, lo=None):
        idx = np.arange(lo, lo + len(idx)) if lo is not None else idx
        return self.F[idx] * self.eta_num if self.exact else self.F[idx] * self.eta

    def all_scores(self):
        return self.scores(np.arange(self.n))

    def mistakes(self, s, ys):
        return mistakes_of(s, ys, self.tie)

    def update(self, i, y, out, s_i=None, t: int = 0):
        self.alpha[i] += 1
        self.F = self.F + y * self.K[i]

    def weights(self):
        return self.alpha.copy(), None

    def final(self):
        """w = eta sum_i alpha_i y_i x_i for the linear kernel (the primal weights the note
        writes as its solution); None for other kernels, whose feature space is implicit."""
        if not self.linear:
            return None, None
        coef = self.alpha * self.y
        if self.exact:
            eta = Fraction(self.eta_q)
            acc = coef.astype(object) @ self.X.astype(object)
            return [eta * Fraction(int(v), self.D) for v in acc], None
        return [float(v) for v in float(self.eta_q) * (coef.astype(np.float64) @ self.X)], None


def _gram_exact(X, D, params):
    G = X.astype(object) @ X.astype(object).T  # x_i.x_j = G / D^2
    if params.kernel == "linear":
        return to_int_array(G), D * D
    if params.kernel == "poly":
        off = Fraction(params.offset)
        e, f = off.numerator, off.denominator
        base = G * f + e * D * D  # (x.x' + offset) = base / (f D^2)
        return to_int_array(base ** params.degree), (f * D * D) ** params.degree
    raise ParamError("the RBF kernel is irrational (exp); run it with --float")


def _gram_float(X, params):
    G = X @ X.T
    if params.kernel == "linear":
        return G
    if params.kernel == "poly":
        return (G + float(params.offset)) ** params.degree
    if params.kernel == "rbf":
        sq = np.sum(X * X, axis=1)
        dist = sq[:, None] + sq[None, :] - 2 * G
        return np.exp(-float(params.rbf_gamma) * np.maximum(dist, 0))
    raise ParamError(f"unknown kernel {params.kernel!r}")
