"""Proofs that rest on more than one update: a claim derived from its note's proved claims
(verify.symbolic.from_lemmas, one_step.at_update), a claim about every dataset (a point of each
label as witnesses), and a claim at the end of a run, from its last update or from its
convergence (verify.symbolic.converged).

The oracle of soundness: each true statement below is proved, and its false neighbour (a bound
too tight by half, a lemma the claim's assumptions do not give, a tie rule that breaks it) is
not; a false statement is left to the search, never proved."""

from __future__ import annotations

import json
import textwrap

import pytest

from verify.corpus.cache import claim_key
from verify.language.claims import load_claims
from verify.symbolic.from_lemmas import lemma_graph, lemmas_of
from verify.symbolic.one_step import one_step, prove_all, prove_one_step

#: A short note's proof of the mistake bound for the Rosenblatt variant from w = 0: two lemmas
#: proved by induction over the updates, the theorem derived from them at each update and at the
#: end; with false neighbours.
NOTE = [
    ("n.numerator", "dot(w, w_opt) >= k*eta*gamma", "update", ["separable", "w0_zero"]),
    ("n.norm", "norm2(w) <= k*eta**2*R2", "update", ["w0_zero"]),
    ("n.step", "dot(w, w_opt) >= dot(prev(w), w_opt) + eta*gamma >= (k - 1)*eta*gamma + eta*gamma", "update",
     ["separable", "w0_zero"]),
    ("n.theorem", "k <= R2/gamma**2", "update", ["separable", "w0_zero"]),
    ("n.bound", "mistakes <= R2/gamma**2", "end", ["separable", "w0_zero"]),
    ("n.half", "k <= R2/(2*gamma**2)", "update", ["separable", "w0_zero"]),  # false: one point x, k = 1
    ("n.half-end", "mistakes <= R2/(2*gamma**2)", "end", ["separable", "w0_zero"]),
    # n.numerator assumes separable, which this claim does not: it is no lemma of it
    ("n.unassumed", "k <= R2/gamma**2 or gamma <= 0", "update", ["w0_zero"]),
]


def _note(tmp_path, items, variant="rosenblatt"):
    text = '[document]\nfile = "n.md"\n'
    for cid, expr, when, assume in items:
        text += textwrap.dedent(f'''
            [[claim]]
            id = "{cid}"
            section = "1"
            statement = "{cid}"
            expr = "{expr}"
            variants = ["{variant}"]
            assume = {json.dumps(assume)}
            when = "{when}"
            expect = "holds"
            ''')
    p = tmp_path / "c.toml"
    p.write_text(text)
    return load_claims(str(p)).claims


def test_a_theorem_is_derived_from_its_notes_lemmas_and_a_false_one_is_not(tmp_path):
    claims = _note(tmp_path, NOTE)
    got = prove_all(claims, claims)
    proved = {i for i, e in got.items() if e is not None}
    assert proved == {"n.numerator", "n.norm", "n.step", "n.theorem", "n.bound"}, proved
    theorem = got["n.theorem"]
    assert set(theorem["lemmas"]) >= {"n.numerator", "n.norm"}
    assert "derived from the note's proved claims" in theorem["method"]
    assert any(h.startswith("n.numerator (proved)") for h in theorem["hypotheses"])
    bound = got["n.bound"]  # at the end: no update (mistakes = 0) or the last update's state
    assert [s["step"].split(";")[0] for s in bound["steps"]] == [
        "rosenblatt: no update (mistakes = 0, w = w0)", "rosenblatt: the last update (mistakes = k >= 1, at its point x, y)"]
    # alone, with none of its note's claims, the theorem rests on the invariants of its run only
    alone = prove_one_step(next(c for c in claims if c.id == "n.theorem"))
    assert alone is not None and all(i.startswith("invariant: ") for i in alone["lemmas"]), alone


