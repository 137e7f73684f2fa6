"""The trace writers: JSON Lines (every value exact, a declared variant's too) and NPZ (columns
spooled to a temporary folder while the run goes, zipped at its end; or the checkpoints of a
long run), and open_writer, which picks one by the file's name.  The trace's format is
perceptron.trace's."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile
from fractions import Fraction

import numpy as np

from ._numbers import format_rational, narrow_ints
from .declared import variant_of
from .errors import InputError
from .trace import FLUSH_VALUES, TraceWriter

__all__ = ["JsonlWriter", "NpzWriter", "open_writer"]


def _fmt_num(v, den: int | None):
    if den is None:
        return format_rational(v) if isinstance(v, Fraction) else float(v)
    return format_rational(Fraction(int(v), den))


class JsonlWriter(TraceWriter):
    """Streams a trace as JSON Lines."""

    def __init__(self, path: str, record: str = "visits"):
        super().__init__(record)
        self.path = path

    def abort(self):
        fh = getattr(self, "fh", None)
        if fh is not None:
            fh.close()
            try:
                os.remove(self.path)
            except OSError:
                pass

    def _begin(self):
        _folder_of(self.path)
        self.fh = open(self.path, "w", encoding="utf-8")
        head = json.dumps({"type": "header", **self.header}, sort_keys=True) + "\n"
        self._numbers(self.path, [str(v) for v in self.header.get("scale", {}).values()])
        self._line(self.path, len(head))
        self._within(self.path, nbytes=len(head))
        self.fh.write(head)
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
        text = "\n".join(out) + "\n"
        self._line(self.path, max(map(len, out)) + 1)  # the reader counts a line with its newline
        from . import limits

        for line in out:
            if len(line) > limits.MAX_NUMBER_CHARS:  # only such a record can hold a number that long
                rec = json.loads(line)
                self._numbers(self.path, [v for key in ("score", "w", "b") for v in
                                          (rec.get(key) if isinstance(rec.get(key), list) else [rec.get(key)])
                                          if isinstance(v, str)])
        self._within(self.path, records=m, nbytes=len(text))
        self.fh.write(text)

    def _end(self, summary):
        end = json.dumps({"type": "end", **summary}, sort_keys=True)
        self._line(self.path, len(end) + 1)
        self._within(self.path, nbytes=len(end) + 1)
        self.fh.write(end + "\n")
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

    def close(self):
        """Close the spool file (a run that failed: nothing more is written)."""
        if not self.fh.closed:
            self.fh.close()

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


class NpzWriter(TraceWriter):
    writes_checkpoints = True
    """Streams a trace into a NumPy .npz archive (columns spooled to disk, zipped at the end)."""

    def __init__(self, path: str, record: str = "visits"):
        super().__init__(record)
        self.path = path

    def abort(self):
        """Remove what the writer made: its spool folder goes even when a column, stopped in
        the middle of a write (Ctrl-C, SIGTERM), fails to close."""
        try:
            for col in getattr(self, "cols", {}).values():
                try:
                    col.close()
                except Exception:  # noqa: BLE001 - a half-written column is removed below
                    pass
        finally:
            if getattr(self, "tmp", None):
                shutil.rmtree(self.tmp, ignore_errors=True)

    def _begin(self):
        if "declaration" in self.header:
            raise InputError(self.path, "a declared variant's trace is written as JSON Lines (.jsonl): its exact values "
                                        "have no common scale for NPZ columns")
        _folder_of(self.path)
        self.tmp = tempfile.mkdtemp(prefix="proof-audit-trace-")
        if self.record == "checkpoints":
            self._begin_checkpoints()
            return
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
        self._header_within()

    def _header_within(self):
        """The header's text and each member's zip and .npy headers, within the reader's limits."""
        self._numbers(self.path, [str(v) for v in self.header.get("scale", {}).values()])
        head = len(json.dumps(self.header, sort_keys=True))
        self._line(self.path, head)
        self._within(self.path, nbytes=head + 256 * (len(self.cols) + 3))

    def _begin_checkpoints(self):
        """A checkpoint trace's columns: each update's visit and point, the weights every
        checkpoint_every updates."""
        self.cols = {"upd_t": _Column(os.path.join(self.tmp, "upd_t"), np.int64),
                     "upd_i": _Column(os.path.join(self.tmp, "upd_i"),
                                      np.int32 if self.header["dataset"]["n"] < 2**31 else np.int64),
                     "checkpoint_w_num": _Column(os.path.join(self.tmp, "w"), np.int64, self.header["model_dim"])}
        if variant_of(self.header["variant"]).bias is not None:
            self.cols["checkpoint_b_num"] = _Column(os.path.join(self.tmp, "b"), np.int64)
        self.updates = 0
        self._header_within()

    def _checkpoint(self, t0, idx, upd):
        """An update of a checkpoint trace: its visit and point, and every checkpoint_every-th
        update the weights after it."""
        c = self.cols
        self.updates += 1
        keep = self.updates % self.header["checkpoint_every"] == 0  # as the header says
        w = np.asarray(upd[0])
        b = "checkpoint_b_num" in c
        if keep and (w.dtype == object or b):
            self._numbers(self.path, [str(int(v)) for v in w.ravel()] + ([str(int(upd[1]))] if b else []))
        rows = c["checkpoint_w_num"].rows + c["checkpoint_w_num"].nbuf
        self._within(self.path, nbytes=12 + (8 * (w.size + b) if keep else 0),
                     cells=("checkpoint_w_num", (rows + 1) * w.size) if keep else ("upd_t", self.updates))
        c["upd_t"].append((t0 + len(idx) - 1,))
        c["upd_i"].append((int(idx[-1]),))
        if keep:
            c["checkpoint_w_num"].append(w.reshape(1, -1))
            if b:
                c["checkpoint_b_num"].append(np.array([upd[1]], dtype=object))

    def visits(self, t0, epoch, idx, y, s, mist, k0, upd, pocket):
        if self.record == "checkpoints":
            if upd is not None:
                self._checkpoint(t0, idx, upd)
            return
        if self.record == "updates":
            if upd is None:
                return
            m = len(idx)
            t0, idx, y, s, mist = t0 + m - 1, idx[m - 1:], y[m - 1:], s[m - 1:], mist[m - 1:]
        self._visits(t0, epoch, idx, y, s, mist, k0, upd, pocket)

    def _visits(self, t0, epoch, idx, y, s, mist, k0, upd, pocket):
        c = self.cols
        m = len(idx)
        w_row = 0 if upd is None else np.asarray(upd[0]).size
        for a in (s, None if upd is None else upd[0], None if upd is None else upd[1]):  # past int64: decimal text
            if a is not None and getattr(np.asarray(a, dtype=object) if not hasattr(a, "dtype") else a, "dtype", None) == object:
                self._numbers(self.path, [str(int(v)) for v in np.asarray(a, dtype=object).ravel()])
        # i, y, mistake, score and the segment's four counts; w (and b, upd_t) at an update; text
        # columns (numbers past int64) are counted as if they stayed int64, from below
        self._within(self.path, records=m, nbytes=m * (c["i"].dtype.itemsize + 1 + 1 + 8) + 32 + (w_row + 2) * 8,
                     cells=(self.wname, (c[self.wname].rows + c[self.wname].nbuf + 1) * max(1, w_row)) if w_row else None)
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
        self._line(self.path, len(json.dumps(summary, sort_keys=True)))
        try:
            with zipfile.ZipFile(self.path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
                for name, text in (("header", json.dumps(self.header, sort_keys=True)), ("end", json.dumps(summary, sort_keys=True))):
                    with zf.open(name + ".npy", "w") as out:
                        np.lib.format.write_array(out, np.array(text), allow_pickle=False)
                for name, col in self.cols.items():
                    col.write_into(zf, name)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        try:  # the archive as written (numbers past int64 are stored as text, wider than counted)
            self.written = 0
            self._within(self.path, nbytes=os.path.getsize(self.path))
        except InputError:
            os.remove(self.path)
            raise


def _folder_of(path: str) -> None:
    """The folder a trace is written into, made when missing: a printed replay command names a
    trace under the run's output folder (OUT/replays/), and must run as printed wherever the
    finding came from (run makes the folder; the Python API, which writes nothing, does not)."""
    folder = os.path.dirname(str(path))
    if folder:
        os.makedirs(folder, exist_ok=True)


def open_writer(path: str, record: str = "visits"):
    """A streaming writer chosen by the file name: ``.npz`` -> NPZ, anything else -> JSONL."""
    return NpzWriter(path, record) if str(path).endswith(".npz") else JsonlWriter(path, record)
