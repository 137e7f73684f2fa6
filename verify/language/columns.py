"""Claims evaluated over a whole trace at once, exactly.

Every quantity of a claim becomes a *column*: its exact value at each step (visit or update) of
a block of the trace, computed with whole-array integer arithmetic.

* :class:`Rat` -- rationals as integer numerator and denominator arrays (int64 while a bound
  proves no wrap, Python integers past it; never floats);
* :class:`Mono` -- c * sqrt(m) with rational columns c and m >= 0 (norms, sqrt(k), R): sign
  from c, comparisons of two such values exactly by comparing c^2 m (one multiplication, no
  square root);
* :class:`VecCol` -- a vector per step: an integer matrix over a denominator per row (w is
  the trace's weights, x the data scaled to integers), extra scalar components (001's hat
  vectors), and a scalar multiplier (w_opt = v / |v| for a given separator);
* :class:`Obj` -- what the above cannot express (a sum of two different square roots, a floor
  of one): the exact scalar values of verify.numbers.exact, element by element, with the same
  operations as the scalar evaluator (verify.language.expr), so no construct is left out.

``prev(e, j)`` is a shift of the state rows, per-point aggregates expand each step into its n
points and reduce, ``and``/``or``/``if`` evaluate their later operands only on the steps that
need them (as the scalar evaluator's short circuits do, so an error in a branch it never takes
is not an error here either).

The tally a claim gets -- evaluations, the first violation, the first "unknown" and the exact
smallest slack with where it occurs -- is the one verify.language.expr's scalar evaluator gives stepping
through the trace (tests/test_columns.py checks that on random traces and claims; the scalar
evaluator is kept as that oracle and for the searches, which evaluate one step at a time).  The
smallest slack is found by screening: float approximations with a rigorous error bound pick the
steps that can hold the minimum, and only those are compared exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from perceptron.expression import MAX_PREV
from verify.language.expr import (
    MAX_EXACT_BITS,
    call_scalar,
    guard,
    scalar_bin,
    scalar_pow,
)
from verify.language.scalar import Env as _ScalarEnv
from verify.language.scalar import eval_claim, format_value
from verify.numbers import exact as X
from verify.numbers.integers import (
    INT64_SAFE,
    as_object,
    int_add,
    int_mul,
    maxabs,
    narrow_ints,
    row_dot,
)

__all__ = ["Frame", "StepLog", "tally_claims", "BLOCK_CELLS"]

#: Integer cells (steps x dimension, or steps x points x dimension for a per-point aggregate)
#: one block of evaluation holds at once: bounds memory whatever the trace's length (64 MiB of int64).
BLOCK_CELLS = 1 << 23
#: Vector columns the claims of a block may hold at once in their shared environment (w, prev(w),
#: x, w_hat, ...): the block's rows are BLOCK_CELLS / (SHARED_COLUMNS d).
SHARED_COLUMNS = 8
_SKIP = object()  # a step the claim does not speak about (prev before the j-th update)


class _Unsupported(Exception):
    """A construct the column evaluator does not vectorise here: the claim is evaluated by the
    scalar evaluator at each step of the block instead (same values, slower)."""


class _Unavailable(Exception):
    pass


# ---------------------------------------------------------------------------- integer arrays

# ---------------------------------------------------------------------------- columns

class _Col:
    """A column over the rows of an environment; ``bad`` maps a row to why its value does not
    exist there (an error message, or _SKIP), in the order the scalar evaluator meets them."""

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


class Rat(_Col):
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


class Mono(_Col):
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


class Obj(_Col):
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


class Bools(_Col):
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


class VecCol(_Col):
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


def _const(value, R: int):
    """A constant exact value (Fraction, Surd, Vec, bool) as a column of R rows (a broadcast view)."""
    if isinstance(value, bool):
        return Bools(np.broadcast_to(np.array(value), (R,)))
    if isinstance(value, X.Vec):
        num = np.asarray(value.num)
        mult = None if value.plain else _const(value.mult, R)
        return VecCol(np.broadcast_to(num, (R, num.shape[0])), np.broadcast_to(narrow_ints([value.den]), (R,)),
                      tuple(_const(e, R) for e in value.extra), mult)
    if isinstance(value, X.Surd):
        if len(value.terms) == 1:
            (m, c), = value.terms.items()
            return Mono(_const(c, R), _const(Fraction(m), R))
        return Obj([value] * R)
    f = Fraction(value)
    return Rat(np.broadcast_to(narrow_ints([f.numerator]), (R,)), np.broadcast_to(narrow_ints([f.denominator]), (R,)))


def _column(values: list, sample):
    """A column of given exact values (one per row), of the kind of ``sample`` when there are none."""
    values = list(values)
    if not values:
        return _const(sample, 0)
    if all(isinstance(v, bool) for v in values):
        return Bools(np.array(values, dtype=bool))
    if all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in values):
        return _rat_of_fractions(values)
    if all(isinstance(v, X.Vec) and v.plain and not v.extra for v in values):
        if len({v.num.shape for v in values}) == 1:
            dt = object if any(v.num.dtype == object for v in values) else np.int64
            return VecCol(np.stack([v.num.astype(dt) for v in values]), narrow_ints(v.den for v in values))
    if any(isinstance(v, X.Vec) for v in values):
        raise _Unsupported("vectors of mixed forms")
    return Obj(list(values))


def _rat_of_fractions(vals) -> Rat:
    """Integers and Fractions as a rational column (numerator and denominator read directly)."""
    vals = list(vals)
    return Rat(narrow_ints([v.numerator for v in vals]), narrow_ints([v.denominator for v in vals]))


def _as_obj(a) -> Obj:
    if isinstance(a, Obj):
        return a
    out = Obj([a.item(r) for r in range(len(a))])
    out.bad = a.bad
    return out


def _as_mono(a):
    if isinstance(a, Mono):
        return a
    one = Rat(np.ones(len(a.num), dtype=np.int64), np.ones(len(a.num), dtype=np.int64))
    return Mono(a, one)


# ---------------------------------------------------------------------------- rational arithmetic

def _radd(a: Rat, b: Rat, sb: int = 1) -> Rat:
    if a.den is b.den or np.array_equal(a.den, b.den):
        return Rat(int_add(a.num, b.num, sb), a.den)
    return Rat(int_add(int_mul(a.num, b.den), int_mul(b.num, a.den), sb), int_mul(a.den, b.den))


def _rmul(a: Rat, b: Rat) -> Rat:
    return Rat(int_mul(a.num, b.num), int_mul(a.den, b.den))


def _rinv(b: Rat, bad: dict) -> Rat:
    """1 / b; rows where b = 0 get 'division by zero' in ``bad`` (and a placeholder 1)."""
    zero = b.num == 0
    for r in np.flatnonzero(zero).tolist():
        bad.setdefault(r, "division by zero")
    num = int_mul(b.den, np.where(b.num < 0, -1, 1))
    num = np.where(zero, 1, num)
    den = np.where(zero, 1, np.abs(b.num))
    return Rat(num, den)


def _rsign(a: Rat) -> np.ndarray:
    return np.sign(a.num).astype(np.int64) if a.num.dtype != object else np.array(
        [(v > 0) - (v < 0) for v in a.num.tolist()], dtype=np.int64)


def _rcmp(a: Rat, b: Rat) -> np.ndarray:
    return _rsign(_radd(a, b, -1))


def _guard_rat(a: Rat, bad: dict) -> Rat:
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

def _same_m(a: Mono, b: Mono) -> bool:
    return bool(np.all(_rcmp(a.m, b.m) == 0))


def _simplify(v):
    """A Mono whose radicand is 1 at every row is the rational c."""
    if isinstance(v, Mono) and np.all(v.m.num == v.m.den):
        out = v.c
        out.bad = v.bad
        return out
    return v


def _add(a, b, sb: int):
    bad = {}
    if isinstance(a, Rat) and isinstance(b, Rat):
        out = _radd(a, b, sb)
    elif isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)):
        ma, mb = _as_mono(a), _as_mono(b)
        if _same_m(ma, mb):
            out = _simplify(Mono(_radd(ma.c, mb.c, sb), ma.m))
        else:
            return _elementwise("+" if sb == 1 else "-", a, b)
    else:
        return _elementwise("+" if sb == 1 else "-", a, b)
    return out.with_bad(a, b, new=bad)


def _mul(a, b):
    bad = {}
    if isinstance(a, Rat) and isinstance(b, Rat):
        out = _guard_rat(_rmul(a, b), bad)
    elif isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)):
        ma, mb = _as_mono(a), _as_mono(b)
        c = _guard_rat(_rmul(ma.c, mb.c), bad)
        if isinstance(a, Mono) and isinstance(b, Mono) and _same_m(ma, mb):
            out = _guard_rat(_rmul(c, ma.m), bad)  # c1 sqrt(m) c2 sqrt(m) = c1 c2 m
        else:
            out = _simplify(Mono(c, _guard_rat(_rmul(ma.m, mb.m), bad)))
    else:
        return _elementwise("*", a, b)
    return out.with_bad(a, b, new=bad)


def _div(a, b):
    bad = {}
    if isinstance(a, Rat) and isinstance(b, Rat):
        out = _guard_rat(_rmul(a, _rinv(b, bad)), bad)
    elif isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)):
        ma, mb = _as_mono(a), _as_mono(b)
        if isinstance(b, Mono):
            zero = (mb.m.num == 0) | (mb.c.num == 0)
            for r in np.flatnonzero(zero).tolist():
                bad.setdefault(r, "division by zero")
        c = _guard_rat(_rmul(ma.c, _rinv(mb.c, bad)), bad)
        if isinstance(b, Mono) and isinstance(a, Mono) and _same_m(ma, mb):
            out = c
        elif isinstance(b, Mono):
            # c1 sqrt(m1) / (c2 sqrt(m2)) = c1 / (c2 m2) sqrt(m1 m2): radicands stay products, so
            # b / R and R share the radicand R2 and add as one term
            c = _guard_rat(_rmul(c, _rinv(mb.m, {})), bad)
            out = _simplify(Mono(c, mb.m if isinstance(a, Rat) else _guard_rat(_rmul(ma.m, mb.m), bad)))
        else:
            out = Mono(c, ma.m)
    else:
        return _elementwise("/", a, b)
    return out.with_bad(a, b, new=bad)


def _elementwise(o, a, b):
    """The scalar evaluator's own operation at each row (the Obj fallback)."""
    a, b = _as_obj(a), _as_obj(b)
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


