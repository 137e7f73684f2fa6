"""The main job: audit claim files over a corpus of datasets and runs.

For every dataset of the corpus and every run configuration that applies to it, run the
reference perceptron with a complete trace, replay the trace against the dataset (so the trace
is checked before any claim uses it), evaluate every applicable claim, and aggregate the
evaluations of each claim into one finding with a verdict.
"""

from __future__ import annotations

import glob
import os
import time
from dataclasses import dataclass
from fractions import Fraction

from perceptron import MemoryTrace, ParamError, Params, builtin, read_dataset, train
from perceptron._numbers import format_rational
from perceptron.declared import variant_of
from perceptron.generators import BUILTIN
from verify.certify.certificates import alternative_separator
from verify.language.claims import load_claims
from verify.language.quantifiers import (
    RUN_WHENS,
    VARIANT_ETA,
    Coverage,
    quantifiers,
    ranging,
    uses_separator,
)
from verify.language.scalar import ClaimTally, exact_json
from verify.numbers import exact as X
from verify.replay.dispatch import replay
from verify.report.progress import Progress
from verify.verdicts import Finding, Verdict

__all__ = ["Run", "corpus_datasets", "audit", "RESULTS_SCHEMA", "RESULTS_VERSION"]

RESULTS_SCHEMA = "proof-audit/results"
RESULTS_VERSION = 1

#: Epoch budget for corpus runs; separable corpus sets converge in far fewer, and
#: non-separable ones (XOR) must stop.
CORPUS_MAX_EPOCHS = 200
#: Built-in sets separable through the origin: run without augmentation.
HOMOGENEOUS = {"worked-example", "separable-d2-g1_5", "separable-d2-g1_20", "separable-d3-g1_10",
               "separable-d5-g1_10", "unit-d3-g1_5"}


@dataclass(frozen=True)
class Run:
    dataset: str  # corpus name
    params: Params

    def describe(self) -> str:
        p = self.params
        parts = [f"--variant {p.variant}", f"--order {p.order}"]
        if p.augment:
            parts.append(f"--augment {p.augment}")
        if p.eta != 1:
            parts.append(f"--eta {format_rational(p.eta)}")
        if p.variant in ("sign", "unit") and p.sign0 != 0:
            parts.append(f"--sign0 {p.sign0}")
        if p.form != "yx":
            parts.append(f"--form {p.form}")
        if p.w0 is not None:
            parts.append("--w0=" + ",".join(format_rational(v) for v in p.w0))
        if p.b0 is not None:
            parts.append(f"--b0={format_rational(p.b0)}")
        if p.ratchet:
            parts.append("--ratchet")
        parts += [f"--set {name}={format_rational(v)}" for name, v in p.declared]
        if p.variant == "kernel" and p.kernel != "linear":
            parts.append(f"--kernel {p.kernel} --degree {p.degree} --offset {format_rational(p.offset)}")
        parts.append(f"--max-epochs {p.max_epochs}")
        return " ".join(parts)


def _base_configs(name: str, coq: bool = False):
    """Run parameters for one dataset of the corpus."""
    E = CORPUS_MAX_EPOCHS
    if coq:
        yield Params(variant="rosenblatt", augment="first", order="cyclic", max_epochs=E)
        return
    aug = None if name in HOMOGENEOUS else "last"
    for order in ("first", "cyclic", "random:1", "max-violation"):
        yield Params(variant="rosenblatt", augment=aug, order=order, max_epochs=E)
    for order in ("cyclic", "first", "random:2", "max-violation"):
        yield Params(variant="novikoff", order=order, max_epochs=E)
    yield Params(variant="novikoff", order="cyclic", eta=Fraction(1, 2), max_epochs=E)
    for sign0 in (0, 1):
        for form in ("yx", "half"):
            for order in ("cyclic", "first"):
                yield Params(variant="sign", augment=aug, order=order, sign0=sign0, form=form, max_epochs=E)
    for eta in (Fraction(1), Fraction(1, 2)):
        yield Params(variant="slides", augment=aug, order="cyclic", eta=eta, max_epochs=E)
    yield Params(variant="slides", augment=aug, order="random:3", max_epochs=E)
    for ratchet in (False, True):
        yield Params(variant="pocket", augment=aug, order="cyclic", ratchet=ratchet, max_epochs=30)
    yield Params(variant="pocket", augment=aug, order="random:4", max_epochs=30)
    yield Params(variant="kernel", augment=aug, order="cyclic", max_epochs=E)
    yield Params(variant="kernel", augment=aug, order="first", max_epochs=E)
    yield Params(variant="kernel", augment=aug, order="cyclic", kernel="poly", degree=2, offset=Fraction(1), max_epochs=E)
    for order in ("first", "cyclic", "max-violation"):
        yield Params(variant="unit", augment=aug, order=order, max_epochs=E)
    yield Params(variant="sklearn", order="cyclic", max_epochs=E)


#: Learning rates the corpus adds for claims that range over eta: below and above 1 (in
#: (0, 1] only for the variants whose note allows no more).
CORPUS_ETAS = (Fraction(1, 2), Fraction(2))
#: Variants whose runs use the data augmented (when the dataset is not homogeneous).
_AUGMENTED = ("rosenblatt", "sign", "slides", "pocket", "kernel", "unit")
#: Datasets for 004's unit-norm setting: only the variants they are for run on them.
UNIT_ONLY = {"unit-d2-g1_10", "unit-d3-g1_20", "unit-d4-g1_8"}


