"""The main job: audit claim files over a corpus of datasets and runs.

For every dataset of the corpus and every run configuration that applies to it, run the
reference perceptron with a complete trace, replay the trace against the dataset (so the trace
is checked before any claim uses it), evaluate every applicable claim, and aggregate the
evaluations of each claim into one finding with a verdict.
"""

from __future__ import annotations

import os
import sys
import time

from perceptron import MemoryTrace, ParamError, train
from perceptron.declared import variant_of
from verify.certify.certificates import alternative_separator
from verify.config import check_jobs
from verify.corpus.evidence import finding_of, new_evidence, symbolic_steps
from verify.corpus.plots import plot
from verify.corpus.searches import not_searched, proved_finding, search_claim, search_depth
from verify.corpus.runs import (
    VARY_MAX_POINTS,
    Run,
    check_dataset_names,
    configs,
    corpus_datasets,
    load_spec,
    needs_of,
)
from verify.language.assumptions import SEPARABLE
from verify.language.claims import claims_of, is_builtin, load_claims
from verify.language.quantifiers import (
    RUN_WHENS,
    ranging,
    uses_separator,
)
from verify.replay.dispatch import applicable, replay, tallied
from verify.symbolic.one_step import prove_all, taken
from verify.report.progress import Progress
from verify.verdicts import Finding

__all__ = ["audit", "audit_dataset", "RESULTS_SCHEMA", "RESULTS_VERSION"]

RESULTS_SCHEMA = "proof-audit/results"
RESULTS_VERSION = 1


#: Wall-clock time the audit spends on one dataset (seconds); the sizes of a dataset file are
#: limited (perceptron.limits), but many runs of a large one could still take hours.  Past it the
#: dataset's claims are unknown, "limit reached" (far above the CoqPerceptron files' seconds).
DATASET_SECONDS = 900.0


