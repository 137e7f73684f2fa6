"""Issue 36: the note's own example, run as the note runs it: its data in the claim file
([[dataset]]), its setting on the claim (run = {...}: eta, w0, b0, the tie rule, the update
form), fixed rather than left unvaried; checked against a direct computation of the note's rule
written here (the oracle), not against the learner."""

import json
from fractions import Fraction as F

import pytest

from verify.cli import main

AND = [((0, 0), 0), ((0, 1), 0), ((1, 0), 0), ((1, 1), 1)]


def _note_rule(points, eta, tie_output, labels01, max_epochs=1000):
    """The study guide's rule, by hand: o = step(w.x + b) (step(0) = tie_output), on a mistake
    w += eta (t - o) x and b += eta (t - o) with t, o in {0, 1} (labels01), or with t, o in
    {-1, +1}: w += eta t x, b += eta t.  (final w, final b, updates, epochs)."""
    d = len(points[0][0])
    w, b, k = [F(0)] * d, F(0), 0
    for epoch in range(1, max_epochs + 1):
        clean = True
        for x, t in points:
            net = sum(wi * xi for wi, xi in zip(w, x)) + b
            hi, lo = (1, 0) if labels01 else (1, -1)
            o = hi if net > 0 or (net == 0 and tie_output == hi) else lo
            if o != t:
                step = eta * (t - o) if labels01 else eta * t
                w = [wi + step * xi for wi, xi in zip(w, x)]
                b += step
                k += 1
                clean = False
        if clean:
            return w, b, k, epoch
    raise AssertionError("did not converge")


def _claims(tmp_path, labels, run, claims):
    rows = "\n".join(f"[{x[0]}, {x[1]}]," for x, _ in AND)
    text = (f'[document]\nfile = "guide.md"\n\n[[dataset]]\nname = "and"\npoints = [\n{rows}\n]\n'
            f"labels = {json.dumps(labels)}\n\n")
    for j, (expr, expect) in enumerate(claims):
        text += (f'[[claim]]\nid = "guide.{j}"\nsection = "worked example"\nstatement = "{expr}"\n'
                 f'expr = "{expr}"\nvariants = ["sign"]\ndatasets = ["and"]\norders = ["cyclic"]\nwhen = "end"\n'
                 f"run = {run}\nexpect = \"{expect}\"\n\n")
    p = tmp_path / "claims.toml"
    p.write_text(text)
    out = tmp_path / "out"
    rc = main(["run", "--claims", str(p), "--out", str(out), "--quiet", "--jobs", "1"])
    return rc, json.loads((out / "results.json").read_text())["claims"]


def _vec(ws, b):
    return "vec(" + ", ".join(str(v) for v in [*ws, b]) + ")"


def test_eta_one_tenth_with_f0_plus_one_on_four_points(tmp_path):
    """η = 0.1 (written as the float 0.1, read as 1/10), f(0) = +1, ±1 labels: the final weights,
    the bias and the update count the note's rule gives hold; a wrong epoch count is refuted;
    eta is fixed at 1/10, never 'unknown: never varied'."""
    w, b, k, epochs = _note_rule([(x, 1 if t else -1) for x, t in AND], F(1, 10), 1, labels01=False)
    rc, claims = _claims(tmp_path, [1 if t else -1 for _, t in AND], "{ eta = 0.1, w0 = [0, 0], b0 = 0, sign0 = 1 }",
                         [(f"w == {_vec(w, b)}", "holds"), (f"mistakes == {k}", "holds"),
                          (f"epochs == {epochs}", "holds"), (f"epochs == {epochs + 1}", "refuted")])
    assert rc == 0, [(c["id"], c["verdict"], c["evidence"].get("reason")) for c in claims]
    assert [c["verdict"] for c in claims] == ["holds on evidence"] * 3 + ["refuted"]
    q = claims[0]["evidence"]["quantifiers"]
    assert q["eta"]["range"] == "fixed: 1/10" and q["sign0"]["range"] == "fixed: 1"


def test_a_zero_one_label_note_with_a_step_output(tmp_path):
    """Labels 0/1 and the rule w += η (t − o) x with o = step(net), step(0) = 1: the 1/2 η (y − out)
    form with sign(0) = +1 on the labels mapped to ±1; its numbers as the note's rule gives them."""
    w, b, k, epochs = _note_rule(AND, F(1, 2), 1, labels01=True)
    rc, claims = _claims(tmp_path, [t for _, t in AND], '{ eta = "1/2", b0 = 0, sign0 = 1, form = "half" }',
                         [(f"w == {_vec(w, b)}", "holds"), (f"mistakes == {k}", "holds"),
                          (f"epochs == {epochs}", "holds")])
    assert rc == 0, [(c["id"], c["verdict"], c["evidence"].get("reason")) for c in claims]


