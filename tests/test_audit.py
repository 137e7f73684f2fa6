"""The main job: proof-audit run over the built-in corpus, and claims written by a user."""

import json
import os
import textwrap
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perceptron import MemoryTrace, Params, train
from verify.language.claims import builtin_claim_files, load_claims
from verify.cli import main
from verify.replay.dispatch import replay
from verify.symbolic.one_step import taken

from .strategies import orders, separable_datasets

ALL_CLAIMS = [c for f in builtin_claim_files() for c in load_claims(f).claims]


REPO_REPORTS = os.path.join(os.path.dirname(__file__), "..", "reports", "results.json")


def _projection(results):
    """What the committed audit must agree on: every claim's verdict and its evidence counts
    (not slacks or margins, which depend on the numerical solver's separator)."""
    return [(c["id"], c["statement"], c["citation"], c["verdict"], c["expect"], c["as_expected"],
             c["evidence"].get("evaluations"), [s["verdict"] for s in c["evidence"].get("steps", [])])
            for c in results["claims"]]


def test_run_exits_0_lists_every_claim_and_is_deterministic(tmp_path, capsys, monkeypatch):
    """proof-audit run: exit 0, a per-note table, every claim in results.json, agreeing with the
    committed reports/.  (Same bytes from two folders and for any --jobs: a small claim file in
    test_replay_where_user_is.py and test_scopes.py; the whole audit twice cost 25 s.)"""
    out1 = tmp_path / "a" / "out"
    out1.parent.mkdir()
    monkeypatch.chdir(out1.parent)
    assert main(["run", "--out", "out", "--quiet"]) == 0
    b1 = (out1 / "results.json").read_bytes()
    data = json.loads(b1)
    assert data["schema"] == "proof-audit/results" and data["version"] == 1
    ids = [c["id"] for c in data["claims"]]
    assert ids == [c.id for c in ALL_CLAIMS]
    by_id = {c["id"]: c for c in data["claims"]}
    for c in data["claims"]:
        assert c["as_expected"] is True, c
        assert c["citation"] and c["verdict"]
    # no claim expected refuted is proved, alone or with its note's lemmas (the oracle is not empty);
    # lemmas were used
    false = [c for c in ALL_CLAIMS if c.expect == "refuted" and taken(c)]
    assert len(false) >= 8 and all(by_id[c.id]["verdict"] != "proved" for c in false), [c.id for c in false]
    assert sum(1 for c in data["claims"] if c["evidence"].get("lemmas")) >= 20
    # wrong statements are refuted with a replayable counterexample
    ce = by_id["001.theorem.final-as-written"]
    assert ce["verdict"] == "refuted" and "counterexample" in ce["evidence"]
    assert by_id["001.lemma3.negative"]["evidence"]["replay"].startswith("proof-audit train")
    # the mistake bound is proved from the note's lemmas (and checked on the corpus), not searched
    assert by_id["000.iterations"]["verdict"] == "proved"
    assert by_id["000.iterations"]["evidence"]["evaluations"] > 0
    assert "000.numerator.bound" in by_id["000.iterations"]["evidence"]["lemmas"]
    assert by_id["004.theorem1"]["verdict"] == "no counterexample in domain"
    assert any(t["claim"] == "004.theorem1" and t["worst_ratio"] <= 1 for t in data["corpus"]["tightness"])
    assert by_id["003.distance.example1.point"]["verdict"] == "proved"
    assert by_id["001.lemma2.line5"]["verdict"] == "proved"
    steps = by_id["001.theorem.proof"]["evidence"]["steps"]
    assert [s["verdict"] for s in steps] == ["proved"] * 6 + ["refuted"]
    assert by_id["001.theorem.proof"]["evidence"]["first_failing_step"] == "k == (2*R/gamma)**2"
    assert os.path.exists(out1 / "run_info.json")
    # the repository's own audit (reports/) is up to date; regenerate with
    #   proof-audit run --out reports
    with open(REPO_REPORTS) as fh:
        committed = json.load(fh)
    assert _projection(committed) == _projection(data), "reports/ is out of date: run proof-audit run --out reports"