def _elementwise1(fn, a):
    a = _as_obj(a)
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


def _neg(a):
    if isinstance(a, Rat):
        out = Rat(-as_object(a.num) if a.num.dtype == object else -a.num, a.den)
    elif isinstance(a, Mono):
        out = Mono(_neg(a.c), a.m)
    elif isinstance(a, VecCol):
        return _vscale(_const(Fraction(-1), len(a)), a)
    else:
        out = Obj([X.neg(v) for v in a.vals])
    return out.with_bad(a)


def _sign(a) -> tuple[np.ndarray, dict]:
    """sign of each row, and rows where it cannot be decided."""
    if isinstance(a, Rat):
        return _rsign(a), {}
    if isinstance(a, Mono):
        return _rsign(a.c) * (_rsign(a.m) != 0), {}
    out, bad = np.zeros(len(a), dtype=np.int64), {}
    for r, v in enumerate(a.vals):
        if r in a.bad:
            continue
        try:
            out[r] = X.sign(v)
        except (X.ExactError, ArithmeticError) as e:
            bad[r] = str(e)
    return out, bad


def _compare(a, b) -> tuple[np.ndarray, dict]:
    """sign(a - b) at each row, exactly."""
    if isinstance(a, Rat) and isinstance(b, Rat):
        return _rcmp(a, b), {}
    if isinstance(a, (Rat, Mono)) and isinstance(b, (Rat, Mono)):
        ma, mb = _as_mono(a), _as_mono(b)
        sa, _ = _sign(ma)
        sb, _ = _sign(mb)
        sq = _rcmp(_rmul(_rmul(ma.c, ma.c), ma.m), _rmul(_rmul(mb.c, mb.c), mb.m))
        return np.where(sa != sb, np.sign(sa - sb), sa * sq), {}
    a, b = _as_obj(a), _as_obj(b)
    out, bad = np.zeros(len(a), dtype=np.int64), {}
    for r, (x, y) in enumerate(zip(a.vals, b.vals)):
        if r in a.bad or r in b.bad:
            continue
        try:
            out[r] = X.compare(x, y)
        except (X.ExactError, ArithmeticError) as e:
            bad[r] = str(e)
    return out, bad