def test_a_stated_run_is_the_only_run_a_claim_applies_to(tmp_path):
    """The corpus's own runs of the dataset (eta 1, sign(0) = 0) do not decide a claim stating
    eta = 1/10: a count true only at eta = 1 is refuted by the stated run, not confirmed."""
    w1, b1, k1, _ = _note_rule([(x, 1 if t else -1) for x, t in AND], F(1), 0, labels01=False)
    w, b, k, _ = _note_rule([(x, 1 if t else -1) for x, t in AND], F(1, 10), 1, labels01=False)
    assert (w, b) != (w1, b1)
    rc, claims = _claims(tmp_path, [1 if t else -1 for _, t in AND], "{ eta = 0.1, b0 = 0, sign0 = 1 }",
                         [(f"w == {_vec(w1, b1)}", "refuted")])
    assert rc == 0 and claims[0]["verdict"] == "refuted"
    assert claims[0]["evidence"]["evaluations"] == 1


@pytest.mark.parametrize("run, message", [
    ('{ eta = "-1" }', "must be > 0"), ("{ sign0 = 2 }", "sign0"), ('{ form = "other" }', "form must be"),
    ("{ speed = 1 }", "unknown run field"), ('{ eta = "abc" }', "run:")])
def test_a_bad_run_table_is_a_lint_error(tmp_path, run, message):
    from verify.language.lint import lint

    p = tmp_path / "c.toml"
    p.write_text('[document]\nfile = "n.md"\n\n[[dataset]]\nname = "d"\npoints = [[1, 0], [0, 1]]\nlabels = [1, -1]\n\n'
                 '[[claim]]\nid = "c.1"\nsection = "s"\nstatement = "s"\nexpr = "mistakes == 1"\nvariants = ["sign"]\n'
                 f'datasets = ["d"]\nwhen = "end"\nrun = {run}\nexpect = "holds"\n')
    problems = lint([str(p)])
    assert problems and message in str(problems[0]) and problems[0].line == 17, problems


def test_dataset_tables_and_names_are_checked_by_lint(tmp_path):
    from verify.language.lint import lint

    p = tmp_path / "c.toml"
    p.write_text('[document]\nfile = "n.md"\n\n[[dataset]]\nname = "mine"\npoints = [[1, 0], [0, 1]]\nlabels = [1, -1]\n\n'
                 '[[claim]]\nid = "c.1"\nsection = "s"\nstatement = "s"\nexpr = "mistakes == 1"\nvariants = ["sign"]\n'
                 'datasets = ["mien"]\nwhen = "end"\nexpect = "holds"\n\n'
                 '[[claim]]\nid = "c.2"\nsection = "s"\nstatement = "s"\nexpr = "mistakes == 1"\nvariants = ["sign"]\n'
                 'when = "end"\nrun = { eta = 2 }\nexpect = "holds"\n')
    problems = [str(e) for e in lint([str(p)])]
    assert any("no dataset 'mien'" in e and "did you mean 'mine'" in e for e in problems), problems
    assert any("name them in datasets" in e for e in problems), problems


def test_decimals_are_read_exactly(tmp_path):
    from perceptron import read_dataset

    p = tmp_path / "d.toml"
    p.write_text('[[dataset]]\nname = "s"\npoints = [[0.1, 3], ["1/3", 1e-2]]\nlabels = ["yes", "no"]\n')
    ds = read_dataset(str(p) + "#s")
    assert ds.fractions() == [[F(1, 10), F(3)], [F(1, 3), F(1, 100)]] and list(ds.y) == [1, -1]


