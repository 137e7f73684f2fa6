"""A note we have never seen: premises (``given``: where a statement's premise is false the claim
does not apply; a premise that never held leaves the claim unknown, and what the evidence varied
is counted only where it held), `ones`, readable refutations of `A or B`, and printed replay
commands that reproduce what they replay."""

from __future__ import annotations

import os
from fractions import Fraction

import pytest

import verify
import verify.replay.dispatch as replay_mod
from perceptron import MemoryTrace, Params, builtin, train
from verify.language.claims import ClaimError, load_claims
from verify.replay.dispatch import replay

HEAD = '[document]\nfile = "mine.md"\ntitle = "My note"\n\n'


def _claim(cid, given, expr, when="end", extra=""):
    return (f'[[claim]]\nid = "{cid}"\nsection = "3"\nstatement = "s"\nwhen = "{when}"\nvariants = ["rosenblatt"]\n'
            f'assume = ["separable"]\ngiven = "{given}"\nexpr = "{expr}"\nexpect = "holds"\n{extra}\n')


def _replayed(path, dataset, params, scalar):
    """(trace, bad, tallies): the claims of ``path`` on a fresh run of ``dataset``, evaluated by
    the column evaluator or (``scalar``) by its oracle, the scalar evaluator."""
    claims = load_claims(str(path)).claims
    ds = builtin(dataset)
    rec = MemoryTrace()
    train(ds, params, rec)
    replay_mod.SCALAR_ORACLE, old = scalar, replay_mod.SCALAR_ORACLE
    try:
        _, bad, tallies = replay(ds, rec.trace, claims)
    finally:
        replay_mod.SCALAR_ORACLE = old
    return rec.trace, bad, tallies


def test_a_premise_never_met_is_unknown_never_holds(tmp_path):
    path = tmp_path / "claims_p.toml"
    path.write_text(HEAD + _claim("p.never", "norm(w0) > 100 * R", "mistakes == 0"))
    [f] = verify.audit([str(path)], jobs=1)
    assert f.verdict == verify.Verdict.UNKNOWN, f
    assert f.evidence["reason"].startswith("premise never met") and f.evidence["premise"]["met"] == 0
    assert f.evidence["premise"]["not_met"] > 0
    # the page counts it as unknown and its "unknown" filter shows it (the row is unexpected too)
    from verify.report.artefacts import html
    from verify.report.results import results_dict

    claims = {c.id: c for c in load_claims(str(path)).claims}
    page = html(results_dict([f], claims, {"datasets": [], "runs": 0}))
    assert '<span class="unknown">1 unknown</span>' in page and 'class="row unexpected unknown"' in page


def test_a_premise_met_only_at_w0_zero_does_not_vary_w0(tmp_path):
    """The newcomer's note: "the bound holds from any w1 with |w1| <= gamma" is false, and the
    corpus only meets the premise at w0 = 0 (w0 never varied: the corpus alone says unknown, not
    holds). The search, in the note's cyclic order, meets the premise with w0 != 0 and refutes it."""
    path = tmp_path / "claims_w.toml"
    path.write_text(HEAD + _claim("p.any-w1", "norm(w0) <= gamma", "mistakes <= R2 / gamma**2",
                                  extra='orders = ["cyclic"]'))
    [f] = verify.audit([str(path)], jobs=1)
    assert f.verdict == verify.Verdict.REFUTED, f
    assert f.evidence["premise"]["met"] > 0 and "w0" in f.evidence["unvaried"]  # what the corpus alone showed
    ce = f.evidence["counterexample"]["search"]
    assert any(v != "0" for v in ce["params"]["w0"]) and ce["order"] == "cyclic"
    assert f.evidence["replay"].startswith("proof-audit search p.any-w1")


