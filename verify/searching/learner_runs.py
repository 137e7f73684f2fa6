"""The search on the learner's own runs: every (ordered) dataset of D, every run setting, every
separator; in a deterministic order each candidate is the run ``proof-audit train`` makes,
replayed with the claim exactly as ``check`` replays a trace (verify.replay.dispatch.replay_run),
so whatever check evaluates (visits, sweeps, epochs, a run's end, alpha, any kernel the learner
computes exactly) is searched.  Every counterexample is confirmed by a fresh run and replay
(verify.searching.confirm) before it is reported.

Used for the variants the vectorised enumeration does not step: declared variants
(verify.searching.declared_engine, whose walk of every choice under order ``any`` extends this
class) and the kernel perceptron with a polynomial kernel (search_kernels).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict, replace
from fractions import Fraction

import numpy as np

from perceptron import MemoryTrace, ParamError, Params, from_rows, train
from perceptron.params import SequenceError
from perceptron.variants import VARIANTS
from verify.numbers import exact as X
from verify.replay.dispatch import (
    RunContext,
    applicable,
    evaluate_dataset_claims,
    reads_run_end,
    replay_run,
)
from verify.searching.confirm import NotRunnable, candidate_run, confirm, save_counterexample
from verify.searching.domain import (
    CERTIFIED_NAMES,
    SEPARATOR_NAMES,
    reads_certificate,
    uncertified,
    SearchError,
    symmetries,
    best_separator,
    choose_separators,
    needs_separator,
    point_list,
    searchable_order,
    separators,
)
from verify.searching.orbits import ORBITS, canonical, declared_label_symmetric, equivariant, rotation_symmetric
from verify.verdicts import Verdict
from verify.language.assumptions import KERNEL_LINEAR

__all__ = ["Walker", "Found", "SeparatorContexts", "KERNELS", "search_kernels"]


class Found(Exception):
    """A confirmed counterexample (raised out of the walk)."""

    def __init__(self, ce):
        self.ce = ce


class SeparatorContexts:
    """The contexts of one dataset's separators (``seps``: (v, c) each, or [None]), each made from
    ``base`` (the first's) when first asked for: a walk that evaluates the claim for all the
    separators at once needs only the first."""

    def __init__(self, base, seps: list):
        self.base, self.seps, self._made = base, seps, {0: base}

    def __len__(self) -> int:
        return len(self.seps)

    def __getitem__(self, j: int) -> tuple:
        got = self._made.get(j)
        if got is None:
            got = self._made[j] = self.base.derived(separator=self.seps[j])
        return got, self.seps[j]

    def __iter__(self):
        return (self[j] for j in range(len(self.seps)))


class Walker:
    """The datasets of D (``enumerate`` completely, or ``sample`` with Hypothesis), each with
    every run setting (``settings``: keyword arguments of Params, e.g. eta, sign0, kernel), w0
    (and b0) and separator, the claim evaluated on the learner's run of each."""

    def __init__(self, claim, dom, variant, settings, deadline, checked, max_exact, bias=False, stop="converged"):
        self.claim, self.dom, self.variant, self.settings = claim, dom, variant, settings
        self.deadline, self.checked, self.max_exact = deadline, checked, max_exact
        self.stop = stop
        self.why = ""
        self.skipped, self.skip_why = 0, ""  # parts of D not evaluated: never 'no counterexample in D'
        self.datasets = 0
        self.points_done = 0
        self.need_sep = needs_separator(claim)
        # a dataset's certificate (a QP and an exact check) only where the claim reads what it says
        names = set(claim.compiled.names) | (set(claim.given.names) if claim.given is not None else set())
        self.reads_cert = bool(names & CERTIFIED_NAMES)
        self.certify = reads_certificate(claim)
        self.reads_sep = bool(names & (SEPARATOR_NAMES - {"separable"}))  # a separator's own quantities
        self.bias = bias
        r = range(-dom.w0_box, dom.w0_box + 1)
        self.W0 = [None] if dom.w0_box == 0 else [w for w in itertools.product(r, repeat=dom.dim)]
        self.B0 = [None] if dom.w0_box == 0 or not self.bias else list(r)
        # the learner's runs in a deterministic order, cut at the domain's update bound (a
        # declaration that always runs its epochs gets them in its settings), or the walk's
        self.learner = dom.order != "any"
        self.run_order = {"order": "cyclic" if not self.learner else dom.order}
        self.ends = reads_run_end(claim)  # a run the bound cuts has not ended: nothing for this claim
        # labels folded into the points where the flip of one point changes neither a declared variant's run nor the claim
        self.fold = declared_label_symmetric(claim, variant)
        # one dataset of each orbit of the grid's rotations and reflections (verify.searching.domain.
        # rotation_symmetric), when the variant, built in or declared, reads no coordinate either
        self.maps = symmetries(dom.dim, dom.box, self.fold) if rotation_symmetric(claim, dom, without_separator=False) and equivariant(variant) else ()

    def search(self, eng, result, out_dir) -> dict:
        """Walk D with ``eng`` (enumerate or hypothesis); ``result(verdict, **fields)`` makes the
        search's result.  "No counterexample in D" needs the enumeration complete, every run of D
        made and evaluated exactly, and at least one evaluation."""
        try:
            complete = self.enumerate() if eng == "enumerate" else self.sample()
        except Found as f:
            res = result(Verdict.REFUTED, counterexample=f.ce)
            if out_dir:
                res["files"] = save_counterexample(self.claim, f.ce, out_dir)
            return res
        if eng == "hypothesis":
            return result(Verdict.UNKNOWN, reason="unknown: hypothesis: unable to find an example (this does not mean "
                                                  "none exists)" + ("" if complete else "; limit reached"))
        if not complete:
            return result(Verdict.UNKNOWN, reason=f"unknown: limit reached: {self.why}; completed {self.datasets:,} "
                                                  f"datasets (up to {self.points_done} point(s) complete)")
        if self.skipped:
            return result(Verdict.UNKNOWN, reason=f"unknown: {self.skipped:,} run(s) or evaluations of D could not be "
                                                  f"made exactly, so D was not covered (first: {self.skip_why})")
        if self.checked[0] == 0:
            return result(Verdict.UNKNOWN, reason="unknown: empty domain: no candidate of the domain satisfied the "
                                                  "claim's assumptions and reached an evaluation (nothing was checked)")
        return result(Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN)

    def _skip(self, why, where):
        self.skipped += 1
        if not self.skip_why:
            self.skip_why = f"{why} ({where})"

    def _late(self, checked: int | None = None) -> bool:
        """Whether the time or the budget ran out (``checked``: the evaluations so far, when the
        walker's count is not yet up to date)."""
        if time.time() > self.deadline:
            self.why = "time limit reached"
            return True
        if self.max_exact is not None and (self.checked[0] if checked is None else checked) > self.max_exact:
            self.why = f"more than {self.max_exact} candidates to evaluate (the budget)"
            return True
        return False

    def enumerate(self) -> bool:
        P, L = point_list(self.dom.dim, self.dom.box, self.fold)
        ordered = self.dom.order != "any"
        for n in range(1, self.dom.points + 1):
            combos = itertools.product(range(len(P)), repeat=n) if ordered else \
                itertools.combinations_with_replacement(range(len(P)), n)
            for combo in combos:
                if self._late():
                    self.flush()
                    return False
                idx = list(combo)
                if self.maps and not canonical(np.array([idx], dtype=np.int64), self.maps, ordered)[0]:
                    continue
                self.dataset([tuple(int(c) for c in P[j]) for j in idx], [int(L[j]) for j in idx])
            self.flush()
            if self._late():  # a walk the limit cut short is not complete, even the last one's
                return False
            self.points_done = n
        return True

    def flush(self):
        """Walk the runs collected for a block (a walker that collects them: DeclaredWalker)."""

    def sample(self) -> bool:
        """Hypothesis: random datasets of D (shrinking toward small coordinates)."""
        from hypothesis import HealthCheck, given, settings
        from hypothesis import strategies as st

        dom = self.dom
        pt = st.tuples(*[st.integers(-dom.box, dom.box)] * dom.dim)
        strat = st.integers(1, dom.points).flatmap(lambda n: st.tuples(st.lists(pt, min_size=n, max_size=n),
                                                                      st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n)))
        found = []

        @settings(max_examples=50_000, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(strat)
        def run(data):
            if found or time.time() > self.deadline:
                return
            try:
                self.dataset(list(data[0]), list(data[1]))
            except Found as f:
                found.append(f.ce)

        run()
        if found:
            raise Found(found[0])
        return True

    def dataset(self, pts, labels):
        if not any(any(p) for p in pts):
            return
        self.datasets += 1
        seps = [None]
        if self.need_sep:
            if self.dom.separators == "best":
                s = best_separator(pts, labels, self.dom, self.bias)
                seps = [s] if s is not None else []
            else:
                V, C = separators(self.dom.dim, self.dom.sep_box, self.bias)
                mi, si, _ = choose_separators(np.array([pts], dtype=np.int64), np.array([labels], dtype=np.int64), V, C, "all")
                seps = self.separators_read(V, C, si)
            if not seps:
                return  # no separator of D: claims about gamma, w_opt do not speak of this dataset
        per_sep = None
        for params in self.run_params():
            if per_sep is None:  # the data's and each separator's quantities, once per dataset
                per_sep = self.separator_contexts(pts, labels, seps, params)
                if per_sep is None:
                    return None
            self.instance(per_sep, pts, labels, params)

    def separators_read(self, V, C, si) -> list:
        """The separators (v, c) of the indices ``si``: all of them, or the first where the claim
        reads none of a separator's own quantities (one shows the data separable)."""
        if not self.reads_sep:
            si = si[:1]
        return [([int(a) for a in V[j]], int(C[j])) for j in si]

    def run_params(self) -> list:
        """The Params of every run setting, w0 and b0 of D (the same for every dataset)."""
        if getattr(self, "_params", None) is None:
            self._params = [Params(variant=self.variant, **setting, **self.run_order,
                                   w0=None if w0 is None else tuple(Fraction(v) for v in w0),
                                   b0=None if b0 is None else Fraction(b0))
                            for setting in self.settings for w0 in self.W0 for b0 in self.B0]
        return self._params

    def separator_contexts(self, pts, labels, seps, params):
        """The exact contexts of one dataset's separators (SeparatorContexts), or None where the
        dataset's context cannot be made exactly (skipped: D not covered)."""
        ds = from_rows("candidate", [list(p) for p in pts], labels)
        try:
            base = RunContext(ds, params, separator=seps[0], cert=None if self.certify else uncertified(self.bias))
        except (X.ExactError, ArithmeticError, ValueError) as e:
            self._skip(e, f"dataset {pts}, {labels}")
            return None
        return SeparatorContexts(base, seps)

    def contexts(self, per_sep, params) -> list:
        """(context, separator) of the run setting ``params`` for each separator where the claim applies."""
        ctxs = []
        for sctx, sep in per_sep:
            ctx = sctx.derived(params)
            if (ctx.sep is None and self.need_sep) or applicable(self.claim, ctx, None, "candidate"):
                continue
            ctxs.append((ctx, sep))
        return ctxs

    def instance(self, per_sep, pts, labels, params):
        """One run setting on one dataset: the claim evaluated for every separator of D."""
        claim = self.claim
        ctxs = self.contexts(per_sep, params)
        if not ctxs:
            return
        if claim.when == "dataset":
            for ctx, sep in ctxs:
                tallies: dict = {}
                evaluate_dataset_claims([claim], ctx, "candidate", tallies)
                # checked only where the claim was evaluated (its vectors may fit no candidate)
                self.checked[0] += tallies[claim.id].evaluations if claim.id in tallies else 0
                if tallies.get(claim.id) and tallies[claim.id].violation:  # confirmed in the run's own order
                    self.found(pts, labels, [], params, sep, learner={"order": params.order} if self.learner else None)
            return
        self.run(ctxs, pts, labels, params)

    def run(self, ctxs, pts, labels, params):
        """The learner's run in the domain's order, replayed with the claim for each separator
        (as check replays a trace).  The run is made with one update more than the domain's bound,
        so that a run converging at the bound is seen to converge; one that goes past it is made
        again cut at the bound (stopped by budget, as --max-updates stops the learner).  A cut run
        has not ended: an end claim sees it only when it reads stopped_by_budget.  A sequence its
        dataset cannot follow is no run; any other run the learner refuses is a part of D not
        covered (never "none in D")."""
        where = f"dataset {pts}, {labels}"
        bound = self.dom.max_updates
        try:
            rec, made = MemoryTrace(), replace(params, max_updates=bound + 1)
            res = train(ctxs[0][0].ds, made, rec)
            if res.updates > bound:
                if self.ends:
                    return None  # the cut run has not ended: nothing for this end claim (not made again)
                rec, made = MemoryTrace(), replace(params, max_updates=bound)
                res = train(ctxs[0][0].ds, made, rec)
        except SequenceError:
            return None  # a sequence naming a point that is not there, or not misclassified in its turn
        except (ParamError, X.ExactError, ArithmeticError) as e:
            return self._skip(e, where)
        cut = res.stop == "max_updates"
        if self.ends and cut:
            return None
        for ctx, sep in ctxs:
            try:
                _, bad, tallies = replay_run(ctx.derived(made), rec.trace, [self.claim], "candidate", dataset_claims=False)
            except (X.ExactError, ArithmeticError) as e:
                self._skip(e, where)
                continue
            if bad is not None:
                raise AssertionError(f"the learner's run on {where} does not replay: {bad}")
            tally = tallies[self.claim.id]
            self.checked[0] += tally.evaluations
            if tally.violation:
                tr = rec.trace
                self.found(pts, labels, [int(v) for v in tr.i[np.searchsorted(tr.t, tr.upd_t)]], params, sep,
                           learner={"order": params.order, "max_updates": bound if cut else None,
                                    "max_epochs": params.max_epochs if self.stop == "epochs" else None})
            if tally.unknown:
                self._skip(tally.unknown, where)
        return None

    def found(self, pts, labels, path, params, sep, learner=None):
        separator = None if sep is None else (sep[0], sep[1])
        run = candidate_run(self.variant, path, sign0=params.sign0, eta=params.eta, w0=params.w0, b0=params.b0,
                            declared=params.declared, kernel=params.kernel, degree=params.degree, offset=params.offset,
                            **(learner or {}))
        try:  # a run of the learner in its order, confirmed as made
            ce = confirm(self.claim, [list(p) for p in pts], labels, path, separator, run, strict=True)
        except NotRunnable as e:  # the claim evaluator holds square roots the learner cannot: not a counterexample
            return self._skip(e, f"dataset {pts}, {labels}, updates {path}")
        if ce is None:  # the step-by-step evaluation and the replay of the learner's trace disagree: a bug
            raise AssertionError(f"the search's violation of {self.claim.id} on {pts}, {labels}, path {path} "
                                 "did not survive the replay")
        raise Found(ce)


#: The kernels a claim about the kernel perceptron with any kernel is searched with: (kernel,
#: degree, offset).  Polynomial kernels of integer data are integers, so their runs are exact;
#: the RBF kernel's exp is irrational, so its runs (float) are not searched: the corpus runs one.
KERNELS = (("linear", 2, Fraction(0)), ("poly", 2, Fraction(0)), ("poly", 2, Fraction(1)), ("poly", 3, Fraction(1)))


def search_kernels(claim, dom, engine, timeout, out_dir=None, max_exact=None) -> dict:
    """A claim about the kernel perceptron with any kernel, over D with each of KERNELS: every
    candidate the learner's own run in the domain's (deterministic) order from alpha = 0."""
    if engine == "z3":
        raise SearchError(f"claim {claim.id} is about the kernel perceptron with any kernel: its runs are searched by "
                          "the enumeration (--engine enumerate)")
    if dom.order == "any" or not searchable_order(dom.order):
        raise SearchError(f"claim {claim.id} is about the kernel perceptron with any kernel: it is searched in a "
                          "deterministic order (first, cyclic, max-violation, random:SEED), each candidate the learner's run")
    tie = VARIANTS[dom.variant].tie
    sign0s = dom.sign0s if tie is None else (tie,)
    # a claim assuming the linear kernel (it reads kernel_degree, so it is searched here) is
    # about the linear kernel's runs only: the others are not evaluated, and not named
    kernels_run = KERNELS[:1] if KERNEL_LINEAR in claim.assume else KERNELS
    settings = [{"eta": Fraction(e), "sign0": s0, "kernel": k, "degree": deg, "offset": off}
                for e in dom.etas for s0 in sign0s for k, deg, off in kernels_run]
    t0 = time.monotonic()
    checked = [0]
    eng = "enumerate" if engine == "auto" else engine
    kernels = ", ".join("linear" if k == "linear" else f"poly (x.z + {off})^{deg}" for k, deg, off in kernels_run)
    d = asdict(dom)
    d.update({
        "datasets": f"up to {dom.points} integer points in [-{dom.box}, {dom.box}]^{dom.dim} (not all zero), labels -1/+1"
                    + (ORBITS if eng == "enumerate" and rotation_symmetric(claim, dom, without_separator=False) else ""),
        "runs": f"kernel with kernels {{{kernels}}} (rbf not searched: exp is irrational, its runs are float), eta in "
                f"{{{', '.join(dom.etas)}}}, sign(0) in {{{', '.join(map(str, sign0s))}}}, alpha = 0 at the start, at most "
                f"{dom.max_updates} updates, order {dom.order}; each candidate the learner's run, replayed with the claim (a run "
                f"the update bound cuts is stopped by budget: an end claim sees it only if it reads stopped_by_budget)",
        "separators": f"integer v in [-{dom.sep_box}, {dom.sep_box}]^{dom.dim}, w_opt = v/|v|; "
                      f"{'the widest-margin one per dataset' if dom.separators == 'best' else 'every one that separates'}",
        "engine": eng, "settings": len(settings)})
    d["text"] = f"{d['datasets']}; runs: {d['runs']}; separators: {d['separators']}; engine {eng}"

    def result(verdict, **kw):
        return dict(claim_id=claim.id, verdict=verdict, engine=eng, domain=d, seconds=time.monotonic() - t0,
                    checked=checked[0], choice="", workers="1 worker(s)", **kw)

    walker = Walker(claim, dom, dom.variant, settings, time.time() + timeout, checked, max_exact)
    return walker.search(eng, result, out_dir)
