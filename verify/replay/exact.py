"""The exact replay of a built-in variant's trace, visit by visit: the primal variants' weights
as integers over one denominator, the dual's alphas through the exact kernel, the pocket's
choices, each record checked (verify.replay.records) and each claim evaluated where it applies.
The block fast path (verify.replay.blocks) tries first; this replay decides whatever it could
not, and is its oracle."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from perceptron._numbers import format_rational
from verify.language.columns import StepLog
from verify.language.scalar import ALPHA_COUNTS, format_value
from verify.numbers import exact as X
from verify.numbers.exact import sign_or_tie
from verify.numbers.integers import INT64_SAFE, narrow_ints, same_ratio
from verify.replay.loop import RunEnd, Sweep, follow_rule
from verify.replay.records import (
    Inconsistency,
    RecordChecker,
    augmented_bias,
    end_mismatch,
    run_values,
    short_vector,
)
from verify.language.assumptions import CONVERGED

__all__ = ["replay_exact", "KERNEL_CELLS_KEPT", "training_errors"]

#: Kernel values (integers) the kernel replay keeps, rows of n each, so that a row is computed
#: once per run rather than once per visit; past it further rows are computed when needed
#: (a poly kernel's values are large integers: this bounds memory, about 100 MiB).
KERNEL_CELLS_KEPT = 1 << 21
#: Most weight vectors a pocket replay keeps for ``min_visited_errors`` (the fewest training
#: errors of any weights the run held): past it the quantity is not defined for the run.
POCKET_HELD_KEPT = 5000


def kernel_row(ctx, i: int) -> tuple[list, int]:
    """K(x_j, x_i) for every j as (integer numerators, one denominator): x . x' = (Xn Xn_i) / D^2,
    the polynomial kernel ((Xn Xn_i) q + p D^2)^deg / (q D^2)^deg for an offset p / q."""
    p = ctx.params
    Xn, D = ctx.Xn, ctx.D
    g = [int(v) for v in np.dot(Xn.astype(object), Xn[i].astype(object))]
    if p.kernel == "linear":
        return g, D * D
    if p.kernel == "poly":
        off = Fraction(p.offset)
        q = off.denominator
        return [(v * q + off.numerator * D * D) ** p.degree for v in g], (q * D * D) ** p.degree
    raise X.ExactError("the RBF kernel has no exact value")


def training_errors(ctx, w, b) -> int:
    """Points that weights (w, b) misclassify."""
    errs = 0
    for x, y in zip(ctx.rows, ctx.y):
        s = X.vdot(w, x)
        if ctx.bias:
            s = s + b
        if sign_or_tie(s, ctx.tie) != y:
            errs += 1
    return errs


class BuiltinStepper:
    """A built-in variant's exact state on one dataset, stepped by the replay loop
    (verify.replay.loop): scores as integers, the update rule, the pocket, the records."""

    def __init__(self, ctx, tr, visit_claims, update_claims):
        self.ctx, self.p, self.var = ctx, ctx.params, ctx.var
        self.records = RecordChecker(tr, self.p.order, ctx.y)
        self.tr = tr
        self.log: StepLog | None = None  # set when claims are evaluated
        self.visit_claims, self.update_claims = visit_claims, update_claims
        self.w, self.b = ctx.w0, ctx.b0
        self.b_scale = self.var.bias_scale(lambda: ctx.R2, 1)  # what eta y multiplies in b's update, or None
        self.alpha = [0] * ctx.n
        self.k = 0
        self.sumsq = Fraction(0)
        self.sweep = Sweep()
        self.sden = int(tr.header["scale"]["score"]) if "scale" in tr.header else None
        self.run = self.run_pocket = 0
        self.w_pocket, self.b_pocket = self.w, self.b
        self.held = [(self.w, self.b)]
        self.pocket_marks = set(int(v) for v in tr.pocket_t)
        # Scores of the primal variants as integers: x_i . w + b = (Xn_i . wn bd + bn D wd) / (D wd bd), with
        # w = wn / wd, b = bn / bd; the products of the points still to be visited are computed a chunk
        # at a time between updates (one integer matrix-vector product; int64 while a bound proves no wrap)
        self.xmax = int(np.abs(ctx.Xn).max()) if ctx.Xn.size else 0
        self.cache: dict = {}
        self.chunk = 1
        self.wbound = self.w.maxabs()  # a bound on |w numerators|: int64 while products and sums cannot wrap
        self.krows: dict = {}

    # ------------------------------------------------------------------ scores

    def _products(self, idx):
        Xn, wn = self.ctx.Xn, self.w.num
        if wn.dtype != object and Xn.dtype != object and self.xmax * self.wbound * max(1, self.ctx.d) < INT64_SAFE:
            return (Xn[idx] @ wn).tolist()
        return [int(v) for v in np.dot(Xn[idx].astype(object), wn.astype(object))]

    def score_int(self, i):
        """(numerator, denominator > 0) of point i's score under the current weights."""
        if self.var.dual:
            return self._dual_score(i)
        got = self.cache.get(i)
        if got is None:
            n, size = self.ctx.n, self.chunk
            idx = [j for j in range(i, min(n, i + size)) if j not in self.cache] or [i]
            self.chunk = min(2 * size, max(n, 1))
            self.cache.update(zip(idx, self._products(idx)))
            got = self.cache[i]
        D, w = self.ctx.D, self.w
        if self.ctx.bias:
            bf = Fraction(self.b)
            return got * bf.denominator + bf.numerator * D * w.den, D * w.den * bf.denominator
        return got, D * w.den

    def _dual_score(self, i):
        """eta sum_j alpha_j y_j K(x_j, x_i), as (numerator, denominator > 0)."""
        ctx, alpha = self.ctx, self.alpha
        row = self.krows.get(i)
        if row is None:
            row = kernel_row(ctx, i)
            if (len(self.krows) + 1) * ctx.n <= KERNEL_CELLS_KEPT:
                self.krows[i] = row
        nums, kden = row
        total = sum(alpha[j] * ctx.y[j] * nums[j] for j in range(ctx.n) if alpha[j])
        return ctx.eta.numerator * total, ctx.eta.denominator * kden

    def score_of(self, i) -> Fraction:
        return Fraction(*self.score_int(i))

    def is_mistake(self, i) -> bool:
        sn, _ = self.score_int(i)
        return ((sn > 0) - (sn < 0) or self.ctx.tie) != self.ctx.y[i]

    def why_not(self, i) -> str:
        return f"point {i} is correctly classified (score {format_value(self.score_of(i))}, y = {self.ctx.y[i]})"

    def most_violated(self, candidates):
        scores, y = {i: self.score_int(i) for i in candidates}, self.ctx.y
        best = candidates[0]
        for i in candidates[1:]:  # y_i s_i < y_best s_best, cross-multiplied (denominators > 0)
            if scores[i][0] * y[i] * scores[best][1] < scores[best][0] * y[best] * scores[i][1]:
                best = i
        return best

    def current_w(self):
        """The weights now (the dual's eta sum_j alpha_j y_j x_j for the linear kernel; None for others)."""
        ctx = self.ctx
        if not self.var.dual:
            return self.w
        if self.p.kernel != "linear":
            return None
        # eta sum_j alpha_j y_j x_j = eta.num (coef . Xn) / (eta.den D), in integers
        coef = np.array([a * yj for a, yj in zip(self.alpha, ctx.y)], dtype=object)
        num = np.dot(coef, ctx.Xn.astype(object)) * ctx.eta.numerator if ctx.n else np.zeros(ctx.d, dtype=object)
        return X.Vec(narrow_ints(np.asarray(num, dtype=object)), ctx.eta.denominator * ctx.D)

    # ------------------------------------------------------------------ the rule

    def _step_weights(self, c: Fraction, i: int):
        """w + c x_i as integers over one denominator, which grows only when c needs it (never
        reduced: the denominator stays fixed over a run, as the learner's scaled weights)."""
        Xn, D = self.ctx.Xn, self.ctx.D
        wn, wden = self.w.num, self.w.den
        step_den = c.denominator * D
        L = wden if wden % step_den == 0 else math.lcm(wden, step_den)
        grow, m = L // wden, c.numerator * (L // step_den)
        bound = self.wbound * grow + abs(m) * self.xmax
        if wn.dtype != object and Xn.dtype != object and bound < INT64_SAFE:
            wn = (wn * grow if grow != 1 else wn) + m * Xn[i]
        else:
            wn = wn.astype(object) * grow + m * Xn[i].astype(object)
        self.wbound = bound
        return X.Vec(wn, L)

    def _pocket(self, t):
        """The pocket's choice at the update of visit t, against the trace's mark."""
        replaced = False
        if self.run > self.run_pocket:
            if not self.p.ratchet or training_errors(self.ctx, self.w, self.b) < training_errors(self.ctx, self.w_pocket,
                                                                                                  self.b_pocket):
                self.w_pocket, self.b_pocket, self.run_pocket = self.w, self.b, self.run
                replaced = True
        if replaced != (t in self.pocket_marks):
            return Inconsistency(t, f"the pocket {'takes' if replaced else 'keeps'} its weights at this update; "
                                    f"the trace {'does not mark' if replaced else 'marks'} it")
        return None

    def _update(self, i, out):
        ctx, p, var = self.ctx, self.p, self.var
        yi = Fraction(ctx.y[i])
        self.alpha[i] += 1  # updates per point: the dual's coefficients, and alpha for every variant's end claims
        if not var.dual:
            c = ctx.eta * yi if p.form == "yx" else ctx.eta * (yi - out) / 2
            self.w = self._step_weights(c, i)
            if self.b_scale is not None:
                self.b = self.b + ctx.eta * yi * self.b_scale
        self.k += 1
        self.run = 0
        self.cache.clear()
        self.chunk = 1
        self.sumsq = self.sumsq + Fraction(int(ctx.norms2[i]), ctx.D * ctx.D)
        if var.pocket:
            self.held.append((self.w, self.b))

    def visit(self, t, epoch, i):
        """Score point i, check the record, update; returns (mistake, inconsistency)."""
        ctx = self.ctx
        sn, sd = self.score_int(i)
        out = (sn > 0) - (sn < 0) or ctx.tie
        mistake = out != ctx.y[i]
        if self.records.recorded(mistake, t):
            def describe():
                what = "misclassified" if mistake else "correctly classified"
                return f"point {i} is {what} (score {format_value(Fraction(sn, sd))}, y = {ctx.y[i]})"
            bad = self.records.visit(t, epoch, i, mistake, self.k, describe,
                                     None if self.sden is None else lambda rec: self._score_differs(rec, i, sn, sd))
            if bad:
                return mistake, bad
        sweep = self.sweep.at(t, epoch, self.k, mistake)
        if self.visit_claims:
            self.log.step("visit", t, i, self.k, (sn, sd), out, sweep)
        if not mistake:
            self.run += 1
            return False, None
        if self.var.pocket:
            bad = self._pocket(t)
            if bad:
                return True, bad
        self._update(i, out)
        bad = self._check_update(t, i)
        if bad:
            return True, bad
        if self.log is not None:
            self.log.state(self.current_w(), self.b, self.sumsq, i)
        if self.update_claims:
            self.log.step("update", t, i, self.k, (sn, sd), out, sweep)
        return True, None

    def _score_differs(self, rec, i, sn, sd):
        rs = int(self.tr.score[rec])
        if rs * sd == sn * self.sden:
            return None
        return (f"score of point {i} recomputed from the data is {format_value(Fraction(sn, sd))}; the trace has "
                f"{format_value(Fraction(rs, self.sden))}")

    def _check_update(self, t, i):
        u, bad = self.records.update(t)
        if bad:
            return bad
        tr, w, b = self.tr, self.w, self.b
        if not self.var.dual and (np.array_equal(tr.w[u], w.num) if tr.den("w") == w.den
                                  else same_ratio(tr.w[u], tr.den("w"), w.num, w.den)):
            # the recorded numerators over the trace's denominator equal ours over ours: compared as
            # integers (cross-multiplied), no Fraction built; a difference is located below
            if not self.ctx.bias or Fraction(int(tr.b[u]), tr.den("b")) == b:
                return None
        rw, rb = tr.weights_after(u)
        if self.var.dual:
            if rw != self.alpha:
                return Inconsistency(t, f"alpha after the update should be {short_vector(self.alpha)}; the trace has "
                                        f"{short_vector(rw)}")
            return None
        wf = w.components()
        if [Fraction(v) for v in rw] != wf:
            bad_j = next(j for j, (a, c) in enumerate(zip(rw, wf)) if Fraction(a) != c)
            return Inconsistency(t, f"w after the update on point {i} should be {short_vector(wf)}; the trace has "
                                    f"w[{bad_j}] = {format_rational(Fraction(rw[bad_j]))} instead of "
                                    f"{format_rational(wf[bad_j])}")
        if self.ctx.bias and Fraction(rb) != b:
            return Inconsistency(t, f"b after the update should be {format_value(b)}; the trace has "
                                    f"{format_rational(Fraction(rb))}")
        return None

    # ------------------------------------------------------------------ the end

    def end_record(self, end: RunEnd) -> dict:
        """The end record the re-run writes, to compare with the trace's."""
        final_w, b = self.current_w(), self.b
        got = {"updates": self.k, "epochs": end.epochs, "visits": end.visits, "converged": end.converged,
               "stop": end.stop, "w": None if final_w is None else list(final_w.components()),
               "b": None if final_w is None else (b if self.ctx.bias else augmented_bias(self.p, final_w.components()))}
        if self.var.dual:
            got["alpha"] = list(self.alpha)
        if self.var.pocket:
            got["w_pocket"] = list(self.w_pocket.components())
            got["run_pocket"] = self.run_pocket
        return got

    def end_values(self, end: RunEnd) -> dict:
        """What end claims see."""
        ctx, k = self.ctx, self.k
        vals = {"w": self.current_w(), "b": self.b, "k": Fraction(k), "mistakes": Fraction(k),
                "epochs": Fraction(end.epochs), "converged": Fraction(1 if end.converged else 0), "sumsq": self.sumsq,
                "stopped_by_budget": Fraction(0 if end.converged else 1), ALPHA_COUNTS: tuple(self.alpha)}
        if self.var.pocket:
            vals["w_pocket"] = self.w_pocket
            vals["pocket_errors"] = Fraction(training_errors(ctx, self.w_pocket, self.b_pocket))
            if len(self.held) <= POCKET_HELD_KEPT:
                vals["min_visited_errors"] = Fraction(min(training_errors(ctx, hw, hb) for hw, hb in self.held))
        return vals


