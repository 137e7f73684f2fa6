"""The claim language's vocabulary and the compilation of a claim's expressions: when a claim
is evaluated, the relations and partners of a pair claim, the free names, each expression
(expr, given, a pair's condition, a symbolic claim's steps) compiled and checked against the
quantities that exist where the claim is evaluated.  verify.language.claims reads a claim file
with them."""

from __future__ import annotations

import re

from perceptron.declared import variant_of
from perceptron.variants import VARIANTS
from verify.language.expr import Compiled, ExprError, compile_expr
from verify.language.quantities import PREVIOUS_SWEEP, SWEEP_QUANTITIES, TYPES

__all__ = ["WHEN", "RELATIONS", "PAIRS", "PAIR_NAMES", "MAX_FREE", "END_NAMES", "STEP_NAMES", "SWEEP_NAMES", "RUN_NAMES", "compile_given", "compile_condition",
           "check_pair", "compile_claim_expr", "free_names", "names_with"]

WHEN = {
    "visit": "every visit of every applicable trace",
    "update": "every update (prev(...) refers to the values before it)",
    "end": "once at the end of every applicable run",
    "dataset": "once per dataset (with its certificate)",
    "once": "once: a closed statement about numbers",
    "symbolic": "for all dimensions: steps checked by sympy and z3 over inner products",
    "pair": "once per applicable run: the run against the run `pair` names (its `relation` or `expr`: see pair claims below)",
}

#: Relations a pair claim may state between its two runs.
RELATIONS = {
    "same_mistakes": "the two runs update on the same points in the same order",
    "same_decisions": "the two runs make the same mistake decision at every visit",
}
#: What a pair claim's second run changes.  With ":c", c is a quantifier the audit varies over
#: PAIR_C: "eta:c" (the partner runs with c eta), "scale:c" (on the data c x), "translate:c" (on
#: the data x + c, every coordinate), "w0:c" (from c w0); "flip" runs on the data with every
#: label negated, "reverse" on the points in reverse order, "order:NAME" in another order.
PAIRS = ("eta", "arithmetic", "variant:NAME", "order:NAME", "eta:c", "scale:c", "translate:c", "w0:c", "flip",
         "reverse")
#: The partner run's values a pair claim's expr may name, as other_NAME (at the end of both runs).
PAIR_NAMES = {"w": "vector", "b": "scalar", "mistakes": "scalar", "epochs": "scalar", "converged": "scalar"}
#: Most free names in one claim (each multiplies the values evaluated).
MAX_FREE = 3


#: Quantities that exist only at some evaluation points (a visit or update is about its point,
#: label, score, number: prev() cannot go back to them).
STEP_NAMES = {"x", "y", "score", "out", "x_hat", "t", "i"}
SWEEP_NAMES = set(SWEEP_QUANTITIES) | set(PREVIOUS_SWEEP)
#: What only the end of a run has (the pocket's weights and errors).
END_NAMES = {n for v in VARIANTS.values() if v.pocket for n in v.defines}
RUN_NAMES = {"w", "b", "w_hat", "k", "eta", "w0", "epochs", "mistakes", "converged", "stopped_by_budget", "sumsq", "sign0", "alpha",
              "w_pocket", "pocket_errors", "min_visited_errors", "kernel_degree", "kernel_offset"}


def compile_given(c: dict, when, lists: dict, free: dict, where, problem):
    """The premise (``given``): a condition on the same names as expr, where the claim applies."""
    src = c.get("given")
    if src is None:
        return None
    if when in ("symbolic", "pair", "once"):
        problem(*where("given"), f"given is a premise on a run or a dataset; a claim with when = {when!r} has none")
        return None
    if not isinstance(src, str):
        return None  # reported with the other string fields
    return compile_condition("given", src, when, lists, free, where, problem)


def compile_condition(key: str, src: str, when, lists: dict, free: dict, where, problem):
    """The field ``key`` (expr, given) compiled against the claim's names, available where the
    claim is evaluated, and a condition; None after reporting why not."""
    try:
        names = names_with(free, lists.get("variants", ()))
        compiled = compile_expr(src, names)
        _check_availability(compiled, when, free, _declares_alpha(lists.get("variants", ())))
    except ExprError as e:
        ln, col = where(key)
        problem(ln, col + (e.col or 1), f"in {key}: {e.message}")
        return None
    if compiled.type != "bool":
        problem(*where(key), f"{key} must be a condition (a comparison), not a number or vector")
        return None
    return compiled


def _order_ok(order: str) -> bool:
    from perceptron.params import ParamError, parse_order

    try:
        parse_order(order)
    except ParamError:
        return False
    return True


