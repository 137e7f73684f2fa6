"""Files given as ``--variants`` (train, check): one reader for claim files and variant files.

A claim file (one with [document], [[claim]] or [notation], as ``proof-audit draft`` writes it)
is read exactly as ``--claims`` reads it (verify.language.claims.load_claims), so that a file
``claims lint`` and ``run`` accept is accepted here too, and the replay command printed for a
refuted claim about a variant it declares runs; a file of [variants.NAME] tables alone is read
by perceptron.declared.load_variants.  Either way the declarations are registered.
"""

from __future__ import annotations

from perceptron.declared import load_variants, variant_of
from perceptron.errors import InputError
from perceptron.limits import MAX_CLAIM_BYTES, read_toml
from verify.language.claims import load_claims

__all__ = ["load_variant_file"]


def load_variant_file(path: str) -> list:
    """The declarations of the variant or claim file at ``path``, registered."""
    data, _ = read_toml(path, MAX_CLAIM_BYTES, "variant")
    if not any(k in data for k in ("document", "claim", "notation")):
        return load_variants(path)
    load_claims(path)  # every problem of the claim file, as --claims and claims lint report it
    names = data.get("variants") or {}
    if not names:
        raise InputError(path, "no [variants.NAME] table: a claim file given as --variants must declare one", 1)
    return [variant_of(n) for n in names]