def _initial_weights(dim: int) -> tuple:
    """A fixed non-zero w0 for the runs that vary w0: alternating -1, 1/2 (points against the
    data's usual direction, so the run from it differs from the run from 0)."""
    return tuple(Fraction(-1) if j % 2 == 0 else Fraction(1, 2) for j in range(dim))


def _profiles(v: str):
    """The settings of a variant that claims may fix (sign(0), update form): extra runs cover each."""
    if v == "sign":
        return [{"sign0": s0, "form": f} for s0 in (0, 1) for f in ("yx", "half")]
    if v == "unit":
        return [{"sign0": 0}, {"sign0": 1}]
    return [{}]


#: Runs that vary eta, w0 or sign(0) go over the corpus datasets of at most this many points
#: (the larger sets repeat what the smaller ones show and cost the most to replay); each
#: claim's evidence lists the values it was evaluated at.
VARY_MAX_POINTS = 25


def _configs(name: str, coq: bool, needs: dict, d: int, n: int = 0):
    """(params, quantity varied or None) for the base runs, plus runs that vary each quantity
    some claim ranges over (needs: quantity -> variants whose claims range over it).  Base runs
    only of the variants some claim is evaluated on (needs["variants"]; None: every variant)."""
    wanted = needs.get("variants")
    if name in UNIT_ONLY:
        E = CORPUS_MAX_EPOCHS
        base_runs = [Params(variant="unit", order=order, sign0=sign0, max_epochs=E)
                     for order in ("first", "cyclic", "max-violation") for sign0 in (0, 1)]
        base_runs.append(Params(variant="rosenblatt", order="cyclic", max_epochs=E))
    else:
        base_runs = _base_configs(name, coq)
    for p in base_runs:
        if wanted is None or p.variant in wanted:
            yield p, None
    if not coq and name not in UNIT_ONLY:
        yield from ((p, None) for p in _declared_configs(name, wanted))
    if coq or n > VARY_MAX_POINTS:
        return
    E = CORPUS_MAX_EPOCHS
    aug_default = None if name in HOMOGENEOUS or name in UNIT_ONLY else "last"

    def aug(v):
        return aug_default if v in _AUGMENTED or _declared_without_bias(v) else None

    def ok(v):
        return name not in UNIT_ONLY or v == "unit"

    base = list(_base_configs(name, coq))
    for v in sorted(needs.get("eta", ())):
        if not ok(v):
            continue
        etas = [e for e in CORPUS_ETAS if e <= 1] if v in VARIANT_ETA else CORPUS_ETAS
        for prof in _profiles(v):
            have = {p.eta for p in base if p.variant == v and all(getattr(p, k) == val for k, val in prof.items())}
            for eta in etas:
                if any((e < 1) == (eta < 1) and e != 1 for e in have):
                    continue  # the base runs already have an eta on this side of 1
                yield Params(variant=v, augment=aug(v), order="cyclic", eta=eta, max_epochs=30 if v == "pocket" else E,
                             **prof), "eta"
    for v in sorted(needs.get("w0", ())):
        if variant_of(v).dual or not ok(v):
            continue
        dim = d + (1 if aug(v) else 0)
        b0 = Fraction(-1) if variant_of(v).bias else None
        for prof in _profiles(v):
            yield Params(variant=v, augment=aug(v), order="cyclic", w0=_initial_weights(dim), b0=b0,
                         max_epochs=30 if v == "pocket" else E, **prof), "w0"
    for v in sorted(needs.get("sign0", ())):
        if not ok(v):
            continue
        # the base runs (and the eta / w0 profiles) have sign(0) = 0 and +1: add -1
        yield Params(variant=v, augment=aug(v), order="cyclic", sign0=-1, max_epochs=E), "sign0"


def _declared_without_bias(v: str) -> bool:
    var = variant_of(v)
    return getattr(var, "declared", False) and var.bias is None


#: The visit orders of a declared variant's corpus runs (a random order with a fixed seed).
DECLARED_CORPUS_ORDERS = {"cyclic": "cyclic", "random": "random:5", "first": "first"}


def _declared_configs(name: str, wanted):
    """Runs of the declared variants some claim is about: each order the declaration supports
    with its parameters' defaults, and (cyclic) each parameter at half and twice its default
    (1/2 and 1 for a default 0): a declared parameter is a quantity the claims range over."""
    E = CORPUS_MAX_EPOCHS
    for v in sorted(wanted or ()):
        var = variant_of(v)
        if not getattr(var, "declared", False):
            continue
        aug = None if name in HOMOGENEOUS or var.bias is not None else "last"
        for order in var.orders:
            if order in DECLARED_CORPUS_ORDERS:
                yield Params(variant=v, augment=aug, order=DECLARED_CORPUS_ORDERS[order], max_epochs=E)
        order = DECLARED_CORPUS_ORDERS["cyclic" if "cyclic" in var.orders else var.orders[0]] \
            if any(o in DECLARED_CORPUS_ORDERS for o in var.orders) else None
        if order is None:
            continue
        for pname, default in var.parameters:
            others = (Fraction(1, 2), Fraction(1)) if default == 0 else (default / 2, default * 2)
            for value in others:
                yield Params(variant=v, augment=aug, order=order, max_epochs=E, declared=((pname, value),))


