"""The complete engine: every candidate of one shard of the domain, in bounded blocks.

A shard is a run setting (eta, sign(0), form), a number of points n and a prefix of the dataset
(its first point, in the canonical order of verify.searching.domain).  Its datasets are generated
in blocks of at most BLOCK_DATASETS; each block's instances (dataset x separator x w0) are run
breadth first, every misclassified point taken at each step (``order any``) or the order's one;
states that behave the same from then on are merged.  Candidates are screened in batches by
interval arithmetic (perceptron._interval), and those it cannot decide replayed exactly.

Order.  Within a shard the first counterexample is the one with the fewest updates, then the
earliest block, instance and update sequence (lexicographic); a later block only searches runs
shorter than the best so far.  Memory.  A block whose frontier would exceed ``max_rows`` states
is split in halves, each run from the start (so the result and the count of candidates do not
depend on the split); one instance that alone exceeds it stops the shard with "memory".
"""

from __future__ import annotations

import functools
import itertools
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from perceptron import _interval as I
from perceptron.variants import VARIANTS
from verify.language.free import FREE_BOX, FREE_VALUES, MAX_ASSIGNMENTS, MAX_FREE_DIM
from verify.numbers.integers import first_rows
from verify.searching.candidates import quantities, subset
from verify.searching.confirm import candidate_run, confirm
from verify.searching.domain import (MAX_W0, UNIT_DENOMINATOR, Domain, SearchError, choose_separators,
                                      claim_names, first_length, flips_datasets, label_symmetric, late_names, needs_separator,
                                      order_names, point_list, range_blocks, separators, sequence_of, symmetries, widest_arrays)
from verify.searching.orbits import canonical, rotation_symmetric
from verify.searching.radicals import Radicals
from verify.searching.scopes import WALK_SHARE
from verify.searching.visits import SplitBlock, VisitOrders
from verify.language.assumptions import CONVERGED, NONSEPARABLE, NONTRIVIAL, RATCHET

__all__ = ["Enumerator", "ShardResult", "Budget", "BLOCK_DATASETS", "row_bytes"]

#: Rows the interval screen is tried on before it is dropped for a claim it decides under 2% of
#: (an equality it cannot certify): a deterministic rule, so results do not depend on timing.
SCREEN_TRIAL = 2000
#: A run's updates, as the indices of the points taken (a domain has at most 12: LIMITS["points"]).
PATH_DTYPE = np.int16
#: Datasets generated at a time in a shard (the block's arrays are a few int64 values per
#: dataset, point and coordinate).
BLOCK_DATASETS = 4096


def row_bytes(dom: Domain, prev_depth: int) -> int:
    """Bytes one frontier state can take at its peak (its arrays, the children and scores of its
    expansion, the merge's key and sort): the unit of the memory budget."""
    d, n, k = dom.dim, dom.points, dom.max_updates
    state = 8 * (d + 5 + k + prev_depth * (d + 3))
    return 6 * state + 40 * n * (d + 2)


class Stop(Exception):
    """A limit was reached: ``kind`` is timeout, memory, budget (exact evaluations) or candidates."""

    def __init__(self, kind):
        super().__init__(kind)
        self.kind = kind


@dataclass
class Budget:
    """Deterministic limits shared by the shards of one in-process search (the audit's)."""
    max_exact: int | None = None
    max_candidates: int | None = None
    exact: int = 0
    checked: int = 0


@dataclass
class ShardResult:
    index: int
    status: str  # complete, timeout, memory, budget, candidates
    found: tuple | None = None  # (key, counterexample)
    checked: int = 0
    exact: int = 0
    walked: int = 0  # budget units the walk of runs took (verify.searching.scopes.WALK_SHARE)
    datasets: int = 0  # datasets of the shard completed
    worst: dict | None = None
    seconds: float = 0.0
    worker: str = field(default="")


