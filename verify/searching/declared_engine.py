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
import math
import time
from dataclasses import asdict
from fractions import Fraction

import numpy as np

from perceptron import from_rows
from perceptron._interval import IntervalError
from perceptron._numbers import format_rational
from perceptron.declared import variant_of
from perceptron.variants import DEFAULT_VARIANT
from verify.language.assumptions import STRICT_MARGIN, met_on_data, tested_on_data
from verify.language.expr import MAX_PREV
from verify.language.scalar import ClaimTally, Env, eval_claim
from verify.numbers import exact as X
from verify.replay.declared import DeclaredRun
from verify.replay.dispatch import RunContext, applicable
from verify.searching.declared_batch import (BLOCK_INSTANCES, MIN_BLOCK_INSTANCES, Instance, Outcome, batchable,
                                              walk_block)
from verify.searching.domain import (MAX_SETTINGS, WIDEST_TEXT, SearchError, check_limits, choose_separators, domain_for,
                                      point_list, separators, uncertified)
from verify.searching.learner_runs import Walker
from verify.searching.orbits import FOLDED, ORBITS, canonical, declared_label_symmetric, equivariant, rotation_symmetric
from verify.searching.separator_screen import EXACT, HOLDS, SeparatorScreen
from verify.verdicts import Verdict

__all__ = ["search_declared", "walked_in_blocks", "declared_settings", "is_declared", "param_values", "MAX_SEEN"]

#: States remembered on one run's tree (the walk of every order): a state reached again is not
#: walked again; past this many, every state is walked (a few hundred bytes each).
MAX_SEEN = 1_000_000
#: Datasets made at once by the block walk's enumeration (their arrays: a few int64 per point).
CHUNK_DATASETS = 4096
#: Whether runs under order any are walked in blocks (verify.searching.declared_batch); the exact
#: depth-first walk alone when not (the tests compare the two).
BATCH = True
#: Separators from which a step's claim is screened over all of them at once (verify.searching.
#: separator_screen); below, each is evaluated exactly (the screen's arrays cost more than it spares).
MIN_SCREENED = 4


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
        "datasets": f"up to {dom.points} integer points in [-{dom.box}, {dom.box}]^{dom.dim} (not all zero), labels -1/+1"
                    + (FOLDED if engine == "enumerate" and declared_label_symmetric(claim, decl.name) else "")
                    + (ORBITS if engine == "enumerate" and rotation_symmetric(claim, dom, without_separator=False) and equivariant(decl.name) else ""),
        "runs": f"the declared variant {decl.name} (sha256 {decl.sha256[:16]}) with eta in {{{etas}}}, w0 = {w0}"
                + (f", {params}" if params else "") + (f", sign(0) in {{{', '.join(map(str, dom.sign0s))}}}" if decl.sign0 is None else "")
                + f", at most {dom.max_updates} updates, order {dom.order}"
                + (" (any point the mistake condition selects may be taken at each step)" if dom.order == "any" else "")
                + (f"; the declaration always runs its epochs: runs of 1 to {dom.max_updates + 1} epochs"
                   if decl.stop == "epochs" else "")
                + ("; each candidate the learner's run in that order, replayed with the claim; a run the update bound "
                   "cuts is stopped by budget (an end claim sees it only if it reads stopped_by_budget)"
                   if dom.order != "any" else ""),
        "separators": WIDEST_TEXT if decl.bias and dom.separators == "best" else
                      f"integer v in [-{dom.sep_box}, {dom.sep_box}]^{dom.dim}" + (" and bias c in the same range" if decl.bias else "")
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


def _runs(claim, dom, decl):
    """The widened domain for a declared variant's claim."""
    base = asdict(dom)
    base["variant"] = DEFAULT_VARIANT  # domain_for reads only the claim's assumptions and ranges here
    wide = domain_for(claim, type(dom)(**base))
    return type(dom)(**{**asdict(wide), "variant": decl.name, "unit": False, "forms": ("yx",)})


