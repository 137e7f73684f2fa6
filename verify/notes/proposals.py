"""What a note's own sentences say about every run it speaks of: its initial weights, learning
rate, separability, inputs of norm 1, non-trivial data, a strict margin and its order, each
with the line it comes from; a claim is given only what the note has said by its line
(verify.notes.draft proposes them in its ``# review:`` comments)."""

from __future__ import annotations

import re

from verify.notes.note_run import bias_update
from verify.notes.reading import initial_weights
from verify.notes.source import Note, Statement
from verify.notes.worked_example import stated_starts
from verify.language.assumptions import ETA_LE_ONE, ETA_ONE, NONTRIVIAL, SEPARABLE, STRICT_MARGIN, UNIT_NORM, W0_ZERO

__all__ = ["Proposals", "proposals", "START_ZERO", "MAX_PROPOSAL_CHARS", "RUN_TIMES"]

#: The times at which a claim is about a run (its updates or its end).
RUN_TIMES = ("update", "end")

#: The algorithm's start said in words: "start from w = [0, 0]", "initialize w ← 0", "w is initialised to zero".
START_ZERO = re.compile(r"\b(?:start(?:s|ed|ing)? (?:from|with|at)|initiali[sz]e[sd]?|begin(?:s|ning)? (?:from|with)|"
                        r"(?<!\w )from)\s+"
                        r"(?:the weights?\s+|the weight vector\s+)?(?:w|θ|theta)\w{0,3}\s*(?:=|←|:=|to|at)\s*"
                        r"(?:0(?!\.?\d)|zero|\[0(?:\s*,\s*0)*\]|\(0(?:\s*,\s*0)*\)|𝟎)", re.I)
#: How much of a note its proposals are read from (a longer note is read to this point).
MAX_PROPOSAL_CHARS = 200_000
#: Names of the data's separator and margin: a claim that reads one is given the note's separability.
MARGIN_NAMES = {"gamma", "w_opt", "b_opt", "w_hat_opt", "v_opt", "c_opt", "m_opt"}


class Proposals:
    """What the note's own sentences say about every run: each proposal with the line it
    comes from, for the ``# review:`` comments."""

    def __init__(self):
        self.base = 0  # the note's index of the initial weights
        self.assume: dict = {}  # assumption -> the line and words it comes from
        self.order: str | None = None
        self.datasets: list = []  # the note's worked examples: [[dataset]] tables (verify.notes.worked_example)
        self.bias: tuple = (None, None)  # the note's bias update: (built-in variant or None, as written or None)
        self.written: list = []  # the note's data written out (verify.notes.written_data.note_data), read once
        self.starts: list = []  # (line, whether zero) of each start the note states (w₀ = 0, w₀ = (−1, 1), ...)

    def for_claim(self, names: set, when: str, line: int | None = None) -> list:
        """The assumptions proposed for a claim at ``line``: only what the note has said by then
        (a "(with η = 1)" further down is that later statement's hypothesis, not this one's)."""
        out = []
        if when in RUN_TIMES:
            for a in (W0_ZERO, ETA_ONE, ETA_LE_ONE):
                if self._said(a, line) and not (a == ETA_LE_ONE and ETA_ONE in out):  # η = 1 said by then: the narrower
                    out.append(a)
        if self._said(SEPARABLE, line) and (names & MARGIN_NAMES or "mistakes" in names):
            out.append(SEPARABLE)
        if self._said(UNIT_NORM, line) and when in RUN_TIMES:
            out.append(UNIT_NORM)
        if SEPARABLE in out:  # the note's own terms for its separable data
            out += [a for a in (NONTRIVIAL, STRICT_MARGIN) if self._said(a, line)
                    and (a == NONTRIVIAL or "gamma" in names)]
        return out

    def _said(self, a: str, line: int | None) -> bool:
        src = self.assume.get(a)
        m = re.match(r"line (\d+):", src or "")
        if a == W0_ZERO and (last := [zero for at, zero in self.starts if line is None or at <= line]) and not last[-1]:
            return False  # the start the note states last before it is another ("start from w₀ = (−1, 1)")
        return src is not None and (line is None or m is None or int(m.group(1)) <= line)

    def starts_elsewhere(self) -> bool:
        """Whether the note states a start other than w = 0 anywhere."""
        return any(not zero for _, zero in self.starts)


