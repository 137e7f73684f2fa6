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

from fractions import Fraction

import numpy as np

from perceptron.expression import MAX_PREV
from verify.language.column_eval import ColumnEnv, Unavail, evaluate
from verify.language.column_values import (
    SKIP,
    Rat,
    Unsupported,
    VecCol,
    approx,
    radd,
    rat_of_fractions,
)
from verify.language.quantities import sweep_values
from verify.language.scalar import Env as _ScalarEnv
from verify.language.scalar import ALPHA_COUNTS, eval_claim, format_value, sides
from verify.numbers import exact as X
from verify.numbers.integers import (
    narrow_ints,
)
from verify.language.assumptions import STRICT_MARGIN
from verify.language.violation import Violation

__all__ = ["Frame", "StepLog", "tally_claims", "BLOCK_CELLS"]

#: Vector columns the claims of a block may hold at once in their shared environment (w, prev(w),
#: x, w_hat, ...): the block's rows are BLOCK_CELLS / (SHARED_COLUMNS d).
SHARED_COLUMNS = 8


# ---------------------------------------------------------------------------- environments

class Frame:
    """The steps of (a block of) a trace where claims are evaluated, and the states they read.

    States are indexed by the number of updates made: state s holds w, b and sumsq after s
    updates (``first_state`` is the index of the first one held; a block keeps the last
    MAX_PREV states of the one before, for prev()).  A step has its visit number t, point i,
    score, out and the state it sees (``state``: the updates made before a visit claim, after
    an update claim -- k is that index).  An end frame has one step, the end of the run, whose
    values are ``end_vals`` (a visit or update frame's: the whole run's, which its steps read too)."""

    def __init__(self, ctx, kind: str, name: str, states: list, first_state: int, steps: dict,
                 end_vals: dict | None = None, row_vals: list | None = None, alpha: tuple | None = None):
        self.ctx, self.kind, self.name = ctx, kind, name
        self.alpha = alpha  # (updates on each point before first_state, the point of each held update)
        self._alpha_keys = None  # their sorted (point, update) keys, built on first use
        self.row_vals = row_vals  # a dataset frame: {name: value} per row (free names' assignments)
        self.first_state = first_state
        self.states = states  # (w, b, sumsq): verify.numbers.exact values
        self._arrays = None
        self.consts: dict = {}  # (id of a constant value, rows) -> its column: built once per frame
        self.free: dict = {}  # a free name -> its column over every row of a dataset frame
        self.steps = steps  # t, i, state (absolute), out: int arrays; score: Rat
        self.end_vals = end_vals or {}
        self.history = kind in ("update", "end")

    def alpha_counts(self, states: np.ndarray, points: np.ndarray) -> np.ndarray:
        """The updates made on ``points`` in the first ``states`` updates (state indices held by
        this frame), pairwise: the dual's alpha_i so far."""
        base, upd = self.alpha
        K = len(upd)
        if self._alpha_keys is None:  # once per frame: every claim and row of the block reads them
            held = np.asarray(upd, dtype=np.int64)
            self._alpha_keys = np.sort(held * (K + 1) + np.arange(1, K + 1))  # update j+1 of the held ones, on upd[j]
        keys = self._alpha_keys
        rel = states - self.first_state  # how many held updates a state has seen
        lo = np.searchsorted(keys, points * (K + 1), side="right")
        return base[points] + np.searchsorted(keys, points * (K + 1) + rel, side="right") - lo

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
            self._arrays = (W, Wden, rat_of_fractions(b for _, b, _ in self.states),
                            rat_of_fractions(q for _, _, q in self.states))
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
            alpha = None if self.alpha is None else (  # computed only when a claim reads alpha
                lambda: tuple(int(a) for a in self.alpha_counts(np.full(ctx.n, st), np.arange(ctx.n))))
            vals = {**self.end_vals, ALPHA_COUNTS: alpha, "w": w, "b": b, "k": Fraction(st),
                    "t": Fraction(int(self.steps["t"][r])), "i": Fraction(i),
                    "x": ctx.rows[i], "y": Fraction(ctx.y[i]), "score": self.steps["score"].item(r),
                    "out": Fraction(int(self.steps["out"][r])), "sumsq": sumsq,
                    **sweep_values(int(self.steps["t"][r]), tuple(int(self.steps[c][r]) for c in SWEEP_COLUMNS))}
        if gamma is not None:
            vals["gamma"] = gamma
        return _ScalarEnv(ctx, vals, hist)


#: Integer cells (steps x dimension, or steps x points x dimension for a per-point aggregate)
#: one block of evaluation holds at once: bounds memory whatever the trace's length (64 MiB of int64).
BLOCK_CELLS = 1 << 23


