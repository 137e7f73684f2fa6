"""One update, for every state before it: a claim evaluated at each update of a built-in variant
(a proof line such as |w|^2 <= |prev(w)|^2 + R^2), proved for all dimensions, every dataset and
every run at once.

The claim's names are replaced by what the variant makes of an arbitrary state before the
update: w by prev(w) + eta y x (or prev(w) + eta (y - out)/2 x), b by prev(b) plus the variant's
own bias step, score by prev(w).x + prev(b), out by sign(score) with the run's sign(0); and the
update happens only on a mistake, out != y.  What every update of every run of the variant
satisfies is stated as hypotheses, each a fact of the run (never of the claim): y^2 = 1,
eta > 0 (and the claim's and the variant's bound on it), |x|^2 <= R^2, and of a separator the
claim reads, |w_opt| = 1 and y (w_opt.x + b_opt) >= gamma > 0.  verify.symbolic.steps then
decides the claim over the Gram abstraction (sympy identities, z3), for every profile of the run
(sign(0), the update form) the claim's assumptions leave.

Only a claim that reads nothing but these names is taken (no aggregate over the points, no
look-back past the one update, no premise): a proof of a claim about one update needs nothing the
update does not show.  A claim that also reads k, sumsq or w0 (and no prev(), score or out) is
proved by induction over the updates: at the first (k = 1, from w0 and b0, 0 under w0_zero), and
at each later one (k >= 2) given the claim at the update before it, at its own point.  A claim this cannot prove is searched
as before; only "proved" at every profile changes its verdict.
"""

from __future__ import annotations

import dataclasses

from verify.language import assumptions as A
from verify.symbolic.converged import at_convergence
from verify.symbolic.every_point import about_every_point
from verify.symbolic.from_lemmas import given_lemmas, lemma_graph, lemmas_of, not_derived
from verify.symbolic.invariants import PREFIX, is_invariant
from verify.symbolic.learners import learners_of, premises_of
from verify.symbolic.lockstep import lockstep
from verify.symbolic.run_facts import (COUNTS, NAMES, SEPARATOR, TYPES, VECTORS, NotTaken, OneStep, Step, add_case,
                                       facts_of_run, margin_fact, output_facts, refused, statement, ties_of, translate,
                                       unit_norms)

__all__ = ["one_step", "taken", "prove_one_step", "prove_all"]


#: Hard limit of the proofs of a set of claims checked together (seconds): LIMIT, plus CASE_LIMIT
#: for each case (a run setting, a case of an induction); the proof lines of the notes decide in a
#: tenth of a second a case.
LIMIT, CASE_LIMIT = 30.0, 5.0
#: Time limit of one z3 query (seconds): the proof lines of the notes decide in a tenth of a
#: second; a query past it leaves the claim to the search, as an unprovable one does.
QUERY_LIMIT = 2.0


