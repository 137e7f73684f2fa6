"""The note's own run outside an iteration table, drafted (issues 36 and 37): the data a note
writes out (subscripted, one point a line, or a table of points), the steps it works by hand and
what it says its run did become claims on the run of the rule its algorithm states, checked by
the audit without an edit.  Oracles: runs worked by hand for these tests (the arithmetic is in
the comments); a rule the note leaves open is never chosen for it."""

import json
import subprocess
import sys
import tomllib

from verify.notes.note_run import note_rules
from verify.notes.written_data import MAX_LISTED_POINTS, note_data

# eta = 1, w0 = 0, a mistake when y w.x <= 0: visit 1 (1, 1), +1: 0 <= 0, w = (1, 1); visit 2
# (-1, 0), -1: y w.x = 1 > 0; epoch 2 clean.  One update, two epochs, w = (1, 1).
PROSE = """# Two points
Start from $w_0 = 0$ with $η = 1$; on a mistake, $y (w·x) ≤ 0$, update $w ← w + η y x$.

On $x_1 = (1, 1)$, $y_1 = +1$ and $x_2 = (−1, 0)$, $y_2 = −1$ the run stops with $w = (1, 1)$.
It makes 1 update. In the end the final weights are w = (2, 1).
"""

# The OR table with 0/1 targets, o = 1 if w.x + b > 0 else 0 (o = 0 at a tie), eta = 1/2:
# epoch 1: (0,0) net 0, o = 0 = t; (0,1) net 0, o = 0, t = 1: w = (0, 1/2), b = 1/2; (1,0) net 1/2; (1,1) net 1.
# epoch 2: (0,0) net 1/2, o = 1, t = 0: b = 0; (0,1) net 1/2; (1,0) net 0, o = 0: w = (1/2, 1/2), b = 1/2.
# epoch 3: (0,0) net 1/2: b = 0; epoch 4 clean.  Four updates, final w = (1/2, 1/2), b = 0.
OR_GATE = """# The perceptron learns OR

```
output:  o = 1 if w·x + b > 0, else 0
update:  w ← w + η (t − o) x
         b ← b + η (t − o)
```

We start from w = [0, 0], b = 0 with a learning rate η = 0.5. The data:

```
x = (0, 0)  t = 0
x = (0, 1)  t = 1
x = (1, 0)  t = 1
x = (1, 1)  t = 1
```

```
(0,0): net = 0·0 + 0·0 + 0 = 0      → o = 0, no change
(0,1): net = 0·0 + 0·1 + 0 = 0      → o = 0, w = [0, 0.5], b = 0.5
(1,0): net = 0.5 → o = 1, no change
(1,1): net = 1 → o = 1, no change
```

Epoch 2: (0,0) gives net = 0.5, so b drops: w = [0, 0.5], b = 0.
Then (1,0) gives net = 0 and w = [0.5, 0.5], b = 0.5.

It ends with final weights w = [0.5, 0.5], b = 0 after 3 updates.
"""


def _draft(tmp_path, name, text):
    (tmp_path / name).write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verify", "draft", name], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return tomllib.loads((tmp_path / f"claims_{name[:-3]}.toml").read_text(encoding="utf-8"))


def _run(tmp_path, name):
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", f"claims_{name[:-3]}.toml", "--out", "out",
                        "--quiet", "--depth", "1", "--jobs", "1"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode in (0, 1), r.stderr
    return {c["id"]: c["verdict"] for c in json.loads((tmp_path / "out" / "results.json").read_text())["claims"]}


def test_data_written_out_in_prose_and_what_the_run_did_are_claims_on_the_notes_run(tmp_path):
    data = _draft(tmp_path, "prose.md", PROSE)
    (ds,) = data["dataset"]
    assert ds["points"] == [["1", "1"], ["-1", "0"]] and ds["labels"] == [1, -1]
    facts = {c["expr"]: c for c in data["claim"] if c.get("datasets") == [ds["name"]]}
    assert set(facts) == {"converged == 1", "w == vec(1, 1)", "mistakes == 1", "w == vec(2, 1)"}, facts
    one = facts["w == vec(1, 1)"]
    assert one["when"] == "end" and one["variants"] == ["rosenblatt"] and one["line"] == 4
    assert one["run"] == {"eta": "1", "w0": ["0", "0"], "augment": "none"}
    # the line's "a value of one run: give its data" draft is gone: the data is given
    assert not [c for c in data["claim"] if c["line"] == 4 and "value of one run" in c.get("untranslated", "")]
    got = _run(tmp_path, "prose.md")
    assert got[one["id"]] == "holds on evidence" and got[facts["mistakes == 1"]["id"]] == "holds on evidence"
    assert got[facts["w == vec(2, 1)"]["id"]] == "refuted"


