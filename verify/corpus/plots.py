"""The runs the HTML page draws: both sides of a proof's inequalities along k, as floats rounded
for drawing only (every verdict is exact)."""

from __future__ import annotations

from verify.numbers import exact as X

__all__ = ["plot", "PLOTTED"]


def plot(plots, name, params, ctx, trace):
    """A run the page plots: Rosenblatt's mistakes against the bound, and two other variants."""
    if params.variant == "rosenblatt" and ctx.kind == "separable" and params.order == "cyclic" \
            and params.eta == 1 and params.w0 is None:
        _plot_data(plots, name, params, ctx, trace)
    elif (params.variant, name, params.order, params.eta, params.w0) in (
            ("novikoff", "separable-d3-bias", "cyclic", 1, None), ("unit", "unit-d3-g1_5", "cyclic", 1, None)) \
            and ctx.kind == "separable":
        _plot_other(plots, name, params, ctx, trace)


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
