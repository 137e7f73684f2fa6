"""The main job: audit claim files over a corpus of datasets and runs.

For every dataset of the corpus and every run configuration that applies to it, run the
reference perceptron with a complete trace, replay the trace against the dataset (so the trace
is checked before any claim uses it), evaluate every applicable claim, and aggregate the
evaluations of each claim into one finding with a verdict.
"""

from __future__ import annotations

import glob
import os
import sys
import time
from dataclasses import dataclass
from fractions import Fraction

from perceptron import MemoryTrace, ParamError, Params, builtin, read_dataset, train
from perceptron._numbers import format_rational
from perceptron.generators import BUILTIN

from . import _exact as X
from .certificates import certify_points
from .claims import load_claims
from .replay import ClaimTally, replay
from .verdicts import Finding, Verdict

__all__ = ["Run", "corpus_runs", "audit", "RESULTS_SCHEMA", "RESULTS_VERSION"]

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
        if p.variant in ("sign", "unit"):
            parts.append(f"--sign0 {p.sign0}")
        if p.form != "yx":
            parts.append(f"--form {p.form}")
        if p.ratchet:
            parts.append("--ratchet")
        if p.variant == "kernel" and p.kernel != "linear":
            parts.append(f"--kernel {p.kernel} --degree {p.degree} --offset {format_rational(p.offset)}")
        parts.append(f"--max-epochs {p.max_epochs}")
        return " ".join(parts)


def _configs(name: str, coq: bool = False):
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


def corpus_datasets(data_dirs=(), include_coq=True):
    """(name, loader, is_coq) for the built-in corpus plus dataset files of the given dirs."""
    out = [(name, (lambda n=name: builtin(n)), False) for name in BUILTIN]
    dirs = list(data_dirs)
    if include_coq:
        here = os.path.dirname(os.path.abspath(__file__))
        coq = os.path.normpath(os.path.join(here, "..", "..", "shared", "data", "coqperceptron", "data"))
        if os.path.isdir(coq) and coq not in [os.path.normpath(d) for d in dirs]:
            dirs.append(coq)
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*"))):
            base = os.path.basename(path)
            if os.path.isdir(path) or base == "input_description" or base.startswith("."):
                continue
            out.append((base, (lambda p=path: read_dataset(p)), True))
    return out


class _Progress:
    def __init__(self, total, quiet):
        self.total, self.done = total, 0
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.last = 0.0

    def step(self, what):
        self.done += 1
        if self.quiet:
            return
        now = time.monotonic()
        if self.tty:
            sys.stderr.write(f"\r[{self.done}/{self.total}] {what[:70]:<70}")
            sys.stderr.flush()
        elif now - self.last > 5 or self.done == self.total:
            sys.stderr.write(f"[{self.done}/{self.total}] {what}\n")
            self.last = now

    def note(self, what):
        if self.quiet:
            return
        if self.tty:
            sys.stderr.write(f"\r{what[:80]:<80}")
            sys.stderr.flush()

    def close(self):
        if self.tty and not self.quiet:
            sys.stderr.write("\n")


def audit(claim_files, *, data_dirs=(), include_coq=True, quiet=False):
    """Audit the claims of ``claim_files`` over the corpus.  Returns (findings, corpus info,
    run info); findings are in claim-file order."""
    t0 = time.perf_counter()
    files = [load_claims(p) for p in claim_files]
    claims = [c for f in files for c in f.claims]
    datasets = corpus_datasets(data_dirs, include_coq)
    agg: dict[str, dict] = {c.id: {"evals": 0, "traces": 0, "violation": None, "unknown": None, "slack": None,
                                   "slack_at": None, "not_applicable": 0, "na_reason": None} for c in claims}
    corpus_info = []
    plan = []
    for name, load, coq in datasets:
        ds = load()
        corpus_info.append({"name": name, "n": ds.n, "d": ds.d, "sha256": ds.sha256,
                            "source": ds.source if ds.source and not ds.source.startswith("/") else (ds.source and os.path.basename(ds.source)) or name})
        for p in _configs(name, coq):
            plan.append((name, ds, p))
    progress = _Progress(len(plan), quiet)
    certs: dict = {}
    seen_dataset_ctx: set = set()
    runs_done = 0
    inconsistent = []
    plots: dict = {"series": [], "bounds": []}
    for name, ds, params in plan:
        progress.step(f"{name} {params.variant} {params.order}")
        rec = MemoryTrace()
        try:
            train(ds, params, rec)
        except ParamError:
            continue  # e.g. the unit variant on data whose norms are irrational
        runs_done += 1
        var_bias = params.variant in ("novikoff", "sklearn")
        key = (ds.sha256, var_bias, params.augment, params.variant == "unit")
        dkey = (ds.sha256, params.variant, params.augment)
        # the first replay of a key certifies the inputs; later ones reuse that certificate
        ctx, bad, tallies = replay(ds, rec.trace, claims, dataset_name=name, cert=certs.get(key),
                                   dataset_claims=dkey not in seen_dataset_ctx)
        if ctx is not None:
            certs.setdefault(key, ctx.cert)
        seen_dataset_ctx.add(dkey)
        if bad is not None:
            inconsistent.append({"dataset": name, "run": Run(name, params).describe(), "problem": str(bad)})
            continue
        for cid, tally in tallies.items():
            _merge(agg[cid], tally, Run(name, params))
        if params.variant == "rosenblatt" and ctx.cert.kind == "separable" and params.order == "cyclic":
            _plot_data(plots, name, params, ctx, rec.trace)
        elif (params.variant, name, params.order, params.eta) in (("novikoff", "separable-d3-bias", "cyclic", 1),
                                                                   ("unit", "unit-d3-g1_5", "cyclic", 1)) \
                and ctx.cert.kind == "separable":
            _plot_other(plots, name, params, ctx, rec.trace)
    for c in claims:
        if c.when == "once":
            tally = ClaimTally()
            from .replay import _eval_claim, _Env

            _eval_claim(c, _Env(None, {}), tally, {"once": True})
            _merge(agg[c.id], tally, None)
    findings = [_finding(c, agg[c.id]) for c in claims]
    findings, tightness = _searches(claims, findings, progress if not quiet else None)
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
            "search_domain": {k: v for k, v in AUDIT_DOMAIN.__dict__.items() if k not in ("variant", "sign0")}
                             | {"exact_evaluation_budget": SEARCH_EXACT_BUDGET}}
    run_info = {"seconds": round(time.perf_counter() - t0, 3), "runs": runs_done}
    return findings, info, run_info