def test_steps_worked_in_a_code_block_and_in_prose_are_read_at_their_visits(tmp_path):
    data = _draft(tmp_path, "or.md", OR_GATE)
    (ds,) = data["dataset"]
    assert ds["labels"] == [0, 1, 1, 1]
    claims = [c for c in data["claim"] if c.get("datasets") == [ds["name"]]]
    run = claims[0]["run"]
    assert run == {"eta": "1/2", "w0": ["0", "0"], "augment": "last", "b0": "0", "sign0": -1, "form": "half"}
    steps = {c["line"]: (c.get("given"), c["expr"]) for c in claims if c["when"] == "visit"}
    assert steps == {
        19: ("t == 2", "w == vec(0, 0, 0)"),  # no change: w0 and b0
        20: ("t == 3", "w == vec(0, 1/2, 1/2)"),
        21: ("t == 4", "w == vec(0, 1/2, 1/2)"),  # no change: the weights printed last
        22: ("t == 5", "w == vec(0, 1/2, 1/2)"),
        25: ("t == 6", "w == vec(0, 1/2, 0)"),  # epoch 2, its first point
        26: ("t == 8", "w == vec(1/2, 1/2, 1/2)"),  # epoch 2, its third point
    }, steps
    ends = {c["expr"]: c["id"] for c in claims if c["when"] == "end"}
    assert set(ends) == {"w == vec(1/2, 1/2, 0)", "mistakes == 3"}
    got = _run(tmp_path, "or.md")
    assert {got[c["id"]] for c in claims if c["when"] == "visit"} == {"holds on evidence"}
    assert got[ends["w == vec(1/2, 1/2, 0)"]] == "holds on evidence"
    assert got[ends["mistakes == 3"]] == "refuted"  # four updates


def test_a_tie_the_note_leaves_open_is_never_chosen_for_it(tmp_path):
    """No mistake condition, no prediction rule: with (1, 1), +1 first, y w.x <= 0 updates at the
    tie (w = (1, 1) at the end) and sign(0) = +1 does not (w = (1, 0)); both make one update."""
    note = PROSE.replace("on a mistake, $y (w·x) ≤ 0$, update", "on a mistake, update").replace(
        "In the end the final weights are w = (2, 1).", "")
    rules, _ = note_rules(note, zero_one=False)
    assert len(rules) == 3
    data = _draft(tmp_path, "open.md", note)
    by_line = [c for c in data["claim"] if c["line"] == 4 and c.get("draft") and "score of 0" in c.get("untranslated", "")]
    assert by_line, "the final weights depend on the tie rule: a draft that says so"
    assert [c for c in data["claim"] if c.get("expr") == "mistakes == 1"], "every rule makes one update: a claim"


def test_approximate_weights_are_read_to_their_printed_digits(tmp_path):
    """eta = 1/3 on the two points: w = (1/3, 1/3) at the end.  0.33 is within 0.005 of 1/3; 0.4 is not within 0.05."""
    note = PROSE.replace("$η = 1$", "$η = 1/3$").replace("the run stops with $w = (1, 1)$", "the run stops with "
                                                         "$w ≈ (0.33, 0.33)$").replace(
        "In the end the final weights are w = (2, 1).", "In the end the final weights are w ≈ (0.3, 0.4).")
    data = _draft(tmp_path, "approx.md", note)
    by_expr = {c["expr"]: c["id"] for c in data["claim"] if "expr" in c and "abs(" in c["expr"]}
    near = "abs(dot(w, vec(1, 0)) - 33/100) <= 1/200 and abs(dot(w, vec(0, 1)) - 33/100) <= 1/200"
    far = "abs(dot(w, vec(1, 0)) - 3/10) <= 1/20 and abs(dot(w, vec(0, 1)) - 2/5) <= 1/20"
    assert set(by_expr) == {near, far}
    got = _run(tmp_path, "approx.md")
    assert got[by_expr[near]] == "holds on evidence" and got[by_expr[far]] == "refuted"


def test_a_table_of_points_and_a_table_aligned_by_spaces_in_a_code_block(tmp_path):
    points = "# Data\nOn a mistake ($y\\, w·x ≤ 0$) add $y x$.\n\n| x₁ | x₂ | y |\n|---|---|---|\n| 1 | 1 | +1 |\n" \
             "| −1 | 0 | −1 |\n\nThe run makes 1 update and stops with w = (1, 1).\n"
    (d,) = note_data(points)
    assert d.points == ((1, 1), (-1, 0)) and d.labels == (1, -1)
    # visit 1: 0 <= 0, w = (1, 2); visit 2: y w.x = 3 > 0, w stays; the table prints both
    code = "# By hand\nRule: if y w·x ≤ 0 then w ← w + y x.\n\n```\n x1   x2   y    w1   w2\n 1    2    +1   1    2\n" \
           " -1   -1   -1   1    2\n```\n"
    data = _draft(tmp_path, "code.md", code)
    rows = {c["line"]: c["expr"] for c in data["claim"] if c.get("datasets")}
    assert rows == {6: "w == vec(1, 2)", 7: "w == vec(1, 2)"}, rows


def test_listings_are_bounded():
    lines = "\n".join(f"x = ({j}, 1)  t = {j % 2}" for j in range(MAX_LISTED_POINTS + 5))
    assert note_data(lines) == []  # longer than a note's data written by hand: not read
    assert len(note_data("\n".join(f"x = ({j}, 1)  t = {j % 2}" for j in range(MAX_LISTED_POINTS)))) == 1