def one_step(claim) -> OneStep | str:
    """The claim as one update (or, at a visit, one state) of each of its variants, of a dataset
    (its points of each label as witnesses), or at the end of a run (for any final state its
    variants' runs allow, with no lemma), or why it is not taken (a text)."""
    if claim.when == "pair":
        return lockstep(claim)
    st = statement(claim) if claim.compiled is not None else None
    if claim.when == "end" and st is not None and (
            st.names & {"converged", "stopped_by_budget"} or (A.CONVERGED in claim.assume and st.uses_points)):
        return at_convergence(claim)
    if claim.when == "dataset" and st is not None and (claim.free or st.uses_points):
        return about_every_point(claim)
    if claim.when in ("dataset", "end"):
        return given_lemmas(claim, ())
    if claim.when not in ("update", "visit") or st is None:
        return "not a claim about each update or visit, a dataset or the end of a run"
    if (why := refused(claim)) is not None or isinstance(lrns := learners_of(claim), str):
        return why or lrns
    names = set(st.names)
    # at a visit, w is the state the visit works with (before its update), and score and out are its
    allowed = (NAMES | COUNTS if claim.when == "update" else NAMES).union(*(lrn.params for lrn in lrns))
    if not names <= allowed:
        return f"it reads {', '.join(sorted(names - allowed))}, which one {claim.when} does not show"
    counted = bool(names & COUNTS)
    if counted and (st.uses_prev or names & {"score", "out"}):
        return "it reads k, sumsq or w0 with prev(), score or out: no induction over the updates is taken for it"
    if st.uses_points or st.uses_prev > (claim.when == "update"):
        return "it reads the whole dataset or looks back further than the update"
    if claim.when == "update" and not _settings_left(claim, lrns):
        return "its assumptions leave no run setting of its variants (form_half on a variant with one form)"
    try:
        profiles, facts = [], []
        for lrn in lrns:
            for label, hyps, subs in _profiles(claim, lrn, names):
                for label, hyps, subs in (_induction(claim, lrn, names, label, hyps, subs) if counted
                                          else [(label, hyps, subs)]):
                    step = Step(claim.expr, translate(st.tree, subs, subs["prev"]))
                    add_case(profiles, facts, label, hyps, step)
    except NotTaken as e:
        return str(e)
    return OneStep(tuple(profiles), tuple(facts))


def _profiles(claim, lrn, names):
    """(label, hypotheses, substitutions) of each run setting of the learner ``lrn`` the claim's
    assumptions leave: sign(0) stays a symbol ranging over its values, the update form is one per
    profile.  At a visit, the state (w_prev, b_prev) is any state, and nothing is updated."""
    var, update = lrn.variant, claim.when == "update"
    ties = ties_of(claim, var)
    forms = lrn.forms if update else (("visit", "w_prev", "b_prev"),)
    if update and var.half_form:
        forms = tuple(f for f in forms if f[0] in A.narrowed(claim).get("forms", ("yx", "half")))
    bias = var.bias is not None
    # a built-in variant without a bias of its own keeps b where it started (a run may be given
    # --b0), and scores without it (perceptron.models.primal); a declared one has no b
    hyps = facts_of_run(claim, var, names) + (output_facts(claim, var, lrn.score) if update or "out" in names else [])
    if update:
        hyps += [lrn.mistake]
    for _, w, b in forms:
        subs = {"w": w, "b": b, "w_hat": f"cat({w}, {b}/R)", "x_hat": "cat(x, R)", "score": lrn.score,
                "w_hat_opt": f"cat(w_opt, {'b_opt' if bias else '0'}/R)", "b_opt": "b_opt" if bias else "0",
                **lrn.params}
        subs["prev"] = {**subs, "w": "w_prev", "b": "b_prev", "w_hat": "cat(w_prev, b_prev/R)"}
        if var.declared:  # (w, b/R) is 001's, and a declaration without b has none
            for key in ("w_hat", "x_hat", "w_hat_opt") + (() if bias else ("b",)):
                subs.pop(key)
                subs["prev"].pop(key)
        label = lrn.name + (f", sign(0) in {{{', '.join(map(str, ties))}}}" if var.tie is None and update else "")
        if update:
            label += f": w = {w}" + (f", b = {b.strip('()')}" if bias else "")
        yield label, hyps, subs