def test_a_step_of_the_notes_table(tmp_path):
    """Epoch 1 of the AND table with eta = 0.1, sign(0) = +1, computed here by hand: example 1
    ((0, 0), -1): net 0, output +1, a mistake, after it w = (0, 0), b = -0.1; example 4
    ((1, 1), +1): net -0.1, output -1, a mistake.  A visit claim reads the step before its update,
    an update claim the weights after it; a wrong net is refuted at that step."""
    p = tmp_path / "c.toml"
    head = ('[document]\nfile = "n.md"\n\n[[dataset]]\nname = "and"\npoints = [[0, 0], [0, 1], [1, 0], [1, 1]]\n'
            'labels = [-1, -1, -1, 1]\n\n')
    claim = ('[[claim]]\nid = "s.{j}"\nsection = "table"\nstatement = "s"\ngiven = "{given}"\nexpr = "{expr}"\n'
             'variants = ["sign"]\ndatasets = ["and"]\norders = ["cyclic"]\nwhen = "{when}"\n'
             'run = {{ eta = 0.1, sign0 = 1, augment = "last" }}\nexpect = "{expect}"\n\n')
    rows = [("sweep == 1 and i == 0", "score == 0 and out == 1 and out != y", "visit", "holds"),
            ("sweep == 1 and i == 0", "w == vec(0, 0, -1/10)", "update", "holds"),
            ("sweep == 1 and i == 3", "score == -1/10 and out == -1 and out != y", "visit", "holds"),
            ("sweep == 1 and i == 3", "score == 0", "visit", "refuted")]
    p.write_text(head + "".join(claim.format(j=j, given=g, expr=e, when=w, expect=x) for j, (g, e, w, x) in enumerate(rows)))
    assert main(["run", "--claims", str(p), "--out", str(tmp_path / "out"), "--quiet", "--jobs", "1"]) == 0
    claims = json.loads((tmp_path / "out" / "results.json").read_text())["claims"]
    assert [c["verdict"] for c in claims] == ["holds on evidence"] * 3 + ["refuted"]


def test_lint_explain_reads_each_claim_in_words(tmp_path, capsys):
    """claims lint --explain: when, on which runs and data, the assumptions, the stated run and
    each quantity's range, for every claim (to check a transcription against the note)."""
    p = tmp_path / "c.toml"
    p.write_text('[document]\nfile = "n.md"\n\n[[dataset]]\nname = "d"\npoints = [[1, 0], [0, 1]]\nlabels = [1, -1]\n\n'
                 '[[claim]]\nid = "c.1"\nsection = "s"\nstatement = "two updates"\nexpr = "mistakes == 2"\n'
                 'variants = ["sign"]\ndatasets = ["d"]\nwhen = "end"\nrun = { eta = 0.1 }\nexpect = "holds"\n\n'
                 '[[claim]]\nid = "c.2"\nsection = "s"\nstatement = "bound"\nexpr = "mistakes <= R2/gamma**2"\n'
                 'variants = ["rosenblatt"]\nwhen = "end"\nassume = ["separable"]\nexpect = "holds"\n')
    assert main(["claims", "lint", "--explain", str(p)]) == 0
    out = capsys.readouterr().out
    assert "c.1: two updates" in out and "eta: fixed: 1/10" in out and "on the datasets: d" in out
    assert "assumes separable: the dataset has a separability certificate" in out and "eta: every eta > 0" in out
    assert "w0: every initial w0 (and b0)" in out and "separator: every separator" in out


def test_a_vector_of_another_dimension_does_not_apply_instead_of_crashing(tmp_path, capsys):
    """A drafted 'w == vec(0, 0, 1/2)' with no datasets met the corpus's 2-dimensional runs and
    ended run in 'internal error: ExactError: vectors of different dimensions' (a newcomer's
    unedited draft).  It applies to the runs of its dimension only, and says why elsewhere."""
    p = tmp_path / "c.toml"
    p.write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "d.1"\nsection = "s"\nstatement = "s"\n'
                 'expr = "dot(w, vec(1, 1)) >= -1000"\nvariants = ["rosenblatt"]\nwhen = "update"\nexpect = "holds"\n')
    out = tmp_path / "out"
    rc = main(["run", "--claims", str(p), "--out", str(out), "--quiet", "--jobs", "1"])
    assert rc == 0 and "internal error" not in capsys.readouterr().err
    c = json.loads((out / "results.json").read_text())["claims"][0]
    assert c["evidence"]["evaluations"] > 0 and c["evidence"]["not_applicable_runs"] > 0