def test_weights_with_a_bias_whose_place_the_note_does_not_say_are_a_draft(tmp_path):
    """x_1 = (2, 1), +1 and x_2 = (1, 3), -1 with a bias, from 0, a mistake when y w.x <= 0: 5 updates, 4 epochs;
    the bias first, w = (1, 4, -3); last, (4, -3, 1).  "weights = (1, 4, -3)" is true only with the bias first:
    a draft until the note says where it is (x_0 = 1), then a claim that holds."""
    note = ("# Bias\nOn a mistake ($y\\, w·x ≤ 0$), $w ← w + y x$.\n\n"
            "Data: $x_1 = (2, 1)$, $y_1 = +1$, $x_2 = (1, 3)$, $y_2 = −1$.\n\n5 updates, 4 epochs, weights = (1, 4, −3).\n")
    data = _draft(tmp_path, "bias.md", note)
    line6 = [c for c in data["claim"] if c["line"] == 6]
    assert {c.get("expr") for c in line6 if not c.get("draft")} == {"mistakes == 5", "epochs >= 4 and epochs <= 5"}
    assert any("where the bias is" in c.get("untranslated", "") for c in line6)
    placed = _draft(tmp_path, "placed.md", note.replace("# Bias\n", "# Bias\nEach input has $x_0 = 1$.\n"))
    (w,) = [c for c in placed["claim"] if c.get("expr", "").startswith("w ==")]
    assert w["expr"] == "w == vec(1, 4, -3)" and w["run"]["augment"] == "first"
    got = _run(tmp_path, "placed.md")
    assert got[w["id"]] == "holds on evidence"


def test_the_example_worked_in_the_section_after_the_data_is_read_and_no_further():
    """Data under "## Data", its first epoch under the next heading: read; a count under a third heading is
    another part of the note (a rule of thumb), not this run's."""
    from verify.notes.note_run import data_claims

    note = ("# Sheet\nOn a mistake (y w·x ≤ 0), w ← w + y x.\n\n## Data\n\n```\nx1  x2  y\n1   1   +1\n-1  0   -1\n```\n\n"
            "## By hand\n\n(1, 1): w = (1, 1). (-1, 0): no change.\n\n## Rules of thumb\n\nA run makes 7 updates.\n")
    _, claims = data_claims(note, lambda cid: cid)
    assert [(c["line"], c.get("given"), c["expr"]) for c in claims] == [
        (14, "t == 2", "w == vec(1, 1)"), (14, "t == 3", "w == vec(1, 1)")], claims


def test_a_pseudo_code_assignment_defines_notation_and_a_statements_own_start_is_its_hypothesis(tmp_path):
    from verify.notes.draft import SETS, draft

    path = tmp_path / "sheet.md"
    path.write_text("# Sheet\n\n```\nnet = w₁x₁ + w₂x₂ + b\n```\n\nStarted from w = 0, a run on separable data makes "
                    "at most R²/γ² updates.\n", encoding="utf-8")
    _, claims, _ = draft(str(path))
    (net,) = [c for c in claims if c["line"] == 4]
    assert net["untranslated"].startswith(SETS) and "assignment" in net["untranslated"]
    (bound,) = [c for c in claims if c["line"] == 7]
    assert "w0_zero" in bound["assume"], bound


def test_a_heading_is_no_fact_and_data_a_table_gives_is_its_run_once(tmp_path):
    """The newcomer's blog: its points written out and then worked in a table are one dataset (the
    table's), and "## Why it always stops" under the table is a heading, not a claim that the run stops."""
    note = ("# Blog\nWhen \\(y_i \\, w \\cdot x_i \\le 0\\) it updates \\(w \\leftarrow w + \\eta\\, y_i x_i\\).\n\n"
            "We use \\(\\eta = 0.5\\) from \\(w = 0\\): x₁ = (2, 1) with y₁ = +1, x₂ = (−1, 2) with y₂ = +1.\n\n"
            "```\nstep  x         y    w after\n1     (2, 1)    +1   (1, 0.5)\n2     (-1, 2)   +1   (0.5, 1.5)\n```\n\n"
            "## Why it always stops\n\nThe bound is \\(R^2/\\gamma^2\\).\n\nStep 1. Each mistake adds at most R²:\n"
            "\\[ \\|w_{k+1}\\|^2 \\le \\|w_k\\|^2 + R^2 \\]\n")
    data = _draft(tmp_path, "blog.md", note)
    assert len(data["dataset"]) == 1
    assert not [c for c in data["claim"] if c["line"] == 12], "the heading's line has no claim"
    # the page renders \\( ... \\) and \\[ ... \\] as MathML, as it does $ ... $, a \\[ ... \\] on the line after
    # a paragraph's text too (texmath reads it only at a block's start)
    _run(tmp_path, "blog.md")
    page = (tmp_path / "out" / "notes" / "blog.html").read_text(encoding="utf-8")
    assert page.count("<math") >= 5 and "\\le" not in page.split("<body", 1)[1].split("statement:", 1)[0], page[:2000]
    assert "[ |w_{k+1}|^2" not in page and page.count('display="block"') >= 1


