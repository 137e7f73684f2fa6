"""Two runs in lockstep: a pair claim (when = "pair") that the run with its learning rate scaled
(pair = "eta": 2 eta; "eta:c": c eta, for each c > 0) makes the same mistakes, or the same
decisions, from w0 = 0 and b0 = 0, proved for all dimensions, every dataset and every run of its
variants.

By induction over the visits, the partner's state is c times the first run's (at the start both
are 0).  At a visit of any point (x, y), from any state (w_prev, b_prev) and the partner's
(c w_prev, c b_prev): (1) the two decide alike (the partner's score is c times the first's, so
its sign, and out with the run's sign(0), are the same); (2) on a mistake, each update form keeps
the partner's state c times the first's.  So the runs visit, decide and update alike: the same
mistakes at the same visits and the same end, under every order the learner runs (each reads the
scores through their signs and their order, which a positive c keeps) and every budget (the same
counts for both); the pocket and a patience read only the decisions and the weights the run held
(perceptron.variants.Variant.scales).  Steps (1) and (2) are decided by verify.symbolic.steps.
A declared variant is not taken: what its run reads besides its updates is not stated here.
"""

from __future__ import annotations

import re

from verify.language import assumptions as A
from verify.symbolic.learners import learners_of
from verify.symbolic.run_facts import OneStep, add_case, compiled_step, facts_of_run, output_facts

__all__ = ["lockstep", "SCALED"]

#: The pairs whose partner runs with the learning rate scaled, and the factor as the proof names it.
SCALED = {"eta": "2", "eta:c": "pair_c"}


def lockstep(claim) -> OneStep | str:
    """The claim's cases (the decisions at a visit; each update form on a mistake), or why it is
    not taken (a text)."""
    if claim.when != "pair" or claim.relation is None or claim.pair not in SCALED:
        return "not a pair claim relating a run to the same run with its learning rate scaled"
    if A.W0_ZERO not in claim.assume or claim.setting is not None or claim.given is not None:
        return "the runs do not both start from w0 = 0, b0 = 0 (w0_zero), or the claim states a setting or a premise"
    if isinstance(lrns := learners_of(claim), str):
        return lrns
    if any(lrn.variant.declared or not lrn.variant.scales for lrn in lrns):
        return "one of its variants is declared or does not scale with its learning rate"
    c = SCALED[claim.pair]
    profiles, facts = [], []
    for lrn in lrns:
        var = lrn.variant

        def partner(text):  # the text about the first run, about the partner (c w_prev, c b_prev, c eta, out2)
            text = re.sub(r"\beta\b", f"({c}*eta)", re.sub(r"\bout\b", "out2", text))
            return lrn.at(text, f"({c}*w_prev)", f"({c}*b_prev)")

        hyps = (facts_of_run(claim, var, set()) + (["pair_c > 0"] if c == "pair_c" else []) + output_facts(claim, var, lrn.score)
                + [partner(h) for h in output_facts(claim, var, lrn.score)[:1]])
        add_case(profiles, facts, f"{lrn.name}: any state and the partner's, c times it; at a visit of any point",
                 hyps, compiled_step("out2 == out"))
        for form, w, b in lrn.forms:
            step = compiled_step(f"norm2({partner(w)} - {c}*({w})) == 0 and {partner(b)} == {c}*{b}")
            add_case(profiles, facts, f"{lrn.name}: on a mistake, the update w = {w}", hyps + [lrn.mistake], step)
    what = (f"by induction over the visits of the two runs from w0 = 0, b0 = 0, the partner's state c times the "
            f"first's (c = {c}): at each visit they decide alike, and each update keeps the partner's state c times "
            "the first's; so they make the same decisions and mistakes under every order and budget")
    return OneStep(tuple(profiles), tuple(facts), what=what)
