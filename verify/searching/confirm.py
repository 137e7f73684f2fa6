"""Confirmation: a candidate from any engine is a counterexample only once the replay engine
says so.  The candidate's dataset is built, the learner runs it with ``--order
sequence:...`` (or, when the search ran a deterministic order -- ``first``, ``cyclic``, ``random:SEED`` -- with
that order itself, and its updates must be the search's) and writes a trace, and the claim
is evaluated on that trace exactly (verify.replay.dispatch) with the candidate's separator."""

from __future__ import annotations

import os
from fractions import Fraction

import numpy as np

from perceptron import MemoryTrace, ParamError, Params, from_rows, open_writer, train
from perceptron.datasets import write_csv
from perceptron.declared import variant_of
from perceptron.outputs import portable_name
from verify.replay.commands import check_command
from verify.replay.counterexample import Counterexample
from verify.replay.dispatch import RunContext, evaluate_dataset_claims, replay

__all__ = ["candidate_run", "confirm", "confirm_as", "save_counterexample", "NotRunnable"]


class NotRunnable(AssertionError):
    """The learner refuses a candidate run the search made (strict confirmation): the two
    disagree, or the run leaves what the learner computes exactly (an irrational step)."""


def candidate_run(variant: str, path, order: str = "any", **setting) -> Params:
    """The learner's run a search candidate is: under order ``any`` the run that follows the
    candidate's own updates (``sequence:...``), else the order itself; ``setting`` the Params
    the search varied (eta, sign0, w0, b0, form, declared, ratchet, max_updates, max_epochs, the
    kernel's), a setting the variant does not take (sign(0) where the variant fixes it, the half
    form, a ratchet without a pocket) left at its default."""
    var = variant_of(variant)
    kw = {k: v for k, v in setting.items() if v is not None}
    if var.tie is not None:
        kw.pop("sign0", None)
    if not var.half_form:
        kw.pop("form", None)
    kw["ratchet"] = bool(kw.get("ratchet") and var.pocket)
    if kw.get("kernel", "linear") == "linear":
        for k in ("kernel", "degree", "offset"):
            kw.pop(k, None)
    kw.update({k: Fraction(kw[k]) for k in ("eta", "offset") if k in kw})
    kw["declared"] = tuple(kw.get("declared", ()))
    return Params(variant=variant, order=order if order != "any" else _sequence(path), **kw)


def _sequence(path) -> str:
    return "sequence:" + ",".join(map(str, path))


def confirm(claim, points, labels, path, separator, params: Params, *, strict=False, tr=None):
    """Replay a candidate exactly: the run ``params`` (verify.searching.confirm.candidate_run) of
    the dataset, whose updates are ``path`` (its trace ``tr`` when it was made already), with
    the claim and ``separator``.  Returns the Counterexample if the claim fails on it, else None.
    A candidate the learner cannot run as given (a point taken that is not misclassified, an end
    claim's run that does not converge) is no counterexample; with ``strict`` (the complete
    enumeration, whose "none in D" would otherwise rest on a candidate never evaluated) it is an
    error: the search and the learner disagree.  A run the search cut at ``params.max_updates``
    is cut there too (an end claim about runs stopped by budget)."""
    ds = from_rows("counterexample", [list(p) for p in points], list(labels))
    var = variant_of(params.variant)
    if tr is None:
        rec = MemoryTrace()
        try:
            train(ds, params, rec)
        except ParamError as e:
            if strict:
                raise NotRunnable(f"the search's run {params.order} is not one the learner makes: {e}") from None
            return None
        tr = rec.trace
    res = tr.end  # the run's summary
    if params.order != _sequence(path):  # a deterministic order: the learner's updates must be the search's
        taken = [int(v) for v in tr.i[np.searchsorted(tr.t, tr.upd_t)]][:len(path)]
        if taken != list(path):
            if strict:
                raise NotRunnable(f"the search's {params.order} run updates on {path}; the learner's on {taken}")
            return None
    cut = params.max_updates != Params.max_updates and res["updates"] == params.max_updates  # where the search's was
    ended = res["converged"] or res["stop"] == "sequence_end" or getattr(var, "stop", None) == "epochs"  # its own ends
    if claim.when == "end" and not ended and not cut:
        if strict:
            raise AssertionError(f"the search's run {params.order} converged; the learner's does not")
        return None
    if claim.when == "dataset":
        ctx = RunContext(ds, params, separator=separator)
        tallies: dict = {}
        evaluate_dataset_claims([claim], ctx, "counterexample", tallies)
        bad = None
    else:
        ctx, bad, tallies = replay(ds, tr, [claim], dataset_name="counterexample", separator=separator)
    if bad is not None:
        raise AssertionError(f"search produced an inconsistent trace: {bad}")
    t = tallies.get(claim.id)
    if t is None or t.not_applicable or t.violation is None:
        return None
    return Counterexample(tuple(tuple(Fraction(c) for c in p) for p in points), tuple(int(v) for v in labels),
                          tuple(int(v) for v in path), params, t.violation,
                          None if separator is None else (tuple(int(a) for a in separator[0]), Fraction(separator[1])),
                          res, cut, trace=tr)


def confirm_as(claim, ce: Counterexample) -> Counterexample | None:
    """The counterexample ``ce`` (of a search for another form of ``claim``: its premise read as
    an implication) evaluated with ``claim`` itself on the same run, so that what it shows is the
    claim's own violation (its sides, not the implication's parts); None when it does not fail so."""
    try:
        return confirm(claim, ce.points, ce.labels, ce.updates, ce.separator, ce.params, tr=ce.trace)
    except AssertionError:
        return None


def save_counterexample(claim, ce: Counterexample, out_dir) -> dict:
    """Write the counterexample as a dataset CSV and its trace; return the paths and the
    command that replays it."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, portable_name(claim.id))  # a claim id may hold a ':'
    ds = ce.dataset()
    data = base + ".csv"
    write_csv(ds, data)
    trace = base + ".trace.jsonl"
    train(ds, ce.params, open_writer(trace))
    sep = ce.separator
    cmd = check_command(claim, data, trace, sep and (sep[0], sep[1] if variant_of(ce.params.variant).bias else None))
    return {"data": data, "trace": trace, "replay": cmd}
