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
from perceptron._numbers import format_rational
from perceptron.declared import declared, register, variant_of
from perceptron.models.primal import error_scale32
from perceptron.params import prepare_inputs
from verify.certify.certificates import Certificate, certify
from verify.language.columns import Frame, StepLog, tally_claims
from verify.language.scalar import ClaimTally, format_value
from verify.numbers import exact as X
from verify.numbers.exact import sign_or_tie
from verify.numbers.integers import INT64_SAFE, same_ratio
from verify.replay.blocks import replay_blocks
from verify.replay.records import (
    CyclicRule,
    Inconsistency,
    augmented_bias,
    end_mismatch,
    short_vector,
)

__all__ = ["Inconsistency", "ClaimTally", "replay", "RunContext", "evaluate_dataset_claims", "applicable"]


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
                       "w0": self.w0, "sign0": Fraction(self.tie)})
        self.consts = consts
        self.declared_values = {}
        if self.declared:  # the declaration's parameters, with the run's values
            self.declared_values = {**dict(self.var.parameters), **dict(params.declared)}
            self.consts.update(self.declared_values)

    def _set_separator(self, separator):
        """The separator claims use: the given (v, c), else the certificate's max-margin one."""
        cert, sep = self.cert, None
        self.separator_kind, self._given = None, separator
        for key in ("w_opt", "b_opt", "gamma", "v_opt", "c_opt", "m_opt", "w_hat_opt", "gamma_lo", "gamma_hi"):
            self.consts.pop(key, None)
        if separator is not None:
            key = (self._inputs_key, tuple(Fraction(a) for a in separator[0]), Fraction(separator[1] or 0))
            sep = _remembered(_SEPARATORS, key, lambda: _separator_certificate(self.Xn, self.D, self.y, separator, self.bias))
            self.separator_kind = "given"
        elif cert is not None and cert.kind == "separable":
            sep = cert
            self.separator_kind = "max-margin"
        self.sep = sep
        kind = sep.kind if sep is not None else (cert.kind if cert is not None else "unknown")
        self.consts["separable"] = Fraction(1 if kind == "separable" else 0)
        if cert is not None and cert.kind == "separable":
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
    def rows_frac(self) -> list:
        """The inputs as Fractions (built on first use: large for large datasets)."""
        if getattr(self, "_rows_frac", None) is None:
            self._rows_frac = [[Fraction(int(v), self.D) for v in r] for r in self.Xn]
        return self._rows_frac

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
    from verify.certify.certificates import products

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


def applicable(claim, ctx: RunContext, converged: bool | None = None, dataset_name: str | None = None) -> str | None:
    """None if the claim applies to this run, else the reason it does not."""
    p = ctx.params
    if claim.variants and p.variant not in claim.variants:
        return f"variant {p.variant} not in {list(claim.variants)}"
    if claim.orders and p.order not in claim.orders:
        return f"order {p.order} not in {list(claim.orders)}"
    if claim.datasets and dataset_name not in claim.datasets:
        return f"dataset {dataset_name} not in {list(claim.datasets)}"
    for a in claim.assume:
        why = _assumption_fails(a, ctx, converged)
        if why:
            return why
    return None


