"""Trust round three (issue 34): hostile inputs that gave an internal error, a hang or a wrong
line get one line on stderr naming the file (and line) or the option, and exit 2."""

from __future__ import annotations

import contextlib
import io
import socket
import threading
import time
import zipfile

import numpy as np
import pytest

from verify.cli import main as cli_main


def _bomb_npz(path, members: int, declared: int) -> None:
    """An NPZ of small members whose zip directory declares ``declared`` bytes each."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for k in range(members):
            buf = io.BytesIO()
            np.save(buf, np.zeros(4))
            zf.writestr(f"junk{k}.npy", buf.getvalue())
        for info in zf.filelist:
            info.file_size = declared


@pytest.mark.parametrize("what", ["trace", "data"])
def test_npz_members_summed_against_one_budget(tmp_path, capsys, what):
    """12 members of 400 MB each (each within MAX_CELLS, 4.8 GB together) are refused before
    one is read, in one line naming the file."""
    from perceptron.limits import MAX_NPZ_UNPACKED

    bomb = tmp_path / "bomb.npz"
    _bomb_npz(bomb, 12, 400_000_000)
    data = tmp_path / "d.csv"
    data.write_text("1,1\n-1,-1\n")
    args = ["check", "--data", str(data), "--trace", str(bomb)] if what == "trace" else \
        ["train", "--data", str(bomb)]
    capsys.readouterr()
    assert cli_main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(bomb) in err and "MAX_NPZ_UNPACKED" in err, err
    assert str(MAX_NPZ_UNPACKED) in err


@contextlib.contextmanager
def _server(answer: bytes | None):
    """A local TCP server that accepts connections and sends ``answer`` at once (None: says
    nothing, ever)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    stop, held = threading.Event(), []

    def serve():
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            held.append(conn)
            if answer is not None:
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        sock.close()


def _run_with_scheduler(tmp_path, capsys, address):
    claims = tmp_path / "c.toml"
    claims.write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "d.wrong"\nsection = "s"\nstatement = "s"\n'
                      'when = "update"\nvariants = ["rosenblatt"]\nexpr = "norm2(w) <= k"\nexpect = "refuted"\n')
    capsys.readouterr()
    start = time.monotonic()
    rc = cli_main(["run", "--claims", str(claims), "--quiet", "--no-cache", "--out", str(tmp_path / "out"),
                   "--scheduler", address])
    return rc, capsys.readouterr().err.strip(), time.monotonic() - start


@pytest.mark.parametrize("answer, why", [(None, "sent no handshake within"),
                                         (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                                          "does not speak Dask's protocol")])
def test_scheduler_that_is_not_one_is_one_line_in_seconds(tmp_path, capsys, answer, why):
    """A silent TCP server (accepts, never answers) and an HTTP server as the scheduler: one
    line naming the option, exit 2, within the handshake deadline (was: a hang past 60 s, and a
    MemoryError of 3 EiB)."""
    pytest.importorskip("distributed")
    from verify.searching.scheduler import HANDSHAKE_SECONDS

    with _server(answer) as address:
        rc, err, took = _run_with_scheduler(tmp_path, capsys, address)
    assert rc == 2 and err.count("\n") == 0 and f"--scheduler {address}" in err and why in err, err
    assert "internal error" not in err and took < HANDSHAKE_SECONDS + 5


@pytest.mark.parametrize("address", ["ucx://127.0.0.1:8786", "tls://127.0.0.1:8786", "inproc://x/1/2",
                                     "tcp://127.0.0.1:99999", "tcp://a b:1"])
def test_scheduler_address_of_an_unsupported_scheme_is_one_line(tmp_path, capsys, address):
    """ucx:// and tls:// gave a TypeError; every scheme but tcp:// is refused by name."""
    pytest.importorskip("distributed")
    rc, err, took = _run_with_scheduler(tmp_path, capsys, address)
    assert rc == 2 and err.count("\n") == 0 and "--scheduler" in err and "internal error" not in err, err
    assert took < 5


