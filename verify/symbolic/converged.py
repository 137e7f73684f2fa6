"""A claim at the end of a run about its convergence, such as "when it stops, w separates the
points" (converged == 0 or min_i(y*dot(w, x)) > 0) or "it converges, or its budget stopped it
within the mistake bound" ((stopped_by_budget == 1 and mistakes <= B) or converged == 1),
proved for every run of its variants.

A claim that assumes ``converged`` is evaluated at the end of the runs that converged only (the
second case alone).  A run has converged exactly when its final state classifies every point correctly: out == y
with out = sign(score) and the run's sign(0) (perceptron.run); one that has not was stopped by
its budget (stopped_by_budget = 1 - converged: verify.replay.records).  So the statement is
proved in two cases.  converged = 0: what it says there (converged and stopped_by_budget read as
numbers) holds by itself, or is proved at any end of a run from the note's proved claims
(verify.symbolic.from_lemmas: no update, or the last update's state).  converged = 1: what it
says of every point (all_i(B), min_i(e) > c, max_i(e) < c, and their conjunctions) is proved at
one arbitrary point so classified, by any final state (every dataset has a point:
perceptron.datasets refuses an empty one), or, where it reads no point, as in the other case.
Any other use of the points, of converged or of stopped_by_budget is not taken.
"""

from __future__ import annotations

from fractions import Fraction

from verify.language import assumptions as A
from verify.symbolic.every_point import at_a_point, reads
from verify.symbolic.from_lemmas import given_lemmas
from verify.symbolic.learners import learners_of
from verify.symbolic.run_facts import (SEPARATOR, STATE, NotTaken, OneStep, Step, add_case, facts_of_run,
                                       output_facts, part_of, refused, statement, ties_of, translate)

__all__ = ["at_convergence"]

#: What such a claim may read: the final state, the run's constants, the separator, and the
#: points (inside its statements about every point).
_READS = STATE | SEPARATOR | {"eta", "R", "R2", "sign0", "w0", "mistakes", "converged", "stopped_by_budget", "x", "y",
                                "x_hat"}
_TRUE = ("cmp", ("==",), (("num", Fraction(1)), ("num", Fraction(1))))
#: How a run ended, each read as a number: stopped_by_budget = 1 - converged.
_ENDS = ("converged", "stopped_by_budget")
_CMP = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def at_convergence(claim, lemmas=()) -> OneStep | str:
    """The claim's two cases (not converged: by itself, or from the note's proved ``lemmas`` at any
    end of a run; converged: at a point the final state classifies correctly), or why it is not
    taken (a text)."""
    st = statement(claim) if claim.compiled is not None else None
    assumed = A.CONVERGED in claim.assume  # evaluated at the end of the runs that converged only
    if claim.when != "end" or st is None or not (st.names & set(_ENDS) or assumed):
        return "not a claim at the end of a run that reads converged or assumes it"
    if (why := refused(claim)) is not None or isinstance(lrns := learners_of(claim), str):
        return why or lrns
    reads_ = _READS.union(*(lrn.params for lrn in lrns))
    if not st.names <= reads_ or st.uses_prev:
        return f"it reads {', '.join(sorted(st.names - reads_)) or 'prev()'}, which convergence does not show"
    try:
        left = True if assumed else _fold(st.tree, 0)
        rest = _fold(st.tree, 1)
    except NotTaken as e:
        return str(e)
    if left is False or rest is False:
        return f"it is false wherever the run {'did not converge' if left is False else 'converged'}"
    profiles, facts, used = [], [], ()
    # where it converged, at a point the final state classifies correctly, unless it counts the
    # mistakes (which only the note's proved claims bound)
    counted = rest is not True and "mistakes" in part_of(rest).names
    for case, part, label in ((0, left, "not converged (stopped by its budget): "), (1, rest, "converged: ")):
        if part is True or (case == 1 and not counted):
            continue
        got = given_lemmas(claim, lemmas, part=part_of(part), case=label)
        if isinstance(got, str):
            return f"where the run {'did not converge' if case == 0 else 'converged'}, {got}"
        profiles += got.profiles
        facts += [f for f in got.facts if f not in facts]
        used = used or got.lemmas
    if (rest is not True and not counted) or not profiles:  # (a claim true by how it ended alone: at any point)
        try:
            _at_each_point(claim, lrns, at_a_point(rest) if rest is not True else _TRUE, st.names, profiles, facts)
        except NotTaken as e:
            return str(e)
    what = ("the end of any run: where it did not converge, " + ("by what the claim says of how it ended" if left is True
            else "what the claim says there, at any end of a run (no update, or the last update's state)")
            + "; where it did, " + ("by what the claim says of how it ended" if rest is True else
                                    "what the claim says there, at any end of a run" if counted
                                    else "at any point the final state classifies correctly (out == y)"))
    return OneStep(tuple(profiles), tuple(facts), used, what=what)


def _at_each_point(claim, lrns, point, names, profiles, facts) -> None:
    """The converged case at an arbitrary point (x, y) the final state classifies correctly."""
    for lrn in lrns:
        var = lrn.variant
        bias = var.bias is not None
        b = "b" if bias else "b0"
        subs = {"w": "w", "b": b, "w_hat": f"cat(w, {b}/R)", "x_hat": "cat(x, R)", "b_opt": "b_opt" if bias else "0",
                "w_hat_opt": f"cat(w_opt, {'b_opt' if bias else '0'}/R)", **lrn.params}
        if var.declared:  # (w, b/R) is 001's, and a declaration without b has none
            subs = {k: v for k, v in subs.items() if k not in ("w_hat", "x_hat", "w_hat_opt") and (bias or k != "b")}
        # correct: what would make it update (out != y for the built-in variants) is false
        hyps = (facts_of_run(claim, var, names) + output_facts(claim, var, lrn.at(lrn.score, "w", b))
                + ["out == y" if lrn.mistake == "out != y" else f"not ({lrn.at(lrn.mistake, 'w', b)})"])
        ties = ", ".join(map(str, ties_of(claim, var)))
        label = f"{lrn.name}: converged, at any point (x, y) the final w classifies correctly (sign(0) in {{{ties}}})"
        add_case(profiles, facts, label, hyps, Step(claim.expr, translate(point, subs, None)))


def _fold(tree, value: int):
    """The statement with converged = value (and stopped_by_budget = 1 - value): True, False, or
    what is left of it."""
    op = tree[0]
    ends = [p for p in tree[2] if p[0] == "name" and p[1] in _ENDS] if op == "cmp" else []
    if ends:
        if len(tree[1]) != 1 or len(ends) != 1 or any(p[0] != "num" and p not in ends for p in tree[2]):
            raise NotTaken(f"it compares {ends[0][1]} with more than a number")
        a, b = (Fraction(value if p[1] == "converged" else 1 - value) if p in ends else p[1] for p in tree[2])
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
    if reads(tree, lambda t: t[0] == "name" and t[1] in _ENDS):
        raise NotTaken("it reads converged or stopped_by_budget other than compared with a number")
    return tree
