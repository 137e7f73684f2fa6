"""The documentation: the reference pages are what docs/generate_reference.py writes from the code
now, the site builds strictly, and the README stays short with its two set-up commands."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
REFERENCE = os.path.join(DOCS, "reference")

#: Longest README accepted (the issue asks for about 200 lines).
README_LINES = 220


def _generator():
    spec = importlib.util.spec_from_file_location("generate_reference", os.path.join(DOCS, "generate_reference.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _reference() -> str:
    return "\n".join(_read(os.path.join(REFERENCE, f)) for f in sorted(os.listdir(REFERENCE)) if f.endswith(".md"))


def test_the_reference_is_what_the_code_generates():
    """Every page of docs/reference equals what the generator writes now (run
    `python docs/generate_reference.py` after changing an option, a field, a quantity or a limit)."""
    gen = _generator()
    assert gen.differing() == []
    for name, text in gen.render().items():
        assert text.startswith(gen.MARK), name
        assert ROOT not in text, f"{name} names a path of this machine"


def test_the_check_names_the_pages_that_differ(tmp_path):
    """--check exits 0 on the committed pages; a page that differs is named and makes it exit 1."""
    r = subprocess.run([sys.executable, os.path.join(DOCS, "generate_reference.py"), "--check"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    gen = _generator()
    pages = gen.render()
    for name, text in pages.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert gen.differing(pages, str(tmp_path)) == []
    (tmp_path / "limits.md").write_text(pages["limits.md"].replace("MAX_", "MIN_", 1), encoding="utf-8")
    assert [p.rsplit("/", 1)[-1] for p in gen.differing(pages, str(tmp_path))] == ["limits.md"]


def test_a_new_option_shows_as_a_difference():
    """An option added to the parser (here to a parser built by verify.cli, not to the code) changes
    the commands page: the committed page would then differ, and the test above fail."""
    from verify.cli import build_parser

    gen = _generator()
    committed = _read(os.path.join(REFERENCE, "commands.md"))
    parser = build_parser()
    run = gen._subparsers(parser).choices["run"]
    run.add_argument("--fake-depth", type=int, default=7, help="a fake option of this test")
    page = gen.commands_page(parser)
    assert page != committed
    assert "| `--fake-depth` | `FAKE_DEPTH` | `7` | a fake option of this test |" in page


def test_every_command_and_option_is_in_the_reference():
    """Every command (and claims tool) of verify/cli.py's parser, and each of its options, has a
    section and a row on the commands page."""
    from verify.cli import build_parser

    gen = _generator()
    page = _read(os.path.join(REFERENCE, "commands.md"))
    missing = []

    def walk(prefix, parser):
        sub = gen._subparsers(parser)
        for name, sp in (sub.choices.items() if sub else ()):
            if f"`proof-audit {prefix}{name}`" not in page:
                missing.append(prefix + name)
            for a in sp._actions:
                for opt in a.option_strings:
                    if opt not in ("-h", "--help") and f"`{opt}`" not in page:
                        missing.append(f"{prefix}{name} {opt}")
            walk(f"{prefix}{name} ", sp)

    walk("", build_parser())
    assert not missing, missing


def test_every_quantity_assumption_and_claim_field_is_in_the_reference():
    from verify.language.assumptions import ASSUMPTIONS
    from verify.language.claims import _FIELDS
    from verify.language.quantities import QUANTITIES

    quantities = _read(os.path.join(REFERENCE, "quantities.md"))
    assumptions = _read(os.path.join(REFERENCE, "assumptions.md"))
    fields = _read(os.path.join(REFERENCE, "claim-files.md"))
    assert [q for q in QUANTITIES if f"| `{q}` |" not in quantities] == []
    assert [a for a in ASSUMPTIONS if f"| `{a}` |" not in assumptions] == []
    assert [f for f in _FIELDS if f"| `{f}` |" not in fields] == []
    assert "(no description in the code)" not in fields


def test_the_readme_is_short_and_keeps_the_set_up():
    readme = _read(os.path.join(ROOT, "README.md"))
    assert len(readme.splitlines()) <= README_LINES
    setup = re.search(r"## Set-up: two commands\n(.*?)\n## ", readme, re.S).group(1)
    blocks = re.findall(r"```sh\n(.*?)\n```", setup, re.S)
    assert blocks == [
        "python3 -m venv .venv && .venv/bin/pip install -q -e . && .venv/bin/proof-audit run",
        "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest -q -n auto",
    ]
    assert "<!-- test-command -->\n```sh\npython3 -m venv .venv && .venv/bin/pip install -q -e '.[test]'" in setup


def test_the_readme_links_only_to_pages_that_exist():
    readme = _read(os.path.join(ROOT, "README.md"))
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert links
    assert [p for p in links if not os.path.isfile(os.path.join(ROOT, p))] == []


def test_the_verdict_headings_give_the_anchors_pages_link_to():
    page = _read(os.path.join(DOCS, "explanation", "verdicts.md"))
    headings = re.findall(r"^## (.+)$", page, re.M)
    assert headings == ["Proved", "Holds on evidence", "No counterexample up to a scope", "Unknown", "Refuted"]


def test_the_site_builds_strictly(tmp_path):
    """mkdocs build --strict: no broken link, no page missing from the nav, no network."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[test]')")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site"),
                        "--config-file", os.path.join(ROOT, "mkdocs.yml")],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    for page in ("index.html", "tutorial/index.html", "reference/commands/index.html",
                 "explanation/verdicts/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
    verdicts = (tmp_path / "site" / "explanation" / "verdicts" / "index.html").read_text(encoding="utf-8")
    for anchor in ("proved", "holds-on-evidence", "no-counterexample-up-to-a-scope", "unknown", "refuted"):
        assert f'id="{anchor}"' in verdicts, anchor


def test_pages_link_each_verdict_to_the_docs_section_that_explains_it(tmp_path):
    """index.html and the annotated page link a verdict to explanation/verdicts/#..., on the site
    mkdocs.yml publishes, and every anchor they use is a heading of that page."""
    import re

    from verify.report.html_safety import DOCS_URL, verdict_help

    site = re.search(r"^site_url:\s*(\S+)", _path("mkdocs.yml"), re.M)
    assert site and site.group(1) == DOCS_URL
    headings = {re.sub(r"[^a-z0-9]+", "-", h.lower()).strip("-")
                for h in re.findall(r"^## (.+)$", _path("docs", "explanation", "verdicts.md"), re.M)}
    for verdict in ("proved", "holds on evidence", "no counterexample in domain", "unknown", "refuted"):
        link = verdict_help(verdict)
        anchor = re.search(r'verdicts/#([a-z-]+)"', link).group(1)
        assert link.startswith(f' <a class="help" href="{DOCS_URL}explanation/verdicts/#') and anchor in headings
    assert verdict_help("no such verdict") == ""
    index = _path("reports", "index.html")
    assert index.count(f'href="{DOCS_URL}explanation/verdicts/#') >= 100
    (tmp_path / "n.md").write_text("# A note\n\nThe distance is $1/\\sqrt{5}$.\n")
    (tmp_path / "c.toml").write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "n.d"\nsection = "A note"\n'
                                     'line = 3\nstatement = "The distance is $1/\\\\sqrt{5}$."\n'
                                     'expr = "1/norm(vec(2, -1)) == 1/sqrt(5)"\nwhen = "once"\nexpect = "holds"\n')
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "c.toml", "--out", "o", "--quiet"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    page = (tmp_path / "o" / "notes" / "n.html").read_text(encoding="utf-8")
    assert f'href="{DOCS_URL}explanation/verdicts/#proved"' in page


def _path(*parts) -> str:
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as fh:
        return fh.read()