def test_a_steps_arithmetic_is_the_runs_not_a_claim_about_every_run(tmp_path):
    """'(2, −1): w·x = 0 → mistake, w = (−2, 6)' is a step of the note's run: its w·x = 0 is that visit's
    score, read with the step, not a claim that every run's score is 0 (which was refuted: a true line red)."""
    note = ("# Week 3\nLearning rate η = 2, start from w₀ = (0, 0); on a mistake, y (w·x) ≤ 0, w ← w + η y x.\n\n"
            "Our data: x₁ = (1, 2), y₁ = +1; x₂ = (2, −1), y₂ = −1; x₃ = (−1, −1), y₃ = −1.\n\n"
            "```\n(1, 2):  w·x = 0   → mistake, w = (2, 4)\n(2, −1): w·x = 0   → mistake, w = (−2, 6)\n"
            "(−1, −1): w·x = −4 → correct\n```\n")
    data = _draft(tmp_path, "week3.md", note)
    on_steps = [c for c in data["claim"] if c["line"] in (7, 8, 9) and not c.get("draft")]
    assert on_steps and all(c.get("datasets") for c in on_steps), on_steps
    assert {c["expr"] for c in on_steps} == {"w == vec(2, 4)", "w == vec(-2, 6)"}


def test_a_step_naming_its_point_by_number_is_the_runs_not_a_claim_about_every_run(tmp_path):
    """'x₂ gives w · x = 0.5 > 0, correct.' speaks of the note's point x₂ at its visit: read as every run's
    point x it was a claim about every visit, refuted by the first other run (three true lines red)."""
    note = ("# Week 5\nWe train on four points with learning rate η = 0.5, starting from w₀ = (0, 0), no bias. "
            "A point is a mistake when yᵢ (w · xᵢ) ≤ 0, and then w ← w + η yᵢ xᵢ.\n\n"
            "| i | x | y |\n|---|---|---|\n| 1 | (1, 1) | +1 |\n| 2 | (2, -1) | +1 |\n| 3 | (-1, 1) | -1 |\n"
            "| 4 | (-2, -2) | -1 |\n\nCycling through the points in order:\n\n"
            "- x₁ gives w · x = 0, a mistake: w₁ = (0.5, 0.5).\n- x₂ gives w · x = 0.5 > 0, correct.\n"
            "- x₃ gives w · x = 0, a mistake: w₂ = (1, 0).\n\nSo the run makes 2 updates and ends with w = (1, 0).\n")
    data = _draft(tmp_path, "week5.md", note)
    steps = [c for c in data["claim"] if c["line"] in (13, 14, 15) and not c.get("draft")]
    assert steps and all(c.get("datasets") for c in steps), steps  # claims on the note's run only
    assert any(c["line"] == 14 and c.get("draft") for c in data["claim"])  # the correct visit: left to transcribe
    verdicts = _run(tmp_path, "week5.md")
    assert verdicts and "refuted" not in verdicts.values(), verdicts


def test_a_review_comment_quoting_the_note_stays_one_comment_line(tmp_path):
    """A proposal quotes the note (its words can span lines): written into a # review: comment, a newline of
    the note must not end the comment and start TOML (a hostile note set a claim's separator that way)."""
    note = '# N\n\nOn a mistake, b =\nseparator = "max-margin" # y\n\nAfter $k$ updates, $$|b| \\le k R^2$$\n'
    data = _draft(tmp_path, "hostile.md", note)
    assert all("separator" not in c for c in data["claim"]), data["claim"]


# A note converted from a PDF: plain text, its data a table split at tabs with column vectors
# (\begin{pmatrix}) and an unnamed label column, printed again at each iteration with that
# iteration's y w.x.  eta = 1, w_1 = 0, a mistake when y w.x <= 0, the points in turn:
# visit 1: (1, 2), +1: 0 <= 0, w_2 = (1, 2); visit 2: (2, -1), -1: -(2 - 2) = 0 <= 0,
# w_3 = (1, 2) - (2, -1) = (-1, 3); visit 3: (0, -1), -1: -(-3) = 3 > 0; epoch 2 clean.
PDF_NOTE = """1 Algorithm

while some $j$ has $y_j \\mathbf{w}_k^T \\mathbf{x}_j \\leq 0$: $\\mathbf{w}_{k+1} \\leftarrow \\mathbf{w}_k + y_j \\mathbf{x}_j$

2 Example

2.1 Iteration 1

$$\\mathbf{w}_1 = \\begin{pmatrix} 0 \\\\ 0 \\end{pmatrix}$$

\\mathbf{x}\t\t
$\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}$\t1\t0
$\\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix}$\t-1\t0
$\\begin{pmatrix} 0 \\\\ -1 \\end{pmatrix}$\t-1\t0

2.2 Iteration 2

$$\\mathbf{w}_2 = \\begin{pmatrix} 0 \\\\ 0 \\end{pmatrix} + (1) \\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix} = \\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}$$

\\mathbf{x}\t\t
$\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}$\t1\t5
$\\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix}$\t-1\t0
$\\begin{pmatrix} 0 \\\\ -1 \\end{pmatrix}$\t-1\t2

2.3 Iteration 3

$$\\mathbf{w}_3 = \\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix} + (-1) \\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix} = \\begin{pmatrix} -1 \\\\ 2 \\end{pmatrix}$$

Every point is now classified correctly, and the algorithm terminates.
"""


