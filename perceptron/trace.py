"""Traces: the complete log of a run, schema ``proof-audit/trace`` version 1.

A trace is a header, one record per visit (or per update only), and an end record.

Header (JSON object)
    ``schema`` = "proof-audit/trace", ``version`` = 1, ``variant``, ``params`` (every run
    parameter), ``arithmetic`` ("exact" or "float"), ``dataset`` {sha256, name, n, d,
    label_map}, ``model_dim`` (length of w after augmentation), ``dual`` (kernel runs),
    ``record`` ("visits" or "updates"), and for exact runs ``scale``: the common denominators
    {score, w, b} of every value in the trace.

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
    decimal strings.  Visit columns stream to disk while the run goes, so memory stays
    O(updates * d) however long the run.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ._numbers import format_rational
from .errors import InputError

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

    @property
    def exact(self) -> bool:
        return self.header["arithmetic"] == "exact"

    def den(self, what: str) -> int:
        return int(self.header["scale"][what]) if self.exact else 1

    def score_value(self, j: int):
        return Fraction(int(self.score[j]), self.den("score")) if self.exact else float(self.score[j])

    def weights_after(self, u: int):
        """(w, b) after update number u (0-based) as exact Fractions / floats."""
        if self.header.get("dual"):
            return [int(v) for v in self.w[u]], None
        if self.exact:
            w = [Fraction(int(v), self.den("w")) for v in self.w[u]]
            b = Fraction(int(self.b[u]), self.den("b")) if self.b is not None else None
        else:
            w = [float(v) for v in self.w[u]]
            b = float(self.b[u]) if self.b is not None else None
        return w, b


def _ints(a) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype == object:
        hi = max((abs(int(v)) for v in a.ravel()), default=0)
        return a.astype(np.int64) if hi < 2**62 else a
    return a


class _Base:
    """Shared bookkeeping of the writers: the run calls begin, visits (batches), end."""

    def __init__(self, record: str = "visits"):
        if record not in ("visits", "updates"):
            raise ValueError("record must be 'visits' or 'updates'")
        self.record = record

    def begin(self, header: dict):
        self.header = {"schema": SCHEMA, "version": VERSION, **header, "record": self.record}
        self.exact = header["arithmetic"] == "exact"
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
        self._visits(ts, epoch, np.asarray(idx)[sl], np.asarray(y)[sl], np.asarray(s)[sl],
                     np.asarray(mist)[sl], np.asarray(ks)[sl], upd, pocket)

    def end(self, result):
        self._end(result.summary())


class MemoryTrace(_Base):
    """Collects a trace in memory (for tests and the replay of short runs)."""

    def _begin(self):
        self._cols = {c: [] for c in ("t", "epoch", "i", "y", "mistake", "k", "score")}
        self._upd_t, self._w, self._b, self._pocket = [], [], [], []

    def _visits(self, ts, epoch, idx, y, s, mist, ks, upd, pocket):
        c = self._cols
        c["t"].append(ts)
        c["epoch"].append(np.full(len(ts), epoch, dtype=np.int64))
        c["i"].append(idx.astype(np.int64))
        c["y"].append(y.astype(np.int8))
        c["mistake"].append(mist.astype(bool))
        c["k"].append(ks.astype(np.int64))
        c["score"].append(s)
        if upd is not None:
            self._upd_t.append(int(ts[-1]))
            self._w.append(np.asarray(upd[0]))
            self._b.append(upd[1])
            if pocket:
                self._pocket.append(int(ts[-1]))

    def _end(self, summary):
        c = self._cols
        cat = {k: (np.concatenate(v) if v else np.zeros(0, dtype=np.int64)) for k, v in c.items()}
        has_b = bool(self._b) and self._b[0] is not None
        if self._w:
            w = np.vstack(self._w)
        else:
            w = np.zeros((0, self.header["dataset"]["n"] if self.dual else self.header["model_dim"]),
                         dtype=np.float64 if not self.exact else np.int64)
        b = np.array(self._b, dtype=object if self.exact else np.float64) if has_b else None
        if self.exact:
            cat["score"] = _ints(cat["score"])
            w = _ints(w)
            b = _ints(b) if b is not None else None
        if not has_b and not self.dual and self.header["params"]["variant"] in ("novikoff", "sklearn"):
            b = np.zeros(0, dtype=np.int64 if self.exact else np.float64)
        self.trace = Trace(self.header, cat["t"], cat["epoch"], cat["i"], cat["y"], cat["mistake"], cat["k"],
                           cat["score"], np.array(self._upd_t, dtype=np.int64), w, b,
                           np.array(self._pocket, dtype=np.int64), summary)


# ------------------------------------------------------------------------- JSON Lines

def _fmt_num(v, den: int | None):
    if den is None:
        return float(v)
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
        self.sden = int(sc["score"]) if self.exact else None
        self.wden = int(sc["w"]) if self.exact and "w" in sc else None
        self.bden = int(sc["b"]) if self.exact and "b" in sc else None

    def _visits(self, ts, epoch, idx, y, s, mist, ks, upd, pocket):
        out = []
        m = len(ts)
        for j in range(m):
            rec = {"type": "visit", "t": int(ts[j]), "epoch": int(epoch), "i": int(idx[j]), "y": int(y[j]),
                   "score": _fmt_num(s[j], self.sden), "mistake": bool(mist[j]), "k": int(ks[j])}
            if j == m - 1 and upd is not None:
                if self.dual:
                    rec["alpha"] = [int(a) for a in upd[0]]
                else:
                    if self.exact:
                        rec["w"] = [_fmt_num(v, self.wden) for v in upd[0].tolist()]
                    else:
                        rec["w"] = [float(v) for v in upd[0]]
                    if upd[1] is not None:
                        rec["b"] = _fmt_num(upd[1], self.bden)
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
            a = _ints(a)
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

def read_trace(path: str) -> Trace:
    """Read a trace written in either encoding; bad files raise InputError with the line."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InputError(path, "no such file")
    if path.endswith(".npz"):
        return _read_npz(path)
    return _read_jsonl(path)