def walked_in_blocks(claim, dom) -> bool:
    """Whether a search of ``claim`` (about a declared variant) in ``dom`` walks its runs in blocks
    (verify.searching.declared_batch: many candidates at once, as the enumeration screens the
    built-in variants') rather than training the learner on each candidate."""
    try:
        decl = variant_of(dom.variant)
        return batchable(claim) and _order_domain(claim, _runs(claim, dom, decl), decl).order == "any"
    except (SearchError, ValueError, KeyError):
        return False


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
    # a declaration that always runs its epochs: its runs of 1 to max_updates + 1 epochs (the epochs
    # are a setting of the run, as eta is)
    epochs = [{"max_epochs": e} for e in range(1, dom.max_updates + 2)] if decl.stop == "epochs" else [{}]
    if len(settings) * len(epochs) > MAX_SETTINGS:
        raise SearchError(f"{len(settings) * len(epochs)} run settings (eta x sign(0) x the declared parameters x "
                          f"{len(epochs)} numbers of epochs); a search takes at most {MAX_SETTINGS}")
    walker = DeclaredWalker(claim, dom, decl.name, [{"eta": eta, "sign0": s0, "declared": vals, **ep}
                                                    for eta, s0, vals in settings for ep in epochs],
                            deadline, checked, max_exact, bias=decl.bias is not None, stop=decl.stop)
    walker.batch = eng == "enumerate" and batchable(claim) and BATCH and not walker.learner
    walker.pending, walker._templates = [], {}
    return walker.search(eng, result, out_dir)


