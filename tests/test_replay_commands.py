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