def test_scheduler_probe_accepts_a_real_scheduler():
    distributed = pytest.importorskip("distributed")
    from verify.searching.scheduler import connect

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp://",
                                  dashboard_address=":0") as cl:
        with connect(cl.scheduler_address, 5) as client:
            assert client.submit(lambda x: x + 1, 1).result(timeout=10) == 2


_CLAIMS = """[document]
file = "n.md"

[[claim]]
id = "d.bound"
section = "s"
statement = "s"
when = "end"
variants = ["rosenblatt"]
assume = ["separable", "w0_zero", "eta_one"]
expr = "mistakes <= R2/gamma**2"
expect = "holds"

[[claim]]
id = "d.wrong"
section = "s"
statement = "s"
when = "update"
variants = ["rosenblatt"]
expr = "norm2(w) <= k"
expect = "refuted"

[[claim]]
id = "d.strict"
section = "s"
statement = "s"
when = "end"
variants = ["rosenblatt"]
assume = ["separable", "w0_zero", "eta_one"]
expr = "mistakes < R2/gamma**2"
expect = "refuted"

[[claim]]
id = "d.step"
section = "s"
statement = "s"
when = "symbolic"
vectors = ["w", "x"]
scalars = ["y"]
hypotheses = ["y**2 == 1", "y*dot(w, x) <= 0"]
steps = ["norm2(w + y*x) <= norm2(w)"]
expect = "refuted"
"""


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """results.json of an audit whose evidence has every shape the reports read: quantifiers
    and smallest slack, a corpus counterexample, a search counterexample with a separator, and
    proof steps with theirs."""
    import json

    d = tmp_path_factory.mktemp("audited")
    (d / "c.toml").write_text(_CLAIMS)
    assert cli_main(["run", "--claims", str(d / "c.toml"), "--quiet", "--no-cache", "--out", str(d / "out")]) == 0
    return json.loads((d / "out" / "results.json").read_text())


