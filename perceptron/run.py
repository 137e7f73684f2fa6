"""One run loop for every variant: exact (scaled integers) or float64.

Exact runs keep every quantity as an integer numerator over a denominator fixed for the whole
run: features x = X/D, weights w = W/S, bias b = B/(S D), so a score w.x + b = (X.W + B)/(S D).
S is chosen once so that every update is an integer step; the signs of scores, which decide
mistakes, are read off the integer numerators.  int64 arithmetic is used while a bound proves
it cannot wrap; past that, the arrays become Python integers.

Points between two updates are scored in blocks (one matrix-vector product), because w does
not change between them; the scores are the same numbers a one-point-at-a-time loop computes.
Float sums are taken in index order (like scikit-learn's sequential dot), so float runs
reproduce scikit-learn bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ._numbers import format_rational
from .datasets import Dataset
from .declared import DeclarationError, check_dimension, origin, variant_of
from .models.common import sign_or_tie
from .models.dual import Dual
from .models.primal import Primal
from .params import (
    ParamError,
    Params,
    SequenceError,
    check_params,
    declared_constants,
    epoch_permutations,
    parse_order,
    prepare_inputs,
)

__all__ = ["Result", "train", "built_in_model"]

#: Largest block of points scored by one product; bounds temporary memory to BLOCK_MAX rows.
BLOCK_MAX = 16384
#: Smallest block; below this a product costs more in call overhead than it saves.
BLOCK_MIN = 8
#: The fixed cost of scoring one block, in rows of a 100-column float product (measured:
#: about 40 us of call overhead against 0.03 us a row).
BLOCK_OVERHEAD_ROWS = 1300


@dataclass
class Result:
    """What a run ends with.  Exact runs give Fractions; float runs give floats."""

    variant: str
    arithmetic: str
    w: list | None
    b: object
    alpha: list | None
    updates: int
    epochs: int
    visits: int
    converged: bool
    stop: str
    dataset_sha256: str
    w_pocket: list | None = None
    augment: str | None = None
    extra: dict = field(default_factory=dict)

    def _bias(self):
        """The bias the classifier applies: b for bias variants, the augmented coordinate
        of w for augmented runs, else 0 (the hyperplane passes through the origin)."""
        if self.b is not None:
            return self.b
        if self.augment == "first":
            return self.w[0]
        if self.augment == "last":
            return self.w[-1]
        return 0 if self.arithmetic == "exact" else 0.0

    def summary(self) -> dict:
        fmt = format_rational if self.arithmetic == "exact" else float
        out = {
            "variant": self.variant,
            "arithmetic": self.arithmetic,
            "updates": self.updates,
            "epochs": self.epochs,
            "visits": self.visits,
            "converged": self.converged,
            "stop": self.stop,
            "w": None if self.w is None else [fmt(v) for v in self.w],
            "b": fmt(self._bias()) if self.w is not None else None,
            "dataset_sha256": self.dataset_sha256,
        }
        if self.alpha is not None:
            out["alpha"] = [int(a) for a in self.alpha]
        if self.w_pocket is not None:
            out["w_pocket"] = [fmt(v) for v in self.w_pocket]
        out.update(self.extra)
        return out


# --------------------------------------------------------------------------- inputs


# --------------------------------------------------------------------------- arithmetic


# --------------------------------------------------------------------------- the loop


def train(ds: Dataset, params: Params, recorder=None) -> Result:
    """Run ``params.variant`` on ``ds``.  ``recorder`` (see perceptron.trace) receives every
    visit; with none, nothing is recorded."""
    var = variant_of(params.variant)
    if not getattr(var, "declared", False):
        model, X = built_in_model(ds, params)
        if params.arithmetic == "exact":
            return _loop(ds, params, var, model, X, recorder)
        with np.errstate(over="ignore", invalid="ignore"):  # a float overflow is the model's error, not a warning
            return _loop(ds, params, var, model, X, recorder)
    check_params(params, var)
    X, D = prepare_inputs(ds, params)
    from .models.declared import DeclaredError, DeclaredModel

    # a fault of the declaration is its own error, naming where it was declared and the expression
    try:
        check_dimension(var, X.shape[1])
        with np.errstate(over="ignore", invalid="ignore", divide="raise"):  # an overflowing state is an error below
            model = DeclaredModel(var, ds, params, X, D, declared_constants(ds, params, X, D, var))
            return _loop(ds, params, var, model, X, recorder)
    except (DeclaredError, DeclarationError) as e:
        raise ParamError(f"{origin(var.name)}: {e.message if isinstance(e, DeclarationError) else e}") from None


def built_in_model(ds: Dataset, params: Params):
    """(model, inputs) of a run of a built-in variant, before its first visit: whatever train
    refuses of such a run (ParamError) it refuses here (the audit counts a run it need not make
    by asking this)."""
    var = variant_of(params.variant)
    check_params(params, var)
    X, D = prepare_inputs(ds, params)
    return (Dual(ds, params, X, D) if var.dual else Primal(ds, params, X, D)), X


def _loop(ds: Dataset, params: Params, var, model, X, recorder) -> Result:
    order, seed = parse_order(params.order)
    if order == "sequence" and any(j >= ds.n for j in seed):
        raise SequenceError(f"sequence names point {max(seed)}; the dataset has {ds.n} points (0-based)")
    if recorder is not None:
        recorder.begin(_header(ds, params, model, X))
    loop = _Loop(ds, params, var, model, recorder)
    if order in ("cyclic", "random"):
        loop.epochs(epoch_permutations(seed, ds.n) if order == "random" else None)
    elif order == "sequence":  # the updates are given: each must be on a misclassified point
        loop.sequence(seed)
    else:  # first, max-violation: every step looks at all points
        loop.search(order)
    return loop.result()


class _Loop:
    """One run's state as the loop drives the model: counts, the pocket, the block size."""

    def __init__(self, ds, params, var, model, recorder):
        self.ds, self.params, self.var, self.model, self.recorder = ds, params, var, model, recorder
        self.declared = getattr(var, "declared", False)
        self.y = ds.y.astype(np.int64)
        self.k = 0
        self.t = 0  # visits so far
        self.epoch = 0
        self.converged = False
        self.stop = None
        self.unchanged = 0  # visits since w last changed
        self.run = self.run_pocket = 0  # the pocket's state
        self.pocket_W, self.pocket_B = (model.weights() if var.pocket else (None, None))

    def update(self, i, s_i):
        """The update on point i (score s_i); returns whether the pocket took the weights held before it."""
        model, params = self.model, self.params
        out = sign_or_tie(s_i, model.tie)
        replaced = False
        if self.var.pocket and self.run > self.run_pocket:
            cand_W, cand_B = model.weights()
            if not params.ratchet or model.errors(cand_W, cand_B) < model.errors(self.pocket_W, self.pocket_B):
                self.pocket_W, self.pocket_B, self.run_pocket = cand_W, cand_B, self.run
                replaced = True
        model.update(i, int(self.y[i]), out, s_i, self.t)
        self.k += 1
        self.run = 0
        return replaced

    def emit(self, idx, s, mist, upd, replaced=False, ys=None):
        """The visits idx (the last ones made) to the recorder."""
        if self.recorder is None:
            return
        self.recorder.visits(self.t - len(idx) + 1, self.epoch, idx, self.y[idx] if ys is None else ys, s, mist,
                             self.k - 1 if upd else self.k, self.model.weights() if upd else None, replaced)

    def epochs(self, perms):
        """Cyclic and random orders: epochs of points scored in blocks between updates."""
        params = self.params
        self.block = BLOCK_MIN * 4
        self.gap_est = float(self.block)
        while True:
            if self.epoch >= params.max_epochs:
                self.stop = "max_epochs"
                return
            if self.k >= params.max_updates:
                self.stop = "max_updates"
                return
            self.epoch += 1
            clean = self._epoch(next(perms) if perms is not None else None)
            if self.stop is not None:
                return
            if clean and not (self.declared and self.var.stop == "epochs"):
                self.converged, self.stop = True, "converged"
                return

    def _epoch(self, perm) -> bool:
        """One epoch; whether it made no mistake (``stop`` set when the run ends in it)."""
        params, model, y, n = self.params, self.model, self.y, self.ds.n
        max_visits = params.max_visits
        pos = 0
        clean = True
        while pos < n:
            m = min(self.block, n - pos)
            if max_visits is not None:
                m = min(m, max_visits - self.t)
                if m <= 0:
                    self.stop = "max_visits"
                    return clean
            if perm is not None:
                idx = perm[pos:pos + m]
                s = model.scores(idx)
                ys = y[idx]
            else:
                idx = np.arange(pos, pos + m)
                s = model.scores(idx, lo=pos)
                ys = y[pos:pos + m]
            mist = model.mistakes(s, ys)
            hits = np.flatnonzero(mist)
            if params.patience is not None:
                room = params.patience - self.unchanged
                if (hits.size == 0 or hits[0] >= room) and m >= room:
                    self.t += room
                    self.unchanged += room
                    self.run += room
                    self.emit(idx[:room], s[:room], mist[:room], False, ys=ys[:room])
                    self.stop = "unchanged"
                    return clean
            if hits.size == 0:
                self.t += m
                self.unchanged += m
                self.run += m
                self.emit(idx, s, mist, False, ys=ys)
                pos += m
                # no mistake yet: the gap is at least `unchanged`; grow toward its balance point
                target = math.sqrt(2 * BLOCK_OVERHEAD_ROWS * max(self.gap_est, self.unchanged))
                self.block = int(min(BLOCK_MAX, 2 * self.block, max(self.block, target)))
                continue
            j = int(hits[0])
            self.t += j + 1
            self.run += j
            replaced = self.update(int(idx[j]), s[j])
            self.gap_est = 0.7 * self.gap_est + 0.3 * (self.unchanged + j + 1)
            self.unchanged = 0
            clean = False
            self.emit(idx[:j + 1], s[:j + 1], mist[:j + 1], True, replaced, ys=ys[:j + 1])
            pos += j + 1
            # Rows scored past the next mistake are wasted, and each block costs a fixed
            # overhead worth about BLOCK_OVERHEAD_ROWS rows: with gaps of mean g between
            # mistakes, a block of sqrt(2 * overhead * g) balances the two.
            self.block = int(max(BLOCK_MIN, min(2 * self.gap_est, math.sqrt(2 * BLOCK_OVERHEAD_ROWS * self.gap_est))))
            if self.k >= params.max_updates:
                self.stop = "max_updates"
                return clean
        return clean

    def sequence(self, seed):
        """The updates a ``sequence:`` order names, each on a misclassified point."""
        model, y = self.model, self.y
        for step, j in enumerate(seed, 1):
            s = model.all_scores()
            mist = model.mistakes(s, y)
            if not mist[j]:
                raise SequenceError(f"sequence step {step}: point {j} is correctly classified (score {s[j]}, y = {int(y[j])}); "
                                 "the algorithm only updates on a misclassified point")
            self.epoch = step
            self.t += 1
            replaced = self.update(j, s[j])
            self.emit(np.array([j]), s[j:j + 1], mist[j:j + 1], True, replaced)
        self.converged = not model.mistakes(model.all_scores(), y).any()
        self.stop = "converged" if self.converged else "sequence_end"

    def search(self, order):
        """``first`` and ``max-violation``: each step scores every point and updates on the first
        (or most violated) mistake."""
        params, model, y, n = self.params, self.model, self.y, self.ds.n
        max_visits = params.max_visits
        while True:
            s = model.all_scores()
            mist = model.mistakes(s, y)
            hits = np.flatnonzero(mist)
            self.epoch += 1
            if hits.size == 0:
                m = n if max_visits is None else max(0, min(n, max_visits - self.t))
                self.t += m
                self.run += m
                self.emit(np.arange(m), s[:m], mist[:m], False)
                self.converged = m == n
                self.stop = "converged" if m == n else "max_visits"
                return
            if self.k >= params.max_updates:
                self.stop = "max_updates"
                return
            if self.epoch > params.max_epochs:
                self.stop = "max_epochs"
                self.epoch -= 1
                return
            if order == "first":
                j = int(hits[0])
                if max_visits is not None and self.t + j + 1 > max_visits:
                    self.stop = "max_visits"
                    return
                self.t += j + 1
                self.run += j
                replaced = self.update(j, s[j])
                self.emit(np.arange(j + 1), s[:j + 1], mist[:j + 1], True, replaced)
            else:
                margins = s[hits] * y[hits]
                j = int(hits[int(np.argmin(margins))])
                if max_visits is not None and self.t + 1 > max_visits:
                    self.stop = "max_visits"
                    return
                self.t += 1
                replaced = self.update(j, s[j])
                self.emit(np.array([j]), s[j:j + 1], mist[j:j + 1], True, replaced)

    def result(self) -> Result:
        """The run's Result (also written to the recorder's end record)."""
        params, var, model, declared = self.params, self.var, self.model, self.declared
        exact = params.arithmetic == "exact"
        if self.stop in ("unchanged",) or (self.stop != "converged" and var.pocket) or (declared and var.stop == "epochs"):
            self.converged = not model.mistakes(model.all_scores(), self.y).any()
        w_pocket = None
        if var.pocket:
            if self.run > self.run_pocket:
                self.pocket_W, self.pocket_B = model.weights()
                self.run_pocket = self.run
            w_pocket = ([Fraction(int(v), model.S) for v in self.pocket_W] if exact else [float(v) for v in self.pocket_W])
        w, b = model.final()
        alpha = [int(a) for a in model.alpha] if var.dual else None
        res = Result(params.variant, params.arithmetic, w, b, alpha, self.k, self.epoch, self.t, self.converged, self.stop,
                     self.ds.sha256, w_pocket, params.augment)
        if var.pocket:
            res.extra["run_pocket"] = int(self.run_pocket)
        if declared and var.outputs:
            fmt = format_rational if exact else float
            res.extra["outputs"] = {o: ([fmt(a) for a in v] if isinstance(v, list) else fmt(v))
                                    for o, v in model.outputs(self.t, self.epoch).items()}
        if self.recorder is not None:
            self.recorder.end(res)
        return res


def _header(ds: Dataset, params: Params, model, X) -> dict:
    exact = params.arithmetic == "exact"
    h = {
        "variant": params.variant,
        "params": params.to_json(),
        "arithmetic": params.arithmetic,
        "dataset": {"sha256": ds.sha256, "name": ds.name, "n": ds.n, "d": ds.d,
                    "label_map": ds.label_map},
        "model_dim": int(X.shape[1]),
        "dual": isinstance(model, Dual),
    }
    if getattr(model, "declared", False):
        h["declaration"] = model.decl.source  # exact values are written "p/q": no common scale
        return h
    if exact:
        if isinstance(model, Dual):
            h["scale"] = {"score": str(model.score_den)}
        else:
            h["scale"] = {"score": str(model.score_den), "w": str(model.S), "b": str(model.S * model.D)}
    elif getattr(model, "X32", None) is not None:
        h["scores"] = "float32-screened"  # a recorded score is within error_scale32 |x| |w| of the exact one
    return h
