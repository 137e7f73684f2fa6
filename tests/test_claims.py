"""Claim files: the built-in transcriptions, lint messages, and hostile files."""

import textwrap

import pytest

from verify.language.claims import ClaimError, builtin_claim_files, load_claims
from verify.language.lint import lint
from verify.cli import main


def _write(tmp_path, text, name="c.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def test_builtin_files_are_clean_and_cover_the_notes():
    """Five files, one per note, lint-clean; every claim cites its note and section."""
    files = builtin_claim_files()
    assert len(files) == 5
    assert lint(files) == []
    docs = set()
    for f in files:
        cf = load_claims(f)
        docs.add(cf.document)
        for c in cf.claims:
            assert c.section and c.statement and c.document in c.citation
    assert docs == {"000_498759e4a63d39ab.txt", "001_4bd9d34a28090ba4.txt", "002_a62594a0d59ae7dd.txt",
                    "003_42f814f55e0b3de4.txt", "004_aaffe0f0b005f89e.txt"}


def test_required_transcriptions_present():
    """The proofs' inequalities named in DESIGN.md are each their own claim."""
    ids = {c.id for f in builtin_claim_files() for c in load_claims(f).claims}
    for cid in ["000.numerator.step", "000.numerator.bound", "000.denominator.step", "000.denominator.bound",
                "000.denominator.norm", "000.cos.bound", "000.iterations", "001.lemma1", "001.lemma1.b-opt",
                "001.lemma2", "001.lemma2.line3", "001.lemma3", "001.lemma3.line5", "001.theorem.chain4",
                "001.theorem.final-as-written", "001.theorem.bound", "002.lower.cauchy-schwarz",
                "002.upper.step", "002.conclusion.bound", "004.proof.norm-step", "004.proof.sandwich",
                "004.theorem1", "003.distance.example3.point", "003.pocket.minimizes", "003.kernel.solution"]:
        assert cid in ids, cid


def test_corrected_claims_point_at_wrong_ones():
    """Every claim expected to be refuted on evidence has a corrected statement beside it or a note."""
    for f in builtin_claim_files():
        cf = load_claims(f)
        corrected = {c.corrects for c in cf.claims if c.corrects}
        for c in cf.claims:
            if c.expect == "refuted":
                assert c.note, c.id
                assert c.id in corrected or c.when in ("symbolic", "end", "dataset", "update"), c.id


def test_lint_reports_file_line_col(tmp_path, capsys):
    """Problems come out as FILE:LINE:COL: message, exit code 2."""
    p = _write(tmp_path, '''
        [document]
        file = "n.md"

        [[claim]]
        id = "a"
        section = "s"
        statement = "t"
        expr = "k <= R/gama"
        variants = ["rosenblatt"]
        when = "end"
        expect = "holds"

        [[claim]]
        id = "a"
        section = "s"
        statement = "t"
        expr = "k <= 1"
        variants = ["perceptronx"]
        when = "sometimes"
        expect = "maybe"
        ''')
    assert main(["claims", "lint", p]) == 2
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith(f"{p}:9:") and "unknown name 'gama'" in line for line in out), out
    assert any(line.startswith(f"{p}:15:") and "duplicate id" in line for line in out), out
    assert any(line.startswith(f"{p}:19:") and "unknown variant" in line for line in out), out
    assert any(line.startswith(f"{p}:20:") and "when" in line for line in out), out
    assert any(line.startswith(f"{p}:21:") and "expect" in line for line in out), out


def test_toml_syntax_error_located(tmp_path):
    """A TOML syntax error names its line."""
    p = _write(tmp_path, '[document]\nfile = "x"\n[[claim]]\nid = "a\n')
    errs = lint([p])
    assert len(errs) == 1 and errs[0].line == 4


