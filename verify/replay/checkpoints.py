"""The replay of a checkpoint trace: a run too long to record visit by visit, checked from its
updates alone.

A checkpoint trace (perceptron.trace, record "checkpoints") holds each update's visit number
and point and the weights every ``checkpoint_every`` updates.  Nothing in it is trusted: the
replay re-derives every visit of the run from the data and the order (the cyclic order's
points, or the random order's permutation for each epoch, drawn as the learner draws them),
the weights of every state from w0 and the updates (w_u = w_{u-1} + eta y x_i, in integers
over one denominator; with a bias of the variant's own, b_u = b_{u-1} + eta y R^2 or eta y),
and then checks, streaming the run in chunks of visits so that memory
does not grow with its length:

* the stopping rule: every epoch up to the last update's holds an update (a clean one would
  have ended the run), and the run ends where the rule says (converged after a clean epoch, or
  a budget), as the end record must state;
* every visit: its score recomputed from the data and the weights it saw is a mistake exactly
  where the trace records an update, and on the point the order visits there;
* every checkpoint and the final weights (and biases): equal to the re-derived ones.

The update and end claims are then evaluated at every update (verify.language.columns, fed in
order); visit claims are not (a checkpoint trace is for runs of tens of millions of visits:
they are re-derived and checked, not each handed to the claims).  Integers stay int64 where a
bound on the run's weights proves every product safe, Python integers where it does not.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from perceptron.params import epoch_permutations
from verify.language.columns import BLOCK_CELLS, StepLog
from verify.language.scalar import ALPHA_COUNTS, format_value
from verify.numbers import exact as X
from verify.numbers.integers import INT64_SAFE, maxabs
from verify.replay.records import Inconsistency, augmented_bias, end_mismatch, run_values, short_vector
from verify.language.assumptions import CONVERGED

__all__ = ["replay_checkpoints", "VISIT_CLAIMS_WHY"]

#: Updates handed to the claims at a time (verify.language.columns.StepLog.extend).
FEED_PIECE = 4096
#: Why visit claims are not evaluated on a checkpoint trace (their not-applicable reason).
VISIT_CLAIMS_WHY = ("a checkpoint trace's visits are re-derived from the data and checked, not evaluated one by one "
                    "(record visits to evaluate visit claims)")


def replay_checkpoints(ctx, tr, update_claims, end_claims, tallies, name):
    """None when the trace is the run of its parameters on the data (its claims then tallied),
    else the first Inconsistency."""
    run = _Run(ctx, tr)
    bad = run.end_rule()
    log = None
    if update_claims or end_claims:  # the states are fed to the claims (end claims' prev() reads the last ones)
        log = StepLog(ctx, name, [], update_claims, tallies, ctx.strict_gamma(), ctx.w0, ctx.b0, Fraction(0),
                      run_vals=run_values(tr.end))
    if bad is None:
        bad = run.visits(log)
    if bad is None:
        bad = run.end_check()
    if bad is None and log is not None:
        run.end_claims(log, end_claims)
    return bad


class _Run:
    def __init__(self, ctx, tr):
        self.ctx, self.tr, self.p = ctx, tr, ctx.params
        self.n, self.d = ctx.n, ctx.d
        self.upd_t = np.asarray(tr.upd_t, dtype=np.int64)
        self.upd_i = np.asarray(tr.upd_i, dtype=np.int64)
        self.U = len(self.upd_t)
        self.y = np.asarray(ctx.y, dtype=np.int64)
        eta, b0 = ctx.eta, Fraction(ctx.b0)
        self.bias = ctx.var.bias  # None, or b += eta y R^2 or eta y (Variant.bias_scale)
        self.S = S = math.lcm(ctx.w0.den, ctx.D * eta.denominator, b0.denominator if self.bias else 1)  # w = W / S
        self.step = (S // (ctx.D * eta.denominator)) * eta.numerator  # W += step y Xn_i
        self.den = ctx.D * S  # score = (Xn.W + B) / den, b = B / den
        self.W0 = np.asarray(ctx.w0.num, dtype=object) * (S // ctx.w0.den)
        # B += b_step y: eta y R^2 or eta y over den (R^2 D^2 = the largest |Xn_i|^2)
        self.b_step = 0 if not self.bias else self.step * ctx.var.bias_scale(lambda: max(ctx.norms2), ctx.D * ctx.D)
        self.B0 = int(b0 * self.den) if self.bias else 0
        # int64 throughout when |W| <= |W0| + U step |Xn| bounds every state, |B| <= |B0| + U b_step
        # its bias, and d |Xn| |W| + |B| every score
        bound = maxabs(self.W0) + self.U * abs(self.step) * maxabs(ctx.Xn)
        self.bmax = abs(self.B0) + self.U * abs(self.b_step)
        self.small = ctx.Xn.dtype != object and bound * maxabs(ctx.Xn) * max(1, self.d) + self.bmax < INT64_SAFE
        self.dt = np.int64 if self.small else object
        self.Xn = ctx.Xn.astype(self.dt)
        self.W0 = self.W0.astype(self.dt)

    # ---- the stopping rule
    def end_rule(self):
        """Where the rule ends this run (visits, epochs, stop, converged), from its updates alone."""
        p, n, U, t = self.p, self.n, self.U, self.upd_t
        if U and (t[0] < 1 or not np.all(t[1:] > t[:-1])):  # the reader's check, kept where the indexing relies on it
            return Inconsistency(None, "the trace's update visits do not increase from 1")
        ep = (t - 1) // n + 1  # the epoch of each update
        last = int(ep[-1]) if U else 0
        if U > p.max_updates or last > p.max_epochs or (U and p.max_visits is not None and t[-1] > p.max_visits):
            return Inconsistency(int(t[-1]), "the trace records updates past the run's budgets (max_updates, "
                                             "max_epochs, max_visits)")
        gap = np.flatnonzero(np.diff(np.concatenate([[0], ep])) > 1)  # O(U): epochs that hold no update
        if len(gap):  # an epoch before the last update without an update would have ended the run
            e = int(ep[gap[0] - 1] + 1) if gap[0] else 1
            return Inconsistency((e - 1) * n + 1, f"epoch {e} records no update, so the run converges there; the "
                                                  f"trace goes on to update {U} in epoch {last}")
        mv = p.max_visits if p.max_visits is not None else float("inf")
        if U and U >= p.max_updates:
            self.V, self.epochs, self.stop = int(t[-1]), last, "max_updates"
        elif last * n > mv:
            self.V, self.epochs, self.stop = int(mv), last, "max_visits"
        elif last >= p.max_epochs:
            self.V, self.epochs, self.stop = last * n, last, "max_epochs"
        elif U >= p.max_updates:  # no update at all, and none allowed
            self.V, self.epochs, self.stop = last * n, last, "max_updates"
        elif (last + 1) * n > mv:
            self.V, self.epochs, self.stop = int(mv), last + 1, "max_visits"
        else:  # the rest of the last update's epoch and the whole next one are clean
            self.V, self.epochs, self.stop = (last + 1) * n, last + 1, "converged"
        return None

    # ---- every visit
    def _points(self, lo, hi):
        """The points of visits lo+1 .. hi (1-based t), in the run's order."""
        t0 = np.arange(lo, hi, dtype=np.int64)
        if self.p.order == "cyclic":
            return t0 % self.n
        e_lo, e_hi = lo // self.n, (hi - 1) // self.n  # chunks start at an epoch: lo is a multiple of n
        perms = np.stack([next(self._perms) for _ in range(e_lo, e_hi + 1)])  # one an epoch, in order
        return perms[t0 // self.n - e_lo, t0 % self.n]

    def visits(self, log):
        """Every visit re-derived and checked, in chunks; each update fed to ``log`` (the claims)."""
        ctx, tr, n = self.ctx, self.tr, self.n
        if self.p.order.startswith("random:"):
            self._perms = epoch_permutations(int(self.p.order.split(":")[1]), n)
        every, ckpt, ckpt_b = int(tr.header["checkpoint_every"]), tr.w, tr.b
        wden, bden = tr.den("w"), tr.den("b")
        chunk = max(n, BLOCK_CELLS // max(1, self.d))
        chunk -= chunk % n  # whole epochs
        W, B, u, sq = self.W0, self.B0, 0, 0  # the state before the chunk, the updates made, their sum of |x|^2 (over D^2)
        norms2 = np.asarray(ctx.norms2, dtype=object)
        for lo in range(0, self.V, chunk):
            hi = min(self.V, lo + chunk)
            pts = self._points(lo, hi)
            t = np.arange(lo + 1, hi + 1, dtype=np.int64)
            u_hi = int(np.searchsorted(self.upd_t, hi, side="right"))  # updates at visits <= hi
            ui = self.upd_i[u:u_hi]
            if not np.array_equal(ui, pts[self.upd_t[u:u_hi] - lo - 1]):
                j = int(np.flatnonzero(ui != pts[self.upd_t[u:u_hi] - lo - 1])[0])
                tj = int(self.upd_t[u + j])
                return Inconsistency(tj, f"the trace updates on point {int(ui[j])}; the order visits point "
                                         f"{int(pts[tj - lo - 1])} there")
            inc = (self.y[ui].astype(self.dt) * self.step)[:, None] * self.Xn[ui]
            states = np.concatenate([W[None, :], W[None, :] + np.cumsum(inc, axis=0)]) if len(ui) else W[None, :]
            bs = np.concatenate([[B], B + np.cumsum(self.y[ui].astype(self.dt) * self.b_step)]).astype(self.dt)
            seen = np.searchsorted(self.upd_t, t, side="left") - u  # the state each visit sees (updates before it)
            prod = (self.Xn[pts] * states[seen]).sum(axis=1) + bs[seen]
            sg = np.sign(prod).astype(np.int64) if prod.dtype != object else \
                np.array([(v > 0) - (v < 0) for v in prod.tolist()], dtype=np.int64)
            out = np.where(sg != 0, sg, ctx.tie)
            mistake = out != self.y[pts]
            updated = np.zeros(hi - lo, dtype=bool)
            updated[self.upd_t[u:u_hi] - lo - 1] = True
            if not np.array_equal(mistake, updated):
                j = int(np.flatnonzero(mistake != updated)[0])
                what = "a mistake" if mistake[j] else "no mistake"
                rec = "no update" if mistake[j] else "an update"
                return Inconsistency(int(t[j]), f"the score of point {int(pts[j])} recomputed from the data is "
                                                f"{format_value(Fraction(int(prod[j]), self.den))}: {what}, and the "
                                                f"trace records {rec} there")
            for k in range(((u // every) + 1) * every, u_hi + 1, every):  # the checkpoints in this chunk
                got, rec = states[k - u], ckpt[k // every - 1]
                if any(int(a) * wden != int(b) * self.S for a, b in zip(got.tolist(), rec.tolist())):
                    return Inconsistency(int(self.upd_t[k - 1]), f"checkpoint {k // every} (after update {k}): the "
                                         f"re-run's w is {short_vector(Fraction(int(a), self.S) for a in got)}; the "
                                         f"trace has {short_vector(Fraction(int(b), wden) for b in rec)}")
                if self.bias and int(bs[k - u]) * bden != int(ckpt_b[k // every - 1]) * self.den:
                    return Inconsistency(int(self.upd_t[k - 1]), f"checkpoint {k // every} (after update {k}): the "
                                         f"re-run's b is {format_value(Fraction(int(bs[k - u]), self.den))}; the trace "
                                         f"has {format_value(Fraction(int(ckpt_b[k // every - 1]), bden))}")
            if log is not None:
                at = self.upd_t[u:u_hi] - lo - 1
                sq = self._feed(log, states, bs, u, u_hi, prod[at], out[at], norms2, sq)
            W, B, u = states[-1], bs[-1], u_hi
        self.W_final, self.B_final = W, B
        self.sumsq = sq if log is not None else int(norms2[self.upd_i].sum()) if self.U else 0
        return None

    def _feed(self, log, states, bs, u0, u1, scores, out, norms2, sq):
        """Updates u0+1 .. u1 to the claims, in pieces: the state after each (w, and b: b0 where
        the variant has no bias of its own), and the step."""
        n, D2 = self.n, self.ctx.D * self.ctx.D
        ui = self.upd_i[u0:u1]
        sqs = np.cumsum(np.concatenate([[sq], norms2[ui]]).astype(object))[1:].tolist()
        t = self.upd_t[u0:u1]
        ep = (t - 1) // n + 1
        first = np.searchsorted(self.upd_t, (ep - 1) * n + 1)  # the updates made before each one's epoch
        last = np.where(ep > 1, first - np.searchsorted(self.upd_t, (ep - 2) * n + 1), -1)  # the epoch before's
        k = np.arange(u0 + 1, u1 + 1, dtype=np.int64)
        cols = {"t": t.tolist(), "i": ui.tolist(), "state": k.tolist(), "out": np.asarray(out).tolist(),
                "score": [(int(v), self.den) for v in np.asarray(scores).tolist()], "sweep": ep.tolist(),
                "sweep_t0": ((ep - 1) * n).tolist(), "sweep_mistakes": (k - first).tolist(), "sweep_last": last.tolist()}
        for a in range(0, u1 - u0, FEED_PIECE):
            b = min(u1 - u0, a + FEED_PIECE)
            log.extend([(X.Vec(states[j + 1], self.S), self._b(bs[j + 1]), Fraction(sqs[j], D2)) for j in range(a, b)],
                       cols["i"][a:b],
                       "update" if log.update_claims else None, {key: v[a:b] for key, v in cols.items()})
        return sqs[-1] if sqs else sq

    def _b(self, B):
        """The bias of a state: B over den with a bias of its own, else b0 throughout."""
        return Fraction(int(B), self.den) if self.bias else Fraction(self.ctx.b0)

    # ---- the end
    def end_check(self):
        final = [Fraction(int(v), self.S) for v in self.W_final.tolist()]
        self.final = final
        got = {"updates": self.U, "epochs": self.epochs, "visits": self.V, "converged": self.stop == "converged",
               "stop": self.stop, "w": final, "b": self._b(self.B_final) if self.bias else augmented_bias(self.p, final)}
        return end_mismatch(self.tr.end, got, exact=True)

    def end_claims(self, log, end_claims):
        """The update claims' last block, then the end claims (those assuming convergence only on a
        converged run)."""
        ctx = self.ctx
        end_claims = [c for c in end_claims if self.stop == "converged" or CONVERGED not in c.assume]
        log.end(end_claims, {
            "w": X.Vec(np.asarray(self.W_final), self.S), "b": self._b(self.B_final), "k": Fraction(self.U),
            "mistakes": Fraction(self.U), "epochs": Fraction(self.epochs),
            "converged": Fraction(int(self.stop == "converged")), "sumsq": Fraction(self.sumsq, ctx.D * ctx.D),
            "stopped_by_budget": Fraction(int(self.stop != "converged")),
            ALPHA_COUNTS: tuple(int(a) for a in np.bincount(self.upd_i, minlength=self.n))}, self.U)
