"""Separability certificates, computed numerically and re-verified exactly.

Separable: a separator (w_opt, b_opt) with |w_opt| = 1 exactly (a rational point of the unit
sphere, by inverse stereographic projection of the numerical optimum) and the exact margin
gamma = min_i y_i (w_opt.x_i + b_opt) > 0.  gamma is exact for this separator and a certified
lower bound on the maximum margin; ``gamma_numeric`` is the solver's maximum, for comparison.

Non-separable (Gordan): lambda >= 0, not all zero, with sum_i lambda_i y_i x_i = 0 (x_i
augmented by 1 for the bias form), exact rationals, verified.

Anything the exact check does not confirm is reported as ``unknown``, never as either.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from perceptron.generators import rational_unit_vector

__all__ = ["Certificate", "certify_points"]

#: Largest n * d for which the maximum-margin QP (SLSQP) is solved; above it the LP separator
#: is used as is (still a valid, exactly checked separator, just not the widest).
QP_MAX_SIZE = 20000
#: Denominator limits tried, in order, when rounding the separator to rationals.
DENOMINATORS = (10**4, 10**6, 10**9, 10**12)
#: lambda_i below this (relative to max lambda) are taken as outside the support.
SUPPORT_TOL = 1e-9


@dataclass
class Certificate:
    kind: str  # "separable", "nonseparable", "unknown"
    bias: bool
    w_opt: list | None = None
    b_opt: Fraction | None = None
    gamma: Fraction | None = None
    gamma_numeric: float | None = None
    method: str = ""
    lam: list | None = None
    reason: str = ""
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        from perceptron._numbers import format_rational as f

        out = {"kind": self.kind, "bias": self.bias, "method": self.method}
        if self.kind == "separable":
            out.update({"w_opt": [f(v) for v in self.w_opt], "b_opt": f(self.b_opt), "gamma": f(self.gamma),
                        "gamma_float": float(self.gamma)})
            if self.gamma_numeric:
                out["gamma_numeric_max"] = self.gamma_numeric
                out["gamma_ratio_to_numeric_max"] = float(self.gamma) / self.gamma_numeric
        elif self.kind == "nonseparable":
            out["lambda"] = [f(v) for v in self.lam]
            out["support"] = [i for i, v in enumerate(self.lam) if v]
        else:
            out["reason"] = self.reason
        return out


def _exact_margin(rows, y, w, b) -> Fraction:
    return min(yi * (sum(a * c for a, c in zip(w, x)) + b) for x, yi in zip(rows, y))


def _unit_rational(u: np.ndarray, limit: int) -> list[Fraction]:
    """A rational vector of norm exactly 1 near the float unit vector u."""
    d = len(u)
    if d == 1:
        return [Fraction(1 if u[0] >= 0 else -1)]
    last = u[-1]
    flip = last > 0  # project from the pole farther from u, for accuracy
    denom = 1 + last if flip else 1 - last
    t = [Fraction(float(v / denom)).limit_denominator(limit) for v in u[:-1]]
    w = rational_unit_vector(t)
    if flip:
        w[-1] = -w[-1]
    return w


def certify_points(rows: list[list[Fraction]], y: list[int], *, bias: bool) -> Certificate:
    """Certificate for points ``rows`` (exact) with labels ``y`` in {-1, +1}."""
    from scipy.optimize import linprog  # imported here: the CLI's start-up stays light

    n, d = len(rows), len(rows[0])
    Xf = np.array([[float(v) for v in r] for r in rows])
    yf = np.array(y, dtype=float)
    scale = float(np.abs(Xf).max()) or 1.0
    Xs = Xf / scale
    # LP feasibility: y_i (w.x_i + b) >= 1 with w, b free
    A = -(yf[:, None] * (np.hstack([Xs, np.ones((n, 1))]) if bias else Xs))
    nv = d + (1 if bias else 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lp = linprog(np.zeros(nv), A_ub=A, b_ub=-np.ones(n), bounds=[(None, None)] * nv, method="highs")
    if lp.status == 0:
        v = lp.x
        method = "LP (HiGHS)"
        gnum = None
        if n * d <= QP_MAX_SIZE:
            v, gnum, ok = _max_margin(Xs, yf, bias, v)
            if ok:
                method = "max-margin QP (SLSQP)"
        cert = _round_separator(rows, y, v, bias, scale)
        if cert is not None:
            cert.method = method
            if gnum is not None:
                cert.gamma_numeric = gnum * scale
            return cert
        return Certificate("unknown", bias, method=method, reason="the numerical separator did not survive rounding to rationals")
    if lp.status == 2:
        return _gordan(rows, y, bias)
    return Certificate("unknown", bias, method="LP (HiGHS)", reason=f"LP solver status {lp.status}: {lp.message}")


def _max_margin(Xs, yf, bias, v0):
    """Hard-margin SVM: min |w|^2 / 2 s.t. y_i (w.x_i + b) >= 1; margin 1/|w|."""
    from scipy.optimize import minimize

    n, d = Xs.shape
    Y = yf[:, None] * (np.hstack([Xs, np.ones((n, 1))]) if bias else Xs)
    nw = d

    def f(v):
        return 0.5 * float(np.dot(v[:nw], v[:nw]))

    def g(v):
        out = np.zeros_like(v)
        out[:nw] = v[:nw]
        return out

    cons = {"type": "ineq", "fun": lambda v: Y @ v - 1.0, "jac": lambda v: Y}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = minimize(f, v0, jac=g, constraints=[cons], method="SLSQP", options={"maxiter": 500, "ftol": 1e-12})
    v = res.x if res.success and np.min(Y @ res.x) > 0 else v0
    wn = float(np.linalg.norm(v[:nw]))
    return v, (1.0 / wn if res.success and wn > 0 else None), bool(res.success)


def _round_separator(rows, y, v, bias, scale):
    d = len(rows[0])
    w = np.asarray(v[:d], dtype=float)
    wn = float(np.linalg.norm(w))
    if wn == 0:
        return None
    u = w / wn
    b = (float(v[d]) / wn * scale) if bias else 0.0  # unscale: w.x/scale + b' = (w.x + b' scale)/scale
    for limit in DENOMINATORS:
        w_opt = _unit_rational(u, limit)
        b_opt = Fraction(b).limit_denominator(limit) if bias else Fraction(0)
        gamma = _exact_margin(rows, y, w_opt, b_opt)
        if gamma > 0:
            assert sum(c * c for c in w_opt) == 1
            return Certificate("separable", bias, w_opt=w_opt, b_opt=b_opt, gamma=gamma)
    return None


def _gordan(rows, y, bias) -> Certificate:
    from scipy.optimize import linprog

    n, d = len(rows), len(rows[0])
    M = np.array([[float(yi * v) for v in r] + ([float(yi)] if bias else []) for r, yi in zip(rows, y)]).T
    A_eq = np.vstack([M, np.ones((1, n))])
    b_eq = np.concatenate([np.zeros(M.shape[0]), [1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lp = linprog(np.zeros(n), A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * n, method="highs-ds")
    if lp.status != 0:
        return Certificate("unknown", bias, method="Gordan LP (HiGHS)", reason=f"no separator and no Gordan certificate found ({lp.message})")
    lam = lp.x
    support = [i for i in range(n) if lam[i] > SUPPORT_TOL * max(lam.max(), 1e-300)]
    exact = _exact_null_combination(rows, y, bias, support, lam)
    if exact is None:
        return Certificate("unknown", bias, method="Gordan LP (HiGHS)", reason="the Gordan multipliers did not survive exact rounding")
    return Certificate("nonseparable", bias, lam=exact, method="Gordan LP (HiGHS) + exact nullspace")


def _exact_null_combination(rows, y, bias, support, lam_f):
    """lambda >= 0 on ``support`` with sum lambda_i y_i xhat_i = 0 and sum lambda = 1, exactly."""
    import sympy

    cols = [[Fraction(y[i]) * v for v in rows[i]] + ([Fraction(y[i])] if bias else []) for i in support]
    M = sympy.Matrix([[sympy.Rational(c.numerator, c.denominator) for c in col] for col in cols]).T
    basis = M.nullspace()
    if not basis:
        return None
    target = np.array([lam_f[i] for i in support])
    B = np.array([[float(v) for v in b] for b in basis]).T  # |S| x k
    coef, *_ = np.linalg.lstsq(B, target, rcond=None)
    candidates = [[Fraction(c).limit_denominator(10**6) for c in coef]]
    if len(basis) == 1:
        candidates += [[Fraction(1)], [Fraction(-1)]]
    for cs in candidates:
        vec = [sum((Fraction(str(basis[j][r])) * cs[j] for j in range(len(basis))), Fraction(0)) for r in range(len(support))]
        if any(v < 0 for v in vec) or not any(vec):
            continue
        total = sum(vec)
        vec = [v / total for v in vec]
        lam = [Fraction(0)] * len(rows)
        for i, v in zip(support, vec):
            lam[i] = v
        if _verify_gordan(rows, y, bias, lam):
            return lam
    return None


def _verify_gordan(rows, y, bias, lam) -> bool:
    if any(v < 0 for v in lam) or not any(lam):
        return False
    d = len(rows[0])
    for j in range(d):
        if sum(l * yi * r[j] for l, yi, r in zip(lam, y, rows)) != 0:
            return False
    if bias and sum(l * yi for l, yi in zip(lam, y)) != 0:
        return False
    return True


def verify(cert: Certificate, rows, y) -> bool:
    """Re-check a certificate exactly against the points (used before any claim relies on it)."""
    if cert.kind == "separable":
        return (sum(c * c for c in cert.w_opt) == 1 and cert.gamma > 0
                and _exact_margin(rows, y, cert.w_opt, cert.b_opt) == cert.gamma)
    if cert.kind == "nonseparable":
        return _verify_gordan(rows, y, cert.bias, cert.lam)
    return False