def needs_of(claims) -> dict:
    """quantity -> variants of the claims that range over it (the corpus varies those), and
    "variants" -> the variants any claim is evaluated on (None: all of them): a run of another
    variant is evidence for no claim of the audit, so it is not made."""
    needs: dict = {"variants": set()}
    for c in claims:
        if c.when in RUN_WHENS + ("dataset", "pair"):
            if not c.variants:
                needs["variants"] = None
            elif needs["variants"] is not None:
                needs["variants"].update(c.variants)
    for c in claims:
        r = ranging(c)
        for q in ("eta", "w0", "sign0"):
            if q in r:
                needs.setdefault(q, set()).update(c.variants)
    return needs


def corpus_datasets(data_dirs=()):
    """(name, spec, is_external) for the built-in corpus (the package's own datasets) plus the
    dataset files of the given dirs; a spec is ("builtin", name) or ("file", path) (see
    load_spec).  Nothing outside the package is looked for: the CoqPerceptron benchmark files
    join with --data DIR."""
    out = [(name, ("builtin", name), False) for name in BUILTIN]
    for d in data_dirs:
        for path in sorted(glob.glob(os.path.join(d, "*"))):
            base = os.path.basename(path)
            if os.path.isdir(path) or base == "input_description" or base.startswith("."):
                continue
            out.append((base, ("file", path), True))
    return out


def load_spec(spec):
    kind, what = spec
    return builtin(what) if kind == "builtin" else read_dataset(what)


def new_aggregate(claims) -> dict:
    return {c.id: {"evals": 0, "traces": 0, "violation": None, "unknown": None, "slack": None, "slack_at": None,
                   "not_applicable": 0, "na_reason": None, "coverage": Coverage()} for c in claims}


def _merge_agg(into: dict, part: dict):
    """Fold a later dataset's aggregate into the running one: the result is the same as if its
    evaluations had been merged one by one after the earlier ones (first violation, first
    unknown and the earliest smallest slack win)."""
    for cid, b in part.items():
        a = into[cid]
        for k in ("evals", "traces", "not_applicable"):
            a[k] += b[k]
        for k in ("violation", "unknown", "na_reason"):
            if a[k] is None:
                a[k] = b[k]
        if b["slack"] is not None and (a["slack"] is None or X.compare(b["slack"], a["slack"]) < 0):
            a["slack"], a["slack_at"] = b["slack"], b["slack_at"]
        a["coverage"].merge(b["coverage"])


#: Wall-clock time the audit spends on one dataset (seconds); the sizes of a dataset file are
#: limited (perceptron.limits), but many runs of a large one could still take hours.  Past it the
#: dataset's claims are unknown, "limit reached" (far above the CoqPerceptron files' seconds).
DATASET_SECONDS = 900.0