@pytest.mark.parametrize("scalar", [False, True])
def test_premises_tally_the_same_in_both_evaluators(tmp_path, scalar):
    """The column evaluator counts premises as the scalar evaluator (its oracle) does: the
    evaluations where the premise held, the steps where it did not, the first violation."""
    path = tmp_path / "claims_u.toml"
    path.write_text(HEAD + _claim("p.odd", "k - 2 * floor(k / 2) == 1", "norm2(w) <= k * R2", when="update")
                    + _claim("p.late", "k >= 3", "dot(w, w_opt) >= 3 * gamma", when="update")
                    + _claim("p.false", "k >= 2", "k <= 2", when="update"))
    trace, bad, tallies = _replayed(path, "separable-d2-g1_20", Params(order="cyclic"), scalar)
    assert bad is None
    k = trace.end["updates"]
    assert k >= 4
    odd, late, false = tallies["p.odd"], tallies["p.late"], tallies["p.false"]
    assert (odd.evaluations, odd.premise_unmet) == ((k + 1) // 2, k // 2)
    assert (late.evaluations, late.premise_unmet, late.violation) == (k - 2, 2, None)
    assert false.violation is not None and false.violation.to_json()["k"] == 3 and (false.evaluations, false.premise_unmet) == (2, 1)


def test_a_premise_is_checked_like_an_expression(tmp_path):
    path = tmp_path / "claims_bad.toml"
    path.write_text(HEAD + _claim("p.num", "norm(w0)", "k >= 0"))
    with pytest.raises(ClaimError, match="given must be a condition"):
        load_claims(str(path))
    path.write_text(HEAD + _claim("p.nope", "frobnicate(w0) > 0", "k >= 0"))
    with pytest.raises(ClaimError, match="in given"):
        load_claims(str(path))


def test_ones_is_the_all_ones_vector_of_the_run(tmp_path):
    """`ones` has the learner's dimension (after augmentation, so the augmented coordinate of x
    is 1 and dot(ones, x) - 1 is the sum of the data's coordinates), in both evaluators."""
    path = tmp_path / "claims_o.toml"
    path.write_text(HEAD + '[[claim]]\nid = "o.sum"\nsection = "s"\nstatement = "s"\nwhen = "update"\n'
                    'variants = ["rosenblatt"]\nexpr = "norm2(ones) == d and dot(ones, x) == dot(x, ones)"\n'
                    'expect = "holds"\n[[claim]]\nid = "o.not-zero"\nsection = "s"\nstatement = "s"\n'
                    'when = "update"\nvariants = ["rosenblatt"]\nexpr = "dot(ones, x) != dot(ones, x)"\nexpect = "refuted"\n')
    for scalar in (False, True):
        trace, bad, tallies = _replayed(path, "separable-d3-g1_10", Params(order="cyclic", augment="first"), scalar)
        t = tallies["o.sum"]
        assert bad is None and t.violation is None and t.unknown is None and t.evaluations == trace.end["updates"]
        assert tallies["o.not-zero"].violation is not None


@pytest.mark.parametrize("scalar", [False, True])
def test_a_refuted_or_shows_each_part(tmp_path, scalar):
    """A refuted `A or B` prints the value of each part (both sides of each comparison), the
    same from the column evaluator and from its scalar oracle."""
    path = tmp_path / "claims_or.toml"
    path.write_text(HEAD + '[[claim]]\nid = "or.bound"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "converged == 0 or mistakes <= 1"\nexpect = "holds"\n\n'
                    '[[claim]]\nid = "and.bound"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "converged == 1 and mistakes <= 1"\nexpect = "holds"\n')
    _, bad, tallies = _replayed(path, "worked-example", Params(order="first"), scalar)
    v = tallies["or.bound"].violation
    # a top-level or is the implication "converged -> mistakes <= 1": the part tested, both sides
    assert bad is None and v.sides == ["4", "1"] and v.ops == ["<="], v
    v = tallies["and.bound"].violation
    assert v.connective == "and" and v.parts == ["1 == 1 (true)", "4 <= 1 (false)"], v


@pytest.mark.parametrize("scalar", [False, True])
def test_a_refuted_all_i_or_any_i_shows_the_point(tmp_path, scalar):
    """A refuted all_i(c) names the first point where c fails and c's sides there; a refuted
    any_i(c) says it holds at no point and shows c at the first; both evaluators alike, and the
    text every output prints names each side by its source."""
    from verify.report.claim_text import sides_text

    path = tmp_path / "claims_all.toml"
    path.write_text(HEAD + '[[claim]]\nid = "all.m"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "all_i(y * dot(w, x) >= 5)"\nexpect = "holds"\n\n'
                    '[[claim]]\nid = "any.m"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "any_i(y * dot(w, x) >= 100)"\nexpect = "holds"\n\n'
                    '[[claim]]\nid = "and.m"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "k >= 100 and any_i(y * dot(w, x) >= 1)"\nexpect = "holds"\n')
    trace, bad, tallies = _replayed(path, "worked-example", Params(order="cyclic"), scalar)
    w = [Fraction(v) for v in trace.end["w"]]
    ds = builtin("worked-example")
    margins = [int(ds.y[i]) * sum(a * Fraction(int(b), ds.den) for a, b in zip(w, ds.X_num[i])) for i in range(ds.n)]
    v = tallies["all.m"].violation.to_json()
    j = next(i for i, m in enumerate(margins) if m < 5)
    assert bad is None and v["fails_at_point"] == j and v["quantifier"] == "all_i", v
    assert sides_text(v, "all_i(y * dot(w, x) >= 5)") == f"all_i fails at point {j}: y * dot(w, x) = {margins[j]} >= 5  (false)"
    v = tallies["any.m"].violation.to_json()
    assert v["fails_at_point"] == 0 and v["sides"] == [str(margins[0]), "100"], v
    assert sides_text(v, "any_i(y * dot(w, x) >= 100)").startswith("any_i holds at no point; at point 0: y * dot(w, x) = ")
    v = tallies["and.m"].violation.to_json()  # a part that is an aggregate shows its value, not one point's sides
    assert v["parts"] == [f"{trace.end['updates']} >= 100 (false)", "true"], v


def _run_printed(command: str):
    """Run a printed replay command (commands joined by &&) in this process: (exit code, output)."""
    import contextlib
    import io
    import shlex

    from verify.cli import main

    rc, out = None, io.StringIO()
    for part in command.split(" && "):
        argv = shlex.split(part)
        assert argv[0] == "proof-audit"
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = main(argv[1:])
    return rc, out.getvalue()


def test_a_pair_refutation_replays_both_runs(tmp_path, monkeypatch):
    """A refuted pair claim's printed command trains the first run and checks it; check makes
    the partner run, replays it, and shows where the two part; it exits 1 (it said "not
    applicable to this run" and exited 0)."""
    path = tmp_path / "claims_p.toml"
    path.write_text(HEAD + '[[claim]]\nid = "p.eta"\nsection = "s"\nstatement = "eta and 2 eta make the same mistakes"\n'
                    'when = "pair"\nvariants = ["rosenblatt"]\nassume = ["separable"]\npair = "eta"\n'
                    'relation = "same_mistakes"\nexpect = "holds"\n')
    [f] = verify.audit([str(path)], jobs=1)
    assert f.verdict == verify.Verdict.REFUTED, f
    monkeypatch.chdir(tmp_path)
    rc, out = _run_printed(f.evidence["replay"])
    assert rc == 1 and "p.eta: refuted" in out and "parts from this one at update" in out, out


def test_every_printed_replay_reproduces_its_refutation(tmp_path, monkeypatch):
    """A refutation found at the second (LP vertex) separator prints a command that checks at that
    separator; run as printed, it exits 1 and names the violation (it exited 0 without it)."""
    path = tmp_path / "claims_s.toml"
    path.write_text(HEAD + '[[claim]]\nid = "s.any"\nsection = "s"\nstatement = "gamma may be any separator\'s '
                    'unnormalised margin"\nwhen = "end"\nvariants = ["rosenblatt"]\nassume = ["separable", "w0_zero"]\n'
                    'expr = "mistakes <= R2/m_opt**2"\nexpect = "holds"\n')
    [f] = verify.audit([str(path)], jobs=1)
    assert f.verdict == verify.Verdict.REFUTED and "separator" in f.evidence["counterexample"]
    monkeypatch.chdir(tmp_path)
    rc, out = _run_printed(f.evidence["replay"])
    assert rc == 1 and "s.any: refuted" in out and "sides:" in out, out


def test_a_latex_label_can_be_a_claim_id(tmp_path):
    """thm:novikoff, a LaTeX note's label, is a claim id; a space or a slash is not."""
    path = tmp_path / "claims_l.toml"
    path.write_text(HEAD + _claim("thm:novikoff", "k >= 0", "mistakes >= 0"))
    assert [c.id for c in load_claims(str(path)).claims] == ["thm:novikoff"]
    for bad in ("thm novikoff", "thm/novikoff"):
        path.write_text(HEAD + _claim(bad, "k >= 0", "mistakes >= 0"))
        with pytest.raises(ClaimError, match="bad id"):
            load_claims(str(path))


@pytest.mark.parametrize("order", ["cyclic", "random:5"])
def test_a_cyclic_order_claim_is_searched_and_refuted_by_the_search(tmp_path, order):
    """A claim about the note's cyclic (or random:SEED) order is searched over ordered datasets
    run in that order; the newcomer's premise written as an or (no corpus run has 0 < |w0| <=
    gamma) is refuted by the search alone, and its printed replay reproduces it."""
    import json
    import shlex
    import subprocess
    import sys

    claims = tmp_path / "c.toml"
    claims.write_text('''[document]
file = "n.md"

[[claim]]
id = "cyc.bound"
section = "s"
statement = "from any w1 with |w1| <= gamma, mistakes <= R^2/gamma^2 (cyclic order)"
expr = "norm(w0) > gamma or mistakes <= R2/gamma**2"
variants = ["rosenblatt"]
when = "end"
assume = ["separable", "eta_one"]
orders = ["ORDER"]
expect = "holds"
'''.replace("ORDER", order))
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", str(claims), "--out", str(out), "--quiet",
                        "--jobs", "1"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    c = json.loads((out / "results.json").read_text())["claims"][0]
    assert c["verdict"] == "refuted" and "search" in c["evidence"]["counterexample"]
    assert f"order {order}" in c["evidence"]["search"]["domain_text"]
    assert c["evidence"]["counterexample"]["search"]["order"] == order  # run in the claim's order, not a sequence
    replay = c["evidence"]["replay"]
    assert replay.startswith("proof-audit search cyc.bound")
    rr = subprocess.run([sys.executable, "-m", "verify"] + shlex.split(replay)[1:], capture_output=True, text=True,
                        timeout=300, cwd=tmp_path)
    assert rr.returncode == 1 and "violated" in rr.stdout, rr.stdout + rr.stderr


def test_a_claim_of_several_orders_is_searched_in_each(tmp_path):
    """A claim about several orders is searched in each: none in D only when every order's
    search completed without one; refuted by the order that breaks it; the max-violation order and
    a sequence of points are among them; an order the search cannot run (a sequence naming point 12,
    past the domain's largest dataset) leaves the claim unsearched, saying why."""
    from verify.language.claims import load_claims
    from verify.searching import Domain, SearchError, search
    from verify.searching.domain import check_searchable

    p = tmp_path / "c.toml"
    head = '[document]\nfile = "n.md"\n\n'
    claim = ('[[claim]]\nid = "{cid}"\nsection = "s"\nstatement = "s"\nexpr = "{expr}"\nvariants = ["rosenblatt"]\n'
             'when = "{when}"\nassume = [{assume}]\norders = [{orders}]\nexpect = "holds"\n\n')
    p.write_text(head + claim.format(cid="two", expr="mistakes <= R2/gamma**2", when="end", assume='"separable", "w0_zero"',
                                     orders='"cyclic", "random:3"')
                 + claim.format(cid="sweeps", expr="sweep_mistakes <= 1", when="update", assume='',
                                orders='"first", "cyclic"')
                 + claim.format(cid="mv", expr="mistakes <= R2/gamma**2", when="end", assume='"separable", "w0_zero"',
                                orders='"cyclic", "max-violation"')
                 + claim.format(cid="seq", expr="mistakes <= R2/gamma**2", when="end", assume='"separable", "w0_zero"',
                                orders='"cyclic", "sequence:0,1"')
                 + claim.format(cid="far", expr="mistakes <= R2/gamma**2", when="end", assume='"separable"',
                                orders='"sequence:0,12"'))
    claims = {c.id: c for c in load_claims(str(p)).claims}
    dom = Domain(points=3, dim=2, box=1, max_updates=4, sep_box=2)
    res = search(claims["two"], dom, engine="enumerate", timeout=120)
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, res.to_json()
    assert "order cyclic:" in res.domain["text"] and "order random:3:" in res.domain["text"]
    res = search(claims["sweeps"], dom, engine="enumerate", timeout=120)  # one mistake per scan in first, not in cyclic
    assert res.verdict == verify.Verdict.REFUTED and res.counterexample.to_json()["order"] == "cyclic", res.to_json()
    res = search(claims["mv"], dom, engine="enumerate", timeout=120)
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and "order max-violation:" in res.domain["text"]
    res = search(claims["seq"], dom, engine="enumerate", timeout=120)
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and "order sequence:0,1:" in res.domain["text"]
    with pytest.raises(SearchError, match="sequence:0,12"):
        check_searchable(claims["far"])


def test_the_search_seeks_a_premise_met_before_it_says_none_in_the_domain(tmp_path):
    """A premise claim with no counterexample is 'no counterexample in domain' only when some
    candidate of the domain met the premise; a premise the domain never meets stays unknown."""
    from verify.language.claims import load_claims
    from verify.searching import Domain, search

    path = tmp_path / "claims_s.toml"
    path.write_text(HEAD + _claim("p.zero", "norm(w0) == 0", "mistakes <= R2 / gamma**2")
                    + _claim("p.none", "R < 0", "mistakes <= 0"))
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=2, dim=2, box=2, max_updates=4, sep_box=3)
    met = search(claims["p.zero"], dom, engine="enumerate", timeout=120)
    assert met.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, met
    assert "premise (given norm(w0) == 0) is met in the domain" in met.reason
    never = search(claims["p.none"], dom, engine="enumerate", timeout=120)
    assert never.verdict == verify.Verdict.UNKNOWN and "premise never met in the domain" in never.reason, never


def test_a_symbolic_refutation_comes_with_vectors_that_recheck_exactly(tmp_path):
    """z3's Gram model of a false step is turned into rational vectors; their inner products,
    computed here from the coordinates, satisfy the hypotheses and break the step."""
    from fractions import Fraction

    path = tmp_path / "claims_sym.toml"
    path.write_text(HEAD + '[[claim]]\nid = "sym.wrong"\nsection = "s"\nstatement = "s"\nwhen = "symbolic"\n'
                    'vectors = ["w", "x"]\nscalars = ["y"]\nhypotheses = ["y**2 == 1", "y*dot(w, x) <= -1"]\n'
                    'steps = ["norm2(w + y*x) >= norm2(w) + norm2(x)"]\nexpect = "holds"\n')
    [f] = verify.audit([str(path)], jobs=1)
    assert f.verdict == verify.Verdict.REFUTED, f
    (step,) = [s for s in f.evidence["steps"] if s["verdict"] == "refuted"]
    ce = step["counterexample"]
    w, x = ([Fraction(c) for c in ce["vectors"][k]] for k in ("w", "x"))
    y = Fraction(ce["y"])

    def dot(a, b):
        return sum(p * q for p, q in zip(a, b))

    assert y * y == 1 and y * dot(w, x) <= -1  # the hypotheses, at the vectors
    s = [p + y * q for p, q in zip(w, x)]
    assert not dot(s, s) >= dot(w, w) + dot(x, x)  # the step fails there, exactly
    assert "at the vectors w = (" in step["detail"]
    # the printed command re-checks it: run as printed, it exits 1 and names the failing step
    rc, out = _run_printed(f.evidence["replay"])
    assert rc == 1 and "refuted at these values" in out and "FAILS" in out, out