def _assumption_fails(a, ctx: RunContext, converged) -> str | None:
    p = ctx.params
    if a == "separable":
        return None if ctx.kind == "separable" else f"dataset is not certified separable ({ctx.kind})"
    if a == "nonseparable":
        return None if ctx.kind == "nonseparable" else "dataset is not certified non-separable"
    if a == "nontrivial":
        return None if len(set(ctx.y)) == 2 else "all labels are equal"
    if a == "unit_norm":
        return None if all(X.vdot(r, r) == 1 for r in ctx.rows) else "inputs are not all of norm 1"
    if a == "w0_zero":
        zero = not ctx.w0.num.any() and ctx.b0 == 0
        return None if zero else "initial weights are not zero"
    if a == "eta_one":
        return None if ctx.eta == 1 else f"eta = {ctx.eta}"
    if a == "eta_le_one":
        return None if 0 < ctx.eta <= 1 else f"eta = {ctx.eta}"
    if a == "strict_margin":
        return None
    if a == "converged":
        return None if converged in (None, True) else "the run did not converge"
    if a == "sign0_nonzero":
        return None if ctx.tie != 0 else "sign(0) = 0"
    if a == "sign0_zero":
        return None if ctx.tie == 0 else f"sign(0) = {ctx.tie}"
    if a == "form_yx":
        return None if p.form == "yx" else "update form is 1/2 eta (y - out) x"
    if a == "form_half":
        return None if p.form == "half" else "update form is eta y x"
    if a == "kernel_linear":
        return None if p.kernel == "linear" else f"kernel is {p.kernel}"
    if a == "ratchet":
        return None if p.ratchet else "no ratchet"
    if a == "no_ratchet":
        return None if not p.ratchet else "with ratchet"
    return f"unknown assumption {a}"


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
    ctx = RunContext(ds, params, cert, separator)
    tallies: dict = {}
    step_claims = [c for c in claims if c.when in ("visit", "update", "end") and c.compiled is not None]
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
    if ctx.declared:
        from verify.replay.declared import replay_declared

        bad = replay_declared(ctx, trace, visit_claims, update_claims, end_claims, tallies, name)
    else:
        bad = _replay_exact(ctx, trace, visit_claims, update_claims, end_claims, tallies, name)
    if bad is not None:
        return ctx, bad, {}
    if dataset_claims:
        evaluate_dataset_claims(claims, ctx, name, tallies)
    return ctx, None, tallies


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
    bad = _replay_float(ctx, trace)
    if bad is not None:
        return ctx, bad, {}
    if not claims:
        return ctx, None, {}
    rec = MemoryTrace()
    try:
        train(ds, replace(params, arithmetic="exact"), rec)
    except (ParamError, X.ExactError) as e:
        return ctx, None, {c.id: ClaimTally(unknown=f"float trace; the exact re-run is impossible: {e}") for c in claims}
    ectx, bad, tallies = replay(ds, rec.trace, claims, dataset_name=name, cert=ctx.cert,
                                dataset_claims=dataset_claims, separator=separator)
    if bad is not None:  # the learner's own exact trace failed its replay: a bug, reported as such
        return ectx, Inconsistency(bad.t, f"the exact re-run of these parameters fails its replay: {bad.message}"), {}
    ectx.float_note = FLOAT_CLAIMS_NOTE
    return ectx, None, tallies


#: Kernel values (integers) the kernel replay keeps, rows of n each, so that a row is computed
#: once per run rather than once per visit; past it further rows are computed when needed
#: (a poly kernel's values are large integers: this bounds memory, about 100 MiB).
KERNEL_CELLS_KEPT = 1 << 21


def _kernel_row(ctx, i: int) -> tuple[list, int]:
    """K(x_j, x_i) for every j as (integer numerators, one denominator): x . x' = (Xn Xn_i) / D^2,
    the polynomial kernel ((Xn Xn_i) q + p D^2)^deg / (q D^2)^deg for an offset p / q."""
    p = ctx.params
    Xn, D = ctx.Xn, ctx.D
    g = [int(v) for v in np.dot(Xn.astype(object), Xn[i].astype(object))]
    if p.kernel == "linear":
        return g, D * D
    if p.kernel == "poly":
        off = Fraction(p.offset)
        q = off.denominator
        return [(v * q + off.numerator * D * D) ** p.degree for v in g], (q * D * D) ** p.degree
    raise X.ExactError("the RBF kernel has no exact value")