def audit_dataset(claims, name, ds, coq, needs, plan=None, counted=False, known=None) -> dict:
    """Every run of one corpus dataset, replayed and evaluated: an aggregate per claim, the
    certificates, plots and problems.  Independent of every other dataset.  ``plan``: the claims
    whose needs decide which runs are made (default ``claims``; a warm re-run evaluates a few
    claims on the runs every claim of the audit makes, so that their evidence is a cold run's).
    ``counted``: the runs none of ``claims`` is about are counted, not made (each claim finds
    them not applicable, as their replay would say); the plots and problems returned are then
    those of the runs made (a warm re-run keeps its plan's: verify.corpus.cache).  ``known``:
    {"certs": {key: Certificate}, "alts": {key: Certificate or None}}, the inputs' certificates
    and second separators an earlier audit solved (a warm re-run's cache), used, once verified
    exactly, instead of solving their programs again; the part returned names every one used."""
    agg = new_evidence(claims)
    plan = claims if plan is None else plan
    sep_claims = [c for c in claims if c.when in RUN_WHENS + ("dataset",) and uses_separator(c) and c.separator == "any"]
    by_quantity = {q: [c for c in claims if q in ranging(c)] for q in ("eta", "w0", "sign0")}
    plan_by_quantity = {q: [c for c in plan if q in ranging(c)] for q in ("eta", "w0", "sign0")}
    solved = _Solved(ds, known)
    seen_dataset_ctx: set = set()
    runs_done = 0
    inconsistent = []
    plots: dict = {"series": [], "bounds": [], "other": []}
    t_start = time.monotonic()
    cut = False
    for params, varied in configs(name, coq, needs, ds.d, ds.n):
        if time.monotonic() - t_start > DATASET_SECONDS:
            cut = _cut_short(agg, name)
            break
        # a run added to vary one quantity is evaluated for the claims that range over it
        run_claims = claims if varied is None else by_quantity[varied]
        key = (ds.sha256, variant_of(params.variant).bias is not None, params.augment, params.variant == "unit")
        dkey = (ds.sha256, params.variant, params.augment)  # the runs whose first replay evaluates dataset claims
        if varied is not None:
            mine = [c for c in plan_by_quantity[varied] if params.variant in c.variants]
            made = solved.certs.get(key)
            if not mine or (made is not None and made.kind != "separable"
                            and all(SEPARABLE in c.assume for c in mine)):
                continue  # nothing it could be evidence for (no claim of this variant applies)
        pairs = () if ds.n > VARY_MAX_POINTS else [c for c in run_claims if c.when == "pair"]
        if counted and _unused(params, run_claims) and not (sep_claims and varied is None and dkey not in seen_dataset_ctx):
            # a re-run evaluating a few claims: a run none of them is about is counted, not made
            ctx = _counted(ds, params, solved.cert(key, params))
            if ctx is None:
                continue  # train refuses it too
            runs_done += 1
            solved.certs.setdefault(key, ctx.cert)
            first_of_dkey = dkey not in seen_dataset_ctx
            seen_dataset_ctx.add(dkey)
            for c in tallied(run_claims, dataset_claims=first_of_dkey) + list(pairs):  # as its replay and _pair would
                agg[c.id].not_applying(applicable(c, ctx, None, name))
            continue
        rec = MemoryTrace()
        try:
            result = train(ds, params, rec)
        except ParamError as e:  # e.g. the unit variant on data whose norms are irrational
            _refused(agg, run_claims, name, params, e)
            continue
        runs_done += 1
        # the first replay of a key certifies the inputs; later ones reuse that certificate
        ctx, bad, tallies = replay(ds, rec.trace, run_claims, dataset_name=name, cert=solved.cert(key, params),
                                   dataset_claims=dkey not in seen_dataset_ctx)
        if ctx is not None:
            solved.certs.setdefault(key, ctx.cert)
        first_of_dkey = dkey not in seen_dataset_ctx
        seen_dataset_ctx.add(dkey)
        if bad is not None:
            inconsistent.append({"dataset": name, "run": Run(name, params).describe(), "problem": str(bad)})
            continue
        run = Run(name, params, ds.source)
        for cid, tally in tallies.items():
            agg[cid].add_tally(tally, run, ctx, "max-margin (certified)")
        # claims that range over every separator: also at a second, different one
        if sep_claims and first_of_dkey and varied is None and ctx.kind == "separable" and ctx.cert is not None:
            _at_second_separator(agg, ds, rec.trace, sep_claims, run, ctx, solved.alt(key, ctx))
        for c in pairs:  # pair claims (two runs each) on the datasets the varying runs use
            _pair(c, agg[c.id], ds, run, ctx, rec.trace, result)
        plot(plots, name, params, ctx, rec.trace)
    info = {"name": name, "n": ds.n, "d": ds.d, "sha256": ds.sha256,
            "source": ds.source if ds.source and not ds.source.startswith("/") else (ds.source and os.path.basename(ds.source)) or name}
    return {"agg": agg, "certs": solved.certs, "alts": solved.alts, "runs": runs_done, "inconsistent": inconsistent,
            "plots": plots, "info": info, "cut": cut}


def _cut_short(agg, name) -> bool:
    """A dataset's audit past DATASET_SECONDS: every claim not yet refuted or unknown is unknown
    (never "holds" on a corpus cut short)."""
    why = (f"limit reached: the audit of dataset {name} ran past {DATASET_SECONDS:.0f} s "
           "(verify.corpus.audit.DATASET_SECONDS); its later runs were not made")
    for a in agg.values():
        if a.violation is None and a.unknown is None:
            a.unknown = why
    return True


def _refused(agg, run_claims, name, params, e) -> None:
    """A run train refuses: said to the claims of a declared variant (the declaration's fault)
    and to those that state this run (their run = {...}), not skipped silently."""
    declared = getattr(variant_of(params.variant), "declared", False)
    for c in run_claims:
        stated = c.setting is not None and name in (c.datasets or ())
        if params.variant in c.variants and (declared or stated):
            agg[c.id].not_applying(f"the run {Run(name, params).describe()} was refused: {e}")


def _at_second_separator(agg, ds, trace, sep_claims, run, ctx, alt) -> None:
    """The claims that range over every separator, evaluated again at a second, different one."""
    if alt is None:
        return
    actx, abad, atallies = replay(ds, trace, sep_claims, dataset_name=run.dataset, cert=ctx.cert, separator=(alt.v, alt.c))
    if abad is None:
        for cid, tally in atallies.items():
            agg[cid].add_tally(tally, run, actx, "another separator (LP vertex)", separator=(alt.v, alt.c))


