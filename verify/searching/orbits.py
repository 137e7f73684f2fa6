"""Orbits of the search's datasets under the grid's rotations and reflections: the signed
permutations of the coordinates (8 in the plane) map the integer grid, the w0 box and the
separator box onto themselves and commute with every variant that reads the points only through
inner products and norms.  When the claim reads them only so too, every dataset of an orbit has
the claim's truth, and the search takes one of each (verify.searching.domain.symmetries gives
the permutations of the grid's points; ``canonical`` keeps the least dataset of each orbit)."""

from __future__ import annotations

import functools

import numpy as np

from verify.language.assumptions import FLIP_INVARIANT, NONTRIVIAL
from verify.language.quantifiers import needs_separator

__all__ = ["ORBITS", "FLIPS", "PAIRED", "MAX_ORBIT_DIM", "reads_coordinates", "equivariant", "rotation_symmetric",
           "canonical", "label_parity", "LABEL_ODD", "EVEN", "ODD", "ZERO", "flip_symmetric", "paired_sign0s",
           "claim_label_even", "declared_label_symmetric", "FOLDED"]

#: What a search that takes one dataset of each orbit says of its datasets.
ORBITS = (" (one of each set of datasets that are rotations or reflections of each other: the claim reads the points "
          "only through inner products)")


#: The most coordinates a search takes orbits in: 2^d d! signed permutations (48 at 3), each a
#: permutation of the grid's points; more would cost more to build than they save.
MAX_ORBIT_DIM = 3


