"""A note's worked example, read from its iteration table: the points and labels become the
note's dataset ([[dataset]]), and each printed weight vector a claim about the note's run on
them, at the visit where the note prints it.

A table is read when its header names the input (``x``, ``input``, ``point``, or ``x1``,
``x2``, ... one column per coordinate), the label (``y``, ``label``, ``target``, ``t``,
``class``) and the weights (``w``, ``weights``, ``new w``, ``w after``, ...), and its rows follow
the points in the cyclic order.  The note's rule is not guessed: the learner itself
(perceptron.train) runs each rule a note may mean -- w += eta y x on y w.x <= 0, or on
sign(w.x) != y with sign(0) = +1 or -1, and the 0/1-label form w += eta (t - o) x -- with the
learning rate and initial weights the note states (else eta = 1, w0 = 0), and the rule kept
is the one whose weights agree with the most rows of the table from its first.  When no rule
agrees with the first rows up to an update, the table is not read (the note's rule, learning
rate or start is not one the drafter can tell): the claim is a draft that says so.  A row
whose weights differ from the rule's is kept as the note prints it, and refuted by the audit."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["Table", "tables", "read_example", "numbers_of", "header_name", "stated_setting", "stated_starts", "rate_symbol", "RULES",
           "INPUT_NAMES", "LABEL_NAMES", "MAX_TABLE_ROWS", "MAX_TABLES", "SETTING_LINES"]

#: Rows of a table read as a worked example: a run worked by hand is a few epochs of a few
#: points; a longer table is not drafted (the audit's own runs cover long runs).
MAX_TABLE_ROWS = 200
#: Tables of one note read as worked examples (each is one [[dataset]] and its claims).
MAX_TABLES = 10
#: Lines after a note's data in which the setting it states is its example's, when it states
#: others further on (a proof's "η = 1" sections later).
SETTING_LINES = 20
_MAX_CELL = 200  # characters of a cell read as numbers

INPUT_NAMES = {"x", "xi", "xt", "input", "inputs", "point", "example", "x(i)", "xn", "vector"}
LABEL_NAMES = {"y", "yi", "yt", "label", "target", "t", "class", "d", "yn", "label y", "true label"}
_W_AFTER = {"w", "weights", "new w", "w after", "w (after)", "w_new", "wnew", "updated w", "w'", "w(new)",
            "w after update", "weights after", "new weights", "w_{t+1}", "wt+1", "w(t+1)", "w_{k+1}", "wk+1"}
_W_BEFORE = {"w before", "old w", "w (before)", "w_old", "wold", "current w", "w_t", "wt", "w_k", "wk",
             "weights before", "w(t)"}
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:/\d+)?")


@dataclass(frozen=True)
class Table:
    line: int  #: the header's line (1-based)
    header: tuple
    rows: tuple  #: ((line, (cell, ...)), ...)


_FENCE = re.compile(r"\s{0,3}(```|~~~)")
_RULE_ROW = re.compile(r"\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*")


def tables(text: str) -> list:
    """The note's tables, at most MAX_TABLES: Markdown pipe tables (a header row, a |---| row,
    then rows), tables a note writes in a code block, aligned by spaces (a header row of
    names, an optional row of dashes, then rows of as many cells), and rows of cells split at
    tabs under a header that names an input."""
    lines = text.split("\n")
    out = []
    j = 0
    fenced = False
    while j + 1 < len(lines) and len(out) < MAX_TABLES:
        if _FENCE.match(lines[j]):
            fenced = not fenced
            if fenced and (table := _code_table(lines, j + 1)) is not None:
                out.append(table)
            j += 1
        elif not fenced and "|" in lines[j] and _RULE_ROW.fullmatch(lines[j + 1]):
            header = _cells(lines[j])
            rows = []
            k = j + 2
            while k < len(lines) and "|" in lines[k] and len(rows) <= MAX_TABLE_ROWS:
                rows.append((k + 1, _cells(lines[k])))
                k += 1
            out.append(Table(j + 1, tuple(header), tuple(rows)))
            j = k
        elif not fenced and "\t" in lines[j] and (table := _tab_table(lines, j)) is not None:
            out.append(table)
            j = table.rows[-1][0]
        else:
            j += 1
    return (out + _tabulars(text))[:MAX_TABLES]


_TABULAR = re.compile(r"\\begin\{(tabular\*?|array)\}(?:\{[^{}\n]{0,200}\})+")


def _tabulars(text: str) -> list:
    """A LaTeX note's tables: ``tabular`` (and ``array``) environments, rows split at ``\\\\``,
    cells at ``&``; ``\\hline`` and rules dropped; each row at the line it starts on."""
    import bisect

    out = []
    starts = [m.end() for m in re.finditer("\n", text)]  # a row's line by bisection, not by counting each time
    pos, limit = 0, min(len(text), MAX_TABLES * 100_000)
    for _ in range(4 * MAX_TABLES):  # each environment read once: the next is looked for after its end
        m = _TABULAR.search(text, pos, limit)
        end = text.find("\\end{" + m.group(1) + "}", m.end()) if m else -1
        if end < 0 or len(out) >= MAX_TABLES:
            break
        pos = end
        rows, row_at = [], m.end()
        for raw in re.split(r"\\\\", text[m.end():end])[:MAX_TABLE_ROWS + 2]:
            cells = re.sub(r"\\(hline|toprule|midrule|bottomrule|cline\{[^}]*\})", lambda r: " " * len(r.group()), raw)
            at = row_at + len(cells) - len(cells.lstrip())
            row_at += len(raw) + 2
            if cells.strip():
                rows.append((bisect.bisect_right(starts, at) + 1, [c.strip()[:_MAX_CELL] for c in cells.split("&")]))
        if len(rows) > 1:
            out.append(Table(rows[0][0], tuple(rows[0][1]), tuple(rows[1:])))
    return out


def _code_table(lines: list, j: int):
    """The table a code block starting at line index ``j`` holds, or None: its first line is a
    header whose cells name an input and a label (split at runs of two spaces, a tab or ``|``;
    else at each space), and each following line (a row of dashes aside) has as many cells."""
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j >= len(lines) or _FENCE.match(lines[j]):
        return None
    header = _split_row(lines[j], None)
    names = [header_name(h) for h in header]
    if not any(n in LABEL_NAMES for n in names) or not any(n in INPUT_NAMES or re.fullmatch(r"x\(?\d\)?", n) for n in names):
        return None
    rows = []
    k = j + 1
    while k < len(lines) and not _FENCE.match(lines[k]) and len(rows) <= MAX_TABLE_ROWS:
        if re.fullmatch(r"[\s|:+=-]*-[\s|:+=-]*", lines[k]) or not lines[k].strip():
            k += 1
            continue
        cells = _split_row(lines[k], len(header))
        if cells is None:
            break
        rows.append((k + 1, cells))
        k += 1
    return Table(j + 1, tuple(header), tuple(rows)) if rows else None


def _tab_table(lines: list, j: int):
    """The table whose header is line index ``j``, its cells split at tabs (as a note converted
    from a PDF writes one), or None: the header names an input (its other cells may be empty),
    and each following line has as many cells."""
    header = [c.strip() for c in lines[j][:2000].split("\t")]
    names = [header_name(h) for h in header]
    if len(header) < 2 or not any(n in INPUT_NAMES or re.fullmatch(r"x\(?\d\)?", n) for n in names):
        return None
    rows = []
    k = j + 1
    while k < len(lines) and len(rows) <= MAX_TABLE_ROWS:
        cells = [c.strip() for c in lines[k][:2000].split("\t")]
        if len(cells) != len(header):
            break
        rows.append((k + 1, cells))
        k += 1
    return Table(j + 1, tuple(header), tuple(rows)) if rows else None


def _split_row(line: str, size):
    """A code-block table's line as cells: split at ``|``, at runs of two or more spaces or tabs,
    or at single spaces (a parenthesised vector kept whole); the first split with ``size`` cells
    (any, for a header: the one with the most cells up to the line's words)."""
    s = line.strip()[:2000]
    tries = [_cells(s)] if "|" in s else []
    tries += [re.split(r"\s{2,}|\t", s), re.findall(r"[(\[⟨][^)\]⟩]*[)\]⟩]|[^\s(\[⟨]+", s)]
    if size is None:
        return next((t for t in tries if len(t) > 1), tries[-1])
    return next((t for t in tries if len(t) == size), None)


def _cells(line: str) -> list:
    s = line.strip()
    s = s[1:] if s.startswith("|") else s
    s = s[:-1] if s.endswith("|") else s
    return [c.strip() for c in s.split("|")]


def header_name(cell: str) -> str:
    """A header cell as a name: markup, math delimiters, subscripts and case removed."""
    s = cell.lower().replace("ᵢ", "i").replace("ₜ", "t").replace("₀", "0").replace("₁", "1").replace("₂", "2")
    s = s.replace("ₖ", "k").replace("⁽", "(").replace("⁾", ")")
    s = re.sub(r"\\(?:mathbf|boldsymbol|vec|mathrm|mathit|bm)\b|[`*$\\]", "", s)  # a macro before its backslash
    s = re.sub(r"\{|\}", "", s).replace("_", "").strip()
    return re.sub(r"\s+", " ", s)


#: A fraction as LaTeX writes it: \frac{1}{2}, \tfrac12 is not read (its digits run together).
_FRAC = re.compile(r"\\[dt]?frac\s*\{\s*([-+]?\d{1,12})\s*\}\s*\{\s*(\d{1,12})\s*\}")
#: A matrix environment written as one cell: a point as a column (or row) vector.
_MATRIX = re.compile(r"\\begin\{([pbvB]?matrix)\}(.{0,180}?)\\end\{\1\}", re.S)


def numbers_of(cell: str):
    """The numbers of a cell ("(1, -2)", "[0.5, 1]", "−1", "+1"), exact; None if it holds other text."""
    s = _FRAC.sub(r"(\1)/(\2)", cell[:_MAX_CELL].replace("−", "-").replace("$", "").replace("`", ""))
    s = re.sub(r"\((-?\d+)\)/\((\d+)\)", r"\1/\2", s)  # \frac{1}{2}: 1/2; \frac{-1}{2}: -1/2
    if m := _MATRIX.fullmatch(s.strip()):  # a column or row vector: \begin{pmatrix} -2 \\ 0 \end{pmatrix}
        s = "(" + re.sub(r"\\\\|&", ",", m.group(2)) + ")"
    s = s.replace("\\", "")
    s = s.replace("left", "").replace("right", "").replace(" ", "")
    body = re.sub(r"^[(\[⟨<]|[)\]⟩>]$", "", s)
    parts = [p for p in re.split(r"[,;]", body) if p != ""]
    if not parts or not all(_NUMBER.fullmatch(p) for p in parts):
        return None
    return [Fraction(p) for p in parts]


_B = {"b", "bias", "new b", "b after", "b (after)", "bnew", "b_new", "updated b", "b'", "b(new)", "new bias", "b before",
      "old b", "bold", "current b", "bt", "bk"}


def _columns(header):
    """(x columns, y column, w column, b column or None, whether w is printed before the row's
    update) or None."""
    names = [header_name(h) for h in header]
    # "t" names a label (0/1 targets) unless another column does: then it is the step ("t | x | y | ...")
    y = next((j for j, n in enumerate(names) if n in LABEL_NAMES and n != "t"), None)
    y = next((j for j, n in enumerate(names) if n == "t"), None) if y is None else y
    xs = [j for j, n in enumerate(names) if n in INPUT_NAMES]
    if not xs:
        xs = [j for j, n in enumerate(names) if re.fullmatch(r"x\(?\d\)?", n)]
    w = [j for j, n in enumerate(names) if n in _W_AFTER][:1]
    before = not w
    if not w:
        w = [j for j, n in enumerate(names) if n in _W_BEFORE][:1]
    if not w:  # one column per coordinate: w1, w2, ... (the weights after the row's update)
        w = [j for j, n in enumerate(names) if re.fullmatch(r"w\(?\d\)?", n)]
        before = False
    if y is None or not xs or not w:
        return None
    return xs, y, w, next((j for j, n in enumerate(names) if n in _B), None), before


#: A heading line, Markdown or LaTeX: the end of a worked example's section.
_HEADING_LINE = re.compile(r"\s{0,3}#{1,6}\s|\s*\\(?:sub){0,2}section\*?\{")
#: Words of a line that compares runs, or speaks of another.
_COMPARES = re.compile(r"\b(times|as many|as much|more|fewer|less|faster|slower|halves|doubles|quarter|half|twice|"
                       r"would|instead|compared?)\b", re.I)


#: The symbol a note names its learning rate by: "a learning rate $\lambda > 0$", "step size α".
_RATE_SYMBOL = re.compile(r"\b(?:learning rate|step[- ]size)\s*+(?:of\s+)?\$?\s*+(\\(?:lambda|alpha|mu|rho|epsilon|varepsilon|tau)"
                          r"\b|[λαμρετ])")
_GREEK = {"λ": "\\lambda", "α": "\\alpha", "μ": "\\mu", "ρ": "\\rho", "ε": "\\epsilon", "τ": "\\tau"}


def rate_symbol(note_text: str) -> str | None:
    """The LaTeX name of the symbol the note calls its learning rate when it is not η
    ("a learning rate $\\lambda > 0$": "\\lambda"), else None."""
    m = _RATE_SYMBOL.search(note_text[:200_000])
    return None if m is None else _GREEK.get(m.group(1), m.group(1))


def stated_setting(note_text: str, line: int):
    """The learning rate, initial weights and initial bias the note states for the table at
    ``line``: the last statement of each before the table (a note may compare other values after
    its example), else the one it states after (in its section and within SETTING_LINES lines of
    it, when it states others further on); None when it states none, or several after.  A line that compares runs
    ("with η = 2, half as many updates"; "from w = 0, b = 0 a bigger rate ...") speaks of another
    run, not the table's."""
    text = _FRAC.sub(r"\1/\2", note_text[:200_000])  # \frac{1}{2}: 1/2 (a line's length changes, its place does not)
    at = sum(len(x) + 1 for x in text.split("\n")[:line - 1])
    sym = rate_symbol(text)
    names = [r"η", r"\\eta", r"\beta\b", "learning rate", "step size"]
    if sym:  # the note's own symbol, as LaTeX or as its Unicode letter
        names += [re.escape(sym) + r"\b"] + [k for k, v in _GREEK.items() if v == sym]

    after_lines = text.split("\n")[line - 1:line - 1 + SETTING_LINES]
    ends = [j for j, x in enumerate(after_lines) if j and _HEADING_LINE.match(x)]  # the example's section ends there
    near = at + sum(len(x) + 1 for x in after_lines[:ends[0] if ends else None])

    def pick(found):
        found = [(pos, v) for pos, v in found if not compared(pos)]
        before = [v for pos, v in found if pos < at]
        after = {v for pos, v in found if pos >= at}
        soon = {v for pos, v in found if at <= pos < near}  # stated with the example, not in a later section
        return before[-1] if before else (soon.pop() if len(soon) == 1 else after.pop() if len(after) == 1 else None)

    def compared(pos: int) -> bool:  # "with η = 2 it makes a quarter as many updates": another run, not this one's
        return bool(_COMPARES.search(text, text.rfind("\n", 0, pos) + 1, (text.find("\n", pos) + 1 or len(text) + 1) - 1))

    etas = [(m.start(), Fraction(m.group(2))) for m in re.finditer(
        r"(?:" + "|".join(names) + r")\s*+(?:=|:|of|is)\s*+(\$?)\s*+([0-9]+(?:\.[0-9]+)?(?:/[0-9]+)?)", text)]
    b0s = [(m.start(), Fraction(m.group(1).replace("−", "-"))) for m in re.finditer(
        r"(?:\bb\s*+(?:_\{?0\}?|₀)|" + _START + r"\bb)\s*+=\s*+\$?\s*+([−-]?[0-9]+(?:\.[0-9]+)?(?:/[0-9]+)?)(?![\d/]|\.\d)", text)]
    return pick(etas), pick(_starts(text)), pick(b0s)


#: "start with w = [..]", "initialise w = ...": a start in words, then the weights.
_START = r"(?:\b(?i:start\w*|initiali[sz]\w*|initial(?:ly)?|begin\w*)\b(?:[^.\n]|\.\d){0,60}?)"


def stated_starts(note_text: str, indexed_one: bool = True) -> list:
    """Each initial weight vector the note states, (its line, its coordinates) in the order
    written: w_0 = (..) (or "start with w = ..."), or w_1 where the note indexes its start from 1
    (where it names a w_0 anywhere, its w_1 is the weights after the first update, not the start);
    "w_0 = 0" is the zero vector (an empty tuple: every coordinate 0).  ``indexed_one`` False: no
    w_1 is read as a start."""
    text = _FRAC.sub(r"\1/\2", note_text[:200_000])  # \frac{1}{2}: 1/2 (a line's length changes, its place does not)
    return [(text.count("\n", 0, pos) + 1, v) for pos, v in _starts(text, indexed_one)]


def _starts(text: str, indexed_one: bool = True) -> list:
    """stated_starts, each at its place in ``text`` (fractions written a/b)."""
    first = r"\bw\s*+(?:_\{?0\}?|₀|\^\{?\(0\)\}?)"
    ones = [] if not indexed_one or re.search(first + r"\s*+=", text) else [r"\bw\s*+(?:_\{?1\}?|₁)"]
    return sorted([(m.start(), tuple(v)) for m in re.finditer(
        r"(?:" + "|".join([first, *ones]) + "|" + _START + r"\bw)\s*+=\s*+\$?\s*+([(\[][^)\]\n]{1,80}[)\]])", text)
        if (v := numbers_of(m.group(1))) is not None] + [(m.start(), ()) for m in re.finditer(
            r"(?:" + first + "|" + _START + r"\bw)\s*+=\s*+\$?\s*+0(?![\d.,/])", text)])


@dataclass(frozen=True)
class Example:
    points: list
    labels: list
    params: object  #: the rule kept (perceptron.Params)
    claims: list  #: (row line, when, given, w as printed)
    agreed: int  #: rows from the first whose weights the rule reproduces
    rule: str  #: the rule in words


RULES = (("rosenblatt", 0, "yx", "w += eta y x when y w.x <= 0"),
          ("sign", 1, "yx", "w += eta y x when sign(w.x) != y, sign(0) = +1"),
          ("sign", -1, "yx", "w += eta y x when sign(w.x) != y, sign(0) = -1"),
          ("sign", 1, "half", "w += eta (t - o) x on labels 0/1, o = 1 at w.x = 0"),
          ("sign", -1, "half", "w += eta (t - o) x on labels 0/1, o = 0 at w.x = 0"))


def read_example(table: Table, note_text: str, names: dict | None = None):
    """(Example, None) for a table read as a worked example, (None, why) for a table that looks
    like one but is not read, (None, None) for any other table.  ``names``: the points the note
    names (``A = (2, 2)``: {"A": (2, 2)}), which an input cell may give by name."""
    from perceptron import from_rows

    cols = _columns(table.header)
    if cols is None or not table.rows:
        return None, None
    xs, yc, wc, bc, before = cols
    if len(table.rows) > MAX_TABLE_ROWS:
        return None, f"the table has more than {MAX_TABLE_ROWS} rows (verify.notes.worked_example.MAX_TABLE_ROWS)"
    got = _row_values(table, xs, yc, wc, bc, names or {})
    if isinstance(got, str):
        return None, got
    seq, ws, folded = got
    points, labels = [], []
    for p, y in seq:
        if p not in points:
            points.append(p)
            labels.append(y)
    n = len(points)
    if any(seq[j] != (points[j % n], labels[j % n]) for j in range(len(seq))):
        return None, "the rows do not visit the points in one cyclic order (the order is not drafted)"
    if not (set(labels) <= {-1, 1} or set(labels) <= {0, 1}):
        return None, "the labels are neither +1/-1 nor 0/1"
    eta, w0, b0 = stated_setting(note_text, table.line)
    d = len(points[0])
    w0 = w0 if w0 is not None and len(w0) == d else tuple(Fraction(0) for _ in range(d))
    if bc is not None or folded:  # a bias column, or the bias folded into the weights' last coordinate
        stated = stated_setting(note_text, table.line)[1]
        w0 = stated if folded and stated is not None and len(stated) == d + 1 else \
            w0 + (b0 if b0 is not None else Fraction(0),)
    eta = eta if eta is not None and eta > 0 else Fraction(1)
    zero_one = 0 in labels
    ds = from_rows("table", [list(p) for p in points], [1 if v == 1 else -1 for v in labels])
    best = _best_rule(ds, ws, before, eta, w0, zero_one, bc is not None or folded)
    if best is None:
        return None, (f"no rule the drafter knows reproduces the table's first rows with eta = {eta} and w0 = "
                      f"({', '.join(map(str, w0))}): give the note's rule, learning rate and start by hand")
    agreed, params, words, visits = best
    claims = []
    for r, (line, w) in enumerate(ws):
        t = (r if before else r + 1) + 1  # the visit whose weights are the row's
        if visits is None or t <= visits:
            claims.append((line, "visit", f"t == {t}", w))
        elif t == visits + 1:  # the weights after the run's last visit: the run's end
            claims.append((line, "end", None, w))
    return Example(points, labels, params, claims, agreed, words), None


def _row_values(table: Table, xs, yc, wc, bc, names: dict):
    """((input, label) of each row, (line, weights) of each row, whether the weights hold the
    bias as their last coordinate), or why a row is not read.  An input cell may name a point."""
    seq, ws, sizes = [], [], set()
    for line, cells in table.rows:
        if max(xs + [yc] + wc + ([bc] if bc is not None else [])) >= len(cells):
            return f"line {line}: a row with fewer cells than the header"
        x = [v for j in xs for v in (numbers_of(cells[j]) or names.get(cells[j].strip("*`$ ")) or [None])]
        y = numbers_of(cells[yc])
        w = [v for j in wc for v in (numbers_of(cells[j]) or [None])]
        w = None if None in w else w
        b = numbers_of(cells[bc]) if bc is not None else []
        folded = bc is None and w is not None and len(w) == len(x) + 1  # w = (w_1, w_2, b): the bias folded in
        if None in x or not y or len(y) != 1 or y[0] not in (-1, 0, 1) or w is None or (len(w) != len(x) and not folded) \
                or b is None or len(b) > 1 or (bc is not None and not b):
            return f"line {line}: the input, label, weights or bias are not numbers of one size"
        w = w + b  # the bias is the last coordinate of the run's weights (augment = last)
        sizes.add(folded)
        seq.append((tuple(x), int(y[0])))
        ws.append((line, tuple(w)))
    if len(sizes) > 1:
        return "the weights are printed with the bias in some rows and without it in others"
    return seq, ws, sizes == {True}


def _best_rule(ds, ws, before, eta, w0, zero_one, bias):
    """(rows agreed from the first, Params, the rule in words, the run's visits or None when it
    does not converge) of the rule the learner agrees with on the most rows, or None when none
    agrees up to an update."""
    from perceptron import MemoryTrace, ParamError, Params, train
    from verify.corpus.runs import CORPUS_MAX_EPOCHS  # the epochs the audit runs the note's run for

    best = None
    for variant, sign0, form, words in RULES:
        if (form == "half") != zero_one:
            continue
        params = Params(variant=variant, order="cyclic", eta=eta, w0=w0, sign0=sign0, form=form,
                        augment="last" if bias else None, max_epochs=CORPUS_MAX_EPOCHS)
        rec = MemoryTrace()
        try:
            train(ds, params, rec)
        except ParamError:
            continue
        tr = rec.trace
        visits = len(tr.t)
        agreed = 0
        updated = False
        done = np.cumsum(np.asarray(tr.mistake, dtype=np.int64))  # updates made by the end of each visit
        for r, (_, w) in enumerate(ws):
            t = r if before else r + 1  # visits done when the row's weights are printed
            if t > visits:
                break
            u = int(done[t - 1]) if t else 0
            got = tuple(tr.weights_after(u - 1)[0]) if u else w0
            if tuple(Fraction(v) for v in got) != w:
                break
            agreed += 1
            updated = updated or u > 0
        if updated and (best is None or agreed > best[0]):
            best = (agreed, params, words, visits if tr.end.get("converged") else None)
    return best
