"""The invariants of the convergence proof, stated for a note that does not state them: a note
that gives the mistake bound with its proof in words (or none) has no proved lemma to derive the
bound from.  For a claim at an update or the end of a run that counts the updates (k, mistakes),
its run's invariants are stated, under the claim's own variants and assumptions:

* the progress toward a separator (separable): dot(w, w_opt) >= k eta gamma, or on (w, b/R)
  (a variant whose bias steps by eta y R^2: 001's) dot(w_hat, w_hat_opt) >= k eta gamma;
* the growth of the norm: |w|^2 <= k eta^2 R^2, or |(w, b/R)|^2 <= 2 k eta^2 R^2;
* from any start (a claim without w0 = 0, on the weights), the same from w0:
  dot(w, w_opt) >= dot(w0, w_opt) + k eta gamma (or + k eta gamma / 2 where a half step may be
  taken: 002's 1/2 eta (y - out) x form at sign(0) = 0) and |w|^2 <= |w0|^2 + k eta^2 R^2;
* on (w, b/R), of the dataset (separable, nontrivial: a point of each label): |(w_opt, b_opt/R)|^2 <= 2;
* for a claim that looks back two updates (prev(w, 2)), from any start, each update's own step:
  |w|^2 <= |prev(w)|^2 + eta^2 R^2 and dot(w, w_opt) >= dot(prev(w), w_opt) + eta gamma.

Each is a claim like any other of the note's (verify.symbolic.from_lemmas.lemma_of), proved by
induction over the updates (verify.symbolic.one_step) before any claim rests on it; one that does
not hold under the claim's assumptions (the half-step update at sign(0) = 0 makes half the
progress) is not proved, and nothing rests on it.  Only the proofs read them: they are not
claims of the note, and no verdict is given for them.
"""

from __future__ import annotations

import dataclasses

from perceptron.variants import BIAS_R2
from perceptron.variants import VARIANTS as BUILT_IN
from verify.language import assumptions as A
from verify.language.claims import with_expr
from verify.symbolic.run_facts import statement

__all__ = ["invariants_of", "is_invariant", "PREFIX"]

#: The id of a stated invariant: the prefix and its expression.
PREFIX = "invariant: "
#: (expression, assumptions it needs, when) on the weights; on (w, b/R) where the bias steps by eta y R^2.
_PLAIN = (("dot(w, w_opt) >= k*eta*gamma", {A.SEPARABLE}, "update"), ("norm2(w) <= k*eta**2*R2", set(), "update"))
_HAT = (("dot(w_hat, w_hat_opt) >= k*eta*gamma", {A.SEPARABLE}, "update"),
        ("norm2(w_hat) <= 2*k*eta**2*R2", set(), "update"),
        ("norm2(w_hat_opt) <= 2", {A.SEPARABLE, A.NONTRIVIAL}, "dataset"))
#: From any start (a note that initialises the weights anyhow), on the weights: the progress of
#: a step of eta y x, or, for a variant whose 1/2 eta (y - out) x form takes half of one at
#: sign(0) = 0, of at least half of one; the growth of the norm (no step is longer than eta |x|).
_FROM_W0 = (("dot(w, w_opt) >= dot(w0, w_opt) + k*eta*gamma", {A.SEPARABLE}, "update"),
            ("norm2(w) <= norm2(w0) + k*eta**2*R2", set(), "update"))
_HALF_STEP = (("dot(w, w_opt) >= dot(w0, w_opt) + k*eta*gamma/2", {A.SEPARABLE}, "update"),)
#: Each update's own step, for a claim that looks back two updates (on the weights).
_STEP = (("norm2(w) <= norm2(prev(w)) + eta**2*R2", set(), "update"),
         ("dot(w, w_opt) >= dot(prev(w), w_opt) + eta*gamma", {A.SEPARABLE}, "update"))


def is_invariant(claim) -> bool:
    return claim.id.startswith(PREFIX)


def invariants_of(claims) -> list:
    """The invariants stated for the claims (each once for a note, its variants and assumptions)."""
    out: dict = {}
    for c in claims:
        if c.when not in ("update", "end") or c.compiled is None or c.setting is not None or c.free:
            continue
        st = statement(c)
        counted = bool(st.names & {"k", "mistakes"})
        zero = A.W0_ZERO in c.assume
        two_back = c.when == "update" and st.uses_prev >= 2
        variants = c.variants or tuple(BUILT_IN)
        if not (counted or two_back) or any(v not in BUILT_IN or BUILT_IN[v].dual for v in variants):
            continue
        bias = {BUILT_IN[v].bias for v in variants}
        half = _HALF_STEP if any(BUILT_IN[v].half_form for v in variants) else ()
        forms = (((_PLAIN if zero else _FROM_W0 + half) if bias == {None} else
                  _HAT if bias == {BIAS_R2} and zero else ()) if counted else ())
        forms += _STEP if two_back and bias == {None} else ()
        for expr, needs, when in forms:
            if not needs <= set(c.assume):
                continue
            key = (c.document, variants, tuple(sorted(c.assume)), expr)
            if key not in out:
                lemma = with_expr(c, expr)
                out[key] = dataclasses.replace(
                    lemma, id=_id(expr, c), when=when, statement=expr, expect="holds",
                    corrects=None, note="", given=None, implied=False, source=None, datasets=None, orders=None,
                    max_epochs=None, variants=variants, line=c.line)
    return list(out.values())


def _id(expr: str, claim) -> str:
    """The invariant's id: its expression, the assumptions and the variants it is stated under (two
    invariants alike but for their variants are two: one may hold where the other does not)."""
    return (f"{PREFIX}{expr}" + (f" [{', '.join(sorted(claim.assume))}]" if claim.assume else "")
            + (f" ({', '.join(claim.variants)})" if claim.variants else ""))
