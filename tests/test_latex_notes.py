"""A LaTeX lecture note as a newcomer wrote one (issue 37): its learning rate called lambda, its
example in a tabular with \\frac cells and a step column named t, a shared theorem counter
numbered within sections, forward \\ref's, and values of its own data and run stated in prose.
Oracles: LaTeX's own numbering rules, and the run worked by hand below."""

import re
import subprocess
import sys
import tomllib

from verify.notes.latex_numbers import numbering, with_refs
from verify.notes.note_run import one_runs_value

# lambda = 1/2, w0 = 0, a mistake when y w.x <= 0, cyclic: t1 (2, 0), +1: 0, w = (1, 0); t2 (0, 2), -1:
# 0, w = (1, -1); t3 (2, 0): 2 > 0; t4 (0, 2): -(-2) = 2 > 0.  Two updates, w = (1, -1), |w|^2 = 2.
NOTE = r"""\documentclass{article}
\newtheorem{theorem}{Theorem}[section]
\newtheorem{lemma}[theorem]{Lemma}
\newtheorem*{remark}{Remark}
\title{Perceptrons}
\begin{document}
\maketitle
\section{Algorithm}
We keep a learning rate $\lambda > 0$ and start with $w_0 = 0$ and $k = 0$; a mistake is
$y_i (w_k \cdot x_i) \le 0$, and then $w_{k+1} = w_k + \lambda y_i x_i$.
\section{Example}
Take $x_1 = (2, 0)$, $y_1 = +1$ and $x_2 = (0, 2)$, $y_2 = -1$, with $\lambda = \frac{1}{2}$.
\begin{tabular}{c|c|c|c}
$t$ & $x$ & $y$ & new $w$ \\ \hline
1 & $(2, 0)$ & $+1$ & $(1, 0)$ \\
2 & $(0, 2)$ & $-1$ & $(1, -\frac{1}{2})$
\end{tabular}
Lemma~\ref{lem:norm} below bounds it; here $\|w\|^2 = 2$ at the end and $R^2/\gamma^2 = 4$.
\begin{lemma}\label{lem:dot}
After $k$ updates, $w_k \cdot u \ge k \lambda \gamma$.
\end{lemma}
\begin{lemma}\label{lem:norm}
After $k$ updates, $\|w_k\|^2 \le k \lambda^2 R^2$.
\end{lemma}
\begin{remark}
Unnumbered.
\end{remark}
\section{Theorem}
\begin{theorem}\label{thm:main}
From $w_0 = 0$ the perceptron makes at most $R^2/\gamma^2$ mistakes.
\end{theorem}
\end{document}
"""


def _draft(tmp_path):
    """``proof-audit draft lecture.tex`` of NOTE in ``tmp_path``: the claim file's tables."""
    (tmp_path / "lecture.tex").write_text(NOTE, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verify", "draft", "lecture.tex"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return tomllib.loads((tmp_path / "claims_lecture.toml").read_text(encoding="utf-8"))


def test_theorems_are_numbered_as_the_note_declares_them_and_refs_are_their_numbers():
    n = numbering(NOTE)
    assert n.titles == {"theorem": "Theorem", "lemma": "Lemma", "remark": None}
    # lemma shares theorem's counter, numbered within sections: 2.1, 2.2; reset in section 3: 3.1
    assert n.labels == {"lem:dot": "2.1", "lem:norm": "2.2", "thm:main": "3.1"}
    assert sorted(n.at_line.values()) == ["2.1", "2.2", "3.1"]
    assert with_refs("Lemma~\\ref{lem:norm} and \\eqref{nowhere}", n.labels) == "Lemma 2.2 and ??"
    # no declaration: each usual environment its own counter
    plain = numbering("\\begin{document}\\begin{lemma}a\\end{lemma}\\begin{theorem}b\\end{theorem}"
                      "\\begin{lemma}\\label{x}c\\end{lemma}\\end{document}")
    assert plain.labels == {"x": "2"}


def test_the_page_shows_the_numbers_and_the_references(tmp_path):
    _draft(tmp_path)
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "claims_lecture.toml", "--notes", ".",
                        "--out", "out", "--quiet", "--depth", "1", "--jobs", "1"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    page = (tmp_path / "out" / "notes" / "lecture.html").read_text(encoding="utf-8")
    for header in ("Lemma 2.1.", "Lemma 2.2.", "Theorem 3.1.", "Remark."):
        assert f"<b>{header}</b>" in page, header
    assert "Lemma 2.2 below" in page and "&lt;ref&gt;" not in page and "<ref>" not in page


def test_the_notes_learning_rate_symbol_fractions_and_a_step_column_named_t_are_read(tmp_path):
    data = _draft(tmp_path)
    (ds,) = data["dataset"]
    assert ds["points"] == [["2", "0"], ["0", "2"]] and ds["labels"] == [1, -1]  # y, not the step t
    rows = [c for c in data["claim"] if c.get("datasets") == [ds["name"]]]
    assert rows and {c["run"]["eta"] for c in rows} == {"1/2"}  # lambda = \frac{1}{2}
    by_line = {c["line"]: c for c in data["claim"]}
    # "After k updates, w_k . u >= k lambda gamma": lambda is the note's eta, read as a claim
    assert by_line[20].get("expr") == "dot(w, w_opt) >= k*eta*gamma", by_line[20]
    # k = 0 sets the counter; values of the note's own run and data are drafts, not claims on every run
    assert [c for c in data["claim"] if c["line"] == 9 and "counter" in c.get("untranslated", "")]
    assert all(c.get("draft") for c in data["claim"] if c["line"] == 18), [c for c in data["claim"] if c["line"] == 18]


def test_a_quantitys_value_is_one_runs_unless_every_run_may_have_it():
    assert one_runs_value("norm2(w) == 5/4") and one_runs_value("R2/gamma**2 == 10")
    assert one_runs_value("gamma == 1/sqrt(5)") and one_runs_value("w_opt == vec(2, -1)/sqrt(5)")
    assert not one_runs_value("norm2(w_opt) == 1") and not one_runs_value("dot(w0, w_opt) == 0")
    assert not one_runs_value("norm2(w) <= k*R2")


def test_a_long_run_of_plain_text_is_tied_for_pylatexenc_and_one_with_no_space_is_refused():
    """pylatexenc reads a run of plain text in time quadratic in its length (a 1.8 MB run took 75 s
    to draft): a run longer than MAX_TEXT_RUN is broken at spaces turned into ties, keeping every
    character's place and line; a run with no space to break at is one clear error."""
    import pytest

    from perceptron.errors import InputError
    from verify.notes.source import MAX_TEXT_RUN, tied_runs

    text = "\\section{A}\n" + "word " * (3 * MAX_TEXT_RUN) + "\n$k \\le R^2/\\gamma^2$\n"
    tied = tied_runs(text, "n.tex")
    assert len(tied) == len(text) and tied.split("\n")[2] == text.split("\n")[2] and tied.count("~") >= 2
    longest = max(len(x) for x in re.split(r"[\\{}$%&~^_#]", tied))
    assert longest <= MAX_TEXT_RUN
    assert tied_runs("short text $a = b$", "n.tex") == "short text $a = b$"
    with pytest.raises(InputError, match="line 2: more than"):
        tied_runs("\\section{A}\n" + "x" * (2 * MAX_TEXT_RUN), "n.tex")