def _paths(obj, path=()):
    """Every key path of ``obj`` (of a list, its first item only; of the quantifiers, one)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if (path and path[-1] == "quantifiers" and k != next(iter(obj))) or k in ("summary", "min_slack_at"):
                continue  # (one quantifier is enough; a run's summary and the slack's place are not read)
            yield path + (k,)
            yield from _paths(v, path + (k,))
    elif isinstance(obj, list) and obj:
        yield path + (0,)
        yield from _paths(obj[0], path + (0,))


def _mutants(results):
    """(what, results) with one key of a claim's evidence (or its expr, corrects, note) deleted
    or given a value of another type."""
    import copy

    for j, c in enumerate(results["claims"]):
        for path in [("expr",), ("note",), ("corrects",)] + [("evidence",) + p for p in _paths(c["evidence"])]:
            for value in ("DELETE", None, 7, "x", [], {}, [[1, 2]]):
                r = copy.deepcopy(results)
                box = r["claims"][j]
                for k in path[:-1]:
                    box = box[k]
                if value == "DELETE":
                    if not isinstance(box, dict) or path[-1] not in box:
                        continue
                    del box[path[-1]]
                elif isinstance(box, dict) or (isinstance(box, list) and path[-1] < len(box)):
                    box[path[-1]] = value
                yield f"claims[{j}].{'.'.join(map(str, path))} = {value!r}", r


def test_report_validates_evidence_before_writing(audited, tmp_path, monkeypatch):
    """Every key the reports read from a claim's evidence, missing or of another type: either
    refused by the check (one problem naming the claim) or written without an error (was:
    KeyError, TypeError, AttributeError in the middle of the reports)."""
    import verify.report.figures
    from verify.report.artefacts import write_artefacts
    from verify.report.evidence_check import validate_report_input

    # the figures are drawn from the data (so bad data still fails there), not rendered to SVG
    monkeypatch.setattr(verify.report.figures, "svg_of", lambda fig: "<svg></svg>")
    assert validate_report_input(audited) is None
    refused = written = 0
    for what, r in _mutants(audited):
        problem = validate_report_input(r)
        if problem:
            assert problem.startswith(("claims[", "corpus")) and "\n" not in problem, (what, problem)
            refused += 1
            continue
        try:
            write_artefacts(str(tmp_path), r)
        except Exception as e:  # noqa: BLE001 (what the test looks for)
            raise AssertionError(f"{what}: {type(e).__name__}: {e}") from None
        written += 1
    assert refused > 50 and written > 20


def test_report_names_results_json_and_the_claim(audited, tmp_path, capsys):
    import json

    r = json.loads(json.dumps(audited))
    del r["claims"][2]["evidence"]["counterexample"]["search"]["labels"]
    r["claims"][0]["evidence"]["min_slack"] = {"exact": 3}
    for n, problem in ((2, "claim 'd.strict').evidence.counterexample.search.labels is missing"),
                       (0, "claim 'd.bound').evidence.min_slack.exact must be a string")):
        out = tmp_path / str(n)
        out.mkdir()
        r2 = json.loads(json.dumps(audited))
        r2["claims"][n] = r["claims"][n]
        (out / "results.json").write_text(json.dumps(r2))
        capsys.readouterr()
        assert cli_main(["report", "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and str(out / "results.json") in err and problem in err, err


def test_report_validates_the_corpus_tables(audited):
    """The tightness table and the plot data the reports draw are checked too."""
    import json

    from verify.report.evidence_check import validate_report_input

    for corpus, problem in (({"tightness": [{"claim": "x", "worst_ratio": "1"}]}, "corpus.tightness[0].worst_ratio"),
                            ({"plots": {"series": [{"rows": [[1, 2]]}]}}, "corpus.plots.series[0].rows"),
                            ({"plots": {"bounds": [{"bound": 1}]}}, "corpus.plots.bounds[0].mistakes is missing")):
        r = json.loads(json.dumps(audited))
        r["corpus"].update(corpus)
        assert problem in (validate_report_input(r) or ""), corpus


_DRAFTED = '''# Drafted by proof-audit draft from n.md, then given a variant

[document]
file = "n.md"
title = "A note"

[[claim]]
id = "m.wrong"
section = "s"
statement = "s"
when = "update"
variants = ["margin_r3"]
expr = "norm2(w) <= k"
expect = "holds"

[notation]
"\\\\alpha" = "gamma"

[variants.margin_r3]
note = "Margin perceptron"
parameters = { tau = "1" }
state = { w = "w0" }
score = "dot(w, x)"
mistake = "y * score <= tau"
update = { w = "w + eta * y * x" }
orders = ["cyclic", "random", "first", "sequence"]
stop = "converged"
'''


def test_drafted_claim_file_is_a_variant_file_and_its_replay_runs(tmp_path, monkeypatch, capsys):
    """A claim file with the drafter's [notation] table, declaring a variant: lint and run accept
    it, so --variants does too, and the replay command printed for its refuted claim runs (was:
    "unknown top-level key 'notation'", exit 2)."""
    import json
    import shlex

    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text(_DRAFTED)
    assert cli_main(["claims", "lint", "c.toml"]) == 0
    assert cli_main(["run", "--claims", "c.toml", "--quiet", "--no-cache", "--out", "out"]) in (0, 1)
    replay = json.loads((tmp_path / "out" / "results.json").read_text())["claims"][0]["evidence"]["replay"]
    assert "--variants c.toml" in replay
    capsys.readouterr()
    for command in replay.split(" && "):
        argv = shlex.split(command)
        assert argv[0] == "proof-audit"
        assert cli_main(argv[1:]) in (0, 1), capsys.readouterr()
    out = capsys.readouterr().out
    assert "m.wrong: refuted" in out, out


@pytest.mark.parametrize("extra, key, line", [("[notes]\nx = 1\n", "notes", 29), ("[[claims]]\nid = 1\n", "claims", 29)])
def test_unknown_top_level_key_is_reported_at_its_line(tmp_path, capsys, extra, key, line):
    """Lint, --claims and --variants name the line of the unknown table (was: line 1)."""
    path = tmp_path / "c.toml"
    path.write_text(_DRAFTED + "\n" + extra)
    assert _DRAFTED.count("\n") + 2 == line
    data = tmp_path / "d.csv"
    data.write_text("1,1\n-1,-1\n")
    for argv in (["claims", "lint", str(path)], ["train", "--data", str(data), "--variants", str(path)]):
        capsys.readouterr()
        assert cli_main(argv) == 2 if argv[0] == "train" else cli_main(argv) != 0
        captured = capsys.readouterr()
        text = captured.err + captured.out
        assert f"{path}:{line}:" in text and f"unknown top-level key {key!r}" in text, text


def test_notation_problem_is_reported_at_its_table(tmp_path, capsys):
    path = tmp_path / "c.toml"
    path.write_text(_DRAFTED.replace('"\\\\alpha" = "gamma"', '"\\\\alpha" = 3'))
    capsys.readouterr()
    assert cli_main(["claims", "lint", str(path)]) != 0
    captured = capsys.readouterr()
    assert f"{path}:17:" in captured.err + captured.out, captured


@pytest.mark.parametrize("table, named", [
    ("[tool.proof-audit.search]\npoints = 0\n", "[tool.proof-audit.search]: points = 0: choose 1 to 12"),
    ("[tool.proof-audit.search]\ntimeout = -1\n", "[tool.proof-audit.search]: timeout = -1"),
    ("[tool.proof-audit.search]\nbox = 1000\ndim = 8\n", "[tool.proof-audit.search]: box = 1000 dim = 8"),
    ('[tool.proof-audit]\nscheduler = "ucx://127.0.0.1:1"\n', "[tool.proof-audit] scheduler = ucx://127.0.0.1:1"),
])
@pytest.mark.parametrize("command", [["search", "000.iterations", "--quiet"], ["run", "--quiet", "--no-cache"]])
def test_configuration_errors_name_pyproject_and_the_key(tmp_path, table, named, command):
    """A bad value of [tool.proof-audit] is named by the file and key, not as the option it
    stands for (was: "--points 0")."""
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text(table)
    r = subprocess.run([sys.executable, "-m", "verify", *command, "--out", str(tmp_path / "out")], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    err = r.stderr.strip()
    assert r.returncode == 2 and err.count("\n") == 0, err
    assert f"{tmp_path / 'pyproject.toml'}: {named}" in err and " --" not in err.split(": ", 1)[1], err


_PAYLOAD_CLAIMS = '''[document]
file = "n.md\\n::error title=x::pwned\\n::add-mask::secret\\n##[error]old"
title = "T\\n::warning ::t"

[[claim]]
id = "d.wrong"
section = "s\\n::error ::section"
statement = "s\\n  ::error ::statement"
when = "update"
variants = ["rosenblatt"]
expr = "norm2(w) <= k"
expect = "holds"
'''


def test_no_input_line_is_a_workflow_command_under_github_actions(tmp_path):
    """Under GITHUB_ACTIONS=true, names and statements holding a newline and "::error",
    "::add-mask::" or "##[" are printed escaped: the only workflow commands on stdout and
    stderr are our own annotations (was: real commands)."""
    import os
    import re
    import subprocess
    import sys

    (tmp_path / "c.toml").write_text(_PAYLOAD_CLAIMS)
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "c.toml", "--no-cache", "--out", "out"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode in (1, 2), r.stderr
    commands = [ln for ln in (r.stdout + "\n" + r.stderr).splitlines() if ln.lstrip().startswith(("::", "##["))]
    assert all(re.match(r"::error file=[^,\n]*,line=\d+,title=proof-audit d\.wrong::", ln) for ln in commands), commands
    if r.returncode == 1:  # the claim file was read: its annotation is there, and the payload shown inert
        assert len(commands) == 1 and "%3A%3Aadd-mask::secret" in r.stdout


def test_command_guard_holds_a_line_start_until_it_is_decided():
    """Lines written in pieces (":" then ":error") are escaped all the same; other text passes
    unchanged; our own commands pass the guard."""
    import io
    import sys

    from verify.report.github_text import guard_streams, print_command

    raw = io.StringIO()
    old = sys.stdout, sys.stderr
    sys.stdout = raw
    try:
        guard_streams({"GITHUB_ACTIONS": "true"})
        for piece in ("ok: a::b\n  :", ":error ::x\n", "#", "#[warning]y\nplain", " text", "\r::set-output x\n"):
            sys.stdout.write(piece)
        print_command("::error file=a,line=1::ours")
        sys.stdout.write(":")
        sys.stdout.drain()
    finally:
        sys.stdout, sys.stderr = old
    assert raw.getvalue() == ("ok: a::b\n  %3A%3Aerror ::x\n%23%23[warning]y\nplain text\r%3A%3Aset-output x\n"
                              "::error file=a,line=1::ours\n:")


def test_a_long_declared_output_round_trips(tmp_path, capsys):
    """A declared output of 6,400 digits (a 100-digit parameter to the 64th) written by train is
    read back by check as consistent (was: INCONSISTENT, the text past the spelled-number limit);
    a doctored digit of it is still caught."""
    import json

    (tmp_path / "v.toml").write_text(f'''[variants.bigout]
note = "Rosenblatt with a long output"
parameters = {{ c = "{'9' * 100}" }}
state = {{ w = "w0" }}
score = "dot(w, x)"
mistake = "y * score <= 0"
update = {{ w = "w + eta * y * x" }}
outputs = {{ big = "c ** 64" }}
orders = ["cyclic"]
stop = "converged"
''')
    trace = tmp_path / "t.jsonl"
    common = ["--data", "builtin:worked-example", "--variants", str(tmp_path / "v.toml")]
    assert cli_main(["train", *common, "--variant", "bigout", "--trace", str(trace)]) == 0
    lines = trace.read_text().splitlines()
    assert len(json.loads(lines[-1])["outputs"]["big"]) == 6400
    capsys.readouterr()
    assert cli_main(["check", *common, "--trace", str(trace)]) == 0
    assert "consistent" in capsys.readouterr().out
    end = json.loads(lines[-1])
    end["outputs"]["big"] = "8" + end["outputs"]["big"][1:]
    trace.write_text("\n".join(lines[:-1] + [json.dumps(end)]) + "\n")
    assert cli_main(["check", *common, "--trace", str(trace)]) == 1
    assert "INCONSISTENT" in capsys.readouterr().out


def test_sigterm_stops_a_run_as_ctrl_c_does_and_cleans_up(tmp_path):
    """A command stopped by SIGTERM (a cancelled CI job) removes what it was writing -- here a
    long NPZ trace's spool directory /tmp/proof-audit-trace-* -- and exits 130 with one line
    (was: killed mid-write, the directory left behind)."""
    import os
    import random
    import signal
    import subprocess
    import sys

    rng = random.Random(1)
    data = tmp_path / "noisy.csv"
    data.write_text("".join(",".join(str(rng.randint(-9, 9)) for _ in range(10)) + f",{rng.choice((1, -1))}\n"
                            for _ in range(5000)))
    spool = tmp_path / "tmp"
    spool.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "verify", "train", "--data", str(data), "--trace",
                             str(tmp_path / "t.npz"), "--max-epochs", "100000"],
                            env={**os.environ, "TMPDIR": str(spool)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 60
        while not any(spool.iterdir()) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert any(spool.iterdir()), "the run did not start its trace"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err.strip() == "proof-audit: interrupted", err
    assert not any(spool.iterdir()) and not (tmp_path / "t.npz").exists()
