"""Issue 36, part 1: every replay command a run prints runs as printed from the folder the run
was started in (the claim and data files as the user named them, a --data folder's subfolder
included), reproduces the violation, and writes only under --out, with portable file names."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

BIN = os.path.dirname(sys.executable)
CLAIMS = '''
[document]
file = "n.md"
title = "My notes"

[[claim]]
id = "n.a:b"
section = "Theorem 1"
statement = "the perceptron makes at most one mistake on my data"
expr = "mistakes <= 1"
variants = ["rosenblatt"]
when = "end"
datasets = ["blog.csv"]
expect = "holds"

[[claim]]
id = "n.few:points"
section = "Setup"
statement = "every dataset has at least three points"
expr = "n >= 3"
variants = ["rosenblatt"]
when = "dataset"
expect = "holds"
'''
DATA = "x1,x2,y\n1,0,1\n0,1,-1\n-1,0,-1\n0,-1,1\n2,1,1\n"
#: characters Windows forbids in a file name
FORBIDDEN = re.compile(r'[<>:"\\|?*]')


def _clean_env() -> dict:
    """No PYTHONPATH, no configuration of ours: only the venv's commands on PATH."""
    return {"PATH": BIN + os.pathsep + "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "NO_COLOR": "1"}


def _files(root) -> dict:
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            out[os.path.relpath(p, root)] = os.stat(p).st_mtime_ns
    return out


def _sh(cmd: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", cmd], cwd=cwd, env=_clean_env(), capture_output=True, text=True, timeout=600)


def _user_folder(tmp_path):
    (tmp_path / "notes" / "data").mkdir(parents=True)
    (tmp_path / "notes" / "claims.toml").write_text(CLAIMS)
    (tmp_path / "notes" / "n.md").write_text("# My notes\n")
    (tmp_path / "notes" / "data" / "blog.csv").write_text(DATA)
    return tmp_path


def test_every_printed_replay_runs_from_the_users_folder_and_writes_under_out(tmp_path):
    home = _user_folder(tmp_path)
    run = _sh("proof-audit run --claims notes/claims.toml --data notes/data --out out --jobs 1 --quiet --color never",
              home)
    assert run.returncode == 1, run.stdout + run.stderr
    results = json.loads((home / "out" / "results.json").read_text())
    by_id = {c["id"]: c for c in results["claims"]}
    assert by_id["n.a:b"]["verdict"] == by_id["n.few:points"]["verdict"] == "refuted"
    replays = {cid: c["evidence"]["replay"] for cid, c in by_id.items()}
    # the commands name the files as the user did, the trace under --out as the user named it
    assert "--data notes/data/blog.csv " in replays["n.a:b"] and "--claims notes/claims.toml" in replays["n.a:b"]
    assert "--trace out/replays/" in replays["n.a:b"] and " ce.jsonl" not in replays["n.a:b"]
    assert replays["n.few:points"].endswith("--out out/replays")
    assert "\x00" not in json.dumps(results) and str(tmp_path) not in json.dumps(results)
    for text in (run.stdout, (home / "out" / "report.md").read_text()):
        assert replays["n.a:b"] in text  # printed as results.json holds it
    before = {k: v for k, v in _files(home).items() if not k.startswith("out" + os.sep)}

    corpus = _sh(replays["n.a:b"], home)  # train && check: the claim's violation, again
    assert corpus.returncode == 1, corpus.stdout + corpus.stderr
    assert "n.a:b: refuted" in corpus.stdout and "mistakes = 2 <= 1  (false)" in corpus.stdout, corpus.stdout
    search = _sh(replays["n.few:points"], home)  # the search finds it again ...
    assert search.returncode == 1, search.stdout + search.stderr
    assert "refuted" in search.stdout and "n = 1 >= 3  (false)" in search.stdout, search.stdout
    nested = [ln.split("replay: ", 1)[1] for ln in search.stdout.splitlines() if "replay: " in ln]
    assert len(nested) == 1 and "out/replays/" in nested[0]
    check = _sh(nested[0], home)  # ... and the command it prints checks it
    assert check.returncode == 1, check.stdout + check.stderr
    assert "n.few:points: refuted" in check.stdout and "n = 1 >= 3  (false)" in check.stdout, check.stdout

    after = {k: v for k, v in _files(home).items() if not k.startswith("out" + os.sep)}
    assert after == before, "a replay wrote outside --out"
    written = os.listdir(home / "out" / "replays")
    assert written and all(not FORBIDDEN.search(n) for n in written), written
    assert "n.a+3ab.trace.jsonl" in written and "n.few+3apoints.csv" in written


def test_results_do_not_depend_on_the_folder_or_the_jobs(tmp_path):
    """The same bytes for --jobs 1 and --jobs 4, from two folders, with the same relative --out."""
    got = []
    for name, jobs in (("one", 1), ("two", 4)):
        home = _user_folder(tmp_path / name)
        r = _sh(f"proof-audit run --claims notes/claims.toml --data notes/data --out out --jobs {jobs} --quiet --no-cache",
                home)
        assert r.returncode == 1, r.stdout + r.stderr
        got.append((home / "out" / "results.json").read_bytes())
    assert got[0] == got[1]


def test_file_names_made_from_input_are_portable():
    from perceptron.outputs import portable_name

    texts = ["000.a:b", "builtin:and-2", "CON", "con.x", "nul", "a.", "+", "", "a b", "a/b", "a\\b", "x" * 300,
             "γ:1", "+3a", "a:", "a+3a"]
    names = [portable_name(t) for t in texts]
    assert len(set(names)) == len(texts), "two texts share a file name"
    for n in names:
        assert n and not FORBIDDEN.search(n) and "/" not in n and not n.endswith((".", " ")) and len(n) < 200
        assert n.split(".")[0].lower() not in {"con", "prn", "aux", "nul", "com1", "lpt1"}
        assert shlex.quote(n) == n  # pastes into a command unquoted
    assert portable_name("000.a:b") == "000.a+3ab"


def test_the_search_names_its_files_portably(tmp_path):
    """`search` saves a counterexample of a claim whose id holds ':' under a portable name, and
    the command it prints runs from where search was started."""
    home = _user_folder(tmp_path)
    r = _sh("proof-audit search n.few:points --claims notes/claims.toml --points 1 --dim 1 --box 1 --engine enumerate "
            "--out found", home)
    assert r.returncode == 1, r.stdout + r.stderr
    assert sorted(os.listdir(home / "found")) == ["n.few+3apoints.csv", "n.few+3apoints.trace.jsonl"]
    cmd = [ln.split("replay: ", 1)[1] for ln in r.stdout.splitlines() if "replay: " in ln][0]
    again = _sh(cmd, home)
    assert again.returncode == 1 and "n.few:points: refuted" in again.stdout, again.stdout + again.stderr
