"""A claim derived from the claims of its note already proved (its lemmas): for any state the
lemmas allow at an update (w, b, k, sumsq: nothing substituted), at the end of a run (no update:
w0, b0, mistakes = 0; or the last update's state, mistakes = k), or of a dataset (a point of each
label under nontrivial).  A lemma is a hypothesis only where it holds wherever the claim is
evaluated (lemma_of: the same note, no more assumptions, no fewer variants, defined wherever the
claim's facts hold); one proved by verify.symbolic.one_step holds at every update of every run
its assumptions allow.  A proof is tried first with each inner product and norm a number of its
own, related by Cauchy-Schwarz (fast where the proof chains its lemmas), then over the Gram
matrix.
"""

from __future__ import annotations

from fractions import Fraction

from perceptron.variants import VARIANTS as BUILT_IN
from verify.language import assumptions as A
from verify.symbolic.invariants import invariants_of, is_invariant
from verify.symbolic.learners import learners_of
from verify.symbolic.run_facts import (COUNTS, DATASET_NAMES, END_NAMES, MAX_ATOMS, NAMES, SEPARATOR, NotTaken,
                                       OneStep, Step, add_case, children, compiled_step, facts_of_run, refused,
                                       statement, translate)

__all__ = ["given_lemmas", "not_derived", "lemma_of", "lemma_graph", "lemmas_of", "MAX_PAIRINGS", "MAX_LEMMAS"]


def given_lemmas(claim, lemmas, abstract=False, part=None, case="") -> OneStep | str:
    """The claim for any state the note's proved ``lemmas`` allow, nothing substituted, or why it is
    not taken: at an update (w, b, k, sumsq: any values the lemmas at that update leave; the point
    updated on), at the end of a run (no update: w0, b0, mistakes = 0; or the last update's
    state, mistakes = k >= 1), of a dataset (under nontrivial, a point of each label).  ``part``:
    what is left of the statement in one ``case`` of a proof (verify.symbolic.converged), proved
    in its place (a Statement)."""
    st = part or statement(claim)
    if (why := not_derived(claim, st)) is not None:
        return why
    lemmas = [lem for lem in lemmas if not statement(lem).uses_prev]  # (at any state, no update before is stated)
    if claim.when == "update" and not lemmas:  # one_step proves it with the update itself
        return "no proved claim of its note to derive it from"
    read = set(st.names).union(*(set(statement(lem).names) for lem in lemmas))
    try:
        profiles, facts = [], []
        for lrn in learners_of(claim):
            for label, hyps, subs, updated in _states(claim, lrn, read):
                said = [Step(f"{lem.id} (proved): {lem.expr}", translate(statement(lem).tree, subs, None))
                        for lem in lemmas if updated or lem.when == "dataset"]
                step = Step(claim.expr, translate(st.tree, subs, None))
                hyps_ = [h if isinstance(h, Step) else compiled_step(h) for h in hyps] + said
                if abstract:
                    hyps_, step = _abstract(hyps_, step)
                else:
                    hyps_ += _cauchy_schwarz([*said, step])
                add_case(profiles, facts, case + label, hyps_, step)
    except NotTaken as e:
        return str(e)
    return OneStep(tuple(profiles), tuple(facts), tuple(lem.id for lem in lemmas), abstract)


