"""The search for declared variants (perceptron.declared): the domain D enumerated completely,
or sampled with Hypothesis, each run stepped by the claim evaluator (verify.replay.declared.
DeclaredRun: the declaration's own expressions, exactly), every candidate confirmed by the
learner and the replay (verify.searching.confirm) before it is reported.

D is that of the built-in variants (points, box, dim, updates, separators, eta, w0, sign(0)),
plus every declared parameter, which a claim ranges over: its default and half and twice it
(0, 1/2 and 1 when the default is 0).  Orders: ``any`` (every point the mistake condition
selects may be taken next) and ``first``.  A run is a sequence of updates (the learner's
``--order sequence:...``), so the visit number t of an update is k + 1.  ``--engine z3``
unrolls the declaration's expressions into z3's polynomial encoding (z3_engine.DeclaredProblem);
``auto`` enumerates.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict
from fractions import Fraction

import numpy as np

from perceptron import Params, from_rows
from perceptron._numbers import format_rational
from perceptron.declared import variant_of
from verify.language.expr import MAX_PREV
from verify.language.scalar import ClaimTally, Env, eval_claim
from verify.numbers import exact as X
from verify.replay.declared import DeclaredRun
from verify.replay.dispatch import RunContext, applicable, evaluate_dataset_claims, replay_run
from verify.searching.domain import (
    MAX_SETTINGS,
    SearchError,
    best_separator,
    claim_names,
    check_limits,
    choose_separators,
    domain_for,
    needs_separator,
    point_list,
    separators,
)
from verify.verdicts import Verdict

__all__ = ["search_declared", "declared_settings", "is_declared", "param_values"]


def is_declared(name) -> bool:
    return getattr(variant_of(name), "declared", False)


def uses_eta(decl, claim) -> bool:
    """Whether eta matters: the declaration or the claim reads it (a rate read by neither changes
    nothing, so D need not vary it; one the claim reads must vary, whatever the run does)."""
    from perceptron.params import names_used

    return "eta" in names_used(decl) or "eta" in claim.compiled.names


def param_values(default: Fraction) -> tuple:
    """The values a search gives a declared parameter: its default, half and twice it (0, 1/2, 1 for 0)."""
    if default == 0:
        return (Fraction(0), Fraction(1, 2), Fraction(1))
    return (default / 2, default, default * 2)


def declared_settings(claim, dom, decl) -> list:
    """(eta, sign0, parameter values) of every run setting D holds."""
    sign0s = dom.sign0s if decl.sign0 is None else (decl.sign0,)
    etas = dom.etas if uses_eta(decl, claim) else dom.etas[:1]
    names = [p for p, _ in decl.parameters]
    grids = [param_values(v) for _, v in decl.parameters]
    out = []
    for eta in etas:
        for s0 in sign0s:
            for vals in itertools.product(*grids):
                out.append((Fraction(eta), s0, tuple(zip(names, vals))))
    if len(out) > MAX_SETTINGS:
        raise SearchError(f"{len(out)} run settings (eta x sign(0) x the declared parameters); a search takes at most "
                          f"{MAX_SETTINGS}: fix some with assumptions (eta_one, sign0_zero) or fewer parameters")
    return out


def describe(dom, decl, settings, engine, claim) -> dict:
    d = asdict(dom)
    params = ", ".join(f"{p} in {{{', '.join(format_rational(v) for v in param_values(dv))}}}" for p, dv in decl.parameters)
    etas = ", ".join(dom.etas) if uses_eta(decl, claim) else f"{dom.etas[0]} (read by neither the declaration nor the claim)"
    w0 = "0" if dom.w0_box == 0 else f"every integer vector in [-{dom.w0_box}, {dom.w0_box}]^{dom.dim}" + (
        " (and b0 in the same range)" if decl.bias else "")
    d.update({
        "datasets": f"up to {dom.points} integer points in [-{dom.box}, {dom.box}]^{dom.dim} (not all zero), labels -1/+1",
        "runs": f"the declared variant {decl.name} (sha256 {decl.sha256[:16]}) with eta in {{{etas}}}, w0 = {w0}"
                + (f", {params}" if params else "") + (f", sign(0) in {{{', '.join(map(str, dom.sign0s))}}}" if decl.sign0 is None else "")
                + f", at most {dom.max_updates} updates, order {dom.order}"
                + (" (any point the mistake condition selects may be taken at each step)" if dom.order == "any" else ""),
        "separators": f"integer v in [-{dom.sep_box}, {dom.sep_box}]^{dom.dim}" + (" and bias c in the same range" if decl.bias else "")
                      + f", w_opt = v/|v|; {'the widest-margin one per dataset' if dom.separators == 'best' else 'every one that separates'}",
        "engine": engine, "settings": len(settings),
    })
    d["text"] = f"{d['datasets']}; runs: {d['runs']}; separators: {d['separators']}; engine {engine}"
    return d


def _order_domain(claim, dom, decl):
    """D for the order searched: ``any`` (the walk of every choice), or a deterministic order the
    declaration runs (cyclic, random:SEED, first, sequence:I,J,...: each candidate is a run of
    the learner in that order, replayed with the claim); a sequence order holds its points."""
    from verify.searching.domain import late_names, order_names, searchable_order, sequence_of

    if dom.order == "any":
        for why, bad in (("reads visits, sweeps or epochs", order_names(claim)), ("is a visit claim", claim.when == "visit"),
                         (f"reads {', '.join(sorted(late_names(claim)))} before a run's end", late_names(claim))):
            if bad:
                raise SearchError(f"claim {claim.id} {why}: it is searched in a deterministic order the declaration "
                                  f"runs ({', '.join(decl.orders)}), whose visits and runs are the learner's; under "
                                  "'any' they are not defined")
        return dom
    family = dom.order.split(":")[0]
    if not searchable_order(dom.order) or family not in decl.orders:
        raise SearchError(f"the declared variant {decl.name} runs the orders {', '.join(decl.orders)} (random:SEED, "
                          f"sequence:I,J,...), not {dom.order!r}")
    seq = sequence_of(dom.order)
    if seq:
        dom = type(dom)(**{**asdict(dom), "max_updates": len(seq), "points": max(dom.points, max(seq) + 1)})
    return dom


class _Found(Exception):
    def __init__(self, ce):
        self.ce = ce


def _runs(claim, dom, decl):
    """The widened domain for a declared variant's claim."""
    base = asdict(dom)
    base["variant"] = "rosenblatt"  # domain_for reads only the claim's assumptions and ranges here
    wide = domain_for(claim, type(dom)(**base))
    return type(dom)(**{**asdict(wide), "variant": decl.name, "unit": False, "forms": ("yx",)})