def _check_header(path, h, line=None):
    if not isinstance(h, dict) or h.get("schema") != SCHEMA:
        raise InputError(path, f"not a proof-audit trace (schema {h.get('schema') if isinstance(h, dict) else None!r})", line)
    if h.get("version") != VERSION:
        raise InputError(path, f"trace schema version {h.get('version')} is not supported (this reader knows {VERSION})", line)
    for key in ("variant", "params", "arithmetic", "dataset", "model_dim"):
        if key not in h:
            raise InputError(path, f"trace header lacks {key!r}", line)


def _read_npz(path) -> Trace:
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise InputError(path, f"not a readable NPZ trace: {e}") from None
    if "header" not in data:
        raise InputError(path, "not a proof-audit trace (no header)")
    h = json.loads(str(data["header"]))
    _check_header(path, h)
    end = json.loads(str(data["end"])) if "end" in data else {}

    def num(name):
        a = data.get(name)
        if a is None:
            return None
        if a.dtype.kind == "U":
            return np.array([int(v) for v in a.ravel()], dtype=object).reshape(a.shape)
        return a

    exact = h["arithmetic"] == "exact"
    w = num("alpha") if h.get("dual") else num("w_num" if exact else "w")
    try:
        t, epoch, k = _expand_segments(data)
    except (KeyError, ValueError) as e:
        raise InputError(path, f"bad visit segments: {e}") from None
    return Trace(h, t, epoch, data["i"].astype(np.int64), data["y"], data["mistake"], k,
                 num("score_num" if exact else "score"), data["upd_t"], w, num("b_num" if exact else "b"),
                 data.get("pocket_t", np.zeros(0, dtype=np.int64)), end)


