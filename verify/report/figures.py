"""Pictures for the reports: figures as inline SVG with stable ids, the corpus runs the page draws, and a claim's 2-D search
counterexample (index.html and the annotated notes)."""

from __future__ import annotations

import json

__all__ = ["figure", "svg_of", "counterexample_figure", "unique_ids", "figures_of", "page_figures"]


def figure(**kw):
    """A new matplotlib Figure (no pyplot: no figure manager to close, no backend to choose;
    matplotlib is imported where a figure is drawn), with stable SVG ids and text as <text> (set in
    matplotlib's rcParams)."""
    import matplotlib
    from matplotlib.figure import Figure

    matplotlib.rcParams["svg.hashsalt"] = "proof-audit"  # stable ids: same results, same file
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as <text>: no glyph outlines repeated in every figure
    return Figure(**kw)


def svg_of(fig) -> str:
    import io

    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


def counterexample_figure(c) -> str | None:
    """The SVG picture of a claim's search counterexample when its points are 2-D, else None."""
    from verify.report.claim_text import search_counterexample

    ce = search_counterexample(c["evidence"])
    if ce is None or len(ce.points[0]) != 2:
        return None
    fig = figure(figsize=(4, 4))
    ax = fig.subplots()
    pts = [[float(t) for t in p] for p in ce.points]
    for p, y in zip(pts, ce.labels):
        ax.plot(p[0], p[1], "o" if y > 0 else "x", color="tab:blue" if y > 0 else "tab:red", markersize=9)
    ax.axhline(0, color="0.8")
    ax.axvline(0, color="0.8")
    if ce.separator:
        v, b0 = ce.separator[0], float(ce.separator[1])
        lim = max(3, max(abs(t) for p in pts for t in p) + 1)
        if v[1] != 0:
            xs = [-lim, lim]
            ax.plot(xs, [-(v[0] * x + b0) / v[1] for x in xs], "g-", label=f"separator v = {tuple(v)}")
        else:
            ax.axvline(-b0 / v[0], color="g", label=f"separator v = {tuple(v)}")
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        ax.legend(fontsize=7)
    ax.set_title(f"{c['id']}: updates {list(ce.updates)}", fontsize=9)
    ax.set_xlabel("x_1")
    ax.set_ylabel("x_2")
    ax.set_aspect("equal")
    return svg_of(fig)


def unique_ids(svg: str, prefix: str) -> str:
    """Prefix every id of one inline SVG (and its references): matplotlib numbers ids per figure,
    so several figures on one page would repeat them."""
    import re

    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if not ids:
        return svg

    def ref(m):
        return m.group(1) + (prefix + m.group(2) if m.group(2) in ids else m.group(2)) + m.group(3)

    svg = re.sub(r'(\bid=")([^"]+)(")', ref, svg)
    svg = re.sub(r'(href="#)([^"]+)(")', ref, svg)
    return re.sub(r"(url\(#)([^)]+)(\))", ref, svg)


def figures_of(plots: dict, documents) -> list[tuple[str, str]]:
    """The page's corpus plots from the corpus' plot data and the documents audited, as
    results.json will hold them (the data goes through JSON first): the audit renders them in a
    worker while the searches run."""
    return _corpus_figures(json.loads(json.dumps(plots)), set(documents))


def page_figures(results, corpus_figures=None) -> list[tuple[str, str]]:
    """Every plot of the page: the corpus' (``corpus_figures`` when rendered already), then a
    picture of each two-dimensional counterexample the search found."""
    if corpus_figures is None:
        corpus_figures = _corpus_figures(results["corpus"].get("plots") or {},
                                         {c["document"] for c in results["claims"]})
    return corpus_figures + _counterexample_figures(results["claims"])


