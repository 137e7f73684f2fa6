"""A worked example's iteration table, drafted (issue 37): its points and labels become the
note's dataset, each printed weight vector a claim on the note's run, and the audit checks
every row without an edit.  Oracles: tables worked by hand for these tests (the arithmetic of
each row is in its comment), one with a wrong row; the learner decides the rule, never the
drafter's guess."""

import json
import subprocess
import sys
import tomllib

# eta = 1/2, w0 = 0, the rule "update when y w.x <= 0": rows 1 and 3 update
# (w = 1/2 (1, 2) = (0.5, 1); then 0.5*2 + 1*(-1) = 0 <= 0: w += 1/2 (2, -1) = (1.5, 0.5)),
# epoch 2 is clean.  Row 7 prints (1.5, 0.6): a slip of the note's, refuted.
HAND = """# Perceptron by hand

We train on four points with learning rate η = 0.5, starting from w₀ = (0, 0).
The rule: if y (w · x) ≤ 0 then w ← w + η y x.

| step | x | y | w·x | update? | w |
|---|---|---|---|---|---|
| 1 | (1, 2) | +1 | 0 | yes | (0.5, 1) |
| 2 | (-1, -1) | −1 | -1.5 | no | (0.5, 1) |
| 3 | (2, -1) | +1 | 0 | yes | (1.5, 0.5) |
| 4 | (-2, 1) | -1 | -2.5 | no | (1.5, 0.5) |
| 5 | (1, 2) | +1 | 2.5 | no | (1.5, 0.5) |
| 6 | (-1, -1) | −1 | -2 | no | (1.5, 0.5) |
| 7 | (2, -1) | +1 | 2.5 | no | (1.5, 0.6) |
| 8 | (-2, 1) | -1 | -2.5 | no | (1.5, 0.5) |
"""

# sign(0) = +1 (out = +1 at a score of 0), eta = 1, w0 = 0: row 1 makes no update (out = +1 = y),
# row 2 does (out = +1, y = -1: w = (1, 0)); the rule y w.x <= 0 would update at row 1.
TIE = """# Output rule

out = sign(w·x), with sign(0) = +1; on a mistake w ← w + y x.

| x₁ | x₂ | label | new w |
|----|----|-------|-------|
| 1 | 1 | 1 | [0, 0] |
| -1 | 0 | -1 | [1, 0] |
| 1 | 1 | 1 | [1, 0] |
| -1 | 0 | -1 | [1, 0] |
"""

# no rule the drafter knows gives (7, 7) after the first point (1, 2) from 0 with eta = 1
ODD = """# Something else

| x | y | w |
|---|---|---|
| (1, 2) | 1 | (7, 7) |
| (-1, 0) | -1 | (7, 7) |
"""


def _draft_and_run(tmp_path, name, text):
    (tmp_path / name).write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verify", "draft", name], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    claims_file = tmp_path / f"claims_{name.rsplit('.', 1)[0]}.toml"
    data = tomllib.loads(claims_file.read_text(encoding="utf-8"))
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", claims_file.name, "--out", "out", "--quiet",
                        "--depth", "1", "--jobs", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode in (0, 1), r.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    by_id = {c["id"]: c for c in results["claims"]}
    return data, {c["line"]: by_id[c["id"]] for c in data["claim"] if c["id"] in by_id}  # by the note's line