def search_declared(claim, dom, engine, timeout, out_dir=None, widen=True, max_exact=None):
    """Search ``claim`` (about a declared variant) over D; returns the fields of a SearchResult."""
    from verify.searching.confirm import save_counterexample

    decl = variant_of(dom.variant)
    if dom.unit:  # refused as asked, before the domain is widened (widening sets integer points)
        raise SearchError("a declared variant is searched on integer points (not --unit)")
    if widen:
        dom = _runs(claim, dom, decl)
    check_limits(dom, timeout)
    dom = _order_domain(claim, dom, decl)
    settings = declared_settings(claim, dom, decl)
    t0 = time.monotonic()
    deadline = time.time() + timeout
    eng = "enumerate" if engine == "auto" else engine
    choice = ("auto: enumeration (complete over D; z3 on declared variants with --engine z3)" if engine == "auto"
              else "")

    def result(verdict, **kw):
        return dict(claim_id=claim.id, verdict=verdict, engine=eng, domain=describe(dom, decl, settings, eng, claim),
                    seconds=time.monotonic() - t0, checked=checked[0], choice=choice, workers="1 worker(s)", **kw)

    checked = [0]
    if eng == "z3":
        from verify.searching.z3_engine import z3_search

        ce, why, limited = z3_search(claim, dom, deadline, decl=decl, settings=settings)
        if ce is not None:
            res = result(Verdict.REFUTED, counterexample=ce)
            if out_dir:
                res["files"] = save_counterexample(claim, ce, out_dir)
            return res
        return result(Verdict.UNKNOWN, reason="unknown: " + ("limit reached: " if limited else "") +
                      "z3: " + why.removeprefix("limit reached: "))
    if eng not in ("enumerate", "hypothesis"):
        raise SearchError(f"unknown engine {eng!r}")
    walker = _Walker(claim, dom, decl, settings, deadline, checked, max_exact)
    try:
        if eng == "enumerate":
            complete = walker.enumerate()
        else:
            complete = walker.sample()
    except _Found as f:
        res = result(Verdict.REFUTED, counterexample=f.ce)
        if out_dir:
            res["files"] = save_counterexample(claim, f.ce, out_dir)
        return res
    if eng == "hypothesis":
        return result(Verdict.UNKNOWN, reason="unknown: hypothesis: unable to find an example (this does not mean none exists)"
                      + ("" if complete else "; limit reached"))
    if not complete:
        return result(Verdict.UNKNOWN, reason=f"unknown: limit reached: {walker.why}; completed {walker.datasets:,} datasets "
                                              f"(up to {walker.points_done} point(s) complete)")
    if walker.skipped:
        return result(Verdict.UNKNOWN, reason=f"unknown: {walker.skipped:,} run(s) or evaluations of D could not be made "
                                              f"exactly, so D was not covered (first: {walker.skip_why})")
    if checked[0] == 0:
        return result(Verdict.UNKNOWN, reason="unknown: empty domain: no candidate of the domain satisfied the claim's "
                                              "assumptions and reached an evaluation (nothing was checked)")
    return result(Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN)


