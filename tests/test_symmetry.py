"""The search takes one dataset of each orbit of the grid's rotations and reflections (issue 38:
more scope for the same budget) only when the claim cannot tell the datasets of an orbit apart.
Oracle: the same search without the reduction (every dataset), on true and false claims, and a
claim that reads a coordinate, which must be searched whole."""

import textwrap

import numpy as np
import pytest

import verify.searching.enumeration as enumeration
import verify.searching.shards as shards
from verify.language.claims import load_claims
from verify.searching import search
from verify.searching.domain import Domain, point_list, symmetries
from verify.searching.orbits import canonical, rotation_symmetric
from verify.verdicts import Verdict

CLAIMS = """
[document]
file = "sym.md"

[[claim]]
id = "sym.bound"
section = "s"
statement = "the mistake bound"
expr = "mistakes <= R2/gamma**2"
when = "end"
variants = ["rosenblatt"]
assume = ["separable", "w0_zero"]
expect = "holds"

[[claim]]
id = "sym.wrong-bound"
section = "s"
statement = "a wrong bound"
expr = "mistakes <= R/gamma"
when = "end"
variants = ["rosenblatt"]
assume = ["separable", "w0_zero"]
expect = "refuted"

[[claim]]
id = "sym.growth"
section = "s"
statement = "|w| grows at every update"
expr = "norm2(w) > norm2(prev(w))"
when = "update"
variants = ["rosenblatt"]
expect = "refuted"

[[claim]]
id = "sym.norm-step"
section = "s"
statement = "|w|^2 grows by at most eta^2 R^2 an update, from any w0"
expr = "norm2(w) <= norm2(prev(w)) + eta*eta*R2"
when = "update"
variants = ["rosenblatt"]
expect = "holds"

[[claim]]
id = "sym.first-coordinate"
section = "s"
statement = "the first weight ends non-negative (false: it depends on which way the data points)"
expr = "dot(w, vec(1, 0)) >= 0"
when = "end"
variants = ["rosenblatt"]
assume = ["w0_zero"]
expect = "refuted"
"""

DOM = Domain(points=2, dim=2, box=2, max_updates=6, separators="every", sep_box=3)


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    p = tmp_path_factory.mktemp("sym") / "sym.toml"
    p.write_text(textwrap.dedent(CLAIMS))
    return {c.id: c for c in load_claims(str(p)).claims}


def test_the_orbits_cover_every_dataset_once():
    """Each dataset of 2 points of [-2, 2]^2 (as sets and as sequences) has exactly one canonical
    member in its orbit under the 8 signed permutations."""
    maps = symmetries(2, 2, False)
    assert len(maps) == 7
    P, _ = point_list(2, 2, False)
    for ordered in (False, True):
        rows = np.array([(a, b) for a in range(len(P)) for b in range(len(P)) if ordered or a <= b], dtype=np.int64)
        keep = canonical(rows, maps, ordered)
        reps = {tuple(int(v) for v in r) for r in rows[keep]}
        full = (np.arange(len(P), dtype=np.int64),) + maps
        for r in rows:  # the orbit of every dataset meets the representatives exactly once
            orbit = {tuple(int(v) for v in (sorted(m[r]) if not ordered else m[r])) for m in full}
            assert len(orbit & reps) == 1
        assert len(reps) < len(rows) / 4


def _reduced_and_whole(claim, dom, monkeypatch):
    """The search of one dataset of each orbit, and of every dataset: the same verdict, and (where
    the whole domain was searched) a quarter of the candidates or fewer."""
    assert rotation_symmetric(claim, dom)
    reduced = search(claim, dom, engine="enumerate", timeout=120)
    with monkeypatch.context() as m:
        m.setattr(enumeration, "rotation_symmetric", lambda c, d: False)
        m.setattr(shards, "_CACHE", {})  # (a worker keeps the enumerator of its last search's domain)
        whole = search(claim, dom, engine="enumerate", timeout=120)
    assert reduced.verdict == whole.verdict, claim.id
    if reduced.verdict != Verdict.REFUTED:
        assert reduced.checked * 4 < whole.checked, (claim.id, reduced.checked, whole.checked)
    return reduced


def test_the_same_verdicts_with_fewer_candidates(claims, monkeypatch):
    for cid in ("sym.bound", "sym.wrong-bound", "sym.growth"):
        reduced = _reduced_and_whole(claims[cid], DOM, monkeypatch)
        want = Verdict.REFUTED if claims[cid].expect == "refuted" else Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
        assert reduced.verdict == want, (cid, reduced.to_json())


