"""Two runs in lockstep: a pair claim (when = "pair") that two runs make the same mistakes, or the
same decisions, proved for all dimensions, every dataset and every run of its variants, where the
partner runs with the learning rate scaled (pair = "eta": 2 eta; "eta:c": c eta, for each c > 0)
from w0 = 0, b0 = 0, or is another variant (pair = "variant:NAME") that starts where the claim's
runs do (w0_zero, or the dual form, which starts at 0).

By induction over the visits, the partner's state is c times the first run's (c = 1 for another
variant; at the start both are 0).  At a visit of any point (x, y), from any state (w_prev,
b_prev) and the partner's (c w_prev, c b_prev): (1) the two decide alike (the partner's score is
c times the first's, or the other variant's at the same state: its sign, and out with the run's
sign(0), are the same); (2) on a mistake, each update form keeps the partner's state c times the
first's (another variant's update of the same form, or its only one).  So the runs visit, decide
and update alike: the same mistakes at the same visits and the same end, under every order the
learner runs (each reads the scores through their signs and their order, which a positive c
keeps) and every budget (the same counts for both); the pocket and a patience read only the
decisions and the weights the run held (perceptron.variants.Variant.scales), and another variant
is taken only with the same unit norm, pocket, patience, visit order and sign(0).  Steps (1) and
(2) are decided by verify.symbolic.steps.  A declared variant is not taken: what its run reads
besides its updates is not stated here.
"""

from __future__ import annotations

import dataclasses
import re

from verify.language import assumptions as A
from verify.symbolic.learners import learners_of, premises_of
from verify.symbolic.run_facts import OneStep, add_case, compiled_step, facts_of_run, output_facts, ties_of

__all__ = ["lockstep", "SCALED"]

#: The pairs whose partner runs with the learning rate scaled, and the factor as the proof names it.
SCALED = {"eta": "2", "eta:c": "pair_c"}


def lockstep(claim) -> OneStep | str:
    """The claim's cases (the decisions at a visit; each update form on a mistake), or why it is
    not taken (a text)."""
    pair = claim.pair or ""
    if claim.when != "pair" or claim.relation is None or not (pair in SCALED or pair.startswith("variant:")):
        return "not a pair claim relating a run to the same run with its learning rate scaled, or to another variant"
    if claim.setting is not None or claim.given is not None:
        return "the claim states a setting or a premise"
    if isinstance(lrns := learners_of(claim), str):
        return lrns
    if any(lrn.variant.declared for lrn in lrns):
        return "one of its variants is declared"
    if pair in SCALED:
        c, others = SCALED[pair], lrns
        if A.W0_ZERO not in claim.assume or not all(lrn.variant.scales for lrn in lrns):
            return "the runs do not both start from w0 = 0, b0 = 0 (w0_zero), or a variant does not scale with eta"
    else:
        c, others = "1", learners_of(dataclasses.replace(claim, variants=(pair.split(":", 1)[1],)))
        if isinstance(others, str):
            return others
        others = others * len(lrns)
        if not (A.W0_ZERO in claim.assume or all(lrn.variant.dual for lrn in lrns)):
            return "the runs do not both start from w0 = 0 (w0_zero, or the dual form)"
        if any(o.variant.declared or ties_of(claim, o.variant) != ties_of(claim, lrn.variant)
               or not _runs_alike(o.variant, lrn.variant) for lrn, o in zip(lrns, others)):
            return "the other variant is declared, or differs in its sign(0), unit norm, pocket, patience or visit order"
    profiles, facts = [], []
    for lrn, other in zip(lrns, others):
        var = lrn.variant

        def partner(text, o=other):  # a text about the other run, about (c w_prev, c b_prev, c eta, out2)
            text = re.sub(r"\bout\b", "out2", text)
            if o is lrn:
                text = re.sub(r"\beta\b", f"({c}*eta)", text)
            return o.at(text, f"({c}*w_prev)", f"({c}*b_prev)")

        hyps = (facts_of_run(claim, var, set()) + (["pair_c > 0"] if c == "pair_c" else []) + output_facts(claim, var, lrn.score)
                + [partner(h) for h in output_facts(claim, other.variant, other.score)[:1]])
        label = f"{lrn.name}" + (f" and {other.name}" if other is not lrn else "")
        add_case(profiles, facts, f"{label}: any state and the partner's, {c} times it; at a visit of any point",
                 hyps, compiled_step("out2 == out"))
        forms = dict((f, (w, b)) for f, w, b in other.forms)
        for form, w, b in lrn.forms:
            pw, pb = forms.get(form, forms.get("yx", (None, None)))
            if pw is None:
                return f"{other.name} has no update of the form {form}"
            step = compiled_step(f"norm2({partner(pw)} - {c}*({w})) == 0 and {partner(pb)} == {c}*{b}")
            add_case(profiles, facts, f"{label}: on a mistake, the update w = {w}", hyps + [lrn.mistake], step)
    what = (f"by induction over the visits of the two runs from w = 0, b = 0, the partner's state c times the "
            f"first's (c = {c}): at each visit they decide alike, and each update keeps the partner's state c times "
            "the first's; so they make the same decisions and mistakes under every order and budget")
    profiles += [case for case in premises_of(others) if case[0] not in {p[0] for p in profiles}]  # (the partner's: the dual form's)
    return OneStep(tuple(profiles), tuple(facts), what=what)


def _runs_alike(a, b) -> bool:
    """Whether two variants' runs see the same data (unit norm), end alike (pocket, patience) and
    visit in the same order: what another variant's run must share with the claim's for the runs
    to be compared visit by visit."""
    return a.unit == b.unit and a.pocket == b.pocket and a.patience == b.patience and a.order == b.order