def _draft_txt(tmp_path, text):
    (tmp_path / "pdf.txt").write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verify", "draft", "pdf.txt"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return tomllib.loads((tmp_path / "claims_pdf.toml").read_text(encoding="utf-8"))


def test_a_table_split_at_tabs_with_column_vectors_is_the_notes_data_once(tmp_path):
    data = _draft_txt(tmp_path, PDF_NOTE)
    (ds,) = data["dataset"]  # printed at each iteration: one dataset
    assert ds["points"] == [["1", "2"], ["2", "-1"], ["0", "-1"]] and ds["labels"] == [1, -1, -1]


def test_an_iterate_the_note_works_out_is_a_claim_on_its_own_run(tmp_path):
    """w_2 = (1, 2) holds on the note's data; its w_3 = (-1, 2) is false (the run gives (-1, 3))."""
    data = _draft_txt(tmp_path, PDF_NOTE)
    at = {c["line"]: c for c in data["claim"] if c.get("datasets") == [data["dataset"][0]["name"]]}
    # w_1 = 0 is the start (the note's first index is 1): w_2 is the weights after update 1
    assert at[18]["expr"].startswith("k != 1 or") and at[18]["when"] == "update"
    assert at[18]["variants"] == ["rosenblatt"] and at[18]["run"]["eta"] == "1"
    assert at[27]["expr"].startswith("k != 2 or")
    got = _run(tmp_path, "pdf.md")  # claims_pdf.toml
    assert got[at[18]["id"]] == "holds on evidence"
    assert got[at[27]["id"]] == "refuted"


def test_an_iterate_whose_value_depends_on_a_tie_the_note_leaves_open_is_a_draft(tmp_path):
    """With no mistake condition, sign(0) = +1 makes no update at visit 1 (y = +1) and y w.x <= 0
    does: the note's w_2 depends on the tie rule."""
    data = _draft_txt(tmp_path, PDF_NOTE.replace("while some $j$ has $y_j \\mathbf{w}_k^T \\mathbf{x}_j \\leq 0$:",
                                                 "repeat:"))
    w2 = [c for c in data["claim"] if c["line"] == 18]
    assert w2 and all(c.get("draft") for c in w2) and "score of 0" in w2[0]["untranslated"], w2


# A lab handout: its points named x₁, x₂, x₃ (Unicode subscripts), its tie rule sign(0) = −1 and
# η = 0.5 stated after the data, another η further on.  The run (sign(0) = -1, eta = 1/2, w0 = 0):
# visit 1: x₁ = (2, 1), +1: w.x = 0, output -1: w = (1, 1/2); visit 2: x₂ = (-1, 1), -1: w.x = -1/2,
# output -1, correct; visit 3: x₃ = (0, -2), -1: w.x = -1, correct; epoch 2 clean.
LAB = """# Lab

Our points are x₁ = (2, 1) with y₁ = +1, x₂ = (−1, 1) with y₂ = −1 and x₃ = (0, −2) with y₃ = −1.

We predict ŷ = sign(w·x), with sign(0) = −1, and on a mistake we update w ← w + η y x with η = 0.5,
starting from w = (0, 0).

Visit 1: x₁ gives w·x = 0, so ŷ = −1 and w = (1, 0.5).
Visit 2: x₂ gives w·x = −0.5, correct: no change.
Visit 3: x₃ gives w·x = −1: w = (1, 0.6).

With η = 2 the perceptron makes a quarter as many updates.
"""


def test_steps_that_name_the_points_as_the_listing_does_and_the_tie_rule_set_in_words(tmp_path):
    data = _draft(tmp_path, "lab.md", LAB)
    (ds,) = data["dataset"]
    run = [c for c in data["claim"] if c.get("datasets") == [ds["name"]]]
    assert run[0]["run"]["eta"] == "1/2", run[0]  # the rate stated after the data, not the comparison's
    steps = {c["line"]: (c["given"], c["expr"]) for c in run if c["when"] == "visit"}
    assert steps == {8: ("t == 2", "w == vec(1, 1/2)"), 9: ("t == 3", "w == vec(1, 1/2)"),
                     10: ("t == 4", "w == vec(1, 3/5)")}, steps
    (tie,) = [c for c in data["claim"] if c["line"] == 5 and "sign(0)" in c["statement"] and c.get("draft")
              and "tie rule" in c["untranslated"]]
    assert not [c for c in data["claim"] if c.get("expr", "").startswith("sign(0)")]
    got = _run(tmp_path, "lab.md")
    assert {got[c["id"]] for c in run if c["line"] in (8, 9)} == {"holds on evidence"}
    (third,) = [c for c in run if c["line"] == 10]  # its w = (1, 0.6) is false: x₃ is classified correctly
    assert got[third["id"]] == "refuted"


