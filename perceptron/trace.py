"""Traces: the complete log of a run, schema ``proof-audit/trace`` version 1.

A trace is a header, one record per visit (or per update only), and an end record.

Header (JSON object)
    ``schema`` = "proof-audit/trace", ``version`` = 1, ``variant``, ``params`` (every run
    parameter), ``arithmetic`` ("exact" or "float"), ``dataset`` {sha256, name, n, d,
    label_map}, ``model_dim`` (length of w after augmentation), ``dual`` (kernel runs),
    ``record`` ("visits" or "updates"), and for exact runs ``scale``: the common denominators
    {score, w, b} of every value in the trace.  A float run whose scores went through the
    float32 screen says ``scores`` = "float32-screened": each recorded score is then within
    perceptron.run.error_scale32 |x| |w| (plus the terms of Primal.screen_bound) of the exact
    score, rather than within the float64 product's bound (decisions and weights are exact
    either way).

Visit
    ``t`` (1-based visit number), ``epoch`` (1-based), ``i`` (0-based point index), ``y``
    (label, -1/+1), ``score`` (w.x, w.x + b, or the kernel sum, before the update),
    ``mistake`` (bool), ``k`` (updates after this visit).  A visit with ``mistake`` true also
    carries the weights after its update: ``w`` and, with a bias, ``b``; kernel runs carry
    ``alpha``.  Pocket runs mark with ``pocket`` = true the visits at which the pocket took the
    weights held before the update.

End
    the run's summary: ``updates``, ``epochs``, ``visits``, ``converged``, ``stop``, final
    ``w``/``b``/``alpha``/``w_pocket``.

Checkpoints (``record`` = "checkpoints", NPZ only)
    A run too long to record visit by visit: no visit records; the columns ``upd_t`` (the
    visit number of each update) and ``upd_i`` (its point), and ``checkpoint_w_num``: the
    weights (numerators over scale.w) after every ``checkpoint_every`` updates (the header says
    how many), with ``checkpoint_b_num`` (over scale.b) for a variant with a bias of its own;
    the end record holds the final weights.  The replay re-runs every visit from the data
    (verify.replay.checkpoints), checks each against the updates and each checkpoint, in memory
    bounded independently of the run's length.  Written for exact runs of the built-in primal
    variants without a pocket, in the cyclic or random order, with the eta y x update
    (checkpoint_refusal says why each other run is refused).

Encodings
    JSON Lines (``.jsonl``): one object per line with ``"type"`` = header/visit/end; exact
    numbers are strings ``"p/q"`` (or ``"p"``), float numbers are JSON numbers written with
    shortest round-trip repr.  NPZ (``.npz``): ``header`` and ``end`` as JSON text; columns
    ``t, epoch, i, y, mistake, k``; ``score`` (float64) or ``score_num`` (numerators over
    header.scale.score); ``upd_t`` (visit number of each update), ``w``/``w_num``,
    ``b``/``b_num``, ``alpha``; ``pocket_t``.  Numerators too large for int64 are stored as
    decimal strings.

Declared variants (perceptron.declared)
    The header carries the declaration (``declaration``: the table as written, canonical) and no
    ``scale``: their exact values (eta_k = 1/k) have no common denominator, so each is written
    "p/q" in full; the end record adds ``outputs`` (the declared outputs).  They are written as
    JSON Lines only.  A trace written elsewhere may leave ``declaration`` out: ``check`` then
    replays it against the declaration given with ``--variants`` (or in the claim file).  Visit columns stream to disk while the run goes, so memory stays
    O(updates * d) however long the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ._numbers import INT64_SAFE, narrow_ints
from .declared import Declaration, variant_of
from .errors import InputError

__all__ = ["Trace", "MemoryTrace", "TraceWriter", "SCHEMA", "VERSION", "CHECKPOINT_EVERY",
           "MAX_CHECKPOINT_EVERY", "checkpoint_refusal"]

SCHEMA = "proof-audit/trace"
VERSION = 1
#: Values buffered per column before a flush to disk in the NPZ writer (bounds memory).
FLUSH_VALUES = 1 << 18
#: Updates between two weight checkpoints of a checkpoint trace: 2^16 updates of a run are
#: re-derived from one checkpoint (the replay holds a block of states at a time, not these).
CHECKPOINT_EVERY = 1 << 16
#: The largest checkpoint_every a header may state (a reader's bound, not a writer's choice).
MAX_CHECKPOINT_EVERY = 1 << 40


def checkpoint_refusal(header: dict) -> str | None:
    """Why a run cannot be recorded as a checkpoint trace (None when it can): its replay
    re-derives every visit from the updates, which needs a built-in primal run without a pocket
    (with or without a bias of its own), in the cyclic or random order, eta y x, exact."""
    p = header["params"]
    var = variant_of(p.get("variant", ""))
    if header["arithmetic"] != "exact":
        return "a checkpoint trace is of an exact run (--exact)"
    if var is None or getattr(var, "declared", False) or var.dual or var.pocket:
        return (f"a checkpoint trace is of a built-in primal variant without a pocket (rosenblatt, novikoff, sign, "
                f"slides, unit, sklearn), not {p.get('variant')}")
    order = str(p.get("order", ""))
    if not (order == "cyclic" or order.startswith("random:")):
        return f"a checkpoint trace is of a run in the cyclic or a random order, not {order}"
    if p.get("form", "yx") != "yx" or p.get("patience") is not None:
        return "a checkpoint trace is of a run with the eta y x update and no patience stop"
    return None


@dataclass
class Trace:
    """A trace in memory: numerators over the header's denominators (exact) or floats."""

    header: dict
    t: np.ndarray
    epoch: np.ndarray
    i: np.ndarray
    y: np.ndarray
    mistake: np.ndarray
    k: np.ndarray
    score: np.ndarray  # numerators (exact) or float64
    upd_t: np.ndarray
    w: np.ndarray | None  # (updates, model_dim) numerators or floats; alpha for dual runs
    b: np.ndarray | None
    pocket_t: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    end: dict = field(default_factory=dict)
    declaration: Declaration | None = None  #: the declaration a declared variant's header embeds
    #: declared variants' exact traces: the denominator of each record's score and of each
    #: update's w and b (their values have no common scale); the columns hold numerators
    score_den: np.ndarray | None = None
    w_den: np.ndarray | None = None
    b_den: np.ndarray | None = None
    #: a checkpoint trace (record "checkpoints"): the point of each update; ``w`` then holds the
    #: weights after every checkpoint_every-th update, not after each
    upd_i: np.ndarray | None = None

    @property
    def checkpoints(self) -> bool:
        return self.header.get("record") == "checkpoints"

    @property
    def exact(self) -> bool:
        return self.header["arithmetic"] == "exact"

    @property
    def fractional(self) -> bool:
        """An exact trace without a common scale (declared variants): columns hold Fractions."""
        return self.exact and "scale" not in self.header

    def den(self, what: str) -> int:
        return int(self.header["scale"][what]) if self.exact and not self.fractional else 1

    def score_value(self, j: int):
        if self.fractional:
            return Fraction(int(self.score[j]), int(self.score_den[j]))
        return Fraction(int(self.score[j]), self.den("score")) if self.exact else float(self.score[j])

    def weights_after(self, u: int):
        """(w, b) after update number u (0-based) as exact Fractions / floats (not of a checkpoint
        trace, which keeps the weights every checkpoint_every updates)."""
        if self.checkpoints:
            raise ValueError("a checkpoint trace keeps the weights every checkpoint_every updates, not after each")
        if self.header.get("dual"):
            return [int(v) for v in self.w[u]], None
        if self.fractional:
            d = int(self.w_den[u])
            return ([Fraction(int(v), d) for v in self.w[u]],
                    Fraction(int(self.b[u]), int(self.b_den[u])) if self.b is not None else None)
        if self.exact:
            w = [Fraction(int(v), self.den("w")) for v in self.w[u]]
            b = Fraction(int(self.b[u]), self.den("b")) if self.b is not None else None
        else:
            w = [float(v) for v in self.w[u]]
            b = float(self.b[u]) if self.b is not None else None
        return w, b