def test_a_symbolic_claim_at_values_that_do_not_refute_it(tmp_path, capsys):
    """proof-audit claims at: a hypothesis false there is no counterexample (0); a value missing
    or not a number is bad input (2), one line."""
    from verify.cli import main

    path = tmp_path / "claims_sym.toml"
    path.write_text(HEAD + '[[claim]]\nid = "sym.wrong"\nsection = "s"\nstatement = "s"\nwhen = "symbolic"\n'
                    'vectors = ["w", "x"]\nscalars = ["y"]\nhypotheses = ["y**2 == 1"]\n'
                    'steps = ["norm2(w + y*x) >= norm2(w) + norm2(x)"]\nexpect = "holds"\n')
    assert main(["claims", "at", "sym.wrong", "w=1,0", "x=1,0", "y=2", "--claims", str(path)]) == 0
    assert "a hypothesis does not hold" in capsys.readouterr().out
    assert main(["claims", "at", "sym.wrong", "w=1,0", "x=0,1", "y=1", "--claims", str(path)]) == 0
    assert "every step holds" in capsys.readouterr().out
    assert main(["claims", "at", "sym.wrong", "w=1,0", "x=-1,0", "y=1", "--claims", str(path)]) == 1
    assert main(["claims", "at", "sym.wrong", "w=1,0", "y=1", "--claims", str(path)]) == 2
    assert "no value given for x" in capsys.readouterr().err
    assert main(["claims", "at", "sym.wrong", "w=1,0", "x=1,nan", "y=1", "--claims", str(path)]) == 2
    assert main(["claims", "at", "sym.wrong", "w=1,0", "x=1", "y=1", "--claims", str(path)]) == 2


@pytest.mark.parametrize("scalar", [False, True])
def test_alpha_in_an_aggregate(tmp_path, scalar):
    """alpha, the updates made on each point, at the end of a run inside an aggregate: the dual
    representation w = sum_i alpha_i y_i x_i (w0 = 0, eta = 1) holds, and a false bound on it is
    refuted, the same from the column evaluator and from its scalar oracle."""
    path = tmp_path / "claims_alpha.toml"
    path.write_text(HEAD + '[[claim]]\nid = "a.sum"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "sum_i(alpha) == mistakes and dot(w, ones) == '
                    'sum_i(alpha*y*dot(x, ones))"\nexpect = "holds"\n\n'
                    '[[claim]]\nid = "a.once"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "max_i(alpha) <= 1"\nexpect = "holds"\n')
    _, bad, tallies = _replayed(path, "worked-example", Params(order="first"), scalar)
    assert bad is None and tallies["a.sum"].evaluations == 1 and tallies["a.sum"].violation is None
    assert tallies["a.once"].violation.sides == ["2", "1"]  # point 0 is taken twice (000's worked example)


def test_alpha_outside_an_aggregate_is_refused_with_its_reason(tmp_path):
    from verify.language.claims import ClaimError

    path = tmp_path / "claims_alpha_bad.toml"
    path.write_text(HEAD + '[[claim]]\nid = "a.bad"\nsection = "s"\nstatement = "s"\nwhen = "update"\n'
                    'variants = ["rosenblatt"]\nexpr = "alpha <= k"\nexpect = "holds"\n')
    with pytest.raises(ClaimError, match="alpha .* is defined in a run .*, inside min_i"):
        load_claims(str(path))


def test_a_pair_claim_as_an_expression_with_c_varied(tmp_path):
    """Two-run statements as expressions on both runs' ends: scaling eta by c (from w = 0)
    multiplies w by c and keeps the mistakes (holds, c varied over 1/2, 2, 3); "scaling the data
    by c divides the mistakes by c^2" is refuted, with the partner run and c named, and its
    printed replay reproduces it."""
    import json
    import subprocess
    import sys

    path = tmp_path / "claims_pair.toml"
    path.write_text(HEAD + '[[claim]]\nid = "p.eta"\nsection = "s"\nstatement = "s"\nwhen = "pair"\npair = "eta:c"\n'
                    'variants = ["rosenblatt"]\nassume = ["w0_zero"]\n'
                    'expr = "other_mistakes == mistakes and other_w == c*w"\nexpect = "holds"\n\n'
                    '[[claim]]\nid = "p.scale"\nsection = "s"\nstatement = "s"\nwhen = "pair"\npair = "scale:c"\n'
                    'variants = ["rosenblatt"]\nassume = ["w0_zero"]\nexpr = "other_mistakes == mistakes/c**2"\n'
                    'expect = "holds"\n\n'
                    '[[claim]]\nid = "p.sep"\nsection = "s"\nstatement = "s"\nwhen = "pair"\npair = "eta:c"\n'
                    'variants = ["rosenblatt"]\nassume = ["w0_zero", "separable"]\n'
                    'expr = "other_mistakes == mistakes and mistakes <= R2/gamma**2"\nexpect = "holds"\n')
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", str(path), "--out", str(out), "--quiet",
                        "--jobs", "1", "--depth", "1"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    by_id = {c["id"]: c for c in json.loads((out / "results.json").read_text())["claims"]}
    eta = by_id["p.eta"]
    # the corpus varied c, and the pair search found no disagreement in its domain
    assert eta["verdict"] == "no counterexample in domain", eta
    assert "engine pair runs" in eta["evidence"]["search"]["domain_text"]
    # its scope as fields, as every search's: the runs' length, w0 and rates too
    assert {"points", "box", "max_updates", "w0_box", "etas"} <= set(eta["evidence"]["scope"]), eta["evidence"]["scope"]
    assert eta["evidence"]["scope"]["w0_box"] == 0 and "separators: none" in eta["evidence"]["search"]["domain_text"]
    # a pair search judges with each dataset's certified separator only: not a search of every separator
    sep = by_id["p.sep"]
    assert sep["verdict"] != "no counterexample in domain" and "ranges over every separator" in \
        sep["evidence"]["search"]["not searched"], sep["evidence"]
    assert eta["evidence"]["quantifiers"]["c"] == {"range": eta["evidence"]["quantifiers"]["c"]["range"],
                                                   "values_evaluated": ["1/2", "2", "3"], "varied": True}
    scale = by_id["p.scale"]
    ce = scale["evidence"]["counterexample"]
    assert scale["verdict"] == "refuted" and ce["c"] == "1/2" and "scaled by 1/2" in ce["partner"], ce
    rc, text = _run_printed(scale["evidence"]["replay"].replace("ce.jsonl", str(tmp_path / "ce.jsonl"))
                            .replace(str(path), str(path)))
    assert rc == 1 and "p.scale: refuted" in text, text
    # each side named by its text: which value is the partner run's
    assert "sides: other_mistakes = " in text and " == mistakes/c**2 = " in text, text
    assert "sides: other_mistakes = " in r.stdout, r.stdout


def test_a_pair_claim_states_a_relation_or_an_expr_not_both(tmp_path):
    from verify.language.claims import ClaimError

    path = tmp_path / "claims_pair_bad.toml"
    path.write_text(HEAD + '[[claim]]\nid = "p.both"\nsection = "s"\nstatement = "s"\nwhen = "pair"\npair = "eta:c"\n'
                    'variants = ["rosenblatt"]\nrelation = "same_mistakes"\nexpr = "other_mistakes == mistakes"\n'
                    'expect = "holds"\n')
    with pytest.raises(ClaimError, match="either a relation .* or an expr"):
        load_claims(str(path))


def test_an_or_under_a_conditional_is_not_split_as_an_implication(tmp_path):
    """Only a top-level `or` (by the grammar, not the text) is read as an implication:
    `A or B if C else D` is a conditional whose branch holds the or."""
    from verify.language.sides import split_implication

    assert split_implication("mistakes >= 100 or converged == 0 if k > 1000 else mistakes <= 0") is None
    assert split_implication("x if a or b else y") is None
    assert split_implication("converged == 0 or min_i(y*dot(w, x)) > 0") == ("converged == 0", "min_i(y*dot(w, x)) > 0")
    path = tmp_path / "claims_if.toml"
    path.write_text(HEAD + '[[claim]]\nid = "c.if"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "mistakes >= 100 or converged == 0 if k > 1000 else mistakes <= 0"\n'
                    'expect = "holds"\n')
    (claim,) = load_claims(str(path)).claims
    assert claim.given is None and not claim.implied


def test_a_premise_and_expression_too_long_together_are_not_searched_and_say_why(tmp_path):
    given = " and ".join(["k >= 0"] * 60)  # about 240 syntax nodes each: within the limit of 400 apart,
    expr = " and ".join(["mistakes >= 0"] * 60)  # over it together
    path = tmp_path / "claims_long.toml"
    path.write_text(HEAD + _claim("p.long", given, expr))
    [f] = verify.audit([str(path)], jobs=1)
    assert "exceed the expression limits" in f.evidence["search"]["not searched"], f.evidence["search"]


