"""The exact replay of a complete trace in whole-array integer arithmetic.

For the primal variants in cyclic or random order, recorded visit by visit, the replay need not
step: every recorded weight vector is checked against the one before it (w_u = w_{u-1} + c_u
x_i, the trace's own w_{u-1}, by induction from w0), and every visit's score is recomputed from
the data and the recorded weights it saw, so all scores are one batch of integer dot products
and every check is an array comparison:

* the visit order and the stopping rule (driven by the recorded mistakes, which the scores then
  confirm): visit numbers, points, epochs, labels, update counts, where the updates are;
* each score: x_i . w + b recomputed as integers (x = Xn / D, w over one denominator), its sign
  with the run's sign(0), the mistake flag, the recorded score (cross-multiplied);
* each update: (w_u - w_{u-1}) D den(c) = num(c) L Xn_i in integers, and b likewise;
* the end record.

Nothing here is trusted that the step-by-step replay would check: the first record that fails
any check sends the trace to verify.replay.dispatch's visit-by-visit replay, which reports the first
inconsistency at its visit with its message.  That replay also covers every other case (pocket,
dual, first and max-violation orders, updates-only traces) and is this module's oracle in
tests/test_columns.py.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from verify.language.columns import BLOCK_CELLS, StepLog
from verify.language.scalar import ALPHA_COUNTS
from verify.numbers import exact as X
from verify.numbers.integers import INT64_SAFE, maxabs, narrow_ints, scaled
from verify.replay.records import CyclicRule, augmented_bias, end_mismatch, run_values
from verify.language.assumptions import CONVERGED

__all__ = ["replay_blocks"]

def replay_blocks(ctx, tr, visit_claims, update_claims, end_claims, tallies, name) -> bool:
    """True: the trace is consistent and its claims are tallied.  False: not a case for this
    path, or a record did not check -- replay it visit by visit (which says where and why)."""
    p, var = ctx.params, ctx.var
    if var.dual or var.pocket or ctx.declared or tr.header.get("record", "visits") != "visits" \
            or "scale" not in tr.header or getattr(tr, "fractional", False) \
            or not (p.order == "cyclic" or p.order.startswith("random:")):
        return False
    run = _Blocks(ctx, tr)
    if not (run.follows_rule() and run.states() and run.scores_check() and run.updates_check() and run.end_check()):
        return False
    run.tally(visit_claims, update_claims, end_claims, tallies, name)
    return True


class _Blocks:
    """A complete trace checked in whole arrays, phase by phase; each phase says whether the
    trace passed it."""

    def __init__(self, ctx, tr):
        self.ctx, self.tr, self.p = ctx, tr, ctx.params
        self.y = np.asarray(ctx.y, dtype=np.int64)
        self.V = len(tr.t)
        self.rt, self.ri, self.rep, self.rk = (narrow_ints(a) for a in (tr.t, tr.i, tr.epoch, tr.k))
        self.ry = np.asarray(tr.y, dtype=np.int64)
        self.rm = np.asarray(tr.mistake, dtype=bool)
        self.upd_t = narrow_ints(tr.upd_t)
        self.U = int(self.rm.sum())
        self.chunk = max(1, BLOCK_CELLS // max(1, ctx.d))

    def follows_rule(self) -> bool:
        """The visit order and the stopping rule, as the learner applies them, on the recorded mistakes."""
        ctx, V, rm, ri = self.ctx, self.V, self.rm, self.ri
        if len(self.upd_t) != self.U or (V and (ri.min() < 0 or ri.max() >= ctx.n)):
            return False
        self.rule = rule = CyclicRule(ctx, self.p)
        exp_i = np.empty(V, dtype=np.int64)
        exp_epoch = np.empty(V, dtype=np.int64)
        marks = rm.tolist()
        k = j = 0
        while (step := rule.next(k, j)) is not None:
            if j >= V:
                return False
            exp_epoch[j], exp_i[j] = step
            if marks[j]:
                k += 1
            j += 1
            if rule.after(marks[j - 1], k):
                break
        if j != V or rule.stop == "unchanged":
            return False
        self.before = before = np.cumsum(rm) - rm  # updates made before each visit: the state it sees
        return (np.array_equal(self.rt, np.arange(1, V + 1)) and np.array_equal(ri, exp_i)
                and np.array_equal(self.rep, exp_epoch) and np.array_equal(self.ry, self.y[ri])
                and np.array_equal(self.rk, before + rm) and np.array_equal(self.upd_t, self.rt[rm]))

    def states(self) -> bool:
        """w0 and every recorded w, over one denominator L (b over Lb)."""
        ctx, tr, U = self.ctx, self.tr, self.U
        w0 = ctx.w0
        wden = tr.den("w")
        self.L = L = math.lcm(wden, w0.den)
        Wrec = narrow_ints(tr.w) if U else np.zeros((0, ctx.d), dtype=np.int64)
        if Wrec.shape != (U, ctx.d):
            return False
        self.W = np.concatenate([scaled(np.asarray(w0.num).reshape(1, -1), L // w0.den), scaled(Wrec, L // wden)])
        b0 = Fraction(ctx.b0)
        if ctx.bias:
            if tr.b is None or len(tr.b) != U:
                return False
            bden = tr.den("b")
            self.Lb = Lb = math.lcm(bden, b0.denominator)
            self.B = [b0.numerator * (Lb // b0.denominator)] + [int(v) * (Lb // bden) for v in tr.b]
        else:  # no bias: b stays b0 (the end record states the augmented coordinate instead)
            self.Lb, self.B = b0.denominator, [b0.numerator] * (U + 1)
        return True

    def scores_check(self) -> bool:
        """Every score, (Xn_i . W_s) Lb + B_s D L over D L Lb, in chunks of visits: its sign is the
        recorded mistake, its value the recorded score."""
        ctx, tr, V, W, Xn = self.ctx, self.tr, self.V, self.W, self.ctx.Xn
        D, L, Lb = ctx.D, self.L, self.Lb
        sden = int(tr.header["scale"]["score"])
        self.den = den = D * L * Lb
        rscore = np.asarray(tr.score)
        Bs = np.array(self.B, dtype=object)
        small = Xn.dtype != object and W.dtype != object and maxabs(Xn) * maxabs(W) * max(1, ctx.d) < INT64_SAFE
        self.scores = scores = np.empty(V, dtype=object)
        for s in range(0, V, self.chunk):
            e = min(V, s + self.chunk)
            rows, st = self.ri[s:e], self.before[s:e]
            if small:
                prod = np.einsum("ij,ij->i", Xn[rows], W[st])
            else:
                prod = (Xn[rows].astype(object) * W[st].astype(object)).sum(axis=1)
            num = prod.astype(object) * Lb + Bs[st] * (D * L) if ctx.bias else prod
            scores[s:e] = num
            sg = np.sign(num).astype(np.int64) if num.dtype != object else \
                np.array([(v > 0) - (v < 0) for v in num.tolist()], dtype=np.int64)
            out = np.where(sg != 0, sg, ctx.tie)
            if not np.array_equal(out != self.y[rows], self.rm[s:e]):
                return False
            rs = rscore[s:e]
            if num.dtype != object and rs.dtype != object and maxabs(rs) * den < INT64_SAFE \
                    and maxabs(num) * sden < INT64_SAFE:
                same = np.array_equal(rs.astype(np.int64) * den, num * sden)
            else:
                same = all(int(a) * den == int(b) * sden for a, b in zip(rs.tolist(), num.tolist()))
            if not same:
                return False
        return True

    def updates_check(self) -> bool:
        """Every update: (W_{u+1} - W_u) D den(c) == num(c) L Xn_i, and b likewise."""
        ctx, U, W, Xn, L = self.ctx, self.U, self.W, self.ctx.Xn, self.L
        if not U:
            return True
        ui = self.ri[self.rm]
        uy = self.y[ui]
        if self.p.form == "yx":
            cs = [ctx.eta * int(v) for v in uy.tolist()]
        else:
            sg_u = [(v > 0) - (v < 0) for v in self.scores[self.rm].tolist()]
            outs = [g if g != 0 else ctx.tie for g in sg_u]
            cs = [ctx.eta * Fraction(int(v) - o, 2) for v, o in zip(uy.tolist(), outs)]
        cnum = narrow_ints([c.numerator * L for c in cs])
        cden = narrow_ints([c.denominator * ctx.D for c in cs])
        wide = W.dtype != object and Xn.dtype != object and cnum.dtype != object and cden.dtype != object \
            and 2 * maxabs(W) * maxabs(cden) < INT64_SAFE and maxabs(Xn) * maxabs(cnum) < INT64_SAFE
        for s in range(0, U, self.chunk):
            e = min(U, s + self.chunk)
            if wide:  # int64: a bound proves neither side wraps
                lhs = (W[s + 1:e + 1] - W[s:e]) * cden[s:e, None]
                rhs = Xn[ui[s:e]] * cnum[s:e, None]
            else:
                lhs = (W[s + 1:e + 1].astype(object) - W[s:e].astype(object)) * cden[s:e, None].astype(object)
                rhs = Xn[ui[s:e]].astype(object) * cnum[s:e, None].astype(object)
            if not np.array_equal(lhs, rhs):
                return False
        if ctx.bias:
            var = ctx.var
            scale = var.bias_scale(lambda: ctx.R2, 1)
            if scale is None:
                return False
            step = ctx.eta * scale
            B, Lb = self.B, self.Lb
            for u, yu in enumerate(uy.tolist()):
                if Fraction(B[u + 1] - B[u], Lb) != step * yu:
                    return False
        return True

    def end_check(self) -> bool:
        """The end record."""
        U, rule = self.U, self.rule
        final = [Fraction(int(v), self.L) for v in self.W[U]]
        self.b_final = Fraction(self.B[U], self.Lb)
        got = {"updates": U, "epochs": rule.epochs, "visits": self.V, "converged": rule.converged, "stop": rule.stop,
               "w": final, "b": self.b_final if self.ctx.bias else augmented_bias(self.p, final)}
        return end_mismatch(self.tr.end, got, exact=True) is None

    def tally(self, visit_claims, update_claims, end_claims, tallies, name):
        """The claims, over the whole trace (verify.language.columns), fed in trace order."""
        ctx, rule, U, W, L, D, den = self.ctx, self.rule, self.U, self.W, self.L, self.ctx.D, self.den
        end_claims = [c for c in end_claims if rule.converged or CONVERGED not in c.assume]
        if not (visit_claims or update_claims or end_claims):
            return
        rowsq = ctx.norms2
        log = StepLog(ctx, name, visit_claims, update_claims, tallies, ctx.strict_gamma(), ctx.w0, ctx.b0, Fraction(0),
                      run_vals=run_values(self.tr.end))
        sq = 0
        u = 0
        t_list, i_list = self.rt.tolist(), self.ri.tolist()
        m_list, b_list = self.rm.tolist(), self.before.tolist()
        # each visit's sweep: (epoch, the visits before it, its mistakes up to and including the visit)
        ep = np.asarray(self.rep, dtype=np.int64)
        first = np.maximum.accumulate(np.where(np.r_[True, ep[1:] != ep[:-1]] if len(ep) else np.zeros(0, bool),
                                               np.arange(len(ep)), 0))
        before = np.asarray(self.before, dtype=np.int64)
        done = before + np.asarray(self.rm, dtype=np.int64) - before[first]
        rows = np.arange(self.V) if visit_claims else np.flatnonzero(self.rm)  # the visits claims are stepped at
        # the mistakes of the sweep before each visit's: updates before its sweep's first visit minus
        # those before the previous sweep's first visit (-1 in the first sweep)
        fs = first[rows]
        prev_first = first[np.maximum(fs - 1, 0)]
        last = np.where(fs > 0, before[fs] - before[prev_first], -1) if len(rows) else np.zeros(0, dtype=np.int64)
        sweeps = zip(ep[rows].tolist(), (np.asarray(self.rt)[first[rows]] - 1).tolist(), done[rows].tolist(),
                     last.tolist())
        for jv, sweep in zip(rows.tolist(), sweeps):
            i = i_list[jv]
            sn = int(self.scores[jv])
            out = (sn > 0) - (sn < 0) or ctx.tie
            if visit_claims:
                log.step("visit", t_list[jv], i, b_list[jv], (sn, den), out, sweep)
            if not m_list[jv]:
                continue
            u += 1
            sq += rowsq[i]
            log.state(X.Vec(W[u], L), Fraction(self.B[u], self.Lb), Fraction(sq, D * D), i)
            if update_claims:
                log.step("update", t_list[jv], i, u, (sn, den), out, sweep)
        vals = {}
        if end_claims:
            alpha = np.bincount(self.ri[np.flatnonzero(self.rm)], minlength=ctx.n)  # updates made on each point
            vals = {"w": X.Vec(W[U], L), "b": self.b_final, "k": Fraction(U), "mistakes": Fraction(U),
                    "epochs": Fraction(rule.epochs), "converged": Fraction(1 if rule.converged else 0),
                    "sumsq": Fraction(sq, D * D), "stopped_by_budget": Fraction(0 if rule.converged else 1),
                    ALPHA_COUNTS: tuple(int(a) for a in alpha)}
        log.end(end_claims, vals, U)
