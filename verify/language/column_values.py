"""The values of the column evaluator (verify.language.columns): a quantity's exact value at
every row of a block, and their arithmetic.

* ``Rat``: numerator and denominator arrays (int64 while a bound proves nothing wraps, Python
  integers beyond that)
* ``Mono``: values c sqrt(m) (norms, sqrt(k), R, gamma), compared exactly: signs, then c^2 m
* ``VecCol``: an integer matrix over a denominator per row (with extra components and a multiplier)
* ``Obj``: the scalar evaluator's own values, row by row, where the forms above cannot express one
* ``Bools``: conditions

Operations return a column and mark the rows where they are undefined (division by zero, a
limit) in ``bad``; a construct not vectorised raises Unsupported and the claim is evaluated by
the scalar evaluator instead."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from verify.language.expr import MAX_EXACT_BITS, guard, scalar_bin
from verify.numbers import exact as X
from verify.numbers.integers import (
    as_object,
    int_add,
    int_mul,
    maxabs,
    narrow_ints,
    row_dot,
)

#: A step the claim does not speak about (prev before the j-th update).
SKIP = object()  # a step the claim does not speak about (prev before the j-th update)


class ColumnUnavailable(Exception):
    pass


class Unsupported(Exception):
    """A construct the column evaluator does not vectorise here: the claim is evaluated by the
    scalar evaluator at each step of the block instead (same values, slower)."""


# ---------------------------------------------------------------------------- integer arrays

# ---------------------------------------------------------------------------- columns

class Column:
    """A column over the rows of an environment; ``bad`` maps a row to why its value does not
    exist there (an error message, or SKIP), in the order the scalar evaluator meets them."""

    __slots__ = ("bad",)

    def with_bad(self, *cols, new=None):
        bad = {}
        for c in cols:
            for r, why in c.bad.items():
                bad.setdefault(r, why)
        if new:
            for r, why in new.items():
                bad.setdefault(r, why)
        self.bad = bad
        return self


class Rat(Column):
    __slots__ = ("num", "den")

    def __init__(self, num, den):
        self.num, self.den = num, den
        self.bad = {}

    def __len__(self):
        return len(self.num)

    def item(self, r):
        return Fraction(int(self.num[r]), int(self.den[r]))

    def take(self, idx):
        return Rat(self.num[idx], self.den[idx])


class Mono(Column):
    __slots__ = ("c", "m")

    def __init__(self, c: Rat, m: Rat):
        self.c, self.m = c, m
        self.bad = {}

    def __len__(self):
        return len(self.c)

    def item(self, r):
        return X.mul(self.c.item(r), X.sqrt(self.m.item(r)))

    def take(self, idx):
        return Mono(self.c.take(idx), self.m.take(idx))


class Obj(Column):
    __slots__ = ("vals",)

    def __init__(self, vals: list):
        self.vals = vals
        self.bad = {}

    def __len__(self):
        return len(self.vals)

    def item(self, r):
        return self.vals[r]

    def take(self, idx):
        return Obj([self.vals[int(j)] for j in idx])


class Bools(Column):
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = np.asarray(v, dtype=bool)
        self.bad = {}

    def __len__(self):
        return len(self.v)

    def item(self, r):
        return bool(self.v[r])

    def take(self, idx):
        return Bools(self.v[idx])


class VecCol(Column):
    """mult * (num / den[:, None], extra...): num (R, d) integers, den (R,) positive integers,
    extra a tuple of scalar columns, mult None (one) or a scalar column."""

    __slots__ = ("num", "den", "extra", "mult")

    def __init__(self, num, den, extra=(), mult=None):
        self.num, self.den, self.extra, self.mult = num, den, tuple(extra), mult
        self.bad = {}

    def __len__(self):
        return len(self.den)

    def item(self, r):
        v = X.Vec(np.asarray(self.num[r]), int(self.den[r]), tuple(e.item(r) for e in self.extra))
        if self.mult is None:
            return v
        return X.vscale(self.mult.item(r), v)

    def take(self, idx):
        return VecCol(self.num[idx], self.den[idx], tuple(e.take(idx) for e in self.extra),
                      None if self.mult is None else self.mult.take(idx))


def col_const(value, R: int):
    """A constant exact value (Fraction, Surd, Vec, bool) as a column of R rows (a broadcast view)."""
    if isinstance(value, bool):
        return Bools(np.broadcast_to(np.array(value), (R,)))
    if isinstance(value, X.Vec):
        num = np.asarray(value.num)
        mult = None if value.plain else col_const(value.mult, R)
        return VecCol(np.broadcast_to(num, (R, num.shape[0])), np.broadcast_to(narrow_ints([value.den]), (R,)),
                      tuple(col_const(e, R) for e in value.extra), mult)
    if isinstance(value, X.Surd):
        if len(value.terms) == 1:
            (m, c), = value.terms.items()
            return Mono(col_const(c, R), col_const(Fraction(m), R))
        return Obj([value] * R)
    f = Fraction(value)
    return Rat(np.broadcast_to(narrow_ints([f.numerator]), (R,)), np.broadcast_to(narrow_ints([f.denominator]), (R,)))


def col_column(values: list, sample):
    """A column of given exact values (one per row), of the kind of ``sample`` when there are none."""
    values = list(values)
    if not values:
        return col_const(sample, 0)
    if all(isinstance(v, bool) for v in values):
        return Bools(np.array(values, dtype=bool))
    if all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in values):
        return rat_of_fractions(values)
    if all(isinstance(v, X.Vec) and v.plain and not v.extra for v in values):
        if len({v.num.shape for v in values}) == 1:
            dt = object if any(v.num.dtype == object for v in values) else np.int64
            return VecCol(np.stack([v.num.astype(dt) for v in values]), narrow_ints(v.den for v in values))
    if any(isinstance(v, X.Vec) for v in values):
        raise Unsupported("vectors of mixed forms")
    return Obj(list(values))


def rat_of_fractions(vals) -> Rat:
    """Integers and Fractions as a rational column (numerator and denominator read directly)."""
    vals = list(vals)
    return Rat(narrow_ints([v.numerator for v in vals]), narrow_ints([v.denominator for v in vals]))


def col_as_obj(a) -> Obj:
    if isinstance(a, Obj):
        return a
    out = Obj([a.item(r) for r in range(len(a))])
    out.bad = a.bad
    return out


def col_as_mono(a):
    if isinstance(a, Mono):
        return a
    one = Rat(np.ones(len(a.num), dtype=np.int64), np.ones(len(a.num), dtype=np.int64))
    return Mono(a, one)


# ---------------------------------------------------------------------------- rational arithmetic

def radd(a: Rat, b: Rat, sb: int = 1) -> Rat:
    if a.den is b.den or np.array_equal(a.den, b.den):
        return Rat(int_add(a.num, b.num, sb), a.den)
    return Rat(int_add(int_mul(a.num, b.den), int_mul(b.num, a.den), sb), int_mul(a.den, b.den))


def rmul(a: Rat, b: Rat) -> Rat:
    return Rat(int_mul(a.num, b.num), int_mul(a.den, b.den))


def rinv(b: Rat, bad: dict) -> Rat:
    """1 / b; rows where b = 0 get 'division by zero' in ``bad`` (and a placeholder 1)."""
    zero = b.num == 0
    for r in np.flatnonzero(zero).tolist():
        bad.setdefault(r, "division by zero")
    num = int_mul(b.den, np.where(b.num < 0, -1, 1))
    num = np.where(zero, 1, num)
    den = np.where(zero, 1, np.abs(b.num))
    return Rat(num, den)


def rsign(a: Rat) -> np.ndarray:
    return np.sign(a.num).astype(np.int64) if a.num.dtype != object else np.array(
        [(v > 0) - (v < 0) for v in a.num.tolist()], dtype=np.int64)


def rcmp(a: Rat, b: Rat) -> np.ndarray:
    return rsign(radd(a, b, -1))


def guard_rat(a: Rat, bad: dict) -> Rat:
    """MAX_EXACT_BITS, as verify.language.expr applies it to each product (on reduced fractions)."""
    if a.num.dtype != object and a.den.dtype != object:
        return a
    if maxabs(a.num).bit_length() + maxabs(a.den).bit_length() <= MAX_EXACT_BITS:
        return a
    for r in range(len(a.num)):
        try:
            guard(a.item(r))
        except X.ExactError as e:
            bad.setdefault(r, str(e))
    return a


# ---------------------------------------------------------------------------- scalar operations

def col_same_m(a: Mono, b: Mono) -> bool:
    return bool(np.all(rcmp(a.m, b.m) == 0))


def col_simplify(v):
    """A Mono whose radicand is 1 at every row is the rational c."""
    if isinstance(v, Mono) and np.all(v.m.num == v.m.den):
        out = v.c
        out.bad = v.bad
        return out
    return v


def col_add(a, b, sb: int):
    bad = {}
    if isinstance(a, Rat) and isinstance(b, Rat):
        out = radd(a, b, sb)
    elif isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)):
        ma, mb = col_as_mono(a), col_as_mono(b)
        if col_same_m(ma, mb):
            out = col_simplify(Mono(radd(ma.c, mb.c, sb), ma.m))
        else:
            return col_elementwise("+" if sb == 1 else "-", a, b)
    else:
        return col_elementwise("+" if sb == 1 else "-", a, b)
    return out.with_bad(a, b, new=bad)


def col_mul(a, b):
    bad = {}
    if isinstance(a, Rat) and isinstance(b, Rat):
        out = guard_rat(rmul(a, b), bad)
    elif isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)):
        ma, mb = col_as_mono(a), col_as_mono(b)
        c = guard_rat(rmul(ma.c, mb.c), bad)
        if isinstance(a, Mono) and isinstance(b, Mono) and col_same_m(ma, mb):
            out = guard_rat(rmul(c, ma.m), bad)  # c1 sqrt(m) c2 sqrt(m) = c1 c2 m
        else:
            out = col_simplify(Mono(c, guard_rat(rmul(ma.m, mb.m), bad)))
    else:
        return col_elementwise("*", a, b)
    return out.with_bad(a, b, new=bad)


def col_div(a, b):
    bad = {}
    if isinstance(a, Rat) and isinstance(b, Rat):
        out = guard_rat(rmul(a, rinv(b, bad)), bad)
    elif isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)):
        ma, mb = col_as_mono(a), col_as_mono(b)
        if isinstance(b, Mono):
            zero = (mb.m.num == 0) | (mb.c.num == 0)
            for r in np.flatnonzero(zero).tolist():
                bad.setdefault(r, "division by zero")
        c = guard_rat(rmul(ma.c, rinv(mb.c, bad)), bad)
        if isinstance(b, Mono) and isinstance(a, Mono) and col_same_m(ma, mb):
            out = c
        elif isinstance(b, Mono):
            # c1 sqrt(m1) / (c2 sqrt(m2)) = c1 / (c2 m2) sqrt(m1 m2): radicands stay products, so
            # b / R and R share the radicand R2 and add as one term
            c = guard_rat(rmul(c, rinv(mb.m, {})), bad)
            out = col_simplify(Mono(c, mb.m if isinstance(a, Rat) else guard_rat(rmul(ma.m, mb.m), bad)))
        else:
            out = Mono(c, ma.m)
    else:
        return col_elementwise("/", a, b)
    return out.with_bad(a, b, new=bad)


def col_elementwise(o, a, b):
    """The scalar evaluator's own operation at each row (the Obj fallback)."""
    a, b = col_as_obj(a), col_as_obj(b)
    vals, bad = [], {}
    for r, (x, y) in enumerate(zip(a.vals, b.vals)):
        if r in a.bad or r in b.bad:
            vals.append(Fraction(0))
            continue
        try:
            vals.append(scalar_bin(o, x, y))
        except (X.ExactError, ArithmeticError) as e:
            bad[r] = str(e)
            vals.append(Fraction(0))
    return Obj(vals).with_bad(a, b, new=bad)


