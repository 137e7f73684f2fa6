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

import json
import math
import os
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ._npz import load_npz
from ._numbers import (
    INT64_SAFE,
    NumberError,
    format_rational,
    narrow_ints,
    parse_rational,
)
from .declared import Declaration, DeclarationError, parse_declaration, variant_of
from .errors import InputError
from .limits import (
    MAX_DIM,
    MAX_NUMBER_CHARS,
    MAX_POINTS,
    MAX_TRACE_BYTES,
    MAX_TRACE_LINE,
    MAX_TRACE_RECORDS,
    check_regular_file,
)
from .variants import VARIANTS

__all__ = ["Trace", "MemoryTrace", "JsonlWriter", "NpzWriter", "open_writer", "read_trace", "SCHEMA", "VERSION"]

SCHEMA = "proof-audit/trace"
VERSION = 1
#: Values buffered per column before a flush to disk in the NPZ writer (bounds memory).
FLUSH_VALUES = 1 << 18


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
        """(w, b) after update number u (0-based) as exact Fractions / floats."""
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


class _Base:
    """Shared bookkeeping of the writers: the run calls begin, visits (batches), end."""

    def __init__(self, record: str = "visits"):
        if record not in ("visits", "updates"):
            raise ValueError("record must be 'visits' or 'updates'")
        self.record = record

    def begin(self, header: dict):
        self.header = {"schema": SCHEMA, "version": VERSION, **header, "record": self.record}
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


class MemoryTrace(_Base):
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

def _fmt_num(v, den: int | None):
    if den is None:
        return format_rational(v) if isinstance(v, Fraction) else float(v)
    return format_rational(Fraction(int(v), den))


class JsonlWriter(_Base):
    """Streams a trace as JSON Lines."""

    def __init__(self, path: str, record: str = "visits"):
        super().__init__(record)
        self.path = path

    def _begin(self):
        self.fh = open(self.path, "w", encoding="utf-8")
        self.fh.write(json.dumps({"type": "header", **self.header}, sort_keys=True) + "\n")
        sc = self.header.get("scale", {})
        self.sden = int(sc["score"]) if self.exact and "score" in sc else None
        self.wden = int(sc["w"]) if self.exact and "w" in sc else None
        self.bden = int(sc["b"]) if self.exact and "b" in sc else None

    def _visits(self, ts, epoch, idx, y, s, mist, ks, upd, pocket):
        out = []
        m = len(ts)
        for j in range(m):
            rec = {"type": "visit", "t": int(ts[j]), "epoch": int(epoch), "i": int(idx[j]), "y": int(y[j]),
                   "score": _fmt_num(s.num[j], s.den) if self.fractional else _fmt_num(s[j], self.sden),
                   "mistake": bool(mist[j]), "k": int(ks[j])}
            if j == m - 1 and upd is not None:
                if self.dual:
                    rec["alpha"] = [int(a) for a in upd[0]]
                else:
                    if self.fractional:
                        rec["w"] = [_fmt_num(v, upd[0].den) for v in upd[0].num.tolist()]
                    elif self.exact:
                        rec["w"] = [_fmt_num(v, self.wden) for v in np.asarray(upd[0]).tolist()]
                    else:
                        rec["w"] = [float(v) for v in upd[0]]
                    if upd[1] is not None:
                        rec["b"] = format_rational(upd[1]) if self.fractional else _fmt_num(upd[1], self.bden)
                if pocket:
                    rec["pocket"] = True
            out.append(json.dumps(rec, separators=(",", ":")))
        self.fh.write("\n".join(out) + "\n")

    def _end(self, summary):
        self.fh.write(json.dumps({"type": "end", **summary}, sort_keys=True) + "\n")
        self.fh.close()


# ------------------------------------------------------------------------- NPZ (streamed)

