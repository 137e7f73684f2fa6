"""A flip of every label at once, with w0, b0 and sign(0) negated, negates a run of every built-in
variant but 003's (whose sign(0) is +1, fixed): a claim that keeps its truth under it is searched
on one dataset of each such pair, and at sign(0) = +1 for -1 too (issue 38: more scope for the
same budget).  Oracle: the same search without the flip (every dataset, every sign(0)), on true
and false claims, and claims the flip changes, which must be searched whole and refuted."""

import textwrap

import numpy as np
import pytest

import verify.searching as searching
import verify.searching.enumeration as enumeration
import verify.searching.shards as shards
from verify.language.claims import load_claims, with_expr
from verify.searching import search
from verify.searching.domain import Domain, point_list, symmetries
from verify.searching.orbits import canonical, flip_symmetric, paired_sign0s
from verify.verdicts import Verdict

CLAIMS = """
[document]
file = "flip.md"

[[claim]]
id = "nov.step"
section = "s"
statement = "|w_hat|^2 grows by at most 2 eta^2 R^2 an update, from any w0 and b0"
expr = "norm2(w_hat) <= norm2(prev(w_hat)) + 2*eta*eta*R2"
when = "update"
variants = ["novikoff"]
expect = "holds"

[[claim]]
id = "nov.growth"
section = "s"
statement = "|w| grows at every update (false)"
expr = "norm2(w) > norm2(prev(w))"
when = "update"
variants = ["novikoff"]
expect = "refuted"

[[claim]]
id = "nov.bias"
section = "s"
statement = "the bias ends non-negative (false: it follows the labels)"
expr = "b >= 0"
when = "end"
variants = ["novikoff"]
assume = ["w0_zero"]
expect = "refuted"

[[claim]]
id = "sign.lower"
section = "s"
statement = "w_opt . w grows by gamma an update"
expr = "dot(w_opt, w) >= k*gamma"
when = "update"
variants = ["sign"]
assume = ["separable", "w0_zero", "eta_one", "form_yx"]
expect = "holds"

[[claim]]
id = "sign.few"
section = "s"
statement = "at most two mistakes (false)"
expr = "k <= 2"
when = "end"
variants = ["sign"]
assume = ["w0_zero"]
expect = "refuted"

[[claim]]
id = "sign.tie"
section = "s"
statement = "a zero score is read as +1 (false where sign(0) = -1 or 0)"
expr = "score != 0 or out == 1"
when = "update"
variants = ["sign"]
expect = "refuted"

[[claim]]
id = "unit.update"
section = "s"
statement = "an update happens on a mistake and adds y x"
expr = "out != y and w == prev(w) + y*x"
when = "update"
variants = ["unit"]
assume = ["eta_one"]
expect = "holds"
"""

DOM = Domain(points=2, dim=2, box=2, max_updates=5, sep_box=3)


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    p = tmp_path_factory.mktemp("flip") / "flip.toml"
    p.write_text(textwrap.dedent(CLAIMS))
    return {c.id: c for c in load_claims(str(p)).claims}


def test_the_orbits_with_flips_cover_every_dataset_once():
    """With the label flip the 16 maps (8 rotations and reflections, each with labels kept or
    flipped) leave each dataset of 2 labelled points exactly one member among those kept."""
    maps = symmetries(2, 1, False, flip=True)
    assert len(maps) == 15 and len(symmetries(2, 1, False, rotate=False, flip=True)) == 1
    P, _ = point_list(2, 1, False)
    for ordered in (False, True):
        rows = np.array([(a, b) for a in range(len(P)) for b in range(len(P)) if ordered or a <= b], dtype=np.int64)
        reps = {tuple(int(v) for v in r) for r in rows[canonical(rows, maps, ordered)]}
        full = (np.arange(len(P), dtype=np.int64),) + maps
        for r in rows:
            orbit = {tuple(int(v) for v in (sorted(m[r]) if not ordered else m[r])) for m in full}
            assert len(orbit & reps) == 1
        assert len(reps) < len(rows) / 6


