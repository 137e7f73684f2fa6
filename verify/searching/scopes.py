"""Iterative deepening: a claim searched in growing scopes, each completed before the next,
within a per-claim budget counted in candidates (never in seconds), so the result is the same on
any machine and for any number of workers.

A "no counterexample" verdict names the largest scope completed ("no counterexample up to 3
points in [-3, 3]^2, 10 updates"), as Nitpick and SmallCheck name the cardinality they
exhausted; a scope the budget cut is named too, and a counterexample found in it (replayed, as
every counterexample is) still refutes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from verify.searching.domain import SearchError
from verify.verdicts import Verdict

__all__ = ["Scope", "Budget", "LADDER", "LEARNER_LADDER", "DEPTHS", "foreseen", "DEFAULT_DEPTH", "Deepened", "deepen"]


@dataclass(frozen=True)
class Scope:
    """One step of the ladder: datasets of up to ``points`` points with coordinates in
    [-box, box]^2, runs of at most ``max_updates`` updates, separators from [-sep_box, sep_box]
    (w0 and eta are widened by the claim's quantifiers: verify.searching.domain.domain_for)."""

    points: int
    box: int
    max_updates: int
    sep_box: int


#: The scopes, smallest first: points and box grow together, then the runs get longer (a
#: counterexample is reported at the smallest scope that holds one).
LADDER = (Scope(1, 1, 4, 3), Scope(2, 1, 4, 3), Scope(2, 2, 4, 3), Scope(2, 2, 10, 3), Scope(3, 2, 10, 3), Scope(3, 3, 10, 3), Scope(4, 3, 20, 4),
          Scope(4, 4, 20, 4))
#: The scopes of a search that trains the learner on each candidate (pairs of runs, declared
#: variants, any kernel): it walks every run explicitly, so the runs get longer last (under order
#: "any", a run of 10 updates is a tree of runs hundreds of times the size of one of 4).
LEARNER_LADDER = (Scope(1, 1, 4, 3), Scope(2, 1, 4, 3), Scope(2, 2, 4, 3), Scope(3, 2, 4, 3), Scope(3, 3, 4, 3),
                  Scope(3, 3, 10, 3), Scope(4, 3, 10, 4), Scope(4, 4, 20, 4))

@dataclass(frozen=True)
class Budget:
    """A claim's budget over all its scopes: ``candidates`` screened by the vectorised
    enumeration (about a million a second here), ``runs`` candidates of the searches that train
    the learner on each (pairs of runs, declared variants, any kernel: a few thousand a second),
    and ``exact``, candidates evaluated exactly in one scope."""

    candidates: int
    runs: int
    exact: int


#: Per-claim budgets of each depth (`proof-audit run --depth N`, [tool.proof-audit] depth).
#: Each depth is about ten times the one before, so the audit's search time grows about tenfold
#: (benchmarks/bench_depth.py measures it).
DEPTHS = {1: Budget(150_000, 15_000, 150), 2: Budget(300_000, 150_000, 600), 3: Budget(3_000_000, 1_500_000, 6_000),
          4: Budget(30_000_000, 15_000_000, 60_000)}
#: The depth of `proof-audit run` when none is asked for.
DEFAULT_DEPTH = 2


@dataclass
class Deepened:
    """The outcome of a deepened search: ``result`` is the search that decides (a refutation,
    the largest scope completed, or the first unknown), ``at`` the Domain (before widening) it
    searched, for its replay command; ``scopes`` each scope tried, with its candidates and how it
    ended."""

    result: object
    scopes: list
    at: object


def _domain(base, s: Scope):
    return replace(base, points=s.points, box=s.box, max_updates=s.max_updates, sep_box=s.sep_box)


def _datasets(s: Scope, ordered: bool) -> int:
    """Labelled datasets of up to ``s.points`` points of the scope's grid, as sets or (``ordered``:
    the search's order is a deterministic one) as sequences: a measure of the scope's size, to
    foresee its candidates from the scope before."""
    grid = (2 * s.box + 1) ** 2 - 1
    return sum((grid ** n if ordered else math.comb(grid, n)) * 2 ** n for n in range(1, s.points + 1))


def foreseen(checked: int, before: Scope, s: Scope, ordered: bool = False) -> int:
    """The candidates scope ``s`` is foreseen to take: the scope ``before`` took ``checked``, scaled
    by the ratio of their datasets (the run length adds little: measured, 4 to 10 updates adds
    0 to 30 %)."""
    return math.ceil(checked * _datasets(s, ordered) / _datasets(before, ordered))


#: A scope is started when it is foreseen to take at most this many times the budget left: the
#: foresight overestimates (measured on the built-in claims: 1.3 to 3 times, the grid's datasets
#: growing faster than the separable ones the runs take), and a search the budget cuts still
#: refutes with what it found.
OPTIMISM = 1.5
#: A scope foreseen not to complete is still probed with 1/PROBE of the claim's budget.
PROBE = 30


def _fields(s: Scope) -> dict:
    return {"points": s.points, "box": s.box, "max_updates": s.max_updates, "sep_box": s.sep_box}


def deepen(claim, base, depth: int, search, timeout: float, learner_runs: bool = False) -> Deepened:
    """Search ``claim`` in the scopes of LADDER (on the other fields of the Domain ``base``) in
    turn with ``search`` (verify.searching.search), until one refutes, the budget of ``depth``
    runs out (``learner_runs``: the claim's candidates are runs of the learner, counted against
    Budget.runs), the next scope is foreseen to exceed what is left, or the ladder ends; a scope
    whose search could not be made (SearchError) ends it too, and the error is raised when it was
    the first."""
    budget = DEPTHS[depth]
    total = budget.runs if learner_runs else budget.candidates
    left = total
    exact = budget.exact
    tried, best_dom, last, before, ordered, got = [], None, None, None, False, {}
    # a pair's candidates are whole datasets, each run to its end: a scope that only lengthens the runs
    # takes the same candidates, so only the longer one is searched
    rungs = LEARNER_LADDER if learner_runs else LADDER
    ladder = [s for s, nxt in zip(rungs, rungs[1:] + (None,)) if claim.when != "pair" or nxt is None
              or (nxt.points, nxt.box) != (s.points, s.box)]
    for s in ladder:
        dom = _domain(base, s)
        if before is not None and got.get("unit"):  # points of the unit circle: the box grows nothing
            s = replace(s, box=before[1].box)
            if s == before[1]:
                continue
            dom = _domain(base, s)
        probe = None
        if before is not None and before[0] > 0 and foreseen(*before, s, ordered) > OPTIMISM * left:
            # it will not complete: probed, with 1/PROBE of the budget, as the search's order puts the smallest
            # counterexamples first (fewest points, fewest updates); the ladder ends there
            probe = min(left, total // PROBE)
            why = (f"foreseen to take about {foreseen(*before, s, ordered):,} candidates (the scope before took "
                   f"{before[0]:,}), more than {OPTIMISM} x the {left:,} left of the budget of depth {depth}")
            if probe <= 0:
                tried.append({**_fields(s), "candidates": 0, "verdict": "not started", "reason": why})
                break
        try:
            res = search(claim, dom, engine="enumerate", timeout=timeout, max_exact=exact,
                         max_candidates=max(1, left if probe is None else probe))
        except SearchError:
            if not tried:
                raise
            break  # a deeper scope outside the search's limits (a declared variant's settings, say)
        if last is not None and res.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.domain == last.domain:
            break  # the claim fixes what the scope grows (a sequence order, unit points): nothing deeper
        left -= res.checked
        before = (res.checked, s)
        got = res.domain if isinstance(res.domain, dict) else {}
        ordered = got.get("order", "any") != "any" or claim.when == "pair"  # a pair's datasets: in every order
        tried.append({**_fields(s), "candidates": res.checked, "verdict": res.verdict.label})
        if res.verdict == Verdict.REFUTED:
            return Deepened(res, tried, dom)
        if probe is not None and res.verdict == Verdict.UNKNOWN and "limit reached" in res.reason:
            tried[-1].update(verdict="probed", reason=f"{why}; probed within a budget of {probe:,} candidates (for "
                                                       "each order or case searched), no counterexample among them")
            break
        if res.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN:
            best_dom, last = dom, res
        elif "limit reached" in res.reason:
            tried[-1]["reason"] = res.reason
            break
        # (an empty domain, where no candidate met the assumptions or premise, goes on: a larger scope may hold some)
        if left <= 0:
            break
    return Deepened(last, tried, best_dom) if last is not None else Deepened(res, tried, dom)
