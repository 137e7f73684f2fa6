"""The column evaluator's core: a claim's expression evaluated over the rows of a block, each
operation on whole columns (verify.language.column_values), per-point aggregates by expanding
each row into its n points, ``and``/``or``/``if`` short-circuited row by row as the scalar
evaluator does."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from perceptron.expression import MAX_PREV
from verify.language.column_values import (
    SKIP,
    Bools,
    Column,
    ColumnUnavailable,
    Mono,
    Obj,
    Rat,
    Unsupported,
    VecCol,
    approx,
    col_add,
    col_as_obj,
    col_column,
    col_compare,
    col_const,
    col_div,
    col_elementwise1,
    col_mul,
    col_neg,
    col_sign,
    col_sqrt,
    col_vadd,
    col_vdot,
    col_veq,
    col_vscale,
)
from verify.language.expr import call_scalar, scalar_bin, scalar_pow
from verify.language.quantities import PREVIOUS_SWEEP, SWEEP_QUANTITIES
from verify.language.scalar import ALPHA_COUNTS
from verify.numbers import exact as X
from verify.numbers.integers import INT64_SAFE, as_object, maxabs, narrow_ints

__all__ = ["ColumnEnv", "evaluate", "Unavail", "AGGREGATE_CELLS"]

#: Integer cells (rows x points x dimension) one chunk of a per-point aggregate holds at once:
#: bounds its memory whatever the dataset (64 MiB of int64).
AGGREGATE_CELLS = 1 << 23



class ColumnEnv:
    """Rows of a frame: step indices, a prev() shift, and (inside a per-point aggregate) the
    point each row binds x and y to."""

    def __init__(self, frame, rows: np.ndarray, gamma=None, shift: int = 0, points=None):
        self.frame, self.rows, self.gamma, self.shift, self.points = frame, rows, gamma, shift, points
        self.cache: dict = {}

    def __len__(self):
        return len(self.rows)

    def sub(self, idx: np.ndarray) -> "ColumnEnv":
        return ColumnEnv(self.frame, self.rows[idx], self.gamma, self.shift,
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
        counts = f.end_vals.get(ALPHA_COUNTS) if name == "alpha" else None
        if counts is not None:  # the updates made on each point, at the end, inside an aggregate
            if self.points is None:
                raise ColumnUnavailable(name)
            return Rat(np.asarray(counts, dtype=np.int64)[self.points], np.ones(R, dtype=np.int64))
        if name == "alpha" and f.alpha is not None and f.kind in ("visit", "update"):  # so far, inside an aggregate
            if self.points is None or self.shift:
                raise ColumnUnavailable(name)
            states = f.steps["state"][self.rows].astype(np.int64)
            return Rat(f.alpha_counts(states, self.points), np.ones(R, dtype=np.int64))
        if f.row_vals is not None:  # a dataset frame: the free names' values, then the constants
            if f.row_vals and name in f.row_vals[0] and (self.points is None or name not in ("x", "y")):
                full = f.free.get(name)
                if full is None:
                    full = f.free[name] = col_column([vals[name] for vals in f.row_vals], f.row_vals[0][name])
                return full.take(self.rows)
            if name not in ("x", "y", "x_hat", "w_hat") or (self.points is None and name != "w_hat"):
                if name == "gamma" and self.gamma is not None:
                    return self.const(self.gamma)
                if name in ctx.consts and name not in ("x", "y"):
                    return self.const(ctx.consts[name])
                raise ColumnUnavailable(name)
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
                    raise Unsupported("weights that are not one integer vector over a denominator")
                return VecCol(W[s], Wden[s])
            return (B if name == "b" else SUMSQ).take(s)
        if name in ("x", "y") and self.points is not None:
            if name == "x":
                return VecCol(ctx.Xn[self.points], np.broadcast_to(narrow_ints([ctx.D]), (R,)))
            yv = np.asarray(ctx.y, dtype=np.int64)[self.points]
            return Rat(yv, np.ones(R, dtype=np.int64))
        if name in f.end_vals:
            return self.const(f.end_vals[name])
        if (name in SWEEP_QUANTITIES or name in PREVIOUS_SWEEP) and f.kind in ("visit", "update"):
            return self._sweep(name)
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
                raise Unsupported("w_hat of an augmented w")
            return VecCol(w.num, w.den, (col_div(b, self.const(ctx.R)),)).with_bad(w, b)
        if name == "x_hat":
            x = self.get("x")
            return VecCol(x.num, x.den, (self.const(ctx.R),)).with_bad(x)
        if name == "gamma" and self.gamma is not None:
            return self.const(self.gamma)
        if name in ctx.consts:
            return self.const(ctx.consts[name])
        raise ColumnUnavailable(name)

    def _sweep(self, name):
        """A sweep's quantity at these rows (a visit's or update's sweep of the run)."""
        if self.shift:  # prev(): a sweep is no state the run goes back to
            raise ColumnUnavailable(name)
        s, ones = self.frame.steps, np.ones(len(self.rows), dtype=np.int64)
        if name == "last_sweep_mistakes":  # the first sweep's steps: none before it (skipped, as prev() is)
            last = np.asarray(s["sweep_last"][self.rows], dtype=np.int64)
            col = Rat(np.maximum(last, 0), ones)
            col.bad = {r: SKIP for r in np.flatnonzero(last < 0).tolist()}
            return col
        if name == "sweep":
            return Rat(s["sweep"][self.rows], ones)
        if name == "sweep_visits":
            return Rat(s["t"][self.rows] - s["sweep_t0"][self.rows], ones)
        return Rat(s["sweep_mistakes"][self.rows], ones)

    def const(self, value):
        """A constant's column over these rows, built once per frame (columns are never changed
        after they are made, so one object can serve every claim)."""
        key = (id(value), len(self.rows))
        hit = self.frame.consts.get(key)
        if hit is None:
            hit = self.frame.consts[key] = (value, col_const(value, len(self.rows)))  # holds value: its id stays its own
        return hit[1]

    def prev(self, j: int) -> tuple["ColumnEnv", dict]:
        env = ColumnEnv(self.frame, self.rows, self.gamma, self.shift + j, self.points)
        st = self.frame.steps["state"][self.rows] - self.shift - j
        ok = st >= 0 if (self.frame.history and self.shift + j <= MAX_PREV) else np.zeros(len(self.rows), bool)
        return env, {r: SKIP for r in np.flatnonzero(~ok).tolist()}

    def expand(self) -> "ColumnEnv":
        """Each row once per point of the dataset (row-major: row r's points are r*n ... r*n + n - 1)."""
        n = self.frame.ctx.n
        return ColumnEnv(self.frame, np.repeat(self.rows, n), self.gamma, self.shift,
                    np.tile(np.arange(n), len(self.rows)))


