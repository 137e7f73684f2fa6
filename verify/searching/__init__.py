"""Bounded search for counterexamples to claims: small integer datasets, runs of the claim's
variant, and integer separators (the domain D: verify.searching.domain).

Update claims are evaluated at every update, end claims at the end of every run that converges
within the budget, dataset claims once per dataset and separator.

Engines
* ``enumerate`` (complete; verify.searching.enumeration): every candidate of D up to symmetry, in
  shards (verify.searching.shards) run here, on a process pool (``jobs``) or on a Dask cluster
  (``scheduler``), in bounded blocks under a memory budget and a hard deadline.  The reported
  counterexample is the first in the order: run setting, fewest points, fewest updates, then
  the canonical order of datasets, instances and update sequences; the same for any sharding.
  "No counterexample in D" comes only from this engine, when every shard completed.
* ``z3`` (verify.searching.z3_engine): the dataset, separator and run as one polynomial integer
  formula, unrolled one update at a time; can refute, never concludes "none".
* ``hypothesis`` (verify.searching.hypothesis_engine): random and shrinking search; can refute,
  never concludes "none".
* ``auto``: picks by the size of D (AUTO_ENUMERATION_STATES): enumeration first when it can
  finish, z3 first when it cannot; says which decided and why.

Every candidate, whatever the engine, is confirmed by the replay engine (verify.searching.confirm)
before it is reported.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field, replace

from perceptron.declared import variant_of
from perceptron.variants import DEFAULT_VARIANT, VARIANTS
from verify.config import check_jobs
from verify.replay.counterexample import Counterexample
from verify.searching.confirm import confirm, save_counterexample
from verify.searching.declared_engine import is_declared, search_declared, walked_in_blocks
from verify.searching.orbits import paired_sign0s
from verify.searching.scaling import one_rate, scale_free
from verify.searching.domain import (
    DEFAULTS,
    LIMITS,
    SEARCHABLE_ORDERS,
    SEARCHABLE_VARIANTS,
    Domain,
    SearchError,
    check_limits,
    check_searchable,
    claim_names,
    claim_variant,
    count_datasets,
    domain_for,
    folds,
    late_names,
    order_names,
    searchable_order,
    sequence_of,
    widened_etas,
)
from verify.verdicts import Verdict
from verify.language.assumptions import KERNEL_LINEAR, NONSEPARABLE, NO_RATCHET, RATCHET

__all__ = ["Domain", "SearchResult", "SearchSettings", "SearchError", "search", "worst", "trains_learner", "domain_for", "confirm", "save_counterexample",
           "SEARCHABLE_VARIANTS", "LIMITS", "DEFAULTS", "DEFAULT_MEMORY", "AUTO_ENUMERATION_STATES"]

#: The orders a claim that states none is searched in when its runs must follow a deterministic
#: order (visits, sweeps, a run's end read before it, the pocket): one of each kind the learner
#: runs (a scan from the first point, a cyclic pass, a random permutation per epoch, the most
#: violated point).  "No counterexample in D" then covers these four.
DEFAULT_ORDERS = ("cyclic", "first", "random:0", "max-violation")
#: Default memory budget of a search (bytes), well under this 24 GiB machine: the enumeration's
#: frontier is sized to it and its address space capped at it (verify.cli --max-memory).
DEFAULT_MEMORY = 4 << 30
#: Memory one worker process takes before any frontier (bytes): Python, numpy, z3 and the
#: domain's lists.
WORKER_BASE = 300 << 20
#: Most frontier states one block holds, whatever the budget (the block is split past it).
MAX_FRONTIER = 400_000
#: ``auto`` enumerates first when the domain has at most this many states to screen (datasets
#: times the distinct weight vectors of a run, summed over points): the enumeration screens
#: about a million states a second per worker here (benchmarks/bench_search.py), so it finishes
#: within a few minutes; above it, z3 goes first.
AUTO_ENUMERATION_STATES = 200_000_000


@dataclass
class SearchResult:
    claim_id: str
    verdict: Verdict
    engine: str
    domain: dict
    seconds: float
    checked: int = 0
    counterexample: Counterexample | None = None
    reason: str = ""
    files: dict = field(default_factory=dict)
    completed: dict | None = None
    choice: str = ""
    workers: str = ""
    walked: int = 0  # what the walk of runs took of the budget beside the candidates (scopes.WALK_SHARE)

    def to_json(self, timing: bool = True) -> dict:
        """The result; ``timing`` adds ``statistics`` (seconds and workers), the only part that
        depends on the machine and the sharding."""
        out = {"claim": self.claim_id, "verdict": self.verdict.label, "engine": self.engine, "domain": self.domain,
               "candidates_checked": self.checked}
        for k in ("counterexample", "reason", "files", "completed", "choice"):
            v = getattr(self, k)
            v = v.to_json() if isinstance(v, Counterexample) else v
            if v:
                out["engine_choice" if k == "choice" else k] = v
        if timing:
            out["seconds"] = round(self.seconds, 3)
            out["statistics"] = {"seconds": round(self.seconds, 3), "workers": self.workers}
        return out


@dataclass(frozen=True)
class SearchSettings:
    """How one search runs (its domain aside): the engine, the limits and budgets, where it
    writes a counterexample, the workers, whether the domain is widened over the claim's
    quantifiers (verify.searching.search reads them once; the parts of a search share them)."""

    engine: str = "auto"
    timeout: float = 60.0
    out_dir: str | None = None
    max_exact: int | None = None
    widen: bool = True
    max_candidates: int | None = None
    jobs: int = 1
    scheduler: str | None = None
    max_memory: int = DEFAULT_MEMORY
    progress: object = None

    @property
    def budget(self) -> int | None:
        """One budget of candidates, where every candidate is evaluated exactly (no interval
        screen: a declared variant, any kernel): both budgets bound the same count."""
        return self.max_candidates if self.max_candidates is not None else self.max_exact


def _prepare(claim, dom, widen):
    check_searchable(claim)
    variant = claim_variant(claim, dom.variant if dom.variant != DEFAULT_VARIANT or not claim.variants else None)
    dom = Domain(**{**asdict(dom), "variant": variant})
    if widen:
        dom = domain_for(claim, dom)
    if VARIANTS[variant].dual:  # the kernel perceptron starts from alpha = 0
        dom = Domain(**{**asdict(dom), "w0_box": 0})
    if VARIANTS[variant].pocket and dom.order == "any":  # the pocket counts runs of visits: a deterministic order's
        dom = Domain(**{**asdict(dom), "order": "cyclic"})
    if VARIANTS[variant].order and dom.order == "any":  # a variant with one order (scikit-learn's data order) runs no other
        dom = Domain(**{**asdict(dom), "order": VARIANTS[variant].order})
    if not searchable_order(dom.order):
        raise SearchError(f"order must be any, first, cyclic, max-violation, random:SEED or sequence:I,J,... (at most "
                          f"{LIMITS['max_updates'][1]} points, each below {LIMITS['points'][1]}), not {dom.order!r}")
    seq = sequence_of(dom.order)
    if seq:  # the run is the sequence: as many updates, and datasets holding its points
        if VARIANTS[variant].pocket:
            raise SearchError(f"claim {claim.id}: the pocket algorithm's runs of a sequence order are not searched "
                              "(they make no run of correct visits)")
        dom = Domain(**{**asdict(dom), "max_updates": len(seq), "points": max(dom.points, max(seq) + 1)})
    if claim.orders and dom.order not in claim.orders:  # the replay would find no candidate applicable
        raise SearchError(f"claim {claim.id} is about the orders {', '.join(claim.orders)}, not {dom.order}")
    if order_names(claim) and dom.order == "any":
        raise SearchError(f"claim {claim.id} reads visits, sweeps or epochs: it is searched in a deterministic order "
                          "(first, cyclic, max-violation or random:SEED), whose visits are the run's; under 'any' they are not defined")
    if late_names(claim) and dom.order == "any":
        raise SearchError(f"claim {claim.id} reads {', '.join(sorted(late_names(claim)))} before a run's end: it is "
                          "searched in a deterministic order (first, cyclic, max-violation or random:SEED), whose runs each have one end")
    if claim.when == "visit" and dom.order == "any":
        raise SearchError(f"claim {claim.id} is a visit claim: it is searched in a deterministic order (first, max-violation, "
                          "cyclic or random:SEED), whose visits are the run's; under 'any' they are not defined")
    check_limits(dom)  # the widened domain too (its settings among them)
    return dom


def _search_pair(claim, dom, timeout, out_dir, max_candidates):
    """Whole runs compared: the candidates are runs of the learner and their partners."""
    from verify.searching.pairs import search_pair

    check_limits(dom, timeout)
    verdict, got = search_pair(claim, dom, timeout, out_dir, max_candidates)
    return SearchResult(claim.id, verdict, "pair runs", **got)


#: Quantities only some variants' runs define: a claim about another variant that reads one
#: is unknown wherever it is evaluated, so no search can cover it.
_VARIANT_NAMES = {n: v.name for v in VARIANTS.values() for n in v.defines}


def _check_engine(claim, engine, variant):
    """Refuse what an engine cannot search.  The enumeration follows the learner's runs (a
    declared variant's in a deterministic order are the learner's own, so Hypothesis's samples of
    them are too); z3 unrolls updates, and Hypothesis samples the built-in variants' update paths."""
    if not is_declared(variant):
        bad = sorted(n for n in claim_names(claim) - set(claim.free or ()) if _VARIANT_NAMES.get(n, variant) != variant)
        if bad:
            raise SearchError(f"claim {claim.id} reads {', '.join(bad)}, which runs of {variant} do not define (only "
                              f"{' and '.join(sorted({_VARIANT_NAMES[n] for n in bad}))} runs do)")
    if engine == "z3" or (engine == "hypothesis" and not is_declared(variant)):
        why = next((w for w, bad in (
            (f"reads {', '.join(sorted(order_names(claim)))}: visits, sweeps and epochs are counted as the learner "
             "does", order_names(claim)),
            ("is about the pocket algorithm, whose pocket is stepped", getattr(VARIANTS.get(variant), "pocket", False)),
            ("assumes non-separable data: each candidate dataset is certified", NONSEPARABLE in claim.assume),
            (f"reads {', '.join(sorted(late_names(claim)))} before a run's end: each candidate is run to its end "
             "first", late_names(claim)),
            ("is about a sequence order, which is run", any(sequence_of(o) for o in claim.orders or ())),
            ("is a visit claim, whose visits are searched", claim.when == "visit")) if bad), None)
        if why:
            raise SearchError(f"claim {claim.id} {why} by the enumeration (--engine enumerate)")