def test_points_of_the_unit_circle_take_orbits_too(claims, monkeypatch):
    """The rational points of the unit circle (denominator 65) are mapped onto each other by the
    rotations and reflections: the same verdicts, on a quarter of the candidates or fewer."""
    unit = Domain(points=2, dim=2, box=1, max_updates=4, unit=True)
    for cid, want in (("sym.growth", Verdict.REFUTED), ("sym.norm-step", Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN)):
        reduced = _reduced_and_whole(claims[cid], unit, monkeypatch)
        assert reduced.verdict == want and "rotations or reflections" in reduced.to_json()["domain"]["text"]


def test_in_the_audits_domain_a_claim_that_reads_no_separator_is_reduced(claims, monkeypatch):
    """The audit's domain takes one separator of each dataset ("best"), whose ties need not map
    onto each other: a claim that reads it is searched whole, one that reads no separator is
    reduced to one dataset of each orbit, with the same verdicts."""
    best = Domain(points=2, dim=2, box=2, max_updates=6, sep_box=3)
    assert best.separators == "best" and not rotation_symmetric(claims["sym.bound"], best)
    for cid in ("sym.growth", "sym.norm-step"):
        reduced = _reduced_and_whole(claims[cid], best, monkeypatch)
        assert "rotations or reflections" in reduced.to_json()["domain"]["text"]
    assert reduced.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
    # the walks of a declared variant's or the learner's runs keep it whole (their budget counts an
    # end claim's evaluations, not the states walked: verify.searching.orbits.rotation_symmetric)
    assert not rotation_symmetric(claims["sym.norm-step"], best, without_separator=False)


def test_a_claim_that_reads_a_coordinate_is_searched_whole(claims):
    c = claims["sym.first-coordinate"]
    assert not rotation_symmetric(c, DOM)
    assert search(c, DOM, engine="enumerate", timeout=120).verdict == Verdict.REFUTED


def test_a_declared_variant_is_reduced_only_when_it_reads_no_coordinate(tmp_path):
    """The learner's searches (declared variants, any kernel) take one dataset of each orbit too, but
    only for a declaration whose expressions name no coordinate: one that pushes w along (1, 0) is not."""
    import os

    from perceptron.declared import load_variants
    from verify.searching.orbits import equivariant

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    load_variants(os.path.join(root, "examples", "variants", "margin.toml"))
    p = tmp_path / "drift.toml"
    p.write_text('[variants.drift]\nnote = "a drift along the first axis"\nstate = { w = "w0" }\n'
                 'score = "dot(w, x)"\nmistake = "y * score <= 0"\nupdate = { w = "w + eta * y * x + vec(1, 0)" }\n'
                 'orders = ["cyclic"]\nstop = "converged"\n')
    load_variants(str(p))
    assert equivariant("margin") and equivariant("rosenblatt") and not equivariant("drift")


PAIRS = """
[document]
file = "pairs.md"

[[claim]]
id = "p.eta"
section = "s"
statement = "from w0 = 0 the learning rate does not change the mistakes"
when = "pair"
pair = "eta:c"
variants = ["rosenblatt"]
assume = ["w0_zero"]
expr = "other_mistakes == mistakes"
expect = "holds"

[[claim]]
id = "p.eta-any-start"
section = "s"
statement = "from any start the learning rate does not change the mistakes (false)"
when = "pair"
pair = "eta:c"
variants = ["rosenblatt"]
expr = "other_mistakes == mistakes"
expect = "refuted"

[[claim]]
id = "p.translate"
section = "s"
statement = "a partner that adds a fixed vector is not taken by orbit"
when = "pair"
pair = "translate:c"
variants = ["rosenblatt"]
assume = ["w0_zero"]
expr = "other_mistakes >= 0"
expect = "holds"
"""


def test_pair_searches_take_one_dataset_of_each_orbit_when_the_partner_commutes(tmp_path, monkeypatch):
    import verify.searching.pairs as pairs

    p = tmp_path / "pairs.toml"
    p.write_text(textwrap.dedent(PAIRS))
    claims = {c.id: c for c in load_claims(str(p)).claims}
    dom = Domain(points=2, dim=2, box=1, max_updates=4, separators="every", w0_box=1)
    for cid in ("p.eta", "p.eta-any-start"):
        reduced = search(claims[cid], dom, engine="enumerate", timeout=120)
        with monkeypatch.context() as m:
            m.setattr(pairs, "rotation_symmetric", lambda c, d: False)
            whole = search(claims[cid], dom, engine="enumerate", timeout=120)
        want = Verdict.REFUTED if claims[cid].expect == "refuted" else Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
        assert reduced.verdict == whole.verdict == want, (cid, reduced.to_json())
        if want != Verdict.REFUTED:
            assert reduced.checked * 3 < whole.checked and "rotations or reflections" in reduced.domain["datasets"]
    translated = search(claims["p.translate"], dom, engine="enumerate", timeout=120)
    assert "rotations or reflections" not in translated.domain["datasets"]