def audit_dataset(claims, name, ds, coq, needs) -> dict:
    """Every run of one corpus dataset, replayed and evaluated: an aggregate per claim, the
    certificates, plots and problems.  Independent of every other dataset."""
    agg = new_aggregate(claims)
    sep_claims = [c for c in claims if c.when in RUN_WHENS + ("dataset",) and uses_separator(c) and c.separator == "any"]
    pair_claims = [c for c in claims if c.when == "pair"]
    by_quantity = {q: [c for c in claims if q in ranging(c)] for q in ("eta", "w0", "sign0")}
    certs: dict = {}
    alts: dict = {}
    seen_dataset_ctx: set = set()
    runs_done = 0
    inconsistent = []
    plots: dict = {"series": [], "bounds": [], "other": []}
    t_start = time.monotonic()
    for params, varied in _configs(name, coq, needs, ds.d, ds.n):
        if time.monotonic() - t_start > DATASET_SECONDS:
            why = (f"limit reached: the audit of dataset {name} ran past {DATASET_SECONDS:.0f} s "
                   "(verify.corpus.audit.DATASET_SECONDS); its later runs were not made")
            for a in agg.values():
                if a["violation"] is None and a["unknown"] is None:
                    a["unknown"] = why  # never "holds" on a corpus cut short
            break
        # a run added to vary one quantity is evaluated for the claims that range over it
        run_claims = claims if varied is None else by_quantity[varied]
        var_bias = variant_of(params.variant).bias is not None
        key = (ds.sha256, var_bias, params.augment, params.variant == "unit")
        if varied is not None:
            mine = [c for c in run_claims if params.variant in c.variants]
            known = certs.get(key)
            if not mine or (known is not None and known.kind != "separable"
                            and all("separable" in c.assume for c in mine)):
                continue  # nothing it could be evidence for (no claim of this variant applies)
        rec = MemoryTrace()
        try:
            result = train(ds, params, rec)
        except ParamError:
            continue  # e.g. the unit variant on data whose norms are irrational
        runs_done += 1
        dkey = (ds.sha256, params.variant, params.augment)
        # the first replay of a key certifies the inputs; later ones reuse that certificate
        ctx, bad, tallies = replay(ds, rec.trace, run_claims, dataset_name=name, cert=certs.get(key),
                                   dataset_claims=dkey not in seen_dataset_ctx)
        if ctx is not None:
            certs.setdefault(key, ctx.cert)
        first_of_dkey = dkey not in seen_dataset_ctx
        seen_dataset_ctx.add(dkey)
        if bad is not None:
            inconsistent.append({"dataset": name, "run": Run(name, params).describe(), "problem": str(bad)})
            continue
        run = Run(name, params)
        for cid, tally in tallies.items():
            merge_tally(agg[cid], tally, run, ctx, "max-margin (certified)")
        # claims that range over every separator: also at a second, different one
        if sep_claims and first_of_dkey and varied is None and ctx.kind == "separable" and ctx.cert is not None:
            if key not in alts:
                alts[key] = alternative_separator(ctx.cert, ctx.Xn, ctx.D, ctx.y)
            alt = alts[key]
            if alt is not None:
                actx, abad, atallies = replay(ds, rec.trace, sep_claims, dataset_name=name, cert=ctx.cert,
                                              separator=(alt.v, alt.c))
                if abad is None:
                    for cid, tally in atallies.items():
                        merge_tally(agg[cid], tally, run, actx, "another separator (LP vertex)", separator=(alt.v, alt.c))
        # pair claims (two runs each) on the datasets the varying runs use
        for c in (() if ds.n > VARY_MAX_POINTS else pair_claims if varied is None else [c for c in pair_claims if c in run_claims]):
            _pair(c, agg[c.id], ds, run, ctx, rec.trace, result)
        if params.variant == "rosenblatt" and ctx.kind == "separable" and params.order == "cyclic" \
                and params.eta == 1 and params.w0 is None:
            _plot_data(plots, name, params, ctx, rec.trace)
        elif (params.variant, name, params.order, params.eta, params.w0) in (
                ("novikoff", "separable-d3-bias", "cyclic", 1, None), ("unit", "unit-d3-g1_5", "cyclic", 1, None)) \
                and ctx.kind == "separable":
            _plot_other(plots, name, params, ctx, rec.trace)
    info = {"name": name, "n": ds.n, "d": ds.d, "sha256": ds.sha256,
            "source": ds.source if ds.source and not ds.source.startswith("/") else (ds.source and os.path.basename(ds.source)) or name}
    return {"agg": agg, "certs": certs, "runs": runs_done, "inconsistent": inconsistent, "plots": plots, "info": info}


#: Worker processes of the audit (datasets, then searches, are independent units of work).
#: The results do not depend on it: units are merged in corpus / claim-file order.
DEFAULT_JOBS = max(1, min(4, os.cpu_count() or 1))

_WORKER: dict = {}


def _worker_init(claim_paths, only=None):
    from perceptron.limits import allow_long_numbers
    from verify._child import die_with_parent

    die_with_parent()
    allow_long_numbers()
    _WORKER["claims"] = [c for p in claim_paths for c in load_claims(p).claims if only is None or c.id in only]
    _WORKER["needs"] = needs_of(_WORKER["claims"])


def _worker_dataset(task):
    name, spec, coq = task
    return audit_dataset(_WORKER["claims"], name, load_spec(spec), coq, _WORKER["needs"])


def _worker_figures(plots, documents):
    from verify.report.artefacts import figures_of

    return figures_of(plots, documents)


def _worker_symbolic(cid):
    from verify.symbolic.steps import CLAIM_LIMIT

    return _symbolic_steps(next(c for c in _WORKER["claims"] if c.id == cid), CLAIM_LIMIT)


def _worker_search(task):
    cid, finding, domain = task
    claim = next(c for c in _WORKER["claims"] if c.id == cid)
    return _search_claim(claim, finding, domain)