def _sqrt(a):
    if isinstance(a, Rat):
        bad = {}
        for r in np.flatnonzero(_rsign(a) < 0).tolist():
            bad[r] = f"square root of a negative number ({a.item(r)})"
        one = np.ones(len(a), dtype=np.int64)
        return Mono(Rat(one, one), a).with_bad(a, new=bad)
    return _elementwise1(X.sqrt, a)


# ---------------------------------------------------------------------------- vectors

def _vscale(c, v: VecCol) -> VecCol:
    if isinstance(c, Rat):
        num = int_mul(v.num, c.num[:, None])
        den = int_mul(v.den, c.den)
        extra = tuple(_mul(c, e) for e in v.extra)
        return VecCol(num, den, extra, v.mult).with_bad(c, v, *extra)
    if isinstance(c, Mono):
        mult = c if v.mult is None else _mul(c, v.mult)
        if isinstance(mult, Rat):
            return _vscale(mult, VecCol(v.num, v.den, v.extra)).with_bad(c, v)
        return VecCol(v.num, v.den, v.extra, mult).with_bad(c, v)
    raise _Unsupported("a vector scaled by a sum of square roots")


def _vadd(a: VecCol, b: VecCol, sb: int) -> VecCol:
    if a.mult is not None or b.mult is not None:
        raise _Unsupported("a sum of vectors with irrational multipliers")
    _same_shape(a, b)
    if a.den is b.den or np.array_equal(a.den, b.den):
        num, den = int_add(a.num, b.num, sb), a.den
    else:
        num = int_add(int_mul(a.num, b.den[:, None]), int_mul(b.num, a.den[:, None]), sb)
        den = int_mul(a.den, b.den)
    extra = tuple(_add(x, y, sb) for x, y in zip(a.extra, b.extra))
    return VecCol(num, den, extra).with_bad(a, b, *extra)


def _same_shape(a: VecCol, b: VecCol):
    if a.num.shape[1] != b.num.shape[1] or len(a.extra) != len(b.extra):
        if a.num.shape[1] + len(a.extra) != b.num.shape[1] + len(b.extra):
            raise X.ExactError(f"vectors of different dimensions ({a.num.shape[1] + len(a.extra)} and "
                               f"{b.num.shape[1] + len(b.extra)})")
        raise _Unsupported("vectors split differently into core and extra components")


def _vdot(a: VecCol, b: VecCol):
    _same_shape(a, b)
    s = Rat(row_dot(a.num, b.num), int_mul(a.den, b.den))
    for x, y in zip(a.extra, b.extra):
        s = _add(s, _mul(x, y), 1)
    if a.mult is not None:
        s = _mul(a.mult, s)
    if b.mult is not None:
        s = _mul(b.mult, s)
    return s.with_bad(a, b)


def _veq(a: VecCol, b: VecCol) -> np.ndarray:
    if a.mult is not None or b.mult is not None:
        raise _Unsupported("equality of vectors with irrational multipliers")
    _same_shape(a, b)
    eq = np.all(int_mul(a.num, b.den[:, None]) == int_mul(b.num, a.den[:, None]), axis=1)
    for x, y in zip(a.extra, b.extra):
        c, bad = _compare(x, y)
        if bad:
            raise _Unsupported("an undecidable comparison inside a vector")
        eq &= c == 0
    return eq


# ---------------------------------------------------------------------------- environments