def check_pair(c: dict, when, pair, where, problem):
    """A pair claim names its second run and a relation; no other claim may."""
    if when == "pair":
        if not isinstance(pair, str) or not (pair in PAIRS and not pair.endswith(":NAME") or
                                             (pair.startswith("variant:") and variant_of(pair[8:]) is not None) or
                                             (pair.startswith("order:") and _order_ok(pair[6:]))):
            problem(*where("pair" if "pair" in c else "when"),
                    f"pair = {pair!r}; a pair claim needs pair = one of {', '.join(PAIRS)} "
                    f"(variant:NAME with NAME one of {', '.join(VARIANTS)}; order:NAME with an order the learner "
                    "runs: first, cyclic, random:SEED, max-violation, sequence:I,J,...)")
        if ("expr" in c) == ("relation" in c):
            problem(*where("relation" if "relation" in c else "when"),
                    "a pair claim states either a relation (" + ", ".join(RELATIONS) + ") or an expr on both runs' "
                    "ends (other_mistakes, other_w, ...), not both")
        elif "relation" in c and c.get("relation") not in RELATIONS:
            problem(*where("relation"), f"relation = {c.get('relation')!r}; choose one of {', '.join(RELATIONS)}")
        if "at" in c and (c["at"] not in ("end", "update") or "expr" not in c):
            problem(*where("at"), f"at = {c['at']!r}: a pair expr is evaluated at \"end\" (both runs' ends, the "
                    "default) or at \"update\" (each aligned update: the k-th of one run beside the k-th of the other)")
    elif "at" in c:
        problem(*where("at"), "at belongs to when = \"pair\" claims with an expr")
    if when != "pair" and ("pair" in c or "relation" in c):
        problem(*where("pair" if "pair" in c else "relation"), "pair and relation belong to when = \"pair\" claims")


def compile_claim_expr(c: dict, when, lists: dict, free: dict, line: int, where, problem):
    """(the compiled expr or None, the compiled symbolic steps or None)."""
    compiled = None
    symbolic = None
    src = c.get("expr")
    if when == "symbolic":
        symbolic = _compile_symbolic(c, lists, where, problem)
    if isinstance(src, str) and when == "symbolic":
        problem(*where("expr"), "a symbolic claim states its proof in steps = [...] (and hypotheses), not expr")
    elif isinstance(src, str) and when != "pair":
        compiled = compile_condition("expr", src, when, lists, free, where, problem)
    elif isinstance(src, str):  # a pair claim's expr: both runs' ends (other_NAME: the partner's), and c
        compiled = _pair_condition(c, src, lists, free, where, problem)
    elif when in WHEN and when not in ("symbolic", "pair") and "expr" not in c:
        problem(line, 1, "claim lacks 'expr' (only symbolic claims may omit it)")
    if compiled is not None and free and not (set(free) & set(compiled.names)):
        problem(*where("free"), f"free names {', '.join(free)} do not occur in expr")
    return compiled, symbolic


def _pair_condition(c: dict, src: str, lists: dict, free: dict, where, problem):
    """A pair claim's expr, compiled against the first run's names at its end, the partner's as
    other_NAME (PAIR_NAMES) and c where the pair has one."""
    names = {**names_with(free, lists.get("variants", ())), **{f"other_{k}": t for k, t in PAIR_NAMES.items()}}
    if isinstance(c.get("pair"), str) and c["pair"].endswith(":c"):
        names["c"] = "scalar"
    try:
        compiled = compile_expr(src, names)
        _check_availability(compiled, "end", free, _declares_alpha(lists.get("variants", ())))
    except ExprError as e:
        ln, col = where("expr")
        problem(ln, col + (e.col or 1), f"in expr: {e.message}")
        return None
    if compiled.type != "bool":
        problem(*where("expr"), "expr must be a condition (a comparison), not a number or vector")
        return None
    return compiled


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,30}$")


def free_names(items, where, problem) -> dict:
    """``free = ["w", "c:scalar"]`` -> {"w": "vector", "c": "scalar"}."""
    from verify.language.quantifiers import FREE_TYPES

    out = {}
    if len(items) > MAX_FREE:
        problem(*where("free"), f"{len(items)} free names; a claim may have at most {MAX_FREE}")
        return out
    for item in items:
        name, _, ty = item.partition(":")
        ty = ty or "vector"
        if not _NAME.match(name) or ty not in FREE_TYPES:
            problem(*where("free"), f"bad free name {item!r}: write NAME or NAME:TYPE, TYPE one of {', '.join(FREE_TYPES)}")
            continue
        out[name] = ty
    return out


def names_with(free: dict | None, variants=()):
    """The expression language's names with the quantities of the claim's declared variants
    (their parameters, state and outputs) and its free names (which shadow quantities)."""
    decls = [variant_of(v) for v in variants if getattr(variant_of(v), "declared", False)]
    names = dict(TYPES)
    if not free and not decls:
        return names
    for d in decls:
        names.update(d.types)
    free = free or {}
    names.update({k: ("vector" if ty == "vector" else "scalar") for k, ty in free.items()})
    return names