def reads_coordinates(tree) -> bool:
    """Whether an expression's compiled tree names a vector by its coordinates (vec(...), ones) or
    a point by its index (i): read from the tree, not the text (a tab before vec( is still a call)."""
    return any(len(node) >= 2 and ((node[0] == "call" and node[1] == "vec") or (node[0] == "name" and node[1] in ("ones", "i")))
               for node in _nodes(tree))


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
    claim that reads no separator is searched with none); in at most MAX_ORBIT_DIM dimensions.
    The points of the unit circle the search draws (verify.searching.domain.unit_points) are
    mapped onto each other too.  ``without_separator=False`` (the searches that walk a declared
    variant's or the learner's runs) keeps a claim that reads no separator whole in a domain that
    picks one: their budget counts the claim's evaluations, and an end claim's are few beside the
    states walked, so the scopes orbits make affordable can cost a hundred times their count in
    time (the margin lesson's end claims: 22 s each at 3 points, 10 updates)."""
    return dom.dim <= MAX_ORBIT_DIM and not getattr(claim, "free", None) and claim.compiled is not None \
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


#: The names a flip of one point's sign and label ((x, y) -> (-x, -y)) negates, in a variant with
#: no bias and sign(0) = 0 (its run is the same: y w.x, y x and the mistakes are unchanged); the
#: flip changes no other name but x_hat (x, R), which it leaves half negated.  What the flip does
#: to the index i (a point's place among the others) is not known: a claim that reads it is not
#: folded.
LABEL_ODD = frozenset({"x", "y", "score", "out"})
_UNFOLDED = frozenset({"x_hat", "i"})
#: Parities: the value the flip leaves, negates, or the literal 0 (both).
EVEN, ODD, ZERO = "even", "odd", "zero"


def label_parity(tree, free=frozenset(), odd=LABEL_ODD, unknown=_UNFOLDED, per_point=True):
    """What a flip of the points' signs and labels does to a compiled expression: EVEN (it is
    unchanged: a claim that is EVEN has the same truth on the dataset with every label folded into
    its point, y x and +1), ODD (negated), ZERO (the literal 0), or None where it cannot be told
    (then the labels are not folded).  Sound and no more: x, y, score and out are odd, products
    add parities, a sum needs its terms alike, a comparison other than == and != needs its sides
    even, an aggregate over the points needs its body even (each point flips on its own: in the
    body x and y are the point's, while score and out stay the visit's, whose point flips apart
    from it, so they are not told there).  ``free``: the claim's free names, which may shadow a
    quantity and do not depend on the data (even).  ``per_point`` False: a flip of every label at
    once (flip_symmetric), which an aggregate or a look-back sees as the rest of the claim does."""
    op = tree[0]
    rec = functools.partial(label_parity, free=free, odd=odd, unknown=unknown, per_point=per_point)
    if op == "num":
        return ZERO if tree[1] == 0 else EVEN
    if op == "name":
        return EVEN if tree[1] in free else None if tree[1] in unknown else ODD if tree[1] in odd else EVEN
    if op == "prev" and per_point and odd != LABEL_ODD:  # a look-back inside an aggregate: whose point it reads is not told
        return label_parity(tree[1], free, frozenset(), unknown | LABEL_ODD)
    if op in ("neg", "prev"):
        return rec(tree[1])
    if op == "not":
        return EVEN if rec(tree[1]) in (EVEN, ZERO) else None
    if op in ("and", "or"):
        return EVEN if all(rec(t) in (EVEN, ZERO) for t in tree[1]) else None
    if op == "bin":
        a, b = rec(tree[2]), rec(tree[3])
        if a is None or b is None:
            return None
        if tree[1] in ("+", "-"):
            return b if a == ZERO else a if b == ZERO or a == b else None
        if ZERO in (a, b):  # 0 * v, v * 0, 0 / v: 0 (v / 0 is undefined on either dataset alike, but say nothing of it)
            return ZERO if tree[1] == "*" or a == ZERO and b != ZERO else None
        return _times(a, b)
    if op == "pow":
        a, e = rec(tree[1]), tree[2]
        if a in (None, EVEN):
            return a
        if a == ZERO:
            return ZERO if e > 0 else None
        return ODD if e % 2 else EVEN
    if op == "cmp":
        parts = {rec(t) for t in tree[2]} - {ZERO}
        if None in parts or len(parts) > 1:
            return None
        return EVEN if parts <= {EVEN} or set(tree[1]) <= {"==", "!="} else None
    if op == "if":
        c, a, b = rec(tree[1]), rec(tree[2]), rec(tree[3])
        return a if c in (EVEN, ZERO) and a == b and a is not None else None
    if op == "agg" and not per_point:
        return EVEN if rec(tree[2]) in (EVEN, ZERO) else None
    if op == "agg":
        return EVEN if label_parity(tree[2], free, frozenset({"x", "y"}), unknown | {"score", "out"}) in (EVEN, ZERO) \
            else None
    if op == "call":
        args = [rec(t) for t in tree[2]]
        if None in args:
            return None
        name = tree[1]
        if name == "dot":
            return ZERO if ZERO in args else _times(*args)
        if name in ("norm", "norm2", "abs"):
            return ZERO if args == [ZERO] else EVEN
        if name == "sign":
            return args[0]
        if name in ("sqrt", "ceil", "floor", "min", "max"):  # none of them odd: min(-a, -b) = -max(a, b)
            return ZERO if set(args) == {ZERO} else EVEN if set(args) <= {EVEN, ZERO} else None
        if name == "vec":
            kinds = set(args) - {ZERO}
            return ZERO if not kinds else kinds.pop() if len(kinds) == 1 else None
    return None


def claim_label_even(claim) -> bool:
    """Whether a claim (and its premise) keeps its truth when any one point's sign and label flip,
    (x, y) -> (-x, -y) (label_parity), and does not assume that both labels occur (a flip can
    make them one)."""
    return NONTRIVIAL not in claim.assume and all(label_parity(c.tree, frozenset(claim.free or ())) in (EVEN, ZERO)
                                                  for c in claim.conditions)


#: What a declared variant's search that folds labels says of its datasets.
FOLDED = (" (labels folded into the points: a flip of one point's sign and label changes neither the declared "
          "variant's run nor the claim)")


def declared_label_symmetric(claim, variant) -> bool:
    """Whether the search of a declared variant may fold labels into the points, as the built-in
    variants with no bias and sign(0) = 0 do (verify.searching.domain.label_symmetric): its
    score is odd under the flip of a point, (x, y) -> (-x, -y) (dot(w, x); not dot(w, x) + b),
    and its mistake condition, updates, initial state and outputs are even (y * score <= tau,
    w + eta * y * x), reading out (it or the claim) only where sign(0) is 0 and never the point's
    index i, and no bias (its separators would have one); then every state of its run is the same
    on either dataset, and so is a claim_label_even claim's truth."""
    from perceptron.declared import fields, variant_of

    decl = variant_of(variant)
    # a bias: the separators (v, c) have one too, and y (v.x + c) is not left by the flip
    if not getattr(decl, "declared", False) or decl.bias is not None or not claim_label_even(claim):
        return False
    parts = list(fields(decl))
    # out = sign(score) is odd only where sign(0) = 0: with +1, a zero score gives +1 for either point
    if decl.sign0 != 0 and (any("out" in _names(tree) for _, _, tree in parts)
                            or any("out" in c.names for c in claim.conditions)):
        return False
    return all(label_parity(tree) in ((ODD, ZERO) if field == "score" else (EVEN, ZERO)) for field, _, tree in parts)


def _nodes(tree):
    """Every node of a compiled tree (an expression of a claim or of a declaration)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            yield node
            stack.extend(node)


def _names(tree) -> set:
    """The names a compiled tree reads."""
    return {node[1] for node in _nodes(tree) if len(node) >= 2 and node[0] == "name"}


def _times(a, b):
    """The parity of a product of two nonzero parities."""
    return EVEN if a == b else ODD


#: The names a flip of every label at once negates, with w0, b0 and sign(0) (Variant.flips: the run
#: is then the negation of the run on the data as given), and those it leaves; a claim that reads a
#: name in neither (the index i: where a point stands among the others, which the flip may reorder)
#: is not flipped.  The separators of the flipped data are the negated ones, with the same margins.
FLIP_ODD = frozenset({"y", "w", "b", "w_hat", "score", "out", "w0", "sign0", "w_pocket", "w_opt", "b_opt",
                      "w_hat_opt", "v_opt", "c_opt"})
FLIP_EVEN = frozenset({
    "k", "t", "eta", "R", "R2", "x", "x_hat", "ones", "n", "d", "epochs", "mistakes", "converged", "stopped_by_budget",
    "sumsq", "kernel_degree", "kernel_offset", "pocket_errors", "min_visited_errors", "gamma", "m_opt", "gamma_lo",
    "gamma_hi", "separable", "alpha", "sweep", "sweep_visits", "sweep_mistakes", "last_sweep_mistakes"})
#: What a search that takes one dataset of each pair flipped so says of its datasets.
FLIPS = (" (one of each pair of datasets whose labels are all flipped: negating every label, w0 and sign(0) "
         "negates the run, and the claim keeps its truth)")
#: What a search that runs sign(0) = +1 for -1 says of its settings.
PAIRED = (" (sign(0) = -1 searched as +1 on the datasets with every label flipped, from -w0: that run is the "
          "negation of the run with sign(0) = -1, and the claim keeps its truth)")


def flip_symmetric(claim, dom) -> bool:
    """Whether the claim has the same truth on a dataset and on the dataset with every label
    flipped, run from -w0 (and -b0) with sign(0) negated: a variant whose run that negates
    (perceptron.variants.Variant.flips), a claim (and premise) EVEN under FLIP_ODD, names all in
    FLIP_ODD or FLIP_EVEN (or free: they do not depend on the data), and no separator picked
    among ties (the one the search picks of each dataset, as rotation_symmetric).  The w0 box is
    symmetric, the assumptions read nothing a flip changes (both labels occur, separable, ...)."""
    from perceptron.variants import VARIANTS

    if not getattr(VARIANTS.get(dom.variant), "flips", False) or claim.compiled is None:
        return False
    if dom.separators == "best" and needs_separator(claim) or not set(claim.assume) <= FLIP_INVARIANT:
        return False
    free = frozenset(claim.free or ())
    for c in claim.conditions:
        unknown = frozenset(c.names) - FLIP_ODD - FLIP_EVEN - free
        if label_parity(c.tree, free, FLIP_ODD, unknown, per_point=False) not in (EVEN, ZERO):
            return False
    return True


def paired_sign0s(claim, dom) -> tuple:
    """The values of sign(0) a search runs: -1 is left out where +1 is run and the claim is
    flip_symmetric (its counterexamples at -1 are those at +1 with every label flipped)."""
    from perceptron.variants import VARIANTS

    if getattr(VARIANTS.get(dom.variant), "tie", 0) is None and {-1, 1} <= set(dom.sign0s) and flip_symmetric(claim, dom):
        return tuple(s for s in dom.sign0s if s != -1)
    return tuple(dom.sign0s)
