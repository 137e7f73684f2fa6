"""The audit's counterexample searches, claim by claim: which claims are searched and why the
others are not, in which domain (the growing scopes of verify.searching.scopes within a depth's
budget, or one domain as given), and what a search adds to a claim's finding (its verdict, its
evidence, the scope it covered, a bound's tightness)."""

from __future__ import annotations

from verify.replay.commands import search_command
from verify.verdicts import Finding, Verdict

__all__ = ["proved_finding", "AUDIT_DOMAIN", "SCOPE_FIELDS", "scope_of", "search_claim", "not_searched", "search_depth",
           "SEARCH_EXACT_BUDGET", "SEARCH_CANDIDATE_BUDGET", "SEARCH_SECONDS"]


def search_depth(domain, depth) -> tuple:
    """(the depth, the fields of results.json's corpus saying how deep the claims were searched)."""
    from verify.searching.scopes import DEFAULT_DEPTH, DEPTHS

    if domain is not None:  # one domain, as given
        return depth, {"exact_evaluation_budget": SEARCH_EXACT_BUDGET}
    depth = depth or DEFAULT_DEPTH
    if depth not in DEPTHS:
        from perceptron.errors import OptionError

        raise OptionError(f"depth {depth!r}: choose 1 to {max(DEPTHS)} (verify.searching.scopes.DEPTHS)")
    b = DEPTHS[depth]
    return depth, {"search_depth": {"depth": depth, "candidates_per_claim": b.candidates,
                                    "learner_runs_per_claim": b.runs, "exact_evaluations_per_scope": b.exact}}


#: Why a claim of each kind is not searched.
_NOT_SEARCHED_KINDS = {"symbolic": "its steps are checked symbolically, for all dimensions",
                       "once": "a closed computation, evaluated exactly once"}


def not_searched(c, f) -> str | None:
    """Why the audit does not search this claim, or None when it does."""
    if c.when in _NOT_SEARCHED_KINDS or c.when != "pair" and c.compiled is None:
        return _NOT_SEARCHED_KINDS.get(c.when, f"a claim evaluated '{c.when}'")
    if f.verdict == Verdict.REFUTED:
        return "already refuted by a replayed corpus run"
    if f.verdict == Verdict.PROVED:
        return "already proved"
    premise_unmet = (f.evidence.get("premise") or {}).get("met") == 0  # the search may meet it: its domain is wider
    # no corpus run the claim applies to (its assumptions, orders, datasets): the domain may hold some
    unapplied = str(f.evidence.get("reason", "")).startswith("no applicable evaluation")
    if f.verdict == Verdict.UNKNOWN and not f.evidence.get("unvaried") and not premise_unmet and not unapplied:
        return "its corpus verdict is unknown for a reason a search does not remove (see the reason)"
    return None


def proved_finding(c, f, proof) -> Finding:
    """The finding of a claim about one update with its proof for every state before the update
    (verify.symbolic.one_step; None: not proved): proved, where the corpus left it to a search (a
    refutation, or an unknown a search does not remove, stands), and no longer searched."""
    if proof is None or not_searched(c, f) is not None:
        return f
    ev = {**f.evidence, **proof}
    if "reason" in ev:
        ev["corpus_reason"] = ev.pop("reason")
    return Finding(f.claim_id, f.citation, f.statement, Verdict.PROVED, f.expect, ev, f.path, f.line)


#: The fields of a searched domain that say how deep the search went (issue 38: the scope as
#: fields of results.json, not only as text).
SCOPE_FIELDS = ("points", "dim", "box", "max_updates", "w0_box", "etas", "sep_box", "order", "unit")


#: What a claim about datasets (when = "dataset") is searched over: no run, so no updates, w0, eta or order.
_DATASET_FIELDS = ("points", "dim", "box", "sep_box", "unit")


def scope_of(dom: dict, runs: bool = True) -> dict:
    """The scope a "no counterexample in domain" verdict covers: up to ``points`` points of
    ``dim`` integer coordinates in [-box, box], runs of at most ``max_updates`` updates from every
    w0 in [-w0_box, w0_box]^dim, at the learning rates ``etas``, separators from [-sep_box, sep_box];
    of a claim about datasets (not ``runs``), only what its datasets range over."""
    return {k: (list(dom[k]) if isinstance(dom[k], tuple) else dom[k]) for k in SCOPE_FIELDS if k in dom
            and (runs or k in _DATASET_FIELDS)}