def test_hostile_claim_file_runs_nothing(tmp_path, capsys):
    """A claim whose expression would create a file if evaluated is rejected; no file appears."""
    target = tmp_path / "pwned"
    p = _write(tmp_path, f'''
        [document]
        file = "evil.md"

        [[claim]]
        id = "evil"
        section = "s"
        statement = "t"
        expr = "__import__('os').system('touch {target}') == 0"
        variants = ["rosenblatt"]
        when = "end"
        expect = "holds"

        [[claim]]
        id = "evil2"
        section = "s"
        statement = "t"
        expr = "open('{target}', 'w').write('x') > 0"
        variants = ["rosenblatt"]
        when = "end"
        expect = "holds"
        ''')
    trace = str(tmp_path / "t.jsonl")
    assert main(["train", "--data", "builtin:worked-example", "--trace", trace]) == 0
    assert main(["claims", "lint", p]) == 2
    assert capsys.readouterr().out.count("in expr:") == 2
    assert main(["run", "--claims", p, "--out", str(tmp_path / "r"), "--quiet"]) == 2
    assert main(["check", "--data", "builtin:worked-example", "--trace", trace, "--claims", p]) == 2
    assert not target.exists()


def test_oversized_claim_file(tmp_path):
    """A file over the size limit is refused before parsing."""
    p = tmp_path / "big.toml"
    p.write_text("# " + "x" * (1 << 20) + "\n")
    errs = lint([str(p)])
    assert errs and "exceeds the limit" in errs[0].message


def test_huge_exponent_in_file(tmp_path):
    """10**10**10 in a claim is refused by the checker, located at its column."""
    p = _write(tmp_path, '''
        [document]
        file = "n.md"

        [[claim]]
        id = "pow"
        section = "s"
        statement = "t"
        expr = "k <= 10**10**10"
        variants = ["rosenblatt"]
        when = "end"
        expect = "holds"
        ''')
    with pytest.raises(ClaimError) as ei:
        load_claims(p)
    assert ei.value.line == 9 and "exponent" in ei.value.message


def test_a_document_table_without_its_file_says_so(tmp_path):
    path = tmp_path / "c.toml"
    for doc, says in (('title = "x"', "[document] needs file"), ("file = 3", "[document] file must be a string")):
        path.write_text(f'[document]\n{doc}\n\n[[claim]]\nid = "a"\nsection = "s"\nstatement = "s"\nwhen = "once"\n'
                        'expr = "1 == 1"\nexpect = "holds"\n')
        problems = lint([str(path)])
        assert len(problems) == 1 and says in str(problems[0]), problems


def test_lint_advises_on_a_bias_read_on_a_variant_without_one(tmp_path, capsys):
    """A newcomer's true remark ("every update changes b by exactly eta") on the rosenblatt rule
    with augment = "last" was refuted: b is 0 there, the bias being w's last coordinate.  lint
    says so, and says nothing of the same claim on a variant with a bias."""
    from verify.cli import main

    claim = ('[[claim]]\nid = "{id}"\nsection = "s"\nstatement = "s"\nwhen = "update"\nvariants = ["{v}"]\n'
             'expr = "abs(b - prev(b)) == eta"\nexpect = "holds"\n\n')
    path = tmp_path / "c.toml"
    path.write_text('[document]\nfile = "n.md"\n\n' + claim.format(id="c.plain", v="rosenblatt")
                    + claim.format(id="c.bias", v="novikoff"))
    assert main(["claims", "lint", str(path)]) == 0
    out = capsys.readouterr().out
    assert "c.plain: it reads b, which is 0 on every run of rosenblatt" in out and "c.bias:" not in out, out


def test_assumptions_on_one_quantity_apply_as_before_the_objects():
    """Two assumptions on one quantity: the one the old code checked first wins, whatever the
    order the claim lists them (sign0_zero over sign0_nonzero, form_yx over form_half, eta_one
    over eta_le_one), in the coverage text and in the search domain alike."""
    from types import SimpleNamespace

    from verify.language.assumptions import eta_bound, fixed, narrowed

    for assume in (("sign0_nonzero", "sign0_zero", "form_half", "form_yx", "eta_le_one", "eta_one"),
                   ("sign0_zero", "sign0_nonzero", "form_yx", "form_half", "eta_one", "eta_le_one")):
        c = SimpleNamespace(assume=assume)
        assert fixed(c) == {"sign0": "fixed: 0", "form": "fixed: eta y x", "eta": "fixed: 1"}
        assert narrowed(c) == {"sign0s": (0,), "forms": ("yx",), "etas": ("1",)}
        assert eta_bound(c) == 1
    c = SimpleNamespace(assume=("w0_zero", "unit_norm"))
    assert fixed(c) == {"w0": "fixed: 0"} and narrowed(c) == {"w0_box": 0, "unit": True}
