"""Issue 34, items 2 to 4: a claim file cannot publish a file from outside its repository, the
output folder is never written through a link, and no note shape makes draft or the page
quadratic."""

import os
import subprocess
import sys
import time

import pytest

from verify.cli import main

CLAIM = '''
[document]
file = "{file}"
{path}

[[claim]]
id = "n.bound"
section = "s"
line = 1
statement = "k <= R^2/gamma^2"
expr = "mistakes <= R2/gamma**2"
variants = ["rosenblatt"]
when = "end"
assume = ["separable", "w0_zero", "eta_one"]
expect = "holds"
'''

SECRET = "TOP-SECRET-TOKEN = 1"


def _repo(tmp_path):
    repo = tmp_path / "course"
    (repo / ".git").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text(SECRET + "\n")
    return repo


@pytest.mark.parametrize("file, path", [
    ("note.md", 'path = "{secret}"'),                     # an absolute [document] path
    ("../secret.txt", ""),                                # a file climbing out of the repository
    ("{secret}", ""),                                     # an absolute file
    ("note.md", 'path = "link.md"'),                      # a link inside the repository to outside
])
def test_a_note_outside_the_repository_is_refused_unread(tmp_path, capsys, file, path):
    repo = _repo(tmp_path)
    secret = str(tmp_path / "secret.txt")
    os.symlink(secret, repo / "link.md")
    claims = repo / "claims.toml"
    claims.write_text(CLAIM.format(file=file.format(secret=secret), path=path.format(secret=secret)))
    out = tmp_path / "out"
    rc = main(["run", "--claims", str(claims), "--out", str(out), "--quiet", "--jobs", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and str(claims) in err and "outside this claim file's repository" in err
    assert SECRET not in err and len(err.strip().splitlines()) == 1
    assert not out.exists() or not any(SECRET in p.read_text() for p in out.rglob("*") if p.is_file())


def test_notes_dir_confines_the_file_name(tmp_path, capsys):
    """``--notes DIR`` admits notes under DIR, not a ``file`` climbing out of it."""
    repo = _repo(tmp_path)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "note.md").write_text("# A note\n\nk <= R^2/gamma^2 holds: $k \\le R^2/\\gamma^2$.\n")
    claims = repo / "claims.toml"
    claims.write_text(CLAIM.format(file="note.md", path=""))
    out = tmp_path / "out"
    assert main(["run", "--claims", str(claims), "--notes", str(notes), "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    assert (out / "notes" / "note.html").is_file()
    claims.write_text(CLAIM.format(file="../secret.txt", path=""))
    rc = main(["run", "--claims", str(claims), "--notes", str(notes), "--out", str(tmp_path / "o2"), "--quiet"])
    assert rc == 2 and SECRET not in capsys.readouterr().err


def test_report_does_not_open_a_note_results_json_points_outside(tmp_path):
    """A doctored results.json naming /etc/passwd-like files as notes: report writes no page of it."""
    import json

    repo = _repo(tmp_path)
    (repo / "note.md").write_text("# A note\n\n$k \\le R^2/\\gamma^2$\n")
    claims = repo / "claims.toml"
    claims.write_text(CLAIM.format(file="note.md", path=""))
    out = repo / "out"
    main(["run", "--claims", str(claims), "--out", str(out), "--quiet", "--jobs", "1"])
    res = json.loads((out / "results.json").read_text())
    res["claims"][0]["source"]["path"] = str(tmp_path / "secret.txt")
    (out / "results.json").write_text(json.dumps(res))
    main(["report", "--out", str(out)])
    assert not any(SECRET in p.read_text() for p in out.rglob("*.html"))


def _audit_into(out, tmp_path):
    claims = tmp_path / "c.toml"
    claims.write_text(CLAIM.format(file="note.md", path=""))
    (tmp_path / "note.md").write_text("# A note\n\n$k \\le R^2/\\gamma^2$\n")
    return main(["run", "--claims", str(claims), "--out", str(out), "--quiet", "--jobs", "1"])


@pytest.mark.parametrize("name", ["results.json", "index.html", "run_info.json", "report.md", ".cache", "notes"])
def test_a_link_in_the_output_folder_is_refused(tmp_path, capsys, name):
    """Every file and folder we write in OUT: a link there is refused in one line, and what it
    points at is untouched."""
    out = tmp_path / "out"
    assert _audit_into(out, tmp_path) == 0  # a folder this tool wrote
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.html").write_text("precious")
    target = victim if name in (".cache", "notes") else victim / "keep.html"
    p = out / name
    if p.is_dir():
        import shutil

        shutil.rmtree(p)
    elif p.exists():
        p.unlink()
    os.symlink(target, p)
    rc = _audit_into(out, tmp_path)
    err = capsys.readouterr().err
    assert rc == 2 and "symbolic link" in err and len(err.strip().splitlines()) == 1, err
    assert (victim / "keep.html").read_text() == "precious" and sorted(os.listdir(victim)) == ["keep.html"]


def test_stale_pages_removed_are_only_ours(tmp_path):
    """A page we did not write (no generator mark) in OUT/notes is kept; ours for a note no
    longer audited is removed."""
    out = tmp_path / "out"
    assert _audit_into(out, tmp_path) == 0
    ours = out / "notes" / "old.html"
    ours.write_text((out / "notes" / "note.html").read_text())
    theirs = out / "notes" / "theirs.html"
    theirs.write_text("<html>someone's page</html>")
    assert _audit_into(out, tmp_path) == 0
    assert not ours.exists() and theirs.read_text() == "<html>someone's page</html>"


#: Hostile note shapes inside the size limits, each of which hung draft past 60 s (quadratic).
SHAPES = {
    "inline.md": lambda n: ("Text $a = b$ and $c \\le d$ more. " * 20 + "\n") * (n // 600),
    "soup.md": lambda n: "$a$ $" * (n // 5),
    "displays.md": lambda n: "\\[a = b\\]\n" * (n // 10),
    "paragraph.md": lambda n: " ".join(f"$x_{i} = {i}$ ." for i in range(n // 20)),
    "few_statements.md": lambda n: "$a$ " * (n // 4) + "\n\n$k = 1$\n",
    "notex.tex": lambda n: "\\begin{document}\n" + "$a = b$ text\n" * (n // 13) + "\\end{document}\n",
    "bomb.md": lambda n: "$$" + "\\def\\a{xx}" + "".join(
        f"\\def\\{c}{{{{\\{p}\\{p}\\{p}\\{p}}}}}" for p, c in zip("abcdefghijk", "bcdefghijkl")) + "\\l = 1$$\n",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_hostile_note_shapes_are_linear(tmp_path, name):
    """Draft of each shape at 200 KB finishes (a draft, or one line at MAX_STATEMENTS) in a few
    seconds, and at 800 KB in at most about 4x + slack the time (linear, not quadratic)."""
    times = []
    for size in (200_000, 800_000):
        note = tmp_path / f"{size}_{name}"
        note.write_text(SHAPES[name](size))
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "verify", "draft", "--force", "--out", str(tmp_path / "c.toml"),
                            str(note)], capture_output=True, text=True, timeout=120)
        times.append(time.perf_counter() - t)
        assert r.returncode in (0, 2) and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) <= 1
    assert times[0] < 10, times
    assert times[1] < 6 * times[0] + 3, times


def test_page_of_a_note_with_many_math_spans_is_bounded(tmp_path):
    """The page of a note with 40,000 math spans and one statement: rendered in seconds (spans
    past MAX_RENDERED_SPANS shown as code)."""
    from verify.notes.mathml import MAX_RENDERED_SPANS

    (tmp_path / ".git").mkdir()
    note = tmp_path / "note.md"
    note.write_text("# N\n\n" + "$a$ " * 40_000 + "\n\n$k \\le R^2/\\gamma^2$\n")
    claims = tmp_path / "c.toml"
    claims.write_text(CLAIM.format(file="note.md", path="").replace("line = 1", "line = 5"))
    t = time.perf_counter()
    assert main(["run", "--claims", str(claims), "--out", str(tmp_path / "out"), "--quiet", "--jobs", "1"]) == 0
    assert time.perf_counter() - t < 60
    page = (tmp_path / "out" / "notes" / "note.html").read_text()
    assert page.count("<math") == MAX_RENDERED_SPANS and page.count("<code>a</code>") >= 40_000 - MAX_RENDERED_SPANS


def test_a_bom_is_not_the_title(tmp_path):
    from verify.notes.source import read_note

    p = tmp_path / "bom.md"
    p.write_bytes("\ufeff# BOM note\n\n$a = b$\n".encode())
    assert read_note(str(p)).title == "BOM note"


def test_a_note_name_with_a_newline_drafts_a_file_that_passes_lint(tmp_path):
    from verify.language.lint import lint

    note = tmp_path / "new\nline.md"
    note.write_text("# N\n\nWe have $k \\le R^2/\\gamma^2$.\n")
    out = tmp_path / "c.toml"
    assert main(["draft", str(note), "--out", str(out)]) == 0
    assert lint([str(out)]) == [] and "new\\nline.md" in out.read_text().splitlines()[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml", "new\nline.md"]  # no temporary file left


def test_a_drafted_separator_claim_without_separable_runs(tmp_path, capsys):
    """A drafted dataset claim ``norm(w_opt) == 1`` with no ``separable`` assumption: it does not
    apply on data without a separator (w_opt undefined) instead of an internal error."""
    note = tmp_path / "n.md"
    note.write_text("# N\n\nThe best separator has $\\|w^*\\| = 1$.\n")
    out = tmp_path / "c.toml"
    assert main(["draft", str(note), "--out", str(out)]) == 0
    assert 'expr = "norm(w_opt) == 1"' in out.read_text() and "separable" not in out.read_text().split("[[claim]]")[1]
    assert main(["run", "--claims", str(out), "--out", str(tmp_path / "o"), "--quiet", "--jobs", "1"]) == 0
    assert "internal error" not in capsys.readouterr().err