class _Solved:
    """The certificates and second separators of one dataset's inputs, by key: those this audit
    used (``certs``, ``alts``), and those an earlier one solved (``known``), each verified
    exactly against the data before it is used (a cached certificate is trusted no more than a
    trace: verify.certify.certificates.verify; a second separator is re-checked by its replay)."""

    def __init__(self, ds, known):
        self.ds, self.certs, self.alts = ds, {}, {}
        self.known = known or {"certs": {}, "alts": {}}
        self.checked: dict = {}

    def cert(self, key, params):
        """The certificate of these inputs to hand a replay (None: the replay solves it)."""
        if key in self.certs:
            return self.certs[key]
        c = self.known["certs"].get(key)
        if c is not None and key not in self.checked:
            from dataclasses import replace

            from perceptron.params import prepare_inputs
            from verify.certify.certificates import verify

            Xn, D = prepare_inputs(self.ds, replace(params, arithmetic="exact"))
            self.checked[key] = verify(c, Xn, D, [int(v) for v in self.ds.y])
        return c if c is not None and self.checked[key] else None

    def alt(self, key, ctx):
        if key not in self.alts:
            self.alts[key] = self.known["alts"][key] if key in self.known["alts"] else \
                alternative_separator(ctx.cert, ctx.Xn, ctx.D, ctx.y)
        return self.alts[key]


def _unused(params, claims) -> bool:
    """Whether a run can be counted without being made: an exact run of a built-in variant that
    none of ``claims`` is about (each names other variants), so that each finds it not
    applicable, for its variant, as its replay would.  (The caller also makes the first run of
    each inputs when a claim ranges over separators: its second replay depends on the data.)"""
    if params.arithmetic != "exact" or getattr(variant_of(params.variant), "declared", False):
        return False
    return all(c.variants and params.variant not in c.variants for c in claims if c.when in RUN_WHENS + ("dataset", "pair"))


def _counted(ds, params, cert):
    """The context of a run counted without being made (its certificate and the reason each
    claim gives), or None where train refuses the run (perceptron.run.built_in_model: all a
    built-in variant refuses, before its first visit)."""
    from perceptron.run import built_in_model
    from verify.replay.dispatch import RunContext

    try:
        built_in_model(ds, params)
        return RunContext(ds, params, cert)
    except ParamError:
        return None


#: Worker processes of the audit (datasets, then searches, are independent units of work).
#: The results do not depend on it: units are merged in corpus / claim-file order.
DEFAULT_JOBS = max(1, min(4, os.cpu_count() or 1))

_WORKER: dict = {}


def _worker_init(claim_paths, only=None, evaluate=None):
    from verify._child import die_with_parent

    die_with_parent()
    _worker_load(claim_paths, only, evaluate)


def _worker_load(claim_paths, only, evaluate=None):
    from perceptron.limits import allow_long_numbers

    allow_long_numbers()
    everything = [c for p in claim_paths for c in load_claims(p).claims]
    plan = [c for c in everything if only is None or c.id in only]
    _WORKER["notes"] = everything  # a proof may rest on any proved claim of its note (verify.symbolic.one_step)
    _WORKER["plan"] = plan
    _WORKER["claims"] = [c for c in plan if evaluate is None or c.id in evaluate]
    _WORKER["needs"] = needs_of(plan)


def cluster_setup(claim_files, only, evaluate=None) -> tuple:
    """What a cluster's worker loads: the claim files by absolute path with the digest of their
    bytes (a worker lives across audits: an edited file is loaded again), the ids audited and
    the ids evaluated."""
    import hashlib

    files = []
    for p in claim_files:
        with open(p, "rb") as fh:
            files.append((os.path.abspath(p), hashlib.sha256(fh.read()).hexdigest()))
    return tuple(files), None if only is None else frozenset(only), None if evaluate is None else frozenset(evaluate)


def cluster_task(fn, setup, *args):
    """One unit of work on a cluster's worker (verify.corpus.cluster): the claim files loaded
    first when this worker has not loaded these (the same paths and bytes)."""
    if _WORKER.get("setup") != setup:
        _worker_load([p for p, _ in setup[0]], setup[1], setup[2])
        _WORKER["setup"] = setup
    return fn(*args)


def _worker_dataset(task, counted=False, known=None):
    name, spec, coq = task
    return audit_dataset(_WORKER["claims"], name, load_spec(spec), coq, _WORKER["needs"], _WORKER["plan"], counted,
                         known)


def _worker_figures(plots, documents):
    from verify.report.figures import figures_of

    return figures_of(plots, documents)


