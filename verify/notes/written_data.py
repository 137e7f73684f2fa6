"""The data a note writes out, read exactly as printed: subscripted (``x_1 = (1, 1)``,
``y_1 = +1``, ``x₂ = (−1, 0)``, ``y₂ = −1``, as math or plain text), named by letters
(``A = (2, 2) with t = 1``), one point a line
(``x = (0, 1)  t = 1``, in a code block or not), or a table whose header names an input and a
label (or leaves the label's column unnamed) and no weights (verify.notes.worked_example reads
one with weights as the run itself).  verify.notes.note_run runs the note's rule on it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from verify.notes.source import line_index
from verify.notes.worked_example import INPUT_NAMES, LABEL_NAMES, header_name, numbers_of, tables

__all__ = ["NoteData", "note_data", "TUPLE", "MAX_LISTINGS", "MAX_LISTED_POINTS"]

#: Listings of a note read as its data (each is one [[dataset]] and its claims).
MAX_LISTINGS = 10
#: Points of one listing: data written out by hand is a few points.
MAX_LISTED_POINTS = 100
_GAP = 400  # characters between two entries of one subscripted listing

#: A vector as printed: (1, 2), [0.5, 1], ⟨1, 0⟩, \\left( ... \\right).
TUPLE = r"(?:\\left)?[(\[⟨]([^()\[\]⟨⟩\n]{1,200}?)(?:\\right)?[)\]⟩]"
_SUB = r"(?:_\{?(\d{1,3})\}?|([₀-₉]{1,3}))"
_SUBSCRIPT = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_POINT = re.compile(r"(?<![A-Za-z\\])(?:\\mathbf\{x\}|\\vec\{x\}|\\boldsymbol\{x\}|𝐱|x)\s*+" + _SUB + r"\s*+=\s*+\$?\s*+" + TUPLE)
_LABEL = re.compile(r"(?<![A-Za-z\\])(?:y|t|d)\s*+" + _SUB + r"\s*+=\s*+\$?\s*+([+−-]?\s*+\d+(?:\.\d+)?)(?![\d]|\.\d)")
_LINE_POINT = re.compile(r"(?<![A-Za-z\\_])(?:x|input|point)\s*+=\s*+" + TUPLE)
_LINE_LABEL = re.compile(r"(?<![A-Za-z\\_])(?:y|t|d|label|target|class)\s*+=\s*+([+−-]?\d+)(?![\d]|\.\d)")


@dataclass(frozen=True)
class NoteData:
    line: int  #: the data's first line (1-based)
    end: int  #: its last line
    points: tuple  #: exact, as printed
    labels: tuple  #: as printed: +1/-1 or 0/1
    source: str  #: how the note wrote it, for the review comment
    first: int | None = None  #: the index of its first point, when the note names them (x_1, x₂, ...)
    names: tuple = ()  #: the letters the note names its points by (A = (2, 2), ...), in order


def _labels_ok(labels) -> bool:
    return len(set(labels)) == 2 and (set(labels) <= {-1, 1} or set(labels) <= {0, 1})


def _subscripted(text: str) -> list:
    """Listings written ``x_1 = (...)``, ``y_1 = ...``: entries close together, each index once."""
    found = sorted([(m.start(), m.end(), "x", int((m.group(1) or m.group(2)).translate(_SUBSCRIPT)), numbers_of(m.group(3)))
                    for m in _POINT.finditer(text)]
                   + [(m.start(), m.end(), "y", int((m.group(1) or m.group(2)).translate(_SUBSCRIPT)),
                       numbers_of(m.group(3).replace(" ", ""))) for m in _LABEL.finditer(text)], key=lambda e: e[0])
    groups, cur, seen = [], [], set()
    for e in found:
        if cur and (e[0] - cur[-1][1] > _GAP or (e[2], e[3]) in seen):
            groups.append(cur)
            cur, seen = [], set()
        cur.append(e)
        seen.add((e[2], e[3]))
    groups.append(cur)
    out, line_of = [], None
    for g in groups:
        xs = {i: v for _, _, kind, i, v in g if kind == "x"}
        ys = {i: v for _, _, kind, i, v in g if kind == "y"}
        idx = sorted(xs)
        if len(idx) < 2 or len(idx) > MAX_LISTED_POINTS or set(idx) != set(ys) or idx != list(range(idx[0], idx[0] + len(idx))):
            continue
        pts = [xs[i] for i in idx]
        labels = [ys[i][0] if ys[i] and len(ys[i]) == 1 else None for i in idx]
        if None in pts or len({len(p) for p in pts}) != 1 or None in labels or not _labels_ok(labels):
            continue
        line_of = line_of or line_index(text)  # once per note: a listing's lines by bisection
        out.append(NoteData(line_of(g[0][0]), line_of(g[-1][1]), tuple(tuple(p) for p in pts),
                            tuple(int(v) for v in labels), f"the points x_{idx[0]} to x_{idx[-1]} the note writes out",
                            idx[0]))
    return out


#: A point named by a capital letter, with its label: "A = (2, 2) with t = 1", "B = (1, 0), y = −1".
_LETTERED = re.compile(r"(?<![A-Za-z\\_])([A-Z])\s*+=\s*+\$?\s*+" + TUPLE + r"\s*+\$?\s*+(?:,|with|and)?\s*+(?:its\s+|the\s+)?"
                       r"(?:label|target|class)?\s*+\$?\s*+(?:y|t|d)?(?:_\{?[A-Z]\}?)?\s*+(?:=|:|of)\s*+\$?\s*+([+−-]?\s*+\d+)"
                       r"(?![\d]|\.\d)")


def _lettered(text: str) -> list:
    """Listings whose points are named by letters: ``A = (2, 2) with t = 1, B = (1, 0) with t = 0``:
    entries close together, each name once."""
    groups, cur = [], []
    for m in _LETTERED.finditer(text[:200_000]):
        if cur and (m.start() - cur[-1].end() > _GAP or m.group(1) in {c.group(1) for c in cur}):
            groups.append(cur)
            cur = []
        cur.append(m)
    groups.append(cur)
    out, line_of = [], None
    for g in groups:
        pts = [numbers_of(m.group(2)) for m in g]
        labels = [numbers_of(m.group(3).replace(" ", "")) for m in g]
        if not 2 <= len(g) <= MAX_LISTED_POINTS or None in pts or None in labels or len({len(p) for p in pts}) != 1:
            continue
        labels = [v[0] for v in labels]
        if not _labels_ok(labels):
            continue
        line_of = line_of or line_index(text)
        out.append(NoteData(line_of(g[0].start()), line_of(g[-1].end()), tuple(tuple(p) for p in pts),
                            tuple(int(v) for v in labels), f"the points {g[0].group(1)} to {g[-1].group(1)} the note writes out",
                            names=tuple(m.group(1) for m in g)))
    return out


def _one_a_line(text: str) -> list:
    """Listings of one point a line: ``x = (0, 1)  t = 1`` on consecutive lines."""
    out, run = [], []
    lines = text.split("\n")
    for j, line in enumerate(lines + [""]):
        p, y = _LINE_POINT.search(line[:400]), _LINE_LABEL.search(line[:400])
        pt = numbers_of(p.group(1)) if p else None
        lab = numbers_of(y.group(1)) if y else None
        if pt and lab and len(lab) == 1:
            run.append((j + 1, tuple(pt), lab[0]))
            continue
        if len(run) >= 2 and len({len(r[1]) for r in run}) == 1 and _labels_ok([r[2] for r in run]) \
                and len(run) <= MAX_LISTED_POINTS:
            out.append(NoteData(run[0][0], run[-1][0], tuple(r[1] for r in run), tuple(int(r[2]) for r in run),
                                f"the points listed one a line (lines {run[0][0]} to {run[-1][0]})"))
        run = []
    return out


def _column(table, j: int) -> list:
    """Column ``j`` of a table as numbers, one a cell (None for a cell that is not one number)."""
    return [v[0] if len(cells) > j and (v := numbers_of(cells[j])) and len(v) == 1 else None
            for _, cells in table.rows]


def _data_tables(text: str) -> list:
    """Tables whose header names an input and a label and no weights: the note's data."""
    out = []
    for table in tables(text):
        names = [header_name(h) for h in table.header]
        if any(n in ("w", "weights") or re.fullmatch(r"w\(?\d\)?|new w|w after", n) for n in names):
            continue  # an iteration table: the run itself (verify.notes.worked_example)
        ys = [j for j, n in enumerate(names) if n in LABEL_NAMES and n != "t"] or [j for j, n in enumerate(names) if n == "t"]
        def numeric(cols):  # the columns of numbers (a column named as the points may hold their names: A, B, C)
            return [j for j in cols if all(numbers_of(cells[j]) for _, cells in table.rows if len(cells) > j)]

        named = [j for j, n in enumerate(names) if n in INPUT_NAMES and n != "t"]
        coords = [j for j, n in enumerate(names) if re.fullmatch(r"x\(?\d\)?", n)]  # | point | x1 | x2 | y |
        xs = numeric(named) or numeric(coords) or named or coords
        # | x | y | label |: x and y are the coordinates when another column names the labels
        labelled = [j for j, n in enumerate(names) if n in LABEL_NAMES and n not in ("y", "yi", "yt", "yn", "t")]
        if "x" in names and "y" in names and labelled:
            xs, ys = [names.index("x"), names.index("y")], labelled[:1]
        xs = numeric(xs) or xs
        letters = [j for j in range(len(names)) if j not in xs and table.rows and all(
            len(cells) > j and re.fullmatch(r"[A-Z]", cells[j].strip()) for _, cells in table.rows)]
        if not ys and xs:  # an unnamed column of labels beside the points: the only one all +1/-1 (or 0/1)
            ys = [j for j, n in enumerate(names) if not n and _labels_ok(_column(table, j))][:2]
            ys = ys if len(ys) == 1 else []
        if not ys or not xs or not table.rows:
            continue
        pts, labels = [], []
        for _, cells in table.rows:
            if max(xs + ys) >= len(cells):
                break
            x = [v for j in xs for v in (numbers_of(cells[j]) or [None])]
            y = numbers_of(cells[ys[0]])
            if None in x or not y or len(y) != 1:
                break
            pts.append(tuple(x))
            labels.append(int(y[0]) if y[0] in (-1, 0, 1) else None)
        else:
            if len(pts) >= 2 and len({len(p) for p in pts}) == 1 and None not in labels and _labels_ok(labels):
                named = tuple(cells[letters[0]].strip() for _, cells in table.rows) if letters else ()
                out.append(NoteData(table.line, table.rows[-1][0], tuple(pts), tuple(labels),
                                    f"the table of points and labels at line {table.line}",
                                    names=named if len(set(named)) == len(named) else ()))
    return out


def note_data(text: str) -> list:
    """The note's data written out, in the order of the note, at most MAX_LISTINGS (a listing
    inside another's lines is the same data)."""
    out = []
    for d in sorted(_data_tables(text) + _subscripted(text) + _lettered(text) + _one_a_line(text),
                    key=lambda d: (d.line, -d.end)):
        if not any(o.line <= d.line <= o.end for o in out) and len(out) < MAX_LISTINGS:
            out.append(d)
    return out