def _check_scheduler():
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        raise SearchError("--scheduler needs Dask's distributed package: pip install 'proof-audit[dask]'")


def _one_worker(res: SearchResult, s: SearchSettings, what) -> SearchResult:
    """A search made by one worker in this process whatever --jobs or --scheduler asked: it says so."""
    if s.jobs > 1 or s.scheduler:
        res.workers = f"1 worker ({what} are searched by one, in this process; --jobs and --scheduler are not used)"
    return res


def _search_declared(claim, dom, variant, s: SearchSettings):
    return _one_worker(SearchResult(**search_declared(claim, Domain(**{**asdict(dom), "variant": variant}), s.engine,
                                                      s.timeout, s.out_dir, s.widen, s.budget)), s, "declared variants")


def any_kernel(claim, variant) -> bool:
    """Whether the claim is about the kernel perceptron with any kernel (not the linear one the
    enumeration steps as the primal runs it is)."""
    var = VARIANTS.get(variant)
    return var is not None and var.dual and (KERNEL_LINEAR not in claim.assume or bool(
        set(var.defines) & claim_names(claim)))  # the enumeration's runs have no kernel to read


def _search_kernels(claim, dom, s: SearchSettings):
    from verify.searching.learner_runs import search_kernels

    dual = [v for v in (claim.variants or ()) + (dom.variant,) if getattr(VARIANTS.get(v), "dual", False)]
    dom = Domain(**{**asdict(dom), "variant": dual[0]})  # the kernel perceptron the claim is about
    if s.widen:
        dom = domain_for(claim, dom)
    dom = Domain(**{**asdict(dom), "w0_box": 0})  # the kernel perceptron starts from alpha = 0
    check_limits(dom, s.timeout)
    return _one_worker(SearchResult(**search_kernels(claim, dom, s.engine, s.timeout, s.out_dir, s.budget)), s,
                       "claims about any kernel")


