"""What one command writes, the others read: train -> check at each limit a value meets where it
enters (a parameter's p/q length, the float range, a declaration's run-time faults, the record
mode a header states), and Hypothesis-made declarations trained then checked."""

from __future__ import annotations

import contextlib
import io
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perceptron.limits import MAX_NUMBER_CHARS
from verify.cli import main

DATA = "builtin:worked-example"
BASE = 'state = { w = "w0" }\nscore = "dot(w, x)"\nmistake = "y * score <= tau"\nupdate = { w = "w + eta * y * x" }\n'


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def margin(tmp_path):
    path = tmp_path / "margin.toml"
    path.write_text('[variants.tau]\nparameters = { tau = "1" }\n' + BASE)
    return str(path)


def _tau_of_length(chars: int) -> str:
    """A rational 1/10^m whose p/q spelling "1/1000...0" has exactly ``chars`` characters."""
    return "1/1" + "0" * (chars - 3)


@pytest.mark.parametrize("chars, accepted", [(MAX_NUMBER_CHARS, True), (MAX_NUMBER_CHARS + 1, False)])
def test_a_parameter_at_the_number_limit_round_trips(tmp_path, margin, chars, accepted):
    """A --set value whose p/q takes MAX_NUMBER_CHARS characters is trained and checked; one
    character more is refused by train, naming the option (before, train wrote what check refused)."""
    trace = tmp_path / "t.jsonl"
    rc, out, err = cli("train", "--data", DATA, "--variants", margin, "--variant", "tau", "--set",
                       f"tau={_tau_of_length(chars)}", "--trace", trace)
    if not accepted:
        assert rc == 2 and "--set tau" in err and str(MAX_NUMBER_CHARS) in err and not trace.exists()
        return
    assert rc == 0, err
    rc, out, err = cli("check", "--data", DATA, "--variants", margin, "--trace", trace)
    assert rc == 0 and "consistent with" in out and "INCONSISTENT" not in out, out + err


@pytest.mark.parametrize("value, accepted", [("1e300", True), ("1e308", "overflow"), ("1e309", False)])
def test_a_float_run_takes_exactly_the_float_range(tmp_path, value, accepted):
    """--eta within the float range trains and checks as a float run; a run whose weights
    overflow stops in one line, leaving no partial trace; past the range, one line naming --eta."""
    trace = tmp_path / "t.jsonl"
    rc, out, err = cli("train", "--data", DATA, "--eta", value, "--float", "--max-epochs", "3", "--trace", trace)
    if accepted == "overflow":
        assert rc == 2 and "overflow" in err and err.count("\n") == 1 and not trace.exists(), err
        return
    if not accepted:
        assert rc == 2 and "--eta" in err and "float range" in err
        return
    assert rc == 0, err
    rc, out, err = cli("check", "--data", DATA, "--trace", trace, "--only", "000.converges")
    assert rc in (0, 1) and "consistent with" in out and "internal error" not in err, out + err


def test_a_declaration_that_faults_names_its_file_field_and_expression(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[variants.bad]\nstate = { w = "w0" }\nscore = "dot(w, x)"\nmistake = "y * score <= 0"\n'
                    'update = { w = "w + (1 / (k - k)) * y * x" }\n')
    for extra in ((), ("--float",)):
        rc, out, err = cli("train", "--data", DATA, "--variants", path, "--variant", "bad", *extra)
        assert rc == 2 and err.count("\n") == 1, err
        assert f"{path}:1" in err and "update.w" in err and "(1 / (k - k))" in err and "division by zero" in err, err


