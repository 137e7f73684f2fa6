"""Datasets written in a TOML file, as a note writes its worked example: ``[[dataset]]`` tables
(in a claim file beside its claims, or a file of their own), each a name, the points and the
labels as the note gives them.

```toml
[[dataset]]
name = "and"
points = [[0, 0], [0, 1], [1, 0], [1, 1]]
labels = [0, 0, 0, 1]          # +1/-1, 0/1 (0 -> -1), or two words ("spam"/"ham" with label_map)
# label_map = { spam = 1, ham = -1 }
# file = "and.csv"             # or the points from a file, relative to this one
```

Numbers are read exactly as written: ``0.1`` is 1/10 (TOML floats are taken as their text, never
as binary floats), ``"1/3"`` a rational.  ``PATH#NAME`` names one table of a file (``PATH``
alone: its only table), so a printed replay command can name the note's data.
"""

from __future__ import annotations

import re

from perceptron.errors import InputError

__all__ = ["toml_table", "dataset_tables", "table_names", "split_fragment", "MAX_TABLES", "NAME"]

#: [[dataset]] tables in one file: a note works a few examples.
MAX_TABLES = 100
#: A dataset's name: it is written in claims' ``datasets`` and in file names.
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,63}")
_KEYS = {"name", "points", "labels", "label_map", "file"}


def split_fragment(path: str) -> tuple[str, str | None]:
    """``notes/claims.toml#and`` -> (``notes/claims.toml``, ``and``); other paths unchanged."""
    base, sep, frag = path.rpartition("#")
    if sep and base.lower().endswith(".toml") and NAME.fullmatch(frag):
        return base, frag
    return path, None


def _table_lines(text: str) -> list[int]:
    return [j + 1 for j, ln in enumerate(text.split("\n")) if re.match(r"\s*\[\[\s*dataset\s*\]\]", ln)]


def dataset_tables(path: str, data: dict, text: str) -> list[tuple[str, int, dict]]:
    """(name, line, table) of each [[dataset]] of a parsed TOML file, names checked and unique."""
    tables = data.get("dataset", [])
    lines = _table_lines(text)
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise InputError(path, "dataset must be [[dataset]] tables", lines[0] if lines else 1)
    if len(tables) > MAX_TABLES:
        raise InputError(path, f"{len(tables)} [[dataset]] tables; a file may have at most {MAX_TABLES} "
                               "(perceptron.toml_data.MAX_TABLES)")
    out, seen = [], set()
    for j, t in enumerate(tables):
        line = lines[j] if j < len(lines) else 1
        name = t.get("name")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise InputError(path, "a [[dataset]] needs name = \"...\" (letters, digits, '_', '.', '-'; at most 64)", line)
        if name in seen:
            raise InputError(path, f"dataset {name!r} is given twice", line)
        unknown = sorted(set(t) - _KEYS)
        if unknown:
            raise InputError(path, f"unknown [[dataset]] field {unknown[0]!r}; fields are {', '.join(sorted(_KEYS))}", line)
        seen.add(name)
        out.append((name, line, t))
    return out


def _load(path: str) -> tuple[dict, str]:
    """A file of [[dataset]] tables (a claim file's size: a note's worked examples; a large set
    goes in its own file, named by a table's file = ...), its floats kept as their text."""
    from perceptron.limits import MAX_CLAIM_BYTES, read_toml

    return read_toml(path, MAX_CLAIM_BYTES, "dataset", exact=True)


def table_names(path: str) -> list[str]:
    """The names of the [[dataset]] tables of a TOML file (a claim file), in order."""
    data, text = _load(path)
    return [name for name, _, _ in dataset_tables(path, data, text)] if "dataset" in data else []


def toml_table(path: str, name: str | None) -> tuple[str, int, dict]:
    """(name, line, table) of the [[dataset]] table ``name`` of the TOML file at ``path`` (its
    only one when None), its points checked (perceptron.datasets builds the Dataset)."""
    data, text = _load(path)
    tables = dataset_tables(path, data, text)
    if name is None and len(tables) != 1:
        raise InputError(path, f"{len(tables)} [[dataset]] tables: name one as {path}#NAME")
    pick = [x for x in tables if name is None or x[0] == name]
    if not pick:
        raise InputError(path, f"no [[dataset]] named {name!r} (the names: {', '.join(n for n, _, _ in tables) or 'none'})")
    name, line, t = pick[0]
    if "file" in t:
        if not isinstance(t["file"], str) or "points" in t:
            raise InputError(path, "file = \"...\" names the points' file (relative to this one), instead of points", line)
        return name, line, t
    points, labels = t.get("points"), t.get("labels")
    if not isinstance(points, list) or not points or not all(isinstance(p, list) for p in points):
        raise InputError(path, f"dataset {name!r}: points = [[...], ...] (one list of numbers per point)", line)
    if not isinstance(labels, list) or len(labels) != len(points):
        raise InputError(path, f"dataset {name!r}: labels = [...] with one label per point ({len(points)})", line)
    width = len(points[0])
    for p in points:
        if len(p) != width or not all(type(v) in (int, str) for v in p):
            raise InputError(path, f"dataset {name!r}: every point needs {width} numbers (0.1, 3, \"1/3\")", line)
    if not (all(type(v) is int for v in labels) or all(isinstance(v, str) for v in labels)):
        raise InputError(path, f"dataset {name!r}: labels are all numbers or all words", line)
    label_map = t.get("label_map")
    if label_map is not None and (not isinstance(label_map, dict) or sorted(label_map.values()) != [-1, 1]):
        raise InputError(path, f"dataset {name!r}: label_map = {{ WORD = 1, WORD = -1 }}", line)
    return name, line, t