def test_points_named_by_letters_are_the_notes_data_and_the_bias_it_puts_last_is_last(tmp_path):
    """0/1 targets, the bias folded in last (x̃ = (x_1, x_2, 1)), o = 1 if w·x̃ > 0 (a tie gives 0),
    eta = 1/2: P: (2, 2), 1: score 0, o = 0: w = (1, 1, 1/2); Q: (1, 0), 0: score 3/2: w = (1/2, 1, 0);
    S: (0, 1), 0: score 1: w = (1/2, 1/2, -1/2); epoch 2: scores 3/2, 0, 0: clean.  3 updates, 2 epochs."""
    text = ("# Three points\n\nWe fold the bias in: $\\tilde x = (x_1, x_2, 1)$, and predict $o = 1$ if $w·\\tilde x > 0$, "
            "else $o = 0$; we update $w ← w + η (t − o) \\tilde x$.\n\n"
            "Data: P = (2, 2) with t = 1, Q = (1, 0) with t = 0, S = (0, 1) with t = 0. We take η = 0.5 and start "
            "from w = (0, 0, 0).\n\nThe run stops after 3 updates with w = (0.5, 0.5, −0.5).\n")
    data = _draft(tmp_path, "letters.md", text)
    (ds,) = data["dataset"]
    assert ds["points"] == [["2", "2"], ["1", "0"], ["0", "1"]] and ds["labels"] == [1, 0, 0]
    run = {c["expr"]: c for c in data["claim"] if c.get("datasets") == [ds["name"]]}
    assert {"mistakes == 3", "w == vec(1/2, 1/2, -1/2)"} <= set(run), run
    setting = run["mistakes == 3"]["run"]
    assert setting["augment"] == "last" and setting["sign0"] == -1 and setting["eta"] == "1/2", setting


def test_a_table_that_names_its_points_and_folds_the_bias_into_w_is_the_notes_run(tmp_path):
    """The same three points, their steps in a table whose point column holds the names and whose
    weights hold the bias last (the run above: (1, 1, 1/2), (1/2, 1, 0), (1/2, 1/2, -1/2)); the
    third row is printed wrong here, (1/2, 1/2, 1/2)."""
    text = ("# Three points\n\nWe fold the bias in: $\\tilde x = (x_1, x_2, 1)$, and predict $o = 1$ if $w·\\tilde x > 0$, "
            "else $o = 0$; we update $w ← w + η (t − o) \\tilde x$.\n\n"
            "Data: P = (2, 2) with t = 1, Q = (1, 0) with t = 0, S = (0, 1) with t = 0. We take η = 0.5 and start "
            "from w = (0, 0, 0).\n\n| step | point | t | new w |\n|---|---|---|---|\n| 1 | P | 1 | (1, 1, 0.5) |\n"
            "| 2 | Q | 0 | (0.5, 1, 0) |\n| 3 | S | 0 | (0.5, 0.5, 0.5) |\n")
    data = _draft(tmp_path, "table.md", text)
    (ds,) = data["dataset"]
    assert ds["points"] == [["2", "2"], ["1", "0"], ["0", "1"]] and ds["labels"] == [1, 0, 0]
    rows = {c["line"]: c for c in data["claim"] if c.get("datasets") == [ds["name"]]}
    assert rows[9]["expr"] == "w == vec(1, 1, 1/2)" and rows[9]["run"]["augment"] == "last", rows[9]
    got = _run(tmp_path, "table.md")
    assert got[rows[9]["id"]] == got[rows[10]["id"]] == "holds on evidence"
    assert got[rows[11]["id"]] == "refuted"


def test_a_blogs_settings_tie_rule_and_proof_are_read_as_it_writes_them(tmp_path):
    """From a newcomer's blog post, where six true statements were red: the tie in "\\( \\hat y = 1 \\) if
    ..." and in pseudo-code "1 if dot(w, x) + b > 0" (a comma inside the call); the example's rate and
    start stated with it, not a comparison's "from w = 0, b = 0" lines below nor a proof's η = 1
    sections later; "take \\( \\eta = 1 \\): a mistake means ... \\le 0" sets η = 1; a theorem's "for
    all i" does not make the next display's x_i every point.
    The run (o = 0 at a tie, eta = 1/2, w0 = (1/2, 0), b0 = 1/2): (0, 0), 0: score 1/2, o = 1:
    w = (1/2, 0), b = 0; (1, 1), 1: score 1/2, correct; epoch 2 clean: 1 update."""
    text = ("# Post\n\nWe predict \\( \\hat{y} = 1 \\) if \\( w \\cdot x + b > 0 \\), else 0, and update "
            "\\( b \\leftarrow b + \\eta (y - \\hat{y}) \\).\n\n```python\ny_hat = 1 if dot(w, x) + b > 0 else 0\n```\n\n"
            "| x₁ | x₂ | y |\n|----|----|---|\n| 0 | 0 | 0 |\n| 1 | 1 | 1 |\n\n"
            "We take a learning rate of 0.5 and start from w = [0.5, 0], b = 0.5.\n\n"
            "- (0, 0): score = 0.5 → ŷ = 1 but y = 0, so w = [0.5, 0], b = 0\n\n"
            "A bigger learning rate (η = 1 instead of 0.5) always needs fewer epochs from w = 0, b = 0.\n\n"
            "## Proof\n\nFor the proof take labels ±1, start from \\( w_0 = 0 \\) and take \\( \\eta = 1 \\): a mistake "
            "means \\( y_i w_k \\cdot x_i \\le 0 \\).\n\nSuppose \\( y_i (u \\cdot x_i) \\ge \\gamma \\) for all i.\n\n"
            "\\[ w_{k+1} \\cdot u = w_k \\cdot u + y_i x_i \\cdot u \\]\n")
    rules, read = note_rules(text, zero_one=True)
    assert [r.sign0 for r in rules] == [-1], read
    data = _draft(tmp_path, "post.md", text)
    (ds,) = data["dataset"]
    (step,) = [c for c in data["claim"] if c.get("datasets") == [ds["name"]] and c["line"] == 16]
    assert step["run"]["eta"] == "1/2" and step["run"]["w0"] == ["1/2", "0"] and step["run"]["b0"] == "1/2", step
    (display,) = [c for c in data["claim"] if c["line"] == 26 and c.get("expr")]
    assert not display["expr"].startswith("all_i") and "eta_one" in display["assume"], display
    got = _run(tmp_path, "post.md")
    assert got[step["id"]] == "holds on evidence" and got[display["id"]] != "refuted"