def test_a_claim_reading_prev_and_k_rests_on_the_lemma_at_the_update_before(tmp_path):
    """n.step (w.w* >= prev(w).w* + eta gamma >= (k - 1) eta gamma + eta gamma) needs n.numerator at
    the previous update: its first update starts from w0 = 0."""
    claims = _note(tmp_path, NOTE[:3])
    step = prove_all(claims, claims)["n.step"]
    # (the note's n.numerator, or the same statement stated as an invariant of its run, tried first)
    assert step is not None and any(i == "n.numerator" or i.startswith("invariant: dot(w, w_opt) >= k*eta*gamma")
                                    for i in step["lemmas"]), step["lemmas"]
    assert any("at the update before" in h for h in step["hypotheses"])


@pytest.mark.parametrize("expr, assume, proved", [
    ("b_opt <= R", ["separable", "nontrivial"], True),  # a point of each label: |b_opt| <= |w_opt.x| <= R
    ("abs(b_opt) <= R", ["separable", "nontrivial"], True),
    ("b_opt <= R", ["separable"], False),  # one label only: every point at 0 with b_opt = 1 separates
    ("b_opt <= R/2", ["separable", "nontrivial"], False),
    ("norm2(w_hat_opt) <= 2", ["separable", "nontrivial"], True),
    ("norm2(w_hat_opt) <= 3/2", ["separable", "nontrivial"], False),
])
def test_a_claim_about_every_dataset_uses_a_point_of_each_label(tmp_path, expr, assume, proved):
    c = _note(tmp_path, [("d.claim", expr, "dataset", assume)], variant="novikoff")[0]
    assert (prove_one_step(c) is not None) == proved


@pytest.mark.parametrize("expr, variant, assume, proved", [
    ("converged == 0 or min_i(y*dot(w, x)) > 0", "rosenblatt", [], True),
    ("converged == 0 or min_i(y*dot(w, x)) > 0", "sign", [], False),  # sign(0) = y counts a zero score correct
    ("converged == 0 or min_i(y*dot(w, x)) >= 0", "sign", [], True),
    ("converged == 0 or min_i(y*dot(w, x)) > 0", "slides", [], False),  # sign(0) = +1
    ("converged == 0 or min_i(y*(dot(w, x) + b)) > 0", "novikoff", [], True),
    ("converged == 0 or min_i(y*dot(w, x)) > 0", "novikoff", [], False),  # its bias counts
    ("converged == 0 or max_i(-y*(dot(w, x) + b)) < 0", "sklearn", [], True),
    ("converged == 0 or all_i(y*dot(w, x) >= 1)", "rosenblatt", [], False),
    ("converged == 0 or all_i(dot(w, x) != 0)", "unit", [], False),
    ("converged == 0 or norm2(w) > 0", "rosenblatt", [], True),  # a dataset has a point
])
def test_a_claim_about_convergence_is_proved_at_a_point_classified_correctly(tmp_path, expr, variant, assume, proved):
    c = _note(tmp_path, [("e.claim", expr, "end", assume)], variant=variant)[0]
    assert not isinstance(one_step(c), str), one_step(c)
    assert (prove_one_step(c) is not None) == proved


@pytest.mark.parametrize("expr, why", [
    ("converged == 1 or all_i(y*dot(w, x) > 0)", "where the run did not converge, it reads x, y"),
    ("converged == 1 or stopped_by_budget + 1 > 1", "stopped_by_budget other than compared with a number"),
    ("converged == 0 or sum_i(y) > 0", "other than through all_i"),
    ("converged == 0 or min_i(y*dot(w, x)) < 1", "other than through all_i"),
    ("converged == 0 or (all_i(y == 1) or all_i(y == -1))", "other than through all_i"),
])
def test_what_convergence_does_not_show_is_not_taken(tmp_path, expr, why):
    got = one_step(_note(tmp_path, [("e.claim", expr, "end", [])])[0])
    assert isinstance(got, str) and why in got, got