def test_a_table_is_the_notes_dataset_and_each_row_a_claim_and_the_wrong_row_is_refuted(tmp_path):
    data, by_line = _draft_and_run(tmp_path, "hand.md", HAND)
    (ds,) = data["dataset"]
    assert ds["points"] == [["1", "2"], ["-1", "-1"], ["2", "-1"], ["-2", "1"]] and ds["labels"] == [1, -1, 1, -1]
    rows = {c["line"]: c for c in data["claim"] if c.get("datasets") == [ds["name"]]}
    assert sorted(rows) == list(range(8, 16))
    assert rows[8]["run"] == {"eta": "1/2", "w0": ["0", "0"], "augment": "none"} and rows[8]["variants"] == ["rosenblatt"]
    assert rows[8]["given"] == "t == 2" and rows[8]["expr"] == "w == vec(1/2, 1)"
    assert rows[15]["when"] == "end"  # the run's last visit: its end
    # the page: the sentence that sets eta and w0 defines the run (no truth of its own, not "not checked")
    page = {m["line"]: m["verdict"] for m in json.loads((tmp_path / "out" / "badges.json").read_text())["hand.md"]
            ["statements"].values()}
    assert page[3] == "defines" and page[14] == "false" and page[8] == "holds", page
    for line in rows:
        want = "refuted" if line == 14 else ("holds on evidence", "proved")
        assert by_line[line]["verdict"] in want, (line, by_line[line]["verdict"], by_line[line]["evidence"])


def test_the_tie_rule_is_the_one_the_learner_reproduces(tmp_path):
    data, by_line = _draft_and_run(tmp_path, "tie.md", TIE)
    rows = [c for c in data["claim"] if c.get("datasets")]
    assert rows and all(c["variants"] == ["sign"] and c["run"]["sign0"] == 1 for c in rows), rows
    assert all(by_line[c["line"]]["verdict"] == "holds on evidence" for c in rows), [by_line[c["line"]] for c in rows]


