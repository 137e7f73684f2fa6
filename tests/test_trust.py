"""Trust: float runs decide as exact arithmetic does, certificates exist whenever the data
decide, printed commands paste safely, every limit is checked before the work."""

from __future__ import annotations

import shlex
import sys
from fractions import Fraction
from types import SimpleNamespace

import pytest

from perceptron import InputError, MemoryTrace, Params, from_rows, train
from perceptron.params import prepare_inputs
from verify.certify.certificates import certify
from verify.replay.dispatch import replay


def mistakes_of(ds, arithmetic):
    rec = MemoryTrace()
    train(ds, Params(order="cyclic", arithmetic=arithmetic, max_epochs=5), rec)
    return rec.trace


def test_float_run_decides_a_zero_score_exactly():
    """0.1 + 0.2 - 0.3 is 5.6e-17 in float and 0 exactly: a mistake (sign(0) = 0) for both."""
    ds = from_rows("tie", [[1, 1, 1], ["1/10", "2/10", "-3/10"], [-1, -1, -2]], [1, 1, -1])
    ex, fl = mistakes_of(ds, "exact"), mistakes_of(ds, "float")
    assert fl.mistake[1] and ex.mistake[1]
    assert list(fl.mistake) == list(ex.mistake)
    ctx, bad, _ = replay(ds, fl)
    assert bad is None, bad


def test_float_run_decides_rounded_data_exactly():
    """x = (2^53 + 1, -2^53) rounds to (2^53, -2^53) in float; with w = (1, 1) the float score
    is 0 and the exact score 1: the float run must take the exact decision."""
    big = 2**53
    ds = from_rows("round", [[1, 1], [big + 1, -big]], [1, 1])
    fl = mistakes_of(ds, "float")
    ex = mistakes_of(ds, "exact")
    assert not fl.mistake[1] and not ex.mistake[1]
    _, bad, _ = replay(ds, fl)
    assert bad is None, bad


def test_doctored_float_decision_is_caught():
    ds = from_rows("tie", [[1, 1, 1], ["1/10", "2/10", "-3/10"], [-1, -1, -2]], [1, 1, -1])
    fl = mistakes_of(ds, "float")
    fl.mistake[1] = False  # what naive float rounding would decide
    _, bad, _ = replay(ds, fl)
    assert bad is not None and bad.t == 2


@pytest.mark.parametrize("rows,labels,kind", [
    ([[1, "1e-20"], [1, "-1e-20"], [1, 0]], [1, -1, -1], "separable"),
    ([[1, 0], [-1, "1e-20"], [0, -1]], [1, 1, -1], "separable"),
    ([[1, "1e-20"], [1, "-1e-20"], [2, 0]], [1, 1, -1], "nonseparable"),
])
def test_certificate_exists_whenever_the_data_decide(rows, labels, kind):
    """Margins of 1e-20 defeat the float solvers' rounding; the exact LP decides."""
    ds = from_rows("tiny", rows, labels)
    Xn, D = prepare_inputs(ds, Params())
    cert = certify(Xn, D, [int(v) for v in ds.y], bias=False)
    assert cert.kind == kind, cert.reason
    if kind == "separable":
        assert cert.m > 0
        assert all(yi * sum(Fraction(int(a)) * v for a, v in zip(r, cert.v)) > 0 for r, yi in zip(Xn, ds.y))


def test_replay_command_is_shell_quoted():
    from verify.corpus.evidence import replay_command
    from verify.language.violation import Violation

    c = SimpleNamespace(path="/tmp/evil;touch X;.toml", id="a.b")
    cmd = replay_command(c, Violation({"run": "--variant rosenblatt --order cyclic", "data": "my data;rm -rf ~.csv"}))
    toks = shlex.split(cmd)
    assert "/tmp/evil;touch X;.toml" in toks and "my data;rm -rf ~.csv" in toks
    assert "touch" not in toks and "rm" not in toks


def test_limits_checked_before_reading(tmp_path):
    from perceptron import read_dataset

    p = tmp_path / "d.svm"
    p.write_text("1 1000000000:1\n")
    with pytest.raises(InputError, match="MAX_DIM"):
        read_dataset(str(p))
    p = tmp_path / "d.csv"
    p.write_text("1e999999999,1\n")
    with pytest.raises(InputError, match="MAX_EXPONENT"):
        read_dataset(str(p))


def test_claim_expressions_bounded():
    from verify.language.expr import ExprError, compile_expr

    with pytest.raises(ExprError, match="nested powers"):
        compile_expr("((2**64)**64)**64 > 0")
    with pytest.raises(ExprError, match="nested powers"):
        compile_expr("(k**8)**9 > 0")
    compile_expr("(k**8)**8 > 0")


def test_dataset_time_limit_gives_unknown(monkeypatch):
    """A dataset whose audit runs past DATASET_SECONDS leaves its claims unknown, never holds."""
    from perceptron import builtin
    import verify.corpus.audit  # noqa: F401
    from verify.corpus.runs import needs_of
    from verify.language.claims import builtin_claim_files, load_claims

    audit = sys.modules["verify.corpus.audit"]
    claims = [c for c in load_claims(builtin_claim_files()[0]).claims]
    monkeypatch.setattr(audit, "DATASET_SECONDS", -1.0)
    out = audit.audit_dataset(claims, "and-2", builtin("and-2"), False, needs_of(claims))
    assert out["runs"] == 0
    assert all(a.unknown and "limit reached" in a.unknown for a in out["agg"].values())


def test_errors_cross_process_boundaries():
    """Errors raised in the audit's workers come back pickled: they must rebuild intact."""
    import pickle

    from verify.language.claims import ClaimError

    e = pickle.loads(pickle.dumps(InputError("d.csv", "bad cell", 3, 2)))
    assert str(e) == "d.csv:3:2: bad cell" and e.line == 3
    c = pickle.loads(pickle.dumps(ClaimError("c.toml", 4, 1, "bad id")))
    assert str(c) == "c.toml:4:1: bad id" and c.message == "bad id"


def test_doctored_high_dimensional_trace_is_one_short_line(tmp_path, capsys):
    """The inconsistency names the coordinate that differs and shows a few of the rest: one
    readable line for a 60-dimensional run, not every coordinate."""
    import json as _json

    from verify.cli import main as cli_main

    rows = [[(i * 7 + j * 3) % 5 - 2 for j in range(60)] + [1 if i % 2 else -1] for i in range(12)]
    data = tmp_path / "wide.csv"
    data.write_text("\n".join(",".join(map(str, r)) for r in rows) + "\n")
    trace = tmp_path / "t.jsonl"
    assert cli_main(["train", "--data", str(data), "--exact", "--trace", str(trace), "--max-epochs", "3"]) in (0, 1)
    lines = trace.read_text().splitlines()
    for k, line in enumerate(lines):
        rec = _json.loads(line)
        if isinstance(rec, dict) and rec.get("w") and k > 1:
            rec["w"][5] = str(int(str(rec["w"][5]).split("/")[0]) + 1)
            lines[k] = _json.dumps(rec)
            break
    else:
        raise AssertionError("no update record")
    trace.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert cli_main(["check", "--data", str(data), "--trace", str(trace)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.count("\n") == 0 and "INCONSISTENT" in out and "w[5] = " in out and "(60 coordinates)" in out
    assert len(out) < 600, out
