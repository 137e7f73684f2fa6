"""A declared variant's runs under order ``any``, stepped for a block of instances at once.

DeclaredWalker walks each instance (dataset x run setting x w0) depth first, one exact value at
a time (verify.replay.declared.DeclaredRun on verify.numbers.exact).  Here a block of instances
is walked breadth first: every state of every instance at one depth is a row, and its values are
exact, row by row rationals times square roots (verify.searching.radicals: int64 or Python
integers, never floats), computed by the one walker of the expression language
(perceptron._interval.ieval).  Each level scores every point, decides the declared mistake
condition, makes every update the order allows, evaluates the claim for every separator of the
instance, and merges the states reached again by another order of the same updates (as
DeclaredWalker does, its key the state, k and sumsq).

An instance whose values leave the radicals' form (a sum of different square roots), whose
decision, premise or claim is undefined or undecided, is walked again by DeclaredWalker's exact
walk, which decides it as before (a skip, a violation, none): the block decides only what exact
arithmetic decides.  A block that would hold more than MAX_ROWS states at once is halved.  The
first counterexample is that of the block's first instance (in DeclaredWalker's order) with one:
at its fewest updates, the smallest sequence of points, the first separator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import numpy as np

from perceptron import _interval as I
from verify.language.assumptions import STRICT_MARGIN
from verify.numbers import exact as X
from verify.replay.declared import declared_constants
from verify.searching.candidates import BatchEnv, Lazy, separator_quantities, with_hats
from verify.searching.domain import CERTIFIED_NAMES, SEPARATOR_NAMES
from verify.searching.radicals import Q, Radicals as A, integers

__all__ = ["Instance", "Outcome", "walk_block", "batchable", "MAX_ROWS", "BLOCK_INSTANCES", "MIN_BLOCK_INSTANCES"]

#: States (rows) a block holds at one depth, children and the claim's rows per separator
#: included (a few hundred bytes each); a block past it is halved, one instance past it is
#: walked exactly.
MAX_ROWS = 200_000
#: Instances collected before a block is walked, at most and at least: the search's budget is
#: checked between blocks, so a block is sized to what is left of it (at the evaluations per
#: instance so far), and the most a search goes past its budget by is one block of the least.
BLOCK_INSTANCES = 4096
MIN_BLOCK_INSTANCES = 64


@dataclass
class Instance:
    """One run setting on one dataset: its integer points ``X`` (n, d) and labels ``Y``, its
    separators (``seps``: (v, c) each, or [None]), the run's Params, ``tmpl`` a context of the
    run's settings (what the block reads of it does not depend on the data), and ``contexts()``
    making the separators' exact contexts (verify.searching.learner_runs.SeparatorContexts, or
    None) when the exact walk needs them."""

    X: np.ndarray
    Y: np.ndarray
    seps: list
    params: object
    tmpl: object
    contexts: Callable

    @property
    def pts(self) -> list:
        return [tuple(int(v) for v in row) for row in self.X.tolist()]

    @property
    def labels(self) -> list:
        return [int(v) for v in self.Y.tolist()]


@dataclass
class Outcome:
    """What the block found for one instance: its evaluations, its first violation (depth, the
    points updated on, the separator's index), or that it is to be walked exactly."""

    evaluations: int = 0
    violation: tuple | None = None
    exact: bool = False
    pruned: bool = False  # not walked to its end: after another instance's violation
    cut: bool = False  # not walked to its end: the search's budget or time ran out


def _reads_prev(claim) -> int:
    """The deepest prev(...) the claim or its premise reads."""
    given = claim.given
    return max(claim.compiled.uses_prev, given.uses_prev if given is not None else 0)


def batchable(claim) -> bool:
    """Whether the block walk can hold the claim: an update claim that reads at most the state
    before its update (prev(e), one update back), or an end claim that reads no earlier state."""
    return claim.when == "update" and _reads_prev(claim) <= 1 or claim.when == "end" and not _reads_prev(claim)


class _TooBig(Exception):
    pass


# ------------------------------------------------------------------------------- values

_LIMIT = 2**62


def _ints(values) -> np.ndarray:
    return np.array(values, dtype=np.int64 if all(-_LIMIT < v < _LIMIT for v in values) else object)


def _parts(v) -> tuple:
    """(numerator, denominator, radicand, bad) of an exact scalar c sqrt(r); bad for another."""
    if isinstance(v, int):
        v = Fraction(v)
    if isinstance(v, Fraction):
        return v.numerator, v.denominator, 1, False
    if isinstance(v, X.Surd) and len(v.terms) <= 1:
        if not v.terms:
            return 0, 1, 1, False
        (m, c), = v.terms.items()
        return c.numerator, c.denominator, m, False
    return 0, 1, 1, True


def _q(values) -> Q:
    """Exact scalars (M,) or vectors of one dimension (M, D) as radicals."""
    if values and isinstance(values[0], X.Vec):
        comps = [v.components() for v in values]
        if len({len(c) for c in comps}) != 1:
            raise I.IntervalError("vectors of different dimensions")
        cols = [_q([c[j] for c in comps]) for j in range(len(comps[0]))]
        return A.stack(cols) if cols else _q_empty(len(values))
    if any(isinstance(v, X.Vec) for v in values):
        raise I.IntervalError("a vector beside scalars")
    parts = [_parts(v) for v in values]
    bad = np.array([p[3] for p in parts], dtype=bool)
    return Q(_ints([p[0] for p in parts]), _ints([p[1] for p in parts]), _ints([p[2] for p in parts]), bad,
             np.zeros(len(values), dtype=bool))


def _q_empty(m: int) -> Q:
    z = np.zeros((m, 0), dtype=np.int64)
    return Q(z, z, z, z.astype(bool), z.astype(bool))


def _take(q: Q, idx) -> Q:
    return Q(q.n[idx], q.d[idx], q.r[idx], q.bad[idx], q.undef[idx])


def _off(q: Q) -> np.ndarray:
    """Rows (of a scalar or vector) outside exact arithmetic's form or undefined."""
    bad = q.bad | q.undef
    return bad.any(axis=1) if bad.ndim == 2 else bad


def _env(vals: dict) -> BatchEnv:
    """An environment of the names ``vals`` (values, or thunks computed once when first read)."""
    lazy = Lazy()
    for name, v in vals.items():
        lazy.put(name, v if callable(v) else (lambda v=v: v))
    return BatchEnv(lazy, 0)


def _eval(tree, env, m):
    return I.ieval(tree, env, m, A)


def _decided(c) -> np.ndarray:
    return (c == I.TRUE) | (c == I.FALSE)


# ------------------------------------------------------------------------------- the block

#: The constants of a run that are the data's: read from the block's arrays, never from a
#: context of the run's settings.
_DATA_NAMES = ("n", "d", "R2", "R")


@dataclass
class _Block:
    """A block's per-instance data: points, labels, ties, the declaration's constants, and the
    separators of every instance flattened (instance b's are rows start[b]:start[b] + count[b])."""

    claim: object
    decl: object
    insts: list
    out: list = field(default_factory=list)

    def __post_init__(self):
        insts = self.insts
        X = np.stack([inst.X for inst in insts]).astype(np.int64)  # (B, n, d)
        self.B, self.n, self.d = X.shape
        if any(inst.tmpl.D != 1 or inst.tmpl.d != self.d for inst in insts):
            raise I.IntervalError("scaled or augmented inputs are walked exactly")
        if int(np.abs(X).max(initial=0)) >= 2**20:
            raise I.IntervalError("points this large are walked exactly")
        self.X, self.y = X, np.stack([inst.Y for inst in insts]).astype(np.int64)
        self.rows = [integers(X[:, i, :]) for i in range(self.n)]  # point i of each instance: (B, d)
        # the run's settings: one template context each, its values taken once and indexed per instance
        uniq: dict = {}
        self.tix = np.array([uniq.setdefault(id(inst.tmpl), len(uniq)) for inst in insts], dtype=np.int64)
        self.tmpls = list({id(inst.tmpl): inst.tmpl for inst in insts}.values())
        self.tie = np.array([t.tie for t in self.tmpls], dtype=np.int64)[self.tix]
        r2 = integers((X * X).sum(axis=2).max(axis=1))
        data = {"n": A.const(Fraction(self.n), self.B), "d": A.const(Fraction(self.d), self.B), "R2": r2, "R": A.sqrt(r2)}
        self.dconsts = {name: data[name] if name in data else self.per_setting([declared_constants(t)[name] for t in self.tmpls])
                        for name in declared_constants(self.tmpls[0])}
        self.data = data
        self.init = {"w0": self.per_setting([t.w0 for t in self.tmpls]), "b0": self.per_setting([t.b0 for t in self.tmpls])}
        self.count = np.array([len(inst.seps) for inst in insts], dtype=np.int64)
        self.start = np.concatenate(([0], np.cumsum(self.count)[:-1])).astype(np.int64)
        self.sinst = np.repeat(np.arange(self.B), self.count)  # each separator's instance
        self.sepvals = self._separators()
        self.out = [Outcome() for _ in insts]

    def constants(self, idx) -> dict:
        """The declaration's constants of the instances ``idx`` (a row each), as thunks: read when
        an expression names them."""
        return {k: (lambda v=v: _take(v, idx)) for k, v in self.dconsts.items()}

    def per_setting(self, values: list) -> Q:
        """A value of each run setting (one per template), as a row per instance."""
        return _take(_q(values), self.tix)

    def _separators(self):
        """The separators' quantities (verify.searching.candidates.separator_quantities, the
        enumeration's own), or None where the claim reads none."""
        seps = [sep for inst in self.insts for sep in inst.seps]
        if seps[0] is None:
            return None
        if any(len(v) != self.d for v, _ in seps):
            raise I.IntervalError("separators of another dimension are evaluated exactly")
        bias = self.tmpls[0].bias
        V = np.array([[int(a) for a in v] for v, _ in seps], dtype=np.int64)
        C = np.array([int(c) if bias else 0 for _, c in seps], dtype=np.int64)
        if int(np.abs(V).max(initial=0)) + int(np.abs(C).max(initial=0)) >= 2**20:
            raise I.IntervalError("separators this large are evaluated exactly")
        Xs = self.X[self.sinst]  # (S, n, d)
        Mg = (self.y[self.sinst] * (np.einsum("snd,sd->sn", Xs, V) + C[:, None])).min(axis=1)
        vals = Lazy()
        vals.put("R", lambda: _take(self.data["R"], self.sinst))
        separator_quantities(vals, V, C, Mg, len(seps), 1, A, STRICT_MARGIN in self.claim.assume)
        return vals

    def sep_column(self, name):
        """A constant the claim reads, a row per separator: the separator's own quantities, the
        data's, or the run setting's (its template context's)."""
        if self.sepvals is not None and name in SEPARATOR_NAMES:
            if not self.sepvals.has(name):
                raise I.IntervalError(f"{name} is evaluated exactly")
            return self.sepvals[name]
        if name in self.data:
            return _take(self.data[name], self.sinst)
        if self.sepvals is not None and name in CERTIFIED_NAMES:
            raise I.IntervalError(f"{name} is evaluated exactly")
        vals = [t.consts.get(name) for t in self.tmpls]
        if any(v is None for v in vals):
            raise I.IntervalError(f"{name} is not defined for every run setting")
        return _take(self.per_setting(vals), self.sinst)

    def exact(self, insts: np.ndarray):
        for b in np.unique(insts).tolist():
            self.out[b].exact = True


def walk_block(claim, decl, insts: list, max_updates: int, merge: bool = True, stop=None) -> list:
    """The outcome of each instance of ``insts`` (one dataset size n): see the module's text.
    ``stop(evaluations)``, asked after each depth, says the search's budget or time ran out: the
    instances not walked to their end are then ``cut``.  Raises IntervalError when the declaration
    or the claim is outside what the block walk evaluates (a name or function it does not hold):
    the caller walks the block exactly."""
    try:
        return _walk(_Block(claim, decl, insts), max_updates, merge, stop)
    except _TooBig:
        if len(insts) == 1:
            return [Outcome(exact=True)]
        half = len(insts) // 2
        head = walk_block(claim, decl, insts[:half], max_updates, merge, stop)
        if any(o.violation is not None or o.cut for o in head):  # the later instances are never reported
            return head + [Outcome(pruned=True, cut=any(o.cut for o in head)) for _ in insts[half:]]
        spent = sum(o.evaluations for o in head)
        rest = None if stop is None else (lambda e: stop(e + spent))
        return head + walk_block(claim, decl, insts[half:], max_updates, merge, rest)


def _walk(bl: _Block, max_updates: int, merge: bool, stop) -> list:
    claim, decl = bl.claim, bl.decl
    inst = np.arange(bl.B, dtype=np.int64)
    env0 = _env({**bl.constants(inst), **bl.init})
    state = {name: _eval(c.tree, env0, bl.B) for name, c in decl.state}
    for q in state.values():
        bl.exact(inst[_off(q)])
    sumsq = A.const(Fraction(0), bl.B)
    path = np.zeros((bl.B, 0), dtype=np.int64)
    for depth in range(max_updates + 1):
        inst, state, sumsq, path = _drop(bl, inst, state, sumsq, path)
        if not len(inst):
            break
        R = len(inst)
        base = {**bl.constants(inst), **state, "k": A.const(Fraction(depth), R)}
        scores, outs, take = _decide(bl, inst, base, R)
        ended = ~take.any(axis=1)
        if claim.when == "end" and ended.any():
            _end(bl, inst[ended], {k: _take(v, ended) for k, v in state.items()}, _take(sumsq, ended), path[ended], depth)
        if depth == max_updates:
            break
        rr, ii = np.nonzero(take)
        if len(rr) * max(1, int(bl.count[inst[rr]].max(initial=1))) > MAX_ROWS:
            raise _TooBig
        inst, state, sumsq, path = _children(bl, inst, state, sumsq, path, scores, outs, rr, ii, depth, merge)
        if stop is not None and stop(sum(o.evaluations for o in bl.out)):
            for b in np.unique(inst).tolist():  # not walked to their end
                bl.out[b].cut = True
            break
    return bl.out


def _drop(bl, inst, state, sumsq, path):
    """The rows still to walk: not of an instance walked exactly, nor after the first instance
    with a violation (nor of that instance: its first violation is known)."""
    keep = np.array([not bl.out[b].exact for b in range(bl.B)], dtype=bool)[inst] if len(inst) else np.zeros(0, bool)
    found = [b for b in range(bl.B) if bl.out[b].violation is not None]
    if found:
        for b in range(found[0] + 1, bl.B):
            bl.out[b].pruned = True
        keep &= inst < found[0]
    return inst[keep], {k: _take(v, keep) for k, v in state.items()}, _take(sumsq, keep), path[keep]


def _decide(bl, inst, base, R):
    """Each row's score, output and mistake decision for every point: (R, n) arrays (the scores
    and outputs as Q per point)."""
    decl = bl.decl
    scores, outs, take = [], [], np.zeros((R, bl.n), dtype=bool)
    for i in range(bl.n):
        x = _take(bl.rows[i], inst)
        s = _eval(decl.score.tree, _env({**base, "x": x}), R)
        sg = np.sign(s.n).astype(np.int64)
        out = np.where(sg == 0, bl.tie[inst], sg)
        y = integers(bl.y[inst, i])
        m = _eval(decl.mistake.tree, _env({**base, "y": y, "score": s, "out": integers(out)}), R)
        bl.exact(inst[_off(s) | ~_decided(m)])
        scores.append(s)
        outs.append(out)
        take[:, i] = m == I.TRUE
    return scores, np.stack(outs, axis=1), take


def _children(bl, inst, state, sumsq, path, scores, outs, rr, ii, depth, merge):
    """Each update the rows take: the new state, the claim on it (an update claim), the states
    reached again merged."""
    claim, decl = bl.claim, bl.decl
    C = len(rr)
    ci = inst[rr]
    x = integers(bl.X[ci, ii])
    score = _take(A.stack(scores), (rr, ii))  # each row's score of the point it updates on
    parent = {name: _take(v, rr) for name, v in state.items()}
    psumsq = _take(sumsq, rr)
    visit = {"x": x, "y": integers(bl.y[ci, ii]), "score": score, "out": integers(outs[rr, ii]),
             "t": A.const(Fraction(depth + 1), C), "i": integers(ii)}
    env = _env({**bl.constants(ci), **parent, **visit, "k": A.const(Fraction(depth), C)})
    new = dict(parent)
    for name, c in decl.update:
        new[name] = _eval(c.tree, env, C)
    for q in new.values():
        bl.exact(ci[_off(q)])
    sq = A.add(psumsq, A.dot(x, x))
    p2 = np.concatenate([path[rr], ii[:, None]], axis=1)
    if claim.when == "update":
        _claim(bl, ci, {**_run_values(new, sq, depth + 1, C), **visit}, p2, depth + 1, _run_values(parent, psumsq, depth, C))
    # states reached again merged, unless the claim reads the past (two orders to one state have different ones)
    keep = _first_of_each(ci, new, sq) if merge and not _reads_prev(claim) else np.arange(C)
    return ci[keep], {k: _take(v, keep) for k, v in new.items()}, _take(sq, keep), p2[keep]


def _run_values(state: dict, sumsq, k: int, m: int) -> dict:
    """What a claim reads of the run at a step (DeclaredRun.claim_vals): the state (b = 0 without
    one), k, sumsq."""
    vals = dict(state)
    vals.setdefault("b", A.const(Fraction(0), m))
    vals.update({"k": A.const(Fraction(k), m), "sumsq": sumsq})
    return vals


def _end(bl, inst, state, sumsq, path, depth):
    """An end claim at the rows that took no update: the declared outputs (t = epochs = k, one
    visit per update, as DeclaredWalker's runs), the run's counts."""
    m = len(inst)
    kq = A.const(Fraction(depth), m)
    env = _env({**bl.constants(inst), **state, "k": kq, "t": kq,
                "epochs": kq})
    vals = _run_values(state, sumsq, depth, m)
    for name, c in bl.decl.outputs:
        vals[name] = _eval(c.tree, env, m)
    vals.update({"mistakes": kq, "epochs": kq, "t": kq, "converged": A.const(Fraction(1), m),
                 "stopped_by_budget": A.const(Fraction(0), m)})
    _claim(bl, inst, vals, path, depth)


def _claim(bl, inst, vals: dict, path, depth, before=None):
    """The claim (and its premise) at each row for every separator of its instance: evaluations
    counted, the first violation of each instance kept, the undecided sent to the exact walk.
    ``before``: the run's values before the step's update, which prev(e) reads (the step's own x,
    y, t, ... stay the step's, as verify.language.scalar.Env.prev keeps them)."""
    claim = bl.claim
    counts = bl.count[inst]
    er = np.repeat(np.arange(len(inst)), counts)
    pos = np.arange(len(er)) - np.repeat(np.cumsum(counts) - counts, counts)
    sflat = bl.start[inst[er]] + pos
    E = len(er)
    if E == 0:
        return
    if E > MAX_ROWS:  # (an end claim's rows at depth 0: every instance of the block, times its separators)
        raise _TooBig
    lazy = Lazy()
    names = set(claim.compiled.names) | (set(claim.given.names) if claim.given is not None else set()) | {"R"}
    for nm in names - set(vals):
        lazy.put(nm, lambda nm=nm: _take(bl.sep_column(nm), sflat))
    for nm, q in vals.items():
        lazy.put(nm, lambda q=q: _take(q, er))
    with_hats(lazy, A)

    def points(of=lazy):
        envs = []
        for i in range(bl.n):
            pv = of.child()
            pv.put("x", lambda i=i: _take(bl.rows[i], inst[er]))
            pv.put("y", lambda i=i: integers(bl.y[inst[er], i]))
            with_hats(pv, A)
            envs.append(BatchEnv(pv, E))
        return envs

    prevs = {}
    if before is not None:
        back = lazy.child()
        for nm, q in before.items():
            back.put(nm, lambda q=q: _take(q, er))
        with_hats(back, A)
        prevs[1] = BatchEnv(back, E, points=lambda: points(back))
    env = BatchEnv(lazy, E, prevs, points=points)
    ok = np.ones(E, dtype=bool)
    if claim.given is not None:
        g = _eval(claim.given.tree, env, E)
        bl.exact(inst[er][~_decided(g)])
        ok = g == I.TRUE
    c = _eval(claim.compiled.tree, env, E)
    bl.exact(inst[er][ok & ~_decided(c)])
    evaluated = ok & _decided(c)
    for b, cnt in zip(*np.unique(inst[er][evaluated], return_counts=True)):
        bl.out[int(b)].evaluations += int(cnt)
    for j in np.flatnonzero(evaluated & (c == I.FALSE)).tolist():
        o = bl.out[int(inst[er[j]])]
        if o.violation is None and not o.exact:
            o.violation = (depth, tuple(int(v) for v in path[er[j]]), int(pos[j]))


def _first_of_each(inst, state: dict, sumsq) -> np.ndarray:
    """The rows whose (instance, state, sumsq) no row before them has: their indices, in order."""
    if not len(inst):
        return np.zeros(0, dtype=np.int64)
    parts = [inst[:, None]]
    for q in [*(state[k] for k in sorted(state)), sumsq]:
        for f in (q.n, q.d, q.r):
            parts.append(f.reshape(len(inst), -1))
    if any(p.dtype == object for p in parts):
        seen, keep = set(), []
        rows = np.concatenate([p.astype(object) for p in parts], axis=1)
        for j, row in enumerate(map(tuple, rows.tolist())):
            if row not in seen:
                seen.add(row)
                keep.append(j)
        return np.array(keep, dtype=np.int64)
    _, first = np.unique(np.concatenate(parts, axis=1), axis=0, return_index=True)
    return np.sort(first)
