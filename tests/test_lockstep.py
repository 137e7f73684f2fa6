"""Pair claims proved in lockstep (verify.symbolic.lockstep): the run with its learning rate
scaled makes the same mistakes from w0 = 0, and the kernelized perceptron with the linear kernel
those of the perceptron, for every dataset; what the induction does not state (another start, a
kernel other than the linear one, another sign(0), another kind of partner) is not taken, and
left to the search; a partner that updates otherwise is not proved."""

from __future__ import annotations

import pytest

from verify.language.claims import load_claims
from verify.symbolic.lockstep import lockstep
from verify.symbolic.one_step import prove_all


def _pair(tmp_path, pair, variant, assume, relation="same_mistakes"):
    (tmp_path / "c.toml").write_text(
        '[document]\nfile = "n.md"\n\n[[claim]]\nid = "p.claim"\nsection = "1"\nstatement = "s"\n'
        f'variants = ["{variant}"]\nassume = {assume}\nwhen = "pair"\npair = "{pair}"\nrelation = "{relation}"\n'
        'expect = "holds"\n')
    return load_claims(str(tmp_path / "c.toml")).claims[0]


@pytest.mark.parametrize("pair, variant, relation", [
    ("eta", "sign", "same_mistakes"),  # both update forms, sign(0) a run setting
    ("eta:c", "novikoff", "same_decisions"),  # every c > 0; a bias b += eta y R^2
    ("eta", "unit", "same_mistakes"),
])
def test_a_scaled_learning_rate_makes_the_same_mistakes_from_zero(tmp_path, pair, variant, relation):
    c = _pair(tmp_path, pair, variant, '["w0_zero"]', relation)
    got = prove_all([c])[c.id]
    assert got is not None
    assert "by induction over the visits" in got["method"]
    assert any("out2 == out" in s["step"] for s in got["steps"])  # the decisions, then each update form
    assert sum("on a mistake" in s["step"] for s in got["steps"]) == (2 if variant == "sign" else 1)


@pytest.mark.parametrize("pair, variant, assume, why", [
    ("eta", "sign", "[]", "w0 = 0"),  # from the same w0 the partner is not twice the first run
    ("w0:c", "rosenblatt", '["w0_zero"]', "learning rate scaled"),
    ("eta", "kernel", '["w0_zero"]', "dual form"),
    ("variant:rosenblatt", "kernel", '["w0_zero"]', "dual form"),  # a kernel other than the linear one
    ("variant:slides", "rosenblatt", '["w0_zero"]', "sign(0)"),  # slides' sign(0) is +1, rosenblatt's 0
    ("variant:kernel", "rosenblatt", '["kernel_linear"]', "start from w0 = 0"),
])
def test_what_the_induction_does_not_state_is_not_taken(tmp_path, pair, variant, assume, why):
    got = lockstep(_pair(tmp_path, pair, variant, assume))
    assert isinstance(got, str) and why in got, got


def test_a_factor_that_does_not_keep_the_decisions_is_not_proved(tmp_path, monkeypatch):
    """The steps are decided, not assumed: with the partner at -1 times the first run (which
    flips every decision) the proof fails."""
    from verify.symbolic import lockstep as L

    monkeypatch.setitem(L.SCALED, "eta", "(-1)")
    c = _pair(tmp_path, "eta", "rosenblatt", '["w0_zero"]')
    assert prove_all([c])[c.id] is None


@pytest.mark.parametrize("pair, variant, assume, proved", [
    ("variant:rosenblatt", "kernel", '["kernel_linear"]', True),  # the dual form is the primal one of its w
    ("variant:novikoff", "rosenblatt", '["w0_zero"]', False),  # novikoff's bias steps by eta y R^2
])
def test_another_variant_makes_the_same_mistakes_where_it_updates_alike(tmp_path, pair, variant, assume, proved):
    c = _pair(tmp_path, pair, variant, assume)
    assert not isinstance(lockstep(c), str), lockstep(c)
    assert (prove_all([c])[c.id] is not None) == proved


def test_the_dual_forms_score_is_proved_with_the_claim_and_naming_it_starts_no_solver(tmp_path, monkeypatch):
    """With the linear kernel the dual form is stated as the primal one of its weights; that its
    score is dot(w, x) is a case of every proof about it (both ways round of a pair), and deciding
    whether a claim is taken starts no solver.  A premise that fails fails the proof."""
    from verify import _child
    from verify.symbolic import learners as L
    from verify.symbolic.one_step import taken
    from verify.symbolic.run_facts import compiled_step

    for pair, variant in (("variant:rosenblatt", "kernel"), ("variant:kernel", "rosenblatt")):
        c = _pair(tmp_path, pair, variant, '["kernel_linear", "w0_zero"]')
        got = prove_all([c])[c.id]
        assert got is not None and sum(s["step"].startswith("the dual form's score is dot(w, x)")
                                       for s in got["steps"]) == 2, got
    L._dual.cache_clear()

    def no_child(*a, **k):
        raise AssertionError("a solver was started")

    with monkeypatch.context() as m:
        m.setattr(_child, "run_in_child", no_child)
        m.setattr("verify.symbolic.steps.run_in_child", no_child)
        assert taken(_pair(tmp_path, "variant:rosenblatt", "kernel", '["kernel_linear"]'))
    wrong = ((L.dual_premises()[0][0], (), compiled_step("1 == dot(0*x, x)")),)
    monkeypatch.setattr(L, "dual_premises", lambda: wrong)
    L._dual.cache_clear()
    try:
        assert prove_all([_pair(tmp_path, "variant:rosenblatt", "kernel", '["kernel_linear"]')])["p.claim"] is None
    finally:
        L._dual.cache_clear()