class _Walker:
    def __init__(self, claim, dom, decl, settings, deadline, checked, max_exact):
        self.claim, self.dom, self.decl, self.settings = claim, dom, decl, settings
        self.deadline, self.checked, self.max_exact = deadline, checked, max_exact
        self.why = ""
        self.skipped, self.skip_why = 0, ""  # parts of D not evaluated: never 'no counterexample in D'
        self.datasets = 0
        self.points_done = 0
        self.need_sep = needs_separator(claim)
        self.bias = decl.bias is not None
        r = range(-dom.w0_box, dom.w0_box + 1)
        self.W0 = [None] if dom.w0_box == 0 else [w for w in itertools.product(r, repeat=dom.dim)]
        self.B0 = [None] if dom.w0_box == 0 or not self.bias else list(r)
        # the learner's runs in a deterministic order (cut at the domain's update bound; a
        # declaration that always runs its epochs runs max_updates + 1 of them), or the walk's
        self.learner = dom.order != "any"
        self.run_order = {"order": "cyclic"} if not self.learner else {
            "order": dom.order, "max_updates": dom.max_updates,
            **({"max_epochs": dom.max_updates + 1} if decl.stop == "epochs" else {})}
        self.budget_stops = "stopped_by_budget" in claim_names(claim)

    def _skip(self, why, where):
        self.skipped += 1
        if not self.skip_why:
            self.skip_why = f"{why} ({where})"

    def _late(self) -> bool:
        if time.time() > self.deadline:
            self.why = "time limit reached"
            return True
        if self.max_exact is not None and self.checked[0] > self.max_exact:
            self.why = f"more than {self.max_exact} candidates to evaluate (the budget)"
            return True
        return False

    def enumerate(self) -> bool:
        P, L = point_list(self.dom.dim, self.dom.box, False)
        ordered = self.dom.order != "any"
        for n in range(1, self.dom.points + 1):
            combos = itertools.product(range(len(P)), repeat=n) if ordered else \
                itertools.combinations_with_replacement(range(len(P)), n)
            for combo in combos:
                if self._late():
                    return False
                idx = list(combo)
                self.dataset([tuple(int(c) for c in P[j]) for j in idx], [int(L[j]) for j in idx])
            self.points_done = n
        return True

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
            except _Found as f:
                found.append(f.ce)

        run()
        if found:
            raise _Found(found[0])
        return True

    def dataset(self, pts, labels):
        if not any(any(p) for p in pts):
            return
        self.datasets += 1
        ds = from_rows("candidate", [list(p) for p in pts], labels)
        seps = [None]
        if self.need_sep:
            if self.dom.separators == "best":
                s = best_separator(pts, labels, self.dom, self.bias)
                seps = [s] if s is not None else []
            else:
                V, C = separators(self.dom.dim, self.dom.sep_box, self.bias)
                mi, si, _ = choose_separators(np.array([pts], dtype=np.int64), np.array([labels], dtype=np.int64), V, C, "all")
                seps = [([int(a) for a in V[j]], int(C[j])) for j in si]
            if not seps:
                return  # no separator of D: claims about gamma, w_opt do not speak of this dataset
        per_sep = None
        for eta, s0, vals in self.settings:
            for w0 in self.W0:
                for b0 in self.B0:
                    params = Params(variant=self.decl.name, eta=eta, sign0=s0, declared=vals, **self.run_order,
                                    w0=None if w0 is None else tuple(Fraction(v) for v in w0),
                                    b0=None if b0 is None else Fraction(b0))
                    if per_sep is None:  # the data's and each separator's quantities, once per dataset
                        try:
                            base = RunContext(ds, params, separator=seps[0])
                        except (X.ExactError, ArithmeticError, ValueError) as e:
                            return self._skip(e, f"dataset {pts}, {labels}")
                        per_sep = [(base if j == 0 else base.derived(separator=sep), sep) for j, sep in enumerate(seps)]
                    self.instance(per_sep, pts, labels, params)

    def instance(self, per_sep, pts, labels, params):
        """One run setting on one dataset: the runs (which do not depend on the separator) are
        walked once, the claim evaluated at each step for every separator of D."""
        claim = self.claim
        ctxs = []
        for sctx, sep in per_sep:
            ctx = sctx.derived(params)
            if (ctx.sep is None and self.need_sep) or applicable(claim, ctx, None, "candidate"):
                continue
            ctxs.append((ctx, sep))
        if not ctxs:
            return
        if self.learner and claim.when != "dataset":
            return self.learner_run(ctxs, pts, labels, params)
        if claim.when == "dataset":
            for ctx, sep in ctxs:
                tallies: dict = {}
                evaluate_dataset_claims([claim], ctx, "candidate", tallies)
                self.checked[0] += 1
                if tallies.get(claim.id) and tallies[claim.id].violation:
                    self.found(pts, labels, [], params, sep)
            return
        try:
            root = DeclaredRun(ctxs[0][0])
        except (X.ExactError, ArithmeticError) as e:
            return self._skip(e, f"dataset {pts}, {labels}")
        self.walk(ctxs, root, [], pts, labels, params, ())

    def learner_run(self, ctxs, pts, labels, params):
        """The learner's run in the domain's order, replayed with the claim for each separator
        (as check replays a trace).  A run the update bound cuts has not ended: an end claim sees
        it only when it reads stopped_by_budget; a sequence its dataset cannot follow is no run."""
        from perceptron import MemoryTrace, ParamError, train

        rec = MemoryTrace()
        where = f"dataset {pts}, {labels}"
        try:
            res = train(ctxs[0][0].ds, params, rec)
        except ParamError:
            return None  # e.g. a sequence naming a point that is not misclassified in its turn
        except (X.ExactError, ArithmeticError) as e:
            return self._skip(e, where)
        if self.claim.when == "end" and res.stop == "max_updates" and not self.budget_stops:
            return None
        for ctx, sep in ctxs:
            try:
                _, bad, tallies = replay_run(ctx, rec.trace, [self.claim], "candidate", dataset_claims=False)
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
                           learner={"order": params.order, "max_updates": params.max_updates if res.stop == "max_updates"
                                    else None, "max_epochs": params.max_epochs if self.decl.stop == "epochs" else None})
            if tally.unknown:
                self._skip(tally.unknown, where)
        return None

    def _evaluate(self, ctxs, vals, where, path, pts, labels, params, history=()):
        for ctx, sep in ctxs:
            tally = ClaimTally()
            eval_claim(self.claim, Env(ctx, dict(vals), list(history)), tally, where,
                        ctx.strict_gamma() if "strict_margin" in self.claim.assume else None)
            self.checked[0] += tally.evaluations
            if tally.violation:
                self.found(pts, labels, path, params, sep)
            if tally.unknown:
                self._skip(tally.unknown, f"dataset {pts}, {labels}, updates {path}")

    def walk(self, ctxs, run, path, pts, labels, params, history):
        """Every run from this state (``history``: the states before the last MAX_PREV updates,
        for prev(...))."""
        if self._late():
            return
        ctx = ctxs[0][0]
        try:
            marked = [(i, s, *run.decide(i, s)) for i, s in ((i, run.score(i)) for i in range(ctx.n))]
        except (X.ExactError, ArithmeticError) as e:
            return self._skip(e, f"dataset {pts}, {labels}, updates {path}")
        take = [(i, s, out) for i, s, out, m in marked if m]
        if not take:
            if self.claim.when == "end":
                k = len(path)  # a run of the learner's --order sequence: one visit (and epoch) per update
                try:
                    outs = run.outputs(k, k)
                except (X.ExactError, ArithmeticError) as e:
                    return self._skip(e, f"dataset {pts}, {labels}, updates {path}")
                vals = run.claim_vals(**outs, mistakes=Fraction(k), epochs=Fraction(k), t=Fraction(k),
                                      converged=Fraction(1), stopped_by_budget=Fraction(0))
                self._evaluate(ctxs, vals, {"end": True, "k": k}, path, pts, labels, params, history)
            return
        if len(path) >= self.dom.max_updates:
            return
        if self.dom.order == "first":
            take = take[:1]
        for i, s, out in take:
            nxt = run.copy()
            try:
                nxt.update(i, s, out, len(path) + 1)
            except (X.ExactError, ArithmeticError) as e:
                self._skip(e, f"dataset {pts}, {labels}, updates {path + [i]}")
                continue
            p2 = path + [i]
            h2 = (history + (run.before(),))[-MAX_PREV:]
            if self.claim.when == "update":
                vals = nxt.claim_vals(t=Fraction(len(p2)), i=Fraction(i), x=ctx.rows[i], y=Fraction(ctx.y[i]),
                                      score=s, out=Fraction(out))
                self._evaluate(ctxs, vals, {"k": len(p2)}, p2, pts, labels, params, h2)
            self.walk(ctxs, nxt, p2, pts, labels, params, h2)

    def found(self, pts, labels, path, params, sep, learner=None):
        from verify.searching.confirm import NotRunnable, confirm

        separator = None if sep is None else (sep[0], sep[1])
        try:
            ce = confirm(self.claim, self.decl.name, [list(p) for p in pts], labels, path, separator, params.sign0,
                         eta=params.eta, w0=params.w0, b0=params.b0, declared=params.declared, strict=True,
                         **(learner or {}))  # a run of the learner in its order, confirmed as made
        except NotRunnable as e:  # the claim evaluator holds square roots the learner cannot: not a counterexample
            return self._skip(e, f"dataset {pts}, {labels}, updates {path}")
        if ce is None:  # the step-by-step evaluation and the replay of the learner's trace disagree: a bug
            raise AssertionError(f"the search's violation of {self.claim.id} on {pts}, {labels}, path {path} "
                                 "did not survive the replay")
        raise _Found(ce)