class Frame:
    """The steps of (a block of) a trace where claims are evaluated, and the states they read.

    States are indexed by the number of updates made: state s holds w, b and sumsq after s
    updates (``first_state`` is the index of the first one held; a block keeps the last
    MAX_PREV states of the one before, for prev()).  A step has its visit number t, point i,
    score, out and the state it sees (``state``: the updates made before a visit claim, after
    an update claim -- k is that index).  An end frame has one step, the end of the run, whose
    values are ``end_vals``."""

    def __init__(self, ctx, kind: str, name: str, states: list, first_state: int, steps: dict,
                 end_vals: dict | None = None, row_vals: list | None = None):
        self.ctx, self.kind, self.name = ctx, kind, name
        self.row_vals = row_vals  # a dataset frame: {name: value} per row (free names' assignments)
        self.first_state = first_state
        self.states = states  # (w, b, sumsq): verify.numbers.exact values
        self._arrays = None
        self.consts: dict = {}  # (id of a constant value, rows) -> its column: built once per frame
        self.free: dict = {}  # a free name -> its column over every row of a dataset frame
        self.steps = steps  # t, i, state (absolute), out: int arrays; score: Rat
        self.end_vals = end_vals or {}
        self.history = kind in ("update", "end")

    def arrays(self):
        """(W, Wden, B, SUMSQ): the states' weights as one integer matrix over a denominator per
        state (None when they are not plain vectors), b and sumsq as rational columns."""
        if self._arrays is None:
            ws = [w for w, _, _ in self.states]
            W = Wden = None
            if ws and all(isinstance(w, X.Vec) and w.plain and not w.extra for w in ws):
                nums = [w.num for w in ws]
                dt = object if any(a.dtype == object for a in nums) else np.int64
                W, Wden = np.stack([a.astype(dt) for a in nums]), narrow_ints(w.den for w in ws)
            self._arrays = (W, Wden, _rat_of_fractions(b for _, b, _ in self.states),
                            _rat_of_fractions(q for _, _, q in self.states))
        return self._arrays

    @property
    def nsteps(self) -> int:
        return len(self.steps["state"])

    @classmethod
    def of_dataset(cls, ctx, name: str, assignments: list) -> "Frame":
        """A frame of dataset claims: one row per assignment of the free names ([{}] for none)."""
        return cls(ctx, "dataset", name, [], 0, {"state": np.zeros(len(assignments), dtype=np.int64)},
                   row_vals=assignments)

    def where(self, r: int) -> dict:
        s = self.steps
        if self.kind == "dataset":
            vals = self.row_vals[r]
            return {"dataset": self.name, "free": {k: format_value(v) for k, v in vals.items()}} if vals else {"dataset": self.name}
        if self.kind == "end":
            return {"dataset": self.name, "end": True, "k": int(s["state"][r])}
        out = {"dataset": self.name, "t": int(s["t"][r]), "point": int(s["i"][r])}
        if self.kind == "update":
            out["k"] = int(s["state"][r])
        return out

    def scalar_env(self, r: int, gamma=None):
        """The scalar evaluator's environment at step r (verify.language.scalar._Env): the oracle,
        and the path of a claim this module does not vectorise."""
        ctx, st = self.ctx, int(self.steps["state"][r])
        hist = None
        if self.history:
            back = range(max(self.first_state, st - MAX_PREV), st)
            hist = [(self.states[j - self.first_state][0], self.states[j - self.first_state][1], j,
                     self.states[j - self.first_state][2]) for j in back]
        if self.kind == "dataset":
            vals = dict(self.row_vals[r])
        elif self.kind == "end":
            vals = dict(self.end_vals)
        else:
            w, b, sumsq = self.states[st - self.first_state]
            i = int(self.steps["i"][r])
            vals = {"w": w, "b": b, "k": Fraction(st), "t": Fraction(int(self.steps["t"][r])), "i": Fraction(i),
                    "x": ctx.rows[i], "y": Fraction(ctx.y[i]), "score": self.steps["score"].item(r),
                    "out": Fraction(int(self.steps["out"][r])), "sumsq": sumsq}
        if gamma is not None:
            vals["gamma"] = gamma
        return _ScalarEnv(ctx, vals, hist)


class StepLog:
    """What a replay hands to the claims as it goes: the states after each update and the steps
    where claims are evaluated; every BLOCK_CELLS of states (or MAX_LOGGED_STEPS steps) the
    claims are evaluated over the block and it is dropped but for the last MAX_PREV states."""

    #: Steps held before a block is evaluated (bounds memory on a long run in small dimension).
    MAX_LOGGED_STEPS = 1 << 18

    def __init__(self, ctx, name: str, visit_claims, update_claims, tallies, gamma_strict, w0, b0, sumsq0,
                 scalar: bool = False):
        self.ctx, self.name = ctx, name
        self.visit_claims, self.update_claims = visit_claims, update_claims
        self.tallies, self.gamma_strict = tallies, gamma_strict
        self.states = [(w0, b0, sumsq0)]
        self.first_state = 0
        self.steps = {"visit": _new_steps(), "update": _new_steps()}
        self.d = max(1, ctx.d)
        self.scalar_only = scalar  # tests: every claim by the scalar evaluator (the oracle)

    def state(self, w, b, sumsq):
        self.states.append((w, b, sumsq))
        if len(self.states) * self.d > BLOCK_CELLS:
            self.flush()

    def step(self, kind: str, t: int, i: int, k: int, score: tuple, out: int):
        """A step where claims are evaluated; ``score`` = (numerator, denominator > 0)."""
        s = self.steps[kind]
        s["t"].append(t)
        s["i"].append(i)
        s["state"].append(k)
        s["score"].append(score)
        s["out"].append(out)
        if len(s["t"]) >= self.MAX_LOGGED_STEPS:
            self.flush()

    def flush(self):
        for kind, claims in (("visit", self.visit_claims), ("update", self.update_claims)):
            s = self.steps[kind]
            if claims and s["t"]:
                steps = {key: narrow_ints(s[key]) for key in ("t", "i", "state", "out")}
                steps["score"] = Rat(narrow_ints(v[0] for v in s["score"]), narrow_ints(v[1] for v in s["score"]))
                frame = Frame(self.ctx, kind, self.name, self.states, self.first_state, steps)
                tally_claims(frame, claims, self.tallies, self.gamma_strict, scalar=self.scalar_only)
            self.steps[kind] = _new_steps()
        keep = self.states[-(MAX_PREV + 1):]  # the next update step may read MAX_PREV states back
        self.first_state += len(self.states) - len(keep)
        self.states = keep

    def end(self, end_claims, end_vals: dict, k: int):
        """Flush, then evaluate the end claims (their prev() reads the last states)."""
        self.flush()
        if end_claims:
            frame = Frame(self.ctx, "end", self.name, self.states, self.first_state,
                          {"state": narrow_ints([k])}, end_vals)
            tally_claims(frame, end_claims, self.tallies, self.gamma_strict, scalar=self.scalar_only)


def _new_steps() -> dict:
    return {"t": [], "i": [], "state": [], "score": [], "out": []}