def _flipped_and_whole(claim, dom, monkeypatch):
    """The search with the flip, and without it (every dataset, every sign(0)): the same verdict."""
    flipped = search(claim, dom, engine="enumerate", timeout=300)
    with monkeypatch.context() as m:
        m.setattr(enumeration, "flips_datasets", lambda c, d, s0: False)
        m.setattr(searching, "paired_sign0s", lambda c, d: tuple(d.sign0s))
        m.setattr(shards, "_CACHE", {})  # (a worker keeps the enumerator of its last search's domain)
        whole = search(claim, dom, engine="enumerate", timeout=300)
    shards._CACHE.clear()
    assert flipped.verdict == whole.verdict, (claim.id, flipped.to_json(), whole.to_json())
    return flipped, whole


@pytest.mark.parametrize("cid", ["nov.step", "nov.growth", "sign.lower", "sign.few", "unit.update"])
def test_the_same_verdicts_with_fewer_candidates(claims, monkeypatch, cid):
    claim = claims[cid]
    flipped, whole = _flipped_and_whole(claim, DOM, monkeypatch)
    want = Verdict.REFUTED if claim.expect == "refuted" else Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
    assert flipped.verdict == want, flipped.to_json()
    text = flipped.to_json()["domain"]["text"]
    if claim.variants[0] == "novikoff":  # a bias: labels never fold, and the flip takes one of each pair
        assert "labels are all flipped" in text, text
    else:  # at sign(0) = 0 these claims fold their labels already; -1 is run as +1
        assert "sign(0) = -1 searched as +1" in text, text
    if want != Verdict.REFUTED:  # the whole domain searched: about half the candidates, or a fifth fewer
        assert flipped.checked < 0.8 * whole.checked, (flipped.checked, whole.checked)


@pytest.mark.parametrize("cid", ["nov.bias", "sign.tie"])
def test_a_claim_the_flip_changes_is_searched_whole_and_refuted(claims, monkeypatch, cid):
    """b >= 0 is negated by the flip and "a zero score reads +1" holds at sign(0) = +1 only: each is
    refuted, and neither is searched on one of each pair nor at +1 for -1."""
    claim = claims[cid]
    assert not flip_symmetric(claim, searching._prepare(claim, DOM, True))
    flipped, whole = _flipped_and_whole(claim, DOM, monkeypatch)
    assert flipped.verdict == Verdict.REFUTED and flipped.checked == whole.checked
    text = flipped.to_json()["domain"]["text"]
    assert "flipped" not in text and "-1 searched as +1" not in text


@pytest.mark.parametrize("expr,flips", [
    ("y*(dot(prev(w), x) + prev(b)) <= 0", True),
    ("norm2(w) <= norm2(prev(w)) + eta*eta*R2", True),
    ("dot(w_opt, w) + b_opt*b >= k*gamma", True),
    ("out != y and w == prev(w) + eta*y*x", True),
    ("min_i(y*(dot(w, x) + b)) > 0", True),  # every label flips, and w and b with them
    ("sign(score) == out or sign0 == out", True),
    ("dot(w, w0) >= 0", True),
    ("b >= 0", False),
    ("y == 1", False),
    ("max(y, 0) == 1", False),
    ("i == 0 or y*score <= 0", False),  # where a point stands: the flip may reorder the points
    ("dot(w, x) >= 0", False),
])
def test_the_flip_is_taken_only_where_it_keeps_the_claims_truth(claims, expr, flips):
    claim = with_expr(claims["nov.step"], expr)
    dom = Domain(**{**DOM.__dict__, "variant": "novikoff", "separators": "all"})
    assert flip_symmetric(claim, dom) is flips
    # 003's slides and pocket fix sign(0) = +1: a zero score is correct for one label only
    assert not flip_symmetric(claim, Domain(**{**dom.__dict__, "variant": "slides"}))


def test_sign0_minus_one_is_paired_only_with_plus_one(claims):
    claim = claims["sign.few"]
    dom = Domain(**{**DOM.__dict__, "variant": "sign", "sign0s": (-1, 0, 1)})
    assert paired_sign0s(claim, dom) == (0, 1)
    assert paired_sign0s(claim, Domain(**{**dom.__dict__, "sign0s": (-1, 0)})) == (-1, 0)
    assert paired_sign0s(claims["sign.tie"], dom) == (-1, 0, 1)


def test_every_assumption_is_decided_for_the_flip():
    """The flip is taken only for claims whose assumptions it leaves (FLIP_INVARIANT): a new assumption
    must be added there by someone who checked it, or claims with it are searched whole."""
    from verify.language.assumptions import ASSUMPTIONS, FLIP_INVARIANT

    assert set(ASSUMPTIONS) == FLIP_INVARIANT
