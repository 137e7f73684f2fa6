"""Claims that compare two runs (``when = "pair"``).

A pair claim names its run (variants, assumptions, orders like any run claim) and the partner
run by what changes: ``pair = "eta"`` (the same run with 2 eta), ``"arithmetic"`` (the same run
in float), ``"variant:NAME"`` (the same data, order and settings with another variant).  Its
``relation`` is checked on the two complete traces:

* ``same_mistakes``: the runs update on the same points in the same order (and both end);
* ``same_decisions``: the mistake flag agrees at every visit, and both runs make the same visits.

Both traces are written by the learner and the partner's is replayed against the data before
the comparison is believed, as the first one is by the audit.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from perceptron import MemoryTrace, ParamError, Params, train
from perceptron.declared import variant_of

__all__ = ["partner_params", "compare_runs", "pair_tally"]


def partner_params(claim, params: Params) -> Params | None:
    """The partner run of ``params`` for the pair claim, or None if it has none (e.g. a
    setting the other variant does not have)."""
    pair = claim.pair
    if pair == "eta":
        return replace(params, eta=params.eta * 2)
    if pair == "arithmetic":
        return replace(params, arithmetic="float") if params.arithmetic == "exact" else None
    other = pair.split(":", 1)[1]
    v = variant_of(other)
    if v.dual and (params.w0 is not None or params.b0 is not None):
        return None
    kw = {"variant": other}
    if v.tie is not None:
        kw["sign0"] = 0
    if not v.half_form:
        kw["form"] = "yx"
    if not v.dual:
        kw["kernel"] = "linear"  # the primal perceptron has no kernel
    if not (v.pocket or other == "slides"):
        kw["patience"] = None
    return replace(params, **kw)


def _mistake_points(trace) -> np.ndarray:
    return np.asarray(trace.i)[np.asarray(trace.mistake, dtype=bool)]


def compare_runs(claim, ds, params: Params, trace_a, res_a):
    """(holds, detail) for the claim on the run ``params`` (whose trace is ``trace_a``), or
    (None, reason) when the partner run does not exist or cannot be trusted."""
    from verify.replay.dispatch import replay

    pb = partner_params(claim, params)
    if pb is None:
        return None, f"no partner run for pair = {claim.pair} with these settings"
    rec = MemoryTrace()
    try:
        res_b = train(ds, pb, rec)
    except ParamError as e:
        return None, f"the partner run cannot be made: {e}"
    _, bad, _ = replay(ds, rec.trace, (), dataset_name=ds.name)
    if bad is not None:
        return None, f"the partner run's trace is inconsistent: {bad}"
    tb = rec.trace
    detail = {"partner": _describe(pb), "updates": [res_a.updates, res_b.updates]}
    if claim.relation == "same_mistakes":
        ma, mb = _mistake_points(trace_a), _mistake_points(tb)
        same = len(ma) == len(mb) and bool((ma == mb).all()) and res_a.converged == res_b.converged
        if not same:
            j = next((j for j in range(min(len(ma), len(mb))) if ma[j] != mb[j]), min(len(ma), len(mb)))
            detail.update({"first_difference_at_update": j + 1,
                           "points_updated": [ma[: j + 1].tolist(), mb[: j + 1].tolist()]})
        return same, detail
    fa, fb = np.asarray(trace_a.mistake, dtype=bool), np.asarray(tb.mistake, dtype=bool)
    same = len(fa) == len(fb) and bool((fa == fb).all())
    if not same:
        j = next((j for j in range(min(len(fa), len(fb))) if fa[j] != fb[j]), min(len(fa), len(fb)))
        detail.update({"first_difference_at_visit": j + 1})
    return same, detail


def _describe(p: Params) -> str:
    from perceptron._numbers import format_rational

    parts = [f"variant {p.variant}", f"order {p.order}", f"eta {format_rational(p.eta)}", p.arithmetic]
    if p.w0 is not None:
        parts.append("w0 (" + ", ".join(format_rational(v) for v in p.w0) + ")")
    return ", ".join(parts)


def pair_tally(claim, ds, ctx, trace):
    """A pair claim evaluated on one consistent trace (its first run), as `check` does: the
    partner run is made and replayed, the relation checked; a ClaimTally (not applicable, with
    the reason, where the claim does not apply or has no partner)."""
    from types import SimpleNamespace

    from verify.language.scalar import ClaimTally
    from verify.replay.dispatch import applicable

    why = applicable(claim, ctx, bool(trace.end.get("converged")), ds.name)
    if why:
        return ClaimTally(not_applicable=why)
    first = SimpleNamespace(updates=trace.end.get("updates"), converged=trace.end.get("converged"))
    holds, detail = compare_runs(claim, ds, ctx.params, trace, first)
    if holds is None:
        return ClaimTally(not_applicable=detail)
    return ClaimTally(evaluations=1, violation=None if holds else detail)
