"""Claims that compare two runs (``when = "pair"``).

A pair claim names its run (variants, assumptions, orders like any run claim) and the partner
run by what changes: ``pair = "eta"`` (the same run with 2 eta), ``"arithmetic"`` (the same run
in float), ``"variant:NAME"`` (the same data, order and settings with another variant), and the
transformations with a factor c, which the audit varies over PAIR_C: ``"eta:c"`` (c eta),
``"scale:c"`` (the data c x), ``"translate:c"`` (the data x + c, every coordinate), ``"w0:c"``
(from c w0); ``"flip"`` negates every label, ``"reverse"`` reverses the points' order and
``"order:NAME"`` runs another order on the same data.  Either a
``relation`` is checked on the two complete traces:

* ``same_mistakes``: the runs update on the same points in the same order (and both end);
* ``same_decisions``: the mistake flag agrees at every visit, and both runs make the same visits;

or an ``expr`` on both runs' ends, exactly: the first run's names as in any end claim, the
partner's as ``other_w``, ``other_b``, ``other_mistakes``, ``other_epochs``, ``other_converged``,
and ``c`` (e.g. "other_mistakes == mistakes and other_w == c*w" for ``pair = "eta:c"``); with
``at = "update"`` the expr is evaluated after each update both runs made (the k-th beside the
k-th: ``w``, ``b``, ``k``, ``other_w``, ``other_b`` are those after it).

Both traces are written by the learner and the partner's is replayed against the data before
the comparison is believed, as the first one is by the audit.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from perceptron import MemoryTrace, ParamError, Params, train
from perceptron.declared import variant_of
from verify.language.quantifiers import PAIR_C
from verify.language.violation import Violation

__all__ = ["partner_params", "partner_data", "compare_runs", "pair_tally"]



def partner_data(claim, ds, c):
    """The partner run's dataset (the same one unless the pair transforms the data), or None
    when the transformation has no exact form (a dataset of binary floats)."""
    from perceptron.datasets import from_rows

    pair = claim.pair
    if pair not in ("scale:c", "translate:c", "flip", "reverse"):
        return ds
    if ds.X_num is None:
        return None
    rows = [[Fraction(int(v), ds.den) for v in row] for row in ds.X_num]
    labels = [int(v) for v in ds.y]
    if pair == "scale:c":
        rows, what = [[v * c for v in row] for row in rows], f"scaled by {c}"
    elif pair == "translate:c":
        rows, what = [[v + c for v in row] for row in rows], f"translated by {c}"
    elif pair == "flip":
        labels, what = [-v for v in labels], "labels flipped"
    else:
        rows, labels, what = rows[::-1], labels[::-1], "points reversed"
    return from_rows(f"{ds.name} ({what})", rows, labels)


def partner_params(claim, params: Params, c=None) -> Params | None:
    """The partner run of ``params`` for the pair claim, or None if it has none (e.g. a
    setting the other variant does not have)."""
    pair = claim.pair
    if pair == "eta":
        return replace(params, eta=params.eta * 2)
    if pair == "eta:c":
        return replace(params, eta=params.eta * c)
    if pair == "w0:c":
        if params.w0 is None:
            return params  # c 0 = 0: the same run
        return replace(params, w0=tuple(v * c for v in params.w0), b0=None if params.b0 is None else params.b0 * c)
    if pair in ("scale:c", "translate:c", "flip", "reverse"):
        return params
    if pair.startswith("order:"):
        return replace(params, order=pair[6:])
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
    if not v.patience:
        kw["patience"] = None
    return replace(params, **kw)


def _mistake_points(trace) -> np.ndarray:
    return np.asarray(trace.i)[np.asarray(trace.mistake, dtype=bool)]


def _partner(claim, ds, params, c, replayed=True):
    """(dataset, params, result, trace) of the partner run, replayed (unless ``replayed`` is
    False: a search's screen, which replays whatever it reports); or (None, reason)."""
    from verify.replay.dispatch import replay

    pb = partner_params(claim, params, c)
    db = partner_data(claim, ds, c)
    if pb is None or db is None:
        return None, f"no partner run for pair = {claim.pair} with these settings"
    rec = MemoryTrace()
    try:
        res_b = train(db, pb, rec)
    except ParamError as e:
        return None, f"the partner run cannot be made: {e}"
    _, bad, _ = replay(db, rec.trace, (), dataset_name=db.name) if replayed else (None, None, None)
    if bad is not None:
        return None, f"the partner run's trace is inconsistent: {bad}"
    return (db, pb, res_b, rec.trace), None


def _end_values(trace) -> dict:
    """A run's values at its end, exactly, from its (replayed) trace."""
    from verify.numbers import exact as X

    e = trace.end

    def exact(v):  # a float run's values are the binary rationals it stored, not their printed decimals
        return Fraction(v) if isinstance(v, float) else Fraction(str(v))

    return {"w": X.vec_from_fractions([exact(v) for v in e["w"]]) if e.get("w") is not None else None,
            "b": exact(e.get("b") or 0), "mistakes": Fraction(e["updates"]), "k": Fraction(e["updates"]),
            "epochs": Fraction(e["epochs"]), "converged": Fraction(1 if e["converged"] else 0)}


def _compare_expr(claim, ds, params, trace_a, ctx, replayed=True):
    """A pair claim's expr on both runs' ends, for every c of PAIR_C (or once): (holds, detail)."""
    from verify.language.expr import EvalError, evaluate
    from verify.language.scalar import Env, sides
    from verify.replay.dispatch import budget_cut

    mine = _end_values(trace_a)
    cs = PAIR_C if claim.pair.endswith(":c") else (None,)
    seen = []
    for c in cs:
        got, why = _partner(claim, ds, params, c, replayed)
        if got is None:
            return None, why
        db, pb, res_b, tb = got
        if claim.pair_at == "end" and (budget_cut(params, trace_a.end.get("stop")) or budget_cut(pb, res_b.stop)):
            return None, _CUT  # the ends of two runs, one of which has not ended
        vals = {**{k: v for k, v in mine.items() if v is not None},
                **{f"other_{k}": v for k, v in _end_values(tb).items() if v is not None and k != "k"}}
        if c is not None:
            vals["c"] = c
        steps = _aligned(trace_a, tb) if claim.pair_at == "update" else [{}]
        if isinstance(steps, str):
            return None, steps
        for at in steps:  # the ends, or each aligned update (w, b, k of both runs after it)
            env = Env(ctx, {**vals, **at})
            try:
                ok = evaluate(claim.compiled.tree, env)
            except (KeyError, LookupError, EvalError, ArithmeticError) as e:
                return None, f"a quantity the pair expression names is not defined here ({e})"
            if not ok:
                detail = {"partner": _describe(pb, db if db is not ds else None), **sides(claim.compiled.tree, env)}
                if at:
                    detail["at_update"] = int(at["k"])
                if c is not None:
                    detail["c"] = str(c)
                return False, Violation(detail)
        seen.append(c)
    return True, {"c": [str(c) for c in seen if c is not None]}


def _aligned(trace_a, trace_b):
    """[{w, b, k, other_w, other_b}] after each update both runs made (the k-th beside the k-th),
    exactly; or why there are none (a dual trace records alpha, not w)."""
    from verify.numbers import exact as X

    if trace_a.header.get("dual") or trace_b.header.get("dual"):
        return "aligned updates need both runs' weights; a dual (kernel) trace records alpha instead"

    def exact(v):
        return Fraction(v) if isinstance(v, float) else Fraction(v)

    out = []
    for u in range(min(len(trace_a.upd_t), len(trace_b.upd_t))):
        (wa, ba), (wb, bb) = trace_a.weights_after(u), trace_b.weights_after(u)
        out.append({"w": X.vec_from_fractions([exact(v) for v in wa]), "b": exact(ba or 0), "k": Fraction(u + 1),
                    "other_w": X.vec_from_fractions([exact(v) for v in wb]), "other_b": exact(bb or 0)})
    return out


def compare_runs(claim, ds, params: Params, trace_a, res_a, ctx=None, replayed=True):
    """(holds, detail) for the claim on the run ``params`` (whose trace is ``trace_a``), or
    (None, reason) when the partner run does not exist or cannot be trusted.  A pair with a
    factor is compared at every c of PAIR_C; the detail lists the c compared (or names the one
    that fails)."""
    from verify.replay.dispatch import budget_cut

    if claim.relation is None:
        return _compare_expr(claim, ds, params, trace_a, ctx, replayed)
    cs = PAIR_C if claim.pair.endswith(":c") else (None,)
    for c in cs:
        got, why = _partner(claim, ds, params, c, replayed)
        if got is None:
            return None, why
        cut = budget_cut(params, trace_a.end.get("stop")) or budget_cut(got[1], got[2].stop)
        same, detail = _related(claim, ds, trace_a, res_a, *got)
        within_both = detail.pop("within_both", False)
        if c is not None:
            detail["c"] = str(c)
        if cut and (same or not within_both):
            # the same through the budget only, or a difference past the end of a run the budget
            # cut: the budget's, not the runs'.  A difference within both runs still refutes.
            return None, _CUT
        if not same:
            return False, Violation(detail)
    return True, {"c": [str(c) for c in cs if c is not None]}


#: Why a pair relation is not decided when a run was cut by its budget.
_CUT = ("a run of the pair was cut by its budget and has not ended: the relation of two whole runs is "
        "undecided (a difference within both runs would still refute it)")


def _related(claim, ds, trace_a, res_a, db, pb, res_b, tb):
    """(holds, detail) of the claim's relation between the two runs."""
    detail = {"partner": _describe(pb, db if db is not ds else None), "updates": [res_a.updates, res_b.updates]}
    if claim.relation == "same_mistakes":
        ma, mb = _mistake_points(trace_a), _mistake_points(tb)
        same = len(ma) == len(mb) and bool((ma == mb).all()) and res_a.converged == res_b.converged
        if not same:
            j = next((j for j in range(min(len(ma), len(mb))) if ma[j] != mb[j]), min(len(ma), len(mb)))
            detail.update({"first_difference_at_update": j + 1, "within_both": j < min(len(ma), len(mb)),
                           "points_updated": [ma[: j + 1].tolist(), mb[: j + 1].tolist()]})
        return same, detail
    fa, fb = np.asarray(trace_a.mistake, dtype=bool), np.asarray(tb.mistake, dtype=bool)
    same = len(fa) == len(fb) and bool((fa == fb).all())
    if not same:
        j = next((j for j in range(min(len(fa), len(fb))) if fa[j] != fb[j]), min(len(fa), len(fb)))
        detail.update({"first_difference_at_visit": j + 1, "within_both": j < min(len(fa), len(fb))})
    return same, detail


def _describe(p: Params, data=None) -> str:
    from perceptron._numbers import format_rational

    parts = ([f"data {data.name}"] if data is not None else []) + [
        f"variant {p.variant}", f"order {p.order}", f"eta {format_rational(p.eta)}", p.arithmetic]
    if p.w0 is not None:
        parts.append("w0 (" + ", ".join(format_rational(v) for v in p.w0) + ")")
    return ", ".join(parts)


def pair_tally(claim, ds, ctx, trace, replayed=True):
    """A pair claim evaluated on one consistent trace (its first run), as `check` does: the
    partner run is made and replayed, the relation checked; a ClaimTally (not applicable, with
    the reason, where the claim does not apply or has no partner)."""
    from types import SimpleNamespace

    from verify.language.scalar import ClaimTally
    from verify.replay.dispatch import applicable

    why = applicable(claim, ctx, bool(trace.end.get("converged")), ds.name)
    if why:
        return ClaimTally(not_applicable=why)
    if getattr(trace, "checkpoints", False):
        return ClaimTally(not_applicable="a pair claim compares two runs visit by visit and update by update; a "
                                         "checkpoint trace keeps neither (record visits to compare runs)")
    first = SimpleNamespace(updates=trace.end.get("updates"), converged=trace.end.get("converged"))
    holds, detail = compare_runs(claim, ds, ctx.params, trace, first, ctx, replayed)
    if holds is None:
        return ClaimTally(not_applicable=detail)
    return ClaimTally(evaluations=1, violation=None if holds else detail)