def test_a_coordinate_read_behind_a_tab_or_in_a_premise_is_still_read(tmp_path):
    """The reading is the compiled tree's, not the text's: a declaration that adds vec(1, 0) after a tab,
    and a claim whose premise names one, are searched whole."""
    from perceptron.declared import load_variants
    from verify.searching.orbits import equivariant, reads_coordinates
    from perceptron.expression import compile_expr

    p = tmp_path / "tabbed.toml"
    p.write_text('[variants.tabbed]\nnote = "i and ones in a note are words"\nstate = { w = "w0" }\n'
                 'score = "dot(w, x)"\nmistake = "y * score <= 0"\nupdate = { w = "w + eta * y * x +\\tvec(1, 0)" }\n'
                 'orders = ["cyclic"]\nstop = "converged"\n')
    load_variants(str(p))
    assert not equivariant("tabbed")
    assert reads_coordinates(compile_expr("dot(w, ones) >= 0").tree) and not reads_coordinates(compile_expr("k >= 0").tree)


@pytest.mark.parametrize("expr,folds", [
    ("y*dot(prev(w), x) <= 0", True),  # y x together: the flip leaves it
    ("w == prev(w) + eta*y*x", True),
    ("norm2(w) == norm2(prev(w)) + 2*y*dot(prev(w), x) + y**2*norm2(x)", True),
    ("(y - out)/2 == y", True),  # both sides negated: == keeps its truth
    ("min_i(y*dot(w, x)) > 0", True),
    ("out == 0 or out != y", True),
    ("dot(prev(w), x) <= 0", False),  # negated, and <= does not keep its truth
    ("y == 1", False),
    ("x == vec(1, 0)", False),
    ("max(y, 0) == 1", False),  # max(-a, -b) is -min(a, b)
    ("min_i(dot(w, x)) > 0", False),  # each point flips on its own
    ("sqrt(y*y) + floor(y/2) == 1", False),  # floor(-a) is not -floor(a)
    ("i == 0 or y*dot(prev(w), x) <= 0", False),  # where a point stands is not told
    ("dot(x_hat, x_hat) >= 0", False),  # (x, R): half negated
    ("min_i(y*score) == max_i(y*score)", False),  # in an aggregate y is the point's, score the visit's
    ("all_i(y*dot(w, prev(x)) <= 1)", False),  # a look-back inside an aggregate: whose point is not told
])
def test_labels_fold_only_where_the_flip_keeps_the_claims_truth(claims, expr, folds):
    """Folding labels into the points (y x, +1) is sound for a claim the flip (x, y) -> (-x, -y)
    of any one point leaves unchanged (a bias-free variant with sign(0) = 0 makes the same run on
    either): y w.x <= 0 is such a claim, w.x <= 0 is not."""
    from verify.language.claims import with_expr
    from verify.searching.domain import label_symmetric

    claim = with_expr(claims["sym.norm-step"], expr)
    assert label_symmetric(claim, "rosenblatt", 0) is folds
    assert not label_symmetric(claim, "rosenblatt", 1) and not label_symmetric(claim, "novikoff", 0)


def test_a_fold_the_claim_can_tell_apart_is_not_taken(tmp_path):
    """Two claims a flip of one point's sign and label changes, each refuted on a dataset with a label
    -1 (folded, every label +1, they were 'no counterexample'): y and the visit's score inside an
    aggregate, and a free name that shadows score (its value does not depend on the data)."""
    p = tmp_path / "fold.toml"
    p.write_text(textwrap.dedent("""
        [document]
        file = "fold.md"

        [[claim]]
        id = "f.agg"
        section = "s"
        statement = "at every visit every point has the same y score"
        expr = "min_i(y*score) == max_i(y*score)"
        when = "visit"
        orders = ["cyclic"]
        variants = ["rosenblatt"]
        assume = ["w0_zero", "eta_one"]
        expect = "refuted"

        [[claim]]
        id = "f.free"
        section = "s"
        statement = "y times any positive number is positive"
        free = ["score:positive"]
        expr = "all_i(y*score > 0)"
        when = "dataset"
        expect = "refuted"
    """))
    dom = Domain(points=2, dim=2, box=1, max_updates=2, order="cyclic")
    for c in load_claims(str(p)).claims:
        res = search(c, dom, engine="enumerate", timeout=60)
        assert res.verdict == Verdict.REFUTED and -1 in res.counterexample.to_json()["labels"], (c.id, res.to_json())