def _expand_segments(data):
    """t, epoch, k per visit from the per-segment columns (a segment is the visits between
    two updates: consecutive t, one epoch, k constant but for a final update)."""
    lens = data["seg_len"]
    total = int(lens.sum())
    if total != data["i"].shape[0]:
        raise ValueError(f"segments cover {total} visits, columns hold {data['i'].shape[0]}")
    starts = np.repeat(data["seg_t0"] - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
    t = starts + np.arange(total)
    epoch = np.repeat(data["seg_epoch"], lens)
    k = np.repeat(data["seg_k"], lens)
    last = np.cumsum(lens) - 1
    upd_last = last[lens > 0][data["mistake"][last[lens > 0]]]
    k[upd_last] += 1
    return t, epoch, k


def _read_jsonl(path) -> Trace:
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    header = None
    end = None
    cols = {c: [] for c in ("t", "epoch", "i", "y", "mistake", "k", "score")}
    upd_t, ws, bs, pocket = [], [], [], []
    with fh:
        for ln, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(path, f"not JSON: {e.msg}", ln, e.colno) from None
            if not isinstance(obj, dict):
                raise InputError(path, "each line must be a JSON object", ln)
            kind = obj.get("type")
            if header is None:
                if kind != "header":
                    raise InputError(path, "the first line must be the trace header", ln)
                _check_header(path, obj, ln)
                header = {k: v for k, v in obj.items() if k != "type"}
                exact = header["arithmetic"] == "exact"
                sc = header.get("scale", {})
                dens = {k: int(v) for k, v in sc.items()} if exact else {}
                continue
            if kind == "end":
                end = {k: v for k, v in obj.items() if k != "type"}
                continue
            if kind != "visit":
                raise InputError(path, f"unknown record type {kind!r}", ln)
            try:
                cols["t"].append(int(obj["t"]))
                cols["epoch"].append(int(obj["epoch"]))
                cols["i"].append(int(obj["i"]))
                cols["y"].append(int(obj["y"]))
                cols["mistake"].append(bool(obj["mistake"]))
                cols["k"].append(int(obj["k"]))
                cols["score"].append(_num_in(obj["score"], dens.get("score"), exact))
                if "w" in obj or "alpha" in obj:
                    upd_t.append(int(obj["t"]))
                    if "alpha" in obj:
                        ws.append([int(a) for a in obj["alpha"]])
                    else:
                        ws.append([_num_in(v, dens.get("w"), exact) for v in obj["w"]])
                    if "b" in obj:
                        bs.append(_num_in(obj["b"], dens.get("b"), exact))
                    if obj.get("pocket"):
                        pocket.append(int(obj["t"]))
            except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
                raise InputError(path, f"bad visit record: {type(e).__name__}: {e}", ln) from None
    if header is None:
        raise InputError(path, "empty trace")
    dim = header["dataset"]["n"] if header.get("dual") else header["model_dim"]
    fdt = object if exact else np.float64
    w = np.array(ws, dtype=fdt).reshape(len(ws), dim) if ws else np.zeros((0, dim), dtype=fdt)
    b = np.array(bs, dtype=fdt) if bs else None
    score = np.array(cols["score"], dtype=fdt)
    if exact:
        score, w = _ints(score), _ints(w)
        b = _ints(b) if b is not None else None
    return Trace(header, np.array(cols["t"], dtype=np.int64), np.array(cols["epoch"], dtype=np.int64),
                 np.array(cols["i"], dtype=np.int64), np.array(cols["y"], dtype=np.int8),
                 np.array(cols["mistake"], dtype=bool), np.array(cols["k"], dtype=np.int64), score,
                 np.array(upd_t, dtype=np.int64), w, b, np.array(pocket, dtype=np.int64), end or {})


def _num_in(v, den, exact):
    """A JSON number cell as a numerator over den (exact) or a float."""
    if not exact:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"expected a number, got {v!r}")
        return float(v)
    f = Fraction(str(v))
    if den is None:
        raise ValueError("exact trace without a scale in its header")
    num = f * den
    if num.denominator != 1:
        raise ValueError(f"{v} is not a multiple of 1/{den}")
    return int(num)