def _corpus_figures(plots: dict, audited: set) -> list[tuple[str, str]]:
    figs = []
    for s in plots.get("series", []) if _NOTE_000 in audited else ():
        rows = s["rows"]
        if not rows:
            continue
        k = [r[0] for r in rows]
        fig = figure(figsize=(12, 3.2))
        ax = fig.subplots(1, 3)
        ax[0].plot(k, [r[1] for r in rows], "o-", label="w_opt . w_k")
        ax[0].plot(k, [r[2] for r in rows], "--", label="k gamma")
        ax[0].set_title("numerator (000, 4.1)")
        ax[1].plot(k, [r[3] for r in rows], "o-", label="|w_k|^2")
        ax[1].plot(k, [r[4] for r in rows], "--", label="k R^2")
        ax[1].set_title("denominator (000, 4.2)")
        ax[2].plot(k, [r[5] for r in rows], "o-", label="cos theta_k")
        ax[2].plot(k, [r[6] for r in rows], "--", label="sqrt(k) gamma / R")
        ax[2].set_title("angle (000, 4.3)")
        for a, ylab in zip(ax, ("w_opt . w_k  and  k gamma", "|w_k|^2  and  k R^2", "cos theta_k")):
            a.set_xlabel("k (updates)")
            a.set_ylabel(ylab)
            a.legend(fontsize=8)
        fig.suptitle(f"Rosenblatt, cyclic order, on {s['dataset']}: both sides of each bound along k", y=1.06)
        figs.append((f"Bounds along k: {s['dataset']}", svg_of(fig)))
    for s in plots.get("other", []):
        rows = s["rows"]
        note = _NOTE_001 if s["title"].startswith("001") else _NOTE_004 if s["title"].startswith("004") else None
        if not rows or note not in audited:
            continue
        k = [r[0] for r in rows]
        c = s["columns"]
        fig = figure(figsize=(8, 3.2))
        ax = fig.subplots(1, 2)
        ax[0].plot(k, [r[1] for r in rows], "o-", label=c[1])
        ax[0].plot(k, [r[2] for r in rows], "--", label=c[2])
        ax[0].set_title("lower bound")
        ax[1].plot(k, [r[3] for r in rows], "o-", label=c[3])
        ax[1].plot(k, [r[4] for r in rows], "--", label=c[4])
        ax[1].set_title("upper bound")
        for a_, cols in zip(ax, (c[1:3], c[3:5])):
            a_.set_xlabel("k (updates)")
            a_.set_ylabel("  and  ".join(cols))
            a_.legend(fontsize=8)
        fig.suptitle(f"{s['title']} on {s['dataset']}: both sides along k", y=1.06)
        figs.append((f"{s['title']}: {s['dataset']}", svg_of(fig)))
    b = plots.get("bounds", []) if _NOTE_000 in audited else []
    if b:
        fig = figure(figsize=(5, 4))
        ax = fig.subplots()
        xs = [max(p["bound"], 1e-3) for p in b]
        ys = [max(p["mistakes"], 0.5) for p in b]
        ax.loglog(xs, ys, "o", alpha=0.6)
        lim = [min(xs + ys), max(xs + ys)]
        ax.loglog(lim, lim, "k--", label="updates = R^2/gamma^2")
        ax.set_xlabel("R^2 / gamma^2 (certified gamma)")
        ax.set_ylabel("updates until convergence")
        ax.legend(fontsize=8)
        ax.set_title("Updates against the bound, whole corpus")
        figs.append(("Updates against the bound across the corpus", svg_of(fig)))
    return figs


def _counterexample_figures(claims) -> list[tuple[str, str]]:
    return [(f"Counterexample to {c['id']}", svg) for c in claims if (svg := counterexample_figure(c))]


#: The note each kind of plot illustrates: a plot is drawn only when the audit has claims of it.
_NOTE_000, _NOTE_001, _NOTE_004 = "000_498759e4a63d39ab.txt", "001_4bd9d34a28090ba4.txt", "004_aaffe0f0b005f89e.txt"