VISITS = HEAD + '''[[claim]]
id = "v.margin"
section = "s"
statement = "after the first update every visited point has y w.x >= 0"
when = "visit"
variants = ["rosenblatt"]
expr = "k == 0 or y*dot(w, x) >= 0"
expect = "holds"

[[claim]]
id = "v.score"
section = "s"
statement = "the score is w.x, and a point is a mistake when y w.x <= 0"
when = "visit"
variants = ["rosenblatt"]
expr = "score == dot(w, x) and (out != y or y*score > 0)"
expect = "holds"

'''


def test_visit_claims_are_searched_in_a_deterministic_order(tmp_path, monkeypatch):
    """A visit claim is searched over the visits of cyclic runs (the visits 'any' has none of):
    the false one is refuted and its printed replay reproduces it; the true one has none in D."""
    from verify.searching import Domain, search

    path = tmp_path / "claims_v.toml"
    path.write_text(VISITS)
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=2, dim=2, box=2, max_updates=3, sep_box=2)
    res = search(claims["v.margin"], dom, engine="enumerate", timeout=60, out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED and res.domain["order"] == "cyclic", res.to_json()
    monkeypatch.chdir(tmp_path)
    rc, out = _run_printed(res.files["replay"])
    assert rc == 1 and "v.margin: refuted" in out, out
    res = search(claims["v.score"], dom, engine="enumerate", timeout=60)
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, res.to_json()
    with pytest.raises(Exception, match="deterministic order"):
        search(claims["v.score"], Domain(points=2, dim=2, box=2, max_updates=3, order="any"), engine="enumerate",
               widen=False)


SWEEPS = HEAD + '''[[claim]]
id = "s.every-but-last"
section = "s"
statement = "every sweep but the last makes a mistake"
when = "visit"
variants = ["rosenblatt"]
orders = ["cyclic"]
given = "sweep_visits == n and sweep < epochs"
expr = "sweep_mistakes >= 1"
expect = "holds"

[[claim]]
id = "s.last-clean"
section = "s"
statement = "the last sweep of a converged run makes no mistake, and every earlier one does"
when = "visit"
variants = ["rosenblatt"]
orders = ["cyclic"]
given = "converged == 1 and sweep_visits == n"
expr = "(sweep == epochs) == (sweep_mistakes == 0)"
expect = "holds"

[[claim]]
id = "s.one-per-sweep"
section = "s"
statement = "each sweep makes at most one mistake (false)"
when = "update"
variants = ["rosenblatt"]
expr = "sweep_mistakes <= 1 and sweep_mistakes <= k and k <= mistakes"
expect = "holds"

'''


@pytest.mark.parametrize("scalar", [False, True])
@pytest.mark.parametrize("order", ["cyclic", "random:3"])
def test_sweep_quantities(tmp_path, scalar, order):
    """The sweep of a visit or update (its number, its visits, its mistakes so far, this visit's
    included) and the whole run's mistakes and epochs at every step (from the end record the
    replay checks): "every sweep but the last makes a mistake" holds; "at most one per sweep" is
    refuted at the second update of a sweep; the same
    from the column evaluator and its scalar oracle."""
    path = tmp_path / "claims_s.toml"
    path.write_text(SWEEPS)
    trace, bad, tallies = _replayed(path, "separable-d2-g1_20", Params(order=order), scalar)
    assert bad is None
    epochs = trace.end["epochs"]
    if order == "cyclic":
        for cid in ("s.every-but-last", "s.last-clean"):
            t = tallies[cid]
            assert t.violation is None and t.unknown is None and t.evaluations == epochs - (cid == "s.every-but-last"), (cid, t)
    v = tallies["s.one-per-sweep"].violation.to_json()
    assert v["parts"][0] == "2 <= 1 (false)" and v["parts"][2].endswith(f"<= {len(trace.upd_t)} (true)"), v
    ep = [int(e) for e, m in zip(trace.epoch, trace.mistake) if m]
    ks = [j for j in range(1, len(ep)) if ep[j] == ep[j - 1]]
    assert v["k"] == ks[0] + 1  # the first update that is a sweep's second


@pytest.mark.parametrize("scalar", [False, True])
def test_alpha_so_far_at_every_update_and_visit(tmp_path, scalar):
    """alpha is the updates made on each point so far: at each update of a run from w0 the
    weights are w0 + eta sum_i alpha_i y_i x_i and the alphas sum to k (at a visit, before its
    own update); "no point is taken twice" is refuted at the first point taken a second time;
    the column evaluator and its scalar oracle agree."""
    path = tmp_path / "claims_alpha_k.toml"
    path.write_text(HEAD + '''[[claim]]
id = "a.dual"
section = "s"
statement = "w = w0 + eta sum_i alpha_i y_i x_i at every update"
when = "update"
variants = ["rosenblatt"]
expr = "w == w0 + eta*sum_i(alpha*y*x) and sum_i(alpha) == k"
expect = "holds"

[[claim]]
id = "a.visit"
section = "s"
statement = "at a visit the alphas count the updates before it"
when = "visit"
variants = ["rosenblatt"]
expr = "sum_i(alpha) == k and all_i(alpha >= 0)"
expect = "holds"

[[claim]]
id = "a.twice"
section = "s"
statement = "no point is taken twice (false)"
when = "update"
variants = ["rosenblatt"]
expr = "max_i(alpha) <= 1"
expect = "holds"
''')
    trace, bad, tallies = _replayed(path, "separable-d2-g1_20", Params(order="first", eta=Fraction(1, 2),
                                                                      w0=(Fraction(1), Fraction(-2))), scalar)
    assert bad is None
    K = len(trace.upd_t)
    assert tallies["a.dual"].evaluations == K and tallies["a.dual"].violation is None, tallies["a.dual"]
    assert tallies["a.visit"].evaluations == len(trace.t) and tallies["a.visit"].violation is None
    pts = [int(trace.i[list(trace.t).index(t)]) for t in trace.upd_t]
    second = next(j for j in range(K) if pts[j] in pts[:j]) + 1
    v = tallies["a.twice"].violation.to_json()
    assert v["k"] == second and v["sides"] == ["2", "1"], v


def test_counts_of_the_run_so_far_are_refused_inside_prev(tmp_path):
    """Counts of the run so far, and what a visit is about (its point, label, score, number: a
    newcomer's prev(i) read the current i, so "prev(i) != i" was quietly false), are refused
    inside prev(): it goes back to states only."""
    for expr in ("prev(sweep_mistakes) >= 0", "prev(sum_i(alpha)) <= k", "prev(i) != i", "prev(t) < t",
                 "prev(dot(w, x)) <= 0", "prev(score) <= score"):
        path = tmp_path / "p.toml"
        path.write_text(HEAD + f'''[[claim]]
id = "p"
section = "s"
statement = "s"
when = "update"
variants = ["rosenblatt"]
expr = "{expr}"
expect = "holds"
''')
        with pytest.raises(ClaimError, match="inside prev"):
            load_claims(str(path))


def test_alpha_at_updates_is_searched(tmp_path):
    from verify.searching import Domain, search

    path = tmp_path / "claims_alpha_s.toml"
    path.write_text(HEAD + '''[[claim]]
id = "a.dual"
section = "s"
statement = "w = w0 + eta sum_i alpha_i y_i x_i at every update"
when = "update"
variants = ["rosenblatt"]
expr = "w == w0 + eta*sum_i(alpha*y*x)"
expect = "holds"

[[claim]]
id = "a.twice"
section = "s"
statement = "no point is taken twice (false)"
when = "update"
variants = ["rosenblatt"]
expr = "max_i(alpha) <= 1"
expect = "holds"
''')
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=2, dim=2, box=1, max_updates=3)
    res = search(claims["a.dual"], dom, engine="enumerate", timeout=120)
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, res.to_json()
    res = search(claims["a.twice"], dom, engine="enumerate", timeout=120)
    assert res.verdict == verify.Verdict.REFUTED and len(res.counterexample.to_json()["updates"]) == 2, res.to_json()


def test_sweeps_are_not_defined_at_the_end_and_mistakes_before_it_are_searched(tmp_path):
    """sweep_mistakes at the end is a load error; an update claim that reads the sweep and the
    run's mistakes is searched in the cyclic order, each run followed to its end, and refuted."""
    from verify.searching import Domain, search

    path = tmp_path / "claims_s_end.toml"
    path.write_text(HEAD + '[[claim]]\nid = "e"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["rosenblatt"]\nexpr = "sweep_mistakes == 0"\nexpect = "holds"\n')
    with pytest.raises(ClaimError, match="sweep_mistakes describe the sweep of a visit or update") as e:
        load_claims(str(path))
    assert e.value.line == 11, str(e.value)
    path.write_text(SWEEPS)
    claim = next(c for c in load_claims(str(path)).claims if c.id == "s.one-per-sweep")
    res = search(claim, Domain(points=2, dim=2, box=2, max_updates=3), engine="enumerate", timeout=60)
    assert res.verdict == verify.Verdict.REFUTED and res.domain["order"] == "cyclic", res.to_json()
    assert res.counterexample.to_json()["violation"]["parts"][0] == "2 <= 1 (false)", res.counterexample


