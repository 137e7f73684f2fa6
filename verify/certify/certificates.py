"""Separability certificates: a tight, certified interval [gamma_lo, gamma_hi] around the
maximum margin, or a verified proof that no separator exists.

The maximum margin gamma* of points x_i with labels y_i (through the origin:
max_{|w|=1} min_i y_i w.x_i; with a bias: max_{|w|=1, b} min_i y_i (w.x_i + b)) is, by
minimax duality, the distance from 0 to the convex hull of the y_i x_i (with a bias: half the
distance between the two classes' hulls).  One QP (clarabel, an interior-point conic solver)
solves that dual for the weights lambda; everything after it is exact:

* gamma_hi: lambda rounded to rationals (>= 0, summing exactly to 1 per hull) gives a point z
  of the hull(s) and gamma* <= |z| (with a bias |z|/2): for any unit w,
  min_i y_i w.x_i <= sum_i lambda_i y_i w.x_i = w.z <= |z|.  gamma_hi = sqrt(|z|^2) exactly.
* gamma_lo: the direction of z rounded to an integer vector v; its exact unnormalised margin
  m = min_i y_i (v.x_i + c) (with a bias, c centred exactly between the classes) gives the
  separator w_opt = v/|v|, b_opt = c/|v| and gamma = gamma_lo = m/|v| <= gamma*.  Exact:
  |w_opt| = 1 holds as a surd identity, gamma_lo is m (rational) over sqrt(|v|^2).
* Non-separable (Gordan): lambda >= 0, not all zero, with sum_i lambda_i y_i x_i = 0 (x_i
  augmented by 1 for the bias form), exact rationals, verified.

Anything the exact check does not confirm is reported as ``unknown``, never as either.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from verify.certify.qp import dual_qp, floats_of, hull_point, products
from verify.numbers import exact as X

__all__ = ["Certificate", "certify", "certify_points", "alternative_separator", "verify"]

#: Most points whose n x n Gram matrix the dual QP builds (n^2 doubles: 200 MB at the limit).
#: Above it the certificate is "unknown: limit reached" rather than an unbounded allocation.
MAX_QP_POINTS = 5000
#: Bits of the integer separator v tried in turn until gamma_lo/gamma_hi >= TARGET_RATIO.
SEPARATOR_BITS = (16, 24, 32, 44)
#: The tightness the rounding aims for (the interval is reported whatever it is).
TARGET_RATIO = 0.9999
#: lambda is rounded to integers over 2**LAMBDA_BITS before exact normalisation.
LAMBDA_BITS = 40
#: lambda_i below this (relative to max lambda) are taken as outside the support.
SUPPORT_TOL = 1e-9


@dataclass
class Certificate:
    kind: str  # "separable", "nonseparable", "unknown"
    bias: bool
    v: list | None = None  # integer separator (scaled inputs): w_opt = v/|v| (with unit: the unit rationals)
    c: Fraction | None = None  # its bias in the same units: b_opt = c/|v|
    m: Fraction | None = None  # its unnormalised margin min_i y_i (v.x_i + c)
    gamma_hi: object = None  # a Surd or Fraction: certified upper bound on the maximum margin
    unit: list | None = None  # optional: v rescaled to an exactly unit-norm rational vector (then |v| = 1)
    method: str = ""
    lam: list | None = None
    reason: str = ""
    extra: dict = field(default_factory=dict)

    # the separator normalised (exact; w_opt a Vec whose norm is 1 as a surd identity)
    @property
    def norm_v(self):
        """|v| exactly (computed once: claims read it at every use of w_opt, b_opt and gamma)."""
        def make():
            vs = [Fraction(a) for a in self.v]
            den = math.lcm(*[a.denominator for a in vs]) if vs else 1
            nums = [int(a * den) for a in vs]
            return X.sqrt(Fraction(sum(a * a for a in nums), den * den))

        return self._once("_norm_v", make)

    def _once(self, name, make):
        """A derived exact value computed once (kept outside the fields: equality and to_json
        ignore it); certificates are not changed after they are made."""
        got = self.__dict__.get(name)
        if got is None:
            got = self.__dict__[name] = make()
        return got

    @property
    def w_opt(self):
        return self._once("_w_opt", lambda: X.vec_from_fractions(self.v) if self.unit else X.unit_direction(self.v))

    @property
    def b_opt(self):
        return self._once("_b_opt", lambda: X.div(self.c, self.norm_v))

    @property
    def gamma(self):
        """gamma_lo: the exact margin of (w_opt, b_opt), a lower bound on the maximum margin."""
        return self._once("_gamma", lambda: X.div(self.m, self.norm_v))

    def ratio(self) -> float | None:
        """gamma_lo / gamma_hi (<= 1), from exact squares."""
        if self.kind != "separable" or self.gamma_hi is None:
            return None
        lo2 = X.mul(self.gamma, self.gamma)
        hi2 = X.mul(self.gamma_hi, self.gamma_hi)
        return math.sqrt(X.to_float(X.div(lo2, hi2)))

    def to_json(self) -> dict:
        from perceptron._numbers import format_rational as f

        out = {"kind": self.kind, "bias": self.bias, "method": self.method}
        if self.kind == "separable":
            out.update({"v_opt": [f(Fraction(a)) for a in self.v], "c_opt": f(self.c), "m_opt": f(self.m),
                        "w_opt": "v_opt (exactly unit-norm)" if self.unit else "v_opt/|v_opt|",
                        "gamma_lo": _exact_text(self.gamma), "gamma_lo_float": X.to_float(self.gamma)})
            if self.gamma_hi is not None:
                out.update({"gamma_hi": _exact_text(self.gamma_hi), "gamma_hi_float": X.to_float(self.gamma_hi),
                            "gamma_lo_over_gamma_hi": round(self.ratio(), 9)})
        elif self.kind == "nonseparable":
            out["lambda"] = [f(v) for v in self.lam]
            out["support"] = [i for i, v in enumerate(self.lam) if v]
        else:
            out["reason"] = self.reason
        return out


    def state(self) -> dict:
        """The certificate's exact fields as JSON (every number a "p/q" string): from_state
        makes an equal certificate of it, so a cached one is the one computed."""
        def q(v):
            return None if v is None else str(Fraction(v))

        g = self.gamma_hi
        return {"kind": self.kind, "bias": self.bias, "method": self.method, "reason": self.reason,
                "v": None if self.v is None else [q(a) for a in self.v], "c": q(self.c), "m": q(self.m),
                "unit": bool(self.unit), "lam": None if self.lam is None else [q(a) for a in self.lam],
                "gamma_hi": None if g is None else [[m, q(c)] for m, c in sorted(g.terms.items())]
                if isinstance(g, X.Surd) else [[1, q(g)]],
                "hull_weights": [str(v) for v in self.extra.get("hull_weights", [])] or None}

    @classmethod
    def from_state(cls, st: dict) -> "Certificate":
        """The certificate of ``state()``; ValueError for anything that is not one."""
        try:
            def q(v):
                if not isinstance(v, str) or len(v) > 100_000:
                    raise ValueError("not an exact number")
                return Fraction(v)

            def qs(vs):
                if vs is None:
                    return None
                if not isinstance(vs, list):
                    raise ValueError("not a list")
                return [q(a) for a in vs]

            if st["kind"] not in ("separable", "nonseparable", "unknown") or not isinstance(st["bias"], bool):
                raise ValueError("not a certificate")
            if (st["kind"] == "separable" and None in (st["v"], st["c"], st["m"])) or \
                    (st["kind"] == "nonseparable" and st["lam"] is None):
                raise ValueError(f"a {st['kind']} certificate without its {'separator' if st['lam'] else 'multipliers'}")
            hull = st["hull_weights"]
            if hull is not None and (not isinstance(hull, list) or not all(isinstance(v, str) and v.isdigit() for v in hull)):
                raise ValueError("hull weights are non-negative integers")
            g = st["gamma_hi"]
            gamma_hi = None if g is None else X.Surd.make({int(m): q(c) for m, c in g})
            v = qs(st["v"])
            return cls(st["kind"], st["bias"], v=None if v is None else [int(a) if a.denominator == 1 and not st["unit"]
                                                                          else a for a in v],
                       c=None if st["c"] is None else q(st["c"]), m=None if st["m"] is None else q(st["m"]),
                       gamma_hi=gamma_hi, unit=True if st["unit"] else None, method=str(st["method"]), lam=qs(st["lam"]),
                       reason=str(st["reason"]), extra={} if hull is None else {"hull_weights": [int(v) for v in hull]})
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
            raise ValueError(f"not a certificate's state: {e}") from None


# --------------------------------------------------------------------------- exact helpers

def _exact_text(v) -> str:
    """An exact value as results print it: "p/q", or a sum of square roots (repr of Surd)."""
    from perceptron._numbers import format_rational

    return repr(v) if isinstance(v, X.Surd) else format_rational(Fraction(v))


def _margin(s: list[int], y, bias: bool, D: int):
    """Unnormalised margin of the integer separator with products s_i = v.Xn_i: (c, m) in the
    inputs' units (x = Xn / D), c centred exactly between the classes when ``bias``."""
    if not bias:
        return Fraction(0), Fraction(min(yi * si for yi, si in zip(y, s)), D)
    pos = [si for yi, si in zip(y, s) if yi > 0]
    neg = [si for yi, si in zip(y, s) if yi < 0]
    if not pos or not neg:  # one class: the plane can be put beyond every point
        sigma = 1 if pos else -1
        t = min(yi * si for yi, si in zip(y, s))
        shift = max(0, 1 - t)
        return Fraction(sigma * shift, D), Fraction(t + shift, D)
    c = -Fraction(min(pos) + max(neg), 2)
    return c / D, (Fraction(min(pos) - max(neg), 2)) / D


