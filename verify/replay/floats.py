"""The replay of float traces: the run re-computed in float64 with the learner's own rounding,
each decision certified exact (the exact sign of x.w + b for the exact data and the float
weights: a float score beyond its rounding bound has that sign; one within it is decided in
Fractions), each update bit for bit, each record checked (verify.replay.records).  Claims are
never evaluated on float weights: verify.replay.dispatch evaluates them on the exact re-run."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from perceptron.models.primal import error_scale32
from perceptron.params import prepare_inputs
from verify.replay.loop import follow_rule
from verify.replay.declared_float import replay_declared_float
from verify.replay.records import (
    Inconsistency,
    RecordChecker,
    augmented_bias,
    end_mismatch,
)

__all__ = ["replay_float"]

#: The unit roundoff of float64.
UNIT = 2.0**-53


def replay_float(ctx, tr):
    """A float trace against its complete float64 re-run; returns an Inconsistency or None."""
    p, var = ctx.params, ctx.var
    if ctx.declared:
        return replay_declared_float(ctx, tr)
    if var.dual or var.unit or var.pocket or p.patience is not None or tr.header.get("record") != "visits" \
            or not (p.order == "cyclic" or p.order.startswith("random:")):
        return Inconsistency(None, "cannot verify: float traces are replayed for cyclic and random orders of the "
                                   "primal variants (not unit, pocket or patience), recorded visit by visit; "
                                   "re-run with --exact to check this one")
    with np.errstate(over="ignore", invalid="ignore"):  # a hostile trace's huge weights: decided exactly
        return _FloatRun(ctx, tr).replay()


class _FloatRun:
    """A built-in primal variant's float64 run, visit by visit."""

    def __init__(self, ctx, tr):
        self.ctx, self.tr, self.p, self.var = ctx, tr, ctx.params, ctx.var
        self.Xf, _ = prepare_inputs(ctx.ds, self.p)
        Xf = self.Xf
        self.w = np.array([float(v) for v in ctx.w0.components()])
        self.b = float(ctx.b0)
        self.eta = float(ctx.eta)
        self.R2f = float(np.max(np.cumsum(Xf * Xf, axis=1)[:, -1]))
        self.b_scale = self.var.bias_scale(lambda: self.R2f, 1.0)  # what eta y multiplies in b's update, or None
        self.d = d = Xf.shape[1]
        self.gamma = (d + 3) * UNIT / (1 - (d + 3) * UNIT)  # the product (d terms) and the rounding of x
        self.norms = np.sqrt(np.einsum("ij,ij->i", Xf, Xf))
        self.screened = tr.header.get("scores") == "float32-screened"
        self.e32 = error_scale32(d)
        self.records = RecordChecker(tr, self.p.order, ctx.y)
        self.k = 0

    def exact_sign(self, i) -> int:
        """The exact sign of x_i.w + b for the float weights: x = Xn_i / D with D > 0, so that of
        Xn_i.w + b D (one row, on demand)."""
        ctx = self.ctx
        v = sum((int(a) * Fraction(float(c)) for a, c in zip(ctx.Xn[i], self.w) if a and c), Fraction(0)) \
            + Fraction(self.b) * ctx.D
        return (v > 0) - (v < 0)

    def _score_differs(self, rec, i, s_seq, bound):
        """The recorded score against the re-run's, within the rounding bound (and the float32
        screen's, where the learner recorded that)."""
        rs = float(self.tr.score[rec])
        tol = 2 * bound
        if self.screened:  # the learner recorded its float32 screen's score where that decided the sign
            wn = float(np.linalg.norm(self.w))
            ni = float(self.norms[i])
            tol += self.e32 * ni * wn + 4 * UNIT * (abs(self.b) + abs(rs)) + 2.0**-140 * (math.sqrt(self.d) * (ni + wn)
                                                                                          + self.d)
        if abs(rs - s_seq) <= tol:
            return None
        return f"score of point {i} recomputed is {s_seq!r}; the trace has {rs!r} (beyond the rounding bound {tol:.3g})"

    def visit(self, t, epoch, i):
        ctx, y, w, b = self.ctx, self.ctx.y, self.w, self.b
        s_seq = float(np.cumsum(self.Xf[i] * w)[-1]) if self.d else 0.0
        s_seq = s_seq + b if ctx.bias else s_seq
        bound = 1.01 * (self.gamma * float(self.norms[i]) * float(np.linalg.norm(w)) + 4 * UNIT * abs(b)) + 1e-300
        sg = (s_seq > 0) - (s_seq < 0) if abs(s_seq) > bound else self.exact_sign(i)
        out = sg if sg != 0 else ctx.tie
        mistake = out != y[i]

        def describe():
            what = "misclassified" if mistake else "correctly classified"
            return f"point {i} is {what} (exact sign of its score {sg}, y = {y[i]})"
        bad = self.records.visit(t, epoch, i, mistake, self.k, describe,
                                 lambda rec: self._score_differs(rec, i, s_seq, bound))
        if bad or not mistake:
            return mistake, bad
        return True, self._update(t, i, out)

    def _update(self, t, i, out):
        p, y = self.p, self.ctx.y
        c = self.eta * y[i] if p.form == "yx" else 0.5 * self.eta * (y[i] - out)
        self.w = self.w + self.Xf[i] * c
        if self.b_scale is not None:
            self.b += self.eta * y[i] * self.b_scale
        self.k += 1
        u, bad = self.records.update(t)
        if bad:
            return bad
        if not np.array_equal(np.asarray(self.tr.w[u], dtype=float), self.w):
            return Inconsistency(t, "w after the update differs from w + eta y x in float64")
        if self.ctx.bias and float(self.tr.b[u]) != self.b:
            return Inconsistency(t, "b after the update differs from the float64 update")
        return None

    def replay(self):
        end = follow_rule(self.ctx, self.p, self)  # cyclic and random orders (replay_float checked)
        if isinstance(end, Inconsistency):
            return end
        bad = self.records.finish(end.visits, end.stop)
        if bad:
            return bad
        got = {"updates": self.k, "epochs": end.epochs, "visits": end.visits, "converged": end.converged,
               "stop": end.stop, "w": [float(v) for v in self.w],
               "b": float(self.b) if self.ctx.bias else float(augmented_bias(self.p, list(self.w)))}
        return end_mismatch(self.tr.end, got, exact=False)
