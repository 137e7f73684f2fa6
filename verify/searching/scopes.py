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

__all__ = ["Scope", "Budget", "LADDER", "LEARNER_LADDER", "DEPTHS", "foreseen", "growth", "DEFAULT_DEPTH", "FLOOR", "FLOOR_CANDIDATES", "Deepened",
           "deepen", "WALK_SHARE"]


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
#: The scope the audit completes for every claim whose screened search can (issue 38: "no
#: counterexample up to 3 points in [-3, 3]^2, 10 updates"): from the default depth on, the scopes
#: up to it are given FLOOR_CANDIDATES in all where the depth's own budget is less (a few seconds
#: of screening here: 000's unit-form cos claim, short of it at depth 2, took 1.3 million; 002's
#: finds-ltu would need about 10 million and stops short); the scopes past it, what is left of the
#: depth's budget.
#: Where the floor is foreseen out of reach (the scopes to it would take more than that), the
#: claim keeps the depth's budget: the extra would complete nothing.
#: A search that trains the learner on each candidate keeps its own budget (its runs cost
#: hundreds of times more).
FLOOR = Scope(3, 3, 10, 3)
FLOOR_CANDIDATES = 2_000_000

#: The states the runs of a claim at a visit or a run's end walk count against its budget of
#: candidates, WALK_SHARE to a candidate: a state walked costs about a quarter of a candidate
#: screened (measured: the walk's own time is 20 to 30 % of an update claim's search, which
#: screens each state it walks).  Without it an end claim's budget counted its ends only: the
#: kernel note's end claim took 9.6 s for 196,380 ends at 4 points and 20 updates (0.3 s with it).
WALK_SHARE = 4


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


def foreseen(checked: int, before: Scope, s: Scope, ordered: bool = False, excess: float = 1.0) -> int:
    """The candidates scope ``s`` is foreseen to take: the scope ``before`` took ``checked``, scaled
    by the ratio of their datasets and by ``excess`` (growth()), how much faster than its datasets
    the claim's candidates grew the last time the ladder grew the same way (more points make
    longer runs, and a tree of runs under order "any" grows with them); the run length adds
    little (measured: 4 to 10 updates adds 0 to 30 %)."""
    return math.ceil(checked * excess * _datasets(s, ordered) / _datasets(before, ordered))


def growth(done: list, s: Scope, ordered: bool) -> float:
    """How much faster than their datasets the candidates grew at the last step of ``done`` ((checked,
    scope) of the scopes completed, in order) that grew what ``s`` grows over the last of them
    (points, or the box): the ratio of the candidates over the ratio of the datasets; None when
    there was none (or a count of 0).  Measured on the built-in claims' completed scopes, the
    foresight with it was 0.6 to 2 times what the scope took (0.7 to 1.5 for 8 in 10), where the
    datasets' ratio alone was 0.2 to 3.6 times."""
    last = done[-1][1]
    grew = (s.points > last.points, s.box > last.box)
    for (c0, s0), (c1, s1) in reversed(list(zip(done, done[1:]))):
        if (s1.points > s0.points, s1.box > s0.box) == grew and c0 > 0 and c1 > 0:
            return (c1 / c0) / (_datasets(s1, ordered) / _datasets(s0, ordered))
    return None


#: A scope is started when it is foreseen to take at most this many times the budget left (a
#: search the budget cuts still refutes with what it found, but completes no scope).
OPTIMISM = 1.0
#: A scope foreseen not to complete is still probed with 1/PROBE of the claim's budget (of a
#: search that trains the learner on each candidate, 1/LEARNER_PROBE: a run of the learner costs
#: hundreds of times what a candidate the enumeration screens does, and a probe should not cost
#: more than the scopes it follows).
PROBE = 30
LEARNER_PROBE = 300
#: A scope started on a measured foresight (growth()) is stopped once it takes this many times
#: what was foreseen (the foresight was at most 2 times off on the built-in claims): the rest of
#: the budget is not spent on a scope that would not complete, and the scope counts as probed.
OVERRUN = 3


def _fields(s: Scope) -> dict:
    return {"points": s.points, "box": s.box, "max_updates": s.max_updates, "sep_box": s.sep_box}


def _within(s: Scope) -> bool:
    return s.points <= FLOOR.points and s.box <= FLOOR.box and s.max_updates <= FLOOR.max_updates