@pytest.mark.parametrize("expr, variant, proved", [
    # an 'or' inside a step: z3 decides it
    ("out != y and (score == 0 or out == sign(score)) and (score != 0 or out == sign0)", "sign", True),
    ("out != y and (score == 0 or out == -sign(score))", "sign", False),
    # a premise read from a top-level 'A or B' is proved as written
    ("(score >= 0 and y == -1) or (score < 0 and y == 1)", "slides", True),
    ("(score >= 0 and y == 1) or (score < 0 and y == -1)", "slides", False),
    ("not (out == y)", "rosenblatt", True),
])
def test_or_and_not_in_a_step(tmp_path, expr, variant, proved):
    c = _note(tmp_path, [("o.claim", expr, "update", [])], variant=variant)[0]
    assert (prove_one_step(c) is not None) == proved


def test_a_cached_finding_is_keyed_by_the_lemmas_it_may_rest_on(tmp_path):
    def key(claims):
        return claim_key("plan", next(c for c in claims if c.id == "n.theorem"), lemmas_of("n.theorem", lemma_graph(claims)))

    claims = _note(tmp_path, NOTE)
    assert {c.id for c in lemmas_of("n.theorem", lemma_graph(claims))} >= {"n.numerator", "n.norm"}
    assert key(claims) != claim_key("plan", next(c for c in claims if c.id == "n.theorem"), ())
    edited = _note(tmp_path, [(i, e.replace("eta*gamma", "eta*gamma/2") if i == "n.numerator" else e, w, a)
                              for i, e, w, a in NOTE])
    assert key(edited) != key(claims)
    # an edit to a claim it cannot rest on (a claim at the end) keeps its key
    other = _note(tmp_path, [(i, e + " + 0" if i == "n.half-end" else e, w, a) for i, e, w, a in NOTE])
    assert key(other) == key(claims)


def test_a_note_of_too_many_claims_derives_none_of_them(tmp_path, monkeypatch):
    """The pairings weighed are bounded (MAX_PAIRINGS): past it no claim of the note is derived,
    and each is still proved on its own."""
    from verify.symbolic import from_lemmas

    claims = _note(tmp_path, NOTE)
    monkeypatch.setattr(from_lemmas, "MAX_PAIRINGS", 10)
    assert lemma_graph(claims) == {}
    got = prove_all(claims, claims)
    assert got["n.theorem"] is None and got["n.numerator"] is not None


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_audit_of_one_claim_proves_it_from_the_rest_of_its_note(tmp_path, jobs):
    """The audit of the theorem alone (the API's and the pytest plugin's ``only``) still has its
    note's lemmas, proved beside it, in this process or in the workers; the false bound beside
    it is refuted by the search."""
    import verify

    _note(tmp_path, NOTE)
    (tmp_path / "n.md").write_text("# n\n")
    got = {f.claim_id: f for f in verify.audit([str(tmp_path / "c.toml")], only=["n.theorem", "n.half"], jobs=jobs,
                                               out=str(tmp_path / "o"))}
    assert got["n.theorem"].verdict.label == "proved"
    assert got["n.theorem"].evidence["search"] == {"not searched": "already proved"}
    assert "n.numerator" in got["n.theorem"].evidence["lemmas"]
    assert got["n.half"].verdict.label == "refuted"


def test_a_declared_variant_is_proved_as_the_built_in_ones_are():
    """The margin lesson's own algorithm (update whenever y w.x <= tau): its proof lines, the
    induction, the bound from its lemmas and what a converged run is are proved for every tau;
    none of its false statements is, nor one true only for the values of tau the search tries
    (a converged run separates the points only where tau >= 0)."""
    claims = load_claims("benchmarks/lessons/margin_lesson.toml").claims
    got = prove_all(claims, claims)
    proved = {i for i, e in got.items() if e is not None}
    assert proved == {"mp.bound", "mp.progress-step", "mp.progress", "mp.growth-step", "mp.growth",
                      "mp.update-condition", "mp.converged-margin"}, proved
    assert not proved & {c.id for c in claims if c.expect == "refuted"}
    assert "((y * dot(w_prev, x)) <= tau)" in got["mp.progress-step"]["hypotheses"]  # its own mistake condition