_CACHED = frozenset(("bin", "call", "pow", "neg", "prev", "agg"))


def evaluate(tree: tuple, env: ColumnEnv):
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


def _evaluate(tree, env: ColumnEnv):
    op = tree[0]
    R = len(env)
    if op == "num":
        return env.const(tree[1])
    if op == "name":
        try:
            return env.get(tree[1])
        except ColumnUnavailable:
            out = col_const(Fraction(0), R)
            out.bad = _empty_bad(env, Unavail(tree[1]))
            return out
    if op == "neg":
        return col_neg(evaluate(tree[1], env))
    if op == "not":
        a = evaluate(tree[1], env)
        return Bools(~a.v).with_bad(a)
    if op == "bin":
        a, b = evaluate(tree[2], env), evaluate(tree[3], env)
        o = tree[1]
        if isinstance(a, VecCol) or isinstance(b, VecCol):
            if o in "+-":
                return col_vadd(a, b, 1 if o == "+" else -1)
            if o == "*":
                return col_vscale(a, b) if isinstance(b, VecCol) else col_vscale(b, a)
            inv = col_div(col_const(Fraction(1), R), b)
            return col_vscale(inv, a).with_bad(a, inv)
        if o == "+":
            return col_add(a, b, 1)
        if o == "-":
            return col_add(a, b, -1)
        if o == "*":
            return col_mul(a, b)
        return col_div(a, b)
    if op == "pow":
        a, e = evaluate(tree[1], env), tree[2]
        if isinstance(a, Obj):
            return col_elementwise1(lambda v: scalar_pow(v, e), a)
        if e < 0:
            a, e = col_div(col_const(Fraction(1), R), a), -e
        out = col_const(Fraction(1), R)
        for _ in range(e):
            out = col_mul(out, a)
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
    raise Unsupported(f"tree node {op!r}")


