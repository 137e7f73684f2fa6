"""Checkers for the proofs of the five notes: claims, replay, certificates, CLI."""

__all__: list[str] = []