def proposals(note: Note, found: list[Statement], notation: dict | None = None) -> Proposals:
    """The assumptions the note states, read from its statements and sentences (its symbols
    through the notation table: a note's theta_1 = 0 is its w_1 = 0)."""
    p = Proposals()
    zeros = []  # the lines that start the weights at 0
    for s in found:
        index = s.math and initial_weights(s.math, notation)
        if index is not None:
            if index.isdigit():
                p.base = int(index)
            p.assume.setdefault(W0_ZERO, f"line {s.line}: {s.math.strip()[:40]}")
            zeros.append(s.line)
    text = note.text
    p.bias = bias_update(text)
    said = list(START_ZERO.finditer(text[:MAX_PROPOSAL_CHARS]))  # "start from w = [0, 0]", "initialise w ← 0" in words
    if said:
        p.assume.setdefault(W0_ZERO, f"line {_line(text, said[0].start())}: {said[0].group()[:40]}")
    # every start it states, in order: at 0 (read any of these ways), or elsewhere (w₀ = (−1, 1) as
    # written: a w_1 of a note that names no w_0 may be its first update's, and is no other start)
    zeros += [_line(text, m.start()) for m in said]
    starts = stated_starts(text, indexed_one=False)
    p.starts = sorted([(line, False) for line, v in starts if any(v)] + [(line, True) for line in zeros]
                      + [(line, True) for line, v in starts if not any(v)])
    if re.search(r"\bk\s*(?:\\leftarrow|\\gets|:=)\s*1\b", text):
        p.base = 1  # "k <- 1; w_k <- 0": the first iterate is w_1
    # η = 1 as the note's setting, not a hypothesis of one statement ("with η = 1 it is the same bound")
    eta = next((m for m in re.finditer(r"(\\eta|η)\s*=\s*1(?![\d./]|\s*/)", text) if not _states_more(text, m)), None)
    if eta:
        p.assume[ETA_ONE] = f"line {_line(text, eta.start())}: {eta.group()}"
    if m := re.search(r"0\s*<\s*(\\eta|η)\s*(<|\\le|\\leq|≤)", text):
        p.assume[ETA_LE_ONE] = f"line {_line(text, m.start())}: {m.group()}..."
    if not eta and not m and not re.search(r"\\eta|η|learning rate|step size", text, re.I):
        p.assume[ETA_ONE] = "the note has no learning rate"
    sep = re.search(r"linearly separable|separable|separates (them|the data|the points|the classes)", text, re.I)
    if sep:
        p.assume[SEPARABLE] = f"line {_line(text, sep.start())}: {sep.group()}"
    unit = re.search(r"\\\|\s*(?:\\mathbf\{x\}|\\vec\{x\}|\\boldsymbol\{x\}|x)(?:_\{?i\}?)?\s*\\\|(?:_\{?2\}?)?\s*=\s*1(?![\d.])|"
                     r"‖\s*xᵢ?\s*‖\s*=\s*1(?![\d.])|unit[- ]norm inputs|normali[sz]ed to unit|each (?:data )?(?:vector|point|"
                     r"input) is a unit vector", text[:MAX_PROPOSAL_CHARS], re.I)
    if unit:
        p.assume[UNIT_NORM] = f"line {_line(text, unit.start())}: {unit.group()[:40]}"
    trivial = re.search(r"non-?trivial|not all (?:\$?\\?\w{1,8}\$? )?(?:points |inputs |examples )?have the same label|"
                        r"both labels (?:occur|appear)", text[:MAX_PROPOSAL_CHARS], re.I)
    if trivial:
        p.assume[NONTRIVIAL] = f"line {_line(text, trivial.start())}: {trivial.group()[:40]}"
    # the margin assumed strictly ("y_i w*.x_i > γ for all i"): gamma is then below every point's margin
    strict = re.search(r"y_\{?i\}?[^$\n]{0,80}?(?<![\\\w=<>])>(?!=)\s*(\\gamma|γ)", text[:MAX_PROPOSAL_CHARS])
    if strict:
        p.assume[STRICT_MARGIN] = f"line {_line(text, strict.start())}: {strict.group()[:40]}"
    order = re.search(r"cycl\w*|over and over|in (?:a fixed|the same) order|in turn", text, re.I)
    if order:
        p.order = f"line {_line(text, order.start())}: {order.group()}"
    return p


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _states_more(text: str, m) -> bool:
    """Whether the sentence around the match ``m`` states something beside it (a relation or a
    bound: then the match is that statement's hypothesis, not the note's setting)."""
    start, end = max(0, m.start() - 300), m.end() + 300  # a sentence's reach: bounded, so many matches stay linear
    # a sentence ends at ". ", ".\n" or a blank line, a list item ("\n- ") is one of its own, and a
    # clause after ";" or ": " says something else ("take η = 1: a mistake means y w·x ≤ 0")
    ends = (". ", ".\n", "\n\n", "\n- ", "\n* ", ";", ": ")
    lo = max([text.rfind(e, start, m.start()) for e in ends] + [start - 1])
    hi = [i for i in (text.find(e, m.end(), end) for e in ends) if i >= 0]
    sentence = text[lo + 1:min(hi + [end])]
    rest = sentence.replace(m.group(), " ", 1)
    return bool(re.search(r"[≤≥<>]|\\le|\\ge|\\leq|\\geq|\bbound\b|\bat most\b|\bsame\b", rest))
