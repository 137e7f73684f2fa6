"""claims lint: every problem of a claim file, and advice on claims that are valid but may not
say what their author means (a top-level "or" read as an implication; a bias read on a variant
that has none)."""

from __future__ import annotations

import re

from perceptron.declared import variant_of
from verify.language.claims import ClaimError, load_claims
from verify.language.sides import split_implication

__all__ = ["lint", "advice"]


def lint(paths, drafts: list | None = None, notes: list | None = None) -> list[ClaimError]:
    """Every problem in the given claim files (an empty list when they are all valid); the
    files' draft claims are appended to ``drafts`` and advice (``advice``) to ``notes`` when
    they are given."""
    problems: list[ClaimError] = []
    for p in paths:
        cf = load_claims(p, collect=problems)
        if drafts is not None:
            drafts.extend(cf.drafts)
        if notes is not None:
            notes.extend(n for c in cf.claims for n in advice(c))
    return problems


def advice(c) -> list[str]:
    """Notes on a valid claim that may not say what its author means."""
    out = []
    where = f"{c.path}:{c.line}:1: note: {c.id}:"
    if c.implied:
        a, b = split_implication(c.expr)
        out.append(f"{where} a top-level 'or' is read as an implication: it applies where {a} is false and tests {b} "
                   f"there; say so with given = \"not ({a})\" and expr = \"{b}\"")
    text = " ".join(x for x in (c.expr, getattr(c.given, "source", None)) if x)
    own = [v for v in c.variants if getattr(variant_of(v), "bias", None) is None]
    if own and len(own) == len(c.variants) and re.search(r"(?<![\w.])b(?![\w(])", text):
        out.append(f"{where} it reads b, which is 0 on every run of {', '.join(own)} (no bias of its own); a run with "
                   "augment = \"last\" keeps its bias in the last coordinate of w (read it as dot(w, vec(0, ..., 1))), "
                   "or choose a variant with a bias (novikoff, sklearn, or a declared one with b in its state)")
    return out