def _worker_symbolic(cid):
    from verify.symbolic.steps import CLAIM_LIMIT

    return symbolic_steps(next(c for c in _WORKER["claims"] if c.id == cid), CLAIM_LIMIT)


def _worker_one_steps(ids):
    return prove_all([c for c in _WORKER["claims"] if c.id in ids], _WORKER["notes"])


def _submit_proofs(pool, claims, jobs) -> tuple:
    """The proof steps of the symbolic claims, one task each, and the claims verify.symbolic.one_step
    proves, in at most ``jobs`` batches of whole notes (a proof may rest on the note's other
    claims, each proved once): (futures by claim id, the batches)."""
    notes: dict = {}
    for c in claims:
        if taken(c):
            notes.setdefault(c.document, set()).add(c.id)
    batches: list = [set() for _ in range(jobs)]
    for ids in sorted(notes.values(), key=len, reverse=True):
        min(batches, key=len).update(ids)
    return ({c.id: pool.submit(_worker_symbolic, c.id) for c in claims if c.when == "symbolic"},
            [pool.submit(_worker_one_steps, ids) for ids in batches if ids])


def _worker_search(task):
    cid, finding, domain, depth = task
    claim = next(c for c in _WORKER["claims"] if c.id == cid)
    return search_claim(claim, finding, domain, depth)


def audit(claim_files, *, data_dirs=(), quiet=False, jobs=None, only=None, domain=None, colour=False, scheduler=None,
          evaluate=None, figures=True, corpus=True, claims=None, solved=None, depth=None):
    """Audit the claims of ``claim_files`` over the corpus.  Returns (findings, corpus info,
    run info); findings are in claim-file order.  ``jobs`` worker processes share the work
    (default DEFAULT_JOBS; 1 runs everything in this process); the results are the same.
    ``only``: the ids of the claims to audit (default: all); the corpus runs only the variants
    those claims are evaluated on, so auditing one claim costs what that claim needs.
    ``domain``: the one search domain of each searchable claim (default: the growing scopes of
    verify.searching.scopes, within the budget of ``depth``, default DEFAULT_DEPTH); ``scheduler``:
    the address of a Dask scheduler whose workers do the work instead (verify.corpus.cluster).
    ``evaluate``: the ids of the claims to evaluate and search (default: all of them); the corpus
    still takes every run the audited claims need into account, so each finding is the one a
    full audit gives (a warm re-run after an edit: verify.corpus.cache); ``figures``: whether a
    worker renders the page's plots (a warm re-run has them); ``corpus=False``: the corpus's
    description is not wanted (the caller keeps the plan's): the runs none of the evaluated
    claims is about are counted, not made, and the plots and problems returned are those of the
    runs made; ``claims``: the claims of ``claim_files`` where the caller has loaded them (a
    file is then read once here); ``solved``: a dict the audit fills for a cache: "certs" and
    "alts", the inputs' certificates and second separators (on entry, an earlier audit's: used
    once verified, audit_dataset's ``known``), and "cut_short", the datasets whose audit reached
    DATASET_SECONDS."""
    t0 = time.perf_counter()
    depth, searched = search_depth(domain, depth)  # a bad depth stops the audit before any work
    claim_files = list(claim_files)
    notes, plan, claims = _claims_to_audit(claim_files, claims, only, evaluate)
    counted = not corpus and len(claims) < len(plan)
    datasets = _corpus(data_dirs, claim_files, claims)
    check_jobs(jobs, "jobs =")
    jobs = DEFAULT_JOBS if jobs is None else jobs
    agg = new_evidence(claims)
    needs = needs_of(plan)
    progress = Progress(quiet, colour)
    progress.phase("corpus", len(datasets), "dataset")
    pool = _pool(scheduler, jobs, len(datasets), (claim_files, only, evaluate))
    try:
        symbolic_done, proving = {}, None
        if pool is not None:
            # the larger datasets come last in the corpus: start them first (merged in order); the
            # proof steps need no corpus: they are checked beside it, by whichever worker is free
            futures = {i: pool.submit(_worker_dataset, datasets[i], counted, solved)
                       for i in reversed(range(len(datasets)))}
            # (on a cluster they are checked here: each runs in a child process with a hard time
            # limit, which a Dask worker, a daemon, may not start)
            if not scheduler:
                symbolic_done, proving = _submit_proofs(pool, claims, jobs)
            parts = (futures[i].result() for i in range(len(datasets)))
        else:
            parts = (audit_dataset(claims, name, load_spec(spec), coq, needs, plan, counted, solved)
                     for name, spec, coq in datasets)
        corpus_info, certs, alts, inconsistent, runs_done, cut_short, plots = _merged(datasets, parts, agg, progress)
        want_figures, figures = figures, None
        if pool is not None and want_figures:  # the page's plots need only the corpus: a worker renders them beside the searches
            figures = pool.submit(_worker_figures, plots, sorted({c.document for c in plan}))
        for c in claims:
            if c.when == "once":
                agg[c.id].evaluate_once(c)
        corpus_desc = (f"{len(corpus_info)} datasets ({', '.join(d['name'] for d in corpus_info[:6])}"
                       f"{', ...' if len(corpus_info) > 6 else ''}), {runs_done} runs")
        findings = _findings(claims, agg, corpus_desc, symbolic_done, proving, progress, notes)
        findings, tightness = _searches(claims, findings, progress, pool, domain, depth)
        if figures is not None:
            figures = figures.result()
    finally:
        if pool is not None:  # stopped (Ctrl-C, SIGTERM): the queued units are dropped, not waited for
            stopped = sys.exc_info()[0] is not None
            pool.shutdown(wait=not stopped, cancel_futures=stopped)
    progress.close()
    _describe_certificates(corpus_info, certs)
    if solved is not None:
        solved.setdefault("certs", {}).update(certs)
        solved.setdefault("alts", {}).update(alts)
        solved["cut_short"] = cut_short
    info = {"datasets": corpus_info, "runs": runs_done, "inconsistent_traces": inconsistent, "tightness": tightness,
            "plots": plots,
            "search_domain": "per claim: see each claim's evidence.search.domain_text and evidence.scope", **searched}
    run_info = {"seconds": round(time.perf_counter() - t0, 3), "runs": runs_done, "jobs": jobs}
    if figures is not None:
        run_info["figures"] = figures  # for the HTML page (not written to run_info.json)
    return findings, info, run_info