def trains_learner(claim, dom: Domain) -> bool:
    """Whether the search of ``claim`` trains the learner on each candidate (pairs of runs, a
    declared variant in a deterministic order, any kernel) rather than screening candidates
    vectorised: a few thousand candidates a second instead of about a million (the budgets of
    verify.searching.scopes).  A declared variant's runs under order any are walked in blocks
    (verify.searching.declared_batch), and budgeted as the enumeration's screened candidates."""
    if claim.when == "pair":
        return True
    try:
        variant = claim_variant(claim, dom.variant if dom.variant != DEFAULT_VARIANT or not claim.variants else None)
    except SearchError:
        return False
    if is_declared(variant):  # unless its runs are walked in blocks, screened as the built-in variants' are
        return not walked_in_blocks(claim, Domain(**{**asdict(dom), "variant": variant}))
    return any_kernel(claim, variant)


def _states(claim, dom, enumerators) -> int:
    """States the enumeration screens at most (datasets x distinct weight vectors per run)."""
    ordered = dom.order != "any"
    total = 0
    for en in enumerators:
        for n in range(1, dom.points + 1):
            runs = 1 if claim.when == "dataset" else math.comb(dom.max_updates + n, n)
            total += count_datasets(len(en.P), n, ordered) * runs * len(en.W0)
    return total


