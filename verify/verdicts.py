"""Verdicts and findings: ordered, never blurred.  Only the reporting layer prints them."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

__all__ = ["Verdict", "Finding", "meets"]


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