def test_a_table_no_rule_reproduces_is_a_draft_that_says_so(tmp_path):
    (tmp_path / "odd.md").write_text(ODD, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verify", "draft", "odd.md"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    data = tomllib.loads((tmp_path / "claims_odd.toml").read_text(encoding="utf-8"))
    assert "dataset" not in data
    (c,) = data["claim"]
    assert c["draft"] and "no rule the drafter knows reproduces the table's first rows" in c["untranslated"], c


# 0/1 labels, a bias column, eta = 1/10, "o = 1 when w.x + b > 0": row 4 updates ((1, 1): o = 0,
# t = 1: w = (0.1, 0.1), b = 0.1); row 5 ((0, 0): 0.1 > 0, o = 1, t = 0: b = 0); row 6 ((0, 1):
# 0.1 > 0: w = (0.1, 0), b = -0.1); row 7 ((1, 0): 0, o = 0: none); row 8 ((1, 1): 0, o = 0,
# t = 1: w = (0.2, 0.1), b = 0).
BIAS = """# AND with a bias

Learning rate η = 0.1, w₀ = (0, 0) and b₀ = 0. Predict 1 when w·x + b > 0, else 0; update w ← w + η (t − o) x, b ← b + η (t − o).

| x₁ | x₂ | t | new w | new b |
|---|---|---|---|---|
| 0 | 0 | 0 | (0, 0) | 0 |
| 0 | 1 | 0 | (0, 0) | 0 |
| 1 | 0 | 0 | (0, 0) | 0 |
| 1 | 1 | 1 | (0.1, 0.1) | 0.1 |
| 0 | 0 | 0 | (0.1, 0.1) | 0 |
| 0 | 1 | 0 | (0.1, 0) | -0.1 |
| 1 | 0 | 0 | (0.1, 0) | -0.1 |
| 1 | 1 | 1 | (0.2, 0.1) | 0 |
"""


def test_a_bias_column_and_labels_0_1_are_the_notes_run_and_its_prediction_rule_is_no_claim(tmp_path):
    data, by_line = _draft_and_run(tmp_path, "bias.md", BIAS)
    rows = [c for c in data["claim"] if c.get("datasets")]
    assert len(rows) == 8 and rows[0]["run"]["augment"] == "last" and rows[0]["run"]["b0"] == "0", rows[0]
    assert rows[-1]["expr"] == "w == vec(1/5, 1/10, 0)" and rows[0]["run"]["form"] == "half", rows[-1]
    assert all(by_line[c["line"]]["verdict"] == "holds on evidence" for c in rows), [by_line[c["line"]] for c in rows]
    rule = [c for c in data["claim"] if c["line"] == 3 and "prediction rule" in c.get("untranslated", "")]
    assert rule and all(c.get("draft") for c in rule)
    results = json.loads((tmp_path / "out" / "results.json").read_text())["claims"]
    line3 = {c["id"] for c in data["claim"] if c["line"] == 3}
    assert not [r for r in results if r["id"] in line3 and r["verdict"] == "refuted"]  # nothing true is red


LECTURE = r"""\documentclass{article}
\newtheorem{theorem}{Theorem}
\newtheorem{lemma}{Lemma}
\begin{document}
\section{Algorithm}
Start with $w_1 = 0$. If $y_t \langle w_t, x_t \rangle \le 0$, set $w_{t+1} = w_t + \eta\, y_t x_t$.
\section{Analysis}
Let $u$ be a unit vector with $y_t \langle u, x_t\rangle \ge \gamma$ for all $t$.
\begin{lemma}\label{lem:up}
After $M$ mistakes, $\langle w_{t}, u \rangle \ge \eta M \gamma$.
\end{lemma}
\begin{theorem}\label{thm:wrong}
With $\eta = 1/2$ the number of mistakes is at most $R^2/(4\gamma^2)$.
\end{theorem}
\end{document}
"""


def test_a_statements_own_learning_rate_and_its_count_so_far_are_read_as_written(tmp_path):
    """"After M mistakes" counts the mistakes so far (k), not the run's total (a true lemma was
    red); "with η = 1/2, ... at most B" is a bound under its own hypothesis (given eta == 1/2, not
    η = 1), said in words after the count ("the number of mistakes is at most")."""
    (tmp_path / "lecture.tex").write_text(LECTURE, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verify", "draft", "lecture.tex"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    drafted = tomllib.loads((tmp_path / "claims_lecture.toml").read_text(encoding="utf-8"))["claim"]
    lemma = next(c for c in drafted if c["line"] == 10 and c.get("expr"))
    assert lemma["expr"] == "dot(w, w_opt) >= eta*k*gamma", lemma
    bound = next(c for c in drafted if c["line"] == 13 and c.get("expr"))
    assert bound["given"] == "eta == 1/2" and "eta_one" not in bound.get("assume", []), bound
    assert bound["expr"] == "mistakes <= R2/(4*gamma**2)" and bound["when"] == "end", bound
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "claims_lecture.toml", "--out", "out2",
                        "--quiet", "--depth", "1", "--jobs", "1"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    verdicts = {c["id"]: c["verdict"] for c in json.loads((tmp_path / "out2" / "results.json").read_text())["claims"]}
    assert verdicts[lemma["id"]] != "refuted" and verdicts[bound["id"]] == "refuted", verdicts


REMARKS = """# Lecture

## The algorithm

We take η = 0.25 and start from w₀ = (0, 0), b₀ = 0.

## Worked example

| x | y | w |
|---|---|---|
| (1, 2) | 1 | (0.25, 0.5) |
| (-1, 0) | -1 | (0.25, 0.5) |

## Remarks

Because η = 0.25, training needs four times as many updates as it would with η = 1.

The length ‖w‖ never decreases from one update to the next.
"""


def test_settings_define_the_run_and_worded_remarks_are_counted_not_hidden(tmp_path):
    """Found by a newcomer: a false remark that mentions η was shown as defining the run, and two
    remarks in words had no mark at all; b₀ = 0 greyed its line; the table's rows were filed
    under the section before the table."""
    data, _ = _draft_and_run(tmp_path, "remarks.md", REMARKS)
    page = {m["line"]: m["verdict"] for m in json.loads((tmp_path / "out" / "badges.json").read_text())["remarks.md"]
            ["statements"].values()}
    assert page[5] == "defines", page  # η = 0.25, w₀, b₀: the run's setting
    assert page[16] == "draft" and page[18] == "draft", page  # asserted in words: counted, not read, not "defines"
    rows = [c for c in data["claim"] if c.get("datasets")]
    assert rows and all(c["section"] == "Worked example" for c in rows), rows


def test_what_the_prose_after_a_table_says_the_run_did_is_checked_on_it(tmp_path):
    """"One update in total; it stops after the second pass" are end claims on the table's run
    (TIE: one update, at row 2; the second pass is clean): true ones hold, a wrong count is
    refuted, a hedged count ("at most 5 updates") is not read as this run's."""
    note = TIE + "\nIt makes one update in total and stops after the second pass.\n\nIt makes two updates.\n\n" \
                 "It makes at most 5 updates.\n"
    data, by_line = _draft_and_run(tmp_path, "facts.md", note)
    facts = {c["expr"]: c for c in data["claim"] if c.get("note", "").startswith("what the prose")}
    assert set(facts) == {"mistakes == 1", "epochs >= 2 and epochs <= 3", "converged == 1", "mistakes == 2"}, facts
    results = {c["id"]: c["verdict"] for c in json.loads((tmp_path / "out" / "results.json").read_text())["claims"]}
    assert results[facts["mistakes == 1"]["id"]] == "holds on evidence"
    assert results[facts["epochs >= 2 and epochs <= 3"]["id"]] == "holds on evidence"
    assert results[facts["mistakes == 2"]["id"]] == "refuted"


WORDED = r"""# Notes

We start from $w_0 = 0$ with $\eta = 1$ on linearly separable data.

After $k$ updates, $\|w_k\|^2$ is at most $k R^2$.

The margin of the final weights, \(\min_i y_i w_k \cdot x_i\), is at least \(\gamma\) once the run stops.
"""


def test_a_relation_said_in_words_between_two_spans_of_math_is_read(tmp_path):
    """"$A$ is at most $B$" is the relation A <= B, in dollars or backslash-parentheses (a false one was grey): the
    true bound holds, the false claim about the final margin is refuted."""
    data, by_line = _draft_and_run(tmp_path, "worded.md", WORDED)
    got = {c["line"]: c for c in data["claim"] if c.get("expr")}
    assert got[5]["expr"] == "norm2(w) <= k*R2", got[5]
    assert got[7]["expr"] == "min_i(dot(y*w, x)) >= gamma", got[7]
    assert by_line[5]["verdict"] != "refuted" and by_line[7]["verdict"] == "refuted", (by_line[5], by_line[7])


LATEX = r"""\documentclass{article}
\title{Perceptron by hand}
\begin{document}
\maketitle
\section{A worked example}
We train with learning rate $\eta = 0.5$ from $w_0 = (0, 0)$; if $y\, (w \cdot x) \le 0$ then $w \gets w + \eta y x$.

\begin{tabular}{c|c|c}
\hline
$x$ & $y$ & $w$ \\ \hline
$(1, 2)$ & $+1$ & $(0.5, 1)$ \\
$(-1, -1)$ & $-1$ & $(0.5, 1)$ \\
$(2, -1)$ & $+1$ & $(1.5, 0.5)$ \\
$(-2, 1)$ & $-1$ & $(1.5, 0.6)$ \\
\hline
\end{tabular}
\end{document}
"""


def test_a_latex_tabular_is_read_as_the_worked_example(tmp_path):
    """HAND's first epoch as a LaTeX tabular: each row a claim at its line; the slip (1.5, 0.6) refuted."""
    data, by_line = _draft_and_run(tmp_path, "hand.tex", LATEX)
    (ds,) = data["dataset"]
    assert ds["points"] == [["1", "2"], ["-1", "-1"], ["2", "-1"], ["-2", "1"]]
    rows = {c["line"]: c for c in data["claim"] if c.get("datasets") == [ds["name"]]}
    assert sorted(rows) == [11, 12, 13, 14] and rows[11]["section"] == "A worked example"
    assert {by_line[line]["verdict"] for line in (11, 12, 13)} == {"holds on evidence"}
    assert by_line[14]["verdict"] == "refuted"
