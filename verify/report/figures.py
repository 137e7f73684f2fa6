"""Pictures for the reports: figures as inline SVG with stable ids, and a claim's 2-D search
counterexample (index.html and the annotated notes)."""

from __future__ import annotations

__all__ = ["pyplot", "svg_of", "counterexample_figure", "unique_ids"]


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "proof-audit"  # stable ids: same results, same file
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as <text>: no glyph outlines repeated in every figure
    return plt


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
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4, 4))
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
    svg = svg_of(fig)
    plt.close(fig)
    return svg


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
