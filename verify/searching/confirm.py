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
from verify.replay.dispatch import RunContext, evaluate_dataset_claims, replay

__all__ = ["confirm", "confirm_as", "save_counterexample", "NotRunnable"]


class NotRunnable(AssertionError):
    """The learner refuses a candidate run the search made (strict confirmation): the two
    disagree, or the run leaves what the learner computes exactly (an irrational step)."""


def confirm(claim, variant, points, labels, path, separator, sign0=0, *, eta=Fraction(1), w0=None, b0=None, form="yx",
            strict=False, declared=(), order="any", max_updates=None, ratchet=False, max_epochs=None, kernel="linear",
            degree=2, offset=Fraction(0)):
    """Replay a candidate exactly.  Returns the counterexample dict if the claim fails on it.
    A candidate the learner cannot run as given (a point taken that is not misclassified, an end
    claim's run that does not converge) is no counterexample; with ``strict`` (the complete
    enumeration, whose "none in D" would otherwise rest on a candidate never evaluated) it is an
    error: the search and the learner disagree.  ``max_updates``: the run is cut there, as the
    search's was (an end claim about runs stopped by budget); ``max_epochs``: the epochs a
    declaration that always runs them (stop = "epochs") runs in the search; ``kernel``,
    ``degree``, ``offset``: the kernel perceptron's kernel."""
    ds = from_rows("counterexample", points, labels)
    var = variant_of(variant)
    run_order = order if order != "any" else "sequence:" + ",".join(map(str, path))
    params = Params(variant=variant, order=run_order, sign0=sign0 if var.tie is None else 0,
                    eta=Fraction(eta), w0=w0, b0=b0, form=form if var.half_form else "yx", declared=tuple(declared),
                    ratchet=bool(ratchet and var.pocket),
                    **({"max_updates": max_updates} if max_updates is not None else {}),
                    **({"max_epochs": max_epochs} if max_epochs is not None else {}),
                    **({"kernel": kernel, "degree": degree, "offset": Fraction(offset)} if kernel != "linear" else {}))
    rec = MemoryTrace()
    try:
        res = train(ds, params, rec)
    except ParamError as e:
        if strict:
            raise NotRunnable(f"the search's run {params.order} is not one the learner makes: {e}") from None
        return None
    if run_order == order:  # a deterministic order: the learner's updates must be the search's
        tr = rec.trace
        taken = [int(v) for v in tr.i[np.searchsorted(tr.t, tr.upd_t)]][:len(path)]
        if taken != list(path):
            if strict:
                raise NotRunnable(f"the search's {order} run updates on {path}; the learner's on {taken}")
            return None
    cut = max_updates is not None and res.updates == max_updates  # cut where the search's run was
    ended = res.converged or res.stop == "sequence_end" or getattr(var, "stop", None) == "epochs"  # its own ends
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
        ctx, bad, tallies = replay(ds, rec.trace, [claim], dataset_name="counterexample", separator=separator)
    if bad is not None:
        raise AssertionError(f"search produced an inconsistent trace: {bad}")
    t = tallies.get(claim.id)
    if t is None or t.not_applicable or t.violation is None:
        return None
    from perceptron._numbers import format_rational as fr

    return {"points": [[fr(Fraction(c)) for c in p] for p in points], "labels": [int(v) for v in labels],
            "updates": path, "separator": None if separator is None else {"v": [int(a) for a in separator[0]], "b": fr(Fraction(separator[1]))},
            "violation": t.violation, "variant": variant, "order": params.order, "summary": res.summary(),
            "params": {"eta": fr(params.eta), "w0": None if w0 is None else [fr(v) for v in w0], "ratchet": params.ratchet,
                       "b0": None if b0 is None else fr(b0), "sign0": params.sign0, "form": params.form,
                       **({"max_updates": max_updates} if max_updates is not None else {}),
                       **({"max_epochs": max_epochs} if max_epochs is not None else {}),
                       **({"kernel": kernel, "degree": degree, "offset": fr(Fraction(offset))} if kernel != "linear" else {}),
                       **({"declared": {k: fr(v) for k, v in params.declared}} if params.declared else {})}}


def confirm_as(claim, ce) -> dict | None:
    """The counterexample ``ce`` (of a search for another form of ``claim``: its premise read as
    an implication) replayed with ``claim`` itself, so that what it shows is the claim's own
    violation (its sides, not the implication's parts); None when it does not replay so."""
    sep = ce.get("separator")
    try:
        return confirm(claim, ce["variant"], ce["points"], ce["labels"], ce["updates"],
                       None if sep is None else (sep["v"], Fraction(sep["b"])), order=ce["order"], **_settings_of(ce))
    except (AssertionError, KeyError, TypeError, ValueError):
        return None


def _settings_of(ce) -> dict:
    """A counterexample's run setting (its "params", as confirm writes them) as keyword
    arguments of Params (and of confirm): what is not recorded takes the default."""
    pr = ce.get("params") or {}
    out = {"eta": Fraction(pr.get("eta", "1")), "w0": None if pr.get("w0") is None else tuple(Fraction(v) for v in pr["w0"]),
           "b0": None if pr.get("b0") is None else Fraction(pr["b0"]), "sign0": pr.get("sign0", 0),
           "form": pr.get("form", "yx"), "ratchet": bool(pr.get("ratchet", False)),
           "declared": tuple((k, Fraction(v)) for k, v in sorted((pr.get("declared") or {}).items()))}
    out.update({k: pr[k] for k in ("max_updates", "max_epochs") if pr.get(k) is not None})
    if "kernel" in pr:
        out.update({"kernel": pr["kernel"], "degree": pr["degree"], "offset": Fraction(pr["offset"])})
    return out


def save_counterexample(claim, ce, out_dir) -> dict:
    """Write the counterexample as a dataset CSV and its trace; return the paths and the
    command that replays it."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, portable_name(claim.id))  # a claim id may hold a ':'
    ds = from_rows("counterexample", ce["points"], ce["labels"])
    data = base + ".csv"
    write_csv(ds, data)
    trace = base + ".trace.jsonl"
    train(ds, Params(variant=ce["variant"], order=ce["order"], **_settings_of(ce)), open_writer(trace))
    sep = ce["separator"]
    cmd = check_command(claim, data, trace, sep and (sep["v"], sep["b"] if variant_of(ce["variant"]).bias else None))
    return {"data": data, "trace": trace, "replay": cmd}