# --------------------------------------------------------------------------- certify

def certify(Xn: np.ndarray, D: int, y, *, bias: bool) -> Certificate:
    """Certificate for the points x_i = Xn[i] / D (Xn an integer array) with labels y (+-1)."""
    y = [int(v) for v in y]
    n, d = Xn.shape
    if n > MAX_QP_POINTS:
        return Certificate("unknown", bias, method="limit", reason=f"unknown: limit reached: {n} points; the max-margin QP "
                           f"is limited to {MAX_QP_POINTS} (MAX_QP_POINTS: its Gram matrix has n^2 entries)")
    if not any(int(a) for a in np.asarray(Xn).ravel()) and not bias:
        return _gordan(Xn, D, y, bias)
    lam, status = dual_qp(Xn, D, y, bias)
    if lam is not None and bias and len(set(y)) == 2:  # the widest hyperplane itself, exactly
        cert = _widest_certificate(Xn, D, y, lam)
        if cert is not None:
            return cert
    if lam is not None:
        cert = _separable_from_dual(Xn, D, y, bias, lam)
        if cert is not None:
            return cert
    g = _gordan(Xn, D, y, bias)
    if g.kind != "unknown":
        return g
    # the float solvers' answers did not survive exact rounding: decide on the rational data
    ex = _exact_lp(Xn, D, y, bias)
    if ex is not None:
        return ex
    if status:
        g.reason += f" (QP: {status})"
    return g


