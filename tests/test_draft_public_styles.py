"""Drafting notes as people write them (issue 37): math in prose as Unicode, pseudo-code and a
worked example in code blocks, bounds said in words.  Oracle: the note below, written for this
test in the style of public study guides, and what each of its statements says."""

import subprocess
import sys
import tomllib
from fractions import Fraction

import pytest

GUIDE = """# Perceptron study guide

## The learning rule

Pick a learning rate 0 < η < 1.

```
for each example (x, y):
    out = sign(wᵀx)
    w ← w + η y x
```

## Worked example

Start from w = [0, 0]. After training on the OR data, w ≈ [0.1, 0.1] and b = −0.1.

## Convergence

If the data are linearly separable with margin γ and every ‖xᵢ‖ ≤ R, the perceptron
makes at most R²/γ² mistakes.

```
wₖ · w* ≥ k γ
```

If we double every input, the number of mistakes doubles too.
"""


def _drafted(text: str, name: str = "n.md"):
    """verify.notes.draft.draft of ``text`` written as a note named ``name``: (note, claims, proposals)."""
    import tempfile

    from verify.notes.draft import draft

    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/{name}"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return draft(path)


def _draft(tmp_path):
    (tmp_path / "guide.md").write_text(GUIDE, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verify", "draft", "guide.md"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    data = tomllib.loads((tmp_path / "claims_guide.toml").read_text(encoding="utf-8"))
    return {c["line"]: c for c in data["claim"]}, data


def test_unicode_math_in_prose_and_code_and_bounds_in_words_are_read(tmp_path):
    by_line, _ = _draft(tmp_path)
    bound = [c for c in by_line.values() if c.get("expr") == "mistakes <= R2/gamma**2"]
    assert bound and bound[0]["when"] == "end" and "separable" in bound[0]["assume"], by_line
    assert any(c.get("expr") == "all_i(norm(x) <= R)" for c in by_line.values())  # "every ‖xᵢ‖ ≤ R", in prose
    numerator = by_line[23]  # wₖ · w* ≥ k γ, in a code block (w* is the separator, not a product)
    assert numerator["expr"] == "dot(w, w_opt) >= k*gamma" and numerator["when"] == "update"


def test_settings_and_one_runs_values_are_drafts_not_claims_about_every_run(tmp_path):
    by_line, _ = _draft(tmp_path)
    eta = by_line[5]  # "pick a learning rate 0 < η < 1": what the run is given
    assert eta.get("draft") and "learning rate" in eta["untranslated"]
    example = [c for c in by_line.values() if c["line"] == 15 and "−0.1" in c["statement"]]
    assert example and all(c.get("draft") for c in example), example  # one run's values, not every run's
    assert any("a value of one run" in c.get("untranslated", "") for c in example)
    out = by_line[9]  # out = sign(wᵀx): the variant with an output, whose sign(0) is 0 as written
    assert out.get("variants") == ["sign"] and "sign0_zero" in out.get("assume", []), out


def test_the_draft_runs_and_paints_no_false_statement_green(tmp_path):
    """The draft, run without an edit: no internal error; the false statement ("doubling the
    inputs doubles the mistakes") is not shown as holding."""
    by_line, _ = _draft(tmp_path)
    lint = subprocess.run([sys.executable, "-m", "verify", "claims", "lint", "claims_guide.toml"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "claims_guide.toml", "--out", "o",
                        "--quiet", "--jobs", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode in (0, 1) and "internal error" not in r.stderr, r.stderr
    import json

    badges = json.loads((tmp_path / "o" / "badges.json").read_text(encoding="utf-8"))["guide.md"]["statements"]
    doubles = [m for m in badges.values() if m.get("line") == 26]
    assert all(m.get("verdict") not in ("proved", "holds", "searched") for m in doubles), doubles
    bound = [c for c in by_line.values() if c.get("expr") == "mistakes <= R2/gamma**2"][0]
    assert badges[bound["anchor"]]["verdict"] in ("holds", "searched", "proved"), badges[bound["anchor"]]


def test_a_hypothesis_stays_with_its_own_clause_and_pseudo_code_lines_are_read(tmp_path):
    """Found by a newcomer: "with η = 1 it is the same bound" after a ";" is that clause's
    hypothesis, not the students' bound's (nor a later statement's); "w* separates them" says
    separable; "pick any i with yᵢ w·xᵢ ≤ 0" in pseudo-code is its relation, not its words."""
    note = ("# L\n\nA unit vector w* separates them with margin γ.\n\n```\nw ← 0\npick any i with yᵢ w·xᵢ ≤ 0\n"
            "w ← w + η yᵢ xᵢ\n```\n\nSo k ≤ R²/γ². Some write k ≤ R²/(η γ²) instead; with η = 1 it is the same bound.\n\n"
            "When it stops, yᵢ w·xᵢ ≥ γ for every i.\n")
    (tmp_path / "l.md").write_text(note, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "verify", "draft", "l.md"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    claims = [c for c in tomllib.loads((tmp_path / "claims_l.toml").read_text(encoding="utf-8"))["claim"]
              if c.get("expr")]
    by_expr = {c["expr"]: c for c in claims}
    assert by_expr["dot(y*prev(w), x) <= 0"]["line"] == 7
    students = by_expr["mistakes <= R2/(eta*gamma**2)"]
    assert "eta_one" not in students.get("assume", []) and "separable" in students["assume"]
    assert all("eta_one" not in c.get("assume", []) for c in claims if c["line"] == 13)


def test_prose_math_is_read_in_linear_time(monkeypatch):
    """A paragraph of symbols (hostile, or a long formula in words) is read in work linear in
    its length: each relation looks at most MAX_SPAN_CHARS around it, and the relations inside a
    span start no other (was: every relation walked the whole paragraph, 12 s for 20 000 chars)."""
    import verify.notes.unicode_math as U

    calls = []
    real = U._math_token
    monkeypatch.setattr(U, "_math_token", lambda tok: calls.append(1) or real(tok))
    text = "a≤" * 10_000
    U.prose_spans(text)
    assert len(calls) < 4 * len(text), len(calls)
    assert U.prose_spans("so every ‖xᵢ‖ ≤ R here") == [(9, "‖xᵢ‖ ≤ R")]


DERIVATION = """# Why the norm grows slowly

Start from w₀ = 0. On a mistake, y w·x ≤ 0 and w ← w + y x. Let R = max ‖xᵢ‖.

```
‖w_{k+1}‖² = ‖w_k + y x‖²
           = ‖w_k‖² + 2 y w_k·x + ‖x‖²
           ≤ ‖w_k‖² + R²
```
"""


def test_a_derivation_over_several_lines_of_a_code_block_is_one_statement(tmp_path):
    """Lines that open with a relation continue the line above: one statement at its first line
    (to its last), a claim per link of its chain; none of them a draft with nothing on its left."""
    from verify.notes.draft import draft
    from verify.notes.source import read_note, statements

    path = tmp_path / "deriv.md"
    path.write_text(DERIVATION, encoding="utf-8")
    found = [s for s in statements(read_note(str(path))) if s.line >= 6]
    assert [(s.line, s.end_line) for s in found] == [(6, 8)]
    _, claims, _ = draft(str(path))
    links = [c for c in claims if c["line"] == 6]
    assert [c.get("expr") for c in links] == [
        "norm2(w) == norm2(prev(w) + y*x)",
        "norm2(prev(w) + y*x) == norm2(prev(w)) + dot(2*y*prev(w), x) + norm2(x)",
        "norm2(prev(w)) + dot(2*y*prev(w), x) + norm2(x) <= norm2(prev(w)) + R2"]
    assert not [c for c in claims if c["line"] in (7, 8)]


def test_a_statement_of_the_bias_is_about_the_variant_whose_bias_update_the_note_writes(tmp_path):
    """b ← b + η y is sklearn's update (not novikoff's b += η y R²); b ← b + η(y − ŷ) is no built-in
    variant's: the statement is a draft that names the update, never a claim about another rule."""
    from verify.notes.draft import draft

    base = "# Bias\n\nOn a mistake, w ← w + η y x and {update}.\n\nAfter each update, |b| ≤ k η.\n"
    path = tmp_path / "bias.md"
    path.write_text(base.format(update="b ← b + η y"), encoding="utf-8")
    _, claims, _ = draft(str(path))
    (bound,) = [c for c in claims if c["line"] == 5]
    assert bound["variants"] == ["sklearn"] and bound["expr"].startswith("abs(b) <="), bound
    path.write_text(base.format(update="b ← b + η(y − ŷ)"), encoding="utf-8")
    _, claims, _ = draft(str(path))
    (bound,) = [c for c in claims if c["line"] == 5]
    assert bound.get("draft") and "b ← b + η(y − ŷ)" in bound["untranslated"], bound


def test_online_notation_indexes_the_point_by_the_step():
    """x_t, y_t beside w_t (online notation) are the point of the current step, as x_i, y_i beside w_k are;
    a sum over t of y_t x_t is still a sum over the updates."""
    from verify.notes.reading import translate

    assert translate(r"y_t \langle w_t, x_t\rangle \le 0").expr == "y*dot(prev(w), x) <= 0"
    assert translate(r"w_{t+1} = w_t + y_t x_t").expr == "w == prev(w) + y*x"
    assert translate(r"\sum_{t} y_t x_t = w").expr is None


def test_the_notes_own_terms_for_its_data_are_proposed_and_an_iterations_value_is_one_runs():
    """A margin assumed strictly (y_i w*.x_i > γ), data assumed non-trivial, inputs of norm 1 written
    \\|\\mathbf{x}_i\\|_2 = 1: each is the note's assumption for its claims (as drafted, the claims on the seed
    notes that lacked them were refuted where the hand-written ones hold); "w_2 = w_1 + (-1) x = (2, 0)" at
    one step is one run's value, a draft, not a claim about every run."""
    from verify.notes.note_run import one_runs_value

    text = ("# Notes\n\nWe assume the set is non-trivial and linearly separable: there is a unit $w^*$ with "
            "$y_i w^* \\cdot x_i > \\gamma$ for all $i$, and every $\\|\\mathbf{x}_i\\|_2 = 1$. Start from $w_0 = 0$.\n\n"
            "$$w^* \\cdot w_{k+1} > k \\gamma$$\n")
    _, claims, props = _drafted(text)
    assert {"strict_margin", "nontrivial", "unit_norm", "separable"} <= set(props.assume), props.assume
    (bound,) = [c for c in claims if c["line"] == 5]
    assert {"separable", "strict_margin", "nontrivial", "w0_zero"} <= set(bound["assume"]), bound
    assert one_runs_value("k != 1 or (w == vec(0, 0) + (-1)*vec(-2, 0) == vec(2, 0))")
    assert not one_runs_value("w == prev(w) + y*x") and not one_runs_value("norm2(w_opt) == 1")
    assert one_runs_value("norm2(w) == 3")  # a value of one run's weights (tests/test_latex_notes.py)


def test_a_learning_rate_in_a_list_of_the_proofs_assumptions_is_the_notes_setting():
    """"- The learning rate is η = 1." in a bulleted list, beside items with ≥ in them, is the
    setting of the proof's claims (η = 1, not the algorithm's earlier 0 < η < 1); a statement in one
    sentence with a bound ("with η = 1 the same bound holds") stays that statement's hypothesis."""
    text = ("# Algorithm\n\nPick a learning rate $0 < \\eta < 1$ and start from $w(0) = 0$.\n\n# Theorem\n\n"
            "Assume:\n- The data is linearly separable: $y_i w^* \\cdot x_i \\geq \\alpha$.\n"
            "- The learning rate is $\\eta = 1$.\n- Let $\\beta = \\max_i \\|x_i\\|^2$.\n\n"
            "$$\\|w\\|^2 \\leq k \\beta$$\n")
    _, claims, props = _drafted(text)
    assert "eta_one" in props.assume and "eta_le_one" in props.assume, props.assume
    (bound,) = [c for c in claims if c["line"] == 12]
    assert "eta_one" in bound["assume"] and "eta_le_one" not in bound["assume"], bound
    _, _, props = _drafted(text.replace("- The learning rate is $\\eta = 1$.", "- With $\\eta = 1$ the same bound holds."))
    assert "eta_one" not in props.assume


def test_a_sentence_about_every_run_is_no_fact_of_the_notes_run():
    """"always converges", "is guaranteed to stop": what the theorem promises, not what the
    worked run did; "the algorithm terminates" after the run is."""
    from verify.notes.note_run import run_facts

    text = "The perceptron always converges on separable data.\nIt is guaranteed to stop.\nThe algorithm terminates.\n"
    facts = run_facts(text, 1, 3, None)
    assert [(f.line, f.quantity) for f in facts] == [(3, "converged")]


def test_a_header_written_in_latex_bold_names_its_column():
    from verify.notes.worked_example import header_name, numbers_of

    assert header_name("\\mathbf{x}") == "x" and header_name("$\\boldsymbol{w}$") == "w"
    assert numbers_of("$\\begin{pmatrix} -2 \\\\ 0 \\end{pmatrix}$") == [-2, 0]
    assert numbers_of("\\begin{bmatrix} 1 & 1/2 \\end{bmatrix}") == [1, Fraction(1, 2)]
    assert numbers_of("\\begin{pmatrix} a \\\\ 0 \\end{pmatrix}") is None


def test_hypotheses_premises_and_one_datasets_values_are_drafts_not_claims(tmp_path):
    """Each was a wrong colour: "a separator would need $b < 0$" (XOR, which has none) was a claim on
    the run's bias; "the same bound holds from any $w_1$ with $\\|w_1\\| \\le \\gamma$" was drafted as
    its premise; "for our data $R = 3$" was a claim on every dataset (red on the corpus); "taking
    η = 0.25 would double the updates" was shown as a setting."""
    from verify.notes.draft import draft

    text = ("# Notes\n\nStart from $w_1 = 0$; on a mistake, $y_i w_t \\cdot x_i \\le 0$, set $w_{t+1} = w_t + y_i x_i$.\n\n"
            "For XOR, a separator would need $b < 0$ and $w_1 + b > 0$.\n\n"
            "The same bound holds if we start from any $w_1$ with $\\|w_1\\| \\le \\gamma$.\n\n"
            "For our data $R = 3$.\n\nTaking η = 0.25 would double the number of updates.\n")
    path = tmp_path / "n.md"
    path.write_text(text, encoding="utf-8")
    _, claims, _ = draft(str(path))
    by_line = {}
    for c in claims:
        by_line.setdefault(c["line"], []).append(c)
    for line, why in ((5, "supposes"), (7, "premise"), (9, "one dataset"), (11, "learning rate")):
        assert by_line[line] and all(c.get("draft") for c in by_line[line]), (line, by_line[line])
        assert any(why in c["untranslated"] for c in by_line[line]), (line, by_line[line])
        assert not any(c["untranslated"].startswith("sets the note's run") for c in by_line[line]), by_line[line]



@pytest.mark.parametrize("rate", ["η = 1/2", "η = 1 / 2", "$\\eta = 1/4$"])
def test_a_learning_rate_of_one_half_is_not_eta_one(rate):
    """"learning rate η = 1/2": its 1 is the numerator, not η = 1 (a draft proposed eta_one, so
    the proof's claims were audited for η = 1 only)."""
    text = (f"# Week\n\nWe train with learning rate {rate}, starting from w₀ = 0.\n\n"
            "Each update: ‖w_k‖² ≤ ‖w_{k−1}‖² + η²R².\n")
    _, claims, props = _drafted(text)
    assert "eta_one" not in props.assume, props.assume
    assert all("eta_one" not in c.get("assume", []) for c in claims), claims


#: A note that works its example from a warm start, after a sentence about other people's zero start.
WARM = r"""# From a warm start

Most textbook proofs start the perceptron at w₀ = 0.

```
w ← w₀
if yᵢ (w·xᵢ) ≤ 0:  w ← w + η yᵢ xᵢ
```

We use η = 1/2 and start from w₀ = (−1, 1). Take u = (1, −1)/√2: every point has yᵢ (u·xᵢ) ≥ 1/√2.

Each mistake adds at most η²R² to the squared norm: ‖w_k‖² ≤ k η² R².

The bound k ≤ R²/γ² holds whatever w₀ is.

For the proof, start from w₀ = 0: then ‖w_k‖² ≤ k η² R².

## With a bias

Folding the bias in, $\|w^*\|^2 + (b^*/R)^2 \le 2$ for any separator of margin γ.

A perceptron started anywhere makes at most k ≤ R²/γ² + 2‖w₀‖/(ηγ) mistakes.
"""


def test_the_start_the_note_states_last_is_the_start_of_what_follows():
    """A zero start said of others' proofs is not the note's once it starts its own run elsewhere:
    the statements after "start from w₀ = (−1, 1)" get no w0_zero (their false bound is not proved
    from w = 0), and those after a later "start from w₀ = 0" do; "w ← w₀" in the algorithm is its
    start, not a claim at the end of a run; a bound by a number where the section has fixed u to
    numbers ("every point has y (u·x) ≥ 1/√2") is the note's data's, not every dataset's, and one
    in a section that fixes nothing (|w*|^2 + (b*/R)^2 <= 2) is a claim about every dataset."""
    _, claims, _ = _drafted(WARM)
    by_line: dict = {}
    for c in claims:
        by_line.setdefault(c["line"], []).append(c)
    assert all(c.get("draft") and "the algorithm's start" in c["untranslated"] for c in by_line[6]), by_line[6]
    assert all(c.get("draft") and "a value of one dataset" in c["untranslated"]
               for c in by_line[10] if "1/sqrt(2)" in c.get("expr", c.get("untranslated", ""))), by_line[10]
    read = {c["line"]: c for c in claims if not c.get("draft")}
    assert "w0_zero" not in read[12].get("assume", []) and "w0_zero" not in read[14].get("assume", []), (read[12], read[14])
    assert "w0_zero" in read[16].get("assume", []), read[16]
    assert read[14]["expr"] == "mistakes <= R2/gamma**2"
    assert read[20]["when"] == "dataset" and "2" in read[20]["expr"], read[20]
    assert "w0_zero" not in read[22].get("assume", []), read[22]  # its own words: any start


LAB = r"""# Lab: ties to +1

The perceptron predicts +1 when \( w \cdot x \ge 0 \) and updates \( w \leftarrow w + \eta y x \) on a mistake.

We have \( x_1 = (1, 2) \) with \( y_1 = +1 \), \( x_2 = (2, -1) \) with \( y_2 = -1 \), and \( x_3 = (-1, -1) \) with \( y_3 = -1 \).
We take \( \eta = 2 \), start at \( w_0 = (1, 0) \) and visit the points in order.

\( x_2 \) scores 2 but is negative, so \( w_1 = (-3, 2) \). For \( x_3 \) the score is \( -1 \), so \( w_2 = (-1, 4) \).

Epoch 2 makes no mistake, so training ends with \( w = (-1, 4) \) after 2 updates.

From any start, \( \|w_k\|^2 \le \|w_0\|^2 + k\eta^2R^2 \).

Because the learning rate only scales \( w \), a smaller \( \eta \) would have made the same 2 mistakes.
"""


def test_what_no_claim_reads_of_a_worked_line_keeps_it_grey_and_another_run_is_not_this_one():
    """A line whose claim checks its weights but not the score it works out (the false "the score
    is -1": it is 1) gets a draft, so it is never green; a sentence about a run with a smaller η is
    no fact of the note's run (from (1, 0), η = 1/2 makes one mistake); "from any start" is no
    statement from w = 0."""
    _, claims, _ = _drafted(LAB)
    at = {}
    for c in claims:
        at.setdefault(c["line"], []).append(c)
    assert any(c.get("draft") and "the score the note works out" in c["untranslated"] for c in at[8]), at[8]
    assert any(not c.get("draft") for c in at[8]) and any(not c.get("draft") for c in at[10])
    assert not any(not c.get("draft") and "mistakes" in c.get("expr", "") for c in at.get(14, [])), at.get(14)
    assert [c for c in at[12] if not c.get("draft")] and all("w0_zero" not in c.get("assume", []) for c in at[12])