def _to_floor(s: Scope, done: list, used: int, floor: int, ordered: bool) -> bool:
    """Whether scope ``s`` is within FLOOR and the floor is not foreseen out of reach: the scopes
    of LADDER from the last completed to FLOOR, each foreseen from the one before, would take
    more than ``floor`` (the extra budget would complete nothing; measured on 000's unit-form cos
    claim: 1.44 million foreseen, 1.31 million taken)."""
    if not _within(s):
        return False
    chain, ahead = list(done), used
    for step in LADDER:
        if not chain or chain[-1][0] <= 0 or ahead > floor:
            break
        if _within(step) and (step.points, step.box, step.max_updates) > tuple(
                getattr(chain[-1][1], f) for f in ("points", "box", "max_updates")):
            n = foreseen(*chain[-1], step, ordered, growth(chain, step, ordered) or 1.0)
            chain.append((n, step))
            ahead += n
    return ahead <= floor


def deepen(claim, base, depth: int, search, timeout: float, learner_runs: bool = False) -> Deepened:
    """Search ``claim`` in the scopes of LADDER (on the other fields of the Domain ``base``) in
    turn with ``search`` (verify.searching.search), until one refutes, the budget of ``depth``
    runs out (``learner_runs``: the claim's candidates are runs of the learner, counted against
    Budget.runs), the next scope is foreseen to exceed what is left, or the ladder ends; a scope
    whose search could not be made (SearchError) ends it too, and the error is raised when it was
    the first."""
    budget = DEPTHS[depth]
    total = budget.runs if learner_runs else budget.candidates
    floor = total if learner_runs or depth < DEFAULT_DEPTH else max(total, FLOOR_CANDIDATES)
    used = 0
    exact = budget.exact
    tried, best_dom, last, ordered, got = [], None, None, False, {}
    done = []  # (candidates, scope) of each scope searched, in order
    # a pair's candidates are whole datasets, each run to its end, and a claim about datasets has no run: a scope
    # that only lengthens the runs takes the same candidates, so only the longer one is searched
    rungs = LEARNER_LADDER if learner_runs else LADDER
    ladder = [s for s, nxt in zip(rungs, rungs[1:] + (None,)) if claim.when not in ("pair", "dataset") or nxt is None
              or (nxt.points, nxt.box) != (s.points, s.box)]
    for s in ladder:
        dom = _domain(base, s)
        if done and got.get("unit"):  # points of the unit circle: the box grows nothing
            s = replace(s, box=done[-1][1].box)
            if s == done[-1][1]:
                continue
            dom = _domain(base, s)
        probe = None
        within = _to_floor(s, done, used, floor, ordered) and floor > total
        left = (floor if within else total) - used  # up to FLOOR, the floor's budget; past it, the depth's
        g = growth(done, s, ordered) if done else None
        ahead = foreseen(*done[-1], s, ordered, g or 1.0) if done and done[-1][0] > 0 else 0
        if g is not None and OVERRUN * ahead < left:
            # a measured foresight: a scope that takes more than OVERRUN times it is stopped there and counts as probed
            probe = max(1, math.ceil(OVERRUN * ahead))
            why = (f"foreseen to take about {ahead:,} candidates (the scope before took {done[-1][0]:,}); given at "
                   f"most {OVERRUN} x that, it did not complete")
        if ahead > OPTIMISM * left:
            # it will not complete: probed, with 1/PROBE of the budget, as the search's order puts the smallest
            # counterexamples first (fewest points, fewest updates); the ladder ends there
            probe = min(left, total // (LEARNER_PROBE if learner_runs else PROBE))
            why = (f"foreseen to take about {ahead:,} candidates (the scope before took {done[-1][0]:,}), more than "
                   + (f"{OPTIMISM} x the {left:,} left of the budget of depth {depth}" if left > 0 else
                      f"the budget of depth {depth} ({total:,} candidates) allows past the scope of {FLOOR.points} points "
                      f"in [-{FLOOR.box}, {FLOOR.box}]^2, {FLOOR.max_updates} updates")
                   + (f" (up to that scope, {floor:,})" if within and floor > total else ""))
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
        used += res.checked + res.walked  # the budget counts the walk of runs too (WALK_SHARE)
        left -= res.checked + res.walked
        done.append((res.checked + res.walked, s))
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