def _widest_certificate(Xn, D, y, lam) -> Certificate | None:
    """With a bias (and two classes): the maximum-margin hyperplane exactly
    (verify.certify.widest: KKT conditions checked over the rationals), so gamma_lo = gamma_hi =
    1/|w|; its multipliers are the hull weights of gamma_hi.  None where it is not certified."""
    from verify.certify.widest import integer_separator, widest

    rows = [[Fraction(int(a), D) for a in r] for r in Xn]
    got = widest(rows, y, True, hint=lam)
    if got is None:
        return None
    w, b, alpha = got
    v, c, m = integer_separator(w, b)
    den = math.lcm(*[a.denominator for a in alpha])
    weights = [int(a * den) for a in alpha]
    hull = hull_point(Xn, D, y, True, weights)
    if hull is None or hull[2] != 2:
        return None
    cert = Certificate("separable", True, v=v, c=c, m=m, gamma_hi=X.sqrt(hull[1]),
                       method="maximum-margin hyperplane, exact (hard-margin KKT conditions verified over the rationals)",
                       extra={"hull_weights": weights})
    if X.compare(cert.gamma, cert.gamma_hi) != 0:  # the multipliers' hull point is the margin's own bound
        return None
    return cert


#: Hard limit of the exact fallback (seconds) and its size limit (points x coordinates).
EXACT_LP_SECONDS = 30.0
EXACT_LP_CELLS = 20_000


