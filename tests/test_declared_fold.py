"""A declared variant whose run a flip of one point's sign and label, (x, y) -> (-x, -y), leaves
unchanged (odd score, even mistake condition and updates: the margin perceptron) is searched with
every label folded into its point, as the built-in variants with no bias and sign(0) = 0 are
(issue 38: more scope for the same budget).  Oracle: the same search without the fold, on true
and false claims; declarations the flip changes (a bias, sign(0) = +1, the point's index) and
claims it changes are never folded."""

import os
import textwrap

import pytest

import verify.searching.declared_engine as declared_engine
import verify.searching.learner_runs as learner_runs
from perceptron.declared import load_variants
from verify.language.claims import load_claims, with_expr
from verify.searching import Domain, search
from verify.searching.orbits import declared_label_symmetric
from verify.verdicts import Verdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EX = os.path.join(ROOT, "examples", "variants")

OWN = """
[variants.indexed]
note = "a step that grows with the point's index: the flip may reorder the points"
state = { w = "w0" }
score = "dot(w, x)"
mistake = "y * score <= 0"
update = { w = "w + (i + 1) * y * x" }

[variants.tie_plus]
note = "the perceptron with sign(0) = +1: its run folds, but out at a zero score does not"
state = { w = "w0" }
score = "dot(w, x)"
sign0 = 1
mistake = "y * score <= 0"
update = { w = "w + eta * y * x" }

[variants.idle_bias]
note = "a bias held at b0: the run folds, but its separators carry a bias too"
state = { w = "w0", b = "b0" }
score = "dot(w, x)"
mistake = "y * score <= 0"
update = { w = "w + eta * y * x" }

[variants.drift]
note = "a step that adds x without its label"
state = { w = "w0" }
score = "dot(w, x)"
mistake = "y * score <= 0"
update = { w = "w + eta * y * x + x" }
"""


@pytest.fixture(autouse=True, scope="module")
def _declared_here(tmp_path_factory):
    from perceptron import declared

    saved = dict(declared._REGISTRY)
    own = tmp_path_factory.mktemp("fold") / "own.toml"
    own.write_text(textwrap.dedent(OWN))
    load_variants(os.path.join(ROOT, "tests", "data", "builtins.toml"))
    for f in (os.path.join(EX, "margin.toml"), os.path.join(EX, "bias_one.toml"), str(own)):
        load_variants(f)
    yield
    declared._REGISTRY.clear()
    declared._REGISTRY.update(saved)


def _claim(f, cid):
    return next(c for c in load_claims(os.path.join(EX, f)).claims if c.id == cid)


@pytest.mark.parametrize("variant,folds", [
    ("margin", True),  # y * score <= tau, w + eta * y * x
    ("rosenblatt_declared", True),
    ("novikoff_declared", False),  # score = dot(w, x) + b: the flip negates one part only
    ("sklearn_declared", False),
    ("slides_declared", False),  # out != y with sign(0) = +1: a zero score is correct for +1 only
    ("sign_declared", False),  # sign(0) the run's parameter, read through out
    ("indexed", False),  # the point's index: which one is i may change
    ("drift", False),  # + x: the flip negates it
])
def test_a_declaration_folds_only_where_the_flip_leaves_its_run(variant, folds):
    claim = with_expr(_claim("margin.toml", "margin.bound"), "k >= 0")
    assert declared_label_symmetric(claim, variant) is folds
    # a claim the flip changes is never folded, whatever the declaration
    assert not declared_label_symmetric(with_expr(claim, "dot(w, x) >= 0"), variant)


@pytest.mark.parametrize("expr,folds", [
    ("y*score <= 1 or k >= 1", True),
    ("dot(w, x) >= 0", False),
    ("y == 1 or k >= 0", False),
])
def test_a_claim_the_flip_changes_is_not_folded(expr, folds):
    claim = with_expr(_claim("margin.toml", "margin.bound"), expr)
    assert declared_label_symmetric(claim, "margin") is folds


def _folded_and_whole(claim, dom, monkeypatch):
    folded = search(claim, dom, timeout=300)
    with monkeypatch.context() as m:
        for mod in (learner_runs, declared_engine):
            m.setattr(mod, "declared_label_symmetric", lambda c, v: False)
        whole = search(claim, dom, timeout=300)
    assert folded.verdict == whole.verdict, (claim.id, folded.to_json(), whole.to_json())
    return folded, whole


@pytest.mark.parametrize("f,cid,want", [
    ("margin.toml", "margin.bound", Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN),
    ("margin.toml", "margin.bound-eta", Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN),
    ("margin.toml", "margin.novikoff-misquoted", Verdict.REFUTED),
    ("margin.toml", "margin.bound-any-eta", Verdict.REFUTED),
    ("bias_one.toml", "bias_one.bound", Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN),
])
def test_the_same_verdicts_with_fewer_candidates(monkeypatch, f, cid, want):
    dom = Domain(points=2, box=1, max_updates=4, sep_box=2) if want != Verdict.REFUTED else \
        Domain(points=2, box=2, max_updates=5, sep_box=2)
    folded, whole = _folded_and_whole(_claim(f, cid), dom, monkeypatch)
    assert folded.verdict == want, folded.to_json()
    text = folded.to_json()["domain"]["text"]
    if f == "margin.toml":
        assert "labels folded into the points" in text, text
        if want != Verdict.REFUTED:  # the whole domain searched: far fewer candidates
            assert folded.checked * 2 < whole.checked, (folded.checked, whole.checked)
    else:  # a bias: never folded
        assert "labels folded" not in text and folded.checked == whole.checked


@pytest.mark.parametrize("variant,expr,dom", [
    # out = +1 at a zero score for either point: (-1, 0) with label -1 scores 0 and out = +1 != y
    ("tie_plus", "score != 0 or out == y", Domain(points=1, box=1, max_updates=2)),
    # a separator with a bias: on data all labelled +1 every c <= 0 separator has v.x > 0 at each point
    ("idle_bias", "c_opt > 0 or all_i(dot(v_opt, y*x) > 0)", Domain(points=2, box=2, max_updates=1, sep_box=3,
                                                                  separators="all")),
])
def test_what_the_flip_of_a_point_changes_in_a_declared_variant_is_never_folded(tmp_path, variant, expr, dom):
    """Two ways a declared variant whose run folds can still tell a point from its flip (found by a
    review: each had come back 'no counterexample' folded): a claim that reads out under sign(0) =
    +1, and a separator with a bias.  Neither is folded, and each is refuted."""
    p = tmp_path / "c.toml"
    p.write_text(textwrap.dedent(f"""
        [document]
        file = "c.md"

        [[claim]]
        id = "c.one"
        section = "s"
        statement = "s"
        expr = "{expr}"
        when = "update"
        variants = ["{variant}"]
        expect = "refuted"
    """))
    (claim,) = load_claims(str(p)).claims
    assert not declared_label_symmetric(claim, variant)
    res = search(claim, dom, timeout=120)
    assert res.verdict == Verdict.REFUTED, res.to_json()
