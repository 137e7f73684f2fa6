"""What a statement about every point of a dataset says at one point (verify.symbolic.converged,
and claims about every dataset): all_i(B) is B at an arbitrary point of the dataset, min_i(e) > c
is e > c, max_i(e) < c is e < c, all_i(A) == all_i(B) is A exactly where B, through 'and' and an
'or' of which one side reads the points.  Each is implied by its reading at every point, so a
proof of the reading at an arbitrary point proves the statement.  Any other use of the points is
not taken.
"""

from __future__ import annotations

from verify.symbolic.learners import learners_of
from verify.symbolic.run_facts import (DATASET_NAMES, NotTaken, OneStep, Step, add_case, bring_symbol, children,
                                       facts_of_run, statement, translate)

__all__ = ["at_a_point", "reads"]


def at_a_point(tree):
    """What the statement says of every point, at one point: all_i(B) as B, min_i(e) > c as
    e > c, max_i(e) < c as e < c (c not about the points), through 'and', and through an 'or'
    of which one side is about the points; all_i(A) == all_i(B) as A exactly where B."""
    op = tree[0]
    if op == "and":
        return ("and", tuple(at_a_point(t) for t in tree[1]))
    if op == "or" and sum(map(_loose, tree[1])) <= 1:
        return ("or", tuple(at_a_point(t) for t in tree[1]))
    if op == "agg" and tree[1] == "all_i" and not _every(tree[2]):
        return tree[2]
    if op == "cmp" and tree[1] == ("==",) and all(p[0] == "agg" and p[1] == "all_i" and not _every(p[2])
                                                  for p in tree[2]):
        a, b = (p[2] for p in tree[2])  # every point has A exactly where it has B: all_i(A) == all_i(B)
        return ("or", (("and", (a, b)), ("and", (("not", a), ("not", b)))))
    if op == "cmp" and len(tree[1]) == 1:
        (a, b), o = tree[2], tree[1][0]
        lower, upper = {">": "min_i", ">=": "min_i", "<": "max_i", "<=": "max_i"}.get(o), \
            {"<": "min_i", "<=": "min_i", ">": "max_i", ">=": "max_i"}.get(o)
        if a[0] == "agg" and a[1] == lower and not _every(a[2]) and not _loose(b):
            return ("cmp", tree[1], (a[2], b))
        if b[0] == "agg" and b[1] == upper and not _every(b[2]) and not _loose(a):
            return ("cmp", tree[1], (a, b[2]))
    if _every(tree) or reads(tree, lambda t: t in _POINT):
        raise NotTaken("it reads the points other than through all_i, min_i(...) > c or max_i(...) < c")
    return tree


#: A point's own names: outside all_i, min_i, max_i they name no point of the dataset.
_POINT = {("name", "x"), ("name", "y"), ("name", "x_hat")}


def _loose(tree) -> bool:
    """Whether the expression reads the points, through an aggregate or a point's name."""
    return _every(tree) or reads(tree, lambda t: t in _POINT)


def _every(tree) -> bool:
    return reads(tree, lambda t: t[0] == "agg")


def reads(tree, test) -> bool:
    return test(tree) or any(reads(t, test) for t in children(tree))


#: The proofs' own symbols a free name may be: w and b, which no dataset defines.
_FREE_OK = ("w", "b")


def about_every_point(claim):
    """A claim about every dataset that reads its points or free names: what it says of every
    point, at an arbitrary point (x, y) of an arbitrary dataset, for every value of its free names
    (a positive one > 0, a label +1 or -1); or why it is not taken (a text)."""
    if claim.when != "dataset" or claim.compiled is None:
        return "not a claim about every dataset"
    if (claim.given is not None and not claim.implied) or claim.pair:
        return "it has a premise or a partner run"
    if isinstance(lrns := learners_of(claim), str):
        return lrns
    free = {n: ("vector" if t == "vector" else "scalar", t) for n, t in (claim.free or {}).items()}
    st = statement(claim)
    if not set(st.names) <= DATASET_NAMES | {"x", "y"} | set(free) or st.uses_prev:
        return f"it reads {', '.join(sorted(set(st.names) - DATASET_NAMES - {'x', 'y'} - set(free)))}, " \
               "which a dataset's point does not show"
    if clash := [n for n, (kind, _) in free.items() if not bring_symbol(n, kind, _FREE_OK)]:
        return f"its free name {clash[0]} has the name of a symbol of the proofs"
    said = [f"{n} > 0" for n, (_, t) in free.items() if t == "positive"] + \
        [f"{n}**2 == 1" for n, (_, t) in free.items() if t == "label"]
    try:
        point = at_a_point(st.tree)
        profiles, facts = [], []
        for lrn in lrns:
            bias = lrn.variant.bias is not None
            subs = {"b_opt": "b_opt" if bias else "0", "w_hat_opt": f"cat(w_opt, {'b_opt' if bias else '0'}/R)"}
            hyps = facts_of_run(claim, lrn.variant, set(st.names) | {"x", "y"}) + said
            label = f"{lrn.name}: any point (x, y) of any dataset" + (f", any {', '.join(free)}" if free else "")
            add_case(profiles, facts, label, hyps, Step(claim.expr, translate(point, subs, None)))
    except NotTaken as e:
        return str(e)
    return OneStep(tuple(profiles), tuple(facts), what="every dataset: what it says of every point, at any point "
                   "(x, y) of it" + (", for every value of its free names" if free else ""))