def audit(claim_files, *, data_dirs=(), quiet=False, jobs=None, only=None, domain=None, colour=False):
    """Audit the claims of ``claim_files`` over the corpus.  Returns (findings, corpus info,
    run info); findings are in claim-file order.  ``jobs`` worker processes share the work
    (default DEFAULT_JOBS; 1 runs everything in this process); the results are the same.
    ``only``: the ids of the claims to audit (default: all); the corpus runs only the variants
    those claims are evaluated on, so auditing one claim costs what that claim needs.
    ``domain``: the search domain of each searchable claim (default AUDIT_DOMAIN)."""
    t0 = time.perf_counter()
    claim_files = list(claim_files)
    files = [load_claims(p) for p in claim_files]
    claims = [c for f in files for c in f.claims]
    if only is not None:
        only = set(only)
        missing = only - {c.id for c in claims}
        if missing:
            raise ValueError(f"no claim {sorted(missing)[0]!r} in {', '.join(claim_files)}")
        claims = [c for c in claims if c.id in only]
    datasets = corpus_datasets(data_dirs)
    for _, spec, external in datasets:
        if external:
            # a bad file stops the audit now, with its line, not after hours of work; each file is
            # parsed again where it is audited (0.8 s for the six CoqPerceptron files), so that a
            # worker holds one dataset at a time rather than the main process holding them all
            load_spec(spec)
    jobs = DEFAULT_JOBS if jobs is None else max(1, int(jobs))
    agg = new_aggregate(claims)
    needs = needs_of(claims)
    progress = Progress(quiet, colour)
    progress.phase("corpus", len(datasets), "dataset")
    pool = None
    if jobs > 1 and len(datasets) > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_worker_init, initargs=(claim_files, only))
    try:
        symbolic_done: dict = {}
        if pool is not None:
            # the larger datasets come last in the corpus: start them first (merged in order); the
            # proof steps need no corpus: they are checked beside it, by whichever worker is free
            futures = {i: pool.submit(_worker_dataset, datasets[i]) for i in reversed(range(len(datasets)))}
            symbolic_done = {c.id: pool.submit(_worker_symbolic, c.id) for c in claims if c.when == "symbolic"}
            parts = (futures[i].result() for i in range(len(datasets)))
        else:
            parts = (audit_dataset(claims, name, load_spec(spec), coq, needs) for name, spec, coq in datasets)
        corpus_info, certs, inconsistent, runs_done = [], {}, [], 0
        plots: dict = {"series": [], "bounds": [], "other": []}
        for (name, _, _), part in zip(datasets, parts):
            progress.step(f"{name} ({runs_done + part['runs']} runs)")
            _merge_agg(agg, part["agg"])
            corpus_info.append(part["info"])
            certs.update(part["certs"])
            inconsistent += part["inconsistent"]
            runs_done += part["runs"]
            for k in plots:
                plots[k] += part["plots"].get(k, [])
        if not plots["other"]:
            del plots["other"]
        figures = None
        if pool is not None:  # the page's plots need only the corpus: a worker renders them beside the searches
            figures = pool.submit(_worker_figures, plots, sorted({c.document for c in claims}))
        for c in claims:
            if c.when == "once":
                tally = ClaimTally()
                from verify.language.scalar import Env, eval_claim

                eval_claim(c, Env(None, {}), tally, {"once": True})
                merge_tally(agg[c.id], tally, None, None, None)
        corpus_desc = (f"{len(corpus_info)} datasets ({', '.join(d['name'] for d in corpus_info[:6])}"
                       f"{', ...' if len(corpus_info) > 6 else ''}), {runs_done} runs")
        budget = {}  # symbolic seconds left per claim file
        symbolic = [c for c in claims if c.when == "symbolic"]
        progress.phase("proof steps", len(symbolic), "claim")
        findings = []
        for c in claims:
            done = symbolic_done.get(c.id)
            findings.append(finding_of(c, agg[c.id], corpus_desc, budget, None if done is None else done.result()))
            if c.when == "symbolic":
                progress.step(c.id)
        findings, tightness = _searches(claims, findings, progress, pool, domain or AUDIT_DOMAIN)
        if figures is not None:
            figures = figures.result()
    finally:
        if pool is not None:
            pool.shutdown()
    progress.close()
    cert_info = {}
    for (sha, bias, aug, unit), cert in sorted(certs.items(), key=lambda kv: (kv[0][0], kv[0][1], str(kv[0][2]), kv[0][3])):
        name = next(d["name"] for d in corpus_info if d["sha256"] == sha)
        form = ("bias" if bias else "homogeneous") + (f", augmented {aug}" if aug else "") + (", unit-normalised" if unit else "")
        cert_info.setdefault(name, []).append({"inputs": form, **cert.to_json()})
    for d in corpus_info:
        d["certificates"] = cert_info.get(d["name"], [])
    info = {"datasets": corpus_info, "runs": runs_done, "inconsistent_traces": inconsistent, "tightness": tightness,
            "plots": plots,
            "search_domain": "per claim: see each claim's evidence.search.domain_text",
            "exact_evaluation_budget": SEARCH_EXACT_BUDGET}
    run_info = {"seconds": round(time.perf_counter() - t0, 3), "runs": runs_done, "jobs": jobs}
    if figures is not None:
        run_info["figures"] = figures  # for the HTML page (not written to run_info.json)
    return findings, info, run_info


def _pair(c, a, ds, run, ctx, trace, result):
    """Evaluate a pair claim on one corpus run (if it applies)."""
    from verify.replay.dispatch import applicable
    from verify.replay.pairs import compare_runs

    why = applicable(c, ctx, result.converged, run.dataset)
    if why:
        a["not_applicable"] += 1
        a["na_reason"] = a["na_reason"] or why
        return
    holds, detail = compare_runs(c, ds, run.params, trace, result)
    if holds is None:
        a["not_applicable"] += 1
        a["na_reason"] = a["na_reason"] or detail
        return
    a["traces"] += 1
    a["evals"] += 1
    _cover(a["coverage"], run, ctx, None)
    if not holds and a["violation"] is None:
        a["violation"] = {**detail, "run": run.describe(),
                          "data": f"builtin:{run.dataset}" if run.dataset in BUILTIN else run.dataset}