class _Env:
    """Rows of a frame: step indices, a prev() shift, and (inside a per-point aggregate) the
    point each row binds x and y to."""

    def __init__(self, frame: Frame, rows: np.ndarray, gamma=None, shift: int = 0, points=None):
        self.frame, self.rows, self.gamma, self.shift, self.points = frame, rows, gamma, shift, points
        self.cache: dict = {}

    def __len__(self):
        return len(self.rows)

    def sub(self, idx: np.ndarray) -> "_Env":
        return _Env(self.frame, self.rows[idx], self.gamma, self.shift,
                    None if self.points is None else self.points[idx])

    def state_rows(self) -> np.ndarray:
        """Indices into the frame's states (rows before the first state, where prev() does not
        speak, read state 0: their values are never used)."""
        absolute = self.frame.steps["state"][self.rows] - self.shift
        st = absolute - self.frame.first_state
        if ((absolute >= 0) & (st < 0)).any():
            raise AssertionError("a claim reads a state its block no longer holds")  # a bug, never a value
        return np.maximum(st, 0)

    def get(self, name: str):
        key = ("name", name)
        hit = self.cache.get(key)
        if hit is None:
            hit = self._get(name)
            self.cache[key] = hit
        return hit

    def _get(self, name):
        f, R = self.frame, len(self.rows)
        ctx = f.ctx
        if f.row_vals is not None:  # a dataset frame: the free names' values, then the constants
            if f.row_vals and name in f.row_vals[0] and (self.points is None or name not in ("x", "y")):
                full = f.free.get(name)
                if full is None:
                    full = f.free[name] = _column([vals[name] for vals in f.row_vals], f.row_vals[0][name])
                return full.take(self.rows)
            if name not in ("x", "y", "x_hat", "w_hat") or (self.points is None and name != "w_hat"):
                if name == "gamma" and self.gamma is not None:
                    return self.const(self.gamma)
                if name in ctx.consts and name not in ("x", "y"):
                    return self.const(ctx.consts[name])
                raise _Unavailable(name)
        if name in ("w", "b", "k", "sumsq"):
            if name in f.end_vals and self.shift == 0:
                return self.const(f.end_vals[name])
            if name == "k":
                k = f.steps["state"][self.rows] - self.shift
                return Rat(k.astype(np.int64), np.ones(R, dtype=np.int64))
            s = self.state_rows()
            W, Wden, B, SUMSQ = f.arrays()
            if name == "w":
                if W is None:
                    raise _Unsupported("weights that are not one integer vector over a denominator")
                return VecCol(W[s], Wden[s])
            return (B if name == "b" else SUMSQ).take(s)
        if name in ("x", "y") and self.points is not None:
            if name == "x":
                return VecCol(ctx.Xn[self.points], np.broadcast_to(narrow_ints([ctx.D]), (R,)))
            yv = np.asarray(ctx.y, dtype=np.int64)[self.points]
            return Rat(yv, np.ones(R, dtype=np.int64))
        if name in f.end_vals:
            return self.const(f.end_vals[name])
        if name in ("t", "i", "x", "y", "score", "out") and f.kind != "end":
            s = f.steps
            if name == "t":
                return Rat(s["t"][self.rows], np.ones(R, dtype=np.int64))
            if name == "i":
                return Rat(s["i"][self.rows], np.ones(R, dtype=np.int64))
            if name == "score":
                return s["score"].take(self.rows)
            if name == "out":
                return Rat(s["out"][self.rows], np.ones(R, dtype=np.int64))
            pts = s["i"][self.rows]
            if name == "x":
                return VecCol(ctx.Xn[pts], np.broadcast_to(narrow_ints([ctx.D]), (R,)))
            return Rat(np.asarray(ctx.y, dtype=np.int64)[pts], np.ones(R, dtype=np.int64))
        if name == "w_hat":
            w, b = self.get("w"), self.get("b")
            if w.extra or w.mult is not None:
                raise _Unsupported("w_hat of an augmented w")
            return VecCol(w.num, w.den, (_div(b, self.const(ctx.R)),)).with_bad(w, b)
        if name == "x_hat":
            x = self.get("x")
            return VecCol(x.num, x.den, (self.const(ctx.R),)).with_bad(x)
        if name == "gamma" and self.gamma is not None:
            return self.const(self.gamma)
        if name in ctx.consts:
            return self.const(ctx.consts[name])
        raise _Unavailable(name)

    def const(self, value):
        """A constant's column over these rows, built once per frame (columns are never changed
        after they are made, so one object can serve every claim)."""
        key = (id(value), len(self.rows))
        hit = self.frame.consts.get(key)
        if hit is None:
            hit = self.frame.consts[key] = (value, _const(value, len(self.rows)))  # holds value: its id stays its own
        return hit[1]

    def prev(self, j: int) -> tuple["_Env", dict]:
        env = _Env(self.frame, self.rows, self.gamma, self.shift + j, self.points)
        st = self.frame.steps["state"][self.rows] - self.shift - j
        ok = st >= 0 if (self.frame.history and self.shift + j <= MAX_PREV) else np.zeros(len(self.rows), bool)
        return env, {r: _SKIP for r in np.flatnonzero(~ok).tolist()}

    def expand(self) -> "_Env":
        """Each row once per point of the dataset (row-major: row r's points are r*n ... r*n + n - 1)."""
        n = self.frame.ctx.n
        return _Env(self.frame, np.repeat(self.rows, n), self.gamma, self.shift,
                    np.tile(np.arange(n), len(self.rows)))


# ---------------------------------------------------------------------------- evaluation

_CACHED = frozenset(("bin", "call", "pow", "neg", "prev", "agg"))


def evaluate(tree: tuple, env: _Env):
    if tree[0] in _CACHED:
        key = id(tree)
        hit = env.cache.get(key)
        if hit is None:
            hit = _evaluate(tree, env)
            env.cache[key] = hit
        return hit
    return _evaluate(tree, env)


def _empty_bad(env, why) -> dict:
    return {r: why for r in range(len(env))}