USER_CLAIMS = '''
    [document]
    file = "my_notes.md"
    title = "My perceptron notes"

    [[claim]]
    id = "mine.bound"
    section = "Theorem 2"
    statement = "the perceptron makes at most R/gamma mistakes"
    expr = "mistakes <= R/gamma"
    variants = ["rosenblatt"]
    when = "end"
    assume = ["separable", "w0_zero", "eta_one"]
    expect = "holds"

    [[claim]]
    id = "mine.norm"
    section = "Lemma 1"
    statement = "|w_k|^2 <= k R^2"
    expr = "norm2(w) <= k*R2"
    variants = ["rosenblatt", "slides"]
    when = "update"
    assume = ["w0_zero", "eta_one"]
    expect = "holds"

    [[claim]]
    id = "mine.growth"
    section = "Lemma 2"
    statement = "the margin of the updated point grows by at least |x|^2"
    expr = "y*dot(w, x) >= y*dot(prev(w), x) + norm2(x)"
    variants = ["rosenblatt"]
    when = "update"
    assume = ["eta_one"]
    expect = "holds"
'''


def test_user_claim_file_from_the_readme(tmp_path, capsys):
    """A user's own claims: the true one holds, the wrong bound R/gamma is refuted, exit 1."""
    p = tmp_path / "my_claims.toml"
    p.write_text(textwrap.dedent(USER_CLAIMS))
    out = tmp_path / "r"
    assert main(["run", "--claims", str(p), "--out", str(out), "--quiet"]) == 1
    data = json.loads((out / "results.json").read_text())
    v = {c["id"]: c for c in data["claims"]}
    assert v["mine.bound"]["verdict"] == "refuted"
    assert "sides" in v["mine.bound"]["evidence"]["counterexample"]
    assert v["mine.norm"]["verdict"] == "proved"  # by induction over the updates (verify.symbolic.one_step)
    assert v["mine.norm"]["evidence"]["evaluations"] > 0
    assert v["mine.growth"]["verdict"] == "proved"  # one update, for every state before it (verify.symbolic.one_step)
    assert "UNEXPECTED" in capsys.readouterr().out


