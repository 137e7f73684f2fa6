"""proof-audit in a course repository: the pytest plugin, [tool.proof-audit], --version."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from verify.cli import main
from verify.config import load_config

from .test_artefacts import FALSE_CLAIM

# the course repository's own conftest: records which claims each audit() call was asked for,
# so the test sees the work done (one line per call, in whichever process made it)
SPY = '''
import json, os
import verify.audit as A

_real = A.audit

def _spy(*args, **kw):
    with open(os.environ["AUDIT_LOG"], "a") as fh:
        fh.write(json.dumps(sorted(kw.get("only") or [])) + "\\n")
    return _real(*args, **kw)

A.audit = _spy
'''


@pytest.fixture
def course(tmp_path):
    """A course repository: notes/claims_mine.toml (one false claim, one true), a test file,
    and a conftest spying on the audit."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "notes" / "claims_mine.toml").write_text(textwrap.dedent(FALSE_CLAIM.format(expect="holds")))
    (tmp_path / "tests" / "test_unit.py").write_text("def test_unit():\n    assert 1 + 1 == 2\n")
    (tmp_path / "conftest.py").write_text(SPY)
    return tmp_path


def _pytest(repo, *args, env=None):
    log = repo / "audits.log"
    if log.exists():
        log.unlink()
    e = {**os.environ, "AUDIT_LOG": str(log), "CI": "true", "COLUMNS": "200", **(env or {})}
    r = subprocess.run([sys.executable, "-m", "pytest", "-W", "ignore::DeprecationWarning", "-p", "no:randomly",
                        "--rootdir", str(repo), *args], capture_output=True, text=True, cwd=repo, env=e, timeout=600)
    calls = [json.loads(ln) for ln in log.read_text().splitlines()] if log.exists() else []
    return r, calls


def test_claims_are_collected_as_items_at_their_lines(course):
    r, calls = _pytest(course, "--proof-audit", "notes", "--co", "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "notes/claims_mine.toml::mine.bound" in r.stdout and "notes/claims_mine.toml::mine.norm" in r.stdout
    assert "3 tests collected" in r.stdout and calls == []  # collecting audits nothing
    # -k selects one claim and audits only it
    r, calls = _pytest(course, "--proof-audit", "notes", "-q", "-k", "norm")
    assert "1 passed, 2 deselected" in r.stdout, r.stdout
    assert calls == [["mine.norm"]]


def test_a_failure_says_where_why_and_how_to_replay(course):
    r, calls = _pytest(course, "--proof-audit", "-q", "-rf")  # no PATH: claims_*.toml under the rootdir
    assert r.returncode == 1
    assert "1 failed, 2 passed" in r.stdout, r.stdout
    assert calls == [["mine.bound", "mine.norm"]]  # the file's claims audited together, once
    line = next(i for i, t in enumerate((course / "notes" / "claims_mine.toml").read_text().splitlines(), 1)
                if "[[claim]]" in t)
    assert f"claims_mine.toml:{line}: claim mine.bound (my_notes.md, Theorem 2)" in r.stdout
    assert "replay: proof-audit train" in r.stdout and "counterexample" in r.stdout
    summary = r.stdout[r.stdout.index("short test summary"):]
    assert "FAILED notes/claims_mine.toml::mine.bound - refuted, expected holds: counterexample on" in summary
    # the verdicts and what they covered, passes included
    assert "mine.norm: no counterexample in domain -- covered: domain searched" in r.stdout
    # --lf reruns only the failed claim
    r, calls = _pytest(course, "--proof-audit", "-q", "--lf")
    assert "1 failed" in r.stdout and "passed" not in r.stdout.splitlines()[-1], r.stdout
    assert calls == [["mine.bound"]]


def test_xdist_workers_split_the_claims(course):
    pytest.importorskip("xdist")
    r, calls = _pytest(course, "--proof-audit", "notes", "-q", "-n", "2", "-rf")
    assert r.returncode == 1 and "1 failed, 2 passed" in r.stdout, r.stdout + r.stderr
    assert sorted(calls) == [["mine.bound"], ["mine.norm"]]  # each claim audited once, by one worker
    assert "- refuted, expected holds: counterexample" in r.stdout  # the reason survives the workers


def test_a_broken_claim_file_is_one_collection_error(course):
    (course / "notes" / "claims_broken.toml").write_text('[document]\nfile = "x.md"\n\n[[claim]]\nid = "a b"\n')
    r, _ = _pytest(course, "--proof-audit", "notes", "-q")
    assert r.returncode == 2
    assert "ERROR collecting notes/claims_broken.toml" in r.stdout
    assert "claims_broken.toml:4:1: claim lacks required field" in r.stdout and "Traceback" not in r.stdout


def test_tool_proof_audit_configures_claims_data_and_domain(course, capsys):
    (course / "pyproject.toml").write_text(textwrap.dedent('''
        [tool.proof-audit]
        claims = ["notes/claims_*.toml"]
        out = "audit-out"
        jobs = 1

        [tool.proof-audit.search]
        points = 2
        box = 1
        '''))
    cfg = load_config(str(course / "notes"))
    assert cfg.claims == [str(course / "notes" / "claims_mine.toml")] and cfg.search == {"points": 2, "box": 1}
    cwd = os.getcwd()
    os.chdir(course)
    try:
        from verify import cli

        cli._CONFIG.clear()
        assert main(["run", "--quiet"]) == 1
    finally:
        os.chdir(cwd)
        cli._CONFIG.clear()
    results = json.loads((course / "audit-out" / "results.json").read_text())
    assert [c["id"] for c in results["claims"]] == ["mine.bound", "mine.norm"]
    norm = results["claims"][1]
    assert "integer points in [-1, 1]^2" in norm["evidence"]["search"]["domain_text"]
    # the plugin with no PATH takes the configured claims
    r, calls = _pytest(course, "--proof-audit", "-q", "-k", "bound")
    assert "1 failed, 2 deselected" in r.stdout, r.stdout
    # a wrong value: one line naming the file and key
    (course / "pyproject.toml").write_text('[tool.proof-audit]\nclaims = "notes"\n')
    r = subprocess.run([sys.executable, "-m", "verify", "run"], capture_output=True, text=True, cwd=course)
    assert r.returncode == 2 and r.stderr.strip() == f"proof-audit: {course / 'pyproject.toml'}: [tool.proof-audit]: claims must be a list"


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    from importlib.metadata import version

    assert capsys.readouterr().out.strip() == f"proof-audit {version('proof-audit')}"