def _searches(claims, findings, progress):
    """Search each searchable claim in AUDIT_DOMAIN; a confirmed counterexample refutes it, and
    a complete search without one strengthens 'holds on evidence' to 'no counterexample in D'.
    Bounds of the form mistakes <= B also get a tightness entry (worst updates / bound)."""
    from .search import SearchError, search, worst, _bound_tree

    out = []
    tight = []
    for c, f in zip(claims, findings):
        if c.when not in ("update", "end", "dataset") or c.compiled is None or f.verdict == Verdict.UNKNOWN \
                or _has_equality(c.compiled.tree):
            # identities ('==') are the symbolic engine's work: intervals cannot certify them
            out.append(f)
            continue
        try:
            res = search(c, AUDIT_DOMAIN, engine="enumerate", timeout=SEARCH_SECONDS, max_exact=SEARCH_EXACT_BUDGET)
        except SearchError as e:
            out.append(Finding(f.claim_id, f.citation, f.statement, f.verdict, f.expect,
                               {**f.evidence, "search": {"not searched": str(e)}}, f.path, f.line))
            continue
        ev = dict(f.evidence)
        srch = {k: v for k, v in res.to_json().items() if k not in ("seconds", "files")}
        srch.pop("domain", None)
        ev["search"] = srch
        v = f.verdict
        if res.verdict == Verdict.REFUTED and v != Verdict.REFUTED:
            v = Verdict.REFUTED
            ev["counterexample"] = {"search": res.counterexample}
        elif res.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and v == Verdict.HOLDS_ON_EVIDENCE:
            v = Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
        out.append(Finding(f.claim_id, f.citation, f.statement, v, f.expect, ev, f.path, f.line))
        if c.when == "end" and _bound_tree(c) is not None and v != Verdict.REFUTED:
            try:
                w = worst(c, AUDIT_DOMAIN, timeout=SEARCH_SECONDS)
                if not w["complete"]:
                    continue
            except SearchError:
                continue
            tight.append({"claim": c.id, "citation": c.citation, "bound": c.expr, "worst_ratio": round(w["ratio"], 9),
                          "updates": w["updates"], "bound_value": round(w["bound"], 9), "dataset": w.get("points"),
                          "labels": w.get("labels"), "updates_taken": w.get("path"), "separator": w.get("separator"),
                          "complete": w["complete"]})
        if progress is not None:
            progress.note(f"searched {c.id}")
    return out, tight