def col_elementwise1(fn, a):
    a = col_as_obj(a)
    vals, bad = [], {}
    for r, x in enumerate(a.vals):
        if r in a.bad:
            vals.append(Fraction(0))
            continue
        try:
            vals.append(fn(x))
        except (X.ExactError, ArithmeticError) as e:
            bad[r] = str(e)
            vals.append(Fraction(0))
    return Obj(vals).with_bad(a, new=bad)


def col_neg(a):
    if isinstance(a, Rat):
        out = Rat(-as_object(a.num) if a.num.dtype == object else -a.num, a.den)
    elif isinstance(a, Mono):
        out = Mono(col_neg(a.c), a.m)
    elif isinstance(a, VecCol):
        return col_vscale(col_const(Fraction(-1), len(a)), a)
    else:
        out = Obj([X.neg(v) for v in a.vals])
    return out.with_bad(a)


def col_sign(a) -> tuple[np.ndarray, dict]:
    """sign of each row, and rows where it cannot be decided."""
    if isinstance(a, Rat):
        return rsign(a), {}
    if isinstance(a, Mono):
        return rsign(a.c) * (rsign(a.m) != 0), {}
    out, bad = np.zeros(len(a), dtype=np.int64), {}
    for r, v in enumerate(a.vals):
        if r in a.bad:
            continue
        try:
            out[r] = X.sign(v)
        except (X.ExactError, ArithmeticError) as e:
            bad[r] = str(e)
    return out, bad


