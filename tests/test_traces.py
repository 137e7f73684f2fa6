"""Traces: both encodings round-trip exactly; headers name variant, params and dataset."""

import json
from fractions import Fraction

import numpy as np
import pytest

from perceptron import MemoryTrace, Params, builtin, from_rows, open_writer, read_trace, train
from perceptron.errors import InputError

FIELDS = ["t", "epoch", "i", "y", "mistake", "k", "score", "upd_t", "w", "b", "pocket_t"]


def _same(a, b):
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        if x is None or y is None:
            assert (x is None or len(x) == 0) and (y is None or len(y) == 0), f
            continue
        assert x.shape == y.shape, f
        assert [v for v in x.ravel().tolist()] == [v for v in y.ravel().tolist()], f
    assert a.header == b.header
    assert a.end == b.end


@pytest.mark.parametrize("variant", ["rosenblatt", "novikoff", "pocket", "kernel", "sklearn"])
@pytest.mark.parametrize("arithmetic", ["exact", "float"])
@pytest.mark.parametrize("ext", ["jsonl", "npz"])
def test_round_trip(tmp_path, variant, arithmetic, ext):
    """Written and read back, a trace equals the in-memory one, value for value."""
    ds = builtin("separable-d3-bias")
    params = Params(variant=variant, arithmetic=arithmetic, eta=Fraction(1, 3), order="cyclic")
    mem = MemoryTrace()
    train(ds, params, mem)
    path = str(tmp_path / f"t.{ext}")
    train(ds, params, open_writer(path))
    _same(mem.trace, read_trace(path))


def test_header_names_everything(tmp_path):
    """variant, every parameter, arithmetic and the dataset's SHA-256 are in the header."""
    ds = builtin("worked-example")
    path = str(tmp_path / "t.jsonl")
    train(ds, Params(order="first", eta=Fraction(2, 3)), open_writer(path))
    with open(path) as fh:
        head = json.loads(fh.readline())
    assert head["schema"] == "proof-audit/trace" and head["version"] == 1
    assert head["variant"] == "rosenblatt" and head["arithmetic"] == "exact"
    assert head["params"]["eta"] == "2/3" and head["params"]["order"] == "first"
    assert head["dataset"]["sha256"] == ds.sha256


def test_big_integers_survive(tmp_path):
    """Values past int64 switch to Python integers in the run and to text in the NPZ."""
    big = 2**70 + 1
    ds = from_rows("big", [(big, 1), (-big, 3), (1, -big)], [1, -1, 1])
    for ext in ("jsonl", "npz"):
        mem = MemoryTrace()
        res = train(ds, Params(max_epochs=50), mem)
        path = str(tmp_path / f"b.{ext}")
        train(ds, Params(max_epochs=50), open_writer(path))
        tr = read_trace(path)
        _same(mem.trace, tr)
        assert tr.weights_after(len(tr.upd_t) - 1)[0] == res.w


def test_updates_only_record(tmp_path):
    """--record updates keeps only the mistake visits, numbered as in the full trace."""
    ds = builtin("separable-d2-g1_20")
    full, part = MemoryTrace(), MemoryTrace("updates")
    train(ds, Params(), full)
    train(ds, Params(), part)
    m = full.trace.mistake
    assert np.array_equal(part.trace.t, full.trace.t[m]) and part.trace.mistake.all()
    assert np.array_equal(part.trace.w, full.trace.w)


def test_bad_trace_files(tmp_path):
    """Garbage, a wrong schema and a bad record are each reported with their line."""
    p = tmp_path / "x.jsonl"
    p.write_text("not json\n")
    with pytest.raises(InputError, match=":1:1: not JSON"):
        read_trace(str(p))
    p.write_text(json.dumps({"type": "header", "schema": "other"}) + "\n")
    with pytest.raises(InputError, match="not a proof-audit trace"):
        read_trace(str(p))
    ds = builtin("worked-example")
    train(ds, Params(), open_writer(str(p)))
    lines = p.read_text().splitlines()
    lines[2] = lines[2].replace('"score"', '"scorex"')
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=":3: bad visit record"):
        read_trace(str(p))