def _induction(claim, lrn, names, label, hyps, subs, lemmas=None):
    """The two cases of an induction over the updates of a claim that reads k, sumsq or w0: the
    first update (k = 1, from the start w0, b0: 0 under w0_zero), and a later one (k >= 2) given
    the claim at the update before it (at its own point x1, y1, with k - 1 and sumsq_prev).  Given
    the note's proved ``lemmas``, each holds at this update and at the one before, in place of the
    claim (which may then read prev(): the state before this update, w0 and b0 at the first)."""
    zero, var = A.W0_ZERO in claim.assume, lrn.variant
    w0, b0 = ("0*x" if zero else "w0"), ("0" if zero else "b0")

    def start(text):
        return lrn.started(text, w0, b0)

    def at(subs_, lems):
        return [Step(f"{lem.id} (proved) at {where}: {lem.expr}", translate(statement(lem).tree, subs_, subs_["prev"]))
                for lem in lems for where in ["this update" if subs_["k"] != "(k - 1)" else "the update before"]]

    first = {key: start(v) for key, v in subs.items() if key != "prev"}
    # prev(): the state before this update, with its count of updates and sum (0 and 0 at the start)
    first.update(k="1", sumsq="norm2(x)", w0=w0, prev=None if lemmas is None else
                 {**{key: start(v) for key, v in subs["prev"].items()}, "k": "0", "sumsq": "0"})
    if statement(claim).uses_prev < 2:  # (a claim that looks back two updates does not speak at the first)
        yield (f"{label}; the first update (k = 1, from w0)", [start(h) for h in hyps] + at(first, lemmas or []),
               first)
    # the state after the update before, and (for the lemmas there) the state before it: w_prev2,
    # b_prev2 (b stays b_prev on a variant without a bias of its own), after k - 2 updates (its sum
    # of |x|^2 is not stated: sumsq_prev2 is no symbol, so a claim that reads it is not taken)
    b2 = "b_prev2" if var.bias is not None else "b_prev"
    two = {"w": "w_prev2", "b": b2, "w_hat": f"cat(w_prev2, {b2}/R)", "k": "(k - 2)", "sumsq": "sumsq_prev2"}
    before = {**subs, "w": "w_prev", "b": "b_prev", "w_hat": "cat(w_prev, b_prev/R)", "x": "x1", "y": "y1",
              "x_hat": "cat(x1, R)", "k": "(k - 1)", "sumsq": "sumsq_prev", "w0": w0,
              "prev": None if lemmas is None else {**subs["prev"], **{key: v for key, v in two.items()
                                                                       if key in subs["prev"] or key in COUNTS}}}
    later = {**subs, "k": "k", "sumsq": "(sumsq_prev + norm2(x))", "w0": w0,
             "prev": None if lemmas is None else {**subs["prev"], "k": "(k - 1)", "sumsq": "sumsq_prev",
                                                  "prev": before["prev"]}}
    said = [Step(f"the claim at the update before (point x1, label y1, k - 1 updates): {claim.expr}",
                 translate(statement(claim).tree, before, None))] if lemmas is None else \
        at(before, lemmas) + at(later, lemmas)
    point = ["y1**2 == 1", "norm2(x1) <= R2"] + unit_norms(claim, var, "x1") + ([margin_fact(claim, var, "x1", "y1")]
                                                                               if names & SEPARATOR else [])
    yield (f"{label}; a later update (k >= 2), given the {'claim' if lemmas is None else 'lemmas'} at the one before",
           hyps + ["k >= 2", "sumsq_prev >= 0", "sumsq_prev <= (k - 1)*R2"] + point + said, later)


def _not_at_update(claim) -> str | None:
    """Why at_update takes no claim like this one whatever its lemmas, or None."""
    if claim.when != "update" or claim.compiled is None:
        return "not a claim about each update"
    if (why := refused(claim)) is not None or isinstance(lrns := learners_of(claim), str):
        return why or lrns
    st = statement(claim)
    if not set(st.names) <= (NAMES | COUNTS).union(*(lrn.params for lrn in lrns)) or st.uses_points or st.uses_prev > 2:
        return "it reads what one update does not show"
    if not _settings_left(claim, lrns):
        return "its assumptions leave no run setting of its variants"
    return None