class TraceWriter:
    """Shared bookkeeping of the writers: the run calls begin, visits (batches), end."""

    writes_checkpoints = False  #: whether the format holds a checkpoint trace (NPZ's does)

    def __init__(self, record: str = "visits"):
        if record not in ("visits", "updates", "checkpoints"):
            raise ValueError("record must be 'visits', 'updates' or 'checkpoints'")
        self.record = record
        self.records = 0  # visit records written
        self.written = 0  # bytes written (an estimate from below for the NPZ archive's members)

    def _line(self, path: str, chars: int):
        """A record (a JSON Lines line, an NPZ header or end) of ``chars`` characters, within what
        the reader takes."""
        from . import limits

        if chars > limits.MAX_TRACE_LINE:
            raise InputError(path, f"a trace record would be {chars} characters, over the {limits.MAX_TRACE_LINE} "
                                   "check reads (perceptron.limits.MAX_TRACE_LINE); the run stopped there")

    def _numbers(self, path: str, texts):
        """Numbers as the trace spells them (p/q, decimal integers), each within the reader's
        MAX_NUMBER_CHARS."""
        from . import limits

        longest = max((len(t) for t in texts), default=0)
        if longest > limits.MAX_NUMBER_CHARS:
            raise InputError(path, f"a number of the trace would take {longest} characters, over the "
                                   f"{limits.MAX_NUMBER_CHARS} check reads (perceptron.limits.MAX_NUMBER_CHARS); the "
                                   "run stopped there (its exact values outgrew what a trace holds: use --arithmetic float)")

    def _within(self, path: str, records: int = 0, nbytes: int = 0, cells: tuple | None = None):
        """Count what a batch adds; stop the run, naming the limit, before the trace would be one
        the reader refuses (the partial file is removed by ``abort``)."""
        from . import limits

        self.records += records
        self.written += nbytes
        what = None
        if self.written > limits.MAX_TRACE_BYTES:
            what = f"{limits.MAX_TRACE_BYTES} bytes (perceptron.limits.MAX_TRACE_BYTES)"
        elif self.records > limits.MAX_TRACE_RECORDS:
            what = f"{limits.MAX_TRACE_RECORDS} visit records (perceptron.limits.MAX_TRACE_RECORDS)"
        elif cells is not None and cells[1] > limits.MAX_CELLS:
            what = f"{limits.MAX_CELLS} values in its {cells[0]} column (perceptron.limits.MAX_CELLS)"
        if what is not None:
            raise InputError(path, f"the trace would exceed {what}, which check reads; the run stopped there. Record "
                                   "a long run as checkpoints (--record checkpoints, .npz), or fewer visits (--record "
                                   "updates), a shorter run (--max-updates), or no trace")

    def begin(self, header: dict):
        self.header = {"schema": SCHEMA, "version": VERSION, **header, "record": self.record}
        if self.record == "checkpoints":
            why = None if self.writes_checkpoints else "a checkpoint trace is written as NPZ (.npz)"
            why = why or checkpoint_refusal(self.header)
            if why:
                raise InputError(getattr(self, "path", "trace"), why)
            self.header["checkpoint_every"] = CHECKPOINT_EVERY
        self.exact = header["arithmetic"] == "exact"
        self.fractional = self.exact and "scale" not in header
        self.dual = header.get("dual", False)
        self._begin()

    def visits(self, t0, epoch, idx, y, s, mist, k0, upd, pocket):
        """A batch of consecutive visits of one epoch; k0 is the update count before them and
        ``upd`` the weights after an update at the last visit (None when there is none)."""
        m = len(idx)
        ks = np.full(m, k0, dtype=np.int64)
        if upd is not None:
            ks[-1] += 1
        if self.record == "updates":
            if upd is None:
                return
            sl = slice(m - 1, m)
            t0 = t0 + m - 1
        else:
            sl = slice(0, m)
        ts = np.arange(t0, t0 + m, dtype=np.int64)[sl] if self.record == "visits" else np.array([t0], dtype=np.int64)
        self._visits(ts, epoch, np.asarray(idx)[sl], np.asarray(y)[sl], s[sl] if hasattr(s, "den") else np.asarray(s)[sl],
                     np.asarray(mist)[sl], np.asarray(ks)[sl], upd, pocket)

    def end(self, result):
        self._end(result.summary())

    def abort(self):
        """The run failed: close what is open and leave no partial trace behind (a trace
        without its end record is one check would refuse)."""


