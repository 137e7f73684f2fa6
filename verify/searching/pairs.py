"""The search for a pair claim: small ordered datasets on which the claim's run and its partner
run disagree.

A pair claim compares two whole runs, so its candidates are not the enumerator's states but
runs of the learner: for every labelled dataset of the domain (ordered: the order of the points
is part of a run), in the canonical order of verify.searching.domain, and every setting the
claim ranges over (eta, sign(0), w0, each in the domain's small sets), the claim's run is
trained, replayed and compared with its partner exactly as the audit and ``check`` do
(verify.replay.pairs.pair_tally: the partner is trained and replayed too, and the relation or
expression evaluated at every c of PAIR_C).  A disagreement is therefore a replayed
counterexample as found; its dataset and trace are written with the command that checks it
again.  Every candidate is a real run, so the search is slower than the enumerator's and the
domain is the caller's, not widened: at most ``max_candidates`` candidates, then "unknown".
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import replace
from fractions import Fraction

import numpy as np

from perceptron import MemoryTrace, ParamError, Params, from_rows, open_writer, train
from perceptron._numbers import format_rational
from perceptron.datasets import write_csv
from perceptron.declared import variant_of
from perceptron.outputs import portable_name
from verify.language.quantifiers import SEPARATOR_NAMES, ranging
from verify.replay.commands import run_options, train_and_check
from verify.replay.counterexample import Counterexample
from verify.searching.declared_engine import param_values
from verify.searching.domain import (Domain, SearchError, needs_separator, point_list, reads_certificate, symmetries,
                                      uncertified)
from verify.searching.orbits import ORBITS, canonical, equivariant, rotation_symmetric
from verify.verdicts import Verdict
from verify.language.assumptions import eta_bound

__all__ = ["search_pair"]

#: The bounds of the compared runs (both, as the partner inherits them): the first run converges
#: within the domain's few updates, and its partner is given room to end as well (a partner cut
#: by these shows as not converged, as in the corpus, whose runs have 200 epochs too).
PAIR_MAX_UPDATES = 1000
PAIR_MAX_EPOCHS = 200


def _settings(claim, dom: Domain) -> list[dict]:
    """The run settings the search tries: one each of what the claim fixes, the domain's small
    sets of what it ranges over."""
    var = variant_of(claim.variants[0])
    r, bound = set(ranging(claim)), eta_bound(claim)
    etas = [Fraction(e) for e in dom.etas] if "eta" in r else [Fraction(1)]
    if bound is not None:
        etas = [e for e in etas if e <= bound]
    sign0s = list(dom.sign0s) if var.tie is None and "sign0" in r else [0]
    w0s = [None]
    if "w0" in r and not var.dual:  # (w0_zero fixes w0: it is then not ranged over)
        box = range(-max(dom.w0_box, 1), max(dom.w0_box, 1) + 1)
        w0s += [tuple(Fraction(v) for v in w) for w in itertools.product(box, repeat=dom.dim) if any(w)]
    order = claim.orders[0] if claim.orders else "cyclic"
    decl = var if getattr(var, "declared", False) else None  # a declared variant is its declaration
    params = [()]
    if decl is not None:  # a declared variant's parameters: each at its default, half and twice it
        if decl.sign0 is not None:
            sign0s = [0]
        names = [p for p, _ in decl.parameters]
        params = [tuple(zip(names, vals)) for vals in itertools.product(*[param_values(v) for _, v in decl.parameters])]
    return [{"eta": e, "sign0": s, "w0": w, "order": order, "declared": d}
            for e in etas for s in sign0s for w in w0s for d in params]


def _check_searchable(claim) -> None:
    """SearchError for a pair claim no pair search covers: one about particular datasets, or one that
    ranges over every separator (the search judges with each dataset's certified one: its "none
    found" would say more than it saw)."""
    if claim.datasets:
        raise SearchError(f"claim {claim.id} is about particular datasets ({', '.join(claim.datasets)}), not a search domain")
    if _reads_separator(claim) and "separator" in ranging(claim):
        raise SearchError(f"claim {claim.id} ranges over every separator of the data, and a pair search judges with "
                          "each dataset's certified (maximum-margin) one only; state separator = \"max-margin\" if "
                          "the note means that one")


def _reads_separator(claim) -> bool:
    """Whether a pair claim reads a quantity of a separator (a relation reads none)."""
    return claim.compiled is not None and bool(set(claim.compiled.names) & SEPARATOR_NAMES)


def _describe(claim, dom, settings, orbits=False) -> dict:
    s0 = settings[0]
    etas = sorted({format_rational(s["eta"]) for s in settings}, key=Fraction)
    box = max(dom.w0_box, 1)  # as _settings draws them
    w0 = "0" if all(s["w0"] is None for s in settings) else f"0 and every integer vector in [-{box}, {box}]^{dom.dim}"
    decl = {}
    for st in settings:
        for k, v in st["declared"]:
            decl.setdefault(k, set()).add(v)
    params = "".join(f", {k} in {{{', '.join(format_rational(v) for v in sorted(vs))}}}" for k, vs in decl.items())
    if getattr(variant_of(claim.variants[0]), "tie", 0) is None:  # the run's sign(0): the values searched
        params += f", sign(0) in {{{', '.join(str(v) for v in sorted({s['sign0'] for s in settings}))}}}"
    runs = (f"{claim.variants[0]} with eta in {{{', '.join(etas)}}}{params}, w0 = {w0}, order {s0['order']}, those that "
            f"converge within {dom.max_updates} updates, each with its partner ({claim.pair})")
    datasets = f"up to {dom.points} integer points in [-{dom.box}, {dom.box}]^{dom.dim} in every order, labels -1/+1" + (
        ORBITS if orbits else "")
    seps = "the certified (maximum-margin) one of each dataset" if _reads_separator(claim) else \
        "none (the claim uses no separator)"
    # the scope's fields, as the other searches' (verify.corpus.searches.SCOPE_FIELDS)
    return {"points": dom.points, "dim": dom.dim, "box": dom.box, "max_updates": dom.max_updates,
            "w0_box": 0 if all(s["w0"] is None for s in settings) else box, "etas": etas, "order": s0["order"],
            "datasets": datasets, "runs": runs, "separators": seps, "engine": "pair runs",
            "text": f"{datasets}; runs: {runs}; separators: {seps}; engine pair runs"}


#: Partners that commute with the grid's rotations and reflections (the same run of other data,
#: settings or order; a partner adding a fixed vector, or computing in floats, does not).
_EQUIVARIANT_PAIRS = ("eta", "eta:c", "scale:c", "flip")


def _candidates(dom: Domain, maps=()):
    """Labelled ordered datasets, smallest first; all-zero ones left out (R = 0); with ``maps``,
    one of each orbit of the grid's rotations and reflections (verify.searching.orbits.canonical)."""
    P, Y = point_list(dom.dim, dom.box, False)
    for n in range(1, dom.points + 1):
        for idx in itertools.product(range(len(P)), repeat=n):
            if maps and not canonical(np.array([idx], dtype=np.int64), maps, True)[0]:
                continue
            pts = [[int(v) for v in P[j]] for j in idx]
            if any(any(p) for p in pts):
                yield pts, [int(Y[j]) for j in idx]


def search_pair(claim, dom: Domain, timeout: float = 60.0, out_dir: str | None = None,
                max_candidates: int | None = None):
    """(verdict, fields of a SearchResult) for a pair claim over ``dom``."""
    from verify.replay.dispatch import RunContext, replay
    from verify.replay.pairs import pair_tally

    _check_searchable(claim)
    t0, deadline = time.monotonic(), time.time() + timeout
    settings = _settings(claim, dom)
    same_runs = claim.pair in _EQUIVARIANT_PAIRS or claim.pair.startswith("order:") or (
        claim.pair.startswith("variant:") and equivariant(claim.pair.split(":", 1)[1]))
    # the pair search judges with each dataset's certified separator, whose rounding need not map
    # across an orbit: a claim that reads a separator is searched whole
    maps = symmetries(dom.dim, dom.box, False) if same_runs and equivariant(claim.variants[0]) \
        and rotation_symmetric(claim, dom) and not needs_separator(claim) else ()
    desc = _describe(claim, dom, settings, bool(maps))
    certify = reads_certificate(claim)  # a dataset's certificate only where the claim reads it
    checked = evaluated = cut = 0
    why = ""
    for pts, labels in _candidates(dom, maps):
        if time.time() > deadline:
            why = f"time limit of {timeout:g} s reached"
            break
        ds = from_rows("candidate", pts, labels)
        base = None  # the dataset's quantities and certificate, computed once for every setting
        for s in settings:
            if max_candidates is not None and checked >= max_candidates:
                why = f"more than {max_candidates} candidate runs (the budget)"
                break
            if time.time() > deadline:  # a dataset's settings are many runs (declared ones exact): checked each
                why = f"time limit of {timeout:g} s reached"
                break
            checked += 1
            params = Params(variant=claim.variants[0], order=s["order"], eta=s["eta"], sign0=s["sign0"], w0=s["w0"],
                            max_updates=dom.max_updates, declared=s["declared"])
            rec = MemoryTrace()
            try:  # the domain's runs: those that converge within its update bound (a cut run is no run of it)
                if not train(ds, params, rec).converged:
                    cut += 1
                    continue
            except ParamError:
                continue
            # the same run under the wider bounds its partner is given too (it converged: nothing else changes)
            params = replace(params, max_updates=PAIR_MAX_UPDATES, max_epochs=PAIR_MAX_EPOCHS)
            ctx = base = RunContext(ds, params, cert=None if certify else uncertified(
                variant_of(params.variant).bias is not None)) if base is None else base.derived(params)
            tally = pair_tally(claim, ds, ctx, rec.trace, replayed=False)
            if tally.not_applicable:
                continue
            evaluated += 1
            if tally.violation is not None:  # believed once both runs' traces, under these bounds, are replayed
                rec = MemoryTrace()
                train(ds, params, rec)
                ctx, bad, _ = replay(ds, rec.trace, (), dataset_name="candidate")
                if bad is not None:
                    raise AssertionError(f"the learner's own trace is inconsistent: {bad}")  # a bug, never a verdict
                tally = pair_tally(claim, ds, ctx, rec.trace)
                assert tally.violation is not None, "the replayed run compares differently"  # a bug, never a verdict
                taken = np.asarray(rec.trace.i)[np.asarray(rec.trace.mistake, dtype=bool)]
                ce = _counterexample(pts, labels, params, tally.violation, [int(v) for v in taken], rec.trace)
                files = _save(claim, ds, params, out_dir) if out_dir else {}
                return Verdict.REFUTED, dict(domain=desc, seconds=time.monotonic() - t0, checked=checked,
                                             counterexample=ce, files=files)
        if why:
            break
    seconds = time.monotonic() - t0
    # runs the update bound cut have no end to compare: say how many there were
    uncompared = f" ({cut:,} of the {checked:,} candidate runs did not converge within {dom.max_updates} updates: " \
                 "no run of the domain, nothing to compare)" if cut else ""
    if why:
        return Verdict.UNKNOWN, dict(domain=desc, seconds=seconds, checked=checked,
                                     reason=f"unknown: limit reached: {why}; {evaluated} runs compared, none "
                                            f"disagreed{uncompared}")
    if evaluated == 0:
        return Verdict.UNKNOWN, dict(domain=desc, seconds=seconds, checked=checked,
                                     reason="unknown: empty domain: the claim applied to no run of the domain" + uncompared)
    return Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, dict(domain=desc, seconds=seconds, checked=checked)


def _counterexample(pts, labels, params, viol, updates, trace) -> Counterexample:
    """The first run's dataset, setting, updates and trace, and where it parts from its partner."""
    return Counterexample(tuple(tuple(Fraction(v) for v in p) for p in pts), tuple(labels), tuple(updates), params, viol,
                          summary=trace.end, trace=trace)


def _save(claim, ds, params, out_dir) -> dict:
    """The counterexample's dataset and first run's trace, and the commands that check it again."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, portable_name(claim.id))  # a claim id may hold a ':'
    data, trace = base + ".csv", base + ".trace.jsonl"
    write_csv(ds, data)
    train(ds, params, open_writer(trace))
    return {"data": data, "trace": trace, "replay": train_and_check(claim, data, run_options(params), trace)}
