"""The Hypothesis engine: random datasets and update choices, shrunk towards small ones.  It
can refute (every candidate is replayed by verify.searching.confirm), never conclude "none"."""

from __future__ import annotations

import time
from fractions import Fraction

from perceptron.variants import VARIANTS
from verify.searching.confirm import candidate_run, confirm
from verify.searching.domain import (
    UNIT_DENOMINATOR,
    Domain,
    best_separator,
    needs_separator,
    unit_points,
)

__all__ = ["hypothesis_search"]


def _separator(claim, dom, var, pts, labels, fr, L) -> tuple:
    """(whether the candidate has the separator the claim needs, that separator or None): the
    domain's widest integer one, or (any separator will do) a certified one."""
    from verify.certify.certificates import certify_points

    if not needs_separator(claim):
        return True, None
    if dom.separators == "best":
        got = best_separator(pts, labels, dom, var.bias is not None, L)
        return (False, None) if got is None else (True, (got[0], Fraction(got[1], L)))
    cert = certify_points(fr, labels, bias=var.bias is not None)
    if cert.kind != "separable":
        return False, None
    den = cert.c.denominator  # the certified integer separator, its bias scaled to an integer with it
    return True, ([int(a) * den for a in cert.v], int(cert.c * den))


def hypothesis_search(claim, dom: Domain, deadline, examples=300):
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    var = VARIANTS[dom.variant]
    run_settings = dom.settings()
    found = {}
    pool = unit_points(dom.dim) if dom.unit else None
    L = UNIT_DENOMINATOR if dom.unit else 1

    @st.composite
    def candidates(draw):
        n = draw(st.integers(1, dom.points))
        if pool is not None:
            pts = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        else:
            pts = draw(st.lists(st.lists(st.integers(-dom.box, dom.box), min_size=dom.dim, max_size=dom.dim), min_size=n, max_size=n))
        labels = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
        choices = draw(st.lists(st.integers(0, 10**6), min_size=0, max_size=dom.max_updates))
        setting = draw(st.sampled_from(run_settings))
        w0 = draw(st.lists(st.integers(-dom.w0_box, dom.w0_box), min_size=dom.dim, max_size=dom.dim))
        b0 = draw(st.integers(-dom.w0_box, dom.w0_box)) if var.bias else 0
        return pts, labels, choices, setting, w0, b0

    def violates(c):
        if time.monotonic() > deadline:
            return False
        pts, labels, choices, (eta, sign0, form), w0, b0 = c
        tie = var.tie if var.tie is not None else sign0
        # build a run: at each step take the chosen misclassified point
        fr = [[Fraction(v, L) for v in p] for p in pts]
        if dom.order.startswith("random:"):  # the learner draws its own permutations: confirm runs that order
            choices = []
        w = [Fraction(v) for v in w0]
        b = Fraction(b0)
        b_scale = var.bias_scale(lambda: max(sum(v * v for v in p) for p in fr), 1) or 0  # b += coef * this
        path = []
        pos = 0  # cyclic: where the pass through the data resumes
        for ch in choices:
            mis = []
            for i, (p, yv) in enumerate(zip(fr, labels)):
                s = sum(a * c for a, c in zip(w, p)) + (b if var.bias else 0)
                o = 1 if s > 0 else -1 if s < 0 else tie
                if o != yv:
                    mis.append((i, o))
            if not mis:
                break
            if dom.order == "any":
                i, o = mis[ch % len(mis)]
            elif dom.order == "cyclic":  # the first mistake at or after pos
                i, o = min(mis, key=lambda m: (m[0] - pos) % len(fr))
            else:
                i, o = mis[0]
            pos = (i + 1) % len(fr)
            path.append(i)
            coef = eta * labels[i] if form == "yx" or not var.half_form else eta * Fraction(labels[i] - o, 2)
            w = [a + coef * c for a, c in zip(w, fr[i])]
            b += coef * b_scale
        ok, sep = _separator(claim, dom, var, pts, labels, fr, L)
        if not ok:
            return False
        nz = any(w0) or b0
        run = candidate_run(dom.variant, path, dom.order, sign0=tie, eta=eta, form=form,
                            w0=tuple(Fraction(v) for v in w0) if nz else None, b0=Fraction(b0) if nz and var.bias else None)
        ce = confirm(claim, fr, labels, path, sep, run)
        if ce is not None:
            found["ce"] = ce
            return True
        return False

    try:
        best = find(candidates(), violates, settings=settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                                                              suppress_health_check=list(HealthCheck),
                                                              phases=[Phase.generate, Phase.shrink]))
    except NoSuchExample:
        return None
    violates(best)
    return found.get("ce")
