"""A claim's reading in words (``claims lint --explain``): when it is evaluated, on which runs
and data, what its assumptions and stated run fix, and what it ranges over, so that a
transcription can be checked against the note before anything is run."""

from __future__ import annotations

from perceptron.declared import variant_of
from verify.language.assumptions import ASSUMPTIONS
from verify.language.claim_exprs import RELATIONS, WHEN
from verify.language.quantifiers import quantifiers

__all__ = ["explain", "explain_files"]


def explain_files(paths) -> list[str]:
    """explain() of every claim of the claim files, in order."""
    from verify.language.claims import load_claims

    return [line for p in paths for c in load_claims(p).claims for line in explain(c)]


def explain(claim) -> list[str]:
    """The lines that say how ``claim`` is read (the first names it and its place)."""
    out = [f"{claim.path}:{claim.line}: {claim.id}: {claim.statement}",
           f"  evaluated: {WHEN.get(claim.when, claim.when)}"]
    if claim.expr:
        out.append(f"  condition: {claim.expr}")
    if claim.given is not None and not claim.implied:
        out.append(f"  where: {claim.given.source} (where it is false the claim does not apply)")
    if claim.relation:
        out.append(f"  relation: {claim.relation} ({RELATIONS.get(claim.relation, '')}) with the run pair = {claim.pair!r}")
    if claim.variants:
        notes = [f"{v} ({getattr(variant_of(v), 'note', '') or 'declared'})" for v in claim.variants]
        out.append("  runs of: " + ", ".join(notes))
    if claim.datasets:
        out.append("  on the datasets: " + ", ".join(claim.datasets))
    if claim.orders:
        out.append("  in the orders: " + ", ".join(claim.orders))
    for a in claim.assume:
        out.append(f"  assumes {a}: {ASSUMPTIONS[a].meaning if a in ASSUMPTIONS else '?'}")
    if claim.setting is not None:
        out.append("  the run the note describes (run = {...}): every value below marked fixed")
        aug = claim.setting.augment
        out.append("  the constant coordinate (the bias through the data): " + (
            "none added" if aug == "none" else f"added {aug}" if aug else
            "added last on a variant without a bias of its own (the stated b0 lives there), none on one with"
            if claim.setting.b0 is not None else
            "none (the data as given; say augment = \"last\" for a note whose bias is a weight on a constant 1)"))
    if claim.max_epochs:
        out.append(f"  runs on its datasets go on for up to {claim.max_epochs} epochs")
    q = quantifiers(claim)
    if q:
        out.append("  ranges over (a quantity never varied by the evidence leaves the claim unknown):")
        out += [f"    {k}: {v}" for k, v in q.items()]
    return out
