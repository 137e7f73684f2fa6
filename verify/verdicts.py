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
    #: A symbolic statement awaiting the symbolic engine (issue 4).  Never a pass.
    NOT_YET_CHECKED = 2
    #: True at every evaluated step of every applicable trace of the corpus named.
    HOLDS_ON_EVIDENCE = 3
    #: No counterexample in a stated, exhaustively searched domain (issue 4).
    NO_COUNTEREXAMPLE_IN_DOMAIN = 4
    #: Proved: a closed statement computed exactly, or a symbolic step for all dimensions.
    PROVED = 5

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


def meets(verdict: Verdict, expect: str) -> bool | None:
    """Whether a verdict is what the claim file expects; None when the claim is not yet
    checked (it neither passes nor fails)."""
    if verdict == Verdict.NOT_YET_CHECKED:
        return None
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
    def as_expected(self) -> bool | None:
        return meets(self.verdict, self.expect)