def _exact_lp_child(rows, y, bias, conn):
    """z3's exact simplex over the rationals: a w (and b) with y_i (w.x_i + b) >= 1 for all i,
    else multipliers lambda >= 0, sum 1, with sum lambda_i y_i (x_i, 1) = 0 (Gordan)."""
    import z3

    n, d = len(rows), len(rows[0])
    s = z3.Solver()
    w = [z3.Real(f"w{j}") for j in range(d)]
    b = z3.Real("b") if bias else z3.RealVal(0)
    for r, yi in zip(rows, y):
        s.add(yi * (z3.Sum([z3.RealVal(str(a)) * wj for a, wj in zip(r, w) if a]) + b) >= 1)
    if s.check() == z3.sat:
        m = s.model()
        val = lambda e: Fraction(str(m.eval(e, model_completion=True).as_fraction()))  # noqa: E731
        conn.send(("separable", [val(v) for v in w], val(b) if bias else Fraction(0)))
        return
    s = z3.Solver()
    lam = [z3.Real(f"l{i}") for i in range(n)]
    s.add(*[v >= 0 for v in lam], z3.Sum(lam) == 1)
    for j in range(d):
        s.add(z3.Sum([yi * z3.RealVal(str(r[j])) * li for r, yi, li in zip(rows, y, lam) if r[j]] or [z3.RealVal(0)]) == 0)
    if bias:
        s.add(z3.Sum([yi * li for yi, li in zip(y, lam)]) == 0)
    if s.check() == z3.sat:
        m = s.model()
        conn.send(("nonseparable", [Fraction(str(m.eval(v, model_completion=True).as_fraction())) for v in lam]))
        return
    conn.send(("unknown", "z3 found neither"))


def _exact_lp(Xn, D, y, bias) -> Certificate | None:
    from verify._child import run_in_child

    n, d = Xn.shape
    if n * d > EXACT_LP_CELLS:
        return None
    rows = [[int(a) for a in r] for r in Xn]  # x_i scaled by D > 0: the same signs and feasibility
    got = run_in_child(_exact_lp_child, (rows, [int(v) for v in y], bias), EXACT_LP_SECONDS)
    if got is None or got[0] not in ("separable", "nonseparable"):
        return None
    if got[0] == "separable":
        _, w, b = got
        den = math.lcm(*[a.denominator for a in w], b.denominator)
        v = [int(a * den) for a in w]
        c = b * den / D  # z3 solved on the rows Xn = D x: its b is in those units
        prods = products(Xn, v)
        m = min(yi * (Fraction(si, D) + c) for si, yi in zip(prods, y))
        if m <= 0 or not any(v):
            return None
        return Certificate("separable", bias, v=v, c=c, m=m, method="exact LP (z3 over the rationals)")
    rowsf = [[Fraction(int(a), D) for a in r] for r in Xn]
    lam = got[1]
    if not _verify_gordan(rowsf, y, bias, lam):
        return None
    return Certificate("nonseparable", bias, lam=lam, method="exact LP (z3 over the rationals), Gordan multipliers")