def _abstract(hyps, step):
    """The hypotheses and the step with each inner product and norm a scalar of its own (atomN),
    related only by what holds of all vectors: |u|^2 >= 0, norm(u) = sqrt(|u|^2) and
    Cauchy-Schwarz; or they are returned as they are when there are more than MAX_ATOMS."""
    atoms: dict = {}

    def atom(key):
        if key not in atoms:
            if len(atoms) >= MAX_ATOMS:
                raise NotTaken("too many inner products")
            atoms[key] = ("name", f"atom{len(atoms)}")
        return atoms[key]

    def norm2(u):
        return atom(("norm2", u))

    def walk(t):
        if t[0] == "call" and t[1] in ("dot", "norm2", "norm"):
            u, v = (t[2][0], t[2][1 if t[1] == "dot" else 0])
            if u == v:
                return norm2(u) if t[1] != "norm" else ("call", "sqrt", (norm2(u),))
            norm2(u), norm2(v)
            return atom(("dot",) + tuple(sorted((u, v), key=repr)))
        if not isinstance(t, tuple):
            return t
        return tuple(walk(p) if isinstance(p, tuple) and p and isinstance(p[0], str)
                     else tuple(walk(q) for q in p) if isinstance(p, tuple) else p for p in t)

    try:
        hyps_ = [Step(h.source, walk(h.tree)) for h in hyps]
        step_ = Step(step.source, walk(step.tree))
    except NotTaken:
        return hyps, step
    zero = ("num", Fraction(0))
    for key, name in atoms.items():
        if key[0] == "norm2":
            hyps_.append(Step("each |u|^2 >= 0", ("cmp", (">=",), (name, zero))))
        else:
            hyps_.append(Step("Cauchy-Schwarz: dot(u, v)**2 <= norm2(u)*norm2(v) for each inner product read",
                               ("cmp", ("<=",), (("pow", name, 2), ("bin", "*", atoms[("norm2", key[1])],
                                                                     atoms[("norm2", key[2])])))))
    return hyps_, step_


def _cauchy_schwarz(steps) -> list:
    """Cauchy-Schwarz, dot(u, v)^2 <= |u|^2 |v|^2, for each inner product of two vectors the steps
    read: a fact of all vectors, which z3 finds slowly from the Gram matrix's minors when a
    proof chains it with lemmas."""
    seen, out = set(), []

    def walk(t):
        if t[0] == "call" and t[1] == "dot" and t[2][0] != t[2][1] and t not in seen:
            seen.add(t)
            u, v = t[2]
            out.append(Step("Cauchy-Schwarz: dot(u, v)**2 <= norm2(u)*norm2(v) for each inner product read",
                             ("cmp", ("<=",), (("pow", t, 2), ("bin", "*", ("call", "norm2", (u,)),
                                                                 ("call", "norm2", (v,)))))))
        for c in children(t):
            walk(c)

    for st in steps:
        walk(st.tree)
    return out


def not_derived(claim, st=None) -> str | None:
    """Why given_lemmas takes no claim like this one (or its part ``st``) whatever its lemmas, or None."""
    allowed = {"update": NAMES - {"score", "out"} | COUNTS, "end": END_NAMES, "dataset": DATASET_NAMES}.get(claim.when)
    if allowed is None or claim.compiled is None:
        return "not a claim about each update, a dataset or the end of a run"
    if (why := refused(claim)) is not None or isinstance(lrns := learners_of(claim), str):
        return why or lrns
    st = st or statement(claim)
    names = set(st.names)
    allowed = allowed.union(*(lrn.params for lrn in lrns))
    if not names <= allowed:
        return f"it reads {', '.join(sorted(names - allowed))}, which {_WHERE[claim.when]} does not show"
    if st.uses_points or st.uses_prev:
        return "it reads the whole dataset or looks back an update"
    return None


_WHERE = {"update": "a state at an update", "end": "the end of a run", "dataset": "a dataset"}