def _replay_exact(ctx, tr, visit_claims, update_claims, end_claims, tallies, name):
    if not SCALAR_ORACLE and replay_blocks(ctx, tr, visit_claims, update_claims, end_claims, tallies, name):
        return None  # the whole trace checked in integer arrays (anything amiss is replayed below)
    p, var = ctx.params, ctx.var
    n = ctx.n
    recorded_all = tr.header.get("record", "visits") == "visits"
    w = ctx.w0
    b = ctx.b0
    alpha = [0] * n
    k = 0
    sumsq = Fraction(0)
    sden = int(tr.header["scale"]["score"]) if "scale" in tr.header else None
    rec = 0  # index into recorded visits
    nrec = len(tr.t)
    upd_index = 0
    run = run_pocket = 0
    w_pocket, b_pocket = w, b
    held = [(w, b)]
    pocket_marks = set(int(v) for v in tr.pocket_t)

    # Scores of the primal variants as integers: x_i . w + b = (Xn_i . wn bd + bn D wd) / (D wd bd), with
    # w = wn / wd, b = bn / bd; the products of the points still to be visited are computed a chunk
    # at a time between updates (one integer matrix-vector product; int64 while a bound proves no wrap)
    Xn, D = ctx.Xn, ctx.D
    xmax = int(np.abs(Xn).max()) if Xn.size else 0
    rowsq = ctx.norms2  # |x_i|^2 = rowsq_i / D^2
    cache: dict = {}
    chunk = [1]
    wbound = [w.maxabs()]  # a bound on |w numerators|: int64 while products and sums cannot wrap

    def step_weights(c: Fraction, i: int):
        """w + c x_i as integers over one denominator, which grows only when c needs it (never
        reduced: the denominator stays fixed over a run, as the learner's scaled weights)."""
        wn, wden = w.num, w.den
        step_den = c.denominator * D
        L = wden if wden % step_den == 0 else math.lcm(wden, step_den)
        grow, m = L // wden, c.numerator * (L // step_den)
        bound = wbound[0] * grow + abs(m) * xmax
        if wn.dtype != object and Xn.dtype != object and bound < INT64_SAFE:
            wn = (wn * grow if grow != 1 else wn) + m * Xn[i]
        else:
            wn = wn.astype(object) * grow + m * Xn[i].astype(object)
        wbound[0] = bound
        return X.Vec(wn, L)

    def _products(idx):
        wn = w.num
        if wn.dtype != object and Xn.dtype != object and xmax * wbound[0] * max(1, ctx.d) < INT64_SAFE:
            return (Xn[idx] @ wn).tolist()
        return [int(v) for v in np.dot(Xn[idx].astype(object), wn.astype(object))]

    def score_int(i):
        """(numerator, denominator > 0) of point i's score under the current weights."""
        if var.dual:
            return dual_score(i)
        got = cache.get(i)
        if got is None:
            size = chunk[0]
            idx = [j for j in range(i, min(n, i + size)) if j not in cache] or [i]
            chunk[0] = min(2 * size, max(n, 1))
            cache.update(zip(idx, _products(idx)))
            got = cache[i]
        if ctx.bias:
            bf = Fraction(b)
            return got * bf.denominator + bf.numerator * D * w.den, D * w.den * bf.denominator
        return got, D * w.den

    krows: dict = {}

    def dual_score(i):
        """eta sum_j alpha_j y_j K(x_j, x_i), as (numerator, denominator > 0)."""
        row = krows.get(i)
        if row is None:
            row = _kernel_row(ctx, i)
            if (len(krows) + 1) * n <= KERNEL_CELLS_KEPT:
                krows[i] = row
        nums, kden = row
        total = sum(alpha[j] * ctx.y[j] * nums[j] for j in range(n) if alpha[j])
        return ctx.eta.numerator * total, ctx.eta.denominator * kden

    def score_of(i):
        num, den = score_int(i)
        return Fraction(num, den)

    def current_w():
        if var.dual:
            if p.kernel != "linear":
                return None
            # eta sum_j alpha_j y_j x_j = eta.num (coef . Xn) / (eta.den D), in integers
            coef = np.array([a * yj for a, yj in zip(alpha, ctx.y)], dtype=object)
            num = np.dot(coef, Xn.astype(object)) * ctx.eta.numerator if n else np.zeros(ctx.d, dtype=object)
            top = max((abs(int(v)) for v in num), default=0)
            return X.Vec(num.astype(np.int64) if top < INT64_SAFE else num, ctx.eta.denominator * D)
        return w

    # the trace's columns as Python lists, read once
    r_t, r_i, r_epoch, r_y = tr.t.tolist(), tr.i.tolist(), tr.epoch.tolist(), tr.y.tolist()
    r_mistake, r_k, r_score = tr.mistake.tolist(), tr.k.tolist(), tr.score.tolist()
    r_upd = tr.upd_t.tolist()

    def check_record(t, epoch, i, sn, sd, mistake):
        """The record of visit t against the rule; the score is sn / sd (integers, sd > 0)."""
        nonlocal rec
        if rec >= nrec:
            return Inconsistency(t, f"the rule requires a visit to point {i} (epoch {epoch}); the trace has ended")
        rt = int(r_t[rec])
        if rt != t:
            what = "a visit" if rt > t else "a repeated or out-of-order visit"
            return Inconsistency(t, f"the trace records visit number {rt} where the rule requires visit {t} ({what} is missing or extra)")
        ri = int(r_i[rec])
        if ri != i:
            return Inconsistency(t, f"the rule ({p.order} order) requires point {i}; the trace has point {ri}")
        if int(r_epoch[rec]) != epoch:
            return Inconsistency(t, f"epoch should be {epoch}; the trace has {int(r_epoch[rec])}")
        if int(r_y[rec]) != ctx.y[i]:
            return Inconsistency(t, f"point {i} has label {ctx.y[i]} in the dataset; the trace records {int(r_y[rec])}")
        if sden is not None and int(r_score[rec]) * sd != sn * sden:
            rs = Fraction(int(r_score[rec]), sden)
            return Inconsistency(t, f"score of point {i} recomputed from the data is {format_value(Fraction(sn, sd))}; the trace has {format_value(rs)}")
        if bool(r_mistake[rec]) != mistake:
            s = format_value(Fraction(sn, sd))
            if mistake:
                return Inconsistency(t, f"point {i} is misclassified (score {s}, y = {ctx.y[i]}): the rule requires an update, the trace records none")
            return Inconsistency(t, f"point {i} is correctly classified (score {s}, y = {ctx.y[i]}): the rule forbids an update, the trace records one")
        if not mistake and upd_index < len(r_upd) and int(r_upd[upd_index]) == t:
            return Inconsistency(t, "the trace records weights after this visit; the rule makes no update here")
        expect_k = k + (1 if mistake else 0)
        if int(r_k[rec]) != expect_k:
            return Inconsistency(t, f"update count after this visit should be {expect_k}; the trace has {int(r_k[rec])}")
        rec += 1
        return None

    def check_update(t, i):
        nonlocal upd_index
        if upd_index >= len(tr.upd_t) or int(tr.upd_t[upd_index]) != t:
            return Inconsistency(t, "the rule requires an update here; the trace records no weights for it")
        u = upd_index
        upd_index += 1
        if not var.dual and (np.array_equal(tr.w[u], w.num) if tr.den("w") == w.den
                             else same_ratio(tr.w[u], tr.den("w"), w.num, w.den)):
            # the recorded numerators over the trace's denominator equal ours over ours: compared as
            # integers (cross-multiplied), no Fraction built; a difference is located below
            if not ctx.bias or Fraction(int(tr.b[u]), tr.den("b")) == b:
                return None
        rw, rb = tr.weights_after(u)
        if var.dual:
            if rw != alpha:
                return Inconsistency(t, f"alpha after the update should be {short_vector(alpha)}; the trace has {short_vector(rw)}")
            return None
        wf = w.components()
        if [Fraction(v) for v in rw] != wf:
            bad_j = next(j for j, (a, c) in enumerate(zip(rw, wf)) if Fraction(a) != c)
            return Inconsistency(t, f"w after the update on point {i} should be {short_vector(wf)}; the trace has "
                                    f"w[{bad_j}] = {format_rational(Fraction(rw[bad_j]))} instead of {format_rational(wf[bad_j])}")
        if ctx.bias and Fraction(rb) != b:
            return Inconsistency(t, f"b after the update should be {format_value(b)}; the trace has {format_rational(Fraction(rb))}")
        return None

    def visit(t, epoch, i):
        """Score point i, check the record, update; returns (mistake, inconsistency)."""
        nonlocal w, b, k, sumsq, run, run_pocket, w_pocket, b_pocket
        sn, sd = score_int(i)
        out = (sn > 0) - (sn < 0) or ctx.tie
        mistake = out != ctx.y[i]
        if recorded_all or mistake:
            bad = check_record(t, epoch, i, sn, sd, mistake)
            if bad:
                return mistake, bad
        yi = Fraction(ctx.y[i])
        if visit_claims:
            log.step("visit", t, i, k, (sn, sd), out)
        if not mistake:
            run += 1
            return False, None
        replaced = False
        if var.pocket and run > run_pocket:
            if not p.ratchet or _errors(ctx, w, b) < _errors(ctx, w_pocket, b_pocket):
                w_pocket, b_pocket, run_pocket = w, b, run
                replaced = True
        if var.pocket and replaced != (t in pocket_marks):
            return True, Inconsistency(t, f"the pocket {'takes' if replaced else 'keeps'} its weights at this update; "
                                          f"the trace {'does not mark' if replaced else 'marks'} it")
        if var.dual:
            alpha[i] += 1
        else:
            c = ctx.eta * yi if p.form == "yx" else ctx.eta * (yi - out) / 2
            w = step_weights(c, i)
            if var.bias == "R2":
                b = b + ctx.eta * yi * ctx.R2
            elif var.bias == "one":
                b = b + ctx.eta * yi
        k += 1
        run = 0
        cache.clear()
        chunk[0] = 1
        sumsq = sumsq + Fraction(int(rowsq[i]), D * D)
        if var.pocket:
            held.append((w, b))
        bad = check_update(t, i)
        if bad:
            return True, bad
        if claims_on:
            log.state(current_w(), b, sumsq)
        if update_claims:
            log.step("update", t, i, k, (sn, sd), out)
        return True, None

    # claims are evaluated over blocks of the trace at once (verify.language.columns), in trace order
    claims_on = bool(visit_claims or update_claims or end_claims)
    log = StepLog(ctx, name, visit_claims, update_claims, tallies, ctx.strict_gamma(), current_w(), b, sumsq,
                  scalar=SCALAR_ORACLE) if claims_on else None

    max_visits = p.max_visits if p.max_visits is not None else float("inf")
    t = 0
    epochs = 0
    converged = False
    stop = None
    order = p.order
    if order in ("cyclic",) or order.startswith("random:"):
        rule = CyclicRule(ctx, p)
        while (step := rule.next(k, t)) is not None:
            t += 1
            mistake, bad = visit(t, *step)
            if bad:
                return bad
            if rule.after(mistake, k):
                break
        epochs, stop, converged = rule.epochs, rule.stop, rule.converged
    elif order.startswith("sequence:"):
        body = order.split(":", 1)[1]
        for step, j in enumerate([int(v) for v in body.split(",")] if body else [], 1):
            if not 0 <= j < n:
                return Inconsistency(t + 1, f"the sequence names point {j}; the dataset has {n}")
            s = score_of(j)
            if sign_or_tie(s, ctx.tie) == ctx.y[j]:
                return Inconsistency(t + 1, f"point {j} is correctly classified (score {format_value(s)}, y = {ctx.y[j]}): "
                                            "the rule forbids an update on it")
            t += 1
            epochs = step
            _, bad = visit(t, step, j)
            if bad:
                return bad
        converged = all(sign_or_tie(score_of(i), ctx.tie) == ctx.y[i] for i in range(n))
        stop = "converged" if converged else "sequence_end"
    else:
        epoch = 0
        while True:
            scores = [score_int(i) for i in range(n)]  # (numerator, denominator > 0)
            mist = [((sn > 0) - (sn < 0) or ctx.tie) != ctx.y[i] for i, (sn, _) in enumerate(scores)]
            epoch += 1
            epochs = epoch
            if not any(mist):
                m = n if max_visits == float("inf") else max(0, min(n, int(max_visits) - t))
                for i in range(m):
                    t += 1
                    _, bad = visit(t, epoch, i)
                    if bad:
                        return bad
                converged = m == n
                stop = "converged" if converged else "max_visits"
                break
            if k >= p.max_updates:
                stop = "max_updates"
                break
            if epoch > p.max_epochs:
                epochs, stop = epoch - 1, "max_epochs"
                break
            if order == "first":
                j = mist.index(True)
                if t + j + 1 > max_visits:
                    stop = "max_visits"
                    break
                for i in range(j + 1):
                    t += 1
                    _, bad = visit(t, epoch, i)
                    if bad:
                        return bad
            else:
                cand = [i for i in range(n) if mist[i]]
                best = cand[0]
                for i in cand[1:]:  # y_i s_i < y_best s_best, cross-multiplied (denominators > 0)
                    if scores[i][0] * ctx.y[i] * scores[best][1] < scores[best][0] * ctx.y[best] * scores[i][1]:
                        best = i
                if t + 1 > max_visits:
                    stop = "max_visits"
                    break
                t += 1
                _, bad = visit(t, epoch, best)
                if bad:
                    return bad
    if stop == "unchanged" or (stop != "converged" and var.pocket):
        converged = all(sign_or_tie(score_of(i), ctx.tie) == ctx.y[i] for i in range(n))
    if recorded_all and rec != len(tr.t):
        return Inconsistency(int(tr.t[rec]), f"the rule ends the run after visit {t} ({stop}); the trace goes on "
                                              f"to {len(tr.t)} visits")
    if upd_index != len(tr.upd_t):
        return Inconsistency(int(tr.upd_t[upd_index]), "the trace records an update the rule never makes")
    if var.pocket and run > run_pocket:
        w_pocket, b_pocket, run_pocket = w, b, run
    final_w = current_w()
    got = {"updates": k, "epochs": epochs, "visits": t, "converged": converged, "stop": stop,
           "w": None if final_w is None else list(final_w.components()),
           "b": None if final_w is None else (b if ctx.bias else augmented_bias(p, final_w.components()))}
    if var.dual:
        got["alpha"] = list(alpha)
    if var.pocket:
        got["w_pocket"] = list(w_pocket.components())
        got["run_pocket"] = run_pocket
    bad = end_mismatch(tr.end, got, exact=True)
    if bad is not None:
        return bad
    end_claims = [c for c in end_claims if converged or "converged" not in c.assume]
    vals = {}
    if end_claims:
        vals = {"w": final_w, "b": b, "k": Fraction(k), "mistakes": Fraction(k), "epochs": Fraction(epochs),
                "converged": Fraction(1 if converged else 0), "sumsq": sumsq,
                "stopped_by_budget": Fraction(0 if converged else 1)}
        if var.pocket:
            vals["w_pocket"] = w_pocket
            vals["pocket_errors"] = Fraction(_errors(ctx, w_pocket, b_pocket))
            if len(held) <= 5000:
                vals["min_visited_errors"] = Fraction(min(_errors(ctx, hw, hb) for hw, hb in held))
    if claims_on:
        log.end(end_claims, vals, k)
    return None