def col_compare(a, b) -> tuple[np.ndarray, dict]:
    """sign(a - b) at each row, exactly: rows whose float approximations (approx, with their
    error bounds) are apart by more than the bounds are decided by them; the rest exactly."""
    if isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)) and len(a) > SCREEN_ROWS:
        (va, ea), (vb, eb) = approx(a), approx(b)
        with np.errstate(invalid="ignore", over="ignore"):
            d = va - vb
            sure = np.abs(d) > 2 * (ea + eb) + np.abs(d) * 2.0**-50  # the subtraction's rounding too
        sure &= np.isfinite(d) & np.isfinite(ea) & np.isfinite(eb)
        if sure.any():
            out = np.sign(np.where(sure, d, 0.0)).astype(np.int64)
            rest = np.flatnonzero(~sure)
            if len(rest):
                out[rest] = _compare_exactly(a.take(rest), b.take(rest))
            return out, {}
    if isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)):
        return _compare_exactly(a, b), {}
    return _compare_values(a, b)


#: Rows below which a comparison goes straight to exact arithmetic (the float screen costs more).
SCREEN_ROWS = 64


def _compare_exactly(a, b) -> np.ndarray:
    """sign(a - b) of rational or c sqrt(m) columns, exactly (by signs, then squares)."""
    if isinstance(a, Rat) and isinstance(b, Rat):
        return rcmp(a, b)
    ma, mb = col_as_mono(a), col_as_mono(b)
    sa, _ = col_sign(ma)
    sb, _ = col_sign(mb)
    sq = rcmp(rmul(rmul(ma.c, ma.c), ma.m), rmul(rmul(mb.c, mb.c), mb.m))
    return np.where(sa != sb, np.sign(sa - sb), sa * sq)