def at_update(claim, lemmas) -> OneStep | str:
    """The claim at one update, its update substituted (prev(): the state before it), given the
    note's proved ``lemmas`` at this update and, after the first, at the one before; or why it is
    not taken (a text)."""
    if not lemmas or (why := _not_at_update(claim)) is not None:
        return why or "no proved claim of its note to derive it from"
    st = statement(claim)
    read = set(st.names).union(*(set(statement(lem).names) for lem in lemmas))
    try:
        profiles, facts = [], []
        for lrn in learners_of(claim):
            for label, hyps, subs in _profiles(claim, lrn, read):
                for label, hyps, subs in _induction(claim, lrn, read, label, hyps, subs, lemmas):
                    add_case(profiles, facts, label, hyps, Step(claim.expr, translate(st.tree, subs, subs["prev"])))
    except NotTaken as e:
        return str(e)
    return OneStep(tuple(profiles), tuple(facts), tuple(lem.id for lem in lemmas))


def _settings_left(claim, learners) -> bool:
    """Whether the claim's assumptions leave every one of its variants a run setting (sign(0),
    update form): a proof over no setting would prove anything."""
    narrowed = A.narrowed(claim)
    for lrn in learners:
        forms = {f for f, _, _ in lrn.forms}
        ties = (lrn.variant.tie,) if lrn.variant.tie is not None else (-1, 0, 1)
        if not forms & set(narrowed.get("forms", forms)) or not set(ties) & set(narrowed.get("sign0s", ties)):
            return False
    return True


def taken(claim) -> bool:
    """Whether the claim is one this module tries to prove, by itself or from its note's proved
    claims (cheap: no solver is started)."""
    return not isinstance(one_step(claim), str) or not_derived(claim) is None or _not_at_update(claim) is None


def prove_one_step(claim) -> dict | None:
    """The evidence of the claim's proof over one update (method, hypotheses, the step at each
    profile), or None when it is not taken or not proved at every profile."""
    return prove_all([claim])[claim.id]


#: Rounds of derivation from proved claims (one proved in a round is a lemma of the next): the
#: proofs of the notes build on their lemmas two levels deep (001: Lemmas 1-3, then its Theorem and
#: the bound at the end; a third round proved nothing more in the five notes or the margin lesson).
MAX_ROUNDS = 2


def prove_all(claims, notes=()) -> dict:
    """prove_one_step of each claim (id -> its evidence or None), and then, for a claim not proved
    so, its proof from the claims of its note proved before it (given_lemmas; ``notes``: the
    claims of the notes, each proved here as needed), in up to MAX_ROUNDS rounds.  Each round's
    cases are checked in one child process, under a hard limit of LIMIT seconds plus CASE_LIMIT a
    case; only "proved" at every case of a claim counts."""
    graph = lemma_graph(list({c.id: c for c in [*notes, *claims]}.values()))
    wanted = {c.id: c for c in claims}
    for c in claims:
        wanted.update({lem.id: lem for lem in lemmas_of(c.id, graph)})
    lemmas = {i: graph.get(i, []) for i in wanted}
    proved = _proved({i: [one_step(c)] for i, c in wanted.items()}, wanted)
    tried: dict = {}
    for _ in range(MAX_ROUNDS):
        todo = {}
        for i, c in wanted.items():
            got = [lem for lem in lemmas[i] if lem.id in proved]
            if i not in proved and got and tried.get(i) != len(got):
                tried[i] = len(got)
                todo[i] = got
        # first with each inner product and norm a scalar of its own (fast where a proof chains
        # its lemmas), then over the Gram matrix (where it needs what the vectors are), then at the
        # update itself, given the lemmas at it and at the one before
        # (at the update, the invariants of its run alone first: a note's own lemma that restates the
        # update as a vector equation can stall z3 where they suffice)
        done = _proved({i: [given_lemmas(wanted[i], got, abstract=True), given_lemmas(wanted[i], got),
                            *([at_update(wanted[i], stated)] if 0 < len(stated := [lem for lem in got if is_invariant(lem)])
                              < len(got) else []),
                            at_update(wanted[i], got), at_convergence(wanted[i], got)] for i, got in todo.items()},
                       wanted)
        if not done:  # nothing new to derive from
            break
        proved.update(done)
    return {c.id: proved.get(c.id) for c in claims}


