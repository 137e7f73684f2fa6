"""A run's options as a replay command prints them (Params.argv) make the same run again: train
reads them back to the same parameters, whatever the variant and setting."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from perceptron import Params
from verify.cli import main

RUNS = [
    Params(variant="rosenblatt", order="cyclic"),
    Params(variant="novikoff", order="random:7", eta=F(1, 2), w0=(F(1), F(-1, 3)), max_epochs=50),
    Params(variant="sign", order="first", sign0=-1, form="half", eta=F(3)),
    Params(variant="unit", order="sequence:0", sign0=-1, max_updates=3),
    Params(variant="pocket", order="cyclic", ratchet=True, patience=4),
    Params(variant="kernel", order="cyclic", kernel="poly", degree=3, offset=F(1, 2)),
    Params(variant="sklearn", order="cyclic", augment="last", b0=F(-1, 2), max_visits=40),
]


@pytest.mark.parametrize("params", RUNS, ids=lambda p: p.variant)
def test_train_reads_a_runs_options_back_to_its_parameters(tmp_path, params):
    data = tmp_path / "d.csv"
    data.write_text("x1,x2,y\n3/5,4/5,1\n-1,0,-1\n0,1,1\n")
    trace = tmp_path / "t.jsonl"
    assert main(["train", "--data", str(data), *params.argv(), "--trace", str(trace)]) == 0
    header = json.loads(trace.read_text().splitlines()[0])
    assert header["params"] == params.to_json()


def test_sign0_is_named_only_for_a_variant_that_takes_it():
    assert "--sign0" in Params(variant="sign", sign0=1).argv()
    assert "--sign0" not in Params(variant="rosenblatt", sign0=1).argv()


def test_a_claim_named_with_only_that_does_not_apply_is_not_a_pass(tmp_path):
    """check --only C on a run C does not apply to (an eta = 1 claim, a run with eta = 1/2) checks
    nothing: it says why and exits 1, not 0 (a newcomer's check of a claim expecting "refuted" passed)."""
    import subprocess
    import sys

    claims = tmp_path / "c.toml"
    claims.write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "c.one"\nsection = "s"\nstatement = "s"\n'
                      'when = "end"\nvariants = ["rosenblatt"]\nassume = ["eta_one"]\nexpr = "mistakes <= 0"\n'
                      'expect = "refuted"\n')
    run = [sys.executable, "-m", "verify"]
    r = subprocess.run(run + ["train", "--data", "builtin:and-2", "--variant", "rosenblatt", "--eta", "1/2", "--trace",
                              "t.jsonl"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(run + ["check", "--data", "builtin:and-2", "--trace", "t.jsonl", "--claims", "c.toml", "--only",
                              "c.one"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "c.one: not applicable to this run" in r.stdout and "UNEXPECTED" in r.stdout, r.stdout
    r = subprocess.run(run + ["check", "--data", "builtin:and-2", "--trace", "t.jsonl", "--claims", "c.toml"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "UNEXPECTED" not in r.stdout, r.stdout  # a claim file's claims may not all apply