def _compare_values(a, b) -> tuple[np.ndarray, dict]:
    """sign(a - b) of columns of exact values (sums of square roots), row by row."""
    a, b = col_as_obj(a), col_as_obj(b)
    out, bad = np.zeros(len(a), dtype=np.int64), {}
    for r, (x, y) in enumerate(zip(a.vals, b.vals)):
        if r in a.bad or r in b.bad:
            continue
        try:
            out[r] = X.compare(x, y)
        except (X.ExactError, ArithmeticError) as e:
            bad[r] = str(e)
    return out, bad


def col_sqrt(a):
    if isinstance(a, Rat):
        bad = {}
        for r in np.flatnonzero(rsign(a) < 0).tolist():
            bad[r] = f"square root of a negative number ({a.item(r)})"
        one = np.ones(len(a), dtype=np.int64)
        return Mono(Rat(one, one), a).with_bad(a, new=bad)
    return col_elementwise1(X.sqrt, a)


# ---------------------------------------------------------------------------- vectors

def col_vscale(c, v: VecCol) -> VecCol:
    if isinstance(c, Rat):
        num = int_mul(v.num, c.num[:, None])
        den = int_mul(v.den, c.den)
        extra = tuple(col_mul(c, e) for e in v.extra)
        return VecCol(num, den, extra, v.mult).with_bad(c, v, *extra)
    if isinstance(c, Mono):
        mult = c if v.mult is None else col_mul(c, v.mult)
        if isinstance(mult, Rat):
            return col_vscale(mult, VecCol(v.num, v.den, v.extra)).with_bad(c, v)
        return VecCol(v.num, v.den, v.extra, mult).with_bad(c, v)
    raise Unsupported("a vector scaled by a sum of square roots")


def col_vadd(a: VecCol, b: VecCol, sb: int) -> VecCol:
    if a.mult is not None or b.mult is not None:
        raise Unsupported("a sum of vectors with irrational multipliers")
    col_same_shape(a, b)
    if a.den is b.den or np.array_equal(a.den, b.den):
        num, den = int_add(a.num, b.num, sb), a.den
    else:
        num = int_add(int_mul(a.num, b.den[:, None]), int_mul(b.num, a.den[:, None]), sb)
        den = int_mul(a.den, b.den)
    extra = tuple(col_add(x, y, sb) for x, y in zip(a.extra, b.extra))
    return VecCol(num, den, extra).with_bad(a, b, *extra)