def test_a_vector_of_the_wrong_dimension_is_found_before_the_run(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text('[variants.v]\nstate = { w = "w0" }\nscore = "dot(w, x)"\nmistake = "y * score <= 0"\n'
                    'update = { w = "w + vec(1)" }\n')
    rc, out, err = cli("train", "--data", DATA, "--variants", path, "--variant", "v", "--trace", tmp_path / "t.jsonl")
    assert rc == 2 and "vec(...) of 1 coordinates" in err and "have 2" in err and not (tmp_path / "t.jsonl").exists()


def test_every_record_present_is_checked_whatever_the_header_says(tmp_path):
    """An updates-only trace with a doctored non-update visit added is inconsistent (it was
    accepted: the checker read only the records the header said it held)."""
    import json

    trace = tmp_path / "u.jsonl"
    assert cli("train", "--data", DATA, "--order", "cyclic", "--record", "updates", "--trace", trace)[0] == 0
    lines = trace.read_text().splitlines()
    assert all(json.loads(ln)["mistake"] for ln in lines[1:-1])
    doctored = tmp_path / "d.jsonl"
    extra = {"type": "visit", "t": 12, "epoch": 3, "i": 3, "y": -1, "score": "99", "mistake": False, "k": 4}
    doctored.write_text("\n".join(lines[:-1] + [json.dumps(extra), lines[-1]]) + "\n")
    rc, out, _ = cli("check", "--data", DATA, "--trace", trace)
    assert rc == 0 and "consistent with" in out
    rc, out, _ = cli("check", "--data", DATA, "--trace", doctored)
    assert "INCONSISTENT" in out and "visit 12" in out, out


def test_declared_outputs_compare_as_numbers(tmp_path):
    """The averaged perceptron's w_avg spelled another way (same rational) is the same output."""
    import json

    variants = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "variants",
                            "averaged.toml")
    trace = tmp_path / "a.jsonl"
    assert cli("train", "--data", DATA, "--variants", variants, "--variant", "averaged", "--trace", trace)[0] == 0
    lines = trace.read_text().splitlines()
    end = json.loads(lines[-1])

    def respell(s):
        p, _, q = s.partition("/")
        return f"{int(p) * 10**150}/{int(q or 1) * 10**150}"
    end["outputs"] = {k: [respell(x) for x in v] if isinstance(v, list) else respell(v) for k, v in end["outputs"].items()}
    (tmp_path / "b.jsonl").write_text("\n".join(lines[:-1] + [json.dumps(end)]) + "\n")
    rc, out, err = cli("check", "--data", DATA, "--variants", variants, "--trace", tmp_path / "b.jsonl", "--claims",
                       variants)
    assert "consistent with" in out and "INCONSISTENT" not in out, out + err
    end["outputs"] = {k: [respell(x) + "1" for x in v] if isinstance(v, list) else respell(v) + "1"
                      for k, v in json.loads(lines[-1])["outputs"].items()}
    (tmp_path / "c.jsonl").write_text("\n".join(lines[:-1] + [json.dumps(end)]) + "\n")
    rc, out, err = cli("check", "--data", DATA, "--variants", variants, "--trace", tmp_path / "c.jsonl")
    assert "INCONSISTENT" in out and "w_avg" in out, out + err