class MemoryTrace(TraceWriter):
    """Collects a trace in memory (for tests and the replay of short runs)."""

    def _begin(self):
        self._cols = {c: [] for c in ("t", "epoch", "i", "y", "mistake", "k", "score")}
        self._upd_t, self._w, self._b, self._pocket = [], [], [], []
        self._sden, self._wden, self._bden = [], [], []
        self._batches: list = []  # (t0, epoch, k0, updated, idx, y, s, mist): columns built at the end

    def visits(self, t0, epoch, idx, y, s, mist, k0, upd, pocket):
        """Every visit of a batch kept as given (no per-batch arrays): a run with an update at
        nearly every visit hands over many batches of one or two visits."""
        if self.record != "visits" or self.fractional:
            return super().visits(t0, epoch, idx, y, s, mist, k0, upd, pocket)
        self._batches.append((t0, epoch, k0, upd is not None, idx, y, s, mist))
        if upd is not None:
            t_last = t0 + len(idx) - 1
            self._upd_t.append(int(t_last))
            self._w.append(np.asarray(upd[0]))
            self._b.append(upd[1])
            if pocket:
                self._pocket.append(int(t_last))

    def _flush_batches(self):
        """The kept batches as the seven columns (as _visits would have built them)."""
        bs = self._batches
        if not bs:
            return
        ms = np.array([len(b[4]) for b in bs], dtype=np.int64)
        total = int(ms.sum())
        starts = np.repeat(np.array([b[0] for b in bs], dtype=np.int64) - np.concatenate([[0], np.cumsum(ms)[:-1]]), ms)
        c = self._cols
        c["t"].append(starts + np.arange(total, dtype=np.int64))
        c["epoch"].append(np.repeat(np.array([b[1] for b in bs], dtype=np.int64), ms))
        k = np.repeat(np.array([b[2] for b in bs], dtype=np.int64), ms)
        last = np.cumsum(ms) - 1
        k[last[np.array([b[3] for b in bs], dtype=bool)]] += 1
        c["k"].append(k)
        c["i"].append(np.concatenate([np.asarray(b[4]) for b in bs]).astype(np.int64))
        c["y"].append(np.concatenate([np.asarray(b[5]) for b in bs]).astype(np.int8))
        c["mistake"].append(np.concatenate([np.asarray(b[7]) for b in bs]).astype(bool))
        scores = [np.asarray(b[6]) for b in bs]
        c["score"].append(np.concatenate(scores) if scores else np.zeros(0))
        self._batches = []

    def _visits(self, ts, epoch, idx, y, s, mist, ks, upd, pocket):
        c = self._cols
        c["t"].append(ts)
        c["epoch"].append(np.full(len(ts), epoch, dtype=np.int64))
        c["i"].append(idx.astype(np.int64))
        c["y"].append(y.astype(np.int8))
        c["mistake"].append(mist.astype(bool))
        c["k"].append(ks.astype(np.int64))
        if self.fractional:  # a declared run's scores: numerators over one denominator per batch
            c["score"].append(s.num)
            self._sden.append(np.full(len(ts), s.den, dtype=np.int64 if s.den < INT64_SAFE else object))
        else:
            c["score"].append(s)
        if upd is not None:
            self._upd_t.append(int(ts[-1]))
            if self.fractional:
                self._w.append(upd[0].num)
                self._wden.append(upd[0].den)
                b = upd[1]
                self._b.append(None if b is None else b.numerator)
                self._bden.append(None if b is None else b.denominator)
            else:
                self._w.append(np.asarray(upd[0]))
                self._b.append(upd[1])
            if pocket:
                self._pocket.append(int(ts[-1]))

    def _end(self, summary):
        self._flush_batches()
        c = self._cols
        cat = {k: (np.concatenate(v) if v else np.zeros(0, dtype=np.int64)) for k, v in c.items()}
        has_b = bool(self._b) and self._b[0] is not None
        if self._w:
            w = np.vstack(self._w)
        else:
            w = np.zeros((0, self.header["dataset"]["n"] if self.dual else self.header["model_dim"]),
                         dtype=np.float64 if not self.exact else np.int64)
        b = np.array(self._b, dtype=object if self.exact else np.float64) if has_b else None
        if self.exact and not self.fractional:
            cat["score"] = narrow_ints(cat["score"])
            w = narrow_ints(w)
            b = narrow_ints(b) if b is not None else None
        elif self.fractional:
            w = np.vstack(self._w) if self._w else w
            cat["score"] = np.concatenate([np.asarray(v, dtype=object) for v in c["score"]]) if c["score"] else cat["score"]
        var = variant_of(self.header["params"]["variant"])
        if not has_b and not self.dual and var is not None and var.bias is not None:
            b = np.zeros(0, dtype=object if self.fractional else (np.int64 if self.exact else np.float64))
        dens = {}
        if self.fractional:
            dens = {"score_den": np.concatenate(self._sden) if self._sden else np.zeros(0, dtype=object),
                    "w_den": np.array(self._wden, dtype=object), "b_den": np.array(self._bden, dtype=object)}
        self.trace = Trace(self.header, cat["t"], cat["epoch"], cat["i"], cat["y"], cat["mistake"], cat["k"],
                           cat["score"], np.array(self._upd_t, dtype=np.int64), w, b,
                           np.array(self._pocket, dtype=np.int64), summary, **dens)


# ------------------------------------------------------------------------- JSON Lines