def _searches(claims, findings, progress, pool, domain):
    """Search each searchable claim in ``domain`` (widened over the claim's quantifiers); a
    confirmed counterexample refutes it, and a complete search without one turns 'holds on
    evidence' (or 'unknown' for want of varied evidence, when the domain varies what the
    corpus did not) into 'no counterexample in D'.  Bounds of the form mistakes <= B also get a
    tightness entry (worst updates / bound)."""
    todo = [(c.id, f, domain) for c, f in zip(claims, findings) if _searchable(c, f)]
    progress.phase("search", len(todo), "claim")
    done = {}
    if pool is not None:
        from concurrent.futures import as_completed

        futures = {pool.submit(_worker_search, task): task[0] for task in todo}
        for fut in as_completed(futures):
            done[futures[fut]] = fut.result()
            progress.step(futures[fut])
    else:
        by_id = {c.id: c for c in claims}
        for cid, f, dom in todo:
            done[cid] = _search_claim(by_id[cid], f, dom)
            progress.step(cid)
    out, tight = [], []
    for c, f in zip(claims, findings):
        if c.id in done:
            f, t = done[c.id]
            if t is not None:
                tight.append(t)
        out.append(f)
    return out, tight


def _searchable(c, f) -> bool:
    # identities ('==') are the symbolic engine's work: intervals cannot certify them
    return not (c.when not in ("update", "end", "dataset") or c.compiled is None or f.verdict == Verdict.REFUTED
                or (f.verdict == Verdict.UNKNOWN and not f.evidence.get("unvaried")) or c.free
                or _has_equality(c.compiled.tree))


def _search_claim(c, f, domain):
    """(the finding with the search's evidence, tightness entry or None) for one claim."""
    from verify.searching import SearchError, bound_tree, search, worst

    try:
        res = search(c, domain, engine="enumerate", timeout=SEARCH_SECONDS, max_exact=SEARCH_EXACT_BUDGET,
                     max_candidates=SEARCH_CANDIDATE_BUDGET)
    except SearchError as e:
        return Finding(f.claim_id, f.citation, f.statement, f.verdict, f.expect,
                       {**f.evidence, "search": {"not searched": str(e)}}, f.path, f.line), None
    ev = dict(f.evidence)
    srch = {k: v for k, v in res.to_json(timing=False).items() if k != "files"}
    dom = srch.pop("domain", None) or {}
    srch["domain_text"] = dom.get("text", "")
    ev["search"] = srch
    v = f.verdict
    if res.verdict == Verdict.REFUTED and v != Verdict.REFUTED:
        v = Verdict.REFUTED
        ev["counterexample"] = {"search": res.counterexample}
        ev.pop("reason", None)
    elif res.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and v in (Verdict.HOLDS_ON_EVIDENCE, Verdict.UNKNOWN):
        v = Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
        ev["domain_text"] = srch["domain_text"]
        if "reason" in ev:
            ev["corpus_reason"] = ev.pop("reason")
    finding = Finding(f.claim_id, f.citation, f.statement, v, f.expect, ev, f.path, f.line)
    tight = None
    if c.when == "end" and bound_tree(c) is not None and v != Verdict.REFUTED:
        try:
            w = worst(c, domain, timeout=SEARCH_SECONDS)
            if w["complete"]:
                tight = {"claim": c.id, "citation": c.citation, "bound": c.expr, "worst_ratio": round(w["ratio"], 9),
                         "updates": w["updates"], "bound_value": round(w["bound"], 9), "dataset": w.get("points"),
                         "labels": w.get("labels"), "updates_taken": w.get("path"), "separator": w.get("separator"),
                         "complete": w["complete"]}
        except SearchError:
            pass
    return finding, tight


#: Budget of each search in the audit: candidates the interval screen cannot decide are
#: evaluated exactly, at most this many (a deterministic limit, so the results file does not
#: depend on the machine's speed); a search past it says unknown and leaves the claim's verdict
#: as the corpus gave it.
SEARCH_EXACT_BUDGET = 150
#: and at most this many candidates screened (the domain widened over a claim's quantifiers can
#: be large; past the budget the search says unknown, deterministically).
SEARCH_CANDIDATE_BUDGET = 150_000
#: A safety net only: far above what the budget allows on any reasonable machine.
SEARCH_SECONDS = 120.0


def _has_equality(tree) -> bool:
    if not isinstance(tree, tuple):
        return False
    if tree[0] == "cmp" and ("==" in tree[1] or "!=" in tree[1]):
        return True
    return any(_has_equality(t) for t in tree[1:] if isinstance(t, tuple))


#: Datasets whose Rosenblatt runs are drawn along k in the HTML report.
PLOTTED = ("worked-example", "separable-d2-g1_20", "separable-d3-g1_10")


def _plot_data(plots, name, params, ctx, trace):
    """Both sides of 000's bounds along k (for PLOTTED sets), and mistakes against R^2/gamma^2
    for every run: floats rounded to 10 significant digits (drawing only; verdicts are exact)."""
    gamma, R2 = ctx.consts["gamma"], ctx.R2
    k_end = len(trace.upd_t)
    plots["bounds"].append({"dataset": name, "augment": params.augment, "mistakes": k_end,
                            "bound": _r(X.to_float(X.div(R2, X.mul(gamma, gamma))))})
    gamma_f = X.to_float(gamma)
    if name not in PLOTTED:
        return
    w_opt = ctx.consts["w_opt"]
    rows = []
    for u in range(k_end):
        w = X.vec_from_fractions(trace.weights_after(u)[0])
        k = u + 1
        num = X.vdot(w_opt, w)
        n2 = X.vdot(w, w)
        rows.append([k, _r(X.to_float(num)), _r(k * gamma_f), _r(float(n2)), _r(float(k * R2)),
                     _r(X.to_float(num) / float(n2) ** 0.5), _r(float(k) ** 0.5 * gamma_f / X.to_float(ctx.R))])
    plots["series"].append({"dataset": name, "columns": ["k", "w_opt.w", "k gamma", "|w|^2", "k R^2", "cos theta",
                                                          "sqrt(k) gamma / R"], "rows": rows})