class _Column:
    """A column spooled to a temporary file as raw int64/float64/bool/int8 rows, through a
    preallocated buffer of FLUSH_VALUES values; switches to decimal text if a value outgrows
    int64 (exact runs past int64 hand over object arrays of Python integers)."""

    def __init__(self, path: str, dtype, width: int | None = None):
        self.path, self.dtype, self.width, self.rows = path, np.dtype(dtype), width, 0
        self.text = False
        self.fh = open(path, "wb")
        cap = max(1, FLUSH_VALUES // (width or 1))
        self.buf = np.empty((cap,) if width is None else (cap, width), dtype=self.dtype)
        self.nbuf = 0

    def append(self, a):
        m = len(a)
        if getattr(a, "dtype", None) == object and self.dtype.kind == "i":
            a = narrow_ints(a)
            if a.dtype == object:
                self.flush()
                self._to_text()
                self._write_text(a)
                self.rows += m
                return
        if self.text:
            self._write_text(np.asarray(a))
            self.rows += m
            return
        if self.nbuf + m > len(self.buf):
            self.flush()
            if m > len(self.buf):
                np.ascontiguousarray(a, dtype=self.dtype).tofile(self.fh)
                self.rows += m
                return
        self.buf[self.nbuf:self.nbuf + m] = a
        self.nbuf += m

    def flush(self):
        if self.nbuf:
            self.buf[:self.nbuf].tofile(self.fh)
            self.rows += self.nbuf
            self.nbuf = 0

    def _write_text(self, a):
        self.fh.write(("\n".join(str(int(v)) for v in a.ravel()) + "\n").encode())

    def _to_text(self):
        if self.text:
            return
        self.fh.close()
        old = np.fromfile(self.path, dtype=self.dtype)
        self.fh = open(self.path, "wb")
        self.text = True
        if old.size:
            self._write_text(old)

    def write_into(self, zf: zipfile.ZipFile, name: str):
        self.flush()
        self.fh.close()
        shape = (self.rows,) if self.width is None else (self.rows, self.width)
        if self.text:
            with open(self.path) as fh:
                vals = fh.read().split()
            arr = np.array(vals, dtype=str).reshape(shape)
            with zf.open(name + ".npy", "w", force_zip64=True) as out:
                np.lib.format.write_array(out, arr, allow_pickle=False)
            return
        with zf.open(name + ".npy", "w", force_zip64=True) as out:
            np.lib.format.write_array_header_2_0(out, {"descr": np.lib.format.dtype_to_descr(self.dtype),
                                                       "fortran_order": False, "shape": shape})
            with open(self.path, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)


class NpzWriter(_Base):
    """Streams a trace into a NumPy .npz archive (columns spooled to disk, zipped at the end)."""

    def __init__(self, path: str, record: str = "visits"):
        super().__init__(record)
        self.path = path

    def _begin(self):
        if "declaration" in self.header:
            raise InputError(self.path, "a declared variant's trace is written as JSON Lines (.jsonl): its exact values "
                                        "have no common scale for NPZ columns")
        self.tmp = tempfile.mkdtemp(prefix="proof-audit-trace-")
        fdt = np.int64 if self.exact else np.float64
        dim = self.header["dataset"]["n"] if self.dual else self.header["model_dim"]
        idt = np.int32 if self.header["dataset"]["n"] < 2**31 else np.int64
        c = {"i": idt, "y": np.int8, "mistake": np.bool_,
             "seg_t0": np.int64, "seg_len": np.int64, "seg_epoch": np.int64, "seg_k": np.int64}
        self.cols = {name: _Column(os.path.join(self.tmp, name), dt) for name, dt in c.items()}
        self.cols["score_num" if self.exact else "score"] = _Column(os.path.join(self.tmp, "score"), fdt)
        self.cols["upd_t"] = _Column(os.path.join(self.tmp, "upd_t"), np.int64)
        wname = "alpha" if self.dual else ("w_num" if self.exact else "w")
        self.wname = wname
        self.cols[wname] = _Column(os.path.join(self.tmp, "w"), np.int64 if (self.exact or self.dual) else np.float64, dim)
        self.bname = None
        self.cols["pocket_t"] = _Column(os.path.join(self.tmp, "pocket_t"), np.int64)

    def visits(self, t0, epoch, idx, y, s, mist, k0, upd, pocket):
        if self.record == "updates":
            if upd is None:
                return
            m = len(idx)
            t0, idx, y, s, mist = t0 + m - 1, idx[m - 1:], y[m - 1:], s[m - 1:], mist[m - 1:]
        self._visits(t0, epoch, idx, y, s, mist, k0, upd, pocket)

    def _visits(self, t0, epoch, idx, y, s, mist, k0, upd, pocket):
        c = self.cols
        # t, epoch and k are counting or constant within a batch: stored once per segment
        c["seg_t0"].append((t0,))
        c["seg_len"].append((len(idx),))
        c["seg_epoch"].append((epoch,))
        c["seg_k"].append((k0,))
        ts = (t0 + len(idx) - 1,)
        c["i"].append(idx)
        c["y"].append(y)
        c["mistake"].append(mist)
        c["score_num" if self.exact else "score"].append(s)
        if upd is not None:
            c["upd_t"].append(ts)
            c[self.wname].append(np.asarray(upd[0]).reshape(1, -1))
            if upd[1] is not None:
                if self.bname is None:
                    self.bname = "b_num" if self.exact else "b"
                    self.cols[self.bname] = _Column(os.path.join(self.tmp, "b"), np.int64 if self.exact else np.float64)
                self.cols[self.bname].append(np.array([upd[1]], dtype=object if self.exact else np.float64))
            if pocket:
                c["pocket_t"].append(ts)

    def _end(self, summary):
        try:
            with zipfile.ZipFile(self.path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
                for name, text in (("header", json.dumps(self.header, sort_keys=True)), ("end", json.dumps(summary, sort_keys=True))):
                    with zf.open(name + ".npy", "w") as out:
                        np.lib.format.write_array(out, np.array(text), allow_pickle=False)
                for name, col in self.cols.items():
                    col.write_into(zf, name)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


def open_writer(path: str, record: str = "visits"):
    """A streaming writer chosen by the file name: ``.npz`` -> NPZ, anything else -> JSONL."""
    return NpzWriter(path, record) if str(path).endswith(".npz") else JsonlWriter(path, record)


# ------------------------------------------------------------------------- reading
#
# A trace is untrusted input.  The reader establishes its structure: every field present and
# strictly typed (a string "false" is not a bool, 1.9 is not a label), the header and the end
# record consistent with each other and with the parameters, every record the shape the
# header promises, numbers within the limits of perceptron.limits.  Whether the records are
# the run of those parameters on the data is the replay's question (verify.replay.dispatch).

_STOPS = ("converged", "max_epochs", "max_updates", "max_visits", "unchanged", "sequence_end")
_HEADER_KEYS = {"schema", "version", "variant", "params", "arithmetic", "dataset", "model_dim", "dual", "record", "scale",
                "declaration", "scores"}
_VISIT_KEYS = {"type", "t", "epoch", "i", "y", "score", "mistake", "k", "w", "b", "alpha", "pocket"}
_END_KEYS = {"variant", "arithmetic", "updates", "epochs", "visits", "converged", "stop", "w", "b", "dataset_sha256",
             "alpha", "w_pocket", "run_pocket", "outputs"}


def read_trace(path: str) -> Trace:
    """Read a trace written in either encoding; bad files raise InputError with the line."""
    path = os.fspath(path)
    if path.endswith(".npz"):
        return _read_npz(path)
    check_regular_file(path, MAX_TRACE_BYTES, "trace")
    return _read_jsonl(path)


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(text)} digits exceeds the limit of {MAX_NUMBER_CHARS} (perceptron.limits)")
    return int(text)


def _json_constant(name: str):
    raise ValueError(f"{name} is not a number a trace may hold")


def _loads(text: str):
    return json.loads(text, parse_int=_json_int, parse_constant=_json_constant)


def _is_int(v) -> bool:
    return type(v) is int


def _check_header(path, h, line=None):
    """Structure of the header (and its params, parsed strictly); raises InputError naming the
    first problem."""
    from .params import ParamError, Params

    def bad(msg):
        raise InputError(path, msg, line)

    if not isinstance(h, dict) or h.get("schema") != SCHEMA:
        bad(f"not a proof-audit trace (schema {str(h.get('schema'))[:40] if isinstance(h, dict) else None!r})")
    if not _is_int(h.get("version")) or h.get("version") != VERSION:
        bad(f"trace schema version {str(h.get('version'))[:20]} is not supported (this reader knows {VERSION})")
    for key in ("variant", "params", "arithmetic", "dataset", "model_dim", "record"):
        if key not in h:
            bad(f"trace header lacks {key!r}")
    extra = sorted(set(h) - _HEADER_KEYS)
    if extra:
        bad(f"trace header has an unknown field {extra[0][:40]!r}")
    if h["arithmetic"] not in ("exact", "float"):
        bad(f"header arithmetic must be \"exact\" or \"float\", not {str(h['arithmetic'])[:40]!r}")
    var = header_variant(path, h, line)
    try:
        params = Params.from_json(h["params"], var)
    except (ParamError, TypeError, ValueError) as e:
        bad(f"trace parameters: {e}")
    if params.variant != h["variant"]:
        bad(f"header variant {h['variant']!r} differs from params.variant {params.variant!r}")
    if params.arithmetic != h["arithmetic"]:
        bad(f"header arithmetic {h['arithmetic']!r} differs from params.arithmetic {params.arithmetic!r}")
    ds = h["dataset"]
    if not isinstance(ds, dict):
        bad("header dataset must be an object")
    sha = ds.get("sha256")
    if not (isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)):
        bad("header dataset.sha256 must be 64 lower-case hex digits")
    for key, top in (("n", MAX_POINTS), ("d", MAX_DIM)):
        v = ds.get(key)
        if not _is_int(v) or not 1 <= v <= top:
            bad(f"header dataset.{key} must be an integer in 1..{top}, not {str(v)[:40]}")
    if not isinstance(ds.get("name", ""), str) or not isinstance(ds.get("label_map", {}), dict):
        bad("header dataset.name must be a string and dataset.label_map an object")
    want_dim = ds["d"] + (1 if params.augment else 0)
    if not _is_int(h["model_dim"]) or h["model_dim"] != want_dim:
        bad(f"header model_dim must be the dataset's dimension {ds['d']}"
            + (" plus the augmented coordinate" if params.augment else "") + f" = {want_dim}, not {str(h['model_dim'])[:40]}")
    if h.get("dual", False) is not var.dual:
        bad(f"header dual must be {str(var.dual).lower()} for the {var.name} variant")
    if h["record"] not in ("visits", "updates"):
        bad(f"header record must be \"visits\" or \"updates\", not {str(h['record'])[:40]!r}")
    if "scores" in h and (h["scores"] != "float32-screened" or h["arithmetic"] != "float"):
        bad("header scores may only be \"float32-screened\", in a float trace (recorded scores then lie within the "
            "float32 screen's bound of the exact ones)")
    if params.w0 is not None and len(params.w0) != want_dim:
        bad(f"params.w0 has {len(params.w0)} entries; the model has {want_dim}")
    if getattr(var, "declared", False):
        if "scale" in h:
            bad("a declared variant's trace has no scale: its exact values are written \"p/q\" in full")
    elif h["arithmetic"] == "exact":
        sc = h.get("scale")
        need = {"score"} if var.dual else {"score", "w", "b"}
        if not isinstance(sc, dict) or set(sc) != need:
            bad(f"an exact trace's header needs scale {{{', '.join(sorted(need))}}} (the common denominators)")
        for key, v in sc.items():
            if not (isinstance(v, str) and v.isascii() and v.isdigit() and len(v) <= MAX_NUMBER_CHARS and int(v) >= 1):
                bad(f"header scale.{key} must be a positive integer in a string, not {str(v)[:40]!r}")
    elif "scale" in h:
        bad("a float trace's header has no scale")


