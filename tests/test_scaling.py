"""From w0 = 0 a built-in variant's run with rate eta is eta times its run with eta = 1, so a
claim comparing quantities of one degree in eta has the same truth at every rate, and the search
runs one rate for all (issue 38: more scope for the same budget).  Oracle: the same search at
every rate, on true and false claims; and claims whose sides differ in degree, which must be run
at every rate (|w|^2 <= k R^2 is true at eta <= 1 only)."""

import textwrap

import pytest

import verify.searching as searching
from verify.language.claims import load_claims, with_expr
from verify.searching import search
from verify.searching.domain import Domain
from verify.searching.scaling import degree, scale_free
from verify.verdicts import Verdict

CLAIMS = """
[document]
file = "rate.md"

[[claim]]
id = "rate.mistake"
section = "s"
statement = "an update is made on a mistake"
expr = "y*dot(prev(w), x) <= 0"
when = "update"
variants = ["rosenblatt"]
assume = ["w0_zero"]
expect = "holds"

[[claim]]
id = "rate.bias"
section = "s"
statement = "the score is w.x + b"
expr = "score == dot(prev(w), x) + prev(b)"
when = "update"
variants = ["novikoff"]
assume = ["w0_zero"]
expect = "holds"
"""

DOM = Domain(points=2, dim=2, box=2, max_updates=6, etas=("1", "1/2", "2"))


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    p = tmp_path_factory.mktemp("rate") / "rate.toml"
    p.write_text(textwrap.dedent(CLAIMS))
    return {c.id: c for c in load_claims(str(p)).claims}


@pytest.mark.parametrize("expr,free", [
    ("y*dot(prev(w), x) <= 0", True),
    ("norm2(w) <= k*eta**2*R2", True),  # degree 2 on each side
    ("dot(w, w_opt) >= k*eta*gamma", True),
    ("norm(w) <= sqrt(k)*eta*R and dot(w0, w_opt) == 0", True),  # w0 = 0: of every degree
    ("sign(score) == out or score == 0", True),
    ("k <= dot(w, w_opt)/(eta*gamma)", True),
    ("norm2(w) <= k*R2", False),  # degree 2 against 0: true at eta <= 1 only
    ("eta <= 1", False),
    ("norm2(w) <= norm2(prev(w)) + R2", False),  # terms of degrees 2 and 0
    ("floor(score) <= score", False),  # floor(s a) is not s floor(a)
    ("dot(w, ones) >= -k", False),
])
def test_a_claim_is_scale_free_only_when_each_comparison_is_of_one_degree(claims, expr, free):
    claim = with_expr(claims["rate.mistake"], expr)
    assert (degree(claim.compiled.tree) == 0) is free
    assert scale_free(claim, DOM) is free
    # not from another w0, nor for a variant whose rules are not known to scale
    assert not scale_free(claim, Domain(**{**DOM.__dict__, "w0_box": 1}))
    assert not scale_free(claim, Domain(**{**DOM.__dict__, "variant": "kernel"}))


@pytest.mark.parametrize("cid,expr,verdict", [
    ("rate.mistake", None, Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN),
    ("rate.bias", None, Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN),
    ("rate.mistake", "norm2(w) <= k*eta**2*R2 - 1", Verdict.REFUTED),  # false at every rate
    ("rate.mistake", "norm2(w) <= k*R2", Verdict.REFUTED),  # false at eta = 2 only: every rate is run
])
def test_one_rate_for_all_gives_the_verdict_of_every_rate(claims, monkeypatch, cid, expr, verdict):
    claim = claims[cid] if expr is None else with_expr(claims[cid], expr)
    one = search(claim, DOM, engine="enumerate", timeout=60)
    assert one.verdict == verdict, one.to_json()
    monkeypatch.setattr(searching, "scale_free", lambda *a: False)
    every = search(claim, DOM, engine="enumerate", timeout=60)
    assert every.verdict == verdict
    if scale_free(claim, searching._prepare(claim, DOM, True)):
        assert "searched at eta = 1 for all of them" in one.domain["runs"] and one.checked * 2 < every.checked
    else:
        assert "searched at eta" not in one.domain["runs"]
    if verdict == Verdict.REFUTED and expr == "norm2(w) <= k*R2":
        assert one.counterexample.to_json()["params"]["eta"] == "2"