class StepLog:
    """What a replay hands to the claims as it goes: the states after each update and the steps
    where claims are evaluated; every BLOCK_CELLS of states (or MAX_LOGGED_STEPS steps) the
    claims are evaluated over the block and it is dropped but for the last MAX_PREV states."""

    #: Steps held before a block is evaluated (bounds memory on a long run in small dimension).
    MAX_LOGGED_STEPS = 1 << 18
    #: States held before a block is evaluated, whatever the dimension (each is a few Python
    #: objects: in dimension 1, BLOCK_CELLS states alone would be gigabytes).
    MAX_HELD_STATES = 1 << 17

    def __init__(self, ctx, name: str, visit_claims, update_claims, tallies, gamma_strict, w0, b0, sumsq0,
                 scalar: bool = False, run_vals: dict | None = None):
        self.ctx, self.name = ctx, name
        self.run_vals = run_vals or {}  # the whole run's mistakes, epochs, ... (verify.replay.records.run_values)
        self.visit_claims, self.update_claims = visit_claims, update_claims
        self.tallies, self.gamma_strict = tallies, gamma_strict
        self.states = [(w0, b0, sumsq0)]
        self.first_state = 0
        self.steps = {"visit": _new_steps(), "update": _new_steps()}
        self.d = max(1, ctx.d)
        # alpha at a visit or update: the updates made on each point before the first state held,
        # and the point of each update since (state j + 1 of the held ones is after updates[j])
        self.alpha0 = np.zeros(ctx.n, dtype=np.int64)
        self.updates: list = []
        self.scalar_only = scalar  # tests: every claim by the scalar evaluator (the oracle)

    def state(self, w, b, sumsq, point: int):
        """The state after an update on ``point``."""
        self.states.append((w, b, sumsq))
        self.updates.append(point)
        if len(self.states) * self.d > BLOCK_CELLS or len(self.states) > self.MAX_HELD_STATES:
            self.flush()

    def extend(self, states: list, points: list, kind: str | None = None, steps: dict | None = None):
        """Many consecutive states at once (``states`` (w, b, sumsq) after updates on ``points``)
        and, with ``kind``, the steps at them (``steps``: a list per column of step(), ``score``
        as (numerator, denominator) pairs): a long run fed in pieces, not a call per update.
        The block is evaluated after the piece, so a piece must be small beside BLOCK_CELLS."""
        self.states.extend(states)
        self.updates.extend(points)
        if kind is not None:
            s = self.steps[kind]
            for key, col in steps.items():
                s[key].extend(col)
        if len(self.states) * self.d > BLOCK_CELLS or len(self.states) > self.MAX_HELD_STATES \
                or (kind is not None and len(s["t"]) >= self.MAX_LOGGED_STEPS):
            self.flush()

    def step(self, kind: str, t: int, i: int, k: int, score: tuple, out: int, sweep: tuple):
        """A step where claims are evaluated; ``score`` = (numerator, denominator > 0), ``sweep``
        = (its number, the visits made before it, its mistakes up to and including this visit)."""
        s = self.steps[kind]
        for key, v in zip(SWEEP_COLUMNS, sweep):
            s[key].append(v)
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
                steps = {key: narrow_ints(s[key]) for key in ("t", "i", "state", "out", *SWEEP_COLUMNS)}
                steps["score"] = Rat(narrow_ints(v[0] for v in s["score"]), narrow_ints(v[1] for v in s["score"]))
                frame = Frame(self.ctx, kind, self.name, self.states, self.first_state, steps, self.run_vals,
                              alpha=(self.alpha0, self.updates))
                tally_claims(frame, claims, self.tallies, self.gamma_strict, scalar=self.scalar_only)
            self.steps[kind] = _new_steps()
        keep = self.states[-(MAX_PREV + 1):]  # the next update step may read MAX_PREV states back
        dropped = len(self.states) - len(keep)
        self.first_state += dropped
        self.states = keep
        if dropped:
            self.alpha0 = self.alpha0 + np.bincount(np.asarray(self.updates[:dropped], dtype=np.int64), minlength=self.ctx.n)
            self.updates = self.updates[dropped:]

    def end(self, end_claims, end_vals: dict, k: int):
        """Flush, then evaluate the end claims (their prev() reads the last states)."""
        self.flush()
        if end_claims:
            frame = Frame(self.ctx, "end", self.name, self.states, self.first_state,
                          {"state": narrow_ints([k])}, end_vals)
            tally_claims(frame, end_claims, self.tallies, self.gamma_strict, scalar=self.scalar_only)


#: A step's sweep: its number, the visits made before it, its mistakes up to this visit.
SWEEP_COLUMNS = ("sweep", "sweep_t0", "sweep_mistakes", "sweep_last")


def _new_steps() -> dict:
    return {"t": [], "i": [], "state": [], "score": [], "out": [], **{key: [] for key in SWEEP_COLUMNS}}


# ---------------------------------------------------------------------------- evaluation


# ---------------------------------------------------------------------------- tallies


def _slack_col(tree, env: ColumnEnv):
    """The slack b - a (or a - b) of a top-level comparison a op b, as a column, else None."""
    if tree[0] != "cmp" or len(tree[1]) != 1 or tree[1][0] in ("==", "!="):
        return None
    a, b = evaluate(tree[2][0], env), evaluate(tree[2][1], env)
    if isinstance(a, VecCol):
        return None
    return (a, b) if tree[1][0] in ("<", "<=") else (b, a)


