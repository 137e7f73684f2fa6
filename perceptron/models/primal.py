"""The primal model of the built-in variants: weights as scaled integers (exact) or float64,
scored in blocks; float decisions certified by a rigorous bound (and a float32 screen)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .._numbers import INT64_SAFE, maxabs, to_int_array
from .._numbers import U as _U
from .._numbers import error_scale as _error_scale
from ..datasets import Dataset
from ..limits import MAX_DENOMINATOR_BITS
from ..params import ParamError, Params, exact_inputs
from ..variants import VARIANTS
from .common import mistakes_of, outs_of

__all__ = ["Primal", "error_scale32", "float_exact_signs"]

#: Largest data (points x dimension) given a float32 copy for the screen (1 GiB of float32).
FLOAT32_SCREEN_CELLS = 1 << 28
#: The screen runs while max|x_j| max|w_j| d stays below this: no float32 product or sum can
#: overflow (float32 reaches 2^128).
_F32_RANGE = 2.0**120
#: Per unit of sqrt(d)(|x| + |w|) + d: the absolute error of rounding to float32 near
#: underflow (subnormal spacing 2^-149), generously.
_F32_TINY = 2.0**-140


def float_exact_signs(Xn_rows, D: int, w: np.ndarray, b: float) -> list:
    """Exact signs of x.w + b for exact rows x = Xn_rows / D and the float w, b (each float is
    a binary rational: everything is scaled by a power of 2 and summed in Python integers)."""
    ratios = [float(v).as_integer_ratio() for v in w] + [float(b).as_integer_ratio()]
    E = max(q for _, q in ratios)  # denominators are powers of 2: the largest is their lcm
    Wi = [p * (E // q) for p, q in ratios[:-1]]
    Bi = ratios[-1][0] * (E // ratios[-1][1]) * D
    nz = [j for j, v in enumerate(Wi) if v]
    out = []
    for row in Xn_rows:
        v = sum(int(row[j]) * Wi[j] for j in nz) + Bi
        out.append((v > 0) - (v < 0))
    return out


#: Why a float run stops: its weights or scores left the float range.
_OVERFLOW = ("the float weights or scores overflow (beyond about 1.8e308); float runs stop there: run it exact "
             "(without --float)")


def _norm(v: np.ndarray) -> float:
    """|v|; where v.v overflows, scaled first (inf only where |v| itself is beyond the float
    range).  Float runs compute it with overflow ignored (perceptron.run.train)."""
    s = float(np.dot(v, v))
    if math.isfinite(s):
        return math.sqrt(s)
    m = float(np.max(np.abs(v)))
    return m * math.sqrt(float(np.dot(v / m, v / m))) if math.isfinite(m) and m > 0 else m


def _maxabs_float(A: np.ndarray) -> float:
    return max(float(A.max()), -float(A.min())) if A.size else 0.0


def error_scale32(d: int) -> float:
    """The float32 screen's bound per unit of |x| |w| (x the exact data, w the float64
    weights): rounding x to float64 and then float32 (u64 + u32 each way), w to float32 (u32),
    the d-term float32 product in any order (gamma_d with u32 = 2^-24), relative errors away
    from underflow (the screen adds _F32_TINY terms for that, and stops short of overflow), doubled as
    error_scale doubles for the unit variant's rounding of x/|x|, inflated by 1% for the
    rounding of the bound itself."""
    u32 = 2.0**-24
    gamma = d * u32 / (1 - d * u32)
    return 1.01 * 2 * ((1 + u32 + _U) ** 2 * (1 + u32) - 1 + gamma * (1 + u32 + _U) ** 2 * (1 + u32))


def _fits(maxabs_x: int, maxabs_w: int, d: int, maxabs_b: int) -> bool:
    return maxabs_x * maxabs_w * d + maxabs_b < INT64_SAFE


class Primal:
    """State w (and b) of a primal variant, with scores and updates in one arithmetic."""

    def __init__(self, ds: Dataset, params: Params, X, D):
        var = VARIANTS[params.variant]
        self.exact = params.arithmetic == "exact"
        self.X = X
        self._y = ds.y.astype(np.int64)
        self.n, self.d = X.shape
        self.has_bias = var.bias is not None
        self.half = params.form == "half"
        self.tie = var.tie if var.tie is not None else params.sign0
        w0 = params.w0 if params.w0 is not None else (0,) * self.d
        if len(w0) != self.d:
            raise ParamError(f"initial weights have {len(w0)} entries; the model has {self.d} (after augmentation)")
        b0 = params.b0 or 0
        if self.exact:
            eta = Fraction(params.eta)
            a, c = eta.numerator, eta.denominator
            mult = 2 if self.half else 1
            S = mult * c * D
            for q_ in [1] + [Fraction(v).denominator for v in w0] + [Fraction(b0).denominator]:
                S = math.lcm(S, q_)
                if S.bit_length() + a.bit_length() > 2 * MAX_DENOMINATOR_BITS:
                    raise ParamError(f"eta, w0 and b0 need a common scale of more than {2 * MAX_DENOMINATOR_BITS} bits "
                                     "(perceptron.limits.MAX_DENOMINATOR_BITS, doubled for the run's scale)")
            self.S, self.D = S, D
            q = S // (c * D)
            self.w_step = q * a if not self.half else None
            self.half_step = (q // 2) * a  # multiplies (y - out)
            self.W = to_int_array([int(Fraction(v) * S) for v in w0])
            self.B = int(Fraction(b0) * S * D)
            scale = var.bias_scale(lambda: max(int(sum(int(v) * int(v) for v in row)) for row in X), D * D)
            self.b_step = 0 if scale is None else q * a * scale
            self.maxabs_x = maxabs(X) if X.dtype != object else None
            self.big = X.dtype == object
            step = max(abs(self.w_step or 0), 2 * abs(self.half_step))  # one update adds at most step |x|
            if not self.big and (not _fits(self.maxabs_x, maxabs(self.W) if self.W.dtype != object else INT64_SAFE,
                                           self.d, abs(self.B)) or max(step, step * self.maxabs_x) >= INT64_SAFE):
                self._to_big()
            self.score_den = S * D
        else:
            self.eta = float(params.eta)
            self.W = np.array([float(v) for v in w0], dtype=np.float64)
            self.B = float(b0)
            self.b_step = float(var.bias_scale(lambda: np.max(np.cumsum(X * X, axis=1)[:, -1]), 1.0) or 0.0)
            self.xnorm = np.sqrt(np.einsum("ij,ij->i", X, X))
            self.err = _error_scale(self.d) * self.xnorm
            self.ds, self.params, self.Xexact = ds, params, None
            self.big = False
            # the screen: scores first in float32 (half the memory traffic of the data), with a
            # rigorous bound; only the points it cannot decide are scored again in float64
            self.xmax = _maxabs_float(X)
            small = X.size <= FLOAT32_SCREEN_CELLS and np.isfinite(self.xmax) and self.xmax * self.d < _F32_RANGE
            self.X32 = X.astype(np.float32) if small and X.size else None
            self.e32 = error_scale32(self.d)
            self.c32 = None

    def _to_big(self):
        self.X = self.X.astype(object)
        self.W = self.W.astype(object)
        self.big = True

    def scores(self, idx, lo=None) -> np.ndarray:
        """Scores (exact: numerators over S D) of the points idx (an index array or, with lo,
        the contiguous range lo:lo+len)."""
        if self.exact:
            rows = self.X[lo:lo + len(idx)] if lo is not None else self.X[idx]
            s = rows @ self.W
            if self.has_bias:
                s = s + self.B
            return s
        sel = slice(lo, lo + len(idx)) if lo is not None else idx
        if self.X32 is not None and self.xmax * _maxabs_float(self.W) * self.d < _F32_RANGE:
            return self._screened(sel)
        return self._certified(self.X[sel], self.err[sel], sel)

    def _screened(self, sel) -> np.ndarray:
        """Scores from the float32 copy of the data and weights: where |s| exceeds its bound
        (error_scale32: the rounding of x and w to float32, a d-term float32 product in any
        order, the float64 addition of b), s has the exact sign of x.w + b and lies within the
        bound of it; the other points are scored by _certified (float64, then exactly)."""
        b = self.B if self.has_bias else 0.0
        s = (self.X32[sel] @ self.W.astype(np.float32)).astype(np.float64)
        if b:
            s += b
        unsure = np.flatnonzero(np.abs(s) * (1 - 4 * _U) <= self.screen_bound(sel))  # |s| <= bound(s), rearranged
        if unsure.size:
            rows = sel.start + unsure if isinstance(sel, slice) else sel[unsure]
            s[unsure] = self._certified(self.X[rows], self.err[rows], rows)
        return s

    def screen_bound(self, sel) -> np.ndarray:
        """|s - (x.w + b)| <= screen_bound + 4 u |s| for a score s of the float32 screen: the
        bound e32 |x| |w| + TINY (sqrt(d) (|x| + |w|) + d) + 4 u (|b| + |s|), taken as
        c32 max(|w|, 1) + const + 4 u |s| with c32 = (e32 + TINY sqrt(d)) |x| computed once per
        point (the 4 u |s| term is left to the caller)."""
        b = self.B if self.has_bias else 0.0
        wn = _norm(self.W)
        if self.c32 is None:
            self.c32 = (self.e32 + _F32_TINY * math.sqrt(self.d)) * self.xnorm
        const = 4 * _U * abs(b) + _F32_TINY * (math.sqrt(self.d) * wn + self.d)
        return self.c32[sel] * max(wn, 1.0) + const

    def _certified(self, X, err, sel) -> np.ndarray:
        """Float scores whose signs are the exact signs of x.w + b (x the exact data, w and b
        the float weights, each a binary rational).  The product is taken by BLAS in any
        order; a score within twice the rounding bound of zero is re-decided exactly and
        replaced by a float of its exact sign, within the bound of the exact score."""
        b = self.B if self.has_bias else 0.0
        s = X @ self.W
        if b:
            s += b
        if not np.isfinite(s).all():
            raise ParamError(_OVERFLOW)
        bound = 2 * (err * _norm(self.W) + 4 * _U * abs(b))
        unsure = np.flatnonzero(np.abs(s) <= bound)
        if unsure.size:
            if not self.W.any():
                signs = [(b > 0) - (b < 0)] * unsure.size  # the score is b exactly
            else:
                if self.Xexact is None:
                    self.Xexact = exact_inputs(self.ds, self.params)
                rows = sel.start + unsure if isinstance(sel, slice) else sel[unsure]
                signs = float_exact_signs(self.Xexact[0][rows], self.Xexact[1], self.W, b)
            sg = np.asarray(signs, dtype=np.float64)
            s[unsure] = np.where(np.sign(s[unsure]) == sg, s[unsure], sg * np.maximum(np.abs(s[unsure]), 5e-324))
            s[unsure[sg == 0]] = 0.0
        return s

    def all_scores(self):
        return self.scores(np.arange(self.n), lo=0)

    def mistakes(self, s, ys):
        return mistakes_of(s, ys, self.tie)

    def update(self, i: int, y: int, out: int, s_i=None, t: int = 0):
        if self.exact:
            step = self.w_step * y if not self.half else self.half_step * (y - out)
            self.W = self.W + step * self.X[i]
            if self.has_bias:
                self.B += self.b_step * y
            if not self.big:
                if not _fits(self.maxabs_x, maxabs(self.W), self.d, abs(self.B) + abs(self.b_step)):
                    self._to_big()
        else:
            c = self.eta * y if not self.half else 0.5 * self.eta * (y - out)
            self.W += self.X[i] * c  # an overflow (ignored by the run's errstate) is reported below
            if self.has_bias:
                # b += eta y R^2 (novikoff) or b += eta y (sklearn, as its intercept update)
                self.B += self.eta * y * self.b_step if self.b_step != 1.0 else self.eta * y
            if not (np.isfinite(self.W).all() and math.isfinite(self.B)):
                raise ParamError(_OVERFLOW)

    def weights(self):
        """(w, b) as the recorder stores them: exact numerators or floats."""
        return self.W.copy(), (self.B if self.has_bias else None)

    def errors(self, W, B) -> int:
        saveW, saveB = self.W, self.B
        self.W, self.B = W, B
        s = self.all_scores()
        self.W, self.B = saveW, saveB
        return int(np.count_nonzero(outs_of(s, self.tie) != self._y))

    def final(self):
        if self.exact:
            w = [Fraction(int(v), self.S) for v in self.W]
            b = Fraction(int(self.B), self.S * self.D) if self.has_bias else None
        else:
            w = [float(v) for v in self.W]
            b = float(self.B) if self.has_bias else None
        return w, b