def replay_exact(ctx, tr, visit_claims, update_claims, end_claims, tallies, name, *, scalar: bool = False):
    """Replay a built-in variant's exact trace visit by visit; returns an Inconsistency, or None
    with the claims' tallies filled in.  ``scalar``: evaluate claims with the scalar evaluator
    (the oracle of the column evaluator)."""
    claims_on = bool(visit_claims or update_claims or end_claims)
    step = BuiltinStepper(ctx, tr, visit_claims, update_claims)
    if claims_on:  # claims are evaluated over blocks of the trace at once (verify.language.columns), in trace order
        step.log = StepLog(ctx, name, visit_claims, update_claims, tallies, ctx.strict_gamma(), step.current_w(), ctx.b0,
                           Fraction(0), scalar=scalar, run_vals=run_values(tr.end))
    end = follow_rule(ctx, ctx.params, step)
    if isinstance(end, Inconsistency):
        return end
    if end.stop == "unchanged" or (end.stop != "converged" and ctx.var.pocket):
        end.converged = all(not step.is_mistake(i) for i in range(ctx.n))
    bad = step.records.finish(end.visits, end.stop)
    if bad is not None:
        return bad
    if ctx.var.pocket and step.run > step.run_pocket:
        step.w_pocket, step.b_pocket, step.run_pocket = step.w, step.b, step.run
    bad = end_mismatch(tr.end, step.end_record(end), exact=True)
    if bad is not None:
        return bad
    end_claims = [c for c in end_claims if end.converged or CONVERGED not in c.assume]
    if claims_on:
        step.log.end(end_claims, step.end_values(end) if end_claims else {}, step.k)
    return None