def _compile_symbolic(c, lists, where, problem):
    """Compile a symbolic claim's hypotheses and steps against its declared names (the expression
    language only: sympy and z3 are loaded when the steps are checked, not when a file is read)."""
    if not lists.get("steps"):
        problem(*where("when"), "a symbolic claim needs steps = [\"lhs <= rhs\", ...] (and optionally "
                                "vectors, scalars, hypotheses)")
        return None
    for key in ("vectors", "scalars"):
        for nm in lists.get(key, ()):
            if not _NAME.match(nm) or nm in ("dot", "norm", "norm2", "sqrt", "exp", "diff", "cat"):
                problem(*where(key), f"bad name {nm!r} in {key}")
                return None
    try:
        names = {v: "vector" for v in lists.get("vectors", ())}
        names.update({s: "scalar" for s in lists.get("scalars", ())})
        hyps = [compile_expr(h, names, symbolic=True) for h in lists.get("hypotheses", ())]
        steps = [compile_expr(s, names, symbolic=True) for s in lists.get("steps", ())]
        if any(t.type != "bool" for t in hyps + steps):
            raise ExprError("hypotheses and steps must be comparisons")
    except ExprError as e:
        problem(*where("steps"), f"in a step or hypothesis: {e.message}")
        return None
    return {"vectors": lists.get("vectors", ()), "scalars": lists.get("scalars", ()), "hypotheses": hyps, "steps": steps}


def _declares_alpha(variants) -> bool:
    """Whether one of the claim's declared variants names its own alpha (which then shadows ours)."""
    return any("alpha" in getattr(variant_of(v), "types", {}) for v in variants if getattr(variant_of(v), "declared", False))


def _names_under_prev(tree) -> set:
    """The names read inside some prev(...) of a compiled expression tree."""
    return _names_where(tree, "prev", True)


def _names_where(tree, tag: str, inside_it: bool) -> set:
    """The names read inside (``inside_it``) or outside every node ``tag`` of a compiled tree."""
    found: set = set()

    def walk(node, inside):
        if not isinstance(node, (tuple, list)):
            return
        if node and isinstance(node[0], str):  # a node: its tag, then its operands
            if node[0] == "name":
                if inside == inside_it:
                    found.add(node[1])
                return
            inside, node = inside or node[0] == tag, node[1:]
        for part in node:
            walk(part, inside)

    walk(tree, False)
    return found


def _check_availability(c: Compiled, when: str, free=(), declared_alpha: bool = False):
    names = set(c.names) - set(free or ())
    # a point's names outside every min_i/max_i/sum_i/all_i/any_i name no point
    loose = (_names_where(c.tree, "agg", False) - set(free or ())) & STEP_NAMES
    if when in ("dataset", "once"):
        bad = names & RUN_NAMES
        if bad:
            raise ExprError(f"{', '.join(sorted(bad))} describe a run; a claim with when = {when!r} has none")
        if loose:
            raise ExprError(f"{', '.join(sorted(loose))} exist only at a visit or update, "
                            "or inside min_i/max_i/sum_i/all_i/any_i")
    if when == "once" and names:
        raise ExprError(f"a claim with when = 'once' is about numbers only; it uses {', '.join(sorted(names))}")
    if when == "end" and loose:
        raise ExprError(f"{', '.join(sorted(loose))} exist only at a visit or update, "
                        "or inside min_i/max_i/sum_i/all_i/any_i")
    if c.uses_prev and when != "update":
        raise ExprError("prev(...) refers to the previous update; use it with when = 'update'")
    if names & END_NAMES and when in ("visit", "update"):
        raise ExprError(f"{', '.join(sorted(names & END_NAMES))}: defined at the end of a run only (use when = 'end')")
    if names & SWEEP_NAMES and when not in ("visit", "update"):
        raise ExprError(f"{', '.join(sorted(names & SWEEP_NAMES))} describe the sweep of a visit or update; "
                        "use when = 'visit' or 'update' (at the end, epochs counts the sweeps)")
    if "alpha" in names and (when not in ("visit", "update", "end") or not c.uses_points) and not declared_alpha:
        raise ExprError("alpha (the updates made on each point so far) is defined in a run (at a visit, an update "
                        "or the end), inside min_i/max_i/sum_i/all_i/any_i (e.g. sum_i(alpha) == k)")
    under = _names_under_prev(c.tree) - set(free or ())
    counts = under & (SWEEP_NAMES | ({"alpha"} if not declared_alpha else set()))
    if counts:
        raise ExprError(f"{', '.join(sorted(counts))} inside prev(...): counts of the run so far, not a state "
                        "prev() goes back to (write the count itself, e.g. sweep_mistakes - 1)")
    step = under & STEP_NAMES
    if step:
        raise ExprError(f"{', '.join(sorted(step))} inside prev(...): the current visit's, not a state's; prev() goes "
                        "back to the weights, bias, k and sumsq of an earlier state, not to an earlier update's point "
                        "(the current point against an earlier state is e.g. dot(prev(w), x))")