@pytest.mark.parametrize("decl, why", [
    ('state = { w = "w0", u = "0*w0" }\nupdate = { w = "w + eta*y*x", u = "u + w" }', "more than w and b"),
    ('state = { w = "w0" }\nupdate = { w = "w + y*x/(k + 1)" }', "reads more than"),
    ('state = { w = "w0" }\nupdate = { w = "w + eta*y*x if t > 2 else w" }', "reads more than"),
    ('parameters = { x1 = "1" }\nstate = { w = "w0" }\nupdate = { w = "w + x1*y*x" }', "a symbol of the proofs"),
])
def test_a_declaration_a_proof_cannot_state_is_not_taken(tmp_path, decl, why):
    p = tmp_path / "v.toml"
    p.write_text('[document]\nfile = "n.md"\n\n[variants.dv]\nnote = "d"\n' + decl + '\nscore = "dot(w, x)"\n'
                 'mistake = "y * score <= 0"\norders = ["cyclic"]\n\n[[claim]]\nid = "d.step"\nsection = "1"\n'
                 'statement = "s"\nexpr = "norm2(w) <= norm2(prev(w)) + R2"\nvariants = ["dv"]\nwhen = "update"\n'
                 'expect = "holds"\n')
    got = one_step(load_claims(str(p)).claims[0])
    assert isinstance(got, str) and why in got, got


# From the read-only review of this change: each was a false claim proved, or a claim the
# evaluator had no value for.

def test_prev_k_is_the_count_before_the_update(tmp_path):
    """prev(k) and prev(sumsq) are those of the state before the update (0 at the first), not
    this update's: (k - 1)*(prev(k) - k) == 0 is false from the second update on."""
    claims = _note(tmp_path, [("n.lem", "k >= 1", "update", []), ("n.bad", "(k - 1)*(prev(k) - k) == 0", "update", []),
                              ("n.good", "prev(k) == k - 1", "update", []),
                              ("n.sum", "sumsq == prev(sumsq) + norm2(x)", "update", [])])
    got = prove_all(claims, claims)
    assert got["n.bad"] is None and got["n.good"] is not None and got["n.sum"] is not None


def test_a_declared_parameter_named_as_a_quantity_of_a_run_is_not_taken(tmp_path):
    p = tmp_path / "v.toml"
    p.write_text('[document]\nfile = "n.md"\n\n[variants.dv]\nnote = "d"\nparameters = { sweep = "1" }\n'
                 'state = { w = "w0" }\nscore = "dot(w, x)"\nmistake = "y * score <= 0"\n'
                 'update = { w = "w + sweep*y*x" }\norders = ["cyclic"]\n\n[[claim]]\nid = "s.step"\nsection = "1"\n'
                 'statement = "s"\nexpr = "norm2(w - prev(w)) == sweep**2*norm2(x)"\nvariants = ["dv"]\n'
                 'when = "update"\nexpect = "holds"\n')
    got = one_step(load_claims(str(p)).claims[0])
    assert isinstance(got, str) and "quantity of a run" in got, got


def test_a_declared_mistake_reads_the_state_before_the_update(tmp_path):
    p = tmp_path / "v.toml"
    p.write_text('[document]\nfile = "n.md"\n\n[variants.dm]\nnote = "d"\nstate = { w = "w0" }\nscore = "dot(w, x)"\n'
                 'mistake = "y * score <= 0 and norm2(w) <= 4"\nupdate = { w = "w + eta*y*x" }\norders = ["cyclic"]\n\n'
                 '[[claim]]\nid = "m.cond"\nsection = "1"\nstatement = "s"\nexpr = "norm2(prev(w)) <= 4"\n'
                 'variants = ["dm"]\nwhen = "update"\nexpect = "holds"\n')
    assert prove_one_step(load_claims(str(p)).claims[0]) is not None