# A table whose first column names the points (A, B, C), its inputs as (a, b) cells with Unicode
# minus signs; eta = 1/2, w0 = 0, no bias, cyclic: A (2, 1), +1: 0 <= 0, w = (1, 1/2); B (-1, -2), -1:
# y w.x = -1 (-1 - 1) = 2 > 0; C (1, -1), +1: 1 - 1/2 = 1/2 > 0; epoch 2 clean.  One update, w = (1, 1/2).
LETTERED = """# Week 5
We train **without a bias term** with learning rate η = 0.5 and the rule "update when y·(w·x) ≤ 0",
sweeping A, B, C in order from w₀ = (0, 0).

| point | x        | y  |
|-------|----------|----|
| A     | (2, 1)   | +1 |
| B     | (−1, −2) | −1 |
| C     | (1, −1)  | +1 |

```
epoch 1:
  A: y·(w·x) = 0 ≤ 0  → update: w = (0,0) + 0.5·(+1)·(2,1) = (1, 0.5)
  B: y·(w·x) = −1·(−1 − 1) = 2 > 0 → no change
  C: y·(w·x) = 1 − 0.5 = 0.5 > 0 → no change
```

So the run stops after exactly 1 update, at w = (1, 0.5).

The bound does not depend on where we start: from any w₀ the perceptron makes at most R²/γ² mistakes.
"""


def test_a_table_whose_points_are_named_by_letters_is_the_notes_data_and_its_steps_are_its_run(tmp_path):
    """A | point | x | y | table (A, B, C) is the note's data, not skipped for its column of names; the
    steps "B: y·(w·x) = 2 > 0" are its run's, not claims about every run's visits (three true lines
    red); "from any w₀" is no w0 = 0 run (a false statement blue)."""
    (d,) = note_data(LETTERED)
    assert d.points == ((2, 1), (-1, -2), (1, -1)) and d.labels == (1, -1, 1) and d.names == ("A", "B", "C")
    data = _draft(tmp_path, "week5.md", LETTERED)
    steps = [c for c in data["claim"] if c["line"] in (13, 14, 15)]
    assert steps and all(c.get("draft") or c.get("datasets") for c in steps), steps
    anyw0 = [c for c in data["claim"] if c["line"] == 20 and not c.get("draft")]
    assert anyw0 and all("w0_zero" not in c.get("assume", []) for c in anyw0), anyw0
    verdicts = _run(tmp_path, "week5.md")
    on_run = {cid: v for cid, v in verdicts.items() if ".data" in cid}
    assert on_run and set(on_run.values()) == {"holds on evidence"}, verdicts
    assert all(v == "refuted" for cid, v in verdicts.items() if cid.endswith(".L20")), verdicts
    assert [v for cid, v in verdicts.items() if ".L1" in cid and "refuted" in v] == [], verdicts


def test_a_general_statement_in_a_lettered_list_is_not_taken_for_a_step(tmp_path):
    """"A: an update happens only on a mistake, where y (w·x) ≤ 0" computes no number: a claim about
    every update, not a draft of one step at the note's point A."""
    data = _draft(tmp_path, "week5.md", LETTERED + "\nA: an update happens only on a mistake, where $y (w·x) ≤ 0$.\n")
    (c,) = [c for c in data["claim"] if c["line"] == 22]
    assert not c.get("draft") and c["expr"] == "y*dot(prev(w), x) <= 0" and c["when"] == "update", c


def test_a_table_of_x_and_y_coordinates_beside_a_label_column_is_read_as_such():
    """| x | y | label |: x and y are the coordinates, the labels the third column (they were read as 1-D
    points labelled by their y); a label column of names (P, Q) is no data of +1/-1 labels."""
    (d,) = note_data("| point | x | y | label |\n|---|---|---|---|\n| A | 2 | 1 | +1 |\n| B | 3 | -1 | -1 |\n"
                     "| C | -1 | 1 | -1 |\n")
    assert d.points == ((2, 1), (3, -1), (-1, 1)) and d.labels == (1, -1, -1) and d.names == ("A", "B", "C")
    assert note_data("| point | x | y | class |\n|---|---|---|---|\n| A | 2 | 1 | P |\n| B | 3 | -1 | Q |\n") == []
    (d,) = note_data("| x1 | x2 | y |\n|---|---|---|\n| 0 | 1 | 1 |\n| 1 | 0 | -1 |\n")
    assert d.points == ((0, 1), (1, 0)) and d.labels == (1, -1)


