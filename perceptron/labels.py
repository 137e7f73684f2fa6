"""A dataset's labels as files write them, and the header and columns of a text table: numbers
mapped to -1/+1 (with --label-set, or {-1, +1}, {0, 1}, {1, 2} as found), words through a
label map or a known pair, the label column by its header's name or option, the cell separator
and whether a first line is a header (perceptron.datasets reads every format with them)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ._numbers import NumberError, parse_rational
from .errors import InputError

__all__ = ["map_labels", "text_labels", "ReadOptions", "parse_label_map", "LABEL_NAMES", "STRING_LABELS", "delimiter",
           "split_cells", "is_label_text", "looks_like_header", "label_index", "is_header_cell"]


def map_labels(path: str, labels: list[Fraction], lines: list[int], label_set: str | None):
    """Map raw labels to -1/+1.  {-1,+1} is taken as is, {0,1} maps 0 -> -1; a third value
    or an unmappable set is an error naming the first offending line."""
    seen = []
    for v in labels:
        if v not in seen:
            seen.append(v)
    if label_set == "01":
        allowed = {Fraction(0): -1, Fraction(1): 1}
    elif label_set == "pm1":
        allowed = {Fraction(-1): -1, Fraction(1): 1}
    elif set(seen) <= {Fraction(-1), Fraction(1)}:
        allowed = {Fraction(-1): -1, Fraction(1): 1}
    elif set(seen) <= {Fraction(0), Fraction(1)}:
        allowed = {Fraction(0): -1, Fraction(1): 1}
    else:
        allowed = None
    if allowed is None:
        firsts = []
        for v, ln in zip(labels, lines):
            if v not in firsts:
                firsts.append(v)
                if len(firsts) == 3:
                    raise InputError(path, f"a third label {v} (labels must be two of {{-1,+1}} or {{0,1}}; "
                                           f"seen {', '.join(map(str, firsts))})", ln)
        for v, ln in zip(labels, lines):
            if v not in (-1, 0, 1):
                raise InputError(path, f"label {v} is not in {{-1,+1}} or {{0,1}}", ln)
    for v, ln in zip(labels, lines):
        if v not in allowed:
            raise InputError(path, f"label {v} is not in {{{', '.join(map(str, allowed))}}} (forced by --labels)", ln)
    y = np.array([allowed[v] for v in labels], dtype=np.int8)
    label_map = {str(k): v for k, v in allowed.items() if k in set(seen)}
    return y, label_map


#: Header names taken as the label column when --label-column is not given.
LABEL_NAMES = ("label", "labels", "y", "target", "class")
#: Pairs of string labels mapped without --label-map: (the -1 label, the +1 label), compared
#: case-insensitively.  Any other strings need an explicit map: which class is +1 is a choice.
STRING_LABELS = (("false", "true"), ("no", "yes"), ("neg", "pos"), ("negative", "positive"), ("-", "+"))


@dataclass(frozen=True)
class ReadOptions:
    """How to read a text dataset: ``label_column`` ("first", "last", a 1-based column number
    or a header name; default a header column named as in LABEL_NAMES, else the last),
    ``label_map`` (label text -> -1/+1), ``header`` ("auto", "yes", "no")."""

    label_column: str | None = None
    label_map: tuple | None = None  # ((text, -1 or +1), ...)
    header: str = "auto"


def parse_label_map(text: str) -> tuple:
    """"M=1,R=-1" -> (("M", 1), ("R", -1)); raises ValueError with the problem."""
    out = []
    for item in text.split(","):
        k, sep, v = item.partition("=")
        k, v = k.strip(), v.strip()
        if not sep or not k or v not in ("1", "+1", "-1"):
            raise ValueError(f"{item!r}: write LABEL=1 or LABEL=-1, comma-separated")
        if any(k == o for o, _ in out):
            raise ValueError(f"label {k!r} mapped twice")
        out.append((k, 1 if v in ("1", "+1") else -1))
    if sorted(v for _, v in out) != [-1, 1]:
        raise ValueError("map one label to -1 and one to +1")
    return tuple(out)


def text_labels(path, texts: list[str], lines, label_set, label_map):
    """Labels as written in a text file -> (y, label_map): through --label-map when given, else
    numbers as map_labels takes them, else a known pair of words (STRING_LABELS)."""
    if label_map:
        m = dict(label_map)
        for t, ln in zip(texts, lines):
            if t not in m:
                raise InputError(path, f"label {t!r} is not in --label-map ({', '.join(k for k, _ in label_map)})", ln)
        seen = set(texts)
        return np.array([m[t] for t in texts], dtype=np.int8), {k: v for k, v in label_map if k in seen}
    nums, bad = [], None
    for t, ln in zip(texts, lines):
        try:
            nums.append(parse_rational(t))
        except NumberError:
            bad = bad or (t, ln)
    if bad is None:
        return map_labels(path, nums, lines, label_set)
    low = {t.lower() for t in texts}
    for neg, pos in STRING_LABELS:
        if low <= {neg, pos}:
            m = {t: (-1 if t.lower() == neg else 1) for t in sorted(set(texts))}
            return np.array([m[t] for t in texts], dtype=np.int8), m
    words = []
    for t in texts:
        if t not in words:
            words.append(t)
            if len(words) > 2:
                break
    shown = ", ".join(repr(w) for w in words[:3])
    hint = f"{words[0]}=1,{words[1]}=-1" if len(words) >= 2 else f"{words[0]}=1,OTHER=-1"
    raise InputError(path, f"label {bad[0]!r} is not a number (labels seen: {shown}); say which class is +1 "
                           f"with --label-map {hint}", bad[1])


def delimiter(line: str):
    """The cell separator of a text table, from its first line: comma, semicolon, tab, else runs of
    whitespace (None)."""
    for d in (",", ";", "\t"):
        if d in line:
            return d
    return None


def split_cells(s: str, delim) -> list[str]:
    return [c.strip() for c in (s.split(delim) if delim else s.split())]


def is_label_text(t: str, label_map) -> bool:
    if label_map:
        return t in dict(label_map)
    try:
        return parse_rational(t) in (-1, 0, 1)
    except NumberError:
        return True


def looks_like_header(cells: list[str], label_at: int, label_map) -> bool:
    """Names (x1, label: the label cell itself may be a word in data rows, so it does not count),
    an empty first cell (pandas' index column), or pandas' default integer column names 0..m-1
    (or 1..m) whose label cell could not be a label."""
    label_at %= len(cells)
    if cells[0] == "" or any(is_header_cell(c) for j, c in enumerate(cells) if j != label_at):
        return True
    if any(len(c) > 12 for c in cells):  # column numbers are short; never convert a long digit run
        return False
    try:
        vals = [int(c) for c in cells]
    except ValueError:
        return False
    return len(vals) >= 3 and vals in (list(range(len(vals))), list(range(1, len(vals) + 1))) \
        and not is_label_text(cells[label_at], label_map)


def label_index(path, opt: str | None, header: list[str] | None, width: int, ln) -> int:
    if opt is None:
        if header:
            for j, name in enumerate(header):
                if name.strip().strip('"').lower() in LABEL_NAMES:
                    return j
        return width - 1
    if opt == "first":
        return 0
    if opt == "last":
        return width - 1
    if opt.isdigit():
        j = int(opt)
        if not 1 <= j <= width:
            raise InputError(path, f"--label-column {opt}: the file has {width} columns (numbered from 1)", ln)
        return j - 1
    names = [h.strip().strip('"') for h in header or []]
    if opt in names:
        return names.index(opt)
    raise InputError(path, f"--label-column {opt!r}: no such column" + (f" (header: {', '.join(names)})" if names else
                                                                          " (the file has no header)"), ln)


def is_header_cell(c: str) -> bool:
    try:
        parse_rational(c)
        return False
    except NumberError:
        c = c.strip('"')
        return bool(c) and (c[0].isalpha() or c[0] == "_") and c.lower() not in ("nan", "inf", "infinity")