def test_a_point_outside_every_aggregate_at_the_end_is_refused_with_its_line(tmp_path):
    """converged == 0 or min_i(y*dot(w, x)) > y*dot(w, x) - 1 names no point on its right: the
    claim file is refused (it was proved, and the evaluator stopped with an internal error)."""
    from verify.language.claims import ClaimError

    with pytest.raises(ClaimError, match="x, y exist only at a visit or update"):
        _note(tmp_path, [("e.bare", "converged == 0 or min_i(y*dot(w, x)) > y*dot(w, x) - 1", "end", [])])


@pytest.mark.parametrize("expr, free, proved", [
    ("all_i(sign(dot(w, x)) == y) == all_i(y*dot(w, x) > 0)", '["w"]', True),  # every w
    ("all_i(sign(dot(w, x)) == y) == all_i(y*dot(w, x) >= 0)", '["w"]', False),  # w = 0
    ("all_i(sign(dot(a*w, c*x)) == sign(dot(w, x)))", '["w", "a:positive", "c:positive"]', True),
    ("all_i(sign(dot(a*w, c*x)) == sign(dot(w, x)))", '["w", "a:positive", "c:scalar"]', False),  # c < 0
    ("all_i(y*dot(w, x) <= s*norm(w)*R)", '["w", "s:label"]', False),  # s = -1
    ("all_i(y*dot(w, x) <= norm(w)*R)", '["w"]', True),
    ("any_i(y == 1) or all_i(y == -1)", '[]', None),  # not taken: an any_i
    # a divisor is shown non-zero where the evaluator reaches it: an 'or' stops at its first true
    # alternative; sympy's cancelling of norm2(w)/norm2(w) is no proof that it is defined
    ("norm2(w) == 0 or all_i(dot(w, w)/norm2(w) == 1)", '["w"]', True),
    ("norm2(w) > 0 or all_i(dot(w, w)/norm2(w) == 1)", '["w"]', False),  # reached at w = 0
    ("all_i(dot(w, w)/norm2(w) == 1)", '["w"]', False),  # w = 0
    ("all_i((dot(w, w)/norm2(w) == 1) or norm2(w) == 0)", '["w"]', False),  # the division is read first
    ("norm2(w) == 0 or all_i((dot(w, x + t*w) + c)/norm(w) > (dot(w, x) + c)/norm(w))",
     '["w", "c:scalar", "t:positive"]', True),
])
def test_a_claim_about_every_point_of_every_dataset(tmp_path, expr, free, proved):
    """Read at an arbitrary point of an arbitrary dataset, for every value of its free names."""
    (tmp_path / "c.toml").write_text(f'[document]\nfile = "n.md"\n\n[[claim]]\nid = "d.every"\nsection = "1"\n'
                                     f'statement = "s"\nexpr = "{expr}"\nvariants = ["rosenblatt"]\nfree = {free}\n'
                                     'when = "dataset"\nexpect = "holds"\n')
    c = load_claims(str(tmp_path / "c.toml")).claims[0]
    got = one_step(c)
    if proved is None:
        assert isinstance(got, str) and "other than through all_i" in got, got
    else:
        assert not isinstance(got, str), got
        assert (prove_one_step(c) is not None) == proved