#: Budget of each search in the audit: candidates the interval screen cannot decide are
#: evaluated exactly, at most this many (a deterministic limit, so the results file does not
#: depend on the machine's speed); a search past it says unknown and leaves the claim's verdict
#: as the corpus gave it.
SEARCH_EXACT_BUDGET = 150
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
    if name not in PLOTTED:
        return
    w_opt = ctx.consts["w_opt"]
    rows = []
    for u in range(k_end):
        w = X.vec_from_fractions(trace.weights_after(u)[0])
        k = u + 1
        num = X.vdot(w_opt, w)
        n2 = X.vdot(w, w)
        rows.append([k, _r(X.to_float(num)), _r(float(k * gamma)), _r(float(n2)), _r(float(k * R2)),
                     _r(X.to_float(num) / float(n2) ** 0.5), _r(float(k) ** 0.5 * float(gamma) / X.to_float(ctx.R))])
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
            rhs1 = float(k * eta * gamma)
            lhs2 = X.to_float(X.vdot(w_hat, w_hat))
            rhs2 = float(2 * k * eta * eta * R2)
        else:
            lhs1, rhs1 = X.to_float(X.vdot(ctx.consts["w_opt"], wv)), float(k * gamma)
            lhs2, rhs2 = float(X.vdot(wv, wv)), float(k)
        rows.append([k, _r(lhs1), _r(rhs1), _r(lhs2), _r(rhs2)])
    cols = (["k", "w_hat.w_hat_opt", "k eta gamma", "|w_hat|^2", "2 k eta^2 R^2"] if params.variant == "novikoff"
            else ["k", "w*.w_t", "t gamma", "|w_t|^2", "t"])
    title = "001, Lemmas 2 and 3 (Novikoff)" if params.variant == "novikoff" else "004, Theorem 1 proof (unit-norm data)"
    plots.setdefault("other", []).append({"dataset": name, "title": title, "columns": cols, "rows": rows})


def _r(v: float) -> float:
    return float(f"{v:.10g}")


def _merge(a: dict, t: ClaimTally, run: Run | None):
    if t.not_applicable:
        a["not_applicable"] += 1
        a["na_reason"] = a["na_reason"] or t.not_applicable
        return
    a["traces"] += 1
    a["evals"] += t.evaluations
    if t.violation and a["violation"] is None:
        a["violation"] = {**t.violation, **({"run": run.describe(), "data": f"builtin:{run.dataset}" if run.dataset in BUILTIN else run.dataset} if run else {})}
    if t.unknown and a["unknown"] is None:
        a["unknown"] = t.unknown
    if t.min_slack is not None and (a["slack"] is None or X.compare(t.min_slack, a["slack"]) < 0):
        a["slack"] = t.min_slack
        a["slack_at"] = {**(t.min_slack_at or {}), **({"run": run.describe()} if run else {})}


def _finding(c, a) -> Finding:
    ev: dict = {"evaluations": a["evals"], "applicable_runs": a["traces"], "not_applicable_runs": a["not_applicable"]}
    if c.when == "symbolic":
        return _symbolic_finding(c)
    if a["violation"] is not None:
        v = Verdict.REFUTED
        ev["counterexample"] = a["violation"]
        ev["replay"] = _replay_command(c, a["violation"])
    elif a["unknown"] is not None:
        v = Verdict.UNKNOWN
        ev["reason"] = a["unknown"]
    elif a["evals"] == 0:
        v = Verdict.UNKNOWN
        ev["reason"] = "no applicable evaluation in the corpus" + (f" (e.g. {a['na_reason']})" if a["na_reason"] else "")
    elif c.when == "once":
        v = Verdict.PROVED
        ev["method"] = "exact evaluation (rationals and square roots)"
    else:
        v = Verdict.HOLDS_ON_EVIDENCE
        ev["corpus"] = "built-in corpus and the CoqPerceptron benchmark where present (see corpus)"
    if a["slack"] is not None and v != Verdict.REFUTED:
        ev["min_slack"] = _num(a["slack"])
        ev["min_slack_at"] = a["slack_at"]
    return Finding(c.id, c.citation, c.statement, v, c.expect, ev, c.path, c.line)


def _symbolic_finding(c) -> Finding:
    from .symbolic import check_symbolic

    sym = c.symbolic
    steps = check_symbolic(sym["vectors"], sym["scalars"], sym["hypotheses"], sym["steps"])
    verdicts = [s.verdict for s in steps]
    v = min(verdicts) if verdicts else Verdict.UNKNOWN
    ev = {"method": "symbolic: sympy identities, z3 over inner products (Gram abstraction)",
          "steps": [{k: val for k, val in s.to_json().items() if k != "seconds"} for s in steps]}
    failing = [s for s in steps if s.verdict != Verdict.PROVED]
    if failing:
        ev["first_failing_step"] = failing[0].step
    return Finding(c.id, c.citation, c.statement, v, c.expect, ev, c.path, c.line)


def _num(v):
    if isinstance(v, X.Surd):
        return {"exact": repr(v), "approx": round(X.to_float(v), 12)}
    return {"exact": format_rational(v), "approx": round(float(v), 12)}


def _replay_command(c, viol) -> str | None:
    if "run" not in viol:
        return None
    from .report import _builtin

    claims = "" if _builtin(c.path) else f" --claims {c.path}"  # check uses the built-in files by default
    return (f"proof-audit train --data {viol['data']} {viol['run']} --trace ce.jsonl && "
            f"proof-audit check --data {viol['data']} --trace ce.jsonl{claims} --only {c.id}")


def _audit_domain():
    from .search import Domain  # search imports replay, which this module also uses

    return Domain(points=2, dim=2, box=2, max_updates=4, sep_box=3)


#: The domain every searchable claim is searched in by `proof-audit run`: small enough that
#: the whole audit stays around a minute; `proof-audit search` explores larger ones.
AUDIT_DOMAIN = _audit_domain()