def search_claim(c, f, domain, depth):
    """(the finding with the search's evidence, tightness entry or None) for one claim: searched
    in ``domain`` when one was asked for ([tool.proof-audit.search]), else in the growing scopes
    of verify.searching.scopes within the budget of ``depth``."""
    from verify.searching import SearchError, bound_tree, search, trains_learner, worst
    from verify.searching.scopes import deepen

    try:
        if domain is not None:
            res, scopes, dom_used = search(c, domain, engine="enumerate", timeout=SEARCH_SECONDS,
                                           max_exact=SEARCH_EXACT_BUDGET, max_candidates=SEARCH_CANDIDATE_BUDGET), None, domain
        else:
            deep = deepen(c, AUDIT_DOMAIN, depth, search, SEARCH_SECONDS, trains_learner(c, AUDIT_DOMAIN))
            res, scopes = deep.result, deep.scopes
            dom_used = deep.at
    except SearchError as e:
        return Finding(f.claim_id, f.citation, f.statement, f.verdict, f.expect,
                       {**f.evidence, "search": {"not searched": str(e)}}, f.path, f.line), None
    ev = dict(f.evidence)
    srch = {k: v for k, v in res.to_json(timing=False).items() if k != "files"}
    dom = srch.pop("domain", None) or {}
    srch["domain_text"] = dom.get("text", "")
    if scopes is not None:
        srch["depth"] = depth
        srch["scopes"] = scopes
    ev["search"] = srch
    v = f.verdict
    if res.verdict == Verdict.REFUTED and v != Verdict.REFUTED:
        v = Verdict.REFUTED
        ev["counterexample"] = {"search": res.counterexample.to_json()}
        ev["replay"] = search_command(c, dom_used)
        ev.pop("reason", None)
    elif res.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and v in (Verdict.HOLDS_ON_EVIDENCE, Verdict.UNKNOWN):
        v = Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
        ev["domain_text"] = srch["domain_text"]
        ev["scope"] = scope_of(dom, runs=c.when != "dataset")
        if "reason" in ev:
            ev["corpus_reason"] = ev.pop("reason")
    finding = Finding(f.claim_id, f.citation, f.statement, v, f.expect, ev, f.path, f.line)
    tight = None
    if c.when == "end" and c.given is None and bound_tree(c) is not None and v != Verdict.REFUTED:  # worst() knows no premise
        try:
            w = worst(c, domain or AUDIT_DOMAIN, timeout=SEARCH_SECONDS)
            if w["complete"]:
                tight = {"claim": c.id, "citation": c.citation, "bound": c.expr, "worst_ratio": round(w["ratio"], 9),
                         "updates": w["updates"], "bound_value": round(w["bound"], 9), "dataset": w.get("points"),
                         "labels": w.get("labels"), "updates_taken": w.get("path"), "separator": w.get("separator"),
                         "complete": w["complete"]}
        except SearchError:
            pass
    return finding, tight


#: Budget of the search of a domain given as [tool.proof-audit.search] (the growing scopes have
#: theirs: verify.searching.scopes.DEPTHS): candidates the interval screen cannot decide are
#: evaluated exactly, at most this many (a deterministic limit, so the results file does not
#: depend on the machine's speed); a search past it says unknown and leaves the claim's verdict
#: as the corpus gave it.
SEARCH_EXACT_BUDGET = 150
#: and at most this many candidates screened in that domain (widened over a claim's quantifiers it
#: can be large; past the budget the search says unknown, deterministically).
SEARCH_CANDIDATE_BUDGET = 150_000
#: A safety net only: far above what the budget allows on any reasonable machine.
SEARCH_SECONDS = 120.0


def _audit_domain():
    from verify.searching import (
        Domain,  # search imports replay, which this module also uses
    )

    return Domain(points=2, dim=2, box=2, max_updates=4, sep_box=3)


#: The domain every searchable claim is searched in by `proof-audit run`: small enough that
#: the whole audit stays around a minute; `proof-audit search` explores larger ones.
AUDIT_DOMAIN = _audit_domain()