FREE = HEAD + '''[[claim]]
id = "f.any-w"
section = "s"
statement = "every w classifies the data correctly (false: for all w)"
when = "dataset"
variants = ["rosenblatt"]
free = ["w"]
expr = "norm2(w) == 0 or all_i(y*dot(w, x) > 0)"
expect = "holds"

[[claim]]
id = "f.scale"
section = "s"
statement = "scaling w by a positive c keeps the sign of every score"
when = "dataset"
variants = ["rosenblatt"]
free = ["w", "c:positive"]
expr = "all_i(sign(dot(c*w, x)) == sign(dot(w, x)))"
expect = "holds"

[[claim]]
id = "b.same"
section = "s"
statement = "for integer points, R^2 > 1 exactly when R^2 >= 2"
when = "dataset"
variants = ["rosenblatt"]
expr = "(R2 > 1) == (R2 >= 2)"
expect = "holds"

[[claim]]
id = "b.wrong"
section = "s"
statement = "R^2 > 1 exactly when R^2 >= 3 (false at R^2 = 2)"
when = "dataset"
variants = ["rosenblatt"]
expr = "(R2 > 1) == (R2 >= 3)"
expect = "holds"
'''


@pytest.mark.parametrize("cid,want", [("f.any-w", "refuted"), ("f.scale", "none"), ("b.same", "none"),
                                      ("b.wrong", "refuted")])
def test_free_names_and_compared_conditions_are_searched(tmp_path, cid, want):
    """Free names are enumerated with each dataset in the search (as the replay enumerates them,
    which confirms); conditions compared with == / != are decided row by row (the interval
    screen compared the first row's values only)."""
    from verify.searching import Domain, search

    path = tmp_path / "claims_f.toml"
    path.write_text(FREE)
    claim = next(c for c in load_claims(str(path)).claims if c.id == cid)
    res = search(claim, Domain(points=2, dim=2, box=1), engine="enumerate", timeout=60)
    assert res.verdict == (verify.Verdict.REFUTED if want == "refuted" else verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN), \
        res.to_json()
    if claim.free:
        assert "free names at every assignment" in res.domain["runs"]


DUAL = HEAD + '''[[claim]]
id = "d.dual"
section = "s"
statement = "w = sum_i alpha_i y_i x_i (from w = 0, eta = 1)"
when = "end"
variants = ["rosenblatt"]
assume = ["w0_zero", "eta_one"]
expr = "w == sum_i(alpha*y*x)"
expect = "holds"

[[claim]]
id = "d.labels-forgotten"
section = "s"
statement = "w = sum_i alpha_i x_i"
when = "end"
variants = ["rosenblatt"]
assume = ["w0_zero", "eta_one"]
expr = "w == sum_i(alpha*x)"
expect = "holds"
'''


@pytest.mark.parametrize("scalar", [False, True])
def test_a_sum_of_vectors_in_both_evaluators(tmp_path, scalar):
    """sum_i of a vector (the dual form's w = sum_i alpha_i y_i x_i) is exact in the column
    evaluator and in its oracle; the version without the labels fails with both sides shown."""
    path = tmp_path / "claims_dual.toml"
    path.write_text(DUAL)
    _, bad, tallies = _replayed(path, "worked-example", Params(variant="rosenblatt", order="cyclic"), scalar)
    assert bad is None
    assert tallies["d.dual"].violation is None and tallies["d.dual"].evaluations == 1
    v = tallies["d.labels-forgotten"].violation.to_json()
    assert v is not None and v["sides"] == ["(2, 4)", "(-6, 0)"], v


def test_alpha_and_a_sum_of_vectors_are_searched(tmp_path):
    """The search counts alpha_i on each run's path (runs to the same w by other counts are kept
    apart): the dual form has none in D, the one without labels is refuted."""
    from verify.searching import Domain, search

    path = tmp_path / "claims_dual.toml"
    path.write_text(DUAL)
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=2, dim=2, box=2, max_updates=4)
    assert search(claims["d.dual"], dom, engine="enumerate", timeout=60).verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
    assert search(claims["d.labels-forgotten"], dom, engine="enumerate", timeout=60).verdict == verify.Verdict.REFUTED


AT_UPDATE = HEAD + '''[[claim]]
id = "at.scale"
section = "s"
statement = "from w = 0, every w_k of the run with c eta is c times the run's w_k"
when = "pair"
pair = "eta:c"
at = "update"
variants = ["rosenblatt"]
assume = ["w0_zero"]
expr = "other_w == c*w"
expect = "holds"

[[claim]]
id = "at.scale-any-w0"
section = "s"
statement = "from any w0, every w_k of the run with c eta is c times the run's w_k"
when = "pair"
pair = "eta:c"
at = "update"
variants = ["rosenblatt"]
expr = "other_w == c*w"
expect = "holds"
'''


def test_a_pair_expr_at_every_aligned_update(tmp_path, capsys):
    """at = "update": the k-th update of one run beside the k-th of the other; from any w0 the
    scaling fails after some update, named with the partner and c, and check shows where."""
    from verify.cli import main

    path = tmp_path / "claims_at.toml"
    path.write_text(AT_UPDATE)
    by_id = {f.claim_id: f for f in verify.audit([str(path)], jobs=1, depth=1)}
    assert by_id["at.scale"].verdict in (verify.Verdict.HOLDS_ON_EVIDENCE, verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN)
    bad = by_id["at.scale-any-w0"]
    assert bad.verdict == verify.Verdict.REFUTED, bad
    ce = bad.evidence["counterexample"]
    assert ce["at_update"] >= 1 and "c" in ce and "w0" in ce["partner"], ce
    rc, out = _run_printed(bad.evidence["replay"])
    assert rc == 1 and "parts from this one after update" in out and "sides:" in out, out
    path.write_text(AT_UPDATE.replace('at = "update"', 'at = "sometimes"', 1))
    assert main(["claims", "lint", str(path)]) == 2
    assert "a pair expr is evaluated at" in capsys.readouterr().out