def _plot_other(plots, name, params, ctx, trace):
    """Both sides along k of 001's Lemmas 2 and 3 (Novikoff) or 004's proof (unit variant)."""
    gamma, R2, eta = ctx.consts["gamma"], ctx.R2, ctx.eta
    rows = []
    for u in range(len(trace.upd_t)):
        w, b = trace.weights_after(u)
        k = u + 1
        wv = X.vec_from_fractions(w)
        if params.variant == "novikoff":
            w_hat = X.vconcat(wv, [X.div(b, ctx.R)])
            lhs1 = X.to_float(X.vdot(w_hat, ctx.consts["w_hat_opt"]))
            rhs1 = float(k * eta) * X.to_float(gamma)
            lhs2 = X.to_float(X.vdot(w_hat, w_hat))
            rhs2 = float(2 * k * eta * eta * R2)
        else:
            lhs1, rhs1 = X.to_float(X.vdot(ctx.consts["w_opt"], wv)), k * X.to_float(gamma)
            lhs2, rhs2 = float(X.vdot(wv, wv)), float(k)
        rows.append([k, _r(lhs1), _r(rhs1), _r(lhs2), _r(rhs2)])
    cols = (["k", "w_hat.w_hat_opt", "k eta gamma", "|w_hat|^2", "2 k eta^2 R^2"] if params.variant == "novikoff"
            else ["k", "w*.w_t", "t gamma", "|w_t|^2", "t"])
    title = "001, Lemmas 2 and 3 (Novikoff)" if params.variant == "novikoff" else "004, Theorem 1 proof (unit-norm data)"
    plots.setdefault("other", []).append({"dataset": name, "title": title, "columns": cols, "rows": rows})


def _r(v: float) -> float:
    return float(f"{v:.10g}")


def _cover(cov: Coverage, run: Run | None, ctx, separator_kind):
    if run is None:
        return
    p = run.params
    w0 = "non-zero" if (p.w0 is not None and any(p.w0)) or (p.b0 is not None and p.b0 != 0) else "zero"
    cov.add(dataset=run.dataset, order=p.order, eta=format_rational(p.eta), w0=w0, separator=separator_kind,
            sign0=(ctx.tie if ctx is not None else None), form=p.form,
            **{k: format_rational(v) for k, v in (getattr(ctx, "declared_values", None) or {}).items()})


def merge_tally(a: dict, t: ClaimTally, run: Run | None, ctx, separator_kind, separator=None):
    if t.not_applicable:
        a["not_applicable"] += 1
        a["na_reason"] = a["na_reason"] or t.not_applicable
        return
    a["traces"] += 1
    a["evals"] += t.evaluations
    if t.evaluations:
        _cover(a["coverage"], run, ctx, separator_kind)
    if t.violation and a["violation"] is None:
        a["violation"] = {**t.violation, **({"run": run.describe(), "data": f"builtin:{run.dataset}" if run.dataset in BUILTIN else run.dataset} if run else {})}
        if separator is not None:
            a["violation"]["separator"] = {"v": [str(int(x)) for x in separator[0]], "c": format_rational(separator[1]),
                                           "kind": separator_kind}
    if t.unknown and a["unknown"] is None:
        a["unknown"] = t.unknown
    if t.min_slack is not None and (a["slack"] is None or X.compare(t.min_slack, a["slack"]) < 0):
        a["slack"] = t.min_slack
        a["slack_at"] = {**(t.min_slack_at or {}), **({"run": run.describe()} if run else {})}