def header_variant(path, h, line=None):
    """The variant a trace header names: built in, embedded in the header (``declaration``), or
    declared in this process (perceptron.declared.register); raises InputError otherwise."""
    name = h.get("variant")
    if not isinstance(name, str):
        raise InputError(path, "header variant must be a string", line)
    if name in VARIANTS:
        if "declaration" in h:
            raise InputError(path, f"{name} is a built-in variant; its header has no declaration", line)
        return VARIANTS[name]
    if "declaration" in h:
        try:
            return parse_declaration(name, h["declaration"])
        except DeclarationError as e:
            raise InputError(path, f"the header's declaration of {name[:40]}: {e.message}", line) from None
    var = variant_of(name)
    if var is None:
        raise InputError(path, f"unknown variant {name[:40]!r}: the header has no declaration of it; give its "
                               f"declaration with --variants FILE (this reader knows {', '.join(VARIANTS)})", line)
    return var


def _check_end(path, end, h, line=None):
    def bad(msg):
        raise InputError(path, msg, line)

    extra = sorted(set(end) - _END_KEYS)
    if extra:
        bad(f"end record has an unknown field {extra[0][:40]!r}")
    for key in ("updates", "epochs", "visits"):
        if not _is_int(end.get(key)) or end[key] < 0:
            bad(f"end record: {key} must be a non-negative integer, not {str(end.get(key))[:40]}")
    if type(end.get("converged")) is not bool:
        bad(f"end record: converged must be true or false, not {str(end.get('converged'))[:40]!r}")
    if end.get("stop") not in _STOPS:
        bad(f"end record: stop must be one of {', '.join(_STOPS)}, not {str(end.get('stop'))[:40]!r}")
    if end.get("variant") != h["variant"] or end.get("arithmetic") != h["arithmetic"]:
        bad("end record: variant and arithmetic must be the header's")
    if end.get("dataset_sha256") != h["dataset"]["sha256"]:
        bad("end record: dataset_sha256 must be the header's dataset.sha256")