def test_a_declared_variant_run_as_the_note_states_it(tmp_path):
    """A note's own algorithm, declared (update when y w.x <= tau), on its own data, with its
    parameter and learning rate stated: run = { eta = 0.5, set = { tau = "1/2" } }.  The count and
    weights a direct computation gives hold; the parameter is fixed, not 'never varied'."""
    pts = [((2, 1), 1), ((-1, -2), -1), ((1, -1), 1)]
    w, k, eta, tau = [F(0), F(0)], 0, F(1, 2), F(1, 2)
    for _ in range(100):  # the rule by hand, cyclic, to a clean sweep
        clean = True
        for x, y in pts:
            if y * (w[0] * x[0] + w[1] * x[1]) <= tau:
                w, k, clean = [w[0] + eta * y * x[0], w[1] + eta * y * x[1]], k + 1, False
        if clean:
            break
    p = tmp_path / "c.toml"
    p.write_text(
        '[document]\nfile = "n.md"\n\n[variants.tau_rule]\nnote = "update when y w.x <= tau"\nparameters = { tau = "1" }\n'
        'state = { w = "w0" }\nscore = "dot(w, x)"\nmistake = "y * score <= tau"\nupdate = { w = "w + eta * y * x" }\n'
        'orders = ["cyclic", "random", "first", "sequence"]\nstop = "converged"\n\n'
        '[[dataset]]\nname = "three"\npoints = [[2, 1], [-1, -2], [1, -1]]\nlabels = [1, -1, 1]\n\n'
        '[[claim]]\nid = "t.1"\nsection = "s"\nstatement = "s"\n'
        f'expr = "mistakes == {k} and w == vec({w[0]}, {w[1]})"\nvariants = ["tau_rule"]\ndatasets = ["three"]\n'
        'orders = ["cyclic"]\nwhen = "end"\nrun = { eta = 0.5, augment = "none", set = { tau = "1/2" } }\nexpect = "holds"\n')
    out = tmp_path / "out"
    assert main(["run", "--claims", str(p), "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    c = json.loads((out / "results.json").read_text())["claims"][0]
    assert c["verdict"] == "holds on evidence" and c["evidence"]["quantifiers"]["tau"]["range"] == "fixed: 1/2"


def test_review_findings_on_stated_runs(tmp_path, capsys):
    """A stated run is one run: other kernels do not refute it; a bias with nowhere to go and a
    tie rule the variant fixes are lint errors; a w0 of the wrong length is refused, said, never
    matched by a prefix; a bad number in a table is one line."""
    from verify.language.lint import lint
    from verify.language.setting import Setting
    from perceptron import Params

    head = '[document]\nfile = "n.md"\n\n[[dataset]]\nname = "xs"\npoints = [[1, 0], [-1, 0], [2, 1]]\nlabels = [1, -1, 1]\n\n'
    claim = ('[[claim]]\nid = "r.{j}"\nsection = "s"\nstatement = "s"\nexpr = "{expr}"\nvariants = ["{v}"]\n'
             'datasets = ["xs"]\norders = ["cyclic"]\nwhen = "end"\nrun = {run}\nexpect = "holds"\n\n')
    p = tmp_path / "c.toml"
    kernel_head = head.replace("[[1, 0], [-1, 0], [2, 1]]", "[[3, 1], [1, 3], [-2, 1], [1, -2], [2, 2]]").replace(
        "[1, -1, 1]", "[1, 1, -1, -1, 1]")  # the linear kernel makes 2 mistakes here, the (x.z + 1)^2 kernel other
    p.write_text(kernel_head + claim.format(j=1, expr="mistakes == 2", v="kernel", run="{ eta = 1 }"))
    assert main(["run", "--claims", str(p), "--out", str(tmp_path / "o1"), "--quiet", "--jobs", "1"]) == 0
    for run, v, msg in (('{ b0 = 5, augment = "none" }', "rosenblatt", "no bias of its own"),
                        ("{ sign0 = 1 }", "rosenblatt", "fixes sign(0)"), ('{ form = "half" }', "novikoff", "one update form")):
        p.write_text(head + claim.format(j=2, expr="mistakes == 1", v=v, run=run))
        assert any(msg in str(e) for e in lint([str(p)])), (run, lint([str(p)]))
    assert Setting(w0=(F(1), F(2), F(3))).mismatch(Params(w0=(F(1), F(2))), 2) is not None
    assert Setting(w0=(F(1),)).mismatch(Params(augment="last", w0=(F(1), F(0), F(5))), 2) is not None
    p.write_text(head + claim.format(j=3, expr="mistakes == 1", v="rosenblatt", run="{ w0 = [1] }"))
    assert main(["run", "--claims", str(p), "--out", str(tmp_path / "o3"), "--quiet", "--jobs", "1"]) == 1
    c = json.loads((tmp_path / "o3" / "results.json").read_text())["claims"][0]
    assert c["verdict"] == "unknown" and "was refused" in c["evidence"]["reason"]
    p.write_text(head.replace("[-1, 0]", "[nan, 0]") + claim.format(j=4, expr="mistakes == 1", v="rosenblatt", run="{}"))
    capsys.readouterr()
    assert main(["claims", "lint", str(p)]) == 2
    err = capsys.readouterr()
    assert "not a finite number" in err.out + err.err and "internal error" not in err.out + err.err


def test_a_stated_run_learns_on_the_data_as_given_unless_it_states_a_bias(tmp_path):
    """A note with no bias term, its own worked example transcribed with run = { eta = 2 }: the
    stated run is the learner's (no constant coordinate added), so the note's true example holds
    (with the corpus's augmented run it took 2 updates and was refuted); a stated b0 puts the
    bias in an added last coordinate, and augment says so explicitly."""
    p = tmp_path / "c.toml"
    claim = ('[[claim]]\nid = "ex.{j}"\nsection = "s"\nstatement = "s"\nexpr = "{expr}"\nvariants = ["rosenblatt"]\n'
             'datasets = ["abc"]\norders = ["cyclic"]\nwhen = "end"\nrun = {run}\nexpect = "holds"\n\n')
    rows = [("mistakes == 1 and w == vec(2, 2)", "{ eta = 2 }"),
            ("mistakes == 2 and w == vec(4, 2, 0)", "{ eta = 2, b0 = 0 }"),  # C has score 0 with the bias's 1
            ("mistakes == 2 and w == vec(4, 2, 0)", '{ eta = 2, augment = "last" }')]
    p.write_text('[document]\nfile = "n.md"\n\n[[dataset]]\nname = "abc"\npoints = [[1, 1], [2, -1], [-1, 0]]\n'
                 'labels = [1, 1, -1]\n\n' + "".join(claim.format(j=j, expr=e, run=r) for j, (e, r) in enumerate(rows)))
    assert main(["run", "--claims", str(p), "--out", str(tmp_path / "out"), "--quiet", "--jobs", "1"]) == 0
    claims = json.loads((tmp_path / "out" / "results.json").read_text())["claims"]
    assert [c["verdict"] for c in claims] == ["holds on evidence"] * 3, [(c["id"], c["evidence"]) for c in claims]


def test_a_claim_about_the_notes_data_reads_it_as_its_run_sees_it(tmp_path):
    """A claim about the dataset with run = {augment = ...}: R of the points as given (augment =
    "none": R^2 = 10 on the note's points), or with the constant 1 added (R^2 = 11); evaluated on
    the run it states, whatever other runs the file's other claims make on those points first
    (another learning rate, another start: only the data the run sees matters to it)."""
    text = ('[document]\nfile = "warm.md"\n\n[[dataset]]\nname = "warm"\npoints = [[2, 1], [-1, 2], [-2, 0], [3, 1]]\n'
            'labels = [1, -1, -1, 1]\n\n'
            '[[claim]]\nid = "w.stops"\nsection = "s"\nstatement = "s"\nexpr = "mistakes == 3"\nvariants = ["rosenblatt"]\n'
            'datasets = ["warm"]\norders = ["cyclic"]\nwhen = "end"\nrun = { eta = "1/2", w0 = [-1, 1] }\nexpect = "holds"\n\n')
    for cid, r2, augment, expect in (("w.raw", 10, "none", "holds"), ("w.aug", 11, "last", "holds"),
                                     ("w.raw-wrong", 11, "none", "refuted")):
        text += (f'[[claim]]\nid = "{cid}"\nsection = "s"\nstatement = "s"\nexpr = "R2 == {r2}"\nvariants = ["rosenblatt"]\n'
                 f'datasets = ["warm"]\nwhen = "dataset"\nrun = {{ augment = "{augment}" }}\nexpect = "{expect}"\n\n')
    (tmp_path / "c.toml").write_text(text)
    assert main(["run", "--claims", str(tmp_path / "c.toml"), "--out", str(tmp_path / "out"), "--quiet", "--jobs", "1"]) == 0
    got = {c["id"]: c for c in json.loads((tmp_path / "out" / "results.json").read_text())["claims"]}
    assert got["w.stops"]["verdict"] == "holds on evidence"  # 3 mistakes from (-1, 1) at eta = 1/2 (by hand)
    assert got["w.raw"]["verdict"] == got["w.aug"]["verdict"] == "holds on evidence", got
    assert got["w.raw-wrong"]["verdict"] == "refuted"