def certify_points(rows, y, *, bias: bool) -> Certificate:
    """The same for rows of Fractions."""
    den = math.lcm(*[Fraction(v).denominator for r in rows for v in r]) if rows else 1
    nums = [[int(Fraction(v) * den) for v in r] for r in rows]
    return certify(np.array(nums, dtype=object).reshape(len(rows), -1), den, y, bias=bias)


def _separable_from_dual(Xn, D, y, bias, lam_f) -> Certificate | None:
    d = Xn.shape[1]
    # lambda rounded: integer weights l_i, normalised exactly per group: lambda_i = l_i / L_g
    top = float(lam_f.max()) or 1.0
    l = [int(round(v / top * 2**LAMBDA_BITS)) for v in lam_f]
    hull = hull_point(Xn, D, y, bias, l)
    if hull is None:
        return None
    znum, z2, hulls = hull
    # with a bias and one class only, the margin is unbounded: no upper bound
    gamma_hi = X.sqrt(z2) if (not bias or hulls == 2) else None
    zf = floats_of(np.array(list(znum), dtype=object).reshape(1, -1), 1)[0]
    zmax = float(np.abs(zf).max())
    if zmax == 0:
        return None
    best = None
    for bits in SEPARATOR_BITS:
        v = [int(round(a / zmax * 2**bits)) for a in zf]
        g = math.gcd(*v)
        if g == 0:
            continue
        v = [a // g for a in v]
        s = products(Xn, v)
        c, m = _margin(s, y, bias, D)
        if m <= 0:
            continue
        cert = Certificate("separable", bias, v=v, c=c, m=m, gamma_hi=gamma_hi,
                           method="max-margin dual QP (clarabel), rounded and verified exactly",
                           extra={"hull_weights": l} if gamma_hi is not None else {})
        best = cert
        r = cert.ratio()
        if r is None or r >= TARGET_RATIO:
            break
    if best is not None and d <= RATIONAL_UNIT_MAX_DIM:
        unit = _rational_unit(best, Xn, D, y, bias)
        if unit is not None:
            return unit
    return best


#: Up to this dimension the separator is also offered as an exactly unit-norm *rational* vector
#: (inverse stereographic projection), whose margin is rational: claims evaluate faster on it
#: than on v/|v| (a surd).  Used only when it is as tight (ratio >= TARGET_RATIO).
RATIONAL_UNIT_MAX_DIM = 16


def _rational_unit(cert, Xn, D, y, bias):
    from perceptron.generators import rational_unit_vector

    u = np.array([float(a) for a in cert.v])
    u = u / np.linalg.norm(u)
    if len(u) == 1:
        return None
    for limit in (10**4, 10**6):
        last = u[-1]
        flip = last > 0  # project from the pole farther from u, for accuracy
        denom = 1 + last if flip else 1 - last
        t = [Fraction(float(a / denom)).limit_denominator(limit) for a in u[:-1]]
        w = rational_unit_vector(t)
        if flip:
            w[-1] = -w[-1]
        den = math.lcm(*[a.denominator for a in w])
        s = products(Xn, [int(a * den) for a in w])
        c, m = _margin(s, y, bias, D)
        c, m = c / den, m / den
        if m <= 0:
            continue
        out = Certificate("separable", bias, v=w, c=c, m=m, gamma_hi=cert.gamma_hi, unit=True,
                          method=cert.method + "; separator as an exactly unit-norm rational vector", extra=cert.extra)
        if out.gamma_hi is None or out.ratio() >= TARGET_RATIO:
            return out
    return None


def alternative_separator(cert: Certificate, Xn, D, y) -> Certificate | None:
    """A second, different separator of the same data (not the widest): the LP feasibility
    separator (HiGHS), rounded to integers and verified exactly.  The audit evaluates claims
    that range over every separator at it as well as at the certified max-margin one."""
    from scipy.optimize import linprog

    if cert.kind != "separable":
        return None
    n, d = Xn.shape
    Xf = floats_of(Xn, D)
    scale = float(np.abs(Xf).max()) or 1.0
    yf = np.array(y, dtype=float)
    A = -(yf[:, None] * (np.hstack([Xf / scale, np.ones((n, 1))]) if cert.bias else Xf / scale))
    nv = d + (1 if cert.bias else 0)
    # a vertex of {y_i (w.x_i + b) >= 1, |w_j| <= 100}, pulled towards the first axis
    cost = np.zeros(nv)
    cost[0] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lp = linprog(cost, A_ub=A, b_ub=-np.ones(n), bounds=[(-100, 100)] * nv, method="highs")
    if lp.status != 0:
        return None
    w = lp.x[:d]
    wmax = float(np.abs(w).max())
    if wmax == 0:
        return None
    for bits in (8, 16, 24, 32):
        v = [int(round(a / wmax * 2**bits)) for a in w]
        g = math.gcd(*v)
        if g == 0:
            continue
        v = [a // g for a in v]
        if v == [int(a) for a in cert.v]:
            return None  # the same direction: nothing new
        c, m = _margin(products(Xn, v), y, cert.bias, D)
        if m > 0:
            return Certificate("separable", cert.bias, v=v, c=c, m=m, method="LP feasibility separator (HiGHS), verified exactly")
    return None


# --------------------------------------------------------------------------- non-separable

def _gordan(Xn, D, y, bias) -> Certificate:
    from scipy.optimize import linprog

    rows = [[Fraction(int(a), D) for a in r] for r in Xn]
    n = len(rows)
    Mx = floats_of(Xn, D)
    M = np.array([[yi * v for v in r] + ([float(yi)] if bias else []) for r, yi in zip(Mx.tolist(), y)]).T
    A_eq = np.vstack([M, np.ones((1, n))])
    b_eq = np.concatenate([np.zeros(M.shape[0]), [1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lp = linprog(np.zeros(n), A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * n, method="highs-ds")
    if lp.status != 0:
        return Certificate("unknown", bias, method="Gordan LP (HiGHS)",
                           reason=f"no exactly verified separator and no Gordan certificate found ({lp.message})")
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


def _gamma_hi_ok(cert, Xn, D, y) -> bool:
    """gamma_hi is |z| for the hull point of its weights (none to check where there is none)."""
    if cert.gamma_hi is None:
        return True
    l = cert.extra.get("hull_weights")
    if not (isinstance(l, list) and len(l) == len(y) and all(type(v) is int and v >= 0 for v in l)):
        return False
    hull = hull_point(Xn, D, [int(v) for v in y], cert.bias, l)
    return hull is not None and (not cert.bias or hull[2] == 2) and X.sign(cert.gamma_hi) > 0 \
        and X.compare(X.mul(cert.gamma_hi, cert.gamma_hi), hull[1]) == 0


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


def verify(cert: Certificate, Xn, D, y) -> bool:
    """Re-check a certificate exactly against the points: a separator's margin, gamma_hi from
    the hull weights it was made of, Gordan's multipliers (a certificate kept from an earlier
    audit is used only if it passes)."""
    if cert.kind == "separable":
        if len(cert.v) != Xn.shape[1] or len(y) != Xn.shape[0]:
            return False
        den = math.lcm(*[Fraction(a).denominator for a in cert.v])
        s = products(Xn, [int(Fraction(a) * den) for a in cert.v])
        real = min(int(yi) * (Fraction(si, D * den) + cert.c) for yi, si in zip(y, s))
        unit_ok = not cert.unit or sum(Fraction(a) ** 2 for a in cert.v) == 1
        return any(cert.v) and unit_ok and real == cert.m and real > 0 and _gamma_hi_ok(cert, Xn, D, y)
    if cert.kind == "nonseparable":
        rows = [[Fraction(int(a), D) for a in r] for r in Xn]
        return _verify_gordan(rows, [int(v) for v in y], cert.bias, cert.lam)
    return False