def frontier_rows(dom, claim, max_memory: int) -> tuple[int, int]:
    """(frontier states a block may hold under the memory budget, bytes one worker then needs)."""
    from verify.searching.enumeration import row_bytes

    row = row_bytes(dom, claim.compiled.uses_prev)
    rows = max(1, min(MAX_FRONTIER, (max_memory - WORKER_BASE) // row))
    return rows, WORKER_BASE + rows * row


def search(claim, dom: Domain, engine: str = "auto", timeout: float = 60.0, out_dir: str | None = None,
           max_exact: int | None = None, widen: bool = True, max_candidates: int | None = None, jobs: int = 1,
           scheduler: str | None = None, max_memory: int = DEFAULT_MEMORY, progress=None) -> SearchResult:
    """Search for a counterexample to ``claim`` in ``dom``, widened (``widen``) over every
    quantity the claim ranges over (see domain_for).  ``max_exact`` and ``max_candidates`` bound
    the candidates evaluated exactly and screened (deterministic budgets, unlike time; one worker
    only).  ``jobs`` workers on a process pool, or the Dask scheduler at ``scheduler``;
    ``max_memory`` (bytes) is the budget of all of them together; ``timeout`` is a hard limit.

    "No counterexample in D" needs a complete enumeration in which at least one candidate
    satisfied the claim's assumptions and was evaluated; otherwise the verdict is "unknown:
    empty domain" (premises, several orders, the pocket's rules: _split)."""
    s = SearchSettings(engine, timeout, out_dir, max_exact, widen, max_candidates, jobs, scheduler, max_memory, progress)
    check_jobs(jobs, "jobs =")
    return _search(claim, dom, s)


def _search(claim, dom: Domain, s: SearchSettings) -> SearchResult:
    from verify.searching.enumeration import Enumerator

    if claim.when == "pair":
        if s.widen:  # the rates the claim ranges over (its other settings: the domain's, each run being a real one)
            dom = Domain(**{**asdict(dom), "etas": widened_etas(claim, dom.etas)})
        return _search_pair(claim, dom, s.timeout, s.out_dir, s.max_candidates)
    split = _split(claim, dom, s)
    if split is not None:
        return split
    check_limits(dom, s.timeout)  # as given, and as widened
    check_searchable(claim)
    variant = claim_variant(claim, dom.variant if dom.variant != DEFAULT_VARIANT or not claim.variants else None)
    _check_engine(claim, s.engine, variant)
    if is_declared(variant):
        return _search_declared(claim, dom, variant, s)
    if any_kernel(claim, variant):
        return _search_kernels(claim, dom, s)
    dom = _prepare(claim, dom, s.widen)
    if (s.max_exact is not None or s.max_candidates is not None) and (s.jobs > 1 or s.scheduler):
        raise SearchError("budgets of candidates are for one worker (they count in the order of the domain)")
    if s.scheduler:
        _check_scheduler()
    t0 = time.monotonic()
    deadline = time.time() + s.timeout
    fold = folds(claim, dom)
    whole = dom  # what the search covers; with a scale-free claim, one rate runs for all (verify.searching.scaling)
    if scale_free(claim, dom):
        dom = Domain(**{**asdict(dom), "etas": (one_rate(dom.etas),)})
    dom = Domain(**{**asdict(dom), "sign0s": paired_sign0s(claim, dom)})  # -1 as +1 with every label flipped
    enumerators = [Enumerator(claim, dom, st) for st in dom.settings()]  # checks each setting before any work
    max_rows, per_worker = frontier_rows(dom, claim, s.max_memory)
    workers = max(1, min(s.jobs, s.max_memory // per_worker))
    engines, choice = _engines(claim, dom, enumerators, s.engine)
    reasons, limited, tally = [], False, {"checked": 0, "completed": None}  # the enumeration's, once it ran
    used = f"{workers} worker(s)" if not s.scheduler else f"Dask scheduler {s.scheduler}"

    def result(verdict, eng, **kw):
        return SearchResult(claim.id, verdict, eng, whole.describe(fold, eng, claim, dom), time.monotonic() - t0,
                            tally["checked"], choice=choice, workers=used, completed=tally["completed"],
                            walked=tally.get("walked", 0), **kw)

    for i, eng in enumerate(engines):
        if time.time() > deadline:
            reasons.append(f"{eng}: not started (time limit)")
            limited = True
            continue
        if eng == "enumerate":
            res, why = _enumerate(claim, dom, s, enumerators, deadline, max_rows, workers, result, tally)
            if res is not None:
                return res
            reasons.append(f"enumerate: {why}")
            limited = True
            continue
        if eng == "hypothesis":
            from verify.searching.hypothesis_engine import hypothesis_search

            got = hypothesis_search(claim, dom, time.monotonic() + (deadline - time.time()))
            if got is None:
                reasons.append("hypothesis: unable to find an example (this does not mean none exists)")
                continue
        elif eng == "z3":
            from verify.searching.z3_engine import z3_search

            # with more engines to try, z3 takes its share of the time (enumeration the rest)
            share = deadline if i == len(engines) - 1 or engines[-1] != "enumerate" else \
                time.time() + (deadline - time.time()) * 0.5
            got, why, z3_limited = z3_search(claim, dom, share)
            if got is None:
                reasons.append(f"z3: {why}")
                limited |= z3_limited
                continue
        else:
            raise SearchError(f"unknown engine {eng!r}")
        res = result(Verdict.REFUTED, eng, counterexample=got)
        if s.out_dir:
            res.files = save_counterexample(claim, got, s.out_dir)
        return res
    return result(Verdict.UNKNOWN, s.engine, reason=("unknown: limit reached: " if limited else "unknown: ") + "; ".join(reasons))


def _enumerate(claim, dom, s: SearchSettings, enumerators, deadline, max_rows, workers, result, tally):
    """(the enumeration's result, or None and why it did not complete); ``tally`` takes its
    count of candidates and the part it completed (every later result reports them)."""
    from verify.searching.enumeration import Budget
    from verify.searching.shards import plan, run_shards, tally_of

    shards = plan([len(en.P) for en in enumerators], dom.points, dom.order != "any")
    budget = Budget(s.max_exact, s.max_candidates) if (s.max_exact is not None or s.max_candidates is not None) else None
    merge = run_shards(claim, dom, shards, deadline, max_rows, jobs=workers, scheduler=s.scheduler, budget=budget,
                       progress=s.progress)
    tally["checked"], tally["walked"], tally["completed"], complete, why = tally_of(merge, shards, s)
    if merge.best is not None:
        res = result(Verdict.REFUTED, "enumerate", counterexample=merge.best[2].found[1])
        if not complete:
            res.reason = ("the first counterexample in the part of the domain completed (" + why +
                          "); an uncompleted shard may hold one earlier in the order")
        if s.out_dir:
            res.files = save_counterexample(claim, res.counterexample, s.out_dir)
        return res, ""
    if not complete:
        return None, why
    if tally["checked"] == 0:
        return result(Verdict.UNKNOWN, "enumerate", reason=(
            "unknown: empty domain: no candidate of the domain satisfied the claim's assumptions and reached an "
            "evaluation (nothing was checked)")), ""
    return result(Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, "enumerate"), ""


def _engines(claim, dom, enumerators, engine) -> tuple[list, str]:
    """(the engines to try in turn, why: "" when the caller named one)."""
    if engine != "auto":
        return [engine], ""
    if claim.when == "visit" or NONSEPARABLE in claim.assume or VARIANTS[dom.variant].pocket or order_names(claim) \
            or late_names(claim) or sequence_of(dom.order):
        return ["enumerate"], "auto: enumeration (the engine that " + (
            "steps visits)" if claim.when == "visit" or order_names(claim) else "runs each candidate to its end)"
            if late_names(claim) else "certifies non-separable datasets)" if NONSEPARABLE in claim.assume
            else "runs a sequence order)" if sequence_of(dom.order) else "steps the pocket)")
    states = _states(claim, dom, enumerators)
    if states <= AUTO_ENUMERATION_STATES:
        return ["enumerate", "z3", "hypothesis"], (
            f"auto: enumeration first: the domain has at most {states:,} states to screen "
            f"(<= {AUTO_ENUMERATION_STATES:,}, AUTO_ENUMERATION_STATES), so it can complete")
    return ["z3", "hypothesis", "enumerate"], (
        f"auto: z3 first: the domain has up to {states:,} states to screen (> {AUTO_ENUMERATION_STATES:,}, "
        "AUTO_ENUMERATION_STATES), beyond what enumeration completes in minutes")


def _split(claim, dom, s: SearchSettings) -> SearchResult | None:
    """A claim searched as several searches: one per stated order, one per pocket rule the claim
    leaves open, or its premise: searched as the implication ``not (given) or (expr)``, "no
    counterexample" then also needs a candidate of D that meets the premise (a second search,
    for ``not (given)`` refuted), else it is "unknown: premise never met in the domain"."""
    if claim.orders and len(claim.orders) > 1:
        return _search_orders(claim, dom, s)
    try:
        variant = claim_variant(claim, dom.variant if dom.variant != DEFAULT_VARIANT or not claim.variants else None)
    except SearchError:
        variant = None  # the search below says why
    pocket = getattr(VARIANTS.get(variant), "pocket", False)
    decl = variant_of(variant) if variant is not None and is_declared(variant) else None
    # a declaration that does not run every sequence of updates (one that always runs its epochs
    # does not) is searched in the orders it runs, not under 'any'
    narrow = (decl is not None and "sequence" not in decl.orders) or any_kernel(claim, variant)
    if not claim.orders and dom.order == "any" and s.widen and claim.when in ("visit", "update", "end") \
            and claim.compiled is not None and (claim.when == "visit" or order_names(claim) or late_names(claim) or pocket
                                                or narrow):
        # every order, as the claim states none: its visits, sweeps, run ends or pocket are a
        # deterministic order's, so it is searched in each of DEFAULT_ORDERS (those a declared
        # variant runs)
        orders = [o for o in DEFAULT_ORDERS if decl is None or o.split(":")[0] in decl.orders]
        return _search_cases(claim, dom, s, [(f"order {o}", replace(claim, orders=(o,)))
                                              for o in orders])
    if pocket and not {RATCHET, NO_RATCHET} & set(claim.assume):
        return _search_cases(claim, dom, s, [(rule, replace(claim, assume=tuple(claim.assume) + (rule,)))
                                              for rule in (NO_RATCHET, RATCHET)])
    if getattr(claim, "given", None) is not None:
        return _search_premise(claim, dom, s)
    return None


def _search_orders(claim, dom, s: SearchSettings) -> SearchResult:
    """A claim about several orders: each searched in turn (every one must be searchable)."""
    for order in claim.orders:
        if order == "any" or not searchable_order(order):
            raise SearchError(f"claim {claim.id} is about the orders {', '.join(claim.orders)}; the search runs "
                              f"{' or '.join(SEARCHABLE_ORDERS)}, not {order}")
    return _search_cases(claim, dom, s, [(f"order {o}", replace(claim, orders=(o,))) for o in claim.orders])


def _search_cases(claim, dom, s: SearchSettings, cases) -> SearchResult:
    """A claim that ranges over cases the search runs one at a time (orders, the pocket's two
    rules): each searched in turn, the caller's time limit shared; refuted by the first case (as
    listed) with a counterexample, "none in D" only when every case's search completed without one."""
    t0 = time.monotonic()
    results = []
    for _, case in cases:
        left = s.timeout - (time.monotonic() - t0)
        if left <= 0:
            break
        res = _search(case, dom, replace(s, timeout=left))
        results.append(res)
        if res.verdict == Verdict.REFUTED:
            break
    last = results[-1] if results else None
    text = " | ".join(f"{label}: {r.domain.get('text', '')}" for (label, _), r in zip(cases, results))
    out = SearchResult(claim.id, Verdict.UNKNOWN, last.engine if last else "enumerate",
                       {**(last.domain if last else {}), "text": text}, time.monotonic() - t0,
                       sum(r.checked for r in results), walked=sum(r.walked for r in results))
    if last is not None and last.verdict == Verdict.REFUTED:
        out.verdict, out.counterexample, out.files, out.reason = Verdict.REFUTED, last.counterexample, last.files, last.reason
    elif len(results) == len(cases) and all(r.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN for r in results):
        out.verdict = Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
    else:
        out.reason = "unknown: " + "; ".join(f"{label}: {r.reason or r.verdict.label}" for (label, _), r in zip(cases, results)
                                              if r.verdict != Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN) \
            + ("" if len(results) == len(cases) else "; limit reached: no time left for the other cases")
    return out


def _search_premise(claim, dom, s: SearchSettings) -> SearchResult:
    """A claim with a premise: its implication searched, and, when no candidate refutes it, a
    candidate that meets the premise sought (without one, "none in D" would be vacuous)."""
    from verify.language.claims import with_expr
    from verify.language.expr import ExprError

    given = claim.given.source
    try:
        implication, premise = (with_expr(claim, f"not ({given}) or ({claim.expr})"),
                                with_expr(claim, f"not ({given})"))
    except ExprError as e:  # each part within the expression limits, the two together not
        raise SearchError(f"claim {claim.id}: its premise and expression together exceed the expression limits "
                          f"({e.message})") from None
    t0 = time.monotonic()
    res = _search(implication, dom, s)
    if res.verdict == Verdict.REFUTED and res.counterexample and not claim.free:
        from verify.searching.confirm import confirm_as

        res.counterexample = confirm_as(claim, res.counterexample) or res.counterexample  # the claim's own sides
    if res.verdict != Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN:
        return res
    left = s.timeout - (time.monotonic() - t0)  # the two searches share the caller's time limit
    if left <= 0:
        res.verdict, res.reason = Verdict.UNKNOWN, (f"unknown: limit reached: no time left to find a candidate that "
                                                    f"meets the premise (given {given})")
        return res
    met = _search(premise, dom, replace(s, timeout=left, out_dir=None, progress=None))
    if met.verdict == Verdict.REFUTED:
        res.reason = f"the premise (given {given}) is met in the domain, e.g. on points {met.counterexample.to_json()['points']}"
        return res
    why = ("never met in the domain" if met.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
           else f"not shown met in the domain ({met.reason})")
    res.verdict, res.reason = Verdict.UNKNOWN, f"unknown: premise {why}: given {given}; no candidate tested the claim"
    return res


def worst(claim, dom: Domain, timeout: float = 60.0, max_memory: int = DEFAULT_MEMORY) -> dict:
    """Tightness: the largest (update count) / (bound) over the domain, with its dataset."""
    from verify.searching.enumeration import Enumerator
    from verify.searching.shards import plan, run_shards

    check_searchable(claim)
    if getattr(claim, "given", None) is not None:
        raise SearchError(f"claim {claim.id} has a premise (given): the worst ratio over the domain would count runs "
                          "where it does not hold")
    check_limits(dom, timeout)
    bound = bound_tree(claim)
    if bound is None:
        raise SearchError(f"claim {claim.id} is not a bound of the form 'mistakes <= B' or 'k <= B'")
    variant = claim_variant(claim, None)
    if is_declared(variant):
        raise SearchError(f"tightness (--worst) is measured for the built-in variants; {variant} is a declared variant "
                          "(search it without --worst)")
    dom = domain_for(claim, Domain(**{**asdict(dom), "variant": variant}))
    check_limits(dom, timeout)
    t0 = time.monotonic()
    enumerators = [Enumerator(claim, dom, s) for s in dom.settings()]  # every setting the domain states
    shards = plan([len(en.P) for en in enumerators], dom.points, dom.order != "any")
    merge = run_shards(claim, dom, shards, time.time() + timeout, frontier_rows(dom, claim, max_memory)[0], worst_tree=bound)
    best, checked, complete = None, 0, True
    for s in shards:
        r = merge.results.get(s.index)
        if r is None or r.status != "complete":
            complete = False
        if r is None:
            continue
        checked += r.checked
        if r.worst is not None and (best is None or r.worst["ratio"] > best["ratio"]):
            best = r.worst
    best = dict(best or {"ratio": 0.0, "updates": 0, "bound": float("nan")})
    best.update({"claim": claim.id, "domain": dom.describe(folds(claim, dom), "enumerate", claim),
                 "seconds": round(time.monotonic() - t0, 3), "complete": complete, "candidates": checked})
    return best


def bound_tree(claim):
    """The bound B of a claim 'mistakes <= B' (end) or 'k <= B' (update), else None."""
    t = claim.compiled.tree
    if t[0] == "and":
        t = t[1][0]
    if t[0] == "cmp" and len(t[1]) == 1 and t[1][0] in ("<=", "<") and t[2][0] in (("name", "mistakes"), ("name", "k")):
        return t[2][1]
    return None


