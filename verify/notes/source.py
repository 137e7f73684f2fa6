"""A lecture note read as the drafter and the annotated view see it: its statements, each
with its line, section and anchor.

Markdown (``.md``, ``.markdown``, ``.txt``) is read with markdown-it-py and the dollarmath
plugin, which give every block its source lines and every ``$...$``/``$$...$$`` its math;
LaTeX (``.tex``) with pylatexenc's walker (environments, ``\\[...\\]``, ``$...$``, ``\\section``,
``\\label``).  A statement is a displayed relation, an inline relation (one of ``= < > ≤ ≥ ≠``),
or a numbered statement (a bold label such as ``**(9.1)**`` or ``**Theorem 2.**``, a
theorem/lemma/proposition environment) with the first relation in it.  Notes are untrusted:
their size is bounded (MAX_NOTE_BYTES) and nothing in them is run.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass

from perceptron.errors import InputError
from perceptron.limits import read_bytes

__all__ = ["Note", "Statement", "read_note", "statements", "markdown_parser", "is_relation", "delimited", "DISPLAY_ENVS", "THEOREMS", "MAX_NOTE_BYTES", "MAX_STATEMENTS", "MAX_TEXT_RUN", "slug",
           "tied_runs"]

#: Bytes of one note: a long lecture note is 100 KB of text.
MAX_NOTE_BYTES = 2 << 20
#: Statements drafted from one note (each becomes a claim; claims.MAX_CLAIMS bounds a file).
MAX_STATEMENTS = 1500
#: Characters of a LaTeX note's text with no command, brace, math or other special between them:
#: pylatexenc reads such a run in time quadratic in its length (a 1.8 MB run took 75 s), so a
#: longer run is broken at a space made a tie (~, a space in LaTeX too) every this many characters.
MAX_TEXT_RUN = 5_000
_PLAIN_RUN = re.compile(r"[^\\{}$%&~^_#]{" + str(MAX_TEXT_RUN) + ",}")


def tied_runs(text: str, path: str) -> str:
    """``text`` (a LaTeX note) with every run of more than MAX_TEXT_RUN plain characters broken by a
    tie at a space (the same length and lines, the same text as LaTeX reads it); InputError naming
    the line of a run with no space to break at."""
    chars = None
    for m in _PLAIN_RUN.finditer(text):
        pos = m.start()
        while m.end() - pos > MAX_TEXT_RUN:
            cut = text.rfind(" ", pos + 1, pos + MAX_TEXT_RUN)
            if cut < 0:
                raise InputError(path, f"line {text.count(chr(10), 0, pos + 1) + 1}: more than {MAX_TEXT_RUN} characters with "
                                       "no space, command or brace (verify.notes.source.MAX_TEXT_RUN): not read as LaTeX")
            chars = chars if chars is not None else list(text)
            chars[cut] = "~"
            pos = cut
    return text if chars is None else "".join(chars)

_REL = re.compile(r"(?<![\\a-zA-Z])(?:=|<|>|\\le(?:q|qslant)?(?![a-zA-Z])|\\ge(?:q|qslant)?(?![a-zA-Z])|\\neq?(?![a-zA-Z])|"
                  r"\\leftarrow|\\gets|≤|≥|≠|:=)")
_LABEL = re.compile(r"\*\*\s*(\(?\s*(?:Theorem|Lemma|Proposition|Corollary|Claim|Remark|Definition|Fact)?\s*"
                    r"[0-9]+(?:\.[0-9]+)*[a-z]?\s*\)?|(?:Theorem|Lemma|Proposition|Corollary|Claim)[^*]{0,40})\s*\.?\s*\*\*")
THEOREMS = ("theorem", "lemma", "proposition", "corollary", "claim", "remark", "fact", "definition")
DISPLAY_ENVS = ("equation", "equation*", "align", "align*", "displaymath", "eqnarray", "eqnarray*", "gather",
                 "gather*", "multline", "multline*")


@dataclass
class Note:
    path: str
    text: str
    kind: str  # "markdown" | "latex"
    title: str


@dataclass
class Statement:
    line: int
    section: str
    text: str  # the statement as written (its sentence, or the displayed math)
    math: str | None  # the LaTeX of its relation (None: a numbered statement without one)
    display: bool
    label: str | None = None  # the note's own label (thm:novikoff, 9.1)
    context: str = ""  # the prose around it (the sentence before a displayed relation)
    end_line: int | None = None
    code: bool = False  # a line of a code block (pseudo-code, worked arithmetic)

    @property
    def anchor(self) -> str:
        return slug(self.label) if self.label else f"L{self.line}"


def slug(text: str) -> str:
    """A URL fragment of letters, digits, '-', '_', '.' for a label or heading."""
    s = re.sub(r"[^A-Za-z0-9_.\-]+", "-", text.strip()).strip("-.")
    return s[:120] or "x"


def read_note(path: str) -> Note:
    """The note at ``path``, read as UTF-8 within MAX_NOTE_BYTES; one InputError otherwise."""
    raw = read_bytes(path, MAX_NOTE_BYTES, "note")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(path, f"not UTF-8 text (byte {e.start}); a note must be Markdown or LaTeX in UTF-8") from None
    if "\0" in text:
        raise InputError(path, "a NUL byte: a note must be text")
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")  # a BOM is not the title
    kind = "latex" if os.path.splitext(path)[1].lower() in (".tex", ".latex", ".ltx") else "markdown"
    return Note(path, text, kind, _title(text, kind))


def _title(text, kind) -> str:
    if kind == "latex":
        m = re.search(r"\\title\{([^{}]{1,200})\}", text)
        return m.group(1).strip() if m else ""
    front = re.match(r"---\n(.*?)\n---\n", text, re.S)  # YAML front matter: its title, then the body
    if front:
        m = re.search(r"^title:\s*['\"]?(.+?)['\"]?\s*$", front.group(1), re.M)
        if m:
            return m.group(1)[:200]
        text = text[front.end():]
    for line in text.splitlines():
        s = line.strip().lstrip("#").strip()
        if re.search(r"\w", s):
            return s[:200]
    return ""


def statements(note: Note) -> list[Statement]:
    """Every statement of the note in the order of its lines (at most MAX_STATEMENTS)."""
    found = _markdown(note) if note.kind == "markdown" else _latex(note)
    found.sort(key=lambda s: s.line)
    if len(found) > MAX_STATEMENTS:
        _too_many(note.path)
    return found


def _too_many(path):
    raise InputError(path, f"more than {MAX_STATEMENTS} statements; a note may have at most {MAX_STATEMENTS} "
                           "(verify.notes.source.MAX_STATEMENTS)")


def is_relation(math: str) -> bool:
    return bool(_REL.search(math))


# ------------------------------------------------------------------------------- Markdown

def markdown_parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    return MarkdownIt("commonmark").use(dollarmath_plugin, allow_space=True, double_inline=True)


def _is_heading_line(s: str) -> bool:
    """A plain-text heading (notes converted from PDF have no ``#``): a short line with no
    math and no final punctuation, such as "4.1 Bound for numerator" or "Lemma 1"."""
    return (0 < len(s) <= 70 and "$" not in s and "\\" not in s and not s.endswith((".", ",", ":", ";"))
            and (s[0].isupper() or s[0].isdigit()) and len(s.split()) <= 9 and not re.search(r"[=<>≤≥]", s))


def _markdown(note: Note) -> list[Statement]:
    md = markdown_parser()
    lines = note.text.split("\n")
    toks = md.parse(note.text)
    out, section = [], ""
    # a note with Markdown headings has its sections there; one converted from a PDF has none,
    # and its short standalone lines ("4.1 Bound for numerator") are taken as headings
    plain_headings = not any(t.type == "heading_open" for t in toks)
    j = 0
    while j < len(toks) and len(out) <= MAX_STATEMENTS:
        t = toks[j]
        if t.type == "heading_open":
            section = toks[j + 1].content.strip()
            j += 3
            continue
        if t.type == "inline" and t.map:
            src = t.content.strip()
            if plain_headings and "\n" not in src and _is_heading_line(src) and toks[j - 1].type == "paragraph_open":
                section = src
                j += 1
                continue
            _inline_statements(t, lines, section, out, _previous_prose(toks, j))
        elif t.type in ("fence", "code_block") and t.map:
            _code_statements(t, section, out)
        elif t.type in ("math_block", "math_block_label") and t.map:
            prev = _previous_prose(toks, j)
            label = t.info.strip() if t.type == "math_block_label" else None
            out.append(Statement(t.map[0] + 1, section, t.content.strip(), t.content.strip(), True, label=label,
                                 context=prev, end_line=t.map[1]))
        j += 1
    return out if len(out) > MAX_STATEMENTS else out + _raw_displays(note.text, out)



def delimited(text: str, openers, envs=()) -> list[tuple[int, int, str, str]]:
    """(start, end, opener, inner) of every delimited span of ``text`` in order, not nested:
    ``openers`` are (open, close) literals (``("$$", "$$")``, ``("\\[", "\\]")``); ``envs`` are
    environment names (``\\begin{NAME}`` ... ``\\end{NAME}``).  Linear in the text: a kind of
    opener whose closer is missing after some position is not looked for again (a note with
    thousands of unclosed ``\\[`` costs one pass, not one per opener)."""
    out, pos, dead = [], 0, set()
    kinds = [(op, cl, True) for op, cl in openers] + [("\\begin{" + n + "}", "\\end{" + n + "}", False) for n in envs]
    ahead: dict = {}  # opener -> its next position at or after the last search (-1: none left)

    def next_of(op):
        if op in dead:
            return -1
        i = ahead.get(op)
        if i is None or (0 <= i < pos):
            i = ahead[op] = text.find(op, pos)
        return i

    while True:
        best = None
        for op, cl, literal in kinds:
            i = next_of(op)
            if i >= 0 and (best is None or i < best[0] or (literal and i == best[0] and len(op) > len(best[1]))):
                best = (i, op, cl)
        if best is None:
            return out
        i, op, cl = best
        j = text.find(cl, i + len(op))
        if j < 0:
            dead.add(op)
            pos = i + len(op)
            continue
        out.append((i, j + len(cl), op, text[i + len(op):j]))
        pos = j + len(cl)


def _raw_displays(text: str, found: list) -> list[Statement]:
    """LaTeX displays written in a Markdown note outside ``$$`` (``\\[...\\]``, ``align*``), which
    CommonMark reads as text: each is a displayed statement at its line."""
    taken = {s.line for s in found}
    by_line = sorted(found, key=lambda s: s.line)
    starts = [s.line for s in by_line]
    line_of = line_index(text)
    out = []
    for start, end, op, body in delimited(text, [("\\[", "\\]")], DISPLAY_ENVS):
        line = line_of(start)
        if line in taken or text[max(0, start - 2):start].endswith("$"):
            continue
        if len(out) > MAX_STATEMENTS:
            break  # statements() refuses the note: no need to find the rest
        math = "\\begin{aligned}" + body + "\\end{aligned}" if op.startswith(("\\begin{align", "\\begin{eqnarray")) else body
        k = bisect.bisect_right(starts, line)
        section = by_line[k - 1].section if k else ""
        out.append(Statement(line, section, text[start:end].strip()[:600], math.strip(), True,
                             context=text[max(0, start - 300):start], end_line=line_of(end)))
    return out


def line_index(text: str):
    """``line_of(pos)``: the 1-based line of a character offset of ``text``, by bisection over
    the line starts counted once (a note's spans are many: recounting from the start for each
    is quadratic)."""
    starts = [m.end() for m in re.finditer("\n", text)]
    return lambda pos: bisect.bisect_right(starts, pos) + 1


def _code_statements(t, section, out) -> None:
    """A code block's statements: the pseudo-code and worked arithmetic that notes write there.
    Each line's ``$...$`` relations, or, in a line without ``$``, its Unicode math (``k ≤ R²/γ²``,
    ``w ← w + η × y × x``) read as LaTeX (verify.notes.unicode_math)."""
    from verify.notes.unicode_math import MATH_WORDS, has_unicode_math, prose_spans, to_latex

    first = t.map[0] + (2 if t.type == "fence" else 1)  # a fence's content starts a line after it
    for j, text, end in continued(t.content.split("\n")):
        if len(out) > MAX_STATEMENTS:
            return
        if "$" in text:
            for _, _, _, math in delimited(text, [("$", "$")]):
                if is_relation(math):
                    out.append(Statement(first + j, section, text[:400], math.strip(), False, context=text[:300]))
        elif has_unicode_math(text):
            # a line of pseudo-code with words ("pick any i with yᵢ w·xᵢ ≤ 0"): its relations; else the line itself
            spans = [to_latex(span) for _, span in prose_spans(text[:2000])] if re.search(r"[A-Za-z]{3,}", re.sub(
                r"\b(" + "|".join(MATH_WORDS) + r")\b", "", text)) else []
            for math in spans or [to_latex(text[:2000])]:  # a line of math is short
                if is_relation(math):
                    out.append(Statement(first + j, section, text[:400], math[:600], False, context=text[:300],
                                         end_line=first + end, code=True))


#: A line of math that continues the one above: it opens with a relation ("    ≤ ‖w_k‖² + R²"),
#: or the line above ends with an operator ("‖w_k + y x‖² =").
_OPENS = re.compile(r"\s*(=|≤|≥|<|>|≠|≈|<=|>=|\\le|\\ge|\\leq|\\geq|\\approx|\\neq)(?![A-Za-z=])")
_ENDS = re.compile(r"(=|≤|≥|<|>|≠|≈|\+|−|-|·|×|\\cdot|\\times|\\le|\\ge|\\leq|\\geq)\s*$")
#: Lines of a code block joined into one statement at most (a derivation set over a few lines).
MAX_CONTINUED = 8


def continued(lines: list) -> list:
    """(index of the first line, the statement's text, index of its last line) of each logical
    line of a code block: a line that continues the one above is joined to it (at most
    MAX_CONTINUED lines), so a derivation written over several lines is one statement."""
    out = []
    for j, line in enumerate(lines):
        text = line.strip()
        if out and text and out[-1][2] == j - 1 and j - out[-1][0] < MAX_CONTINUED and (
                _OPENS.match(text) or _ENDS.search(out[-1][1])) and len(out[-1][1]) < 2000:
            out[-1] = (out[-1][0], out[-1][1] + " " + text, j)
        else:
            out.append((j, text, j))
    return out


def _previous_prose(toks, j) -> str:
    for k in range(j - 1, max(j - 6, -1), -1):
        if toks[k].type == "inline":
            return toks[k].content[-300:]
    return ""


def _inline_statements(t, lines, section, out, before=""):
    """The inline relations of one paragraph, and its bold label if it has one."""
    first = t.map[0]
    para = "\n".join(lines[t.map[0]:t.map[1]])
    label = None
    m = _LABEL.match(re.sub(r"\s+", " ", t.content.strip()[:200]))  # bounded and single-spaced: no backtracking
    if m:
        label = m.group(1).strip().strip("()").strip()
    children = t.children or []
    pos = cpos = 0  # where the next span is looked for: in the source lines, in the paragraph's text
    line_of = line_index(para)
    text = t.content
    text_line = line_index(text)  # a line of the paragraph's text, by bisection (built once)
    found = []
    for c in children:
        if c.type != "math_inline" and c.type != "math_inline_double":
            continue
        if len(out) + len(found) > MAX_STATEMENTS:
            break  # statements() refuses the note: no need to find the rest
        at = para.find(c.content, pos)
        line = first + (line_of(at) if at >= 0 else 1)
        if at >= 0:
            pos = at + len(c.content)
        at_c = text.find(c.content, cpos)
        at_c = at_c if at_c >= 0 else text.find(c.content)
        opens = cpos == 0  # no math before this span yet
        cpos = max(cpos, at_c + len(c.content)) if at_c >= 0 else cpos
        display = c.type == "math_inline_double"  # $$...$$ inside a paragraph (no blank line before it)
        if is_relation(c.content) or display:
            sentence = _sentence(text, max(at_c, 0), len(c.content))
            lead = text[max(0, at_c - _WINDOW):max(0, at_c)]
            # the paragraph opens with it: the prose before leads in
            opening = opens and at_c <= _WINDOW and not re.sub(r"\*\*[^*]*\*\*|[\s$]", "", lead)
            # a display reads, like one set apart, after the prose that leads to it ("... is at most $$B$$")
            context = lead.rstrip(" \n$")[-300:] if display and not opening else sentence
            found.append(Statement(line, section, sentence, c.content.strip(), display,
                                   context=(before[-200:] + " " if opening else "") + context))
    for at, _, _, math in delimited(text, [("\\(", "\\)")]):  # \( ... \) (CommonMark reads it as text)
        if is_relation(math) and len(out) + len(found) <= MAX_STATEMENTS:
            line_in = text_line(at)
            found.append(Statement(first + line_in, section, _sentence(text, at, len(math) + 4), math.strip(), False,
                                   context=_sentence(text, at, len(math) + 4)))
    if not children_math(children) and "\\(" not in text:  # prose with Unicode math: "every ‖xᵢ‖ ≤ R"
        _prose_statements(text, first, section, found, MAX_STATEMENTS - len(out))
    bound = bound_match(text)
    if bound and not any(bound.group(1).strip("$ ").removeprefix("\\(").removesuffix("\\)").strip() in (f.math or "")
                         for f in found):  # "makes at most $R^2/\gamma^2$ mistakes", "at most R²/γ² mistakes"
        if bound and (math := bound_phrase(bound.group())):
            at = bound.start()
            found.append(Statement(first + text_line(at), section, _sentence(text, at, len(bound.group())), math,
                                   False, context=_sentence(text, at, len(bound.group()))))
    for m in _WORDED_RELATION.finditer(text[:_WINDOW]):  # "$A$ is at least $B$": a relation said in words
        a, b = (x.strip("$").removeprefix("\\(").removesuffix("\\)").strip() for x in (m.group(1), m.group(3)))
        if not is_relation(a) and not is_relation(b) and len(out) + len(found) <= MAX_STATEMENTS:
            sentence = _sentence(text, m.start(), len(m.group()))
            found.append(Statement(first + text_line(m.start()), section, sentence,
                                   f"{a} {_WORDED_OPS[m.group(2).lower()]} {b}", False, context=sentence))
    if not found and len(out) <= MAX_STATEMENTS:  # "‖w‖ never decreases": a statement in words, with math
        _worded_statements(text, first, line_of_text=text_line, section=section, found=found)
    if label:
        if found:
            found[0].label = label
        else:
            found.append(Statement(first + 1, section, t.content.strip()[:400], None, False, label=label,
                                   context=t.content[:400]))
    out.extend(found)


#: A bound said in words around its math: "at most $R^2/\gamma^2$ mistakes", "no more than (R/γ)² updates".
_BOUND_PHRASE = re.compile(r"\b(?:at most|no more than|not more than)\s+(\$[^$\n]{1,200}\$|[^\s.,;:][^.,;:\n]{0,80}?)\s+"
                           r"(?:mistakes|updates|errors|corrections|misclassifications)\b", re.I)


#: The same, the count first: "the number of mistakes is at most \\(R/\\gamma\\)".
_COUNT_BOUND = re.compile(r"\b(?:mistakes|updates|errors|corrections|misclassifications)\s+(?:it makes\s+|made\s+)?"
                          r"(?:is|are)\s+(?:at most|no more than|not more than|bounded by)\s+"
                          r"(\$[^$\n]{1,200}\$|\\\([^\n]{1,200}?\\\)|[^\s.,;:][^\s,;:]{0,80})", re.I)


def bound_match(text: str):
    """The first bound a paragraph states in words (either phrasing), or None."""
    found = [m for m in (_BOUND_PHRASE.search(text[:_WINDOW]), _COUNT_BOUND.search(text[:_WINDOW])) if m]
    return min(found, key=lambda m: m.start()) if found else None


def bound_phrase(text: str) -> str | None:
    """The bound a sentence states in words, as a relation on the mistakes ("k \\le B"), or None
    when it states none (or its B is not math)."""
    m = bound_match(text)
    if not m:
        return None
    from verify.notes.unicode_math import has_unicode_math, to_latex

    bound = m.group(1).strip().rstrip(".")
    if bound.startswith("$"):
        bound = bound.strip("$")
    elif bound.startswith("\\(") and bound.endswith("\\)"):
        bound = bound[2:-2]
    elif has_unicode_math(bound) or re.fullmatch(r"[A-Za-z0-9^_{}()/*+\s\\-]{1,80}", bound):
        bound = to_latex(bound)
    else:
        return None
    if is_relation(bound) or not re.search(r"[A-Za-z0-9]", bound) or re.search(r"[A-Za-z]{2,}", re.sub(r"\\[A-Za-z]+", "", bound)):
        return None  # a relation is read as written; words are not a bound
    return "k \\le " + bound


#: What a sentence asserts in words ("never decreases", "needs four times as many updates").
WORDED = re.compile(r"\b(never|always|every|each|at most|at least|increases?|decreases?|grows?|shrinks?|changes?|"
                    r"converges?|stops?|halts?|doubles?|halves|times as many|as many|needs?|depends?|bounded)\b", re.I)
#: Math written in a sentence without a relation: a symbol, a norm, a Greek letter, a power.
_MATHY = re.compile(r"[‖ηγ²³ᵢₖ·×√Σ∑]|\$[^$\n]{1,200}\$|\\\(")


#: Two spans of math joined by a comparison in words: "$m$, is at least $\\gamma$".
_WORDED_RELATION = re.compile(r"(\$[^$\n]{1,200}\$|\\\((?:(?!\\[()])[^\n]){1,200}\\\))\s*,?\s*(?:is|are|stays|remains)\s+"
                              r"(at least|at most|no more than|no less than|greater than or equal to|"
                              r"less than or equal to|greater than|less than|bigger than|smaller than|equal to)\s+"
                              r"(\$[^$\n]{1,200}\$|\\\((?:(?!\\[()])[^\n]){1,200}\\\))", re.I)
_WORDED_OPS = {"at least": "\\ge", "no less than": "\\ge", "greater than or equal to": "\\ge", "at most": "\\le",
               "no more than": "\\le", "less than or equal to": "\\le", "greater than": ">", "bigger than": ">",
               "less than": "<", "smaller than": "<", "equal to": "="}


def _worded_statements(text: str, first: int, line_of_text, section: str, found: list) -> None:
    """Each sentence of a paragraph that asserts something in words about math it writes (and
    holds no relation the drafter reads): a statement with no relation, so that the page counts
    it and says no claim reads it, rather than not seeing it."""
    for m in re.finditer(r"[^.!?\n][^.!?]{0,600}[.!?]", text[:_WINDOW]):
        sentence = m.group().strip()
        if WORDED.search(sentence) and _MATHY.search(sentence):
            found.append(Statement(first + line_of_text(m.start()), section, sentence[:400], None, False,
                                   context=sentence[:400]))


def children_math(children) -> bool:
    """Whether a paragraph's inline tokens hold math ($...$ or $$...$$)."""
    return any(c.type in ("math_inline", "math_inline_double") for c in children)


def _prose_statements(text: str, first: int, section: str, found: list, room: int) -> None:
    """The relations a paragraph writes in Unicode math outside any delimiter
    (verify.notes.unicode_math.prose_spans), read as LaTeX."""
    from verify.notes.unicode_math import prose_spans, to_latex

    line_of = line_index(text)
    for at, span in prose_spans(text):
        if len(found) > room:
            return
        math = to_latex(span)
        if is_relation(math):
            sentence = _sentence(text, at, len(span))
            found.append(Statement(first + line_of(at), section, sentence, math, False, context=sentence))


#: How far around a span of math its sentence is looked for (a sentence is shorter; looking
#: further, span after span, makes a long paragraph of math quadratic).
_WINDOW = 2000


def _sentence(text: str, at: int, length: int) -> str:
    """The sentence of a paragraph that holds the span of math at ``at``."""
    lo = max(0, at - _WINDOW)
    start = max(text.rfind(". ", lo, at), text.rfind("\n\n", lo, at))
    start = start + 1 if start >= 0 else lo
    end = text.find(". ", at + length, at + length + _WINDOW)
    return text[start: end + 1 if end >= 0 else min(len(text), start + 2 * _WINDOW)].strip()[:400]


# ------------------------------------------------------------------------------- LaTeX

#: Nesting of environments and groups followed in a LaTeX note.
MAX_LATEX_DEPTH = 60


def _latex(note: Note) -> list[Statement]:
    from pylatexenc.latexwalker import (LatexEnvironmentNode, LatexMacroNode, LatexMathNode, LatexWalker,
                                        LatexWalkerError)

    text = note.text
    tied = tied_runs(text, note.path)  # its own error names the note once
    try:
        nodes, _, _ = LatexWalker(tied, tolerant_parsing=True).get_latex_nodes()
    except (LatexWalkerError, RecursionError, IndexError, ValueError) as e:
        raise InputError(note.path, f"cannot read this LaTeX: {str(e).splitlines()[0][:200]}") from None
    out, state = [], {"section": "", "theorem": None}

    line_of = line_index(text)

    def label_in(node):
        for n in getattr(node, "nodelist", None) or []:
            if isinstance(n, LatexMacroNode) and n.macroname == "label" and n.nodeargd and n.nodeargd.argnlist:
                arg = n.nodeargd.argnlist[-1]
                if arg is not None:
                    return arg.latex_verbatim().strip("{}").strip()
        return None

    def walk(ns, depth):
        if depth > MAX_LATEX_DEPTH:
            raise InputError(note.path, f"environments nested deeper than {MAX_LATEX_DEPTH}")
        for n in ns or []:
            if len(out) > MAX_STATEMENTS:
                _too_many(note.path)
            if n is None:
                continue
            if isinstance(n, LatexMacroNode) and n.macroname in ("section", "subsection", "subsubsection", "chapter"):
                args = n.nodeargd.argnlist if n.nodeargd else []
                if args and args[-1] is not None:
                    state["section"] = args[-1].latex_verbatim().strip("{}").strip()
            elif isinstance(n, LatexMathNode):
                math = "".join(x.latex_verbatim() for x in n.nodelist or [])
                display = n.displaytype == "display"
                if display or is_relation(math):
                    before = text[max(0, n.pos - 300):n.pos]
                    out.append(Statement(line_of(n.pos), state["section"], n.latex_verbatim().strip(), math.strip(),
                                         display, label=label_in(n), context=before,
                                         end_line=line_of(n.pos + n.len)))
            elif isinstance(n, LatexEnvironmentNode):
                env = n.environmentname
                if env in DISPLAY_ENVS:
                    math = "".join(x.latex_verbatim() for x in n.nodelist or [] if not (
                        isinstance(x, LatexMacroNode) and x.macroname in ("label", "nonumber", "notag")))
                    math = "\\begin{aligned}" + math + "\\end{aligned}" if env.startswith(("align", "eqnarray")) else math
                    out.append(Statement(line_of(n.pos), state["section"], n.latex_verbatim().strip()[:600], math.strip(),
                                         True, label=label_in(n), context=text[max(0, n.pos - 300):n.pos],
                                         end_line=line_of(n.pos + n.len)))
                elif env in THEOREMS:
                    before = len(out)
                    walk(n.nodelist, depth + 1)
                    label = label_in(n) or None
                    body = n.latex_verbatim()
                    bound = bound_phrase(body)
                    if len(out) > before and bound and not any(s.math == bound for s in out[before:]):
                        # "with $\eta = 1/2$, the number of mistakes is at most $B$": the bound is its claim
                        at = n.pos + bound_match(body).start()  # the line its words are on
                        out.append(Statement(line_of(at), state["section"], _latex_text(body)[:400], bound, False,
                                             context=body[:400], end_line=line_of(n.pos + n.len)))
                    if len(out) > before:
                        out[before].label = out[before].label or label
                        out[before].text = _latex_text(body)[:400]
                    else:
                        out.append(Statement(line_of(n.pos), state["section"], _latex_text(body)[:400],
                                             bound_phrase(body), False, label=label, context=body[:400],
                                             end_line=line_of(n.pos + n.len)))
                else:
                    walk(n.nodelist, depth + 1)
            elif getattr(n, "nodelist", None):
                walk(n.nodelist, depth + 1)

    walk(nodes, 0)
    return out


def _latex_text(src: str) -> str:
    """LaTeX as readable text (its math kept as written)."""
    src = re.sub(r"\\(begin|end)\{\w+\*?\}(\[[^\]]*\])?|\\label\{[^}]*\}", " ", src)
    return re.sub(r"\s+", " ", src).strip()