def _states(claim, lrn, names):
    """(label, hypotheses, substitutions, whether an update was made) of each state of given_lemmas."""
    zero, var = A.W0_ZERO in claim.assume, lrn.variant
    w0, b0 = ("0*x" if zero else "w0"), ("0" if zero else "b0")
    bias = var.bias is not None
    opt = {"w_hat_opt": f"cat(w_opt, {'b_opt' if bias else '0'}/R)", "b_opt": "b_opt" if bias else "0", **lrn.params}
    if claim.when == "dataset":  # a point of each label, where the dataset has both
        both = [("xp", "1"), ("xn", "(-1)")] if A.NONTRIVIAL in claim.assume else []
        label = lrn.name + (", a point of each label (xp, xn)" if both else "")
        yield label, facts_of_run(claim, var, names, both), _own(lrn, opt), False
        return
    b = "b" if bias else b0
    subs = {**opt, "w": "w", "b": b, "w_hat": f"cat(w, {b}/R)", "x_hat": "cat(x, R)", "k": "k", "sumsq": "sumsq",
            "w0": w0, "mistakes": "k"}
    counts = ["k >= 1"] + (["sumsq >= norm2(x)", "sumsq <= k*R2"] if "sumsq" in names else [])
    if claim.when == "end":
        w, b = lrn.started("w_prev", w0, b0), lrn.started("b_prev", w0, b0)
        start = {**subs, "w": w, "b": b, "w_hat": f"cat({w}, {b}/R)", "mistakes": "0"}
        yield f"{lrn.name}: no update (mistakes = 0, w = w0)", facts_of_run(claim, var, names, []), _own(lrn, start), False
        yield (f"{lrn.name}: the last update (mistakes = k >= 1, at its point x, y)",
               facts_of_run(claim, var, names) + counts, _own(lrn, subs), True)
        return
    yield (f"{lrn.name}: any state at an update (w, b, k) its proved claims allow",
           facts_of_run(claim, var, names) + counts, _own(lrn, subs), True)


def _own(lrn, subs: dict) -> dict:
    """The substitutions a learner has: a declared one has no (w, b/R), nor a b unless its state has one."""
    if not lrn.variant.declared:
        return subs
    drop = {"w_hat", "x_hat", "w_hat_opt"} | (set() if lrn.variant.bias is not None else {"b"})
    return {k: v for k, v in subs.items() if k not in drop}


def lemma_of(lemma, claim) -> bool:
    """Whether ``lemma``, once proved, holds wherever ``claim`` is evaluated and may be a hypothesis
    of its proof: a claim of the same note about each update (for a claim at an update or at the
    end of a run) or about the dataset, with no more assumptions and no fewer variants, stating no
    other run, and defined wherever the claim's own facts hold (its divisors eta, gamma, R where
    R > 0 is one; a separator where the claim has one)."""
    if (lemma.id == claim.id or lemma.document != claim.document or refused(lemma) is not None
            or isinstance(learners_of(lemma), str) or claim.compiled is None or lemma.when not in ("update", "dataset")
            or (lemma.when == "update" and claim.when not in ("update", "end"))):
        return False
    names, own = set(statement(lemma).names), set(statement(claim).names)
    # a lemma that looks back one update serves a claim that looks back two (one_step.at_update
    # states it at this update and the one before; no other proof states the update before); a
    # claim that looks back one is proved from the update itself (given them, the notes' proofs
    # took a quarter longer and proved nothing more)
    looks_back = statement(lemma).uses_prev > (claim.when == "update" and statement(claim).uses_prev > 1)
    if looks_back or statement(lemma).uses_points or names & {"score", "out"}:
        return False
    if not (set(lemma.assume) <= set(claim.assume)
            and set(claim.variants or BUILT_IN) <= set(lemma.variants or BUILT_IN)
            and lemma.setting in (None, claim.setting) and lemma.separator in ("any", claim.separator)):
        return False
    if names & SEPARATOR and not (own & SEPARATOR or A.SEPARABLE in claim.assume):
        return False
    # R > 0 where the claim reads (w, b/R), or where a separator and both labels make a point non-zero
    r_positive = bool(own & {"w_hat", "w_hat_opt"}) or (A.NONTRIVIAL in claim.assume
                                                       and bool(own & SEPARATOR or A.SEPARABLE in claim.assume))
    return (r_positive or not names & {"w_hat", "w_hat_opt"}) and _defined(statement(lemma).tree, r_positive)


#: Most pairings of a note's claims with their possible lemmas weighed (claims that may be derived
#: times claims that may serve): a note's few dozen make about a thousand; past it (a file of
#: thousands of claims), no claim of that note is derived from its lemmas, each is still proved on
#: its own.
MAX_PAIRINGS = 40_000
#: Most lemmas one proof takes as hypotheses, those nearest the claim in its note: 001's Theorem
#: rests on eight; a few dozen more would only slow the solver.
MAX_LEMMAS = 24