def test_a_run_stopped_by_its_budget_is_within_a_proved_bound(tmp_path):
    """How a run ended, read as numbers (stopped_by_budget = 1 - converged): where it did not
    converge, what the claim says there is derived from the note's proved claims at its last
    update (or at its start, before any update); a bound the start breaks is not proved."""
    claims = _note(tmp_path, [
        ("n.norm", "norm2(w) <= k*eta**2*R2", "update", ["w0_zero"]),
        ("n.ends", "(stopped_by_budget == 1 and norm2(w) <= mistakes*eta**2*R2) or converged == 1", "end", ["w0_zero"]),
        ("n.strict", "(stopped_by_budget == 1 and norm2(w) < mistakes*eta**2*R2) or converged == 1", "end", ["w0_zero"]),
        ("n.any-start", "(stopped_by_budget == 1 and norm2(w) <= mistakes*eta**2*R2) or converged == 1", "end", []),
    ])
    got = prove_all(claims, claims)
    assert {i for i, e in got.items() if e is not None} == {"n.norm", "n.ends"}, got
    assert "n.norm" in got["n.ends"]["lemmas"]
    assert "where it did not converge" in got["n.ends"]["method"]
    assert any(s["step"].startswith("not converged (stopped by its budget): ") for s in got["n.ends"]["steps"])


def test_a_claim_two_updates_back_is_derived_from_a_step_at_this_update_and_the_one_before(tmp_path):
    """prev(w, 2) is the state before the update before (the claim does not speak at the first
    update); a lemma that looks back one update holds at both."""
    claims = _note(tmp_path, [
        ("n.step", "norm2(w) <= norm2(prev(w)) + R2", "update", ["eta_one"]),
        ("n.two", "norm2(w) <= norm2(prev(w, 2)) + 2*R2", "update", ["eta_one"]),
        ("n.two-false", "norm2(w) <= norm2(prev(w, 2)) + R2", "update", ["eta_one"]),
        ("n.three", "norm2(w) <= norm2(prev(w, 3)) + 3*R2", "update", ["eta_one"]),
    ])
    got = prove_all(claims, claims)
    assert {i for i, e in got.items() if e is not None} == {"n.step", "n.two"}, got
    assert any(i == "n.step" or i.startswith("invariant: norm2(w) <= norm2(prev(w))") for i in got["n.two"]["lemmas"])
    assert not any("the first update" in s["step"] for s in got["n.two"]["steps"])


def test_a_theorem_stated_alone_is_proved_from_the_invariants_of_its_run(tmp_path):
    """A note that states the mistake bound and no lemma: the run's invariants (progress toward
    the separator, growth of the norm) are stated and proved by induction, and the bound derived
    from them; a bound too tight by half is not; an invariant that fails under the claim's
    assumptions (the half step at sign(0) = 0 makes half the progress) is not proved."""
    from verify.symbolic.from_lemmas import lemma_graph

    claims = _note(tmp_path, [
        ("t.end", "mistakes <= R2/gamma**2", "end", ["separable", "w0_zero"]),
        ("t.update", "sqrt(k)*gamma <= R", "update", ["separable", "w0_zero"]),
        ("t.false", "mistakes <= R2/(2*gamma**2)", "end", ["separable", "w0_zero"]),
    ])
    got = prove_all(claims, claims)
    assert {i for i, e in got.items() if e is not None} == {"t.end", "t.update"}, got
    assert "the invariants of its run, each proved here by induction" in got["t.end"]["method"]
    assert any("dot(w, w_opt) >= k*eta*gamma" in i for i in got["t.end"]["lemmas"])
    hat = _note(tmp_path, [("h.end", "mistakes <= 4*R2/gamma**2", "end", ["separable", "nontrivial", "w0_zero"])],
                variant="novikoff")
    assert prove_all(hat, hat)["h.end"] is not None  # on (w, b/R), with |(w_opt, b_opt/R)|^2 <= 2
    half = _note(tmp_path, [("s.end", "mistakes <= R2/gamma**2", "end", ["separable", "w0_zero", "sign0_zero",
                                                                         "form_half"])], variant="sign")
    progress = [lem for lem in lemma_graph(half)["s.end"] if "dot(w, w_opt)" in lem.id]
    assert progress and prove_all(progress, half)[progress[0].id] is None


