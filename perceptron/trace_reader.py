"""Reading traces (schema ``proof-audit/trace``, documented in perceptron.trace) without
trusting them: JSON Lines and NPZ, every field strictly typed, every size within the limits of
perceptron.limits."""

from __future__ import annotations

import json
import math
import os
import re
from fractions import Fraction

import numpy as np

from ._npz import load_npz
from ._numbers import INT64_SAFE, NumberError, narrow_ints, parse_rational
from .declared import DeclarationError, parse_declaration, variant_of
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
from .trace import MAX_CHECKPOINT_EVERY, SCHEMA, VERSION, Trace, checkpoint_refusal
from .variants import VARIANTS

__all__ = ["read_trace", "header_variant"]


# ------------------------------------------------------------------------- reading
#
# A trace is untrusted input.  The reader establishes its structure: every field present and
# strictly typed (a string "false" is not a bool, 1.9 is not a label), the header and the end
# record consistent with each other and with the parameters, every record the shape the
# header promises, numbers within the limits of perceptron.limits.  Whether the records are
# the run of those parameters on the data is the replay's question (verify.replay.dispatch).

_STOPS = ("converged", "max_epochs", "max_updates", "max_visits", "unchanged", "sequence_end")
_HEADER_KEYS = {"schema", "version", "variant", "params", "arithmetic", "dataset", "model_dim", "dual", "record", "scale",
                "declaration", "scores", "checkpoint_every"}
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


def _object(pairs) -> dict:
    """A JSON object whose keys are each given once (parsers differ on which of two they keep)."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key[:40]!r} appears twice in one object")
        out[key] = value
    return out


def _loads(text: str):
    return json.loads(text, parse_int=_json_int, parse_constant=_json_constant, object_pairs_hook=_object)


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
    if h["record"] not in ("visits", "updates", "checkpoints"):
        bad(f"header record must be \"visits\", \"updates\" or \"checkpoints\", not {str(h['record'])[:40]!r}")
    if (h["record"] == "checkpoints") != ("checkpoint_every" in h):
        bad("header checkpoint_every is the number of updates between a checkpoint trace's weights: present exactly "
            "when record is \"checkpoints\"")
    if h["record"] == "checkpoints":
        every = h["checkpoint_every"]
        if not _is_int(every) or not 1 <= every <= MAX_CHECKPOINT_EVERY:
            bad(f"header checkpoint_every must be an integer in 1..{MAX_CHECKPOINT_EVERY}, not {str(every)[:40]}")
        why = checkpoint_refusal(h)
        if why:
            bad(why)
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


def _json_records(path, fh):
    """(line number, object) of each non-blank line of a JSON Lines trace, each within
    MAX_TRACE_LINE characters, UTF-8, one JSON object; at its end (the lines read, None)."""
    ln = 0
    while True:
        try:
            line = fh.readline(MAX_TRACE_LINE + 1)
        except UnicodeDecodeError:
            raise InputError(path, "not UTF-8 text", ln + 1) from None
        if not line:
            yield ln, None
            return
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
        yield ln, obj


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
        for ln, obj in _json_records(path, fh):
            if obj is None:
                break
            kind = obj.get("type")
            if end is not None:
                raise InputError(path, f"a {str(kind)[:20]} record after the end record", ln)
            if header is None:
                if kind != "header":
                    raise InputError(path, "the first line must be the trace header", ln)
                header = {k: v for k, v in obj.items() if k != "type"}
                _check_header(path, header, ln)
                if header["record"] == "checkpoints":
                    raise InputError(path, "a checkpoint trace is read from NPZ (.npz), not JSON Lines", ln)
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
    for key in ("t", "epoch", "k"):
        if obj[key] >= INT64_SAFE:  # counts of a run, read into int64 columns
            raise ValueError(f"{key} = {str(obj[key])[:40]} is beyond any run's count (the limit is 2^62, "
                             "perceptron._numbers.INT64_SAFE)")
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
    if h["record"] == "checkpoints":
        return _read_checkpoints(path, data, h, end)

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


def _read_checkpoints(path, data, h, end) -> Trace:
    """A checkpoint trace: each update's visit (strictly increasing from 1) and point (in
    range), one weight vector of the model's length per checkpoint_every updates; no visit
    records (the replay re-derives them from the data)."""
    def column(name, ndim):
        a = data.get(name)
        if a is None:
            raise InputError(path, f"column {name!r} is missing")
        if a.dtype.kind not in ("iuU" if name.startswith("checkpoint_") else "i") or a.ndim != ndim:
            raise InputError(path, f"column {name!r} must be a {ndim}-D integer array, not {a.dtype} of shape {a.shape}")
        if a.dtype.kind == "U":
            if any(len(v) > MAX_NUMBER_CHARS or not _INT_TEXT.fullmatch(v) for v in a.ravel()):
                raise InputError(path, f"column {name!r} holds a value that is not an integer of at most "
                                       f"{MAX_NUMBER_CHARS} digits")
            return np.array([int(v) for v in a.ravel()], dtype=object).reshape(a.shape)
        return a

    bias = variant_of(h["variant"]).bias is not None  # (checkpoint_refusal has named a built-in variant)
    extra = sorted(set(data) - {"header", "end", "upd_t", "upd_i", "checkpoint_w_num"} - ({"checkpoint_b_num"} if bias else set()))
    if extra:
        raise InputError(path, f"a checkpoint trace {'of a variant without a bias ' if extra[0] == 'checkpoint_b_num' else ''}"
                               f"has no column {extra[0][:40]!r}")
    upd_t, upd_i = column("upd_t", 1).astype(np.int64), column("upd_i", 1).astype(np.int64)
    ck = column("checkpoint_w_num", 2)
    U, n, every = end["updates"], h["dataset"]["n"], h["checkpoint_every"]
    if len(upd_t) != U or len(upd_i) != U:
        raise InputError(path, f"the end record says {U} updates; upd_t has {len(upd_t)}, upd_i {len(upd_i)}")
    if U and (upd_t[0] < 1 or not np.all(upd_t[1:] > upd_t[:-1]) or upd_t[-1] > end["visits"]):
        raise InputError(path, "upd_t must increase strictly from 1 and stay within the end record's visits")
    if U and (upd_i.min() < 0 or upd_i.max() >= n):
        raise InputError(path, f"a point index outside 0..{n - 1}")
    if ck.shape != (U // every, h["model_dim"]):
        raise InputError(path, f"checkpoint_w_num must have shape ({U // every}, {h['model_dim']}): one weight vector "
                               f"every {every} updates")
    ckb = column("checkpoint_b_num", 1) if bias else None
    if bias and ckb.shape != (U // every,):
        raise InputError(path, f"checkpoint_b_num must have shape ({U // every},): one bias every {every} updates")
    empty = np.zeros(0, dtype=np.int64)
    return Trace(h, empty, empty, empty, empty.astype(np.int8), empty.astype(bool), empty, empty, upd_t, ck, ckb, empty,
                 end, upd_i=upd_i)


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
