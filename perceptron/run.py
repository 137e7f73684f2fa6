"""One run loop for every variant: exact (scaled integers) or float64.

Exact runs keep every quantity as an integer numerator over a denominator fixed for the whole
run: features x = X/D, weights w = W/S, bias b = B/(S D), so a score w.x + b = (X.W + B)/(S D).
S is chosen once so that every update is an integer step; the signs of scores, which decide
mistakes, are read off the integer numerators.  int64 arithmetic is used while a bound proves
it cannot wrap; past that, the arrays become Python integers.

Points between two updates are scored in blocks (one matrix-vector product), because w does
not change between them; the scores are the same numbers a one-point-at-a-time loop computes.
Float sums are taken in index order (like scikit-learn's sequential dot), so float runs
reproduce scikit-learn bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ._numbers import INT64_SAFE, U as _U, common_denominator, error_scale as _error_scale, format_rational, to_int_array
from .datasets import Dataset
from .limits import MAX_DENOMINATOR_BITS
from .declared import variant_of
from .variants import VARIANTS

__all__ = ["Params", "Result", "train", "prepare_inputs", "exact_inputs"]

#: Largest block of points scored by one product; bounds temporary memory to BLOCK_MAX rows.
BLOCK_MAX = 16384
#: Smallest block; below this a product costs more in call overhead than it saves.
BLOCK_MIN = 8
#: The fixed cost of scoring one block, in rows of a 100-column float product (measured:
#: about 40 us of call overhead against 0.03 us a row).
BLOCK_OVERHEAD_ROWS = 1300


@dataclass(frozen=True)
class Params:
    """Everything that determines a run.  Rationals are Fractions; ``arithmetic`` is
    ``"exact"`` or ``"float"``."""

    variant: str = "rosenblatt"
    eta: Fraction = Fraction(1)
    order: str = "cyclic"
    augment: str | None = None  # None, "first", "last"
    sign0: int = 0  # value of sign(0) for the variants where it is a parameter
    form: str = "yx"  # sign variant: "yx" (eta y x) or "half" (1/2 eta (y - out) x)
    w0: tuple | None = None
    b0: Fraction | None = None
    max_epochs: int = 1000
    max_updates: int = 1_000_000
    max_visits: int | None = None
    patience: int | None = None  # slides/pocket: stop once w is unchanged for this many visits
    ratchet: bool = False  # pocket: Gallant's ratchet
    kernel: str = "linear"  # linear, poly, rbf
    degree: int = 2
    offset: Fraction = Fraction(1)
    rbf_gamma: Fraction = Fraction(1)
    arithmetic: str = "exact"
    declared: tuple = ()  #: ((name, Fraction), ...): values of a declared variant's parameters

    def to_json(self) -> dict:
        out = {}
        for k, v in self.__dict__.items():
            if k == "declared":
                if v:  # absent for the built-in variants: their traces are unchanged
                    out[k] = {name: format_rational(x) for name, x in v}
                continue
            if isinstance(v, Fraction):
                v = format_rational(v) if self.arithmetic == "exact" else float(v)
            elif isinstance(v, tuple):
                v = [format_rational(x) if self.arithmetic == "exact" else float(x) for x in v]
            out[k] = v
        return out

    @classmethod
    def from_json(cls, obj: dict, var=None) -> "Params":
        """Parameters from a trace header, strictly typed: every field present, no other, each
        of its type (a string "false" is not a bool, 1.9 is not an int); raises ParamError.
        ``var``: the variant (a declaration from the header), else looked up by name."""
        if not isinstance(obj, dict):
            raise ParamError("params must be a JSON object")
        names = [k for k in cls.__dataclass_fields__ if k != "declared"]
        extra = sorted(set(obj) - set(names) - {"declared"})
        missing = [k for k in names if k not in obj]
        if extra or missing:
            raise ParamError(f"params {'has unknown field ' + repr(extra[0]) if extra else 'lacks ' + repr(missing[0])}")
        kw = {}
        for k in names:
            v = obj[k]
            kind = _PARAM_TYPES[k]
            if v is None and k in _OPTIONAL:
                kw[k] = None
            elif kind == "int":
                if type(v) is not int:
                    raise ParamError(f"params.{k} must be an integer, not {v!r}"[:200])
                kw[k] = v
            elif kind == "bool":
                if type(v) is not bool:
                    raise ParamError(f"params.{k} must be true or false, not {v!r}"[:200])
                kw[k] = v
            elif kind == "str":
                if type(v) is not str or len(v) > 100_000:
                    raise ParamError(f"params.{k} must be a string, not {v!r}"[:200])
                kw[k] = v
            elif kind == "rational":
                kw[k] = _rational_field(k, v)
            elif kind == "vector":
                if type(v) is not list:
                    raise ParamError(f"params.{k} must be a list of numbers"[:200])
                kw[k] = tuple(_rational_field(k, x) for x in v)
        if "declared" in obj:
            dv = obj["declared"]
            if not isinstance(dv, dict) or len(dv) > 64 or not all(isinstance(k, str) and len(k) <= 64 for k in dv):
                raise ParamError("params.declared must be an object of parameter values")
            kw["declared"] = tuple((k, _rational_field(f"declared.{k}", v)) for k, v in sorted(dv.items()))
        params = cls(**kw)
        if var is None or var.name != params.variant:
            var = variant_of(params.variant)
        _check_params(params, var)
        return params


#: JSON types of the Params fields (see Params.from_json).
_PARAM_TYPES = {"variant": "str", "eta": "rational", "order": "str", "augment": "str", "sign0": "int", "form": "str",
                "w0": "vector", "b0": "rational", "max_epochs": "int", "max_updates": "int", "max_visits": "int",
                "patience": "int", "ratchet": "bool", "kernel": "str", "degree": "int", "offset": "rational",
                "rbf_gamma": "rational", "arithmetic": "str"}
_OPTIONAL = {"augment", "w0", "b0", "max_visits", "patience"}
#: Which of the run's parameters a declared variant takes (the others belong to built-in variants).
_DECLARED_DEFAULTS = {"form": "yx", "patience": None, "ratchet": False, "kernel": "linear"}
#: Most points of a kernel run: its Gram matrix has n^2 entries (10^8 float64 = 800 MB).
MAX_KERNEL_POINTS = 10_000
#: Largest polynomial kernel degree: (x.z + c)^degree is computed exactly, its size grows with it.
MAX_DEGREE = 64


def _rational_field(name: str, v) -> Fraction:
    from ._numbers import NumberError, parse_rational

    if type(v) is str:
        try:
            return parse_rational(v)
        except NumberError as e:
            raise ParamError(f"params.{name}: {e}") from None
    if type(v) is int:
        if len(str(abs(v))) > 1000:
            raise ParamError(f"params.{name}: a number of more than 1000 digits")
        return Fraction(v)
    if type(v) is float and math.isfinite(v):
        return Fraction(v)
    raise ParamError(f"params.{name} must be a finite number, not {v!r}"[:200])


@dataclass
class Result:
    """What a run ends with.  Exact runs give Fractions; float runs give floats."""

    variant: str
    arithmetic: str
    w: list | None
    b: object
    alpha: list | None
    updates: int
    epochs: int
    visits: int
    converged: bool
    stop: str
    dataset_sha256: str
    w_pocket: list | None = None
    augment: str | None = None
    extra: dict = field(default_factory=dict)

    def _bias(self):
        """The bias the classifier applies: b for bias variants, the augmented coordinate
        of w for augmented runs, else 0 (the hyperplane passes through the origin)."""
        if self.b is not None:
            return self.b
        if self.augment == "first":
            return self.w[0]
        if self.augment == "last":
            return self.w[-1]
        return 0 if self.arithmetic == "exact" else 0.0

    def summary(self) -> dict:
        fmt = format_rational if self.arithmetic == "exact" else float
        out = {
            "variant": self.variant,
            "arithmetic": self.arithmetic,
            "updates": self.updates,
            "epochs": self.epochs,
            "visits": self.visits,
            "converged": self.converged,
            "stop": self.stop,
            "w": None if self.w is None else [fmt(v) for v in self.w],
            "b": fmt(self._bias()) if self.w is not None else None,
            "dataset_sha256": self.dataset_sha256,
        }
        if self.alpha is not None:
            out["alpha"] = [int(a) for a in self.alpha]
        if self.w_pocket is not None:
            out["w_pocket"] = [fmt(v) for v in self.w_pocket]
        out.update(self.extra)
        return out


class ParamError(ValueError):
    """A parameter combination that the variant does not allow."""


# --------------------------------------------------------------------------- inputs

def prepare_inputs(ds: Dataset, params: Params):
    """The inputs the learner sees, after augmentation and (unit variant) normalisation.

    Exact: ``(X_num, D)`` with x = X_num / D.  Float: ``(X_float, 1)``.
    """
    var = variant_of(params.variant)
    if params.arithmetic == "exact":
        X, D = ds.exact()
        if params.augment:
            ones = np.full((ds.n, 1), D, dtype=X.dtype)
            X = np.hstack([ones, X] if params.augment == "first" else [X, ones])
        if var.unit:
            X, D = _unit_rows_exact(X, D)
        return X, D
    X = ds.as_float()
    if params.augment:
        ones = np.ones((ds.n, 1))
        X = np.hstack([ones, X] if params.augment == "first" else [X, ones])
    if var.unit:
        norms = np.sqrt(np.cumsum(X * X, axis=1)[:, -1])
        if (norms == 0).any():
            raise ParamError(f"the unit variant cannot scale the zero vector (point {int(np.argmax(norms == 0))})")
        X = X / norms[:, None]
    return np.ascontiguousarray(X), 1


def exact_inputs(ds: Dataset, params: Params):
    """The exact inputs (after augmentation; for the unit variant x itself, whose score has the
    sign of the score of x/|x|)."""
    X, D = ds.exact()
    if params.augment:
        ones = np.full((ds.n, 1), D, dtype=X.dtype)
        X = np.hstack([ones, X] if params.augment == "first" else [X, ones])
    return X, D


def _unit_rows_exact(X, D):
    rows = []
    for i, row in enumerate(X):
        sq = sum(int(v) * int(v) for v in row)
        r = math.isqrt(sq)
        if sq == 0:
            raise ParamError(f"the unit variant cannot scale the zero vector (point {i})")
        if r * r != sq:
            raise ParamError(
                f"point {i} has |x|^2 = {format_rational(Fraction(sq, D * D))}, not the square of a rational, "
                "so x/|x| is irrational: run the unit variant with --float, or give unit-norm data")
        rows.append([Fraction(int(v), r) for v in row])
    den = common_denominator(f.denominator for row in rows for f in row)
    return to_int_array([[f.numerator * (den // f.denominator) for f in row] for row in rows]), den


# --------------------------------------------------------------------------- arithmetic

def _float_exact_signs(Xn_rows, D: int, w: np.ndarray, b: float) -> list:
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


#: Largest data (points x dimension) given a float32 copy for the screen (1 GiB of float32).
FLOAT32_SCREEN_CELLS = 1 << 28
#: The screen runs while max|x_j| max|w_j| d stays below this: no float32 product or sum can
#: overflow (float32 reaches 2^128).
_F32_RANGE = 2.0**120
#: Per unit of sqrt(d)(|x| + |w|) + d: the absolute error of rounding to float32 near
#: underflow (subnormal spacing 2^-149), generously.
_F32_TINY = 2.0**-140


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


def _maxabs(a) -> int:
    if a.size == 0:
        return 0
    return int(max(a.max(), -a.min()))


class _Primal:
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
            if var.bias == "R2":
                r2n = max(int(sum(int(v) * int(v) for v in row)) for row in X)
                self.b_step = q * a * r2n
            elif var.bias == "one":
                self.b_step = q * D * D * a
            else:
                self.b_step = 0
            self.maxabs_x = _maxabs(X) if X.dtype != object else None
            self.big = X.dtype == object
            if not self.big and not _fits(self.maxabs_x, _maxabs(self.W) if self.W.dtype != object else INT64_SAFE, self.d, abs(self.B)):
                self._to_big()
            self.score_den = S * D
        else:
            self.eta = float(params.eta)
            self.W = np.array([float(v) for v in w0], dtype=np.float64)
            self.B = float(b0)
            if var.bias == "R2":
                self.b_step = float(np.max(np.cumsum(X * X, axis=1)[:, -1]))
            elif var.bias == "one":
                self.b_step = 1.0
            else:
                self.b_step = 0.0
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
        wn = float(np.sqrt(np.dot(self.W, self.W)))
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
        bound = 2 * (err * float(np.sqrt(np.dot(self.W, self.W))) + 4 * _U * abs(b))
        unsure = np.flatnonzero(np.abs(s) <= bound)
        if unsure.size:
            if not self.W.any():
                signs = [(b > 0) - (b < 0)] * unsure.size  # the score is b exactly
            else:
                if self.Xexact is None:
                    self.Xexact = exact_inputs(self.ds, self.params)
                rows = sel.start + unsure if isinstance(sel, slice) else sel[unsure]
                signs = _float_exact_signs(self.Xexact[0][rows], self.Xexact[1], self.W, b)
            sg = np.asarray(signs, dtype=np.float64)
            s[unsure] = np.where(np.sign(s[unsure]) == sg, s[unsure], sg * np.maximum(np.abs(s[unsure]), 5e-324))
            s[unsure[sg == 0]] = 0.0
        return s

    def all_scores(self):
        return self.scores(np.arange(self.n), lo=0)

    def mistakes(self, s, ys):
        return _mistakes(s, ys, self.tie)

    def update(self, i: int, y: int, out: int, s_i=None, t: int = 0):
        if self.exact:
            step = self.w_step * y if not self.half else self.half_step * (y - out)
            self.W = self.W + step * self.X[i]
            if self.has_bias:
                self.B += self.b_step * y
            if not self.big:
                if not _fits(self.maxabs_x, _maxabs(self.W), self.d, abs(self.B) + abs(self.b_step)):
                    self._to_big()
        else:
            c = self.eta * y if not self.half else 0.5 * self.eta * (y - out)
            self.W += self.X[i] * c
            if self.has_bias:
                # b += eta y R^2 (novikoff) or b += eta y (sklearn, as its intercept update)
                self.B += self.eta * y * self.b_step if self.b_step != 1.0 else self.eta * y

    def weights(self):
        """(w, b) as the recorder stores them: exact numerators or floats."""
        return self.W.copy(), (self.B if self.has_bias else None)

    def errors(self, W, B) -> int:
        saveW, saveB = self.W, self.B
        self.W, self.B = W, B
        s = self.all_scores()
        self.W, self.B = saveW, saveB
        return int(np.count_nonzero(_outs(s, self.tie) != self._y))

    def final(self):
        if self.exact:
            w = [Fraction(int(v), self.S) for v in self.W]
            b = Fraction(int(self.B), self.S * self.D) if self.has_bias else None
        else:
            w = [float(v) for v in self.W]
            b = float(self.B) if self.has_bias else None
        return w, b


class _Dual:
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
        return _mistakes(s, ys, self.tie)

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


def _mistakes(s, ys, tie: int) -> np.ndarray:
    """out != y with out = sign(s), sign(0) = tie; for tie = 0 that is y s <= 0."""
    if tie == 0:
        return (s * ys) <= 0
    return _outs(s, tie) != ys


def _outs(s, tie: int) -> np.ndarray:
    out = np.sign(s).astype(np.int64) if s.dtype != object else np.array([(v > 0) - (v < 0) for v in s], dtype=np.int64)
    if tie != 0:
        out[out == 0] = tie
    return out


# --------------------------------------------------------------------------- the loop

def _check_params(params: Params, var):
    if var is None:
        raise ParamError(f"unknown variant {params.variant!r}; choose one of {', '.join(VARIANTS)}, "
                         "or declare it in a variant file (--variants FILE)")
    if getattr(var, "declared", False):
        _check_declared(params, var)
        return
    if params.declared:
        raise ParamError(f"--set gives the parameters of a declared variant; {params.variant} is built in")
    _check_common(params)
    if params.variant in ("slides", "pocket") and Fraction(params.eta) > 1:
        raise ParamError(f"the {params.variant} variant takes --eta in (0, 1], got {params.eta}")
    if params.form == "half" and not var.half_form:
        raise ParamError(f"--form half (1/2 eta (y - out) x) belongs to the sign variant, not {params.variant}")
    if params.form not in ("yx", "half"):
        raise ParamError(f"form must be yx or half, got {params.form!r}")
    if params.variant == "sklearn" and params.order != "cyclic":
        raise ParamError("the sklearn variant runs in data order: use --order cyclic")
    if var.dual and (params.w0 is not None or params.b0 is not None):
        raise ParamError("the kernel variant starts from alpha = 0; initial weights do not apply")
    _parse_order(params.order)
    _check_budgets(params, ("max_epochs", "max_updates", "max_visits", "patience"))
    if params.kernel not in ("linear", "poly", "rbf"):
        raise ParamError(f"--kernel must be linear, poly or rbf, not {params.kernel!r}")
    if params.kernel != "linear" and not var.dual:
        raise ParamError(f"--kernel {params.kernel} needs the kernel variant")
    if not 1 <= params.degree <= MAX_DEGREE:
        raise ParamError(f"--degree must be in 1..{MAX_DEGREE} (perceptron.run.MAX_DEGREE), got {params.degree}")
    if Fraction(params.rbf_gamma) <= 0:
        raise ParamError(f"--rbf-gamma must be positive, got {params.rbf_gamma}")
    if params.patience is not None and not (var.pocket or params.variant == "slides"):
        raise ParamError("--patience belongs to the slides and pocket variants")


def _check_common(params: Params):
    """What every variant, built in or declared, requires of its parameters."""
    if params.arithmetic not in ("exact", "float"):
        raise ParamError(f"arithmetic must be exact or float, not {params.arithmetic!r}")
    if Fraction(params.eta) <= 0:
        raise ParamError(f"--eta must be positive, got {params.eta}")
    if params.sign0 not in (-1, 0, 1):
        raise ParamError(f"--sign0 must be -1, 0 or +1, got {params.sign0}")
    if params.augment not in (None, "first", "last"):
        raise ParamError(f"augment must be first or last, got {params.augment!r}")


def _check_budgets(params: Params, names):
    for name in names:
        v = getattr(params, name)
        if v is not None and v < 0:
            raise ParamError(f"--{name.replace('_', '-')} must be >= 0, got {v}")


def _check_declared(params: Params, decl):
    _check_common(params)
    for name, default in _DECLARED_DEFAULTS.items():
        if getattr(params, name) != default:
            raise ParamError(f"--{name} belongs to the built-in variants; a declaration states its own rule")
    kind, _ = _parse_order(params.order)
    if kind not in decl.orders:
        raise ParamError(f"the declared variant {decl.name} supports the orders {', '.join(decl.orders)}, not {params.order}")
    _check_budgets(params, ("max_epochs", "max_updates", "max_visits"))
    known = dict(decl.parameters)
    for name, _ in params.declared:
        if name not in known:
            raise ParamError(f"{decl.name} has no parameter {name!r}"
                             + (f" (its parameters: {', '.join(known)})" if known else " (it declares none)"))


def declared_constants(ds: Dataset, params: Params, X, D, decl) -> dict:
    """The constants a declaration's expressions may name: eta, n, d, R2, R (when rational, or
    in float), and the declared parameters (their defaults, overridden by the run's --set)."""
    out = {"eta": Fraction(params.eta), "n": Fraction(ds.n), "d": Fraction(X.shape[1])}
    if not _names_used(decl) & {"R", "R2"}:
        pass  # R and R2 cost a pass over the data: only for declarations that name them
    elif params.arithmetic == "exact":
        big = X.dtype == object or _maxabs(X) ** 2 * max(X.shape[1], 1) >= INT64_SAFE
        sq = (X.astype(object) ** 2).sum(axis=1) if big else np.einsum("ij,ij->i", X, X)
        r2 = Fraction(max((int(v) for v in sq), default=0), D * D)
        out["R2"] = r2
        p, q = math.isqrt(r2.numerator), math.isqrt(r2.denominator)
        if p * p == r2.numerator and q * q == r2.denominator:
            out["R"] = Fraction(p, q)
        elif _names_used(decl) & {"R"}:
            raise ParamError(f"R = sqrt({format_rational(r2)}) is irrational: an exact run of {decl.name} cannot hold it; "
                             "run it with --float")
    else:
        r2f = float(np.max(np.cumsum(X * X, axis=1)[:, -1])) if X.size else 0.0
        out["R2"], out["R"] = r2f, math.sqrt(r2f)
    out.update(dict(decl.parameters))
    out.update(dict(params.declared))
    return out


def _names_used(decl) -> set:
    used = set(decl.score.names) | set(decl.mistake.names)
    for _, c in decl.state + decl.update + decl.outputs:
        used |= set(c.names)
    return used


def _parse_order(order: str):
    if order in ("first", "cyclic", "max-violation"):
        return order, None
    if order.startswith("sequence:"):
        body = order.split(":", 1)[1]
        try:
            seq = [int(v) for v in body.split(",")] if body else []
        except ValueError:
            raise ParamError(f"sequence order needs comma-separated point indices, as sequence:0,2,1; got {order!r}") from None
        if any(v < 0 for v in seq):
            raise ParamError("sequence indices are 0-based and non-negative")
        return "sequence", seq
    if order.startswith("random:"):
        seed = order.split(":", 1)[1]
        if not seed.isdigit():
            raise ParamError(f"random order needs an integer seed, as random:SEED; got {order!r}")
        return "random", int(seed)
    raise ParamError(f"unknown order {order!r}; choose first, cyclic, random:SEED, max-violation or sequence:I,J,...")


def train(ds: Dataset, params: Params, recorder=None) -> Result:
    """Run ``params.variant`` on ``ds``.  ``recorder`` (see perceptron.trace) receives every
    visit; with none, nothing is recorded."""
    var = variant_of(params.variant)
    _check_params(params, var)
    X, D = prepare_inputs(ds, params)
    declared = getattr(var, "declared", False)
    if declared:
        from ._declared_model import DeclaredModel, DeclaredError

        try:
            model = DeclaredModel(var, ds, params, X, D, declared_constants(ds, params, X, D, var))
        except DeclaredError as e:
            raise ParamError(f"{var.name}: {e}") from None
    else:
        model = _Dual(ds, params, X, D) if var.dual else _Primal(ds, params, X, D)
    if declared:
        try:
            with np.errstate(over="ignore", invalid="ignore"):  # an overflowing float state is an error below
                return _loop(ds, params, var, model, X, recorder)
        except DeclaredError as e:
            raise ParamError(f"{var.name}: {e}") from None
    return _loop(ds, params, var, model, X, recorder)


def _loop(ds: Dataset, params: Params, var, model, X, recorder) -> Result:
    declared = getattr(var, "declared", False)
    y = ds.y.astype(np.int64)
    n = ds.n
    tie = model.tie
    exact = params.arithmetic == "exact"
    order, seed = _parse_order(params.order)
    rng = np.random.default_rng(seed) if order == "random" else None
    if order == "sequence" and any(j >= ds.n for j in seed):
        raise ParamError(f"sequence names point {max(seed)}; the dataset has {ds.n} points (0-based)")

    if recorder is not None:
        recorder.begin(_header(ds, params, model, X))

    k = 0
    t = 0  # visits so far
    epoch = 0
    converged = False
    stop = None
    unchanged = 0  # visits since w last changed
    # pocket state
    run = run_pocket = 0
    pocket_W, pocket_B = (model.weights() if var.pocket else (None, None))
    max_visits = params.max_visits

    def do_update(i, s_i):
        nonlocal k, run, run_pocket, pocket_W, pocket_B
        out = _sgn(s_i, tie)
        replaced = False
        if var.pocket and run > run_pocket:
            cand_W, cand_B = model.weights()
            if not params.ratchet or model.errors(cand_W, cand_B) < model.errors(pocket_W, pocket_B):
                pocket_W, pocket_B, run_pocket = cand_W, cand_B, run
                replaced = True
        model.update(i, int(y[i]), out, s_i, t)
        k += 1
        run = 0
        return replaced

    def emit(idx, s, mist, upd, replaced=False, ys=None):
        if recorder is None:
            return
        recorder.visits(t - len(idx) + 1, epoch, idx, y[idx] if ys is None else ys, s, mist,
                        k - 1 if upd else k, model.weights() if upd else None, replaced)

    if order in ("cyclic", "random"):
        block = BLOCK_MIN * 4
        gap_est = float(block)
        while True:
            if epoch >= params.max_epochs:
                stop = "max_epochs"
                break
            if k >= params.max_updates:
                stop = "max_updates"
                break
            epoch += 1
            perm = rng.permutation(n) if rng is not None else None
            pos = 0
            epoch_mistakes = 0
            while pos < n:
                m = min(block, n - pos)
                if max_visits is not None:
                    m = min(m, max_visits - t)
                    if m <= 0:
                        stop = "max_visits"
                        break
                if perm is not None:
                    idx = perm[pos:pos + m]
                    s = model.scores(idx)
                    ys = y[idx]
                else:
                    idx = np.arange(pos, pos + m)
                    s = model.scores(idx, lo=pos)
                    ys = y[pos:pos + m]
                mist = model.mistakes(s, ys)
                hits = np.flatnonzero(mist)
                if params.patience is not None:
                    room = params.patience - unchanged
                    if hits.size == 0 or hits[0] >= room:
                        if m >= room:
                            j = room
                            t += j
                            unchanged += j
                            run += j
                            emit(idx[:j], s[:j], mist[:j], False, ys=ys[:j])
                            stop = "unchanged"
                            break
                if hits.size == 0:
                    t += m
                    unchanged += m
                    run += m
                    emit(idx, s, mist, False, ys=ys)
                    pos += m
                    # no mistake yet: the gap is at least `unchanged`; grow toward its balance point
                    target = math.sqrt(2 * BLOCK_OVERHEAD_ROWS * max(gap_est, unchanged))
                    block = int(min(BLOCK_MAX, 2 * block, max(block, target)))
                    continue
                j = int(hits[0])
                t += j + 1
                run += j
                i = int(idx[j])
                replaced = do_update(i, s[j])
                gap_est = 0.7 * gap_est + 0.3 * (unchanged + j + 1)
                unchanged = 0
                epoch_mistakes += 1
                emit(idx[:j + 1], s[:j + 1], mist[:j + 1], True, replaced, ys=ys[:j + 1])
                pos += j + 1
                # Rows scored past the next mistake are wasted, and each block costs a fixed
                # overhead worth about BLOCK_OVERHEAD_ROWS rows: with gaps of mean g between
                # mistakes, a block of sqrt(2 * overhead * g) balances the two.
                block = int(max(BLOCK_MIN, min(2 * gap_est, math.sqrt(2 * BLOCK_OVERHEAD_ROWS * gap_est))))
                if k >= params.max_updates:
                    stop = "max_updates"
                    break
            if stop is not None:
                break
            if epoch_mistakes == 0 and not (declared and var.stop == "epochs"):
                converged = True
                stop = "converged"
                break
    elif order == "sequence":  # the updates are given: each must be on a misclassified point
        for step, j in enumerate(seed, 1):
            s = model.all_scores()
            mist = model.mistakes(s, y)
            if not mist[j]:
                raise ParamError(f"sequence step {step}: point {j} is correctly classified (score {s[j]}, y = {int(y[j])}); "
                                 "the algorithm only updates on a misclassified point")
            epoch = step
            t += 1
            run_replaced = do_update(j, s[j])
            emit(np.array([j]), s[j:j + 1], mist[j:j + 1], True, run_replaced)
        s = model.all_scores()
        converged = not model.mistakes(s, y).any()
        stop = "converged" if converged else "sequence_end"
    else:  # first, max-violation: every step looks at all points
        while True:
            s = model.all_scores()
            mist = model.mistakes(s, y)
            hits = np.flatnonzero(mist)
            epoch += 1
            if hits.size == 0:
                m = n if max_visits is None else max(0, min(n, max_visits - t))
                t += m
                run += m
                emit(np.arange(m), s[:m], mist[:m], False)
                if m == n:
                    converged, stop = True, "converged"
                else:
                    stop = "max_visits"
                break
            if k >= params.max_updates:
                stop = "max_updates"
                break
            if epoch > params.max_epochs:
                stop = "max_epochs"
                epoch -= 1
                break
            if order == "first":
                j = int(hits[0])
                if max_visits is not None and t + j + 1 > max_visits:
                    stop = "max_visits"
                    break
                t += j + 1
                run += j
                replaced = do_update(j, s[j])
                emit(np.arange(j + 1), s[:j + 1], mist[:j + 1], True, replaced)
            else:
                margins = s[hits] * y[hits]
                j = int(hits[int(np.argmin(margins))])
                if max_visits is not None and t + 1 > max_visits:
                    stop = "max_visits"
                    break
                t += 1
                replaced = do_update(j, s[j])
                emit(np.array([j]), s[j:j + 1], mist[j:j + 1], True, replaced)

    if stop in ("unchanged",) or (stop != "converged" and var.pocket) or (declared and var.stop == "epochs"):
        s = model.all_scores()
        converged = not model.mistakes(s, y).any()
    w_pocket = None
    if var.pocket:
        if run > run_pocket:
            pocket_W, pocket_B = model.weights()
            run_pocket = run
        w_pocket = ([Fraction(int(v), model.S) for v in pocket_W] if exact else [float(v) for v in pocket_W])
    w, b = model.final()
    alpha = [int(a) for a in model.alpha] if var.dual else None
    res = Result(params.variant, params.arithmetic, w, b, alpha, k, epoch, t, converged, stop,
                 ds.sha256, w_pocket, params.augment)
    if var.pocket:
        res.extra["run_pocket"] = int(run_pocket)
    if declared and var.outputs:
        fmt = format_rational if exact else float
        res.extra["outputs"] = {o: ([fmt(a) for a in v] if isinstance(v, list) else fmt(v))
                                for o, v in model.outputs(t, epoch).items()}
    if recorder is not None:
        recorder.end(res)
    return res


def _sgn(v, tie):
    return 1 if v > 0 else -1 if v < 0 else tie


def _header(ds: Dataset, params: Params, model, X) -> dict:
    exact = params.arithmetic == "exact"
    h = {
        "variant": params.variant,
        "params": params.to_json(),
        "arithmetic": params.arithmetic,
        "dataset": {"sha256": ds.sha256, "name": ds.name, "n": ds.n, "d": ds.d,
                    "label_map": ds.label_map},
        "model_dim": int(X.shape[1]),
        "dual": isinstance(model, _Dual),
    }
    if getattr(model, "declared", False):
        h["declaration"] = model.decl.source  # exact values are written "p/q": no common scale
        return h
    if exact:
        if isinstance(model, _Dual):
            h["scale"] = {"score": str(model.score_den)}
        else:
            h["scale"] = {"score": str(model.score_den), "w": str(model.S), "b": str(model.S * model.D)}
    elif getattr(model, "X32", None) is not None:
        h["scores"] = "float32-screened"  # a recorded score is within error_scale32 |x| |w| of the exact one
    return h