def _corpus(data_dirs, claim_files, claims) -> list:
    """The corpus's datasets (name, spec, external?).  A bad file stops the audit now, with its
    line, not after hours of work; each file is parsed again where it is audited (0.8 s for the
    six CoqPerceptron files), so that a worker holds one dataset at a time rather than the main
    process holding them all."""
    datasets = corpus_datasets(data_dirs, [p for p in claim_files if not is_builtin(p)])
    check_dataset_names(claims, [name for name, _, _ in datasets])
    for _, spec, external in datasets:
        if external:
            load_spec(spec)
    return datasets


def _claims_to_audit(claim_files, claims, only, evaluate) -> tuple[list, list, list]:
    """(every claim of the files, the claims the audit plans its corpus for, those of them it evaluates)."""
    claims = claims_of(load_claims(p) for p in claim_files) if claims is None else list(claims)
    notes = claims
    if only is not None:
        only = set(only)
        missing = only - {c.id for c in claims}
        if missing:
            raise ValueError(f"no claim {sorted(missing)[0]!r} in {', '.join(claim_files)}")
        claims = [c for c in claims if c.id in only]
    return notes, claims, [c for c in claims if evaluate is None or c.id in evaluate]


def _pool(scheduler, jobs, n_datasets, setup):
    """The workers of the audit: a Dask cluster's, a process pool, or None (this process)."""
    if scheduler:
        from verify.corpus.cluster import ClusterPool

        return ClusterPool(scheduler, cluster_task, cluster_setup(*setup))
    if jobs > 1 and n_datasets > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_worker_init, initargs=setup)
    return None


def _findings(claims, agg, corpus_desc, symbolic_done, proving, progress, notes) -> list:
    """Each claim's finding from its evidence (a symbolic claim's from its checked steps; a claim
    about one update proved for every state before it: verify.symbolic.one_step)."""
    budget = {}  # symbolic seconds left per claim file
    proofs = prove_all(claims, notes) if proving is None else {k: v for b in proving for k, v in b.result().items()}
    one_step = {c.id for c in claims if taken(c)}  # (proofs has a key for every claim, proved or not)
    progress.phase("proof steps", sum(1 for c in claims if c.when == "symbolic" or c.id in one_step), "claim")
    findings = []
    for c in claims:
        done = symbolic_done.get(c.id)
        if c.when == "symbolic":
            findings.append(finding_of(c, agg[c.id], corpus_desc, budget, None if done is None else done.result()))
        else:
            f = finding_of(c, agg[c.id], corpus_desc)
            findings.append(proved_finding(c, f, proofs.get(c.id)) if c.id in one_step else f)
        if c.when == "symbolic" or c.id in one_step:
            progress.step(c.id)
    return findings