def lemma_graph(notes) -> dict:
    """Claim id -> the claims of ``notes`` its proof may take as hypotheses (lemma_of, at most
    MAX_LEMMAS: the invariants stated for a claim like it (verify.symbolic.invariants: those from
    w0 = 0 for one that starts there, from w0 for one that may start anywhere), then the nearest in
    the note), for every claim of ``notes``."""
    by_note: dict = {}
    for c in notes:
        by_note.setdefault(c.document, []).append(c)
    graph: dict = {}
    for claims in by_note.values():
        serving = [c for c in claims if c.when in ("update", "dataset") and refused(c) is None] + invariants_of(claims)
        derived = [c for c in claims if c.when in ("update", "end", "dataset") and c.compiled is not None]
        if len(serving) * len(derived) > MAX_PAIRINGS:
            continue
        for c in derived:
            own = {lem.expr for lem in invariants_of([c])}  # the invariants stated for the claim itself
            got = [lem for lem in serving if lemma_of(lem, c) and (not is_invariant(lem) or lem.expr in own)]
            # each invariant once, under the most assumptions the claim has (the likeliest proved)
            best = {lem.expr: lem for lem in sorted(got, key=lambda lem: len(lem.assume)) if is_invariant(lem)}
            got = [lem for lem in got if not is_invariant(lem) or best[lem.expr] is lem]
            key = (lambda lem: (not is_invariant(lem), abs(lem.line - c.line), lem.line))  # the invariants first
            near = {lem.id for lem in sorted(got, key=key)[:MAX_LEMMAS]}
            graph[c.id] = [lem for lem in got if lem.id in near]
    return graph


def lemmas_of(claim_id: str, graph: dict) -> list:
    """The claims a proof of the claim may rest on (lemma_graph): its lemmas, theirs, and so on (a
    finding read back from a cache depends on each of them), in the order first met."""
    out: dict = {}
    todo = [claim_id]
    while todo:
        for lem in graph.get(todo.pop(), ()):
            if lem.id not in out and lem.id != claim_id:
                out[lem.id] = lem
                todo.append(lem.id)
    return list(out.values())


def _defined(tree, r_positive: bool) -> bool:
    """Whether every divisor and square root of the expression is defined wherever a run's facts
    hold (a lemma with no value somewhere is no hypothesis there)."""
    op = tree[0]
    if op == "bin" and tree[1] == "/" and _sign(tree[3], r_positive) != 1:
        return False
    if op == "pow" and tree[2] < 0 and _sign(tree[1], r_positive) != 1:
        return False
    if op == "call" and tree[1] == "sqrt" and _sign(tree[2][0], r_positive) is None:
        return False
    return all(_defined(t, r_positive) for t in children(tree))


def _sign(tree, r_positive: bool) -> int | None:
    """1 where the expression is positive wherever a run's facts hold, 0 where it is only
    non-negative, None where neither is shown (eta, gamma > 0; k, R, norms >= 0)."""
    op = tree[0]
    if op == "num":
        return 1 if tree[1] > 0 else 0 if tree[1] == 0 else None
    if op == "name":
        return 1 if tree[1] in ("eta", "gamma") or (r_positive and tree[1] in ("R", "R2")) else \
            0 if tree[1] in ("k", "mistakes", "sumsq", "R", "R2") else None
    if op == "call" and tree[1] in ("norm", "norm2", "abs"):
        return 0
    if op == "call" and tree[1] == "sqrt":
        return _sign(tree[2][0], r_positive)
    if op == "pow":
        got = _sign(tree[1], r_positive)
        return got if got is not None else (0 if tree[2] % 2 == 0 else None)
    if op == "bin" and tree[1] in ("+", "*", "/"):
        a, b = _sign(tree[2], r_positive), _sign(tree[3], r_positive)
        if a is None or b is None or (tree[1] == "/" and b != 1):
            return None
        return max(a, b) if tree[1] == "+" else min(a, b)
    return None
