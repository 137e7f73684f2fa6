"""Replay: recompute a trace from its dataset, check every step against the variant's rule,
and evaluate claims wherever they apply.

Nothing in the trace is trusted.  The replay re-runs the algorithm named in the trace header,
one visit at a time, in exact arithmetic (float traces: in float, with the run's own rounding),
and compares each recorded field with what the rule requires.  The first disagreement makes
the trace inconsistent, and claims are then not evaluated on it.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np

from perceptron import Params
from perceptron.declared import declared, register, variant_of
from perceptron.params import prepare_inputs
from verify.certify.certificates import Certificate, certify
from verify.certify.widest import missing_widest
from verify.language import assumptions
from verify.language.assumptions import CONVERGED
from verify.language.columns import Frame, tally_claims
from verify.language.scalar import ClaimTally
from verify.numbers import exact as X
from verify.numbers.integers import INT64_SAFE
from verify.replay.blocks import replay_blocks
from verify.replay.exact import replay_exact
from verify.replay.floats import replay_float
from verify.replay.records import (
    Inconsistency,
)

__all__ = ["Inconsistency", "ClaimTally", "replay", "replay_run", "RunContext", "evaluate_dataset_claims", "applicable"]


# --------------------------------------------------------------------------- context

class RunContext:
    """Everything about one (dataset, run parameters) pair that claims may use."""

    def __init__(self, ds, params: Params, cert: Certificate | None = None, separator=None):
        """``separator`` = (v, c): use w_opt = v/|v|, b_opt = c/|v| exactly (an integer or
        rational separator, as the search and the audit's second separator quantify over)
        instead of the certified max-margin one; ``cert`` is still the dataset's certificate
        (computed when not given) and supplies gamma_lo, gamma_hi."""
        self.ds, self.params = ds, params
        self.var = variant_of(params.variant)
        self.declared = getattr(self.var, "declared", False)
        self.bias = self.var.bias is not None
        self.exact = params.arithmetic == "exact"
        Xn, D = prepare_inputs(ds, params.__class__(**{**params.__dict__, "arithmetic": "exact"}))
        self.Xn, self.D = Xn, D
        self.rows = [X.Vec(np.asarray(r), D) for r in Xn]
        self.y = [int(v) for v in ds.y]
        self.n, self.d = len(self.rows), int(Xn.shape[1])
        self.R2 = Fraction(max(self.norms2), D * D)
        self.R = X.sqrt(self.R2)
        self._inputs_key = (ds.sha256, params.augment, bool(getattr(self.var, "unit", False)), self.bias)
        if cert is None and separator is None:
            cert = _remembered(_CERTIFICATES, self._inputs_key, lambda: certify(Xn, D, self.y, bias=self.bias))
        self.cert = cert
        self._set_params(params)
        self._set_separator(separator)

    @property
    def norms2(self) -> list[int]:
        """|x_i|^2 D^2 for every input (Python integers; computed once: R2, sumsq and both
        replays read it)."""
        if getattr(self, "_norms2", None) is None:
            Xn, xmax = self.Xn, (int(np.abs(self.Xn).max()) if self.Xn.size else 0)
            self._norms2 = ((Xn * Xn).sum(axis=1).tolist() if Xn.dtype != object and xmax * xmax * max(1, Xn.shape[1]) < INT64_SAFE
                            else [sum(int(a) * int(a) for a in r) for r in Xn])
        return self._norms2

    def _set_params(self, params: Params):
        """The quantities of the run's parameters (eta, sign(0), w0, b0, declared parameters)."""
        self.params = params
        self.eta = Fraction(params.eta)
        self.tie = self.var.tie if self.var.tie is not None else params.sign0
        w0 = params.w0 if params.w0 is not None else (0,) * self.d
        self.w0 = X.vec_from_fractions(w0) if not self.var.dual else X.vec_from_fractions([0] * self.d)
        self.b0 = Fraction(params.b0 or 0)
        consts = dict(getattr(self, "consts", {}))  # a derived context keeps its separator's quantities
        for key in getattr(self, "declared_values", {}):
            consts.pop(key, None)
        consts.update({"eta": self.eta, "R2": self.R2, "R": self.R, "n": Fraction(self.n), "d": Fraction(self.d),
                       "w0": self.w0, "sign0": Fraction(self.tie), "ones": X.vec_from_fractions([1] * self.d)})
        for key in ("kernel_degree", "kernel_offset"):
            consts.pop(key, None)
        if self.var.dual and params.kernel in ("linear", "poly"):  # the linear kernel is (x.z + 0)^1
            consts["kernel_degree"] = Fraction(1 if params.kernel == "linear" else params.degree)
            consts["kernel_offset"] = Fraction(0 if params.kernel == "linear" else params.offset)
        self.consts = consts
        self.declared_values = {}
        if self.declared:  # the declaration's parameters, with the run's values
            self.declared_values = {**dict(self.var.parameters), **dict(params.declared)}
            self.consts.update(self.declared_values)

    def _set_separator(self, separator):
        """The separator claims use: the given (v, c), else the certificate's max-margin one
        (with a bias and one class there is none: ``no_widest`` says why, and w_opt, b_opt,
        gamma, gamma_lo and gamma_hi are undefined; verify.certify.widest.missing_widest)."""
        from verify.certify.widest import ONE_CLASS

        cert, sep = self.cert, None
        self.no_widest = ONE_CLASS if self.bias and len(set(self.y)) < 2 else None
        self.separator_kind, self._given = None, separator
        for key in ("w_opt", "b_opt", "gamma", "v_opt", "c_opt", "m_opt", "w_hat_opt", "gamma_lo", "gamma_hi"):
            self.consts.pop(key, None)
        if separator is not None:
            key = (self._inputs_key, tuple(Fraction(a) for a in separator[0]), Fraction(separator[1] or 0))
            sep = _remembered(_SEPARATORS, key, lambda: _separator_certificate(self.Xn, self.D, self.y, separator, self.bias))
            self.separator_kind = "given"
        elif cert is not None and cert.kind == "separable" and self.no_widest is None:
            sep = cert
            self.separator_kind = "max-margin"
        self.sep = sep
        kind = sep.kind if sep is not None else (cert.kind if cert is not None else "unknown")
        self.consts["separable"] = Fraction(1 if kind == "separable" else 0)
        if cert is not None and cert.kind == "separable" and self.no_widest is None:
            self.consts["gamma_lo"] = cert.gamma
            if cert.gamma_hi is not None:
                self.consts["gamma_hi"] = cert.gamma_hi
        if sep is not None and sep.kind == "separable":
            self.consts.update({"w_opt": sep.w_opt, "b_opt": sep.b_opt, "gamma": sep.gamma,
                                "v_opt": X.vec_from_fractions([Fraction(a) for a in sep.v]), "c_opt": sep.c, "m_opt": sep.m})
            if X.sign(self.R) != 0:  # (w_opt, b_opt/R) is undefined when every point is 0
                self.consts["w_hat_opt"] = X.vconcat(sep.w_opt, [X.div(sep.b_opt, self.R)])

    def derived(self, params: Params | None = None, separator=None) -> "RunContext":
        """This context for other parameters of the same variant and inputs (same augmentation),
        and/or another given separator: the data's quantities are shared, not recomputed."""
        c = copy.copy(self)
        c.consts = dict(self.consts)  # never shared: _set_separator changes it in place
        if params is not None:
            c._set_params(params)
        if separator is not None:
            c._set_separator(separator)
        return c

    @property
    def kind(self) -> str:
        """separable / nonseparable / unknown: of the separator in use, else of the certificate."""
        if self.sep is not None:
            return self.sep.kind
        return self.cert.kind if self.cert is not None else "unknown"

    def strict_gamma(self):
        g = self.consts.get("gamma")
        return None if g is None else X.mul(g, 1 - Fraction(1, 2**32))


#: Certificates already made in this process, by inputs (dataset hash, augmentation, unit
#: scaling, bias) and, for a given separator, by the separator: the search confirms thousands
#: of candidate runs on a few datasets.  The same inputs give the same certificate; each cache
#: keeps its latest REMEMBERED entries.
REMEMBERED = 512
_CERTIFICATES: dict = {}
_SEPARATORS: dict = {}


def _remembered(cache: dict, key, make):
    got = cache.get(key)
    if got is None:
        got = make()
        if len(cache) >= REMEMBERED:
            cache.pop(next(iter(cache)))
        cache[key] = got
    return got


def _separator_certificate(Xn, D, y, separator, bias) -> Certificate:
    """The given separator (v, c) as a certificate: separable iff its margin is positive
    (computed exactly in integers on the scaled inputs x_i = Xn_i / D)."""
    from verify.certify.qp import products

    v, c = separator
    v = [Fraction(a) for a in v]
    c = Fraction(c) if bias else Fraction(0)
    if len(v) != Xn.shape[1]:
        return Certificate("unknown", bias, reason=f"separator has {len(v)} coordinates, inputs have {Xn.shape[1]}")
    den = math.lcm(*[a.denominator for a in v])
    prods = products(Xn, [int(a * den) for a in v])
    m = min(yi * (Fraction(si, D * den) + c) for si, yi in zip(prods, y))
    if m <= 0 or not any(v):
        return Certificate("unknown", bias, method="given separator", reason=f"the given separator does not separate (margin {m})")
    return Certificate("separable", bias, v=v, c=c, m=m, method="given separator")


def applicable(claim, ctx: RunContext, converged: bool | None = None, dataset_name: str | None = None,
               data: bool = True) -> str | None:
    """None if the claim applies to this run, else the reason it does not; ``data`` False: as far
    as the run's settings say (the assumptions that read the data, and a separator's quantities,
    are the caller's: verify.language.assumptions.met_on_data)."""
    p = ctx.params
    if claim.variants and p.variant not in claim.variants:
        return f"variant {p.variant} not in {list(claim.variants)}"
    if claim.orders and p.order not in claim.orders:
        return f"order {p.order} not in {list(claim.orders)}"
    if claim.datasets and dataset_name not in claim.datasets:
        return f"dataset {dataset_name} not in {list(claim.datasets)}"
    why = assumptions.unmet(claim, ctx, converged, data)
    if why:
        return why
    if getattr(claim, "setting", None) is not None:
        why = claim.setting.mismatch(p, ctx.ds.d, data_only=claim.when == "dataset")
        if why:
            return why
    if not data:
        return None
    return missing_widest(claim, ctx) or _separator_missing(claim, ctx)


#: The quantities a separator of the data defines (RunContext._set_separator sets them).
_SEPARATOR_QUANTITIES = ("w_opt", "b_opt", "gamma", "v_opt", "c_opt", "m_opt", "w_hat_opt", "gamma_lo", "gamma_hi")


def _separator_missing(claim, ctx: RunContext) -> str | None:
    """A claim that reads a separator's quantity where the data have none (not certified
    separable, or every point 0) does not apply there: the quantity is undefined, not false."""
    names = set()
    for compiled in (claim.compiled, claim.given):
        names |= set(getattr(compiled, "names", ()) or ())
    missing = [q for q in _SEPARATOR_QUANTITIES if q in names and q not in ctx.consts]
    if missing:
        return f"{missing[0]} is undefined here: the data have no certified separator ({ctx.kind})"
    return None


def evaluate_dataset_claims(claims, ctx: RunContext, dataset_name: str, tallies: dict):
    for c in claims:
        if c.when != "dataset":
            continue
        why = applicable(c, ctx, None, dataset_name)
        if why:
            tallies.setdefault(c.id, ClaimTally()).not_applicable = why
            continue
        tally = tallies.setdefault(c.id, ClaimTally())
        assigned = [{}]
        if c.free:
            from verify.language.free import assignments

            assigned = assignments(c.free, ctx.d, ctx.n)
            if isinstance(assigned, str):
                tally.not_applicable = f"free names not enumerated on {dataset_name}: {assigned}"
                continue
        # every assignment of the free names is a row, evaluated together (verify.language.columns)
        tally_claims(Frame.of_dataset(ctx, dataset_name, assigned), [c], tallies, ctx.strict_gamma(),
                     scalar=SCALAR_ORACLE)


# --------------------------------------------------------------------------- replay

def replay(ds, trace, claims=(), *, dataset_name=None, cert=None, dataset_claims=True, separator=None):
    """Re-run the trace's algorithm on ds, compare with every record, evaluate claims.

    Returns (ctx, inconsistency or None, {claim_id: ClaimTally}).
    """
    h = trace.header
    name = dataset_name or ds.name
    if h["dataset"]["sha256"] != ds.sha256:
        return None, Inconsistency(None, f"the trace was written for dataset {h['dataset']['sha256'][:16]}... "
                                         f"({h['dataset'].get('name')}), not this one ({ds.sha256[:16]}..., {ds.name})"), {}
    decl = getattr(trace, "declaration", None)
    if decl is not None:  # the header's own declaration: it must be the one the user gave, if any
        known = declared(decl.name)
        if known is None:
            register(decl)
        elif known != decl:
            diff = next((key for key in known.source if known.source[key] != decl.source.get(key)), "a field")
            return None, Inconsistency(None, f"the trace's declaration of {decl.name} differs from the one given "
                                             f"(its {diff}): the trace is of another algorithm"), {}
    try:
        params = Params.from_json(h["params"], decl)
    except (TypeError, ValueError) as e:
        return None, Inconsistency(None, f"trace parameters unreadable: {e}"), {}
    if (h["dataset"].get("n"), h["dataset"].get("d")) != (ds.n, ds.d):
        return None, Inconsistency(None, f"the trace's header says n = {h['dataset'].get('n')}, d = {h['dataset'].get('d')}; "
                                         f"the dataset has n = {ds.n}, d = {ds.d}"), {}
    if params.arithmetic == "float":
        return _replay_float_trace(ds, trace, params, claims, name, cert, dataset_claims, separator)
    return replay_run(RunContext(ds, params, cert, separator), trace, claims, name, dataset_claims)


def tallied(claims, dataset_claims=True) -> list:
    """The claims a replay of a run tallies (each evaluated, or found not applicable): those
    evaluated at its steps or end, and with ``dataset_claims`` those about its dataset."""
    return [c for c in claims if (c.when in ("visit", "update", "end") and c.compiled is not None)
            or (dataset_claims and c.when == "dataset")]


def replay_run(ctx, trace, claims, name, dataset_claims=True):
    """replay() past the header: the trace of ``ctx``'s run compared with the re-run, the claims
    evaluated on it.  The search calls it with a context it derived once per dataset."""
    tallies: dict = {}
    step_claims = tallied(claims, dataset_claims=False)
    live = []
    for c in step_claims:
        why = applicable(c, ctx, None, name)
        if why:
            tallies.setdefault(c.id, ClaimTally()).not_applicable = why
        else:
            live.append(c)
            tallies.setdefault(c.id, ClaimTally())
    visit_claims = [c for c in live if c.when == "visit"]
    update_claims = [c for c in live if c.when == "update"]
    end_claims = [c for c in live if c.when == "end"]
    if getattr(trace, "checkpoints", False):  # a run recorded by its updates: every visit re-derived
        from verify.replay.checkpoints import VISIT_CLAIMS_WHY, replay_checkpoints

        for c in visit_claims:
            tallies[c.id].not_applicable = VISIT_CLAIMS_WHY
        bad = replay_checkpoints(ctx, trace, update_claims, end_claims, tallies, name)
    elif ctx.declared:
        from verify.replay.declared import replay_declared

        bad = replay_declared(ctx, trace, visit_claims, update_claims, end_claims, tallies, name)
    else:
        bad = None
        if SCALAR_ORACLE or not replay_blocks(ctx, trace, visit_claims, update_claims, end_claims, tallies, name):
            # anything the whole-array replay could not settle is replayed visit by visit
            bad = replay_exact(ctx, trace, visit_claims, update_claims, end_claims, tallies, name, scalar=SCALAR_ORACLE)
    if bad is not None:
        return ctx, bad, {}
    why = cut_short(ctx, getattr(trace, "end", None) or {})
    if why:  # a run its budget cut has not ended: it decides nothing about its end
        for c in live:
            if reads_run_end(c):
                tallies[c.id] = ClaimTally(not_applicable=why)
    if dataset_claims:
        evaluate_dataset_claims(claims, ctx, name, tallies)
    return ctx, None, tallies


#: The stops of a run that a budget made (the learner's --max-epochs, --max-updates, --max-visits).
_BUDGET_STOPS = {"max_epochs": "epochs", "max_updates": "updates", "max_visits": "visits"}


def budget_cut(params, stop) -> bool:
    """Whether a run of ``params`` that stopped with ``stop`` was cut by a budget before its
    algorithm ended (not the pocket's T epochs, nor a declared variant that always runs its epochs)."""
    var = variant_of(params.variant)
    return stop in _BUDGET_STOPS and not var.pocket and not (getattr(var, "declared", False) and var.stop == "epochs")


def cut_short(ctx, end: dict) -> str | None:
    """Why a run has not ended, when a budget stopped it before the algorithm did (None when
    it converged, or when its budget is the algorithm's own end: the pocket algorithm's T
    epochs, a declared variant that always runs its epochs)."""
    stop = end.get("stop")
    if not budget_cut(ctx.params, stop):
        return None
    p = ctx.params
    limit = {"epochs": p.max_epochs, "updates": p.max_updates, "visits": p.max_visits}[_BUDGET_STOPS[stop]]
    return (f"the run was cut at {limit} {_BUDGET_STOPS[stop]} ({end.get('updates')} updates, {end.get('epochs')} "
            f"epochs) by its budget and has not ended: raise max_epochs to see its end")


def reads_run_end(claim) -> bool:
    """Whether a claim speaks of a run's end (evaluated there, or assuming it converged): a run
    cut by its budget cannot decide it, unless the claim reads stopped_by_budget (it then speaks
    of cut runs too).  The search's rule (verify.searching.learner_runs): a step claim reading a
    whole-run quantity is evaluated on a cut run as a run stopped by budget, and says so."""
    names = set(getattr(claim.compiled, "names", ()) or ()) | set(getattr(claim.given, "names", ()) or ())
    if "stopped_by_budget" in names:
        return False
    return claim.when == "end" or CONVERGED in claim.assume


#: Tests set this to evaluate every claim of a replay with the scalar evaluator (the oracle of
#: verify.language.columns' whole-trace evaluation) instead.
SCALAR_ORACLE = False

#: Why claims on a float trace are evaluated on the exact re-run.
FLOAT_CLAIMS_NOTE = ("claims evaluated on the exact re-run of the trace's parameters: the notes' algorithm "
                     "is exact; the float run's weights are rounded")


def _replay_float_trace(ds, trace, params, claims, name, cert, dataset_claims, separator):
    """A float trace is first replayed as itself (complete, every decision certified); its
    claims are then evaluated on the exact run of the same parameters, which is what the notes'
    statements are about, never skipped: when no exact run exists (the RBF kernel, unit data
    whose norms are irrational) each claim is unknown, saying why."""
    from dataclasses import replace

    from perceptron import MemoryTrace, ParamError, train

    try:
        ctx = RunContext(ds, params, cert, separator)
    except (X.ExactError, ParamError) as e:
        return None, Inconsistency(None, f"cannot verify a float trace of these parameters: {e}"), {}
    bad = replay_float(ctx, trace)
    if bad is not None:
        return ctx, bad, {}
    if not claims:
        return ctx, None, {}
    rec = MemoryTrace()
    try:
        train(ds, replace(params, arithmetic="exact"), rec)
    except (ParamError, X.ExactError) as e:
        # claims about this run are unknown, saying why; the others do not apply to it at all
        out = {}
        for c in claims:
            why = applicable(c, ctx, None, name) if c.when in ("visit", "update", "end") else "not a claim about a run"
            out[c.id] = ClaimTally(not_applicable=why) if why else \
                ClaimTally(unknown=f"float trace; the exact re-run is impossible: {e}")
        return ctx, None, out
    ectx, bad, tallies = replay(ds, rec.trace, claims, dataset_name=name, cert=ctx.cert,
                                dataset_claims=dataset_claims, separator=separator)
    if bad is not None:  # the learner's own exact trace failed its replay: a bug, reported as such
        return ectx, Inconsistency(bad.t, f"the exact re-run of these parameters fails its replay: {bad.message}"), {}
    ectx.float_note = FLOAT_CLAIMS_NOTE
    return ectx, None, tallies