def _evaluate(tree, env: _Env):
    op = tree[0]
    R = len(env)
    if op == "num":
        return env.const(tree[1])
    if op == "name":
        try:
            return env.get(tree[1])
        except _Unavailable:
            out = _const(Fraction(0), R)
            out.bad = _empty_bad(env, _Unavail(tree[1]))
            return out
    if op == "neg":
        return _neg(evaluate(tree[1], env))
    if op == "not":
        a = evaluate(tree[1], env)
        return Bools(~a.v).with_bad(a)
    if op == "bin":
        a, b = evaluate(tree[2], env), evaluate(tree[3], env)
        o = tree[1]
        if isinstance(a, VecCol) or isinstance(b, VecCol):
            if o in "+-":
                return _vadd(a, b, 1 if o == "+" else -1)
            if o == "*":
                return _vscale(a, b) if isinstance(b, VecCol) else _vscale(b, a)
            inv = _div(_const(Fraction(1), R), b)
            return _vscale(inv, a).with_bad(a, inv)
        if o == "+":
            return _add(a, b, 1)
        if o == "-":
            return _add(a, b, -1)
        if o == "*":
            return _mul(a, b)
        return _div(a, b)
    if op == "pow":
        a, e = evaluate(tree[1], env), tree[2]
        if isinstance(a, Obj):
            return _elementwise1(lambda v: scalar_pow(v, e), a)
        if e < 0:
            a, e = _div(_const(Fraction(1), R), a), -e
        out = _const(Fraction(1), R)
        for _ in range(e):
            out = _mul(out, a)
        return out.with_bad(a)
    if op == "cmp":
        vals = [evaluate(p, env) for p in tree[2]]
        res = np.ones(R, dtype=bool)
        bad: dict = {}
        for o, a, b in zip(tree[1], vals, vals[1:]):
            why: dict = {}
            now = _cmp(o, a, b, why)
            for r, m in why.items():  # the scalar chain stops at its first false comparison
                if res[r]:
                    bad.setdefault(r, m)
            res &= now
        return Bools(res).with_bad(*vals, new=bad)
    if op == "if":
        c = evaluate(tree[1], env)
        return _choose(env, c, tree[2], tree[3])
    if op in ("and", "or"):
        return _logic(env, tree[1], op == "and")
    if op == "prev":
        penv, skip = env.prev(tree[2])
        inner = evaluate(tree[1], penv)
        out = _copy(inner)
        out.bad = dict(skip)
        for r, why in inner.bad.items():
            out.bad.setdefault(r, why)
        return out
    if op == "agg":
        return _aggregate(env, tree[1], tree[2])
    if op == "call":
        return _call(tree[1], [evaluate(a, env) for a in tree[2]], R)
    raise _Unsupported(f"tree node {op!r}")


class _Unavail(str):
    """The message of a name that is not available here (worded as the scalar evaluator words it)."""


def _copy(c):
    if isinstance(c, Rat):
        return Rat(c.num, c.den)
    if isinstance(c, Mono):
        return Mono(c.c, c.m)
    if isinstance(c, Obj):
        return Obj(c.vals)
    if isinstance(c, Bools):
        return Bools(c.v)
    return VecCol(c.num, c.den, c.extra, c.mult)


def _cmp(o, a, b, bad) -> np.ndarray:
    if isinstance(a, Bools) or isinstance(b, Bools):
        if not (isinstance(a, Bools) and isinstance(b, Bools)):
            raise _Unsupported("a condition compared with a number")
        return (a.v == b.v) if o == "==" else (a.v != b.v)
    if isinstance(a, VecCol):
        eq = _veq(a, b)
        return eq if o == "==" else ~eq
    s, why = _compare(a, b)
    for r, m in why.items():
        bad.setdefault(r, m)
    return {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "==": s == 0, "!=": s != 0}[o]


def _scatter(R: int, parts: list) -> _Col:
    """Columns computed on disjoint row subsets (index arrays) put back together."""
    parts = [(idx, c) for idx, c in parts if len(idx)]
    kinds = {type(c) for _, c in parts}
    if not kinds:
        return Bools(np.zeros(R, dtype=bool)) if any(isinstance(c, Bools) for _, c in parts) else _const(Fraction(0), R)
    bad = {}
    for idx, c in parts:
        for r, why in c.bad.items():
            bad[int(idx[r])] = why
    if kinds == {Bools}:
        v = np.zeros(R, dtype=bool)
        for idx, c in parts:
            v[idx] = c.v
        return Bools(v).with_bad(new=bad)
    if kinds == {Rat}:
        num = np.zeros(R, dtype=object)
        den = np.ones(R, dtype=object)
        for idx, c in parts:
            num[idx] = as_object(c.num)
            den[idx] = as_object(c.den)
        return Rat(num, den).with_bad(new=bad)
    if VecCol in kinds:
        raise _Unsupported("a vector chosen by a condition")
    vals = [Fraction(0)] * R
    for idx, c in parts:
        o = _as_obj(c)
        for r, j in enumerate(idx.tolist()):
            vals[j] = o.vals[r]
    return Obj(vals).with_bad(new=bad)


def _choose(env, c: Bools, ta, tb):
    R = len(env)
    ok = np.array([r not in c.bad for r in range(R)], dtype=bool)
    ia, ib = np.flatnonzero(ok & c.v), np.flatnonzero(ok & ~c.v)
    parts = [(ia, evaluate(ta, env.sub(ia))), (ib, evaluate(tb, env.sub(ib)))]
    out = _scatter(R, parts)
    for r, why in c.bad.items():
        out.bad[r] = why
    return out


def _logic(env, items, is_and: bool):
    R = len(env)
    result = np.full(R, not is_and)  # and: False until all hold; or: True once one holds
    bad: dict = {}
    live = np.arange(R)  # rows still undecided
    for tree in items:
        if not len(live):
            break
        sub = env if len(live) == R else env.sub(live)
        v = evaluate(tree, sub)
        now_bad = np.zeros(len(live), dtype=bool)
        for r, why in v.bad.items():
            bad[int(live[r])] = why
            now_bad[r] = True
        decided = (~v.v if is_and else v.v) & ~now_bad
        result[live[decided]] = not is_and
        live = live[~decided & ~now_bad]
    result[live] = is_and
    return Bools(result).with_bad(new=bad)


