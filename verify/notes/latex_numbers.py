"""The numbers a LaTeX note's theorems, sections and equations get when it is typeset, read from
its own declarations, so the annotated page shows "Lemma 3.2" where the PDF does and a
``\\ref{lem:norm}`` as that number:

- ``\\newtheorem{lemma}[theorem]{Lemma}`` shares the counter of ``theorem``;
- ``\\newtheorem{theorem}{Theorem}[section]`` numbers within sections ("3.1"), its counter reset
  at each section;
- ``\\newtheorem*{remark}{Remark}`` is not numbered;
- with no declaration, each of the usual environments (theorem, lemma, ...) has its own counter;
- an equation (``equation``, not starred) is numbered in turn, within sections after
  ``\\numberwithin{equation}{section}``; a label is the number of what it sits in.

A reference to a label the note never sets is "??", as LaTeX prints it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verify.notes.source import THEOREMS

__all__ = ["Numbering", "numbering", "with_refs", "headed_env", "MAX_LABELS"]

#: Sections, numbered environments and labels read from one note (a lecture note has tens).
MAX_LABELS = 2000

_DECL = re.compile(r"\\newtheorem(\*?)\s*+\{(\w{1,40})\}\s*+(?:\[(\w{1,40})\]\s*+)?\{([^{}\n]{0,80})\}\s*+(?:\[(\w{1,40})\])?")
_WITHIN = re.compile(r"\\numberwithin\s*\{equation\}\s*\{(section|subsection)\}")
_EVENT = re.compile(r"\\((?:sub){0,2})section(\*?)\s*\{|\\begin\{(\w{1,40})(\*?)\}|\\label\{([^{}\n]{1,100})\}")
_REF = re.compile(r"~?\\(?:ref|eqref|autoref|cref|Cref)\s*\{([^{}\n]{1,100})\}")
_WITHIN_LEVEL = {"section": 0, "subsection": 1}
#: Environments the page shows with a header whatever the note declares (verify.notes.annotate).
_SHOWN = THEOREMS + ("example", "proof")
_DEFAULT = THEOREMS + ("example",)


@dataclass
class Numbering:
    titles: dict = field(default_factory=dict)  #: environment -> its header ("Lemma"); None: not numbered
    at_line: dict = field(default_factory=dict)  #: 1-based line of a \begin{env} -> its number ("3.2")
    labels: dict = field(default_factory=dict)  #: label -> the number it refers to
    headed: re.Pattern | None = None  #: an environment shown with a header, at a block's start (built once)


def numbering(text: str) -> Numbering:
    """The numbers of ``text`` (a whole LaTeX note), as it would be typeset."""
    out = Numbering()
    owner, within = {}, {}
    for m in _DECL.finditer(text[:200_000]):
        star, name, shared, title, sec = m.groups()
        out.titles[name] = None if star else title.strip() or name.capitalize()
        owner[name] = shared or name
        if sec:
            within[name] = sec
    if not out.titles:
        out.titles = {name: name.capitalize() for name in _DEFAULT}
        owner = {name: name for name in _DEFAULT}
    out.headed = headed_env(tuple(_SHOWN) + tuple(out.titles))
    eq_within = (_WITHIN.search(text[:200_000]) or [None, None])[1]
    sections, counts, last, line, at = [0, 0, 0], {}, None, 1, 0
    body, events = text.find("\\begin{document}"), 0
    for m in _EVENT.finditer(text, max(body, 0)):
        level, sec_star, env, env_star, label = m.groups()
        events += 1
        if events > MAX_LABELS:  # sections, theorems and labels: each walks the counters
            break
        if level is not None:  # \section, \subsection, \subsubsection
            if sec_star:
                continue
            depth = len(level) // 3
            sections[depth] += 1
            sections[depth + 1:] = [0] * (2 - depth)
            for key in list(counts):  # counters numbered within this level (or a deeper one) restart
                if _WITHIN_LEVEL.get(eq_within if key == "equation" else within.get(key), -1) >= depth:
                    counts[key] = 0
            last = ".".join(str(x) for x in sections[:depth + 1])
        elif env is not None:
            numbered = env == "equation" or out.titles.get(env) is not None
            if env_star or not numbered:
                continue
            key = "equation" if env == "equation" else owner[env]
            counts[key] = counts.get(key, 0) + 1
            prefix = eq_within if key == "equation" else within.get(key)
            last = (".".join(str(x) for x in sections[:_WITHIN_LEVEL[prefix] + 1]) + "." if prefix else "") + str(counts[key])
            if env != "equation":
                line, at = line + text.count("\n", at, m.start()), m.start()  # counted on from the last one
                out.at_line[line] = last
        elif last is not None:
            out.labels[label] = last
    return out


def headed_env(names) -> re.Pattern:
    """``\\begin{name}`` (starred or not, with an optional ``[title]``) of one of ``names`` at a
    block's start; the longest name first."""
    alternatives = "|".join(map(re.escape, sorted(set(names), key=len, reverse=True)))
    return re.compile(r"\s*\\begin\{(" + alternatives + r")(\*?)\}(?:\[([^\]]{0,200})\])?")


def with_refs(src: str, labels: dict) -> str:
    """``src`` with each ``\\ref{label}`` (``\\eqref``, ``\\autoref``, ``\\cref``) as the number the
    label refers to ("??" for one the note never sets), a ``~`` before it as a space."""
    return _REF.sub(lambda m: (" " if m.group().startswith("~") else "") + labels.get(m.group(1), "??"), src)