# eta = 2, w0 = 0, b0 = 0, a mistake when y (w.x + b) <= 0, b += eta y: P (1, 2), +1: 0 <= 0, w = (2, 4), b = 2;
# Q (2, 0), +1: 4 + 2 = 6 > 0; S (-1, -1), -1: y (-2 - 4 + 2) = 4 > 0; T (0, -2), -1: y (-8 + 2) = 6 > 0; epoch 2
# clean.  One update; the learner counts 2 epochs (the clean one too), the note "after one epoch".
SUBSCRIPTED_COLUMNS = """# Recap with a bias

Learning rate η = 2, from w₀ = 0 and b₀ = 0; a mistake when y(w·x + b) ≤ 0, then w ← w + η y x, b ← b + η y.

| point | x₁ | x₂ | y |
|---|---|---|---|
| P | 1 | 2 | +1 |
| Q | 2 | 0 | +1 |
| S | −1 | −1 | −1 |
| T | 0 | −2 | −1 |

Step 1, P: y(w·x + b) = 0 ≤ 0, so w = (2, 4) and b = 2.

Step 2, Q: y(w·x + b) = 6 > 0, no update.

After one epoch every point is classified correctly, so the run makes exactly 1 mistake.

After three epochs the weights stop changing.

## The bound

The number of mistakes satisfies $k ≤ R^2/γ^2$.
"""


def test_columns_x1_x2_beside_point_names_are_the_data_and_step_n_at_a_point_is_its_run(tmp_path):
    """| point | x₁ | x₂ | y | with the points named P, Q, S, T is the note's data (the point column holds
    names, not coordinates); "Step 1, P: ... = 0" is a step of its run, never a claim about every
    update (it had come back refuted on a true line); "after one epoch" is read either way a note
    counts epochs (with the clean pass or without), and "after three epochs" is still refuted; a bound
    the note states is about its own algorithm, bias and all."""
    (ds,) = note_data(SUBSCRIPTED_COLUMNS)
    assert ds.points == ((1, 2), (2, 0), (-1, -1), (0, -2)) and ds.labels == (1, 1, -1, -1) and ds.names == ("P", "Q", "S", "T")
    data = _draft(tmp_path, "recap.md", SUBSCRIPTED_COLUMNS)
    steps = [c for c in data["claim"] if c["line"] in (12, 14)]
    assert steps and all(c.get("draft") and "step of the note's own run" in c["untranslated"] for c in steps), steps
    facts = {c["line"]: c for c in data["claim"] if c.get("datasets") and "epochs" in c.get("expr", "")}
    assert facts[16]["expr"] == "epochs >= 1 and epochs <= 2" and facts[18]["expr"] == "epochs >= 3 and epochs <= 4"
    got = _run(tmp_path, "recap.md")
    assert got[facts[16]["id"]] == "holds on evidence" and got[facts[18]["id"]] == "refuted"
    assert "refuted" not in {got[c["id"]] for c in data["claim"] if c["line"] in (12, 14, 16) and c["id"] in got}
    # the bound is about the note's algorithm, with its bias update b <- b + eta y: false as written for it
    # (it had been drafted about the algorithm without a bias, and painted green)
    (bound,) = [c for c in data["claim"] if c["line"] == 22 and not c.get("draft")]
    assert bound["variants"] == ["sklearn"] and got[bound["id"]] == "refuted", bound


START_AT_ZERO = """# Week 13

We use learning rate η = 2, start from w₀ = 0, and visit the points in the order given; a point
whose score is exactly 0 counts as a mistake (sign(0) = 0).

| point | x₁ | x₂ | y  |
|-------|----|----|----|
| P     | 1  | 2  | +1 |
| Q     | 2  | −1 | +1 |
| S     | −1 | −1 | −1 |

- The first visit is to P with w = 0, a mistake, so w₁ = (2, 4).
- Then Q: w₁·x_Q = 0, a mistake, so w₂ = (6, 2).
- The run makes 2 mistakes in total.
"""


def test_a_start_stated_as_w0_0_is_the_start_and_w1_the_weights_after_the_first_update(tmp_path):
    """"start from w₀ = 0" is the zero vector; where a note names w₀, its w₁ is the weights after
    the first update (the drafter had read w₁ = (2, 4) as the start, and refuted the note's true
    example); a note that names no w₀ and starts at w₁ keeps it as the start."""
    from verify.notes.worked_example import stated_setting

    data = _draft(tmp_path, "start.md", START_AT_ZERO)
    runs = [c["run"] for c in data["claim"] if "run" in c]
    assert runs and all(r["w0"] == ["0", "0"] and r["eta"] == "2" for r in runs), runs
    got = _run(tmp_path, "start.md")
    mistakes = next(c["id"] for c in data["claim"] if c.get("expr") == "mistakes == 2")
    assert got[mistakes] == "holds on evidence", got
    assert stated_setting("We start with w₁ = (1, 1).\n\n| x | y |\n", 3)[1] == (1, 1)