def _sides_at(tree, env: ColumnEnv, r: int) -> dict:
    if tree[0] in ("or", "and") or (tree[0] == "agg" and tree[1] in ("all_i", "any_i")):
        # each part's value, or the point where all_i fails: the scalar evaluator at that one step
        return sides(tree, env.frame.scalar_env(int(env.rows[r]), env.gamma))
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
    apart: set = set()  # claims whose vectors are not of this run's dimensions
    for s in range(0, steps, chunk):
        rows = np.arange(s, min(steps, s + chunk))
        envs: dict = {}
        for claim in claims:
            tally = tallies[claim.id]
            if tally.violation is not None or claim.id in apart:
                continue
            g = gamma_strict if STRICT_MARGIN in claim.assume else None
            try:
                _tally_claim_block(claim, frame, rows, envs, tally, g, scalar)
            except X.DimensionError as e:  # vec(0, 0, 1/2) against a 2-dimensional run: not about it
                apart.add(claim.id)
                tallies[claim.id] = type(tally)(not_applicable=f"the claim's vectors and this run's (d = {frame.ctx.d}) "
                                                               f"differ: {e}")


def _tally_claim_block(claim, frame: Frame, rows, envs: dict, tally, g, scalar: bool) -> None:
    """One claim over one block of rows: the column evaluator, else the scalar one row by row."""
    try:
        if scalar:
            raise Unsupported("the scalar oracle")
        env = envs.get(g is None)
        if env is None:
            env = envs[g is None] = ColumnEnv(frame, rows, g)
        _tally_block(claim, env, tally)
    except Unsupported:
        for r in rows.tolist():
            eval_claim(claim, frame.scalar_env(r, g), tally, frame.where(r), g)


def _first_unknown(bad: dict, env: ColumnEnv, tally, stop: int):
    """The tally's unknown: the first row before ``stop`` whose value could not be decided (a
    row the claim does not speak about, SKIP, is no unknown)."""
    for r in sorted(bad):
        if r < stop and bad[r] is not SKIP and tally.unknown is None:
            why = bad[r]
            where = env.frame.where(int(env.rows[r]))
            tally.unknown = f"{why} is not available here ({where})" if isinstance(why, Unavail) else f"{why} ({where})"
            return


def _premise(claim, env: ColumnEnv, tally):
    """(rows where the claim's premise (given) holds, rows where it is false) of the block; a
    row where the premise cannot be decided is neither, and makes the tally unknown."""
    g = evaluate(claim.given.tree, env)
    fine = np.ones(len(env), dtype=bool)
    if g.bad:
        fine[list(g.bad)] = False
        _first_unknown(g.bad, env, tally, len(env))
    return fine & g.v, fine & ~g.v


def _tally_block(claim, env: ColumnEnv, tally):
    if getattr(claim, "given", None) is None:
        _tally_rows(claim, env, tally)
        return
    met, unmet = _premise(claim, env, tally)
    rows = np.flatnonzero(met)
    stop = _tally_rows(claim, env.sub(rows), tally) if len(rows) else None
    # the scalar evaluator stops at the first violation: premise rows after it are not counted
    tally.premise_unmet += int(unmet[:int(rows[stop])].sum() if stop is not None else unmet.sum())


def _tally_rows(claim, env: ColumnEnv, tally):
    """Tally the claim on the rows of env; the index of its first violation there, or None."""
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
    _first_unknown(bad, env, tally, stop)
    counted = fine.copy()
    counted[stop + 1:] = False
    tally.evaluations += int(counted.sum())
    if stop < R:
        tally.violation = Violation.at(frame.where(int(env.rows[stop])), _sides_at(tree, env, stop))
    _smallest_slack(tree, env, tally, fine & ok, stop)
    return stop if stop < R else None


def _smallest_slack(tree, env: ColumnEnv, tally, holding, stop: int):
    """The exact smallest slack among the rows where the claim holds, before the first violation."""
    frame = env.frame
    holds = np.flatnonzero(holding)
    holds = holds[holds < stop]
    if not len(holds):
        return
    pair = _slack_col(tree, env)
    if pair is None:
        return
    a, b = pair  # slack = b - a
    sa, sb = a.take(holds), b.take(holds)
    if isinstance(sa, Rat) and isinstance(sb, Rat):
        diff = radd(sb, sa, -1)
        cand = _rat_argmin(diff)
        slack = diff.item(cand)
    else:
        va, ea = approx(sa)
        vb, eb = approx(sb)
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
    va, ea = approx(a)
    hi = va + ea
    cands = np.flatnonzero(~(va - ea > np.min(hi)))
    best, bv = None, None
    for j in cands.tolist():
        v = a.item(j)
        if bv is None or v < bv:
            best, bv = j, v
    return best