class Unavail(str):
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
            raise Unsupported("a condition compared with a number")
        return (a.v == b.v) if o == "==" else (a.v != b.v)
    if isinstance(a, VecCol):
        eq = col_veq(a, b)
        return eq if o == "==" else ~eq
    s, why = col_compare(a, b)
    for r, m in why.items():
        bad.setdefault(r, m)
    return {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "==": s == 0, "!=": s != 0}[o]


def _scatter(R: int, parts: list) -> Column:
    """Columns computed on disjoint row subsets (index arrays) put back together."""
    parts = [(idx, c) for idx, c in parts if len(idx)]
    kinds = {type(c) for _, c in parts}
    if not kinds:
        return Bools(np.zeros(R, dtype=bool)) if any(isinstance(c, Bools) for _, c in parts) else col_const(Fraction(0), R)
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
        raise Unsupported("a vector chosen by a condition")
    vals = [Fraction(0)] * R
    for idx, c in parts:
        o = col_as_obj(c)
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


def _all_any(name: str, inner, R: int, n: int):
    """all_i / any_i of a column of R x n booleans, row by row, stopping where the scalar
    evaluator stops (the first false, or true, or unknown point)."""
    bad_flat, out_bad = inner.bad, {}
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


def _aggregate(env: ColumnEnv, name: str, sub):
    R, n = len(env), env.frame.ctx.n
    chunk = max(1, AGGREGATE_CELLS // max(1, n * max(1, env.frame.ctx.d)))
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
        return _all_any(name, inner, R, n)
    for flat, why in sorted(bad_flat.items()):
        out_bad.setdefault(flat // n, why)
    if name == "sum_i":
        if isinstance(inner, VecCol):  # a sum of vectors, row by row, exactly (a column of vectors again)
            sums = []
            for r in range(R):
                s = inner.item(r * n)
                for j in range(1, n):
                    s = scalar_bin("+", s, inner.item(r * n + j))
                sums.append(s)
            return col_column(sums, None).with_bad(new=out_bad)
        if isinstance(inner, Rat):
            num, den = inner.num.reshape(R, n), inner.den.reshape(R, n)
            if np.all(den == den[:, :1]):
                total = num.sum(axis=1) if num.dtype == object or maxabs(num) * n < INT64_SAFE else as_object(num).sum(axis=1)
                return Rat(total, den[:, 0].copy()).with_bad(new=out_bad)
        o = col_as_obj(inner)
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
    val, err = approx(inner)
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
        s = col_vdot(a, b)
        return col_sqrt(s) if name == "norm" else s
    if name == "sqrt":
        return col_sqrt(args[0])
    if name == "abs":
        a = args[0]
        s, why = col_sign(a)
        if isinstance(a, (Rat, Mono)) and not why:
            neg = col_neg(a)
            return _scatter(R, [(np.flatnonzero(s >= 0), a.take(np.flatnonzero(s >= 0))),
                                (np.flatnonzero(s < 0), neg.take(np.flatnonzero(s < 0)))]).with_bad(a)
    if name == "sign":
        s, why = col_sign(args[0])
        return Rat(s, np.ones(R, dtype=np.int64)).with_bad(args[0], new=why)
    if name == "vec":
        if all(isinstance(a, Rat) for a in args):
            den = np.ones(R, dtype=object)
            for a in args:
                den = den * as_object(a.den)
            num = np.stack([as_object(a.num) * (den // as_object(a.den)) for a in args], axis=1) if args else np.zeros((R, 0), dtype=object)
            return VecCol(num, den).with_bad(*args)
        raise Unsupported("a vector literal with irrational components")
    # ceil, floor, abs of an undecided sign, min, max: the scalar operation at each row
    objs = [col_as_obj(a) for a in args]
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
