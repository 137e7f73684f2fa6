"""Datasets: exact rational features over one common denominator, labels in {-1, +1}.

Readers for CSV, NPZ, LIBSVM/svmlight and the CoqPerceptron benchmark format.  Every reader
reports bad input as one :class:`~perceptron.errors.InputError` naming the file and line.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ._npz import load_npz
from ._numbers import (
    INT64_SAFE,
    NumberError,
    common_denominator,
    parse_rational,
    to_int_array,
)
from .errors import InputError
from .labels import (STRING_LABELS, ReadOptions, delimiter, label_index, looks_like_header, map_labels, split_cells,
                     text_labels)
from .toml_data import split_fragment, toml_table
from .limits import (
    MAX_CELLS,
    MAX_DATA_BYTES,
    MAX_DIM,
    MAX_POINTS,
    check_regular_file,
    read_bytes,
)

__all__ = ["Dataset", "read_dataset", "from_rows", "FORMATS"]

FORMATS = ("csv", "npz", "libsvm", "coq")


@dataclass(eq=False)
class Dataset:
    """n labelled points in d dimensions.

    Rational datasets keep ``X_num / den`` exactly (``X_num`` int64, or Python ints in an
    object array when int64 would not hold them).  Datasets read from binary float64 arrays
    keep ``X_float`` instead: their values are the exact binary rationals those doubles are.
    """

    name: str
    y: np.ndarray  # int8, values -1 / +1
    X_num: np.ndarray | None = None
    den: int = 1
    X_float: np.ndarray | None = None
    label_map: dict = field(default_factory=dict)  # original label (str) -> -1 / +1
    source: str | None = None
    _sha: str | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def d(self) -> int:
        X = self.X_num if self.X_num is not None else self.X_float
        return int(X.shape[1])

    @property
    def is_rational(self) -> bool:
        return self.X_num is not None

    def exact(self) -> tuple[np.ndarray, int]:
        """``(X_num, den)`` with X = X_num / den exactly (converting float64 data exactly)."""
        if self.X_num is not None:
            return self.X_num, self.den
        fr = [[Fraction(float(v)) for v in row] for row in self.X_float]
        den = common_denominator(f.denominator for row in fr for f in row)
        num = to_int_array([[f.numerator * (den // f.denominator) for f in row] for row in fr])
        return num.reshape(self.n, self.d), den

    def fractions(self) -> list[list[Fraction]]:
        num, den = self.exact()
        return [[Fraction(int(v), den) for v in row] for row in num]

    def as_float(self) -> np.ndarray:
        """float64 features, each the correctly rounded value of the exact rational."""
        if self.X_float is not None:
            return self.X_float
        num = self.X_num
        if num.dtype != object and int(np.abs(num).max(initial=0)) < 2**53 and self.den < 2**53:
            return num.astype(np.float64) / float(self.den)  # both exact, IEEE division rounds once
        return np.array([[float(Fraction(int(v), self.den)) for v in row] for row in num], dtype=np.float64).reshape(self.n, self.d)

    @property
    def sha256(self) -> str:
        """SHA-256 of a canonical encoding of the data (independent of the file format)."""
        if self._sha is None:
            h = hashlib.sha256()
            h.update(f"proof-audit-dataset-v1 n={self.n} d={self.d}\n".encode())
            if self.X_num is not None:
                h.update(f"rational den={self.den}\n".encode())
                if self.X_num.dtype != object:
                    h.update(np.ascontiguousarray(self.X_num, dtype="<i8").tobytes())
                else:
                    h.update(" ".join(str(int(v)) for v in self.X_num.ravel()).encode())
            else:
                h.update(b"float64\n")
                h.update(np.ascontiguousarray(self.X_float, dtype="<f8").tobytes())
            h.update(np.ascontiguousarray(self.y, dtype="i1").tobytes())
            self._sha = h.hexdigest()
        return self._sha


# ----------------------------------------------------------------------------- labels

def from_rows(name: str, rows, labels, *, source: str | None = None, lines=None, label_set=None) -> Dataset:
    """A rational Dataset from rows of exact numbers (ints / Fractions / strings) and labels."""
    path = source or name
    fr_rows = [[_exact_value(v) for v in row] for row in rows]
    labs = [_exact_value(v) for v in labels]
    lines = lines or list(range(1, len(fr_rows) + 1))
    return _build(path, name, fr_rows, labs, lines, label_set)


def _exact_value(v) -> Fraction:
    """An exact number as a Fraction: Fractions and Python integers as they are (the search makes
    thousands of datasets of integers), anything else read as its text."""
    if isinstance(v, Fraction):
        return v
    if type(v) is int:
        return Fraction(v)
    return parse_rational(str(v))


def _build(path, name, fr_rows, labs, lines, label_set) -> Dataset:
    if not fr_rows:
        raise InputError(path, "no data points")
    d = len(fr_rows[0])
    if d == 0:
        raise InputError(path, "points have no features", lines[0])
    _check_size(path, len(fr_rows), d)
    y, label_map = map_labels(path, labs, lines, label_set)
    return _build_labelled(path, name, fr_rows, y, label_map)


def _build_labelled(path, name, fr_rows, y, label_map) -> Dataset:
    d = len(fr_rows[0])
    _check_size(path, len(fr_rows), d)
    den = _denominator(path, (f.denominator for row in fr_rows for f in row))
    num = to_int_array([f.numerator * (den // f.denominator) for row in fr_rows for f in row])
    return Dataset(name=name, y=y, X_num=num.reshape(len(fr_rows), d), den=den, label_map=label_map, source=path)


def _check_size(path, n: int, d: int):
    if n > MAX_POINTS:
        raise InputError(path, f"{n} points exceed the limit of {MAX_POINTS} (perceptron.limits.MAX_POINTS)")
    if d > MAX_DIM:
        raise InputError(path, f"dimension {d} exceeds the limit of {MAX_DIM} (perceptron.limits.MAX_DIM)")
    if n * d > MAX_CELLS:
        raise InputError(path, f"{n} points x {d} features = {n * d} values exceed the limit of {MAX_CELLS} "
                               "(perceptron.limits.MAX_CELLS)")


def _denominator(path, denominators) -> int:
    try:
        return common_denominator(denominators)
    except NumberError as e:
        raise InputError(path, str(e)) from None


# ----------------------------------------------------------------------------- readers

def _read_text(path: str) -> str:
    raw = read_bytes(path, MAX_DATA_BYTES, "dataset")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise InputError(path, "not UTF-8 text", line) from None


def _cell(path, text, line, what="value") -> Fraction:
    try:
        return parse_rational(text)
    except NumberError as e:
        raise InputError(path, f"{what}: {e}", line) from None


def _read_csv(path: str, label_set, opts: ReadOptions = ReadOptions()) -> Dataset:
    """CSV, TSV, semicolon- or whitespace-separated text: an optional header (names, pandas'
    index column, numeric column names), the label in any column, numeric or string labels."""
    text = _read_text(path)
    body = []
    for ln, raw in enumerate(text.splitlines(), 1):
        s = raw.split("#", 1)[0].strip()
        if s:
            body.append((ln, s))
    if not body:
        raise InputError(path, "empty file: no data rows")
    delim = delimiter(body[0][1])
    first = split_cells(body[0][1], delim)
    width = len(first)
    if width - 1 > MAX_DIM:
        raise InputError(path, f"{width - 1} features exceed the limit of {MAX_DIM} (perceptron.limits.MAX_DIM)", body[0][0])
    # a label column given by name is found in the header, once there is one: guess the last to tell
    named = opts.label_column not in (None, "first", "last") and not opts.label_column.isdigit()
    guess_at = label_index(path, "last" if named else opts.label_column, None, width, body[0][0])
    if opts.header == "yes":
        has_header = True
    elif opts.header == "no":
        has_header = False
    else:
        has_header = looks_like_header(first, guess_at, opts.label_map)
    header = first if has_header else None
    index_col = bool(header) and header[0] in ("", "Unnamed: 0")  # pandas' to_csv writes its index first
    if index_col:
        header = header[1:]
        width -= 1
    label_at = label_index(path, opts.label_column, header, width, body[0][0])
    if width < 2:
        raise InputError(path, f"need at least one feature and a label, found {width} cell", body[0][0])
    rows, labs, lines = [], [], []
    for ln, s in body[1:] if has_header else body:
        cells = split_cells(s, delim)
        if index_col:
            cells = cells[1:]
        if len(cells) != width:
            raise InputError(path, f"ragged row: {len(cells)} cells where {'the header has' if header else 'earlier rows have'} "
                                   f"{width}", ln)
        rows.append([_cell(path, c, ln, f"column {j + 1 + index_col}") for j, c in enumerate(cells) if j != label_at])
        labs.append(cells[label_at].strip('"'))
        lines.append(ln)
    if not rows:
        raise InputError(path, "no data rows after the header")
    _check_size(path, len(rows), width - 1)
    y, label_map = text_labels(path, labs, lines, label_set, opts.label_map)
    return _build_labelled(path, os.path.basename(path), rows, y, label_map)


_INDEX = re.compile(r"[0-9]{1,12}")


def _read_libsvm(path: str, label_set, dim: int | None = None, opts: ReadOptions = ReadOptions()) -> Dataset:
    """LIBSVM / svmlight: LABEL INDEX:VALUE ...; indices from 1, or from 0 when any index is 0
    (scikit-learn's dump_svmlight_file writes zero-based indices by default; its loader decides
    the same way); qid:N ranking groups are skipped."""
    text = _read_text(path)
    entries, labs, lines = [], [], []
    maxidx, zero = 0, False
    for ln, raw in enumerate(text.splitlines(), 1):
        s = raw.split("#", 1)[0].strip()
        if not s:
            continue
        toks = s.split()
        labs.append(toks[0])
        row = {}
        for tok in toks[1:]:
            k, sep, v = tok.partition(":")
            if k == "qid" and sep and _INDEX.fullmatch(v):
                continue
            if not sep or not _INDEX.fullmatch(k):
                raise InputError(path, f"expected INDEX:VALUE (or qid:N), found {tok!r}", ln)
            if int(k) > MAX_DIM:
                raise InputError(path, f"index {k} exceeds the limit of {MAX_DIM} features (perceptron.limits.MAX_DIM)", ln)
            if int(k) in row:
                raise InputError(path, f"index {k} given twice", ln)
            row[int(k)] = _cell(path, v, ln, f"feature {k}")
            maxidx = max(maxidx, int(k))
            zero = zero or int(k) == 0
        entries.append(row)
        lines.append(ln)
    if not entries:
        raise InputError(path, "empty file: no data rows")
    shift = 0 if zero else 1
    d = dim or (maxidx + 1 - shift)
    if d == 0:
        raise InputError(path, "no features in any row")
    _check_size(path, len(entries), d)
    rows = []
    for row, ln in zip(entries, lines):
        if row and max(row) - shift >= d:
            raise InputError(path, f"index {max(row)} exceeds the dimension {d}", ln)
        rows.append([row.get(j + shift, Fraction(0)) for j in range(d)])
    y, label_map = text_labels(path, labs, lines, label_set, opts.label_map)
    return _build_labelled(path, os.path.basename(path), rows, y, label_map)


def _read_npz(path: str, label_set) -> Dataset:
    z = load_npz(path, MAX_DATA_BYTES, "dataset")
    xk = "X" if "X" in z else "x" if "x" in z else None
    if xk is None or "y" not in z:
        raise InputError(path, f"NPZ needs arrays 'X' and 'y'; found {sorted(z)}")
    X, yraw = z[xk], z["y"]
    if X.ndim != 2:
        raise InputError(path, f"'X' must be 2-D, has shape {X.shape}")
    if yraw.ndim != 1 or yraw.shape[0] != X.shape[0]:
        raise InputError(path, f"dimension mismatch: 'X' has {X.shape[0]} rows, 'y' has shape {yraw.shape}")
    if X.shape[0] == 0:
        raise InputError(path, "no data points")
    if X.shape[1] == 0:
        raise InputError(path, "points have no features ('X' has 0 columns)")
    _check_size(path, X.shape[0], X.shape[1])
    if X.dtype.kind not in "iuf" or yraw.dtype.kind not in "iuf":
        raise InputError(path, f"arrays must be numeric, found X:{X.dtype} y:{yraw.dtype}")
    if X.dtype.kind == "f":
        bad = ~np.isfinite(X)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise InputError(path, f"NaN or infinite value in X at row {r + 1}, column {c + 1}", int(r) + 1)
    if yraw.dtype.kind == "f" and not np.isfinite(yraw).all():
        r = int(np.argwhere(~np.isfinite(yraw))[0][0])
        raise InputError(path, f"NaN or infinite label at row {r + 1}", r + 1)
    labs = [Fraction(v.item()) for v in yraw]
    y, label_map = map_labels(path, labs, list(range(1, len(labs) + 1)), label_set)
    name = os.path.basename(path)
    if X.dtype.kind == "f":
        return Dataset(name=name, y=y, X_float=np.ascontiguousarray(X, dtype=np.float64), label_map=label_map, source=path)
    return Dataset(name=name, y=y, X_num=to_int_array(X.astype(object)), den=1, label_map=label_map, source=path)


def _read_coq(path: str, label_set) -> Dataset:
    """CoqPerceptron format: N, D, then per vector a label line and D feature lines;
    '#' starts a comment; values 'p/q', 'p % q' or decimals; labels {0,1}."""
    text = _read_text(path)
    fast = _coq_fast(text)
    if fast is not None:
        labs = [Fraction(int(v)) for v in fast[0]]
        try:
            y, label_map = map_labels(path, labs, [None] * len(labs), label_set)
        except InputError:
            pass  # the line-by-line parse below reports it with its line number
        else:
            return Dataset(name=os.path.basename(path), y=y, X_num=fast[1], den=fast[2], label_map=label_map, source=path)
    raw_lines = text.split("\n")
    has_comments = "#" in text
    vals: list[tuple[int, str]] = []
    for ln, raw in enumerate(raw_lines, 1):
        s = raw.split("#", 1)[0].strip() if has_comments else raw.strip()
        if s:
            vals.append((ln, s))
    if len(vals) < 2:
        raise InputError(path, "empty file: expected the number of vectors and of features")
    try:
        if not (_INDEX.fullmatch(vals[0][1]) and _INDEX.fullmatch(vals[1][1])):
            raise ValueError
        n = int(vals[0][1])
        d = int(vals[1][1])
    except ValueError:
        bad = vals[0] if not _INDEX.fullmatch(vals[0][1]) else vals[1]
        raise InputError(path, f"expected an integer count, found {bad[1]!r}", bad[0]) from None
    if n <= 0 or d <= 0:
        raise InputError(path, f"counts must be positive, found {n} vectors of {d} features", vals[0][0])
    _check_size(path, n, d)
    body = vals[2:]
    need = n * (d + 1)
    if len(body) != need:
        last = body[-1][0] if body else vals[1][0]
        raise InputError(path, f"dimension mismatch: header promises {n} vectors x ({d} features + label) = {need} values, found {len(body)}", last)
    labs, lines, ps, qs = [], [], [], []
    stride = d + 1
    try:
        for j in range(n):
            ln, s = body[j * stride]
            labs.append(_fast_pq_fraction(s))
            lines.append(ln)
            for ln, s in body[j * stride + 1:(j + 1) * stride]:
                p, q = _fast_pq(s)
                ps.append(p)
                qs.append(q)
    except (ValueError, ZeroDivisionError, NumberError):
        _diagnose(path, body, stride)
        raise  # pragma: no cover - _diagnose always raises
    return _build_pq(path, labs, lines, label_set, ps, qs, n, d)


_COMMENT = re.compile(r"#[^\n]*")
_INTEGER_CHARS = str.maketrans("", "", "0123456789/- \t\n\r\v\f")  # deleted: what must remain is nothing
_LONG_DIGITS = re.compile(r"[0-9]{19}")


_SPACED_SLASH = re.compile(r"\s*/\s*")
_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True


def _coq_fast(text: str):
    """Vectorised parse for the common case (integers and 'p/q' or 'p % q' cells, each
    integer under 19 digits).  Returns (labels, X_num, den) or None; None sends the file
    through the line-by-line parser, which also produces the error messages.

    The token structure is checked on the bytes with numpy (where tokens start, which token
    each '/' belongs to), never by splitting the text into Python strings: every '/' in a
    distinct feature token, every feature a fraction or none, n (d + 1) tokens after n and d."""
    if "#" in text:
        text = _COMMENT.sub("", text)
    t = text.replace(" % ", "/").replace("%", "/")
    if t.translate(_INTEGER_CHARS):  # only digits, '-', '/' and blanks
        return None
    b = np.frombuffer(t.encode("ascii"), dtype=np.uint8)
    ws = _WHITESPACE[b]
    slashes = np.flatnonzero(b == 47)
    if len(slashes) and (ws[np.maximum(slashes - 1, 0)] | ws[np.minimum(slashes + 1, len(b) - 1)]).any():
        t = _SPACED_SLASH.sub("/", t)  # 'p / q' with blanks: glue the three tokens
        b = np.frombuffer(t.encode("ascii"), dtype=np.uint8)
        ws = _WHITESPACE[b]
        slashes = np.flatnonzero(b == 47)
    head = t[:64].split()
    if len(head) < 3 or not (_INDEX.fullmatch(head[0]) and _INDEX.fullmatch(head[1])):
        return None
    n, d = int(head[0]), int(head[1])
    if n == 0 or d == 0:
        return None
    starts = ~ws
    starts[1:] &= ws[:-1]
    start_at = np.flatnonzero(starts)
    if len(start_at) != 2 + n * (d + 1):
        return None
    ends = np.flatnonzero(~ws & np.append(ws[1:], True)) + 1
    if int((ends - start_at).max()) > 19 and _LONG_DIGITS.search(t):  # a token that long may hold 19 digits
        return None
    slash_tok = np.searchsorted(start_at, slashes, side="right") - 1
    if len(slash_tok):
        if len(slash_tok) != n * d or (slash_tok < 2).any() or ((slash_tok - 2) % (d + 1) == 0).any() \
                or (np.diff(slash_tok) <= 0).any():
            return None  # a label, or a token with two '/', or features partly fractions: line by line
        a = np.fromstring(t.replace("/", " "), dtype=np.int64, sep=" ")
        if a.size != 2 + n * (1 + 2 * d):
            return None
        a = a[2:].reshape(n, 1 + 2 * d)
        P, Q = a[:, 1::2], a[:, 2::2]
    else:
        a = np.fromstring(t, dtype=np.int64, sep=" ")
        if a.size != 2 + n * (1 + d):
            return None
        a = a[2:].reshape(n, 1 + d)
        P, Q = a[:, 1:], np.ones((n, d), dtype=np.int64)
    if (Q == 0).any():
        return None
    neg = Q < 0
    P, Q = np.where(neg, -P, P), np.where(neg, -Q, Q)
    try:
        q = np.sort(Q, axis=None)  # the distinct denominators (np.unique would import numpy.ma: 7 ms of start-up)
        den = common_denominator(q[np.concatenate(([True], q[1:] != q[:-1]))].tolist())
    except NumberError:
        return None  # the line-by-line parse reports it
    scale = den // Q
    if den >= INT64_SAFE or int(np.abs(P).max(initial=0)) * int(scale.max(initial=1)) >= INT64_SAFE:
        X = to_int_array([int(p) * int(c) for p, c in zip(P.ravel().tolist(), scale.ravel().tolist())]).reshape(n, d)
    else:
        X = P * scale
    return a[:, 0], X, den


def _build_pq(path, labs, lines, label_set, ps, qs, n, d):
    _check_size(path, n, d)
    y, label_map = map_labels(path, labs, lines, label_set)
    den = _denominator(path, qs)
    if den == 1:
        num = to_int_array(ps)
    else:
        num = to_int_array([p * (den // q) for p, q in zip(ps, qs)])
    return Dataset(name=os.path.basename(path), y=y, X_num=num.reshape(n, d), den=den, label_map=label_map, source=path)


def _fast_pq(s: str) -> tuple[int, int]:
    """(p, q) with q > 0 for 'p', 'p/q', 'p % q' or a decimal (checked by parse_rational)."""
    f = parse_rational(s)
    return f.numerator, f.denominator


def _fast_pq_fraction(s: str) -> Fraction:
    p, q = _fast_pq(s)
    return Fraction(p, q)


def _diagnose(path, body, stride):
    for j, (ln, s) in enumerate(body):
        what = "label" if j % stride == 0 else f"feature {j % stride}"
        _cell(path, s, ln, what)
    raise InputError(path, "unparseable value")


_EXT = {".csv": "csv", ".tsv": "csv", ".npz": "npz", ".svm": "libsvm", ".libsvm": "libsvm",
        ".svmlight": "libsvm", ".dat": "coq", ".coq": "coq"}


def _sniff(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext in _EXT:
        return _EXT[ext]
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    if head.startswith(b"PK"):
        return "npz"
    first = [ln.split(b"#", 1)[0].strip() for ln in head.splitlines()]
    first = [ln for ln in first if ln][:2]
    if len(first) == 2 and all(ln.isdigit() for ln in first):
        return "coq"
    if first and b":" in first[0]:
        return "libsvm"
    return "csv"


def read_dataset(path: str, fmt: str | None = None, *, label_set: str | None = None, dim: int | None = None,
                 options: ReadOptions | None = None) -> Dataset:
    """Read a dataset file; ``fmt`` is one of FORMATS or None to infer it from the name/content.

    ``label_set`` forces the label mapping: ``"01"`` (0 -> -1) or ``"pm1"``; ``options`` (text
    formats) the label column, a map of label texts and the header (see ReadOptions).
    """
    opts = options or ReadOptions()
    path = os.fspath(path)
    base, table = split_fragment(path)
    if table is not None or (fmt or "").lower() == "toml" or base.lower().endswith(".toml"):
        check_regular_file(base, MAX_DATA_BYTES, "dataset")
        return _read_toml(base, table)  # [[dataset]] tables: a note's worked example
    check_regular_file(path, MAX_DATA_BYTES, "dataset")
    fmt = fmt or _sniff(path)
    if fmt == "csv":
        return _read_csv(path, label_set, opts)
    if fmt == "npz":
        return _read_npz(path, label_set)
    if fmt == "libsvm":
        return _read_libsvm(path, label_set, dim, opts)
    if fmt == "coq":
        return _read_coq(path, label_set)
    raise InputError(path, f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _read_toml(path: str, table: str | None) -> Dataset:
    """A [[dataset]] table (perceptron.toml_data): its points exactly as written, its labels
    +1/-1, 0/1 or two words (a label_map, else a pair of STRING_LABELS)."""
    name, line, t = toml_table(path, table)
    if "file" in t:
        ds = read_dataset(os.path.join(os.path.dirname(path), t["file"]))
        ds.name = name
        return ds
    labels = t["labels"]
    if labels and isinstance(labels[0], str):
        m = t.get("label_map") or next(({p[0]: -1, p[1]: 1} for p in STRING_LABELS if set(labels) <= set(p)), None)
        if m is None or any(v not in m for v in labels):
            raise InputError(path, f"dataset {name!r}: labels {sorted(set(labels))[:4]} need label_map = "
                                   "{ WORD = 1, WORD = -1 }", line)
        labels = [m[v] for v in labels]
    try:  # TOML's digit separators (1_000.5) are not part of the number
        points = [[v.replace("_", "") if isinstance(v, str) else v for v in p] for p in t["points"]]
        return from_rows(name, points, labels, source=f"{path}#{name}", lines=[line] * len(labels))
    except InputError as e:
        raise InputError(path, f"dataset {name!r}: {e.message}", line) from None
    except NumberError as e:
        raise InputError(path, f"dataset {name!r}: {e}", line) from None


def write_csv(ds: Dataset, path: str) -> None:
    """Write a dataset as CSV with exact 'p/q' cells and labels -1/+1."""
    from ._numbers import format_rational

    with open(path, "w") as fh:
        for row, y in zip(ds.fractions(), ds.y):
            fh.write(",".join(format_rational(v) for v in row) + f",{int(y)}\n")
