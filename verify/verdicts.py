"""Verdicts and findings: ordered, never blurred.  Only the reporting layer prints them."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

__all__ = ["Verdict", "Finding", "meets", "verdict_of"]


class Verdict(enum.IntEnum):
    #: A confirmed counterexample: a step of a replayed, consistent trace (or a closed exact
    #: computation) where the claim is false.  Shown with both sides' exact values.
    REFUTED = 0
    #: The exact evaluation could not decide (a solver or arithmetic limit), or no applicable
    #: evaluation existed.  Never a pass.
    UNKNOWN = 1
    #: True at every evaluated step of every applicable trace of the corpus named.
    HOLDS_ON_EVIDENCE = 2
    #: No counterexample in a stated, exhaustively searched domain (see verify.searching).
    NO_COUNTEREXAMPLE_IN_DOMAIN = 3
    #: Proved: a closed statement computed exactly, or every step of a symbolic proof for all
    #: dimensions.
    PROVED = 4

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


def meets(verdict: Verdict, expect: str) -> bool:
    """Whether a verdict is what the claim file expects."""
    if expect == "refuted":
        return verdict == Verdict.REFUTED
    return verdict in (Verdict.HOLDS_ON_EVIDENCE, Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, Verdict.PROVED)


def verdict_of(evidence) -> tuple[Verdict, str | None]:
    """The one place evaluations become a verdict: (verdict, reason).  ``evidence`` is anything
    with ``violation``, ``unknown`` and ``evaluations`` (one trace's tally, a claim's corpus
    evidence): refuted on a confirmed violation, unknown on an undecided evaluation or on none at
    all, else holds on evidence.  What the evaluations covered is weighed after this (the corpus
    never calls a claim "holds" on a quantifier it did not vary: verify.corpus.evidence)."""
    if evidence.violation:
        return Verdict.REFUTED, None
    if evidence.unknown:
        return Verdict.UNKNOWN, evidence.unknown
    if not evidence.evaluations:
        return Verdict.UNKNOWN, "no applicable evaluation in the corpus"
    return Verdict.HOLDS_ON_EVIDENCE, None


@dataclass(frozen=True)
class Finding:
    """What the audit found about one claim."""

    claim_id: str
    citation: str
    statement: str
    verdict: Verdict
    expect: str
    evidence: dict = field(default_factory=dict)
    path: str = ""
    line: int = 0

    @property
    def as_expected(self) -> bool:
        return meets(self.verdict, self.expect)