_TERMS = st.sampled_from(["eta * y * x", "y * x", "(1 / (k + 1)) * y * x", "eta * (k - k) * y * x", "(1 / (k - k)) * x",
                          "y * x / (eta - 1)", "vec(1, 1)", "vec(1)", "vec(1, 2, 3)", "x * 1e300 * 1e300",
                          "sqrt(2) * y * x"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(term=_TERMS, arithmetic=st.sampled_from(["--exact", "--float"]))
def test_hypothesis_declarations_train_then_check(tmp_path, term, arithmetic):
    """A declaration made by Hypothesis: train either writes a trace check accepts, or refuses
    it in one line naming the file; never a traceback, never an internal error."""
    path = tmp_path / "h.toml"
    path.write_text('[variants.h]\nstate = { w = "w0" }\nscore = "dot(w, x)"\nmistake = "y * score <= 0"\n'
                    f'update = {{ w = "w + {term}" }}\n')
    trace = tmp_path / "h.jsonl"
    if trace.exists():
        trace.unlink()
    argv = ["train", "--data", DATA, "--variants", path, "--variant", "h", "--max-epochs", "4", "--trace", trace]
    rc, out, err = cli(*(argv + ([] if arithmetic == "--exact" else ["--float"])))
    assert "internal error" not in err and "Traceback" not in err, err
    if rc != 0:
        assert rc == 2 and err.count("\n") == 1 and str(path) in err, err
        return
    rc, out, err = cli("check", "--data", DATA, "--variants", path, "--trace", trace, "--only", "000.converges")
    assert "internal error" not in err and "consistent with" in out and "INCONSISTENT" not in out, out + err


LONG = "builtin:and-2"  # its cyclic run from w0 = (-1, 1/2, -1) makes 12 updates in 28 visits


@pytest.mark.parametrize("ext", ["jsonl", "npz"])
@pytest.mark.parametrize("limit, value", [("MAX_TRACE_BYTES", 2500), ("MAX_TRACE_RECORDS", 20), ("MAX_CELLS", 20),
                                          ("MAX_TRACE_LINE", 60)])
def test_train_never_writes_a_trace_check_refuses(tmp_path, monkeypatch, ext, limit, value):
    """The trace writers keep to the reader's limits (one set, perceptron.limits): a run whose
    trace would pass a limit stops with one line naming it and leaves no file; with the limit
    raised just enough, the same run is written and check reads it."""
    import perceptron.limits as L
    import perceptron.trace_reader as R
    import perceptron._npz as N

    for mod in (L, R, N):
        if hasattr(mod, limit):
            monkeypatch.setattr(mod, limit, value)
    trace = tmp_path / f"t.{ext}"
    args = ("train", "--data", LONG, "--order", "cyclic", "--augment", "last", "--w0=-1,1/2,-1", "--trace", trace)
    rc, out, err = cli(*args)
    refused = rc == 2
    if (limit, ext) == ("MAX_CELLS", "jsonl"):  # a JSON Lines trace has no columns: the NPZ reader's limit
        assert rc == 0, err
    else:
        assert refused and limit in err and "check reads" in err and err.count("\n") == 1 and not trace.exists(), err
    if refused:
        for mod in (L, R, N):
            if hasattr(mod, limit):
                monkeypatch.setattr(mod, limit, value * 40)
        rc, out, err = cli(*args)
        assert rc == 0, err
    rc, out, err = cli("check", "--data", LONG, "--trace", trace)
    assert rc in (0, 1) and "consistent with" in out and "INCONSISTENT" not in out, out + err


def test_the_line_limit_counts_the_newline_as_the_reader_does(tmp_path, monkeypatch):
    """A JSON Lines record whose line, newline included, is exactly MAX_TRACE_LINE is written and
    read; one character less of limit and train refuses it (it wrote what check refused)."""
    import perceptron.limits as L
    import perceptron.trace_reader as R

    trace = tmp_path / "t.jsonl"
    rc, _, err = cli("train", "--data", LONG, "--order", "cyclic", "--augment", "last", "--w0=-1,1/2,-1", "--trace", trace)
    assert rc == 0, err
    longest = max(len(line) for line in trace.read_text().splitlines(keepends=True))
    for limit, ok in ((longest, True), (longest - 1, False)):
        for mod in (L, R):
            monkeypatch.setattr(mod, "MAX_TRACE_LINE", limit)
        rc, _, err = cli("train", "--data", LONG, "--order", "cyclic", "--augment", "last", "--w0=-1,1/2,-1", "--trace", trace)
        assert (rc == 0) == ok, err
        if ok:
            rc, out, err = cli("check", "--data", LONG, "--trace", trace)
            assert "consistent with" in out and "INCONSISTENT" not in out, out + err


@pytest.mark.parametrize("ext", ["jsonl", "npz"])
def test_numbers_longer_than_check_reads_stop_the_run(tmp_path, ext):
    """Exact values that outgrow MAX_NUMBER_CHARS (a score of 10^1002) stop the run with one line
    naming the limit; nothing is written (check would refuse the number)."""
    data = tmp_path / "big.csv"
    data.write_text("x,label\n1e501,1\n-1e501,-1\n")
    trace = tmp_path / f"t.{ext}"
    rc, _, err = cli("train", "--data", data, "--order", "cyclic", "--trace", trace)
    assert rc == 2 and "MAX_NUMBER_CHARS" in err and err.count("\n") == 1 and not trace.exists(), err