def _number(v, den, exact):
    """A trace number: a numerator over den (exact: a "p/q" string or an integer) or a float."""
    if not exact:
        if type(v) not in (int, float):
            raise ValueError(f"expected a number, got {str(v)[:40]!r}")
        f = float(v)
        if not np.isfinite(f):
            raise ValueError(f"{str(v)[:40]} is not finite")
        return f
    if type(v) is int:
        f = Fraction(v)
    elif type(v) is str:
        try:
            f = parse_rational(v)
        except NumberError as e:
            raise ValueError(str(e)) from None
    else:
        raise ValueError(f"expected an exact number as a string \"p/q\", got {str(v)[:40]!r}")
    if den is None:  # a declared variant's trace: every value in full
        return f
    num = f * den
    if num.denominator != 1:
        raise ValueError(f"{v} is not a multiple of 1/{den} (the header's scale)")
    return int(num)


def _read_jsonl(path) -> Trace:
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    header = end = None
    cols = {c: [] for c in ("t", "epoch", "i", "y", "mistake", "k", "score")}
    upd_t, ws, bs, pocket = [], [], [], []
    ln = 0
    with fh:
        while True:
            try:
                line = fh.readline(MAX_TRACE_LINE + 1)
            except UnicodeDecodeError:
                raise InputError(path, "not UTF-8 text", ln + 1) from None
            if not line:
                break
            ln += 1
            if len(line) > MAX_TRACE_LINE:
                raise InputError(path, f"a record longer than {MAX_TRACE_LINE} characters (perceptron.limits.MAX_TRACE_LINE)", ln)
            if not line.strip():
                continue
            try:
                obj = _loads(line)
            except json.JSONDecodeError as e:
                raise InputError(path, f"not JSON: {e.msg}", ln, e.colno) from None
            except (ValueError, RecursionError) as e:
                raise InputError(path, f"not a valid record: {str(e)[:160]}", ln) from None
            if not isinstance(obj, dict):
                raise InputError(path, "each line must be a JSON object", ln)
            kind = obj.get("type")
            if end is not None:
                raise InputError(path, f"a {str(kind)[:20]} record after the end record", ln)
            if header is None:
                if kind != "header":
                    raise InputError(path, "the first line must be the trace header", ln)
                header = {k: v for k, v in obj.items() if k != "type"}
                _check_header(path, header, ln)
                exact = header["arithmetic"] == "exact"
                var = header_variant(path, header, ln)
                dens = {k: int(v) for k, v in header.get("scale", {}).items()}
                n, dim = header["dataset"]["n"], header["model_dim"]
                continue
            if kind == "end":
                end = {k: v for k, v in obj.items() if k != "type"}
                _check_end(path, end, header, ln)
                continue
            if kind != "visit":
                raise InputError(path, f"unknown record type {str(kind)[:40]!r}", ln)
            if len(cols["t"]) >= MAX_TRACE_RECORDS:
                raise InputError(path, f"more than {MAX_TRACE_RECORDS} visit records (perceptron.limits.MAX_TRACE_RECORDS)", ln)
            try:
                _visit(obj, header, var, exact, dens, n, dim, cols, upd_t, ws, bs, pocket)
            except (KeyError, TypeError, ValueError) as e:
                msg = f"missing field {e}" if isinstance(e, KeyError) else str(e)
                raise InputError(path, f"bad visit record: {msg}", ln) from None
    if header is None:
        raise InputError(path, "empty trace")
    if end is None:
        raise InputError(path, "the trace has no end record (cut short?)", ln)
    fdt = object if exact else np.float64
    wdim = n if var.dual else dim
    w = np.array(ws, dtype=object if (exact or var.dual) else np.float64).reshape(len(ws), wdim) if ws \
        else np.zeros((0, wdim), dtype=np.int64 if (exact or var.dual) else np.float64)
    b = np.array(bs, dtype=fdt) if var.bias is not None else None
    score = np.array(cols["score"], dtype=fdt)
    fractional = exact and "scale" not in header
    dens = {}
    if fractional:  # each value in full: numerators over each record's own denominator
        score, sden = _per_value(score)
        rows = [_per_row(r) for r in ws]
        w = np.array([r[0] for r in rows], dtype=object).reshape(len(ws), wdim) if ws else w
        dens = {"score_den": sden, "w_den": np.array([r[1] for r in rows], dtype=object)}
        if b is not None:
            b, bden = _per_value(b)
            dens["b_den"] = bden
    if (exact or var.dual) and not fractional:
        w = narrow_ints(w)
    if exact and not fractional:
        score = narrow_ints(score)
        b = narrow_ints(b) if b is not None else None
    tr = Trace(header, np.array(cols["t"], dtype=np.int64), np.array(cols["epoch"], dtype=np.int64),
               np.array(cols["i"], dtype=np.int64), np.array(cols["y"], dtype=np.int8),
               np.array(cols["mistake"], dtype=bool), np.array(cols["k"], dtype=np.int64), score,
               np.array(upd_t, dtype=np.int64), w, b, np.array(pocket, dtype=np.int64), end,
               var if getattr(var, "declared", False) else None, **dens)
    _check_columns(path, tr)
    return tr