class Enumerator(VisitOrders):
    """Enumerates the shards of one setting (eta, sign(0), form) of the domain.  Weights are
    kept as integers W = S w with S = q (eta = p/q), times 2 for the 1/2 eta (y - out) x form,
    times L for unit-circle points."""

    def __init__(self, claim, dom: Domain, setting):
        self.claim, self.dom = claim, dom
        self.var = VARIANTS[dom.variant]
        self.bias = self.var.bias is not None
        eta, sign0, form = setting
        self.eta, self.sign0, self.form = eta, sign0, form
        self.tie = self.var.tie if self.var.tie is not None else sign0
        self.fold = label_symmetric(claim, dom.variant, self.tie)
        self.need_sep = needs_separator(claim)
        self.L = UNIT_DENOMINATOR if dom.unit else 1  # x = X / L
        if dom.unit and self.bias:
            raise SearchError("unit-circle domains are for variants without a bias")
        self.f = 2 if form == "half" else 1
        self.S = eta.denominator * self.f * self.L  # w = W / S
        self.p = eta.numerator
        self.prev_depth = claim.compiled.uses_prev
        self.P, self.PY = point_list(dom.dim, dom.box, self.fold, dom.unit)
        self.W0, self.B0 = self._w0s(dom.dim)
        self._check_overflow()
        self.worst = None  # the bound tree in tightness mode
        self._perm_cache: dict = {}  # random:SEED: the epochs' permutations, per number of points
        # the claim reads where a visit is in its sweep, or in the run (t), or the run's epochs
        self.sweeps = bool(order_names(claim))
        self.ratchet = RATCHET in claim.assume  # the pocket's rule (the search runs one: verify.searching)
        self.budget = None
        self._screened = self._decided = 0  # rows the interval screen saw, and decided
        self.free = self._free_assignments()
        self.budget_stops = "stopped_by_budget" in claim_names(claim)
        self.late = late_names(claim)  # whole-run quantities read before the run's end
        self.seq = sequence_of(dom.order)  # a sequence order's points (None for another order)
        # one dataset of each orbit of the rotations and reflections and label flips the claim cannot tell apart
        rot, flip = rotation_symmetric(claim, dom), flips_datasets(claim, dom, sign0)
        self.maps = symmetries(dom.dim, dom.box, self.fold, dom.unit, rot, flip) if rot or flip else ()

    # ---- set-up
    def _w0s(self, dim):
        """Initial (w0, b0) pairs, integers; (0, 0) first."""
        r = range(-self.dom.w0_box, self.dom.w0_box + 1)
        ws = list(itertools.product(r, repeat=dim))
        bs = list(r) if self.bias else [0]
        pairs = sorted(((w, b) for w in ws for b in bs), key=lambda wb: (max(map(abs, wb[0] + (wb[1],))), wb))
        if len(pairs) > MAX_W0:
            raise SearchError(f"{len(pairs)} initial weight vectors; a search takes at most {MAX_W0} (MAX_W0)")
        return np.array([w for w, _ in pairs], dtype=np.int64).reshape(len(pairs), dim), np.array([b for _, b in pairs], dtype=np.int64)

    def _check_overflow(self):
        """Refuse a setting whose integer weights, biases or scores could leave int64, bounded
        in Python integers before any array is built: |W| <= S |w0| + K p f |x|, |B| <= S |b0| +
        K p R^2, |score| <= |W| |x| d + |B| L."""
        K, S, p, f = self.dom.max_updates, self.S, self.p, self.f
        xmax = int(np.abs(self.P).max(initial=0))
        r2 = int((self.P * self.P).sum(axis=1).max(initial=0))
        wmax = S * int(np.abs(self.W0).max(initial=0)) + K * p * f * xmax
        bmax = S * int(np.abs(self.B0).max(initial=0)) + K * p * r2
        if wmax * xmax * self.dom.dim + bmax * self.L > 2**62:
            raise SearchError(f"eta = {self.eta} with this box, w0 box and {K} updates would overflow 64-bit integers; "
                              "use a smaller box, a simpler eta or a smaller w0 box")

    # ---- a shard
    def run_shard(self, index, n, firsts, deadline, max_rows, budget=None, cap=None) -> ShardResult:
        """Enumerate every dataset of n points whose first point index is in ``firsts`` ([lo,
        hi), or () for all) (runs of at most ``cap``
        updates: a counterexample earlier in the order has cap + 1); stop at ``deadline``
        (time.time()) or when one instance needs more than ``max_rows`` frontier states."""
        self.deadline, self.max_rows, self.budget = deadline, max_rows, budget
        self.checked = self.exact = self.walked = 0
        t0 = time.monotonic()
        res = ShardResult(index, "complete")
        best = None  # (depth, block, instance, path, counterexample)
        limit = self.dom.max_updates if cap is None else cap
        try:
            for b, idx in enumerate(range_blocks(len(self.P), n, self.dom.order != "any", firsts, BLOCK_DATASETS)):
                if best is not None:  # a later block comes first only with a shorter run
                    limit = best[0] - 1
                    if limit < first_length(self.claim):
                        break
                self._tick()
                inst = self._instances(idx)
                if inst is not None:
                    got = self._block(inst, n, limit)
                    if got is not None and self.worst is None:
                        best = (got[0], b, got[1], got[2], got[3])
                res.datasets += len(idx)
        except Stop as e:
            res.status = e.kind
        except MemoryError:  # the address-space cap (verify.cli --max-memory) under the frontier budget
            res.status = "memory"
        res.checked, res.exact, res.walked = self.checked, self.exact, self.walked
        if best is not None:
            res.found = ((best[0], best[1], best[2], tuple(best[3])), best[4])
        if self.worst is not None:
            res.worst = self.worst[1]
        res.seconds = time.monotonic() - t0
        return res

    def _tick(self):
        if time.time() > self.deadline:
            raise Stop("timeout")

    def _instances(self, idx):
        if self.maps:
            idx = idx[canonical(idx, self.maps, self.dom.order != "any")]
        X, Y = self.P[idx], self.PY[idx]
        keep = (X != 0).any(axis=(1, 2))  # R = 0 leaves b/R and x/R undefined: not in D
        if NONTRIVIAL in self.claim.assume:
            keep &= (Y == 1).any(axis=1) & (Y == -1).any(axis=1)
        X, Y = X[keep], Y[keep]
        if NONSEPARABLE in self.claim.assume and len(X):
            X, Y = self._nonseparable(X, Y)
        if self.need_sep and len(X):
            V, C = separators(self.dom.dim, self.dom.sep_box, self.bias)
            if self.L != 1:
                C = C * self.L  # c over the points' denominator
            if self.bias and self.dom.separators == "best":  # the maximum-margin hyperplane, exactly
                mi, sepV, sepC, marg = widest_arrays(X, Y, self.L)
                X, Y = X[mi], Y[mi]
            else:
                mi, si, margins = choose_separators(X, Y, V, C, self.dom.separators)
                X, Y = X[mi], Y[mi]
                sepV, sepC, marg = V[si], C[si], margins
        else:
            sepV = sepC = marg = None
        if len(X) == 0:
            return None
        R2 = (X * X).sum(axis=2).max(axis=1)
        inst = {"X": X, "Y": Y, "R2": R2, "V": sepV, "C": sepC, "M": marg}
        if self.claim.when == "dataset":
            return self._with_free(inst) if self.free is not None else inst
        M, K = len(X), len(self.W0)
        if K > 1:  # instances: every dataset (and separator) with every w0
            rep = np.repeat(np.arange(M), K)
            inst = {k: (v[rep] if v is not None else None) for k, v in inst.items()}
            inst["W0"], inst["B0"] = np.tile(self.W0, (M, 1)), np.tile(self.B0, M)
        else:
            inst["W0"], inst["B0"] = np.repeat(self.W0, M, axis=0), np.repeat(self.B0, M)
        return inst

    def _nonseparable(self, X, Y):
        """The datasets with an exact non-separability certificate: those no integer separator
        of the domain separates, each certified as ``certify`` does (exact, whatever the
        floating-point solver said); a dataset it cannot certify is not in D."""
        V, C = separators(self.dom.dim, self.dom.sep_box, self.bias)
        split, _, _ = choose_separators(X, Y, V, C * self.L, "best")  # separated by a grid separator: separable
        keep = np.ones(len(X), dtype=bool)
        keep[split] = False
        for j in np.nonzero(keep)[0]:
            keep[j] = _certified_nonseparable(tuple(sorted(zip(map(tuple, X[j].tolist()), Y[j].tolist()))), self.L,
                                              self.bias)
        return X[keep], Y[keep]

    def _free_assignments(self):
        """{name: (numerators, denominators)} of every assignment of the claim's free names, in
        the order of verify.language.free (the replay's, which confirms), or None."""
        free = self.claim.free
        if not free:
            return None
        if any(ty == "vector" for ty in free.values()) and self.dom.dim > MAX_FREE_DIM:
            raise SearchError(f"claim {self.claim.id}: free vectors are enumerated in dimension <= {MAX_FREE_DIM} "
                              "(verify.language.free.MAX_FREE_DIM)")
        pools = [[(np.array(v, dtype=np.int64), 1) for v in itertools.product(range(-FREE_BOX, FREE_BOX + 1),
                                                                               repeat=self.dom.dim)]
                 if ty == "vector" else [(np.int64(f.numerator), f.denominator) for f in FREE_VALUES[ty]]
                 for ty in free.values()]
        combos = list(itertools.product(*pools))
        if len(combos) > MAX_ASSIGNMENTS:
            raise SearchError(f"claim {self.claim.id}: {len(combos)} assignments of its free names > {MAX_ASSIGNMENTS} "
                              "(verify.language.free.MAX_ASSIGNMENTS)")
        return {name: (np.array([c[j][0] for c in combos]), np.array([c[j][1] for c in combos], dtype=np.int64))
                for j, name in enumerate(free)}

    def _with_free(self, inst):
        """Every dataset with every assignment of the free names (as arrays F:NAME, D:NAME)."""
        M, K = len(inst["X"]), len(next(iter(self.free.values()))[0])
        rep = np.repeat(np.arange(M), K)
        out = {k: (v[rep] if v is not None else None) for k, v in inst.items()}
        for name, (num, den) in self.free.items():
            out["F:" + name] = np.tile(num, (M,) + (1,) * (num.ndim - 1))
            out["D:" + name] = np.tile(den, M)
        return out

    def _block(self, inst, n, cap):
        """(depth, instance, path, counterexample) of the block's first counterexample, or None (split past max_rows)."""
        rows = len(inst["X"])
        saved = (self.checked, self.exact, None if self.budget is None else (self.budget.checked, self.budget.exact), self.walked)
        try:
            if rows > self.max_rows:
                raise SplitBlock
            if (self.late or self.seq) and "E:mistakes" not in inst:
                inst = self._with_ends(inst)
                # the domain: the runs that converge within its update bound (assume converged), the
                # runs that make the whole sequence (a prefix the learner cannot continue is no run)
                keep = np.ones(rows, dtype=bool)
                if CONVERGED in self.claim.assume:
                    keep &= inst["E:converged"] == 1
                if self.seq:
                    keep &= inst["E:complete"] == 1
                if not keep.all():
                    sel = np.nonzero(keep)[0]
                    got = self._block(subset(inst, sel), n, cap) if len(sel) else None
                    return None if got is None else (got[0], int(sel[got[1]]), got[2], got[3])
            if self.claim.when == "dataset":
                got = self._check_batch(inst, np.arange(rows), None, 0, n)
                return None if got is None else (0, got[0], [], got[1])
            return self._bfs(inst, n, cap)
        except SplitBlock:
            if rows == 1:
                raise Stop("memory") from None
            self.checked, self.exact, self.walked = saved[0], saved[1], saved[3]  # the halves count their own work
            if self.budget is not None:
                self.budget.checked, self.budget.exact = saved[2]
            h = rows // 2
            first = self._block(subset(inst, slice(0, h)), n, cap)
            if first is not None and self.worst is None:
                cap = first[0] - 1
                if cap < first_length(self.claim):
                    return first
            second = self._block(subset(inst, slice(h, rows)), n, cap)
            if second is not None and self.worst is None:
                return (second[0], second[1] + h, second[2], second[3])
            return first

    # ---- runs
    def _with_ends(self, inst):
        """``inst`` with each instance's run end (E:mistakes, E:epochs, E:converged, E:stopped_by_budget): its run
        in the domain's (deterministic) order followed to convergence or to the domain's update bound, which cuts
        it (stopped by budget, as the learner's --max-updates does; such a run makes no visit after its last update)."""
        M = len(inst["X"])
        ends = {k: np.zeros(M, dtype=np.int64) for k in ("mistakes", "epochs", "converged", "stopped_by_budget", "complete")}
        self._bfs(inst, inst["X"].shape[1], self.dom.max_updates, ends=ends)
        return {**inst, **{"E:" + k: v for k, v in ends.items()}}

    def _bfs(self, inst, n, cap, ends=None):
        """The block's runs breadth first, the claim checked where it speaks; with ``ends`` (a
        dict of arrays by instance) nothing is checked and each run's end is recorded there."""
        X, Y = inst["X"], inst["Y"]
        M = len(X)
        p, f = self.p, self.f
        # b += eta y R^2 (novikoff) or eta y (sklearn): in units of 1/S
        # (the bias variants have neither the half form nor unit-circle points: f = L = 1)
        eta_b = self.var.bias_scale(lambda: inst["R2"], np.ones(M, dtype=np.int64))
        # a state: instance, w, b, sumsq, position, path, history of (w, b, k, sumsq)
        st = {"inst": np.arange(M), "w": inst["W0"] * self.S, "b": inst["B0"] * self.S,
              "sumsq": np.zeros(M, dtype=np.int64), "pos": np.zeros(M, dtype=np.int64), "ep": np.zeros(M, dtype=np.int64),
              "sm": np.zeros(M, dtype=np.int64),  # the epoch at pos (0-based), its mistakes before pos
              "t": np.zeros(M, dtype=np.int64),  # visits made (deterministic orders)
              # the pocket: its weights, the run of correct visits they had, the fewest errors of any w held
              "wp": inst["W0"] * self.S, "runp": np.zeros(M, dtype=np.int64), "minerr": np.full(M, X.shape[1] + 1),
              "path": np.zeros((M, 0), dtype=PATH_DTYPE), "hist": []}
        end, visit, upd = self.claim.when == "end", self.claim.when == "visit", self.claim.when == "update"
        if ends is not None:
            end, visit, upd = True, False, False
        for depth in range(1, cap + 1):
            self._tick()
            Xi, Yi = X[st["inst"]], Y[st["inst"]]
            scores = np.einsum("mnd,md->mn", Xi, st["w"]) + st["b"][:, None] * self.L
            out = np.sign(scores)
            out[out == 0] = self.tie
            mist = out != Yi
            if self.var.pocket:  # this state's w is held: its errors count
                st["minerr"] = np.minimum(st["minerr"], mist.sum(axis=1))
            if end and not self.seq:  # runs that converged after depth - 1 updates (0: before any)
                got = self._check_end(inst, st, ~mist.any(axis=1), depth - 1, n, ends)
                if got is not None:
                    return got
            if visit:  # the visits each state makes before its next update
                got = self._check_visits(inst, st, mist, scores, depth - 1, n)
                if got is not None:
                    return got
            order = self.dom.order.split(":")[0]
            si, pi, vep, vpos = self._next_updates(order, mist, scores, Yi, st, depth)
            if len(si) == 0:
                return None
            if not upd:  # the states a run walks to its visits or end count too (an update claim checks each)
                self._count(-(-len(si) // WALK_SHARE), walked=True)
            vsm = np.where(vep == st["ep"][si], st["sm"][si], 0) + 1 if order != "any" else None
            if len(si) > self.max_rows:
                raise SplitBlock
            ins = st["inst"][si]
            x = X[ins, pi]
            y = Y[ins, pi]
            o = out[si, pi]
            w_prev, b_prev = st["w"][si], st["b"][si]
            coef = p * (y - o) if f == 2 else p * y  # W += S eta y x = p f y x (or p (y - out) x)
            new = {"inst": ins, "w": w_prev + coef[:, None] * x,
                   "b": b_prev + (coef * eta_b[ins] if eta_b is not None else 0),  # B += S eta y R^2 = p y R^2
                   "sumsq": st["sumsq"][si] + np.einsum("md,md->m", x, x),
                   **self._after(order, vpos, vep, vsm, X.shape[1]),
                   "t": st["t"][si] + (pi + 1 if order == "first" else 1 if order in ("max-violation", "sequence") else
                                       (vep - st["ep"][si]) * X.shape[1] + vpos - st["pos"][si] + 1),
                   **(self._pocket(st, si, mist, Xi, Yi, order, vep, vpos, pi) if self.var.pocket else {}),
                   "path": np.hstack([st["path"][si], pi[:, None].astype(PATH_DTYPE)]),
                   "hist": ([(h[0][si], h[1][si], h[2], h[3][si]) for h in st["hist"]]
                            + [(w_prev, b_prev, depth - 1, st["sumsq"][si])])[-max(self.prev_depth, 1):]}
            if upd:
                edge = {"x": x, "y": y, "score": scores[si, pi], "i": pi}
                if order != "any":  # the update's visit in its sweep, and in the run
                    edge.update({"sweep": vep + 1, "sweep_visits": vpos + 1, "sweep_mistakes": vsm, "t": new["t"]})
                got = self._check_batch(inst, ins, new, depth, n, edge)
                if got is not None:
                    return (depth, int(ins[got[0]]), [int(v) for v in new["path"][got[0]]], got[1])
            st = self._dedupe(new)
        if end or visit:
            return self._after_cap(inst, st, n, cap, ends, visit)
        return None

    def _after_cap(self, inst, st, n, cap, ends, visit):
        """The states after ``cap`` updates: the visits they still make (a visit claim), else
        their ends (converged, or cut by the domain's update bound)."""
        X, Y = inst["X"], inst["Y"]
        Xi, Yi = X[st["inst"]], Y[st["inst"]]
        scores = np.einsum("mnd,md->mn", Xi, st["w"]) + st["b"][:, None] * self.L
        out = np.sign(scores)
        out[out == 0] = self.tie
        if self.var.pocket:
            st["minerr"] = np.minimum(st["minerr"], (out != Yi).sum(axis=1))
        if visit:
            if self.seq:  # a sequence run makes no visit after its last update
                return None
            if self.late:  # a run the update bound cut makes no visit after its last update
                keep = np.nonzero(inst["E:stopped_by_budget"][st["inst"]] == 0)[0]
                st, out, Yi, scores = subset(st, keep), out[keep], Yi[keep], scores[keep]
            return self._check_visits(inst, st, out != Yi, scores, cap, n)
        conv = ~(out != Yi).any(axis=1)
        if self.seq and cap < len(self.seq):  # a cap lowered by an earlier counterexample: no run ends here
            return None
        got = self._check_end(inst, st, conv, cap, n, ends)
        # the runs the domain's update bound cut (stopped by budget), and a sequence's runs that end unconverged
        if got is None and (self.budget_stops or ends is not None or self.seq) and cap == self.dom.max_updates:
            # (a cap lowered by a counterexample found earlier is no bound of the domain's runs)
            got = self._check_end(inst, {**st, "stopped": True}, ~conv, cap, n, ends)
        return got

    def _dedupe(self, st):
        """Merge states that behave the same from here on (same instance, weights, position,
        and the history the claim can look back on); keep the first (lexicographically
        smallest) path."""
        parts = [st["inst"][:, None], st["w"], st["b"][:, None], st["pos"][:, None]]
        if self.sweeps or self.dom.order.startswith("random:"):  # the epoch matters (and its mistakes and visits, to sweeps)
            parts += [st["ep"][:, None], st["sm"][:, None], st["t"][:, None]]
        if self.var.pocket:  # what the pocket holds, and (with its run, in a deterministic order) what it will take
            parts += [st["wp"], st["runp"][:, None], st["minerr"][:, None], st["ep"][:, None], st["pos"][:, None]]
        if "alpha" in self.claim.compiled.names and st["path"].shape[1]:  # the same w by other counts per point
            pts = np.arange(int(st["path"].max()) + 1)
            parts.append((st["path"][:, :, None] == pts[None, None, :]).sum(axis=1))
        if self.prev_depth or "sumsq" in self.claim.compiled.names:
            parts.append(st["sumsq"][:, None])
            for h in st["hist"][-self.prev_depth:] if self.prev_depth else []:
                parts += [h[0], h[1][:, None]]
        return subset(st, first_rows(parts))

    def _check_end(self, inst, st, conv, depth, n, ends=None):
        sel = np.nonzero(conv)[0]
        if len(sel) == 0:
            return None
        sub = subset(st, sel)
        if ends is not None:  # recording the runs' ends (_with_ends)
            stopped = int(bool(st.get("stopped")))
            rows = sub["inst"]
            ends["mistakes"][rows] = depth
            ends["converged"][rows] = 1 - stopped
            ends["stopped_by_budget"][rows] = stopped
            ends["epochs"][rows] = self._epochs_at_end(sub, depth)
            ends["complete"][rows] = 1  # the run reached an end (a sequence's prefix the learner refuses does not)
            return None
        if self.sweeps:  # the run's epochs, as the learner counts them
            sub["epochs"] = self._epochs_at_end(sub, depth)
        if self.var.pocket:
            sub.update(self._pocket_at_end(inst, sub))
        got = self._check_batch(inst, sub["inst"], sub, depth, n)
        if got is None:
            return None
        return (depth, int(sub["inst"][got[0]]), [int(v) for v in sub["path"][got[0]]], got[1])

    def _check_visits(self, inst, st, mist, scores, depth, n):
        """A visit claim at the visits each state makes before its next update, in its order
        (``first``: from point 0; ``cyclic``: from the state's position), up to and including
        the next mistake, or every point when there is none (the run's last, clean pass); the
        state's w, b and k = ``depth`` are those the visits see."""
        nn = mist.shape[1]
        sweep = None
        if self.dom.order.startswith("random:"):
            si, pi, sweep = self._random_visits(st, mist)
        elif self.dom.order == "max-violation":
            si, pi, sweep = self._max_violation_visits(st, mist, scores, inst["Y"][st["inst"]], depth)
        elif self.seq:  # the step's visit: the named point, where it is a mistake
            si, pi, _, _ = self._next_updates("sequence", mist, scores, None, st, depth + 1)
            one = np.ones(len(si), dtype=np.int64)
            sweep = {"sweep": one * (depth + 1), "sweep_visits": one, "sweep_mistakes": one, "_offset": 0 * one}
        else:
            off = np.arange(nn)[None, :] if self.dom.order == "first" else (np.arange(nn)[None, :] - st["pos"][:, None]) % nn
            nxt = np.where(mist, off, nn).min(axis=1)  # offset of the next mistake; nn: none
            si, pi = np.nonzero(off <= nxt[:, None])
            if len(si) > self.max_rows:
                raise SplitBlock
            by_visit = np.lexsort((np.broadcast_to(off, mist.shape)[si, pi], si))  # each state's visits in its order
            si, pi = si[by_visit], pi[by_visit]
            if self.sweeps:
                si, pi, sweep = self._visit_sweeps(st, mist, off, nxt, si, pi, depth)
        if sweep is not None:
            sweep["t"] = st["t"][si] + sweep.pop("_offset") + 1
        sub = subset(st, si)
        ins = sub["inst"]
        edge = {"x": inst["X"][ins, pi], "y": inst["Y"][ins, pi], "score": scores[si, pi], "i": pi, **(sweep or {})}
        got = self._check_batch(inst, ins, sub, depth, n, edge)
        if got is None:
            return None
        return (depth, int(ins[got[0]]), [int(v) for v in sub["path"][got[0]]], got[1])

    # ---- evaluation
    def _count(self, m, walked=False):
        """Count m candidates (``walked``: m budget units of states walked, not candidates)."""
        self.walked, self.checked = (self.walked + m, self.checked) if walked else (self.walked, self.checked + m)
        b = self.budget
        if b is not None:
            b.checked += m
            if b.max_candidates is not None and b.checked > b.max_candidates:
                raise Stop("candidates")

    def _check_batch(self, inst, ins, state, depth, n, edge=None):
        """(row, counterexample) of the first row (in order) the claim fails on, or None."""
        m = len(ins)
        if state is not None and depth < self.prev_depth:
            return None  # prev(e, j) before the j-th update: the claim does not speak here
        if self.worst is not None:
            return self._track_worst(inst, ins, state, depth, edge)
        self._count(m)
        if self._screened < SCREEN_TRIAL or self._decided * 50 >= self._screened:
            res = self._screen(inst, ins, state, edge, depth, I.Intervals)
            self._screened += m
            self._decided += int((res != I.UNDECIDED).sum())
        else:  # intervals decide next to nothing for this claim (equalities): straight to the exact screen
            res = np.full(m, I.UNDECIDED)
        und = np.nonzero(res == I.UNDECIDED)[0]
        if len(und):  # what intervals cannot decide (an equality, a bound met exactly), exactly
            res[und] = self._screen(inst, ins[und], subset(state, und), subset(edge, und), depth, Radicals)
        # a row where the claim is undefined (a division by zero) is no counterexample: the
        # replay would say so and stop, as it does for the screen's TRUE
        for j in np.nonzero((res == I.FALSE) | (res == I.UNDECIDED))[0]:
            self._tick()
            self.exact += 1
            b = self.budget
            if b is not None:
                b.exact += 1
                if b.max_exact is not None and b.exact > b.max_exact:
                    raise Stop("budget")
            found = self._confirm(inst, int(ins[j]), state, j)
            if found is not None:
                return int(j), found
        return None

    def _screen(self, inst, ins, state, edge, depth, arith):
        """TRUE, FALSE or UNDECIDED for each candidate, by the claim evaluated in ``arith``."""
        try:
            if arith is I.Intervals:  # a row where a value may be undefined is decided exactly
                arith = I.WatchedIntervals(len(ins))
            env = quantities(self, inst, ins, state, edge, depth, arith)
            res = I.ieval_distinct(self.claim.compiled.tree, env, len(ins), arith)
            return np.where(arith.doubt, I.UNDECIDED, res) if isinstance(arith, I.WatchedIntervals) else res
        except (I.IntervalError, IndexError, ValueError, ArithmeticError):
            return np.full(len(ins), I.UNDECIDED)

    def _track_worst(self, inst, ins, state, depth, edge):
        m = len(ins)
        self._count(m)
        env = quantities(self, inst, ins, state, edge, depth)
        lo, hi = I.ieval(self.worst[0], env, m)
        ratio = depth / np.maximum(hi, 1e-300)
        j = int(np.argmax(ratio))
        if self.worst[1] is None or ratio[j] > self.worst[1]["ratio"]:
            mi = int(ins[j])
            self.worst[1] = {"ratio": float(ratio[j]), "updates": depth, "bound": float(hi[j]),
                             "points": inst["X"][mi].tolist(), "labels": inst["Y"][mi].tolist(),
                             "path": [int(p) for p in state["path"][j]],
                             "separator": None if inst["V"] is None else [int(v) for v in inst["V"][mi]]}
        return None

    def _confirm(self, inst, mi, state, j):
        X, Y = inst["X"][mi], inst["Y"][mi]
        path = [int(p) for p in state["path"][j]] if state is not None else []
        sep = None
        if inst["V"] is not None:
            sep = ([int(v) for v in inst["V"][mi]], Fraction(int(inst["C"][mi]), self.L))
        pts = [[Fraction(int(c), self.L) for c in row] for row in X.tolist()]
        w0 = b0 = None
        if "W0" in inst and (inst["W0"][mi].any() or inst["B0"][mi]):
            w0 = tuple(Fraction(int(c)) for c in inst["W0"][mi])
            b0 = Fraction(int(inst["B0"][mi])) if self.bias else None
        cut = state is not None and not self.seq and (
            state.get("stopped") or ("E:stopped_by_budget" in inst and inst["E:stopped_by_budget"][mi]))
        run = candidate_run(self.dom.variant, path, self.dom.order, sign0=self.tie, eta=self.eta, w0=w0, b0=b0,
                            form=self.form, ratchet=self.ratchet, max_updates=self.dom.max_updates if cut else None)
        return confirm(self.claim, pts, Y.tolist(), path, sep, run, strict=True)


@functools.lru_cache(maxsize=1 << 16)
def _certified_nonseparable(points: tuple, L: int, bias: bool) -> bool:
    """Whether the labelled points ((integer numerators over L, label), sorted: the orders of
    one set recur) have an exact non-separability certificate (verify.certify: a convex
    combination of the y_i x_i, or of the two classes with a bias, that is exactly zero)."""
    from verify.certify.certificates import certify_points

    rows = [[Fraction(c, L) for c in p] for p, _ in points]
    return certify_points(rows, [y for _, y in points], bias=bias).kind == "nonseparable"
