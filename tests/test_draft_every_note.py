"""Nothing a draft writes crashes (issue 37): every note of the test corpus, drafted with no
edit, lints clean and audits to a verdict for every claim (exit 0 or 1, never an internal error).
The notes written in public styles (benchmarks/notes) run by default; the five seed notes
(../shared/seeds, about 20 s) behind the slow marker."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLIC = os.path.join(HERE, "..", "benchmarks", "notes")
SEEDS = os.path.join(HERE, "..", "..", "shared", "seeds")


def _notes(folder, exts):
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(exts)) if os.path.isdir(folder) else []


def _draft_lint_run(tmp_path, note):
    import shutil

    ext = ".tex" if note.endswith(".tex") else ".md"
    local = tmp_path / ("note" + ext)
    shutil.copy(note, local)

    def pa(*args):
        return subprocess.run([sys.executable, "-m", "verify", *args], cwd=tmp_path, capture_output=True, text=True,
                              timeout=600)

    r = pa("draft", local.name)
    assert r.returncode == 0, r.stderr
    r = pa("claims", "lint", "claims_note.toml")
    assert r.returncode == 0, r.stdout + r.stderr
    r = pa("run", "--claims", "claims_note.toml", "--out", "out", "--quiet", "--depth", "1", "--jobs", "1")
    assert r.returncode in (0, 1) and "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert (tmp_path / "out" / "results.json").exists() and (tmp_path / "out" / "notes" / "note.html").exists()


@pytest.mark.parametrize("note", _notes(PUBLIC, (".md", ".tex")), ids=os.path.basename)
def test_a_public_style_note_drafts_lints_and_runs(tmp_path, note):
    _draft_lint_run(tmp_path, note)


@pytest.mark.slow
@pytest.mark.parametrize("note", _notes(SEEDS, (".txt",)), ids=os.path.basename)
def test_a_seed_note_drafts_lints_and_runs(tmp_path, note):
    _draft_lint_run(tmp_path, note)