def col_same_shape(a: VecCol, b: VecCol):
    if a.num.shape[1] != b.num.shape[1] or len(a.extra) != len(b.extra):
        if a.num.shape[1] + len(a.extra) != b.num.shape[1] + len(b.extra):
            raise X.DimensionError(f"vectors of different dimensions ({a.num.shape[1] + len(a.extra)} and "
                               f"{b.num.shape[1] + len(b.extra)})")
        raise Unsupported("vectors split differently into core and extra components")


def col_vdot(a: VecCol, b: VecCol):
    col_same_shape(a, b)
    s = Rat(row_dot(a.num, b.num), int_mul(a.den, b.den))
    for x, y in zip(a.extra, b.extra):
        s = col_add(s, col_mul(x, y), 1)
    if a.mult is not None:
        s = col_mul(a.mult, s)
    if b.mult is not None:
        s = col_mul(b.mult, s)
    return s.with_bad(a, b)


def col_veq(a: VecCol, b: VecCol) -> np.ndarray:
    if a.mult is not None or b.mult is not None:
        raise Unsupported("equality of vectors with irrational multipliers")
    col_same_shape(a, b)
    eq = np.all(int_mul(a.num, b.den[:, None]) == int_mul(b.num, a.den[:, None]), axis=1)
    for x, y in zip(a.extra, b.extra):
        c, bad = col_compare(x, y)
        if bad:
            raise Unsupported("an undecidable comparison inside a vector")
        eq &= c == 0
    return eq


#: Relative error bound of the float approximations of approx (a few roundings of 2^-53 each).
APPROX_REL = 2.0**-48


#: Below this magnitude a nonzero value may have lost precision to underflow: no float bound.
APPROX_TINY = 2.0**-900


def approx(c) -> tuple[np.ndarray, np.ndarray]:
    """(value, error bound) floats for each row of a scalar column: |exact - value| <= bound.
    Rows past the float range, or so small that underflow may have eaten their precision, get
    an infinite bound: the screens that use it then compare those rows exactly."""
    R = len(c)
    val, err = np.zeros(R), np.full(R, np.inf)
    if isinstance(c, (Rat, Mono)):
        rat, m = (c, None) if isinstance(c, Rat) else (c.c, c.m)
        try:  # integers to floats (each correctly rounded, in one C loop), a division, a root, a product
            with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
                val = rat.num.astype(float) / rat.den.astype(float)
                if m is not None:
                    val = val * np.sqrt(m.num.astype(float) / m.den.astype(float))
            nonzero = rat.num != 0 if m is None else (rat.num != 0) & (m.num != 0)
            ok = np.isfinite(val) & ~(nonzero & (np.abs(val) < APPROX_TINY))
            return np.where(ok, val, 0.0), np.where(ok, np.abs(val) * APPROX_REL, np.inf)
        except OverflowError:  # a Python integer past the float range: row by row
            val = np.zeros(R)
        for r in range(R):
            try:
                v = int(rat.num[r]) / int(rat.den[r])  # correctly rounded
                if m is not None:
                    v *= math.sqrt(int(m.num[r]) / int(m.den[r]))
            except (OverflowError, ZeroDivisionError):
                continue
            zero = int(rat.num[r]) == 0 or (m is not None and int(m.num[r]) == 0)
            if math.isfinite(v) and (zero or abs(v) >= APPROX_TINY):
                val[r], err[r] = v, abs(v) * APPROX_REL
        return val, err
    for r, v in enumerate(c.vals):
        try:  # rational bounds of a sum of square roots, 80 bits: the midpoint and half the width
            lo, hi = X.bounds(v, 80)
            mid, half = float((lo + hi) / 2), float((hi - lo) / 2)
        except (X.ExactError, ArithmeticError, OverflowError):
            continue
        if math.isfinite(mid) and math.isfinite(half) and (lo == hi == 0 or abs(mid) >= APPROX_TINY):
            val[r], err[r] = mid, half * (1 + APPROX_REL) + abs(mid) * APPROX_REL + (0.0 if lo == hi else APPROX_TINY)
    return val, err
