"""How a candidate run of the enumeration moves from one update to the next, in each order the
learner has: under ``any`` every mistake of every state; ``first``, ``cyclic``, ``random:SEED``
and ``max-violation`` one point, at its visit of a sweep; the pocket's runs of correct visits
and an epoch-bounded run's ends (verify.searching.enumeration.Enumerator steps its states with
these)."""

from __future__ import annotations

import numpy as np

from perceptron.params import epoch_permutations

__all__ = ["VisitOrders", "SplitBlock"]


class SplitBlock(Exception):
    """A block of states outgrew its rows: the enumeration splits it and steps each half."""


class VisitOrders:
    """The visit-order half of the enumeration's stepping (a mixin of Enumerator: it reads the
    enumerator's domain, claim and caches)."""

    def _next_updates(self, order, mist, scores, Yi, st, depth):
        """(state rows, point, its visit's epoch and position in its sweep) of each state's next
        update in the domain's order; ``any`` takes every mistake of every state."""
        if order == "random":  # the first mistake at or after pos in this epoch's permutation, else in the next's
            return self._random_next(mist, st)
        if order == "any":  # no sweeps
            si, pi = np.nonzero(mist)
            return si, pi, np.zeros(len(si), dtype=np.int64), pi
        if order == "cyclic":  # the first mistake at or after pos; its visit in this epoch or (wrapped) the next
            nn = mist.shape[1]
            shift = (np.arange(nn)[None, :] + st["pos"][:, None]) % nn
            rolled = np.take_along_axis(mist, shift, axis=1)
            si = np.nonzero(rolled.any(axis=1))[0]
            pi = (np.argmax(rolled[si], axis=1) + st["pos"][si]) % nn
            return si, pi, st["ep"][si] + (pi < st["pos"][si]), pi
        if order == "sequence":  # the named point, where it is a mistake (elsewhere the sequence makes no run)
            # (a dataset without every named point makes no run: the learner refuses the sequence)
            j = self.seq[depth - 1] if depth <= len(self.seq) and max(self.seq) < mist.shape[1] else mist.shape[1]
            si = np.nonzero(mist[:, j])[0] if j < mist.shape[1] else np.zeros(0, dtype=np.int64)
            pi = np.full(len(si), j, dtype=np.int64)
        else:
            si = np.nonzero(mist.any(axis=1))[0]
            pi = np.argmax(mist[si], axis=1) if order == "first" else \
                np.argmin(np.where(mist[si], scores[si] * Yi[si], np.iinfo(np.int64).max), axis=1)
        # first: each update ends a scan of its own; max-violation and sequence: a scan visits the point it updates
        vpos = pi if order == "first" else np.zeros(len(si), dtype=np.int64)
        return si, pi, np.full(len(si), depth - 1, dtype=np.int64), vpos

    def _random_next(self, mist, st):
        """(state rows, point, its visit's epoch and position in it) of the next update of each state in the
        ``random:SEED`` order: the learner visits epoch e (0-based) in the e-th permutation its
        generator draws, which is the same for every dataset of n points; a state is at
        position ``pos`` of epoch ``ep``.  With no mistake left in its epoch the next is the first
        in the next epoch's permutation (a state with no mistake at all has converged)."""
        nn = mist.shape[1]
        perms = self._perms(nn)
        si = np.nonzero(mist.any(axis=1))[0]
        ep, pos = st["ep"][si], st["pos"][si]
        cur = perms[ep]
        in_cur = np.take_along_axis(mist[si], cur, axis=1) & (np.arange(nn)[None, :] >= pos[:, None])
        here = in_cur.any(axis=1)
        nxt = perms[ep + 1]
        in_nxt = np.take_along_axis(mist[si], nxt, axis=1)
        at = np.where(here, np.argmax(in_cur, axis=1), np.argmax(in_nxt, axis=1))
        ep = ep + ~here
        pi = np.where(here, cur[np.arange(len(si)), at], nxt[np.arange(len(si)), at])
        return si, pi, ep, at

    def _visit_sweeps(self, st, mist, off, nxt, si, pi, depth):
        """The visits' sweeps (number, visits in it, mistakes in it so far with this one's), and
        in the cyclic order the visits a clean pass from a position past 0 adds: the rest of its
        epoch is clean, and so is the whole next one, the run's last (the learner stops after a
        clean epoch)."""
        nn = mist.shape[1]
        offset = np.broadcast_to(off, mist.shape)[si, pi]  # visits before this one since the state's
        if self.dom.order == "first":  # a scan from point 0 for each update: the k-th state's scan is epoch k
            vep, vsm = np.full(len(si), depth, dtype=np.int64), mist[si, pi].astype(np.int64)
        else:
            wrapped = st["pos"][si] + offset >= nn
            vep = st["ep"][si] + wrapped
            vsm = np.where(wrapped, 0, st["sm"][si]) + mist[si, pi]
            cs, cp = np.nonzero((nxt[:, None] == nn) & (np.arange(nn)[None, :] >= st["pos"][:, None])
                                & (st["pos"][:, None] > 0))
            si, pi = np.concatenate([si, cs]), np.concatenate([pi, cp])
            vep = np.concatenate([vep, st["ep"][cs] + 1])
            vsm = np.concatenate([vsm, np.zeros(len(cs), dtype=np.int64)])
            offset = np.concatenate([offset, nn - st["pos"][cs] + cp])
            if len(si) > self.max_rows:
                raise SplitBlock
            by_visit = np.lexsort((offset, si))  # each state's visits together, in visit order (the canonical order)
            si, pi, vep, vsm, offset = si[by_visit], pi[by_visit], vep[by_visit], vsm[by_visit], offset[by_visit]
        return si, pi, {"sweep": vep + 1, "sweep_visits": pi + 1, "sweep_mistakes": vsm, "_offset": offset}

    def _random_visits(self, st, mist):
        """The visits of each state before its next update in the ``random:SEED`` order, in visit
        order: the rest of its epoch's permutation from ``pos``, then the next epoch's, up to and
        including the next mistake; with none, the run's last visits (the rest of its epoch, which
        is clean, and when that epoch made an update, pos > 0, the whole clean epoch after it).
        Returns (state rows, points, their sweeps with each visit's offset from the state)."""
        nn = mist.shape[1]
        perms = self._perms(nn)
        pos, ep = st["pos"][:, None], st["ep"]
        j = np.arange(2 * nn)[None, :]
        cur = j < nn - pos  # in the rest of this epoch; else in the next one
        seq = np.where(cur, np.take_along_axis(perms[ep], np.minimum(pos + j, nn - 1), axis=1),
                       np.take_along_axis(perms[ep + 1], np.clip(j - (nn - pos), 0, nn - 1), axis=1))
        hit = np.take_along_axis(mist, seq, axis=1) & (j < 2 * nn - pos)
        last = np.where(hit.any(axis=1), np.argmax(hit, axis=1), nn - pos[:, 0] + np.where(pos[:, 0] > 0, nn, 0) - 1)
        si, off = np.nonzero(j <= last[:, None])
        if len(si) > self.max_rows:
            raise SplitBlock
        pi, here = seq[si, off], cur[si, off]
        vpos = np.where(here, st["pos"][si] + off, off - (nn - st["pos"][si]))
        vsm = np.where(here, st["sm"][si], 0) + mist[si, pi]
        return si, pi, {"sweep": ep[si] + ~here + 1, "sweep_visits": vpos + 1, "sweep_mistakes": vsm, "_offset": off}

    def _max_violation_visits(self, st, mist, scores, Yi, depth):
        """The visits of each state before its next update in the max-violation order: the scan
        visits the point it updates (the least y score of the mistakes, the first of ties) and
        only it; a state with no mistake makes the run's last scan, every point in order.  Returns
        (state rows, points, their sweeps with each visit's offset from the state)."""
        nn = mist.shape[1]
        some = mist.any(axis=1)
        worst = np.argmin(np.where(mist, scores * Yi, np.iinfo(np.int64).max), axis=1)
        si, pi = np.nonzero(np.where(some[:, None], np.arange(nn)[None, :] == worst[:, None], True))
        if len(si) > self.max_rows:
            raise SplitBlock
        off = np.where(some[si], 0, pi)
        return si, pi, {"sweep": np.full(len(si), depth + 1, dtype=np.int64), "sweep_visits": off + 1,
                        "sweep_mistakes": mist[si, pi].astype(np.int64), "_offset": off}

    def _errors(self, Xi, Yi, W):
        """Training errors of weights W (one row per state) on its dataset, with the run's tie."""
        s = np.einsum("mnd,md->mn", Xi, W)
        o = np.sign(s)
        o[o == 0] = self.tie
        return (o != Yi).sum(axis=1)

    def _pocket(self, st, si, mist, Xi, Yi, order, vep, vpos, pi):
        """The pocket at the updates of rows si: it takes the weights held before the update when
        their run of correct visits (those since the last update) is longer than its own (and,
        with the ratchet, they make fewer training errors), as the learner does."""
        run = pi if order == "first" else 0 * pi if order == "max-violation" else (vep - st["ep"][si]) * mist.shape[1] + vpos - st["pos"][si]
        take = run > st["runp"][si]
        if self.ratchet:
            take &= mist[si].sum(axis=1) < self._errors(Xi[si], Yi[si], st["wp"][si])
        return {"wp": np.where(take[:, None], st["w"][si], st["wp"][si]), "runp": np.where(take, run, st["runp"][si]),
                "minerr": st["minerr"][si]}

    def _pocket_at_end(self, inst, sub):
        """w_pocket, its errors and the fewest errors of any w held, at the runs' ends: a converged
        run's last stretch of correct visits (a clean epoch, after the rest of the current one when
        it stopped mid-epoch) may outlast the pocket's run; a run cut just after an update has none."""
        nn = inst["X"].shape[1]
        wp = sub["wp"]
        if not sub.get("stopped"):
            final = np.full(len(wp), nn) if self.dom.order in ("first", "any", "max-violation") else \
                np.where(sub["pos"] == 0, nn, 2 * nn - sub["pos"])
            wp = np.where((final > sub["runp"])[:, None], sub["w"], wp)
        Xi, Yi = inst["X"][sub["inst"]], inst["Y"][sub["inst"]]
        return {"w_pocket": wp, "pocket_errors": self._errors(Xi, Yi, wp), "min_visited_errors": sub["minerr"]}

    def _epochs_at_end(self, st, depth):
        """The epochs of runs that end at these states: converged (a clean epoch: the one at pos
        0, or past a position > 0 the rest of this epoch and the whole next one), or cut by the
        update bound just after their last update (``first``: the learner has begun its next
        scan when it sees the bound)."""
        if self.dom.order in ("first", "max-violation"):
            return np.full(len(st["pos"]), depth + 1, dtype=np.int64)
        if self.seq:  # one epoch a step of the sequence
            return np.full(len(st["pos"]), depth, dtype=np.int64)
        at_start = st["pos"] == 0
        if st.get("stopped"):
            return np.where(at_start, st["ep"], st["ep"] + 1)
        return np.where(at_start, st["ep"] + 1, st["ep"] + 2)

    @staticmethod
    def _after(order, vpos, vep, vsm, nn):
        """pos, ep and sm of the states after updates at visits (vpos, vep) of their epochs, the
        vsm-th mistake of the epoch: past an epoch's last position the next epoch begins."""
        if order in ("any", "max-violation", "sequence"):  # no sweeps; one scan per update
            zero = np.zeros(len(vpos), dtype=np.int64)
            return {"pos": zero, "ep": zero if order == "any" else vep + 1, "sm": zero}
        pos = vpos + 1
        full = pos == nn
        return {"pos": np.where(full, 0, pos), "ep": np.where(full, vep + 1, vep), "sm": np.where(full, 0, vsm)}

    def _perms(self, nn):
        """The permutations of the first max_updates + 2 epochs of a ``random:SEED`` run on nn
        points, as the learner draws them (perceptron.run: one generator, one permutation an
        epoch): a run of at most max_updates updates reaches no later epoch."""
        got = self._perm_cache.get(nn)
        if got is None:
            perms = epoch_permutations(int(self.dom.order.split(":")[1]), nn)
            got = self._perm_cache[nn] = np.stack([next(perms) for _ in range(self.dom.max_updates + 3)])
        return got