def _frozen(value):
    """An exact value as a key equal for equal values: a rational as itself, a vector as its
    reduced integer core, denominator, extra components and multiplier; TypeError for another."""
    if isinstance(value, (Fraction, int)):
        return value
    if isinstance(value, X.Vec) and isinstance(value.mult, Fraction):
        num = [int(v) for v in value.num.tolist()]
        g = math.gcd(value.den, *num) or 1
        return ("vec", tuple(v // g for v in num), value.den // g, tuple(_frozen(e) for e in value.extra), value.mult)
    raise TypeError(f"no key for {type(value).__name__}")


class DeclaredWalker(Walker):
    """The walker over a declared variant's runs: under order ``any`` every choice of
    misclassified point (a tree of runs of the learner's ``--order sequence:...``, one visit per
    update, so t = k), stepped by the claim evaluator (DeclaredRun); in a deterministic order the
    learner's own runs (Walker.run)."""

    seen = None  # the states reached on the current run's tree (run sets it)
    _screen = None  # the separator screen of the current run setting's separators
    _memo = (None, None)  # (dataset, the enclosures of its separators' quantities)

    batch = False  # collect the runs into blocks (verify.searching.declared_batch): set by search_declared
    pending: list = []
    _templates: dict = {}
    walked = 0  # instances walked in blocks so far

    def instance(self, per_sep, pts, labels, params):
        if not self.batch:
            return super().instance(per_sep, pts, labels, params)
        ctx = per_sep[0][0].derived(params)
        # D's separators all separate (their margins are positive), and a claim's assumptions read the
        # data's kind, never which separator: the claim applies at every separator where it applies at the first
        if (ctx.sep is None and self.need_sep) or applicable(self.claim, ctx, None, "candidate"):
            return None
        self.collect(Instance(np.array(pts, dtype=np.int64), np.array(labels, dtype=np.int64), per_sep.seps, params, ctx,
                              lambda: per_sep))
        return None

    def enumerate(self) -> bool:
        """D's datasets made in chunks of arrays (the orbit and zero filters, the separators and the
        assumptions that read the data at once: met_on_data), in the order of Walker.enumerate, each
        run setting's instance collected for the block walk; the other walks as Walker.enumerate."""
        if not self.batch or (self.need_sep and self.dom.separators == "best" and self.bias) or self.reads_cert or \
                not tested_on_data(self.claim):  # (the best separator with a bias: the exact widest, one QP each)
            return super().enumerate()
        P, L = point_list(self.dom.dim, self.dom.box, self.fold)
        P, L = np.asarray(P, dtype=np.int64), np.asarray(L, dtype=np.int64)
        ordered = self.dom.order != "any"
        for n in range(1, self.dom.points + 1):
            combos = itertools.product(range(len(P)), repeat=n) if ordered else \
                itertools.combinations_with_replacement(range(len(P)), n)
            while True:
                if self._late():
                    self.flush()
                    return False
                idx = np.array(list(itertools.islice(combos, CHUNK_DATASETS)), dtype=np.int64).reshape(-1, n)
                if not len(idx):
                    break
                if self.maps:
                    idx = idx[canonical(idx, self.maps, ordered)]
                Xc, Yc = P[idx], L[idx]
                nonzero = (Xc != 0).any(axis=(1, 2))
                if not self._chunk(Xc[nonzero], Yc[nonzero]):
                    self.flush()
                    return False
            self.flush()
            if self._late():
                return False
            self.points_done = n
        return True

    def _chunk(self, X, Y) -> bool:
        """The instances of a chunk's datasets (False: the budget ran out)."""
        B = len(X)
        separated = np.ones(B, dtype=bool)
        if self.need_sep:
            V, C = separators(self.dom.dim, self.dom.sep_box, self.bias)
            mi, si, _ = choose_separators(X, Y, V, C, "best" if self.dom.separators == "best" else "all")
            lo, hi = np.searchsorted(mi, np.arange(B)), np.searchsorted(mi, np.arange(B), side="right")
            separated = hi > lo
        met = met_on_data(self.claim, X, Y, 1, separated)
        for b in range(B):
            self.datasets += 1
            if not (separated[b] and met[b]):
                continue
            seps = self.separators_read(V, C, si[lo[b]:hi[b]]) if self.need_sep else [None]
            for params in self.run_params():
                tmpl = self._template(params, X[b], Y[b])
                if tmpl is None:
                    continue
                self.collect(Instance(X[b], Y[b], seps, params, tmpl,
                                      lambda x=X[b], y=Y[b], seps=seps, params=params: self.separator_contexts(
                                          [tuple(map(int, r)) for r in x.tolist()], [int(v) for v in y.tolist()], seps, params)))
                if self._late():
                    return False
        return True

    def _template(self, params, points, labels):
        """A context of the run setting ``params`` (made once, on the first dataset), or None where
        the claim does not apply to its runs (what the data decide is the chunk's: met_on_data)."""
        got = self._templates.get(id(params))
        if got is None:
            pts, labels = [tuple(map(int, r)) for r in points.tolist()], [int(v) for v in labels.tolist()]
            try:
                ctx = RunContext(from_rows("candidate", [list(p) for p in pts], labels), params, cert=uncertified(self.bias))
            except (X.ExactError, ArithmeticError, ValueError) as e:
                self._skip(e, f"dataset {pts}, {labels}")
                return None
            got = self._templates[id(params)] = (ctx, applicable(self.claim, ctx, None, "candidate", data=False))
        return None if got[1] else got[0]

    def collect(self, inst):
        """One instance for the block walk; the block is walked when full, or before one of another size."""
        if self.pending and len(self.pending[0].X) != len(inst.X):
            self.flush()
        self.pending.append(inst)
        if len(self.pending) >= self._block_size():
            self.flush()

    def _block_size(self) -> int:
        """Instances to collect: what is left of the budget at the evaluations per instance so far,
        within MIN_BLOCK_INSTANCES and BLOCK_INSTANCES (counts only: the same for any machine)."""
        if self.max_exact is None:
            return BLOCK_INSTANCES
        per = max(1.0, self.checked[0] / max(1, self.walked))
        return int(min(BLOCK_INSTANCES, max(MIN_BLOCK_INSTANCES, (self.max_exact - self.checked[0]) / per)))

    def run(self, ctxs, pts, labels, params):
        if self.learner:
            return super().run(ctxs, pts, labels, params)
        return self._walk_exact(ctxs, pts, labels, params)

    def flush(self):
        """The collected runs walked as one block; each instance it leaves walked exactly, and
        the first violation (in the instances' order) confirmed and reported."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        self.walked += len(pending)
        try:
            before = self.checked[0]
            outs = walk_block(self.claim, variant_of(self.variant), pending, self.dom.max_updates, merge=MAX_SEEN > 0,
                              stop=lambda spent: self._late(before + spent))
        except IntervalError:  # the claim or the declaration reads what the block walk does not hold
            self.batch = False
            outs = [Outcome(exact=True) for _ in pending]
        for inst, o in zip(pending, outs):
            if o.cut and o.violation is None:  # the budget or time ran out in its walk: not complete (_late says so)
                self.checked[0] += o.evaluations
                continue
            if o.violation is not None and not o.exact:
                self.checked[0] += o.evaluations
                _, path, j = o.violation
                self.found(inst.pts, inst.labels, list(path), inst.params, inst.seps[j])
            if o.violation is not None or o.exact or o.pruned:  # (found returned: not a run the learner makes)
                per_sep = inst.contexts()
                ctxs = self.contexts(per_sep, inst.params) if per_sep is not None else []
                if ctxs:
                    self._walk_exact(ctxs, inst.pts, inst.labels, inst.params)
            else:
                self.checked[0] += o.evaluations

    def _walk_exact(self, ctxs, pts, labels, params):
        """Every run of the instance, depth first, exactly."""
        try:
            root = DeclaredRun(ctxs[0][0])
        except (X.ExactError, ArithmeticError) as e:
            return self._skip(e, f"dataset {pts}, {labels}")
        # the states reached on this run's tree: a state reached again by another order of the same
        # updates has the same future, walked once (unless the claim or its premise reads prev(): its past differs)
        given = self.claim.given
        reads_past = self.claim.compiled.uses_prev or (given is not None and given.uses_prev)  # the premise too
        self.seen = None if reads_past else set()
        return self.walk(ctxs, root, [], pts, labels, params, ())

    def _again(self, run) -> bool:
        """Whether ``run``'s state (its variables, k and sumsq) was reached before on this tree;
        records it when not.  A state whose values cannot be hashed, or past MAX_SEEN, is walked."""
        if self.seen is None or len(self.seen) >= MAX_SEEN:
            return False
        try:
            key = (run.k, run.sumsq, tuple((name, _frozen(v)) for name, v in sorted(run.state.items())))
        except TypeError:
            return False
        if key in self.seen:
            return True
        self.seen.add(key)
        return False

    def _evaluate(self, ctxs, vals, where, path, pts, labels, params, history=()):
        if len(ctxs) < MIN_SCREENED:
            for ctx, sep in ctxs:
                self._exact(ctx, sep, vals, where, path, pts, labels, params, history)
            return
        # every separator at once; those the screen leaves, exactly, in their order (so that the
        # count of evaluations before a violation is the one separator by separator)
        if self._screen is None or self._screen.ctxs is not ctxs:
            if self._memo[0] is not ctxs[0][0].ds:  # the enclosures of a dataset's separators, kept for it
                self._memo = (ctxs[0][0].ds, {})
            self._screen = SeparatorScreen(self.claim, ctxs, self._memo[1])
        outcome = self._screen.decide(Env(ctxs[0][0], dict(vals), list(history)))
        held = np.concatenate(([0], np.cumsum(outcome == HOLDS)))
        done = 0
        for j in np.flatnonzero(outcome == EXACT).tolist():
            self.checked[0] += int(held[j] - held[done])
            self._exact(*ctxs[j], vals, where, path, pts, labels, params, history)
            done = j + 1
        self.checked[0] += int(held[-1] - held[done])

    def _exact(self, ctx, sep, vals, where, path, pts, labels, params, history):
        """The claim at one step for one separator, exactly."""
        tally = ClaimTally()
        eval_claim(self.claim, Env(ctx, dict(vals), list(history)), tally, where,
                   ctx.strict_gamma() if STRICT_MARGIN in self.claim.assume else None)
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
            if not self._again(nxt):  # the update's own evaluation is made on every path; its future once
                self.walk(ctxs, nxt, p2, pts, labels, params, h2)