def _proved(attempts: dict, claims: dict) -> dict:
    """The evidence of each claim (id -> its attempts, each a OneStep or why it is not taken) by
    the first of its attempts proved at every case (the later tried only where the earlier fail)."""
    from verify.symbolic.steps import check_first

    taken_ = {i: [got for got in tries if not isinstance(got, str) and got.profiles] for i, tries in attempts.items()}
    taken_ = {i: [_with_premises(claims[i], got) for got in tries] for i, tries in taken_.items() if tries}
    groups = [[[(hyps, [step]) for _, hyps, step in got.profiles] for got in tries] for tries in taken_.values()]
    n = sum(len(got.profiles) for tries in taken_.values() for got in tries)
    results = check_first(list(VECTORS), [s for s in TYPES if s not in VECTORS], groups, QUERY_LIMIT,
                          LIMIT + CASE_LIMIT * n) if groups else []
    out = {}
    for (i, tries), res in zip(taken_.items(), results):
        if res is not None:
            out[i] = _evidence(claims[i], tries[res[0]], [r[0] for r in res[1]])
    return out


def _with_premises(claim, got: OneStep) -> OneStep:
    """The proof with the premises of the claim's learners (verify.symbolic.learners: the dual
    form's score), each a case of its own, where it does not have them already."""
    lrns = learners_of(claim)
    have = {label for label, _, _ in got.profiles}
    extra = tuple(c for c in premises_of(lrns if not isinstance(lrns, str) else ()) if c[0] not in have)
    facts = tuple(dict.fromkeys([*got.facts, *(h.source for _, hyps, _ in extra for h in hyps)]))
    return dataclasses.replace(got, profiles=got.profiles + extra, facts=facts) if extra else got


def _evidence(claim, got: OneStep, res) -> dict:
    steps = [{"step": f"{label}; {step.source}", "verdict": r.verdict.label, "method": r.method}
             for (label, _, step), r in zip(got.profiles, res)]
    own = [i for i in got.lemmas if not i.startswith(PREFIX)]
    stated = [i[len(PREFIX):] for i in got.lemmas if i.startswith(PREFIX)]
    derived = " and ".join(([f"the note's proved claims {', '.join(own)}"] if own else [])
                           + ([f"the invariants of its run, each proved here by induction over the updates "
                               f"({'; '.join(stated)})"] if stated else []))
    if got.lemmas and got.what:
        what = f"{got.what}; derived from {derived}"
    elif got.lemmas:
        what = (f"derived from {derived}: for any "
                + {"update": "state at an update they allow", "end": "end of a run (no update, or the last update's "
                   "state: what they allow)", "dataset": "dataset (a point of each label under nontrivial)"}[claim.when])
        if got.abstract:
            what += "; each inner product and norm a number of its own, related by Cauchy-Schwarz"
    elif got.what:
        what = got.what
    elif claim.when == "update":
        what = ("one update, for every state before it (w_prev, b_prev: prev(w), prev(b)), on a mistake (out != y), "
                "each run setting's update substituted")
    else:
        what = {"visit": "every state (w_prev, b_prev: w, b) at a visit of any point",
                "end": "the end of any run: no update (w0, b0, mistakes = 0) or the last update's state",
                "dataset": "every dataset (under nontrivial: a point of each label, xp and xn)"}[claim.when]
    if any("the first update" in label for label, _, _ in got.profiles):
        what += ("; by induction over the updates: the first (k = 1, from w0, b0) and each later one given the claim "
                 "at the one before")
    out = {"method": f"{what}; for all dimensions, by sympy and z3 over inner products (the hypotheses: facts of "
                     "every run of the variant; a variant without a bias of its own keeps b at b0 and scores "
                     "without it)", "hypotheses": list(got.facts), "steps": steps}
    return {**out, "lemmas": list(got.lemmas)} if got.lemmas else out
