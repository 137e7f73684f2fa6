"""Replay: consistent traces pass; every kind of tampering is caught at the right step."""

import json

import pytest

from perceptron import builtin, open_writer, read_trace, train, Params
from verify.cli import main
from verify.replay.dispatch import replay


def _trace_lines(tmp_path, data="separable-d2-g1_20", **kw):
    ds = builtin(data)
    p = str(tmp_path / "t.jsonl")
    train(ds, Params(**kw), open_writer(p))
    with open(p) as fh:
        lines = [json.loads(line) for line in fh]
    return ds, p, lines


def _write(p, lines):
    with open(p, "w") as fh:
        for obj in lines:
            fh.write(json.dumps(obj) + "\n")


def _check(ds, p):
    _, bad, _ = replay(ds, read_trace(p))
    return bad


def _first_update(lines, skip=0):
    ups = [j for j, o in enumerate(lines) if o.get("type") == "visit" and o["mistake"]]
    return ups[skip]


@pytest.mark.parametrize("order", ["cyclic", "first", "random:5", "max-violation"])
@pytest.mark.parametrize("variant", ["rosenblatt", "novikoff", "sign", "pocket", "kernel"])
def test_untouched_traces_are_consistent(tmp_path, variant, order):
    """A trace written by the learner replays cleanly."""
    ds, p, _ = _trace_lines(tmp_path, variant=variant, order=order)
    assert _check(ds, p) is None


def test_flipped_label(tmp_path):
    ds, p, lines = _trace_lines(tmp_path)
    j = 5
    lines[j]["y"] = -lines[j]["y"]
    _write(p, lines)
    bad = _check(ds, p)
    assert bad.t == lines[j]["t"] and "label" in bad.message


def test_altered_weight_coordinate(tmp_path):
    ds, p, lines = _trace_lines(tmp_path)
    j = _first_update(lines, 2)
    from fractions import Fraction

    lines[j]["w"][1] = str(Fraction(lines[j]["w"][1]) + 1)
    _write(p, lines)
    bad = _check(ds, p)
    assert bad.t == lines[j]["t"] and "w[1]" in bad.message


def test_dropped_step(tmp_path):
    ds, p, lines = _trace_lines(tmp_path)
    t = lines[4]["t"]
    del lines[4]
    _write(p, lines)
    bad = _check(ds, p)
    assert bad.t == t


def test_duplicated_step(tmp_path):
    ds, p, lines = _trace_lines(tmp_path)
    lines.insert(5, lines[4])
    _write(p, lines)
    bad = _check(ds, p)
    assert bad.t == lines[4]["t"] + 1


def test_swapped_steps(tmp_path):
    ds, p, lines = _trace_lines(tmp_path)
    lines[3], lines[4] = lines[4], lines[3]
    _write(p, lines)
    bad = _check(ds, p)
    assert bad.t == lines[4]["t"]


def test_update_on_correct_point(tmp_path):
    """A visit marked as a mistake where the point is correctly classified."""
    ds, p, lines = _trace_lines(tmp_path)
    j = next(j for j, o in enumerate(lines) if o.get("type") == "visit" and not o["mistake"] and o["k"] > 0)
    lines[j]["mistake"] = True
    _write(p, lines)
    bad = _check(ds, p)
    assert bad.t == lines[j]["t"] and "correctly classified" in bad.message


def test_other_dataset(tmp_path):
    """A trace paired with a different dataset is refused by its hash."""
    _, p, _ = _trace_lines(tmp_path)
    bad = _check(builtin("separable-d2-g1_5"), p)
    assert bad is not None and "written for dataset" in bad.message


def test_check_cli_exit_codes(tmp_path, capsys):
    """check: 0 consistent and as expected, 1 inconsistent, 2 unreadable."""
    ds, p, lines = _trace_lines(tmp_path, data="worked-example", order="first")
    assert main(["check", "--data", "builtin:worked-example", "--trace", p]) == 0
    out = capsys.readouterr().out
    assert "consistent" in out and "000.numerator.bound" in out
    lines[2]["score"] = "99"
    _write(p, lines)
    assert main(["check", "--data", "builtin:worked-example", "--trace", p]) == 1
    assert "INCONSISTENT" in capsys.readouterr().out
    assert main(["check", "--data", "builtin:worked-example", "--trace", str(tmp_path / "none.jsonl")]) == 2


def test_updates_only_traces_replay(tmp_path):
    """An updates-only trace is replayed by re-running the visits between updates."""
    ds = builtin("separable-d3-bias")
    p = str(tmp_path / "u.npz")
    train(ds, Params(variant="novikoff", order="random:9"), open_writer(p, "updates"))
    assert _check(ds, p) is None


def test_float_trace_replay(tmp_path):
    """Float traces: decisions, weights and scores are checked within rounding bounds."""
    ds = builtin("separable-d5-g1_10")
    p = str(tmp_path / "f.npz")
    train(ds, Params(variant="sklearn", arithmetic="float"), open_writer(p))
    assert _check(ds, p) is None