def _aggregate(env: _Env, name: str, sub):
    R, n = len(env), env.frame.ctx.n
    chunk = max(1, BLOCK_CELLS // max(1, n * max(1, env.frame.ctx.d)))
    if R > chunk:  # one block of rows at a time: steps x points x dimension cells bounded
        parts = []
        for s in range(0, R, chunk):
            idx = np.arange(s, min(R, s + chunk))
            parts.append((idx, _aggregate(env.sub(idx), name, sub)))
        return _scatter(R, parts)
    inner = evaluate(sub, env.expand())
    bad_flat = inner.bad
    out_bad: dict = {}
    if name in ("all_i", "any_i"):
        v = inner.v.reshape(R, n)
        isbad = np.zeros(R * n, dtype=bool)
        if bad_flat:
            isbad[list(bad_flat)] = True
        isbad = isbad.reshape(R, n)
        stop = (~v if name == "all_i" else v) | isbad  # the scalar evaluator stops at the first of these
        has = stop.any(axis=1)
        first = stop.argmax(axis=1)
        res = np.full(R, name == "all_i")
        for r in np.flatnonzero(has).tolist():
            j = int(first[r])
            if isbad[r, j]:
                out_bad[r] = bad_flat[r * n + j]
            else:
                res[r] = name != "all_i"
        return Bools(res).with_bad(new=out_bad)
    for flat, why in sorted(bad_flat.items()):
        out_bad.setdefault(flat // n, why)
    if name == "sum_i":
        if isinstance(inner, Rat):
            num, den = inner.num.reshape(R, n), inner.den.reshape(R, n)
            if np.all(den == den[:, :1]):
                total = num.sum(axis=1) if num.dtype == object or maxabs(num) * n < INT64_SAFE else as_object(num).sum(axis=1)
                return Rat(total, den[:, 0].copy()).with_bad(new=out_bad)
        o = _as_obj(inner)
        vals = []
        for r in range(R):
            s = Fraction(0)
            if r not in out_bad:
                for v in o.vals[r * n:(r + 1) * n]:
                    s = X.add(s, v)
            vals.append(s)
        return Obj(vals).with_bad(new=out_bad)
    lo = name == "min_i"
    if isinstance(inner, Rat):
        num, den = inner.num.reshape(R, n), inner.den.reshape(R, n)
        if np.all(den == den[:, :1]):
            j = np.argmin(num, axis=1) if lo else np.argmax(num, axis=1)
            rows = np.arange(R)
            return Rat(num[rows, j], den[rows, j]).with_bad(new=out_bad)
    # screened: the points whose value may be the extreme one (float bounds), then exact
    # comparisons among those only; the first extreme point in order, as the scalar evaluator
    val, err = _approx(inner)
    sgn = 1 if lo else -1
    lo_b, hi_b = (sgn * val - err).reshape(R, n), (sgn * val + err).reshape(R, n)
    pick = np.zeros(R, dtype=np.int64)
    for r in range(R):
        if r in out_bad:
            continue
        cands = np.flatnonzero(~(lo_b[r] > hi_b[r].min())).tolist() if np.isfinite(hi_b[r]).any() else list(range(n))
        best, bv = cands[0], inner.item(r * n + cands[0])
        try:
            for j in cands[1:]:
                v = inner.item(r * n + j)
                if sgn * X.compare(v, bv) < 0:
                    best, bv = j, v
        except (X.ExactError, ArithmeticError) as e:
            out_bad[r] = str(e)
        pick[r] = r * n + best
    return inner.take(pick).with_bad(new=out_bad)


def _call(name, args, R):
    if name in ("dot", "norm2", "norm"):
        a = args[0]
        b = args[1] if name == "dot" else a
        s = _vdot(a, b)
        return _sqrt(s) if name == "norm" else s
    if name == "sqrt":
        return _sqrt(args[0])
    if name == "abs":
        a = args[0]
        s, why = _sign(a)
        if isinstance(a, (Rat, Mono)) and not why:
            neg = _neg(a)
            return _scatter(R, [(np.flatnonzero(s >= 0), a.take(np.flatnonzero(s >= 0))),
                                (np.flatnonzero(s < 0), neg.take(np.flatnonzero(s < 0)))]).with_bad(a)
    if name == "sign":
        s, why = _sign(args[0])
        return Rat(s, np.ones(R, dtype=np.int64)).with_bad(args[0], new=why)
    if name == "vec":
        if all(isinstance(a, Rat) for a in args):
            den = np.ones(R, dtype=object)
            for a in args:
                den = den * as_object(a.den)
            num = np.stack([as_object(a.num) * (den // as_object(a.den)) for a in args], axis=1) if args else np.zeros((R, 0), dtype=object)
            return VecCol(num, den).with_bad(*args)
        raise _Unsupported("a vector literal with irrational components")
    # ceil, floor, abs of an undecided sign, min, max: the scalar operation at each row
    objs = [_as_obj(a) for a in args]
    vals, bad = [], {}
    for r in range(R):
        if any(r in o.bad for o in objs):
            vals.append(Fraction(0))
            continue
        try:
            vals.append(call_scalar(name, [o.vals[r] for o in objs]))
        except (X.ExactError, ArithmeticError) as e:
            bad[r] = str(e)
            vals.append(Fraction(0))
    return Obj(vals).with_bad(*objs, new=bad)


# ---------------------------------------------------------------------------- tallies

#: Relative error bound of the float approximations of _approx (a few roundings of 2^-53 each).
_REL = 2.0**-48
#: Below this magnitude a nonzero value may have lost precision to underflow: no float bound.
_TINY = 2.0**-900


def _approx(c) -> tuple[np.ndarray, np.ndarray]:
    """(value, error bound) floats for each row of a scalar column: |exact - value| <= bound.
    Rows past the float range, or so small that underflow may have eaten their precision, get
    an infinite bound: the screens that use it then compare those rows exactly."""
    R = len(c)
    val, err = np.zeros(R), np.full(R, np.inf)
    if isinstance(c, (Rat, Mono)):
        rat, m = (c, None) if isinstance(c, Rat) else (c.c, c.m)
        ints = [rat.num, rat.den] + ([] if m is None else [m.num, m.den])
        if all(a.dtype != object for a in ints):  # int64 to float, a division, a root, a product
            with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
                val = rat.num.astype(float) / rat.den.astype(float)
                if m is not None:
                    val = val * np.sqrt(m.num.astype(float) / m.den.astype(float))
            nonzero = rat.num != 0 if m is None else (rat.num != 0) & (m.num != 0)
            ok = np.isfinite(val) & ~(nonzero & (np.abs(val) < _TINY))
            return np.where(ok, val, 0.0), np.where(ok, np.abs(val) * _REL, np.inf)
        for r in range(R):
            try:
                v = int(rat.num[r]) / int(rat.den[r])  # correctly rounded
                if m is not None:
                    v *= math.sqrt(int(m.num[r]) / int(m.den[r]))
            except (OverflowError, ZeroDivisionError):
                continue
            zero = int(rat.num[r]) == 0 or (m is not None and int(m.num[r]) == 0)
            if math.isfinite(v) and (zero or abs(v) >= _TINY):
                val[r], err[r] = v, abs(v) * _REL
        return val, err
    for r, v in enumerate(c.vals):
        try:  # rational bounds of a sum of square roots, 80 bits: the midpoint and half the width
            lo, hi = X._bounds(v, 80)
            mid, half = float((lo + hi) / 2), float((hi - lo) / 2)
        except (X.ExactError, ArithmeticError, OverflowError):
            continue
        if math.isfinite(mid) and math.isfinite(half) and (lo == hi == 0 or abs(mid) >= _TINY):
            val[r], err[r] = mid, half * (1 + _REL) + abs(mid) * _REL + (0.0 if lo == hi else _TINY)
    return val, err


def _slack_col(tree, env: _Env):
    """The slack b - a (or a - b) of a top-level comparison a op b, as a column, else None."""
    if tree[0] != "cmp" or len(tree[1]) != 1 or tree[1][0] in ("==", "!="):
        return None
    a, b = evaluate(tree[2][0], env), evaluate(tree[2][1], env)
    if isinstance(a, VecCol):
        return None
    return (a, b) if tree[1][0] in ("<", "<=") else (b, a)


def _sides_at(tree, env: _Env, r: int) -> dict:
    if tree[0] != "cmp":
        return {}
    try:
        vals = [evaluate(p, env) for p in tree[2]]
        if any(r in v.bad for v in vals):
            return {}
        return {"sides": [format_value(v.item(r)) for v in vals], "ops": list(tree[1])}
    except Exception:  # noqa: BLE001 - display only; the verdict came from the evaluation
        return {}


def tally_claims(frame: Frame, claims, tallies: dict, gamma_strict=None, *, scalar: bool = False):
    """Evaluate each claim at every step of the frame and fold the results into its tally, in
    trace order, as verify.language.scalar.eval_claim does one step at a time.  A claim whose
    constructs this module does not vectorise (and every claim when ``scalar``, the tests'
    oracle) is evaluated by the scalar evaluator at each step instead."""
    steps = frame.nsteps
    if not steps or not claims:
        return
    # the claims of a block share one environment: a quantity several claims read (w, prev(w),
    # dot(w, w_opt), ...) is computed once; blocks are sized so that the columns it holds stay
    # within a few BLOCK_CELLS
    chunk = max(1, BLOCK_CELLS // (SHARED_COLUMNS * max(1, frame.ctx.d)))
    for s in range(0, steps, chunk):
        rows = np.arange(s, min(steps, s + chunk))
        envs: dict = {}
        for claim in claims:
            tally = tallies[claim.id]
            if tally.violation is not None:
                continue
            g = gamma_strict if "strict_margin" in claim.assume else None
            try:
                if scalar:
                    raise _Unsupported("the scalar oracle")
                env = envs.get(g is None)
                if env is None:
                    env = envs[g is None] = _Env(frame, rows, g)
                _tally_block(claim, env, tally)
            except _Unsupported:
                for r in rows.tolist():
                    eval_claim(claim, frame.scalar_env(r, g), tally, frame.where(r), g)


def _tally_block(claim, env: _Env, tally):
    tree = claim.compiled.tree
    res = evaluate(tree, env)
    R = len(env)
    frame = env.frame
    bad = res.bad
    ok = res.v
    # the first violation among the rows the claim speaks about and can evaluate
    fine = np.ones(R, dtype=bool)
    if bad:
        fine[list(bad)] = False
    viol = np.flatnonzero(fine & ~ok)
    stop = int(viol[0]) if len(viol) else R  # rows after the first violation are not evaluated
    for r in sorted(bad):
        if r < stop and bad[r] is not _SKIP and tally.unknown is None:
            why = bad[r]
            where = frame.where(int(env.rows[r]))
            tally.unknown = (f"{why} is not available here ({where})" if isinstance(why, _Unavail)
                             else f"{why} ({where})")
            break
    counted = fine.copy()
    counted[stop + 1:] = False
    tally.evaluations += int(counted.sum())
    if stop < R:
        tally.violation = {**frame.where(int(env.rows[stop])), **_sides_at(tree, env, stop)}
    holds = np.flatnonzero(fine & ok)
    holds = holds[holds < stop]
    if not len(holds):
        return
    pair = _slack_col(tree, env)
    if pair is None:
        return
    a, b = pair  # slack = b - a
    sa, sb = a.take(holds), b.take(holds)
    if isinstance(sa, Rat) and isinstance(sb, Rat):
        diff = _radd(sb, sa, -1)
        cand = _rat_argmin(diff)
        slack = diff.item(cand)
    else:
        va, ea = _approx(sa)
        vb, eb = _approx(sb)
        lo, hi = (vb - va) - (ea + eb), (vb - va) + (ea + eb)
        with np.errstate(invalid="ignore"):
            cands = np.flatnonzero(~(lo > np.nanmin(hi))) if np.isfinite(hi).any() else np.arange(len(holds))
        cand, slack = None, None
        for j in cands.tolist():
            v = X.sub(sb.item(j), sa.item(j))
            if slack is None or X.compare(v, slack) < 0:
                cand, slack = j, v
    if tally.min_slack is None or X.compare(slack, tally.min_slack) < 0:
        tally.min_slack = slack
        tally.min_slack_at = frame.where(int(env.rows[int(holds[cand])]))


def _rat_argmin(a: Rat) -> int:
    """First row of the smallest value of a rational column (exact)."""
    if np.all(a.den == a.den[0]):
        return int(np.argmin(a.num))
    va, ea = _approx(a)
    hi = va + ea
    cands = np.flatnonzero(~(va - ea > np.min(hi)))
    best, bv = None, None
    for j in cands.tolist():
        v = a.item(j)
        if bv is None or v < bv:
            best, bv = j, v
    return best