def _errors(ctx, w, b) -> int:
    errs = 0
    for x, y in zip(ctx.rows, ctx.y):
        s = X.vdot(w, x)
        if ctx.bias:
            s = s + b
        if sign_or_tie(s, ctx.tie) != y:
            errs += 1
    return errs


def _replay_float(ctx, tr):
    """Float traces: the complete run re-computed in float64 by this module's own loop.  Each
    decision is the exact sign of x.w + b for the exact data x and the float weights (a float
    score beyond its rounding bound has that sign; one within it is decided in Fractions),
    weights are bit-identical to the float update w + (eta y) x, recorded scores are within the
    rounding bound of the exact score, and the end record is the re-run's end."""
    p, var = ctx.params, ctx.var
    if ctx.declared:
        from verify.replay.declared import replay_declared_float

        return replay_declared_float(ctx, tr)
    if var.dual or var.unit or var.pocket or p.patience is not None or tr.header.get("record") != "visits" \
            or not (p.order == "cyclic" or p.order.startswith("random:")):
        return Inconsistency(None, "cannot verify: float traces are replayed for cyclic and random orders of the "
                                   "primal variants (not unit, pocket or patience), recorded visit by visit; "
                                   "re-run with --exact to check this one")
    Xf, _ = prepare_inputs(ctx.ds, p)
    y = ctx.y
    w = np.array([float(v) for v in ctx.w0.components()])
    b = float(ctx.b0)
    eta = float(ctx.eta)
    R2f = float(np.max(np.cumsum(Xf * Xf, axis=1)[:, -1]))
    d = Xf.shape[1]
    unit = 2.0**-53
    gamma = (d + 3) * unit / (1 - (d + 3) * unit)  # the product (d terms) and the rounding of x
    norms = np.sqrt(np.einsum("ij,ij->i", Xf, Xf))
    screened = tr.header.get("scores") == "float32-screened"
    e32 = error_scale32(d)
    rec = k = upd = t = 0
    nrec = len(tr.t)
    rule = CyclicRule(ctx, p)

    def exact_sign(i):
        # x = Xn_i / D with D > 0: the sign of x.w + b is that of Xn_i.w + b D (one row, on demand)
        v = sum((int(a) * Fraction(float(c)) for a, c in zip(ctx.Xn[i], w) if a and c), Fraction(0)) + Fraction(b) * ctx.D
        return (v > 0) - (v < 0)

    while (step := rule.next(k, t)) is not None:
        epoch, i = step
        t += 1
        s_seq = float(np.cumsum(Xf[i] * w)[-1]) if d else 0.0
        s_seq = s_seq + b if ctx.bias else s_seq
        bound = 1.01 * (gamma * float(norms[i]) * float(np.linalg.norm(w)) + 4 * unit * abs(b)) + 1e-300
        sg = (s_seq > 0) - (s_seq < 0) if abs(s_seq) > bound else exact_sign(i)
        out = sg if sg != 0 else ctx.tie
        mistake = out != y[i]
        if rec >= nrec:
            return Inconsistency(t, f"the rule requires visit {t} (point {i}, epoch {epoch}); the trace has ended")
        if int(tr.t[rec]) != t or int(tr.i[rec]) != i:
            return Inconsistency(t, f"the rule requires visit {t} to point {i}; the trace has visit {int(tr.t[rec])} "
                                    f"to point {int(tr.i[rec])}")
        if int(tr.epoch[rec]) != epoch:
            return Inconsistency(t, f"epoch should be {epoch}; the trace has {int(tr.epoch[rec])}")
        if int(tr.y[rec]) != y[i]:
            return Inconsistency(t, f"point {i} has label {y[i]} in the dataset; the trace records {int(tr.y[rec])}")
        rs = float(tr.score[rec])
        tol = 2 * bound
        if screened:  # the learner recorded its float32 screen's score where that decided the sign
            wn = float(np.linalg.norm(w))
            tol += e32 * float(norms[i]) * wn + 4 * unit * (abs(b) + abs(rs)) + 2.0**-140 * (
                math.sqrt(d) * (float(norms[i]) + wn) + d)
        if not abs(rs - s_seq) <= tol:
            return Inconsistency(t, f"score of point {i} recomputed is {s_seq!r}; the trace has {rs!r} "
                                    f"(beyond the rounding bound {tol:.3g})")
        if bool(tr.mistake[rec]) != mistake:
            return Inconsistency(t, f"point {i} {'is' if mistake else 'is not'} misclassified (exact sign of its score "
                                    f"{sg}, y = {y[i]}); the trace says mistake = {bool(tr.mistake[rec])}")
        expect_k = k + (1 if mistake else 0)
        if int(tr.k[rec]) != expect_k:
            return Inconsistency(t, f"update count after this visit should be {expect_k}; the trace has {int(tr.k[rec])}")
        if not mistake and upd < len(tr.upd_t) and int(tr.upd_t[upd]) == t:
            return Inconsistency(t, "the trace records weights after this visit; the rule makes no update here")
        rec += 1
        if mistake:
            c = eta * y[i] if p.form == "yx" else 0.5 * eta * (y[i] - out)
            w = w + Xf[i] * c
            if var.bias == "R2":
                b += eta * y[i] * R2f
            elif var.bias == "one":
                b += eta * y[i]
            k += 1
            if upd >= len(tr.upd_t) or int(tr.upd_t[upd]) != t:
                return Inconsistency(t, "the rule requires an update here; the trace records no weights")
            if not np.array_equal(np.asarray(tr.w[upd], dtype=float), w):
                return Inconsistency(t, "w after the update differs from w + eta y x in float64")
            if ctx.bias and float(tr.b[upd]) != b:
                return Inconsistency(t, "b after the update differs from the float64 update")
            upd += 1
        if rule.after(mistake, k):
            break
    if rec != nrec:
        return Inconsistency(int(tr.t[rec]), f"the rule ends the run after visit {t} ({rule.stop}); the trace goes on "
                                              f"to {nrec} visits")
    got = {"updates": k, "epochs": rule.epochs, "visits": t, "converged": rule.converged, "stop": rule.stop,
           "w": [float(v) for v in w], "b": float(b) if ctx.bias else float(augmented_bias(p, list(w)))}
    return end_mismatch(tr.end, got, exact=False)