def _merged(datasets, parts, agg, progress):
    """The datasets' parts folded in corpus order: the evidence into ``agg``; (their
    descriptions, certificates, second separators, problems, runs, the datasets cut short, plots)."""
    corpus_info, certs, alts, inconsistent, runs_done, cut_short = [], {}, {}, [], 0, []
    plots: dict = {"series": [], "bounds": [], "other": []}
    for (name, _, _), part in zip(datasets, parts):
        progress.step(f"{name} ({runs_done + part['runs']} runs)")
        for cid, later in part["agg"].items():
            agg[cid].absorb(later)
        corpus_info.append(part["info"])
        certs.update(part["certs"])
        alts.update(part["alts"])
        inconsistent += part["inconsistent"]
        runs_done += part["runs"]
        cut_short += [name] if part["cut"] else []
        for k in plots:
            plots[k] += part["plots"].get(k, [])
    if not plots["other"]:
        del plots["other"]
    return corpus_info, certs, alts, inconsistent, runs_done, cut_short, plots


def _describe_certificates(corpus_info, certs):
    """Each dataset's certificates, by the form of its inputs, in its description."""
    described: dict = {}
    for (sha, bias, aug, unit), cert in sorted(certs.items(), key=lambda kv: (kv[0][0], kv[0][1], str(kv[0][2]), kv[0][3])):
        name = next(d["name"] for d in corpus_info if d["sha256"] == sha)
        form = ("bias" if bias else "homogeneous") + (f", augmented {aug}" if aug else "") + (", unit-normalised" if unit else "")
        described.setdefault(name, []).append({"inputs": form, **cert.to_json()})
    for d in corpus_info:
        d["certificates"] = described.get(d["name"], [])


def _pair(c, a, ds, run, ctx, trace, result):
    """Evaluate a pair claim on one corpus run (if it applies)."""
    from verify.replay.pairs import compare_runs

    why = applicable(c, ctx, result.converged, run.dataset)
    if why:
        a.not_applying(why)
        return
    holds, detail = compare_runs(c, ds, run.params, trace, result, ctx)
    if holds is None:
        a.not_applying(detail)
        return
    a.runs += 1
    a.evaluations += 1
    a.cover(run, ctx, None)
    for cv in (detail.get("c") or []) if holds else [detail.factor] if detail.factor is not None else []:
        a.coverage.add(c=cv)  # the pair's factor c, varied over PAIR_C
    if not holds:
        a.violated(detail, run)


def _searches(claims, findings, progress, pool, domain, depth):
    """Search each searchable claim in ``domain`` (widened over the claim's quantifiers); a
    confirmed counterexample refutes it, and a complete search without one turns 'holds on
    evidence' (or 'unknown' for want of varied evidence, when the domain varies what the
    corpus did not) into 'no counterexample in D'.  Bounds of the form mistakes <= B also get a
    tightness entry (worst updates / bound)."""
    from verify.searching.domain import needs_separator

    todo = [(c.id, f, domain, depth) for c, f in zip(claims, findings) if not_searched(c, f) is None]
    # the longest first, so that no worker is left with one at the end (pair searches train whole
    # runs; a separator multiplies the candidates); results are gathered by claim, in file order
    kind = {c.id: (c.when != "pair", not needs_separator(c) if c.compiled is not None else True) for c in claims}
    todo.sort(key=lambda task: kind[task[0]])
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
        for cid, f, dom, d in todo:
            done[cid] = search_claim(by_id[cid], f, dom, d)
            progress.step(cid)
    out, tight = [], []
    for c, f in zip(claims, findings):
        if c.id in done:
            f, t = done[c.id]
            if t is not None:
                tight.append(t)
        else:  # every claim says whether it was searched, and if not, why
            f = Finding(f.claim_id, f.citation, f.statement, f.verdict, f.expect,
                        {**f.evidence, "search": {"not searched": not_searched(c, f)}}, f.path, f.line)
        out.append(f)
    return out, tight
