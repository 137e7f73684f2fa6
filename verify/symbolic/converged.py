"""A claim at the end of a run about its convergence, such as "when it stops, w separates the
points" (converged == 0 or min_i(y*dot(w, x)) > 0), proved for every run of its variants.

A claim that assumes ``converged`` is evaluated at the end of the runs that converged only (the
second case alone).  A run has converged exactly when its final state classifies every point correctly: out == y
with out = sign(score) and the run's sign(0) (perceptron.run).  So the statement is proved in
two cases: converged = 0, where it must hold by what it says of converged alone (the other
disjuncts are not shown), and converged = 1, where what it says of every point (all_i(B),
min_i(e) > c, max_i(e) < c, and their conjunctions) is proved at one arbitrary point so
classified, by any final state (every dataset has a point: perceptron.datasets refuses an
empty one).  Any other use of the points or of converged is not taken.
"""

from __future__ import annotations

from fractions import Fraction

from verify.language import assumptions as A
from verify.symbolic.every_point import at_a_point, reads
from verify.symbolic.learners import learners_of
from verify.symbolic.run_facts import (SEPARATOR, STATE, NotTaken, OneStep, Step, add_case, facts_of_run,
                                       output_facts, refused, statement, ties_of, translate)

__all__ = ["at_convergence"]

#: What such a claim may read: the final state, the run's constants, the separator, and the
#: points (inside its statements about every point).
_READS = STATE | SEPARATOR | {"eta", "R", "R2", "sign0", "w0", "converged", "x", "y", "x_hat"}
_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def at_convergence(claim) -> OneStep | str:
    """The claim's two cases (not converged, converged: at a point the final state classifies
    correctly), or why it is not taken (a text)."""
    st = statement(claim) if claim.compiled is not None else None
    assumed = A.CONVERGED in claim.assume  # evaluated at the end of the runs that converged only
    if claim.when != "end" or st is None or not ("converged" in st.names or assumed):
        return "not a claim at the end of a run that reads converged or assumes it"
    if (why := refused(claim)) is not None or isinstance(lrns := learners_of(claim), str):
        return why or lrns
    reads = _READS.union(*(lrn.params for lrn in lrns))
    if not st.names <= reads or st.uses_prev:
        return f"it reads {', '.join(sorted(st.names - reads)) or 'prev()'}, which convergence does not show"
    try:
        if not assumed and _fold(st.tree, 0) is not True:
            return "it does not hold by what it says of converged where the run did not converge"
        rest = _fold(st.tree, 1)
        if rest is False:
            return "it is false where the run converged"
        point = ("cmp", ("==",), (("num", Fraction(1)), ("num", Fraction(1)))) if rest is True else at_a_point(rest)
        profiles, facts = [], []
        for lrn in lrns:
            var = lrn.variant
            bias = var.bias is not None
            b = "b" if bias else "b0"
            subs = {"w": "w", "b": b, "w_hat": f"cat(w, {b}/R)", "x_hat": "cat(x, R)", "b_opt": "b_opt" if bias else "0",
                    "w_hat_opt": f"cat(w_opt, {'b_opt' if bias else '0'}/R)", **lrn.params}
            if var.declared:  # (w, b/R) is 001's, and a declaration without b has none
                subs = {k: v for k, v in subs.items() if k not in ("w_hat", "x_hat", "w_hat_opt") and (bias or k != "b")}
            # correct: what would make it update (out != y for the built-in variants) is false
            hyps = (facts_of_run(claim, var, st.names) + output_facts(claim, var, lrn.at(lrn.score, "w", b))
                    + ["out == y" if lrn.mistake == "out != y" else f"not ({lrn.at(lrn.mistake, 'w', b)})"])
            ties = ", ".join(map(str, ties_of(claim, var)))
            label = f"{lrn.name}: converged, at any point (x, y) the final w classifies correctly (sign(0) in {{{ties}}})"
            add_case(profiles, facts, label, hyps, Step(claim.expr, translate(point, subs, None)))
    except NotTaken as e:
        return str(e)
    return OneStep(tuple(profiles), tuple(facts), what="the end of any run: where it did not converge, by what the claim "
                   "says of converged; where it did, at any point the final state classifies correctly (out == y)")


def _fold(tree, value: int):
    """The statement with converged = value: True, False, or what is left of it."""
    op = tree[0]
    if op == "cmp" and ("name", "converged") in tree[2]:
        if len(tree[1]) != 1 or any(p[0] != "num" and p != ("name", "converged") for p in tree[2]):
            raise NotTaken("it compares converged with more than a number")
        a, b = (Fraction(value) if p[0] == "name" else p[1] for p in tree[2])
        return _CMP[tree[1][0]](a, b)
    if op in ("and", "or"):
        items = [_fold(t, value) for t in tree[1]]
        if any(i is (op == "or") for i in items):
            return op == "or"
        rest = [i for i in items if not isinstance(i, bool)]
        return (op == "and") if not rest else rest[0] if len(rest) == 1 else (op, tuple(rest))
    if op == "not":
        inner = _fold(tree[1], value)
        return (not inner) if isinstance(inner, bool) else ("not", inner)
    if reads(tree, lambda t: t == ("name", "converged")):
        raise NotTaken("it reads converged other than compared with a number")
    return tree
