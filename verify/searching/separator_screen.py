"""A claim evaluated at one step of a run for every separator of the dataset at once.

The learner's search evaluates a claim that reads a separator (gamma, w_opt, b_opt, ...) once
for each separator of the dataset at every step: the run's values are the same, only the
separator's quantities differ.  The screen evaluates the claim (and its premise) over all the
separators together in interval arithmetic (perceptron._interval: rigorous outward rounding),
the run's values exact and broadcast, each separator's quantities a row.  A separator where the
premise and the claim are certainly true is an evaluation that holds; one where the premise is
certainly false did not apply; every other one (undecided, undefined, or anything the intervals
do not express) is evaluated exactly by the caller, as it was without the screen.  So the screen
decides nothing a float could get wrong: it only spares exact evaluations that hold.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from perceptron import _interval as I
from verify.language.assumptions import STRICT_MARGIN
from verify.numbers import exact as X

__all__ = ["SeparatorScreen", "interval_of", "broadcast", "HOLDS", "UNMET", "EXACT"]

#: A separator's outcome at one step (SeparatorScreen.decide).
HOLDS, UNMET, EXACT = 1, 0, -1

#: Bits of a square root's rational enclosure (verify.numbers.exact.bounds) before it is rounded
#: outward to floats: more than a double holds.
BITS = 64


def _down(q: Fraction) -> float:
    f = float(q)  # OverflowError past the float range
    return math.nextafter(f, -math.inf) if Fraction(f) > q else f


def _up(q: Fraction) -> float:
    f = float(q)
    return math.nextafter(f, math.inf) if Fraction(f) < q else f


def _scalar(v) -> tuple[float, float]:
    if isinstance(v, (Fraction, int)):
        q = Fraction(v)
        return _down(q), _up(q)
    if isinstance(v, X.Surd):
        lo, hi = X.bounds(v, BITS)
        return _down(lo), _up(hi)
    raise I.IntervalError(f"no interval for {type(v).__name__}")


def _enclosure(v) -> tuple:
    """An exact scalar or vector as (lo, hi): floats, or float arrays of its components."""
    try:
        if isinstance(v, X.Vec):
            comps = [_scalar(c) for c in v.components()]
            return np.array([c[0] for c in comps], dtype=np.float64), np.array([c[1] for c in comps], dtype=np.float64)
        return _scalar(v)
    except (OverflowError, X.ExactError) as e:
        raise I.IntervalError(str(e)) from None


def interval_of(values: list, memo: dict | None = None) -> tuple:
    """Exact values (one per row: all rationals and sums of square roots, or all vectors of one
    dimension) as an interval array enclosing each: shape (M,) or (M, D).  ``memo`` keeps each
    value's enclosure by identity (the values stay referenced from it)."""
    got = []
    for v in values:
        e = memo.get(id(v)) if memo is not None else None
        if e is None:
            e = (v, _enclosure(v))
            if memo is not None:
                memo[id(v)] = e
        got.append(e[1])
    if len({np.shape(e[0]) for e in got}) != 1:
        raise I.IntervalError("values of different shapes")
    return np.array([e[0] for e in got], dtype=np.float64), np.array([e[1] for e in got], dtype=np.float64)


def broadcast(value, m: int) -> tuple:
    """One exact value as the interval of ``m`` rows."""
    lo, hi = _enclosure(value)
    shape = (m,) + np.shape(lo)
    return np.broadcast_to(lo, shape), np.broadcast_to(hi, shape)


class _Env:
    """The names of one step for the rows (separators): the run's values from the exact
    environment of the first separator, broadcast; the context's constants (the separator's
    quantities among them) a row per separator."""

    def __init__(self, screen, env):
        self.screen, self.env, self.m = screen, env, len(screen.ctxs)
        self.cache: dict = {}

    def get(self, name):
        got = self.cache.get(name)
        if got is not None:
            return got
        if name == "gamma":
            got = self.screen.column("gamma")
        elif name not in self.env.vals and name in self.screen.ctxs[0][0].consts:
            got = self.screen.column(name)
        else:
            try:
                v = self.env.get(name)
            except ArithmeticError as e:
                raise I.IntervalError(str(e)) from None
            except Exception as e:  # the exact evaluator's "not here" and "unavailable": it decides those
                raise I.IntervalError(f"{name}: {e}") from None
            got = broadcast(v, self.m)
        self.cache[name] = got
        return got

    def prev(self, j):
        try:
            return _Env(self.screen, self.env.prev(j))
        except Exception as e:  # no state j updates back: the exact evaluator says what that means
            raise I.IntervalError(f"prev(..., {j}): {e}") from None

    def points(self):
        raise I.IntervalError("aggregates over the points are evaluated exactly")


class SeparatorScreen:
    """The screen of ``claim`` over the separators of one run setting: ``ctxs`` is the list of
    (RunContext, separator) the caller evaluates, each separator's constants read once (and
    enclosed once for all the run settings of a dataset, with ``memo`` the dataset's)."""

    def __init__(self, claim, ctxs, memo: dict | None = None):
        self.claim, self.ctxs, self.memo = claim, ctxs, memo
        self.strict = STRICT_MARGIN in claim.assume
        self.columns: dict = {}

    def column(self, name):
        got = self.columns.get(name)
        if got is None:
            if name == "gamma" and self.strict:
                vals = [ctx.strict_gamma() for ctx, _ in self.ctxs]
            else:
                vals = [ctx.consts.get(name) for ctx, _ in self.ctxs]
            if any(v is None for v in vals):
                raise I.IntervalError(f"{name} is not defined for every separator")
            got = self.columns[name] = interval_of(vals, self.memo)
        return got

    def decide(self, env) -> np.ndarray:
        """Each separator's outcome at the step whose exact environment (for the first separator)
        is ``env``: HOLDS (the premise and the claim certainly true: an evaluation that holds),
        UNMET (the premise certainly false) or EXACT (to be evaluated exactly)."""
        m = len(self.ctxs)
        ienv = _Env(self, env)
        arith = I.WatchedIntervals(m)  # a row where a value may be undefined goes exact
        try:
            holds = np.ones(m, dtype=bool)
            unmet = np.zeros(m, dtype=bool)
            given = self.claim.given
            if given is not None:
                g = np.asarray(I.ieval(given.tree, ienv, m, arith))
                holds &= g == I.TRUE
                unmet = g == I.FALSE
            c = np.asarray(I.ieval(self.claim.compiled.tree, ienv, m, arith))
            if c.shape != (m,):
                raise I.IntervalError("not a condition")
        except (I.IntervalError, ValueError, TypeError, IndexError):
            return np.full(m, EXACT)
        holds &= (c == I.TRUE) & ~arith.doubt
        unmet &= ~arith.doubt
        return np.where(holds, HOLDS, np.where(unmet, UNMET, EXACT))