def test_a_pair_claim_of_a_declared_variant_is_searched_with_its_parameters(tmp_path, monkeypatch):
    """The margin perceptron's mistakes depend on eta (tau is not scaled with it): the pair
    search, with tau at its default, half and twice it, finds two runs that part, and its printed
    replay (the claim file declares the variant) reproduces it."""
    import shutil

    from verify.searching import Domain, search

    path = tmp_path / "margin.toml"
    shutil.copy(os.path.join(os.path.dirname(__file__), "..", "examples", "variants", "margin.toml"), path)
    with open(path, "a") as fh:
        fh.write('\n[[claim]]\nid = "m.eta-free"\nsection = "s"\nstatement = "the mistakes do not depend on eta"\n'
                 'when = "pair"\npair = "eta"\nvariants = ["margin"]\nassume = ["w0_zero"]\n'
                 'relation = "same_mistakes"\nexpect = "holds"\n')
    claim = next(c for c in load_claims(str(path)).claims if c.id == "m.eta-free")
    res = search(claim, Domain(points=2, dim=2, box=2), timeout=60, out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED and "tau in {1/2, 1, 2}" in res.domain["runs"], res.to_json()
    monkeypatch.chdir(tmp_path)
    rc, out = _run_printed(res.files["replay"])
    assert rc == 1 and "parts from this one" in out, out


def test_runs_cut_by_the_update_bound_are_searched_as_stopped_by_budget(tmp_path, monkeypatch):
    """An end claim that speaks of stopped_by_budget sees the runs the domain's update bound cuts
    (converged = 0, stopped_by_budget = 1); its counterexample is a run cut at that bound, and the
    printed replay (a trace written with the same --max-updates) reproduces it."""
    from verify.searching import Domain, search

    path = tmp_path / "claims_budget.toml"
    path.write_text(HEAD + '[[claim]]\nid = "b.small"\nsection = "s"\nstatement = "a run either converges or has made '
                    'at most one mistake when cut (false)"\nwhen = "end"\nvariants = ["rosenblatt"]\n'
                    'assume = ["separable", "w0_zero"]\nexpr = "(stopped_by_budget == 1 and mistakes <= 1) or '
                    'converged == 1"\nexpect = "holds"\n')
    claim = load_claims(str(path)).claims[0]
    res = search(claim, Domain(points=2, dim=2, box=2, max_updates=3), engine="enumerate", timeout=60,
                 out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED and "stopped by budget" in res.domain["runs"], res.to_json()
    assert res.counterexample.to_json()["params"]["max_updates"] == 3
    monkeypatch.chdir(tmp_path)
    rc, out = _run_printed(res.files["replay"])
    assert rc == 1 and "b.small: refuted" in out, out


def test_no_augment_holds_a_claim_to_runs_on_the_data_as_given(tmp_path):
    """"Scaling the data keeps the mistakes" is true of the perceptron through the origin and false
    of the corpus's runs that add a constant coordinate (it is not scaled): no_augment says which
    perceptron the note means (a newcomer's true statement was refuted without it)."""
    claim = ('[[claim]]\nid = "s.scale{tag}"\nsection = "s"\nstatement = "s"\nwhen = "pair"\npair = "scale:c"\n'
             'variants = ["rosenblatt"]\nassume = ["w0_zero"{extra}]\nexpr = "other_mistakes == mistakes"\n'
             'expect = "holds"\n\n')
    path = tmp_path / "claims_scale.toml"
    path.write_text(HEAD + claim.format(tag="", extra="") + claim.format(tag=".origin", extra=', "no_augment"'))
    by_id = {f.claim_id: f for f in verify.audit([str(path)], jobs=1, depth=1)}
    assert by_id["s.scale"].verdict == verify.Verdict.REFUTED
    assert "--augment" in by_id["s.scale"].evidence["replay"]
    origin = by_id["s.scale.origin"]
    assert origin.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and origin.evidence["evaluations"] > 0, origin


NONSEP = HEAD + '''[[claim]]
id = "ns.norm"
section = "s"
statement = "even on non-separable data, |w_k|^2 <= k R^2"
when = "update"
variants = ["rosenblatt"]
assume = ["nonseparable", "w0_zero", "eta_one"]
expr = "norm2(w) <= k * R2"
expect = "holds"

[[claim]]
id = "ns.few"
section = "s"
statement = "on non-separable data the perceptron makes at most 2 mistakes (false)"
when = "update"
variants = ["rosenblatt"]
assume = ["nonseparable"]
expr = "k <= 2"
expect = "holds"

[[claim]]
id = "ns.never"
section = "s"
statement = "on non-separable data the perceptron never converges"
when = "end"
variants = ["novikoff"]
assume = ["nonseparable"]
expr = "stopped_by_budget == 1"
expect = "holds"
'''


def test_nonseparable_claims_are_searched_on_certified_datasets(tmp_path):
    """A claim assuming non-separable data is searched over the datasets of D that certify
    exactly as non-separable: a true bound has none in D (and the domain says which datasets),
    a false one is refuted on a certified dataset and its replay reproduces it."""
    import subprocess
    import sys

    from verify.certify.certificates import certify_points
    from verify.searching import Domain, SearchError, search

    path = tmp_path / "claims_ns.toml"
    path.write_text(NONSEP)
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=3, dim=2, box=1, max_updates=4)
    for cid in ("ns.norm", "ns.never"):
        res = search(claims[cid], dom, engine="enumerate", timeout=120)
        assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, res.to_json()
        assert "exact non-separability certificate" in res.domain["datasets"]
    res = search(claims["ns.few"], dom, engine="enumerate", timeout=120, out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED, res.to_json()
    ce = res.counterexample.to_json()
    from fractions import Fraction

    assert certify_points([[Fraction(v) for v in p] for p in ce["points"]], ce["labels"], bias=False).kind == "nonseparable"
    r = subprocess.run([sys.executable, "-m", "verify"] + res.files["replay"].split()[1:], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "ns.few: refuted" in r.stdout, r.stdout + r.stderr
    with pytest.raises(SearchError, match="each candidate dataset is certified"):
        search(claims["ns.few"], dom, engine="z3", timeout=30)


def test_linear_kernel_claims_are_searched_as_the_runs_they_are(tmp_path):
    """The kernel perceptron with the linear kernel is searched (its scores are w.x with w = eta
    sum_i alpha_i y_i x_i, from alpha = 0): a true identity has none in D, a false bound on
    alpha is refuted and replayed by the kernel learner itself; z3 refuses a claim about any kernel."""
    import subprocess
    import sys

    from verify.searching import Domain, SearchError, search

    path = tmp_path / "claims_k.toml"
    path.write_text(HEAD + '''[[claim]]
id = "k.solution"
section = "s"
statement = "the kernel score is w.x"
when = "visit"
variants = ["kernel"]
assume = ["kernel_linear"]
expr = "score == dot(w, x)"
expect = "holds"

[[claim]]
id = "k.once"
section = "s"
statement = "at most one mistake per point (false)"
when = "end"
variants = ["kernel"]
assume = ["kernel_linear", "separable"]
expr = "max_i(alpha) <= 1"
expect = "holds"

[[claim]]
id = "k.any"
section = "s"
statement = "any kernel"
when = "end"
variants = ["kernel"]
expr = "mistakes >= 0"
expect = "holds"
''')
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=2, dim=2, box=2, max_updates=4, sep_box=3, w0_box=1)
    res = search(claims["k.once"], dom, engine="enumerate", timeout=120, out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED and res.counterexample.to_json()["variant"] == "kernel", res.to_json()
    assert "w0 = 0" in res.domain["runs"]  # alpha = 0 whatever the w0 box asked
    r = subprocess.run([sys.executable, "-m", "verify"] + res.files["replay"].split()[1:], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "k.once: refuted" in r.stdout, r.stdout + r.stderr
    res = search(claims["k.solution"], dom, engine="enumerate", timeout=120)
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, res.to_json()
    with pytest.raises(SearchError, match="any kernel: its runs are searched by the enumeration"):
        search(claims["k.any"], dom, engine="z3", timeout=30)


def test_claims_about_any_kernel_are_searched_on_the_learners_kernel_runs(tmp_path):
    """A claim about the kernel perceptron with any kernel is searched on the learner's own runs
    with the linear and polynomial kernels (exact on integer data) in each deterministic order:
    an identity of alpha has none in D, and the domain says which kernels it covered and that
    RBF's are not; Novikoff's bound quoted for any kernel (R and gamma of the input space) is
    refuted by a polynomial kernel, and the printed command replays it (exit 1)."""
    import subprocess
    import sys

    from verify.searching import Domain, search

    path = tmp_path / "claims_kany.toml"
    path.write_text(HEAD + '''[[claim]]
id = "k.alpha"
section = "s"
statement = "the alphas add up to the mistakes"
when = "end"
variants = ["kernel"]
assume = ["eta_one", "sign0_zero"]
expr = "sum_i(alpha) == mistakes"
expect = "holds"

[[claim]]
id = "k.bound"
section = "s"
statement = "with any kernel, at most R^2/gamma^2 mistakes"
when = "end"
variants = ["kernel"]
assume = ["separable", "eta_one", "sign0_zero"]
expr = "mistakes <= R2 / gamma**2"
expect = "holds"
''')
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=2, dim=2, box=1, max_updates=3, sep_box=2)
    res = search(claims["k.alpha"], dom, engine="enumerate", timeout=300)
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, res.to_json()
    text = res.domain["text"]
    assert "poly (x.z + 1)^2" in text and "rbf not searched" in text and "order max-violation" in text, text
    res = search(claims["k.bound"], dom, engine="enumerate", timeout=300, out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED and res.counterexample.to_json()["params"]["kernel"] == "poly", res.to_json()
    r = subprocess.run([sys.executable, "-m", "verify"] + res.files["replay"].split()[1:], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "k.bound: refuted" in r.stdout, r.stdout + r.stderr


def test_a_claim_names_its_kernel_and_the_evidence_varies_it(tmp_path):
    """kernel_degree and kernel_offset name the kernel (x.z + c)^p of a run (the linear kernel is
    p = 1, c = 0), so a note's "with the kernel (x.z + 1)^2" is a premise: refuted by the search
    on that kernel, with the claim's own sides (not the implication's parts); a claim about any
    kernel counts the kernel among what the corpus must vary, and says which it evaluated."""
    from verify.searching import Domain, search

    path = tmp_path / "claims_kpoly.toml"
    path.write_text(HEAD + '''[[claim]]
id = "k.poly-bound"
section = "s"
statement = "with the kernel (x.z + 1)^2, at most R^2/gamma^2 mistakes"
when = "end"
variants = ["kernel"]
assume = ["separable", "eta_one", "no_augment"]
given = "kernel_degree == 2 and kernel_offset == 1"
expr = "mistakes <= R2 / gamma**2"
expect = "holds"

[[claim]]
id = "k.alpha-sum"
section = "s"
statement = "the alphas add up to the mistakes, with any kernel"
when = "update"
variants = ["kernel"]
assume = ["eta_one"]
orders = ["cyclic"]
expr = "sum_i(alpha) == k"
expect = "holds"
''')
    claims = {c.id: c for c in load_claims(str(path)).claims}
    res = search(claims["k.poly-bound"], Domain(points=2, dim=2, box=1, max_updates=3, sep_box=2), engine="enumerate",
                 timeout=300)
    ce = res.counterexample.to_json()
    assert res.verdict == verify.Verdict.REFUTED and (ce["params"]["degree"], ce["params"]["offset"]) == (2, "1"), ce
    assert ce["violation"]["sides"][0] == str(ce["summary"]["updates"]) and "parts" not in ce["violation"], ce
    # (depth 1: the corpus's kernels are the point here; the search above refutes k.poly-bound)
    by_id = {f.claim_id: f for f in verify.audit([str(path)], jobs=1, depth=1, only=["k.alpha-sum"])}
    q = by_id["k.alpha-sum"].evidence["quantifiers"]["kernel"]
    assert q["varied"] and set(q["values_evaluated"]) == {"linear", "(x.z + 1)^2"}, q


def test_a_linear_kernel_claim_that_names_its_kernel_is_searched_on_the_linear_kernel_only(tmp_path):
    """A claim assuming the linear kernel that reads kernel_degree is searched with the learner's
    kernel runs, but only the linear kernel's: its domain names no kernel it was not evaluated on."""
    from verify.searching import Domain, search

    path = tmp_path / "k.toml"
    path.write_text(HEAD + '''[[claim]]
id = "k.linear-degree"
section = "s"
statement = "the linear kernel is of degree 1"
when = "update"
variants = ["kernel"]
assume = ["kernel_linear"]
orders = ["cyclic"]
expr = "kernel_degree == 1 and sum_i(alpha) == k"
expect = "holds"
''')
    (claim,) = load_claims(str(path)).claims
    res = search(claim, Domain(points=2, dim=2, box=1, max_updates=3, order="cyclic"), engine="enumerate", timeout=300)
    text = res.domain["runs"]
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, res
    assert "kernels {linear}" in text and "poly" not in text.split("rbf")[0], text


@pytest.mark.parametrize("order", ["cyclic", "first", "random:4"])
def test_sweeps_are_searched_in_a_deterministic_order(tmp_path, order):
    """The search follows each run's sweeps (epoch, its visits, its mistakes so far): identities
    of the sweeps have none in D (a wrong sweep count, position or tally would break one); a
    newcomer's false "a sweep makes at most n - 1 mistakes" (which the corpus let through)
    is refuted, and its replay reproduces it."""
    import subprocess
    import sys

    from verify.searching import Domain, search

    visits = order != "random:4"  # visit claims are searched in the first and cyclic orders
    ident = {"cyclic": "sweep_visits == i + 1 and sweep_mistakes <= sweep_visits and sweep <= k + 1",
             "first": "sweep == k + 1 and sweep_visits == i + 1 and (sweep_mistakes == 1) == (out != y)",
             "random:4": "sweep_mistakes >= 1"}[order]
    path = tmp_path / "claims_sw.toml"
    path.write_text(HEAD + f'''[[claim]]
id = "sw.ident"
section = "s"
statement = "s"
when = "{'visit' if visits else 'update'}"
variants = ["rosenblatt"]
orders = ["{order}"]
expr = "{ident}"
expect = "holds"

[[claim]]
id = "sw.update"
section = "s"
statement = "s"
when = "update"
variants = ["rosenblatt"]
orders = ["{order}"]
expr = "sweep_mistakes >= 1 and sweep <= k and sweep_visits <= n"
expect = "holds"

[[claim]]
id = "sw.at-most-n-1"
section = "s"
statement = "a sweep makes at most n - 1 mistakes when n >= 2 (false)"
when = "{'visit' if visits else 'update'}"
variants = ["rosenblatt"]
orders = ["{order}"]
assume = ["w0_zero", "eta_one"]
given = "n >= 2"
expr = "sweep_mistakes <= n - 1"
expect = "holds"
''')
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=3, dim=2, box=1, max_updates=4)
    for cid in ("sw.ident", "sw.update"):
        res = search(claims[cid], dom, engine="enumerate", timeout=120)
        assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, (cid, res.to_json())
    res = search(claims["sw.at-most-n-1"], dom, engine="enumerate", timeout=120, out_dir=str(tmp_path / "ce"))
    if order == "first":  # one mistake per scan: true in this order
        assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, res.to_json()
        return
    assert res.verdict == verify.Verdict.REFUTED, res.to_json()
    r = subprocess.run([sys.executable, "-m", "verify"] + res.files["replay"].split()[1:], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "sw.at-most-n-1: refuted" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("order", [pytest.param("cyclic", marks=pytest.mark.slow), "first", "random:2",
                                   "max-violation"])  # (cyclic: 20 s of search)
def test_visits_and_epochs_are_searched_as_the_learner_counts_them(tmp_path, order):
    """t (the visit's number) and epochs (at a run's end: converged, or cut by the bound) follow
    the learner's counting in each deterministic order: identities have none in D (a count off by
    one breaks one), and a false bound on the epochs is refuted and replayed."""
    import subprocess
    import sys

    from verify.searching import Domain, search

    visit = {"cyclic": "t == (sweep - 1) * n + i + 1", "first": "t >= k + sweep_visits and sweep == k + 1",
             "random:2": "t >= k and t <= (sweep - 1) * n + sweep_visits and t > (sweep - 1) * n",
             "max-violation": "t == k + sweep_visits and sweep == k + 1 and (sweep_mistakes == 0 or sweep_visits == 1)"}[order]
    end = {"cyclic": "epochs >= 1 and epochs <= mistakes + 1", "first": "epochs == mistakes + 1",
           "random:2": "epochs >= 1 and epochs <= mistakes + 1", "max-violation": "epochs == mistakes + 1"}[order]
    path = tmp_path / "claims_t.toml"
    path.write_text(HEAD + f'''[[claim]]
id = "t.ident"
section = "s"
statement = "s"
when = "{'update' if order.startswith('random') else 'visit'}"
variants = ["rosenblatt"]
orders = ["{order}"]
expr = "{visit}"
expect = "holds"

[[claim]]
id = "t.end"
section = "s"
statement = "s"
when = "end"
variants = ["rosenblatt"]
orders = ["{order}"]
expr = "{end} and (stopped_by_budget == 1 or epochs >= 1)"
expect = "holds"

[[claim]]
id = "t.few-epochs"
section = "s"
statement = "a run that converges takes at most 2 epochs (false)"
when = "end"
variants = ["rosenblatt"]
orders = ["{order}"]
assume = ["separable", "w0_zero", "eta_one"]
expr = "epochs <= 2"
expect = "holds"
''')
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=3, dim=2, box=2, max_updates=5)
    for cid in ("t.ident", "t.end"):
        res = search(claims[cid], dom, engine="enumerate", timeout=120)
        assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, (cid, res.to_json())
    res = search(claims["t.few-epochs"], dom, engine="enumerate", timeout=120, out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED, res.to_json()
    r = subprocess.run([sys.executable, "-m", "verify"] + res.files["replay"].split()[1:], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "t.few-epochs: refuted" in r.stdout, r.stdout + r.stderr


def test_pocket_claims_are_searched_in_a_small_domain(tmp_path):
    """The default run's pocket search (the 3-point one below is behind the slow marker, 28 s):
    each pocket rule the claim leaves open is searched, and an identity of the pocket has no
    counterexample in D, with candidates checked."""
    from verify.searching import Domain, search

    path = tmp_path / "claims_pocket.toml"
    path.write_text(HEAD + '[[claim]]\nid = "p.ident"\nsection = "s"\nstatement = "s"\nwhen = "end"\n'
                    'variants = ["pocket"]\nexpr = "pocket_errors >= min_visited_errors and pocket_errors <= n"\n'
                    'expect = "holds"\n')
    claim = load_claims(str(path)).claims[0]
    res = search(claim, Domain(points=2, dim=2, box=1, max_updates=4), engine="enumerate", timeout=120)
    assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, res.to_json()
    assert "no_ratchet:" in res.domain["text"] and "ratchet:" in res.domain["text"].split("no_ratchet:")[1]


@pytest.mark.slow
def test_pocket_claims_are_searched(tmp_path):
    """(A slow search, 28 s; test_pocket_claims_are_searched_in_a_small_domain runs by default.)
    The pocket algorithm is searched (its pocket, the run of correct visits it had, the
    fewest errors of any weights held), in each of its rules when the claim fixes none: an
    identity has none in D; "the pocket holds the weights with the fewest errors" and "a
    converged pocket on separable data makes no error" are refuted in a random order (a run
    spanning two epochs outlasts the final separator's: note 003) and replayed; in the cyclic
    order the second one has none in D."""
    import subprocess
    import sys

    from verify.searching import Domain, SearchError, search

    def claim(cid, expr, assume, orders=""):
        return (f'[[claim]]\nid = "{cid}"\nsection = "s"\nstatement = "s"\nwhen = "end"\nvariants = ["pocket"]\n'
                f'assume = [{assume}]\nexpr = "{expr}"\nexpect = "holds"\n{orders}\n')

    path = tmp_path / "claims_pocket.toml"
    path.write_text(HEAD + claim("p.ident", "pocket_errors >= min_visited_errors and pocket_errors <= n", "")
                    + claim("p.min", "pocket_errors <= min_visited_errors", '"no_ratchet"', 'orders = ["random:4"]')
                    + claim("p.sep", "pocket_errors == 0", '"separable", "converged"', 'orders = ["random:4"]')
                    + claim("p.sep-cyclic", "pocket_errors == 0", '"separable", "converged"', 'orders = ["cyclic"]'))
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=3, dim=2, box=2, max_updates=4)
    for cid in ("p.ident", "p.sep-cyclic"):
        res = search(claims[cid], dom, engine="enumerate", timeout=120)
        assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, (cid, res.to_json())
        assert "no_ratchet:" in res.domain["text"] and "ratchet:" in res.domain["text"].split("no_ratchet:")[1]
    for cid in ("p.min", "p.sep"):
        res = search(claims[cid], dom, engine="enumerate", timeout=120, out_dir=str(tmp_path / cid))
        assert res.verdict == verify.Verdict.REFUTED, (cid, res.to_json())
        r = subprocess.run([sys.executable, "-m", "verify"] + res.files["replay"].split()[1:], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 1 and f"{cid}: refuted" in r.stdout, r.stdout + r.stderr
    with pytest.raises(SearchError, match="whose pocket is stepped"):
        search(claims["p.min"], dom, engine="z3", timeout=30)


def test_lint_says_which_claims_the_search_will_not_cover(tmp_path, capsys):
    """claims lint notes each claim the search will not cover, with the reason (a claim about a
    named dataset: its verdict rests on that dataset's runs); a newcomer's "every sweep but the
    last", which reads epochs at a visit, is searched now (each run followed to its end)."""
    from verify.cli import main

    path = tmp_path / "claims_sw.toml"
    path.write_text(SWEEPS + '[[claim]]\nid = "s.named"\nsection = "s"\nstatement = "s"\nwhen = "update"\n'
                    'variants = ["rosenblatt"]\ndatasets = ["separable-d2-g1_20"]\nexpr = "k <= mistakes"\n'
                    'expect = "holds"\n')
    assert main(["claims", "lint", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    notes = [ln for ln in out if ": note: " in ln]
    assert any("s.named: not searched" in ln and "separable-d2-g1_20" in ln for ln in notes), out
    assert not any("s.every-but-last" in ln or "s.one-per-sweep" in ln for ln in notes), out
    assert out[-1] == "1 claim file(s): no problems"


def _cl(cid, when, expr, orders="", assume="", given=""):
    return (f'[[claim]]\nid = "{cid}"\nsection = "s"\nstatement = "s"\nwhen = "{when}"\nvariants = ["rosenblatt"]\n'
            + (f'orders = ["{orders}"]\n' if orders else "") + (f"assume = [{assume}]\n" if assume else "")
            + (f'given = "{given}"\n' if given else "") + f'expr = "{expr}"\nexpect = "holds"\n\n')


def test_visits_of_a_random_order_are_searched_in_the_learners_order(tmp_path, monkeypatch):
    """Visit claims in a random:SEED order are searched over the visits the learner makes: the
    rest of the state's epoch in its permutation, then the next epoch's (seed 2 draws [2, 0, 1]
    then [2, 1, 0] for three points, so sweep 2 begins with point 2, never with point 1); the
    counting identities and "the last sweep of a converged run is clean" have none in D; the
    false statement is refuted and its printed replay reproduces it."""
    from verify.searching import Domain, search

    path = tmp_path / "claims_rv.toml"
    path.write_text(HEAD + _cl("rv.ident", "visit", "t == (sweep - 1) * n + sweep_visits and sweep_mistakes <= "
                                                    "sweep_visits and sweep <= epochs and k <= mistakes", "random:2")
                    + _cl("rv.last-clean", "visit", "sweep_mistakes == 0", "random:2",
                          given="converged == 1 and sweep == epochs")
                    + _cl("rv.p2", "visit", "not (n == 3 and sweep == 2 and sweep_visits == 1 and i == 2)", "random:2")
                    + _cl("rv.p1", "visit", "not (n == 3 and sweep == 2 and sweep_visits == 1 and i == 1)", "random:2"))
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=3, dim=2, box=1, max_updates=3)
    for cid in ("rv.ident", "rv.last-clean", "rv.p1"):
        res = search(claims[cid], dom, engine="enumerate", timeout=120)
        assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, (cid, res.to_json())
    res = search(claims["rv.p2"], dom, engine="enumerate", timeout=120, out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED and res.counterexample.to_json()["violation"]["point"] == 2, res.to_json()
    monkeypatch.chdir(tmp_path)
    rc, out = _run_printed(res.files["replay"])
    assert rc == 1 and "rv.p2: refuted" in out, out


@pytest.mark.parametrize("order", ["cyclic", "first", "random:2"])
def test_whole_run_quantities_before_the_end_are_searched(tmp_path, monkeypatch, order):
    """mistakes, epochs, converged and stopped_by_budget read at visits and updates: the search
    follows each run to its end (converged within the bound, or cut there: stopped by budget, as
    --max-updates cuts the learner) before it evaluates them.  Identities have none in D; "the run
    ends within one more mistake" is refuted on a run the bound cuts and the printed replay
    (which trains with that bound) reproduces it; assume converged keeps only the runs that
    converge, where the Novikoff bound from w0 = 0 has none in D."""
    from verify.searching import Domain, search
    from verify.searching.domain import late_names

    path = tmp_path / "claims_late.toml"
    path.write_text(HEAD + _cl("l.ident", "update", "k <= mistakes and converged + stopped_by_budget == 1 and "
                                                    "sweep <= epochs", order)
                    + _cl("l.visit", "visit", "k <= mistakes and (converged == 0 or stopped_by_budget == 0)", order)
                    + _cl("l.false", "update", "mistakes <= k + 1", order)
                    + _cl("l.bound", "update", "mistakes <= R2 / gamma**2", order,
                          assume='"separable", "converged", "w0_zero"'))
    claims = {c.id: c for c in load_claims(str(path)).claims}
    assert late_names(claims["l.bound"]) == {"mistakes", "converged"}
    dom = Domain(points=3, dim=2, box=1, max_updates=4)
    for cid in ("l.ident", "l.visit", "l.bound"):
        res = search(claims[cid], dom, engine="enumerate", timeout=120)
        assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, (cid, res.to_json())
        assert "followed to its end" in res.domain["text"]
    res = search(claims["l.false"], dom, engine="enumerate", timeout=120, out_dir=str(tmp_path / "ce"))
    assert res.verdict == verify.Verdict.REFUTED, res.to_json()
    assert res.counterexample.to_json()["params"].get("max_updates") == 4 and res.counterexample.to_json()["summary"]["stop"] == "max_updates", \
        res.counterexample
    monkeypatch.chdir(tmp_path)
    rc, out = _run_printed(res.files["replay"])
    assert rc == 1 and "l.false: refuted" in out, out
    with pytest.raises(Exception, match="each candidate is run to its end first"):
        search(claims["l.false"], dom, engine="z3", timeout=10)


def test_a_block_too_big_for_the_frontier_is_split_before_its_runs_are_followed_to_their_end(tmp_path, monkeypatch):
    """Following each run to its end (whole-run quantities at updates) happens inside the block's
    split: a frontier budget smaller than a block splits it, with the same verdict (before, the
    split escaped the shard as an error)."""
    import verify.searching as S
    from verify.searching import Domain, search

    path = tmp_path / "claims_split.toml"
    path.write_text(HEAD + _cl("l.ident", "update", "mistakes >= k", "cyclic"))
    (claim,) = load_claims(str(path)).claims
    dom = Domain(points=2, dim=2, box=1, max_updates=3, w0_box=1)
    whole = search(claim, dom, engine="enumerate", timeout=120)
    monkeypatch.setattr(S, "MAX_FRONTIER", 50)
    split = search(claim, dom, engine="enumerate", timeout=120)
    assert whole.verdict == split.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, split.to_json()
    assert split.checked == whole.checked > 0


def test_a_sequence_order_is_searched_over_the_runs_that_make_the_whole_sequence(tmp_path, monkeypatch):
    """orders = ["sequence:0,1,0"]: the runs that update points 0, 1, 0 in turn, each misclassified
    when its turn comes (a prefix the learner cannot continue is no run: no candidate), ending
    after the sequence, converged or not.  Identities of its counts have none in D; "it has
    converged after the sequence" and "a sequence takes at most one update" are refuted, and their
    printed replays (which train with the sequence) reproduce them."""
    from verify.searching import Domain, search

    order = "sequence:0,1,0"
    path = tmp_path / "claims_seq.toml"
    path.write_text(HEAD + _cl("q.ident", "update", "t == k and sweep == k and sweep_visits == 1 and mistakes == 3 and "
                                                    "epochs == 3 and i == (1 if k == 2 else 0)", order)
                    + _cl("q.visit", "visit", "y*score <= 0 and t == k + 1 and i == (1 if k == 1 else 0)", order)
                    + _cl("q.end", "end", "mistakes == 3 and epochs == 3 and converged + stopped_by_budget == 1", order)
                    + _cl("q.conv", "end", "converged == 1", order)
                    + _cl("q.one", "update", "k <= 1", order))
    claims = {c.id: c for c in load_claims(str(path)).claims}
    dom = Domain(points=3, dim=2, box=1, max_updates=4)
    for cid in ("q.ident", "q.visit", "q.end"):
        res = search(claims[cid], dom, engine="enumerate", timeout=120)
        assert res.verdict == verify.Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and res.checked > 0, (cid, res.to_json())
    monkeypatch.chdir(tmp_path)
    for cid, at in (("q.conv", 3), ("q.one", 2)):
        res = search(claims[cid], dom, engine="enumerate", timeout=120, out_dir=str(tmp_path / cid))
        assert res.verdict == verify.Verdict.REFUTED and res.counterexample.to_json()["updates"][:at] == [0, 1, 0][:at], res.to_json()
        assert res.counterexample.to_json()["order"] == order
        rc, out = _run_printed(res.files["replay"])
        assert rc == 1 and f"{cid}: refuted" in out, out


@pytest.mark.parametrize("scalar", [False, True])
@pytest.mark.parametrize("order", ["cyclic", "random:2", "first"])
def test_last_sweep_mistakes_is_the_previous_sweeps_count(tmp_path, scalar, order):
    """last_sweep_mistakes is the number of updates of the sweep before a step's (a claim does
    not speak of the first sweep's steps): "the mistakes per sweep never go up", read at each
    visit as sweep_mistakes <= last_sweep_mistakes, fails first where a direct count of the trace
    says, and is evaluated exactly at the visits of the later sweeps; both evaluators alike."""
    path = tmp_path / "claims_last.toml"
    path.write_text(HEAD + '[[claim]]\nid = "l.up"\nsection = "s"\nstatement = "s"\nwhen = "visit"\n'
                    'variants = ["rosenblatt"]\nexpr = "sweep_mistakes <= last_sweep_mistakes"\nexpect = "holds"\n\n'
                    '[[claim]]\nid = "l.count"\nsection = "s"\nstatement = "s"\nwhen = "visit"\n'
                    'variants = ["rosenblatt"]\nexpr = "last_sweep_mistakes >= 0"\nexpect = "holds"\n')
    for name in ("separable-d3-g1_10", "and-3", "worked-example"):
        trace, bad, tallies = _replayed(path, name, Params(order=order, augment="first", max_epochs=60), scalar)
        ep, mist = list(map(int, trace.epoch)), list(map(bool, trace.mistake))
        per = {}
        for e, m in zip(ep, mist):
            per[e] = per.get(e, 0) + m
        first_bad, so_far, later = None, {}, 0
        for t, (e, m) in enumerate(zip(ep, mist), start=1):
            so_far[e] = so_far.get(e, 0) + m
            if e > min(ep):
                later += 1
                if first_bad is None and so_far[e] > per[e - 1]:
                    first_bad = t
        assert bad is None and tallies["l.count"].evaluations == later and tallies["l.count"].violation is None, name
        v = tallies["l.up"].violation
        assert (v.to_json() if v else {}).get("t") == first_bad, (name, order, v, first_bad)