VARIANT_ORDERS = st.sampled_from(["rosenblatt", "novikoff", "sign", "slides", "pocket", "kernel", "sklearn"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ds=separable_datasets(max_n=6, max_d=3), variant=VARIANT_ORDERS, order=orders,
       sign0=st.sampled_from([0, 1]), form=st.sampled_from(["yx", "half"]))
def test_holds_claims_hold_on_random_separable_data(ds, variant, order, sign0, form):
    """Every claim expected to hold holds (is never refuted) on random separable datasets."""
    if variant == "sklearn":
        order = "cyclic"
    params = Params(variant=variant, order=order, max_epochs=100,
                    sign0=sign0 if variant == "sign" else 0, form=form if variant == "sign" else "yx")
    rec = MemoryTrace()
    train(ds, params, rec)
    ctx, bad, tallies = replay(ds, rec.trace, ALL_CLAIMS, dataset_name="hypothesis")
    assert bad is None
    for c in ALL_CLAIMS:
        t = tallies.get(c.id)
        if c.expect == "holds" and t is not None:
            assert t.violation is None, (c.id, t.violation)
            assert t.unknown is None, (c.id, t.unknown)


def test_unit_claims_on_unit_data():
    """The 004 claims hold on seeded unit-norm sets for every order."""
    from perceptron.generators import unit_sphere_points

    for seed in range(3):
        ds = unit_sphere_points(10, 3, Fraction(1, 4), seed=seed)
        for order in ("first", "cyclic", "max-violation"):
            rec = MemoryTrace()
            train(ds, Params(variant="unit", order=order), rec)
            _, bad, tallies = replay(ds, rec.trace, ALL_CLAIMS)
            assert bad is None
            for c in ALL_CLAIMS:
                t = tallies.get(c.id)
                if c.id.startswith("004") and c.expect == "holds" and t and not t.not_applicable:
                    assert t.violation is None and t.unknown is None, (c.id, t.violation, t.unknown)


def test_the_corpus_on_a_dask_cluster_gives_the_same_results_file(tmp_path, monkeypatch):
    """run --scheduler: the corpus's datasets, the proof steps and the searches run on a Dask
    cluster's workers; results.json is byte-identical to --jobs 1; an unreachable scheduler is
    one line, exit 2."""
    import contextlib
    import io

    distributed = pytest.importorskip("distributed")
    from verify.cli import main

    claims = tmp_path / "c.toml"
    claims.write_text('[document]\nfile = "n.md"\n\n'
                      '[[claim]]\nid = "d.bound"\nsection = "s"\nstatement = "s"\nwhen = "end"\nvariants = ["rosenblatt"]\n'
                      'assume = ["separable", "w0_zero", "eta_one"]\nexpr = "mistakes <= R2/gamma**2"\nexpect = "holds"\n\n'
                      '[[claim]]\nid = "d.wrong"\nsection = "s"\nstatement = "s"\nwhen = "update"\nvariants = ["rosenblatt"]\n'
                      'expr = "norm2(w) <= k"\nexpect = "refuted"\n\n'
                      '[[claim]]\nid = "d.step"\nsection = "s"\nstatement = "s"\nwhen = "symbolic"\nvectors = ["w", "x"]\n'
                      'scalars = ["y"]\nhypotheses = ["y**2 == 1", "y*dot(w, x) <= 0"]\n'
                      'steps = ["norm2(w + y*x) <= norm2(w) + norm2(x)"]\nexpect = "holds"\n')

    def run(*opts):
        """From the folder tmp_path/OUT, with --out out: replay commands name their files under
        --out as given, so two runs compare byte for byte with the same relative --out."""
        opts = list(map(str, opts))
        where = tmp_path / os.path.basename(opts[opts.index("--out") + 1])
        where.mkdir()
        opts[opts.index("--out") + 1] = "out"
        monkeypatch.chdir(where)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(["run", "--claims", str(claims), "--quiet", "--no-cache", *opts])
        return rc, out.getvalue(), err.getvalue()

    rc, out, err = run("--out", tmp_path / "one", "--jobs", "1")
    assert rc == 0, out + err
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        rc, out, err = run("--out", tmp_path / "dask", "--scheduler", cluster.scheduler_address)
        assert rc == 0, out + err
        one, dask = ((tmp_path / d / "out" / "results.json").read_bytes() for d in ("one", "dask"))
        assert one == dask and b'"d.wrong"' in one
        # the workers live on: an edited claim file is loaded again, not the one they hold
        claims.write_text(claims.read_text().replace('expr = "norm2(w) <= k"', 'expr = "norm2(w) <= k * R2"'))
        rc1, _, _ = run("--out", tmp_path / "one2", "--jobs", "1")
        rc2, out, err = run("--out", tmp_path / "dask2", "--scheduler", cluster.scheduler_address)
    finally:
        cluster.close()
    one, dask = ((tmp_path / d / "out" / "results.json").read_bytes() for d in ("one2", "dask2"))
    assert rc1 == rc2 and one == dask and b"norm2(w) <= k * R2" in dask, out + err
    import verify.corpus.cluster as C

    monkeypatch.setattr(C, "CONNECT_SECONDS", 1)
    rc, out, err = run("--out", tmp_path / "none", "--scheduler", "tcp://127.0.0.1:9")
    assert rc == 2 and "cannot reach a Dask scheduler" in err and err.count("\n") == 1, err
