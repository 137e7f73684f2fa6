"""Issue 36, part 2: "the best separator" of a perceptron with a bias of its own is the
maximum-margin hyperplane (v, c), |v| = 1, computed and certified exactly, the same in the
corpus, `check` and the search; with one class it does not exist, and a claim reading gamma
there does not apply (it is not evaluated at a separator taken from a box)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np

from perceptron import Params, from_rows
from verify.certify.certificates import certify_points
from verify.certify.widest import ONE_CLASS, missing_widest, widest
from verify.language.claims import load_claims
from verify.numbers import exact as X
from verify.replay.dispatch import RunContext, applicable
from verify.searching import Domain, search
from verify.searching.domain import choose_separators, separators

CLAIMS = '''
[document]
file = "n.md"
title = "t"

[[claim]]
id = "nov:bound"
section = "Theorem"
statement = "the perceptron with a bias makes at most (R/gamma)^2 mistakes"
expr = "mistakes <= (R/gamma)**2"
variants = ["novikoff"]
separator = "max-margin"
assume = ["separable"]
when = "end"
expect = "holds"
'''


def _claim(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(CLAIMS)
    (tmp_path / "n.md").write_text("# n\n")
    return load_claims(str(p)).claims[0]


def test_the_biased_separator_is_the_maximum_margin_exactly():
    """gamma_lo = gamma_hi exactly, and no separator of a fine integer box does better."""
    rng = random.Random(36)
    V, C = separators(2, 8, True)
    checked = 0
    for _ in range(60):
        n = rng.randint(2, 5)
        pts = [[rng.randint(-3, 3), rng.randint(-3, 3)] for _ in range(n)]
        ys = [rng.choice([1, -1]) for _ in range(n)]
        if len(set(ys)) < 2:
            continue
        cert = certify_points(pts, ys, bias=True)
        if cert.kind != "separable":
            continue
        checked += 1
        assert "exact" in cert.method and X.compare(cert.gamma, cert.gamma_hi) == 0, cert.method
        # |w_opt| = 1 and the margin of (w_opt, b_opt) is gamma, exactly
        assert X.compare(X.vdot(cert.w_opt, cert.w_opt), 1) == 0
        margins = [X.mul(y, X.add(X.vdot(cert.w_opt, X.vec_from_fractions(p)), cert.b_opt)) for p, y in zip(pts, ys)]
        assert X.compare(min(margins, key=X.to_float), cert.gamma) == 0
        mi, si, m = choose_separators(np.array([pts]), np.array([ys]), V, C, "best")
        if len(mi):  # the box's widest is no wider than the maximum margin
            box = Fraction(int(m[0])) ** 2 / int((V[si[0]] ** 2).sum())
            assert box <= X.to_float(X.mul(cert.gamma, cert.gamma)) + 1e-12
    assert checked >= 20


def test_widest_solves_small_supports_without_a_hint():
    w, b, alpha = widest([[Fraction(-1), Fraction(0)], [Fraction(1), Fraction(0)], [Fraction(3), Fraction(1)]],
                         [-1, 1, 1], True)
    assert (w, b) == ([1, 0], 0) and alpha[2] == 0
    assert widest([[Fraction(1)], [Fraction(2)]], [1, 1], True) is None  # one class: none


def test_one_class_with_a_bias_has_no_widest_separator(tmp_path):
    """The bug: the search took a box separator on a one-point dataset and refuted the
    Novikoff bound there; `check` with the certified one said 'holds'.  Now neither evaluates it."""
    c = _claim(tmp_path)
    ds = from_rows("one", [[-1]], [-1])
    ctx = RunContext(ds, Params(variant="novikoff"))
    assert ctx.kind == "separable" and "gamma" not in ctx.consts and ctx.no_widest == ONE_CLASS
    assert applicable(c, ctx, True, "one") is not None  # not evaluated at any separator
    assert missing_widest(c, ctx) == f"gamma is undefined here: {ONE_CLASS}"
    assert "every point has the same label" in missing_widest(c, ctx)
    res = search(c, Domain(points=1, dim=1, box=2, variant="novikoff"), engine="enumerate", timeout=60)
    assert res.verdict.label != "refuted", res.to_json()


def test_search_and_check_use_the_same_exact_separator(tmp_path):
    c = _claim(tmp_path)
    res = search(c, Domain(points=2, dim=1, box=2, variant="novikoff"), engine="enumerate", timeout=60)
    assert res.verdict.label == "refuted"
    ce = res.counterexample.to_json()
    pts = [[Fraction(v) for v in p] for p in ce["points"]]
    cert = certify_points(pts, ce["labels"], bias=True)
    assert X.compare(cert.gamma, cert.gamma_hi) == 0
    sv, sc = [Fraction(a) for a in ce["separator"]["v"]], Fraction(ce["separator"]["b"])
    k = Fraction(cert.v[0]) / sv[0]  # the same hyperplane: (v, c) a positive multiple of the certificate's
    assert k > 0 and [a * k for a in sv] == [Fraction(a) for a in cert.v] and sc * k == cert.c
    # check's replay with the certified separator (no --separator) refutes it too, with the same sides
    ds = from_rows("ce", pts, ce["labels"])
    from perceptron import MemoryTrace, train
    from verify.replay.dispatch import replay

    rec = MemoryTrace()
    train(ds, Params(variant="novikoff", order=ce["order"]), rec)
    for sep in (None, (ce["separator"]["v"], sc)):
        _, bad, tallies = replay(ds, rec.trace, [c], dataset_name="ce", separator=sep)
        assert bad is None and tallies[c.id].violation is not None


def test_box_separators_are_still_searched_without_a_bias():
    """The variants without a bias keep the box's widest integer separator (unchanged)."""
    V, C = separators(1, 3, False)
    mi, si, _ = choose_separators(np.array([[[1], [-2]]]), np.array([[1, -1]]), V, C, "best")
    assert len(mi) == 1 and list(itertools.chain(V[si[0]])) == [1]