def test_a_claim_two_updates_back_with_no_step_in_its_note_rests_on_the_step_of_its_run(tmp_path):
    """A note that states only the two-step bound: each update's own step, |w|^2 <= |prev(w)|^2 +
    eta^2 R^2, is stated and proved (the invariants of its run), and the bound derived from it at
    this update and the one before, even beside a lemma restating the update as a vector equation;
    the bound with half the growth is not proved."""
    claims = _note(tmp_path, [
        ("s.update", "w == prev(w) + eta*y*x", "update", ["w0_zero"]),
        ("s.two", "norm2(w) <= norm2(prev(w, 2)) + 2*eta**2*R2", "update", ["w0_zero"]),
        ("s.half", "norm2(w) <= norm2(prev(w, 2)) + eta**2*R2", "update", ["w0_zero"]),
    ])
    got = prove_all(claims, claims)
    assert {i for i, e in got.items() if e is not None} == {"s.update", "s.two"}, got
    assert any(i.startswith("invariant: norm2(w) <= norm2(prev(w))") for i in got["s.two"]["lemmas"])


def test_a_bound_from_any_start_is_proved_from_the_invariants_from_w0(tmp_path):
    """A note that initialises the weights anyhow: progress and growth are stated from w0 (a half
    step's progress where 002's half form may take one), and the bound from any start derived;
    its neighbour too tight for one point from w0 = 0 is not; the full step's progress is not
    proved where a half step may be taken."""
    from verify.symbolic.from_lemmas import lemma_graph

    full = _note(tmp_path, [
        ("a.end", "mistakes <= R2/gamma**2 + 2*norm(w0)/(eta*gamma)", "end", ["separable"]),
        ("a.false", "mistakes <= R2/(2*gamma**2) + norm(w0)/(eta*gamma)", "end", ["separable"]),
    ])
    got = prove_all(full, full)
    assert {i for i, e in got.items() if e is not None} == {"a.end"}, got
    assert any("dot(w0, w_opt) + k*eta*gamma" in i for i in got["a.end"]["lemmas"])
    half = _note(tmp_path, [
        ("h.end", "(stopped_by_budget == 1 and mistakes <= 4*R2/gamma**2 + 4*norm(w0)/(eta*gamma)) or converged == 1",
         "end", ["separable"]),
        ("h.full", "mistakes <= R2/gamma**2 + 2*norm(w0)/(eta*gamma)", "end", ["separable", "sign0_zero", "form_half"]),
    ], variant="sign")
    got = prove_all(half, half)
    assert got["h.end"] is not None and got["h.full"] is None, got
    whole = [lem for lem in lemma_graph(half)["h.full"] if "+ k*eta*gamma" in lem.id and "/2" not in lem.id]
    assert whole and prove_all(whole, half)[whole[0].id] is None


def test_an_invariant_proved_for_one_variant_is_no_lemma_of_another(tmp_path):
    """Two claims of one note, alike but for their variants, are given the same invariant: proved
    for rosenblatt (a full step), it is not proved for sign, whose half step at sign(0) = 0 makes
    half the progress; the sign claim that rests on it is not proved, in either order."""
    items = [("r.end", "mistakes <= R2/gamma**2 + 2*norm(w0)/(eta*gamma)", "rosenblatt"),
             ("s.full", "dot(w, w_opt) >= dot(w0, w_opt) + k*eta*gamma + 0", "sign")]
    for order in (items, items[::-1]):
        text = '[document]\nfile = "n.md"\n'
        for cid, expr, variant in order:
            when = "end" if cid == "r.end" else "update"
            text += (f'\n[[claim]]\nid = "{cid}"\nsection = "1"\nstatement = "{cid}"\nexpr = "{expr}"\n'
                     f'variants = ["{variant}"]\nassume = ["separable"]\nwhen = "{when}"\nexpect = "holds"\n')
        (tmp_path / "c.toml").write_text(text)
        claims = load_claims(str(tmp_path / "c.toml")).claims
        got = prove_all(claims, claims)
        assert got["r.end"] is not None and got["s.full"] is None, {k: v is not None for k, v in got.items()}