def finding_of(c, a, corpus_desc="the corpus", budget=None, symbolic=None) -> Finding:
    ev: dict = {"evaluations": a["evals"], "applicable_runs": a["traces"], "not_applicable_runs": a["not_applicable"]}
    if c.when == "symbolic":
        return _symbolic_finding(c, budget if budget is not None else {}, symbolic)
    cov: Coverage = a["coverage"]
    quant = quantifiers(c)
    if quant:
        ev["quantifiers"] = {q: {"range": rng, "values_evaluated": cov.summary().get(q, []),
                                 "varied": q in ranging(c) and cov.varied(q, c)}
                             for q, rng in quant.items() if q not in (c.free or {})}
    if a["violation"] is not None:
        v = Verdict.REFUTED
        ev["counterexample"] = a["violation"]
        ev["replay"] = replay_command(c, a["violation"])
    elif a["unknown"] is not None:
        v = Verdict.UNKNOWN
        ev["reason"] = a["unknown"]
    elif a["evals"] == 0:
        v = Verdict.UNKNOWN
        ev["reason"] = "no applicable evaluation in the corpus" + (f" (e.g. {a['na_reason']})" if a["na_reason"] else "")
    elif c.when == "once":
        v = Verdict.PROVED
        ev["method"] = "exact evaluation (rationals and square roots)"
    elif c.free and [q for q in ranging(c) if q not in c.free and not cov.varied(q, c)]:
        never = [q for q in ranging(c) if q not in c.free and not cov.varied(q, c)]
        v = Verdict.UNKNOWN
        ev["reason"] = ("the free names were enumerated, but the evidence never varied " + ", ".join(
            f"{q} (evaluated only at {', '.join(cov.summary().get(q, ['nothing']))})" for q in never) + ": not 'holds'")
        ev["unvaried"] = never
    elif c.free:
        from verify.language.free import describe

        v = Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
        ev["domain"] = {"datasets": f"every dataset of the corpus ({corpus_desc}) with the claim's assumptions",
                        "free": describe(c.free), "engine": "exact evaluation of every assignment"}
        ev["domain_text"] = _free_domain_text(c, corpus_desc)
    else:
        v = Verdict.HOLDS_ON_EVIDENCE
        ev["corpus"] = corpus_desc
        never = [q for q in ranging(c) if q not in (c.free or {}) and not cov.varied(q, c)]
        if never:
            v = Verdict.UNKNOWN
            ev["reason"] = ("the evidence never varied " + ", ".join(
                f"{q} (claim ranges over {quant[q]}; evaluated only at {', '.join(cov.summary().get(q, ['nothing']))})"
                for q in never) + ": not 'holds'")
            ev["unvaried"] = never
        else:
            ev["varied"] = [q for q in ranging(c)]
    if a["slack"] is not None and v != Verdict.REFUTED:
        ev["min_slack"] = exact_json(a["slack"])
        ev["min_slack_at"] = a["slack_at"]
    return Finding(c.id, c.citation, c.statement, v, c.expect, ev, c.path, c.line)


def _free_domain_text(c, corpus_desc) -> str:
    from verify.language.free import describe

    return f"corpus datasets ({corpus_desc}) x free names ({describe(c.free)}), exact"


#: Symbolic seconds one claim file may use in all (each claim is also limited, by
#: verify.symbolic.steps.CLAIM_LIMIT); claims past it are unknown, "limit reached".
SYMBOLIC_FILE_BUDGET = 600.0


def _symbolic_steps(c, limit: float):
    """(the claim's step results, seconds taken)."""
    from verify.symbolic.steps import check_symbolic

    sym = c.symbolic
    t0 = time.perf_counter()
    steps = check_symbolic(sym["vectors"], sym["scalars"], sym["hypotheses"], sym["steps"], limit=limit)
    return steps, time.perf_counter() - t0


def _symbolic_finding(c, budget: dict, done=None) -> Finding:
    """The finding of a symbolic claim; ``done`` = (steps, seconds) when a worker checked it
    already.  Claims are charged to their file's budget in file order either way: one that
    starts (or, checked beside the corpus, would start) past the budget is unknown."""
    from verify.symbolic.steps import CLAIM_LIMIT, StepResult

    sym = c.symbolic
    left = budget.setdefault(c.path, SYMBOLIC_FILE_BUDGET)
    if left < 1.0:
        steps = [StepResult(st.source, Verdict.UNKNOWN, "sympy/z3",
                            f"limit reached: the claim file's symbolic budget of {SYMBOLIC_FILE_BUDGET:.0f} s "
                            "is spent (verify.corpus.audit.SYMBOLIC_FILE_BUDGET)") for st in sym["steps"]]
    else:
        steps, seconds = done if done is not None else _symbolic_steps(c, min(CLAIM_LIMIT, left))
        budget[c.path] = left - seconds
    verdicts = [s.verdict for s in steps]
    v = min(verdicts) if verdicts else Verdict.UNKNOWN
    ev = {"method": "symbolic: sympy identities, z3 over inner products (Gram abstraction)",
          "steps": [{k: val for k, val in s.to_json().items() if k != "seconds"} for s in steps]}
    failing = [s for s in steps if s.verdict != Verdict.PROVED]
    if failing:
        ev["first_failing_step"] = failing[0].step
    return Finding(c.id, c.citation, c.statement, v, c.expect, ev, c.path, c.line)


def replay_command(c, viol) -> str | None:
    if "run" not in viol:
        return None
    from shlex import (
        quote,  # paths come from users: the printed command must paste safely
    )

    from verify.language.claims import is_builtin

    claims = "" if is_builtin(c.path) else f" --claims {quote(c.path)}"  # check uses the built-in files by default
    data = quote(str(viol["data"]))
    declares = any(getattr(variant_of(v), "declared", False) for v in getattr(c, "variants", ()))
    variants = f" --variants {quote(c.path)}" if declares else ""  # the claim file declares the variant
    return (f"proof-audit train --data {data} {viol['run']}{variants} --trace ce.jsonl && "
            f"proof-audit check --data {data} --trace ce.jsonl{claims} --only {quote(c.id)}")


def _audit_domain():
    from verify.searching import (
        Domain,  # search imports replay, which this module also uses
    )

    return Domain(points=2, dim=2, box=2, max_updates=4, sep_box=3)


#: The domain every searchable claim is searched in by `proof-audit run`: small enough that
#: the whole audit stays around a minute; `proof-audit search` explores larger ones.
AUDIT_DOMAIN = _audit_domain()