def _per_value(values):
    """A column of Fractions -> (numerators, denominators), each value over its own denominator."""
    return (np.array([v.numerator for v in values], dtype=object),
            np.array([v.denominator for v in values], dtype=object))


def _per_row(row):
    """A weight vector of Fractions -> (numerators over the row's common denominator, it)."""
    den = 1
    for v in row:
        den = den * v.denominator // math.gcd(den, v.denominator)
    return [v.numerator * (den // v.denominator) for v in row], den


def _visit(obj, header, var, exact, dens, n, dim, cols, upd_t, ws, bs, pocket):
    extra = sorted(set(obj) - _VISIT_KEYS)
    if extra:
        raise ValueError(f"unknown field {extra[0][:40]!r}")
    for key in ("t", "epoch", "i", "k"):
        if not _is_int(obj[key]):
            raise ValueError(f"{key} must be an integer, not {str(obj[key])[:40]!r}")
    t = obj["t"]
    if t < 1 or obj["epoch"] < 1 or obj["k"] < 0:
        raise ValueError("t and epoch count from 1, k from 0")
    if not 0 <= obj["i"] < n:
        raise ValueError(f"point index {obj['i']} is outside 0..{n - 1}")
    if not _is_int(obj["y"]) or obj["y"] not in (-1, 1):
        raise ValueError(f"y must be -1 or 1, not {str(obj['y'])[:40]!r}")
    if type(obj["mistake"]) is not bool:
        raise ValueError(f"mistake must be true or false, not {str(obj['mistake'])[:40]!r}")
    score = _number(obj["score"], dens.get("score"), exact)
    has_w = "alpha" in obj if var.dual else "w" in obj
    if ("w" in obj and var.dual) or ("alpha" in obj and not var.dual):
        raise ValueError("w belongs to primal variants, alpha to the kernel variant")
    if ("b" in obj) != (has_w and var.bias is not None):
        raise ValueError("b is recorded with every update of a bias variant, and only then")
    if "pocket" in obj and (obj["pocket"] is not True or not var.pocket or not has_w):
        raise ValueError("pocket = true marks an update of the pocket variant")
    if has_w:
        vec = obj["alpha"] if var.dual else obj["w"]
        want = n if var.dual else dim
        if type(vec) is not list or len(vec) != want:
            raise ValueError(f"{'alpha' if var.dual else 'w'} must be a list of {want} numbers")
        if var.dual:
            if not all(_is_int(a) and a >= 0 for a in vec):
                raise ValueError("alpha must hold non-negative integers")
            ws.append(vec)
        else:
            ws.append([_number(v, dens.get("w"), exact) for v in vec])
        if "b" in obj:
            bs.append(_number(obj["b"], dens.get("b"), exact))
        upd_t.append(t)
        if obj.get("pocket"):
            pocket.append(t)
    cols["t"].append(t)
    cols["epoch"].append(obj["epoch"])
    cols["i"].append(obj["i"])
    cols["y"].append(obj["y"])
    cols["mistake"].append(obj["mistake"])
    cols["k"].append(obj["k"])
    cols["score"].append(score)


def _check_columns(path, tr: Trace):
    """What both encodings must satisfy, record by record: labels +-1, indices in range, one
    weight vector of the model's length per recorded update, finite floats.  How the records
    follow each other (visit numbers, epochs, which visits update) is the replay's to check,
    so that it can name the visit."""
    h = tr.header
    n = h["dataset"]["n"]
    m = len(tr.t)
    for name in ("epoch", "i", "y", "mistake", "k", "score"):
        if len(getattr(tr, name)) != m:
            raise InputError(path, f"column {name} has {len(getattr(tr, name))} entries; t has {m}")
    if m and (np.any(tr.i < 0) or np.any(tr.i >= n)):
        raise InputError(path, f"a point index outside 0..{n - 1}")
    if m and not np.all(np.isin(tr.y, (-1, 1))):
        raise InputError(path, "labels must be -1 or +1")
    if len(tr.upd_t) > m and h["record"] == "visits":
        raise InputError(path, f"{len(tr.upd_t)} updates recorded in {m} visits")
    var = tr.declaration or variant_of(h["variant"])
    wdim = n if var.dual else h["model_dim"]
    if tr.w is None or tr.w.ndim != 2 or tr.w.shape != (len(tr.upd_t), wdim):
        raise InputError(path, f"weights must have shape ({len(tr.upd_t)}, {wdim})")
    if var.bias is not None and (tr.b is None or len(tr.b) != len(tr.upd_t)):
        raise InputError(path, "a bias variant's trace records b at every update")
    if not np.all(np.isin(tr.pocket_t, tr.upd_t)):
        raise InputError(path, "pocket marks must be on updates")
    if not tr.exact:
        for name, a in (("score", tr.score), ("w", None if var.dual else tr.w), ("b", tr.b)):
            if a is not None and a.size and (a.dtype.kind != "f" or not np.all(np.isfinite(a))):
                raise InputError(path, f"float trace column {name} holds a NaN, an infinity or a non-float")


def _read_npz(path) -> Trace:
    data = load_npz(path, MAX_TRACE_BYTES, "trace")
    if "header" not in data:
        raise InputError(path, "not a proof-audit trace (no header)")

    def text(name):
        a = data[name]
        if a.dtype.kind != "U" or a.shape != () or a.size != 1 or len(str(a)) > MAX_TRACE_LINE:
            raise InputError(path, f"member {name!r} must hold JSON text")
        try:
            return _loads(str(a))
        except (ValueError, RecursionError) as e:
            raise InputError(path, f"member {name!r} is not JSON: {str(e)[:120]}") from None

    h = text("header")
    _check_header(path, h)
    if "end" not in data:
        raise InputError(path, "the trace has no end record (cut short?)")
    end = text("end")
    if not isinstance(end, dict):
        raise InputError(path, "member 'end' must be a JSON object")
    _check_end(path, end, h)
    exact = h["arithmetic"] == "exact"
    var = header_variant(path, h)
    if getattr(var, "declared", False):
        raise InputError(path, "a declared variant's trace is read from JSON Lines (.jsonl), not NPZ")

    def col(name, kinds, ndim=1, required=True):
        a = data.get(name)
        if a is None:
            if required:
                raise InputError(path, f"column {name!r} is missing")
            return None
        if a.dtype.kind not in kinds or a.ndim != ndim:
            raise InputError(path, f"column {name!r} must be a {ndim}-D array of {'/'.join(kinds)} kind, "
                                   f"not {a.dtype} of shape {a.shape}")
        if a.dtype.kind == "U":
            vals = a.ravel()
            if any(len(v) > MAX_NUMBER_CHARS or not _INT_TEXT.fullmatch(v) for v in vals):
                raise InputError(path, f"column {name!r} holds a value that is not an integer of at most "
                                       f"{MAX_NUMBER_CHARS} digits")
            return np.array([int(v) for v in vals], dtype=object).reshape(a.shape)
        return a

    num = "iuU" if exact else "f"
    dual = var.dual
    w = col("alpha", "iu", 2) if dual else col("w_num" if exact else "w", num, 2)
    b = col("b_num" if exact else "b", num, 1, required=False) if var.bias is not None else None
    if var.bias is not None and b is None:
        b = np.zeros(0, dtype=np.int64 if exact else np.float64)
    score = col("score_num" if exact else "score", num)
    i, y, mistake = col("i", "iu"), col("y", "i"), col("mistake", "b")
    upd_t, pocket_t = col("upd_t", "i"), col("pocket_t", "i", required=False)
    for name in ("seg_t0", "seg_len", "seg_epoch", "seg_k"):
        col(name, "i")
    try:
        t, epoch, k = _expand_segments(data)
    except (KeyError, ValueError, IndexError) as e:
        raise InputError(path, f"bad visit segments: {e}") from None
    if dual and w.size and w.min() < 0:
        raise InputError(path, "alpha must hold non-negative integers")
    tr = Trace(h, t, epoch, i.astype(np.int64), y, mistake, k, score, upd_t, w, b,
               pocket_t if pocket_t is not None else np.zeros(0, dtype=np.int64), end)
    _check_columns(path, tr)
    return tr


_INT_TEXT = re.compile(r"-?[0-9]+")


def _expand_segments(data):
    """t, epoch, k per visit from the per-segment columns (a segment is the visits between
    two updates: consecutive t, one epoch, k constant but for a final update)."""
    lens = data["seg_len"]
    if len(lens) and lens.min() < 0:
        raise ValueError("a negative segment length")
    for name in ("seg_t0", "seg_epoch", "seg_k"):
        if data[name].shape != lens.shape:
            raise ValueError(f"{name} has {len(data[name])} entries, seg_len {len(lens)}")
    total = int(lens.sum())
    if total != data["i"].shape[0]:
        raise ValueError(f"segments cover {total} visits, columns hold {data['i'].shape[0]}")
    if data["mistake"].shape[0] != total:
        raise ValueError(f"mistake has {data['mistake'].shape[0]} entries for {total} visits")
    starts = np.repeat(data["seg_t0"] - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
    t = starts + np.arange(total)
    epoch = np.repeat(data["seg_epoch"], lens)
    k = np.repeat(data["seg_k"], lens)
    last = np.cumsum(lens) - 1
    upd_last = last[lens > 0][data["mistake"][last[lens > 0]]]
    k[upd_last] += 1
    return t, epoch, k
