"""Orbits of the search's datasets under the grid's rotations and reflections: the signed
permutations of the coordinates (8 in the plane) map the integer grid, the w0 box and the
separator box onto themselves and commute with every variant that reads the points only through
inner products and norms.  When the claim reads them only so too, every dataset of an orbit has
the claim's truth, and the search takes one of each (verify.searching.domain.symmetries gives
the permutations of the grid's points; ``canonical`` keeps the least dataset of each orbit)."""

from __future__ import annotations

import numpy as np

from verify.language.quantifiers import needs_separator

__all__ = ["ORBITS", "MAX_ORBIT_DIM", "reads_coordinates", "equivariant", "rotation_symmetric", "canonical"]

#: What a search that takes one dataset of each orbit says of its datasets.
ORBITS = (" (one of each set of datasets that are rotations or reflections of each other: the claim reads the points "
          "only through inner products)")


#: The most coordinates a search takes orbits in: 2^d d! signed permutations (48 at 3), each a
#: permutation of the grid's points; more would cost more to build than they save.
MAX_ORBIT_DIM = 3


def reads_coordinates(tree) -> bool:
    """Whether an expression's compiled tree names a vector by its coordinates (vec(...), ones) or
    a point by its index (i): read from the tree, not the text (a tab before vec( is still a call)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            if len(node) >= 2 and ((node[0] == "call" and node[1] == "vec") or (node[0] == "name" and node[1] in ("ones", "i"))):
                return True
            stack.extend(node)
    return False


def equivariant(variant: str) -> bool:
    """Whether a variant reads the points only through inner products and norms: every built-in
    one; a declared one none of whose expressions reads a coordinate (reads_coordinates)."""
    from perceptron.declared import fields

    from perceptron.declared import variant_of

    var = variant_of(variant)
    if not getattr(var, "declared", False):
        return True
    return not any(reads_coordinates(tree) for _, _, tree in fields(var))


def rotation_symmetric(claim, dom, without_separator: bool = True) -> bool:
    """Whether the search may take one dataset of each orbit under the signed permutations of the
    coordinates (the 8 rotations and reflections of the square grid in 2-D): each maps the grid,
    the w0 box and the separator box onto themselves and commutes with every built-in variant
    (they read the points only through inner products), so a claim that also reads them only so
    has the same truth on every dataset of an orbit.  Not when the claim (or its premise) reads
    a coordinate or a point's index (reads_coordinates), quantifies over free names, or reads
    the one separator the search picks of each dataset (its ties need not map onto each other; a
    claim that reads no separator is searched with none); not on the unit circle; in at most
    MAX_ORBIT_DIM dimensions.  ``without_separator=False`` (the searches that walk a declared
    variant's or the learner's runs) keeps a claim that reads no separator whole in a domain that
    picks one: their budget counts the claim's evaluations, and an end claim's are few beside the
    states walked, so the scopes orbits make affordable can cost a hundred times their count in
    time (the margin lesson's end claims: 22 s each at 3 points, 10 updates)."""
    return not dom.unit and dom.dim <= MAX_ORBIT_DIM and not getattr(claim, "free", None) and claim.compiled is not None \
        and (dom.separators != "best" or without_separator and not needs_separator(claim)) \
        and not reads_coordinates(claim.compiled.tree) \
        and not (claim.given is not None and reads_coordinates(claim.given.tree))



def canonical(idx, maps, ordered: bool):
    """Rows of ``idx`` (datasets as point indices: non-decreasing, or sequences when ``ordered``)
    that are the least of their orbit under ``maps`` (symmetries()), lexicographically."""
    keep = np.ones(len(idx), dtype=bool)
    rows = np.arange(len(idx))
    for m in maps:
        T = m[idx]
        if not ordered:
            T = np.sort(T, axis=1)
        diff = idx != T
        first = diff.argmax(axis=1)
        keep &= ~diff.any(axis=1) | (idx[rows, first] < T[rows, first])
    return keep
