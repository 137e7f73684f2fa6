"""Dataset readers: exact values, label mapping, and one clear line for every bad input."""

import json
from fractions import Fraction

import numpy as np
import pytest

from perceptron import InputError, read_dataset
from perceptron.datasets import write_csv
from perceptron.generators import builtin
from verify.cli import main


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_csv_exact_values_and_labels(tmp_path):
    """Decimals, p/q and integers are read as the rationals they spell; {0,1} maps 0 -> -1."""
    p = _write(tmp_path, "a.csv", "x1,x2,label\n0.1,-1/3,1\n2,1e-2,0\n")
    ds = read_dataset(p)
    assert ds.fractions() == [[Fraction(1, 10), Fraction(-1, 3)], [Fraction(2), Fraction(1, 100)]]
    assert list(ds.y) == [1, -1] and ds.label_map == {"0": -1, "1": 1}


def test_libsvm_and_npz(tmp_path):
    """LIBSVM rows fill missing indices with 0; NPZ integer arrays are exact, floats kept as float64."""
    p = _write(tmp_path, "a.svm", "+1 1:0.5 3:2\n-1 2:1/4\n")
    ds = read_dataset(p)
    assert ds.fractions() == [[Fraction(1, 2), 0, 2], [0, Fraction(1, 4), 0]]
    q = str(tmp_path / "a.npz")
    np.savez(q, X=np.array([[1, 2], [3, -4]]), y=np.array([1, -1]))
    assert read_dataset(q).fractions() == [[1, 2], [3, -4]]
    np.savez(q, X=np.array([[0.1, 2.0]]), y=np.array([1]))
    ds = read_dataset(q)
    assert not ds.is_rational and ds.fractions() == [[Fraction(0.1), 2]]


def test_coq_format_with_comments(tmp_path):
    """The CoqPerceptron layout, with '#' comments, 'p % q' and decimals."""
    p = _write(tmp_path, "a.dat", "2 # vectors\n2\n1\n-3 % 7\n1.5\n0 # label\n1/2\n0\n")
    ds = read_dataset(p)
    assert ds.fractions() == [[Fraction(-3, 7), Fraction(3, 2)], [Fraction(1, 2), 0]]
    assert list(ds.y) == [1, -1]


def test_csv_round_trip_keeps_the_hash(tmp_path):
    """Writing a dataset as CSV and reading it back gives the same SHA-256."""
    ds = builtin("separable-d3-g1_10")
    p = str(tmp_path / "s.csv")
    write_csv(ds, p)
    assert read_dataset(p).sha256 == ds.sha256


BAD = [
    ("ragged.csv", "1,2,1\n3,1\n", 2, "ragged row"),
    ("nan.csv", "1,2,1\nnan,1,-1\n", 2, "not a finite number"),
    ("inf.csv", "1,2,1\n1,-inf,-1\n", 2, "not a finite number"),
    ("word.csv", "1,2,1\n1,abc,-1\n", 2, "not a number"),
    ("third.csv", "1,2,1\n1,3,-1\n2,2,0\n", 3, "a third label"),
    ("empty.csv", "", None, "empty file"),
    ("short.dat", "2\n2\n1\n1\n2\n", 5, "dimension mismatch"),
    ("zero.dat", "1\n2\n1\n1/0\n2\n", 4, "zero denominator"),
    ("bad.svm", "1 1:2 x\n", 1, "INDEX:VALUE"),
]


@pytest.mark.parametrize("name,text,line,msg", BAD, ids=[b[0] for b in BAD])
def test_bad_input_one_line_exit_2(tmp_path, capsys, name, text, line, msg):
    """Bad files give exit code 2 and one line: FILE:LINE: problem, no traceback."""
    p = _write(tmp_path, name, text)
    with pytest.raises(InputError) as ei:
        read_dataset(p)
    assert ei.value.line == line and msg in ei.value.message
    assert main(["train", "--data", p]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"proof-audit: {p}" + (f":{line}:" if line else ":"))


def test_unreadable_paths(tmp_path, capsys):
    """A missing path and a directory are reported, exit 2."""
    assert main(["train", "--data", str(tmp_path / "nope.csv")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["train", "--data", str(tmp_path), "--format", "csv"]) == 2
    assert "directory" in capsys.readouterr().err


def test_npz_mismatch(tmp_path):
    """An NPZ whose X and y disagree in length is a dimension mismatch."""
    q = str(tmp_path / "m.npz")
    np.savez(q, X=np.zeros((3, 2)), y=np.array([1, -1]))
    with pytest.raises(InputError, match="dimension mismatch"):
        read_dataset(q)
    np.savez(q, X=np.array([[np.nan, 1.0]]), y=np.array([1]))
    with pytest.raises(InputError, match="NaN"):
        read_dataset(q)


# ---------------------------------------------------------------- data as people have it

from perceptron.labels import ReadOptions, parse_label_map  # noqa: E402

EXPECT = [[Fraction(3, 2), Fraction(-1)], [Fraction(0), Fraction(2)], [Fraction(-1, 4), Fraction(5)]]


@pytest.mark.parametrize("name, text, opts", [
    # pandas DataFrame.to_csv() with its defaults: the index as an unnamed first column
    ("pandas.csv", ",x1,x2,y\n0,1.5,-1.0,1\n1,0.0,2.0,-1\n2,-0.25,5.0,1\n", {}),
    # pandas with default integer column names and index=False
    ("pandas_int.csv", "0,1,2\n1.5,-1,1\n0,2,-1\n-0.25,5,1\n", {}),
    ("tab.tsv", "x1\tx2\tlabel\n1.5\t-1\t1\n0\t2\t-1\n-1/4\t5\t1\n", {}),
    ("space.txt", "1.5 -1  1\n0   2  -1\n-0.25 5 1\n", {}),
    ("semicolon.csv", "1,5;-1;1\n".replace("1,5", "1.5") + "0;2;-1\n-0.25;5;1\n", {}),
    ("first.csv", "label,a,b\n1,1.5,-1\n-1,0,2\n1,-0.25,5\n", {}),  # label named in the header, first
    ("first_noheader.csv", "1,1.5,-1\n-1,0,2\n1,-0.25,5\n", {"label_column": "first"}),
    ("middle.csv", "a,cls,b\n1.5,1,-1\n0,-1,2\n-0.25,1,5\n", {"label_column": "cls"}),
    ("strings.csv", "a,b,class\n1.5,-1,M\n0,2,R\n-0.25,5,M\n", {"label_map": (("M", 1), ("R", -1))}),
    ("yesno.csv", "1.5,-1,yes\n0,2,no\n-0.25,5,Yes\n", {}),
    ("zero_one.csv", "1.5,-1,1\n0,2,0\n-0.25,5,1\n", {}),
])
def test_text_tables_people_have(tmp_path, name, text, opts):
    ds = read_dataset(_write(tmp_path, name, text), options=ReadOptions(**opts))
    assert ds.fractions() == EXPECT
    assert ds.y.tolist() == [1, -1, 1]


def test_pandas_and_scikit_learn_files(tmp_path):
    """The files the tools themselves write: scikit-learn's dump_svmlight_file (zero-based by
    default, and with query ids), and pandas' to_csv when pandas is installed."""
    import numpy as np
    from sklearn.datasets import dump_svmlight_file

    X = np.array([[1.5, -1.0], [0.0, 2.0], [-0.25, 5.0]])
    y = np.array([1, 0, 1])
    p = tmp_path / "sk.svm"
    dump_svmlight_file(X, y, str(p))
    assert "0:" in p.read_text()
    ds = read_dataset(str(p))
    assert ds.fractions() == EXPECT and ds.y.tolist() == [1, -1, 1]
    dump_svmlight_file(X, y, str(p), zero_based=False, query_id=np.array([1, 1, 2]))
    assert "qid:" in p.read_text()
    ds = read_dataset(str(p))
    assert ds.fractions() == EXPECT and ds.y.tolist() == [1, -1, 1]
    try:
        import pandas as pd
    except ImportError:
        return
    df = pd.DataFrame(X, columns=["x1", "x2"])
    df["label"] = ["pos", "neg", "pos"]
    df.to_csv(tmp_path / "pd.csv")
    ds = read_dataset(str(tmp_path / "pd.csv"))
    assert ds.fractions() == EXPECT and ds.y.tolist() == [1, -1, 1]


@pytest.mark.parametrize("text, opts, message", [
    ("1,2,M\n3,4,R\n", {}, "bad.csv:1: label 'M' is not a number (labels seen: 'M', 'R'); say which class is +1 with --label-map M=1,R=-1"),
    ("1,2,M\n3,4,B\n", {"label_map": (("M", 1), ("R", -1))}, "bad.csv:2: label 'B' is not in --label-map (M, R)"),
    ("a,b,c\n1,2,1\n", {"label_column": "z"}, "--label-column 'z': no such column (header: a, b, c)"),
    ("1,2,1\n", {"label_column": "7"}, "--label-column 7: the file has 3 columns"),
    ("x,y,label\n", {}, "no data rows after the header"),
    ("1\t2\t1\n3\t4\n", {}, "bad.csv:2: ragged row: 2 cells where earlier rows have 3"),
])
def test_text_table_problems_are_one_line(tmp_path, text, opts, message):
    with pytest.raises(InputError) as e:
        read_dataset(_write(tmp_path, "bad.csv", text), options=ReadOptions(**opts))
    assert message in str(e.value)


def test_label_map_option(tmp_path, capsys):
    assert parse_label_map("M=1, R=-1") == (("M", 1), ("R", -1))
    for bad in ("M=1", "M=2,R=-1", "M=1,M=-1", "M1,R=-1"):
        with pytest.raises(ValueError):
            parse_label_map(bad)
    from verify.cli import main

    p = _write(tmp_path, "rocks.csv", "a,b,class\n1,0,M\n-1,0,R\n2,1,M\n")
    assert main(["train", "--data", p, "--label-map", "M=1,R=-1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["converged"] is True
    with pytest.raises(SystemExit) as e:
        main(["train", "--data", p, "--label-map", "M=2"])
    assert e.value.code == 2 and "argument --label-map: 'M=2': write LABEL=1 or LABEL=-1" in capsys.readouterr().err


@pytest.mark.parametrize("body,want", [
    ("2\n2\n1\n1 % 2\n-3/4\n0\n5\n7 / 3\n", [[Fraction(1, 2), Fraction(-3, 4)], [5, Fraction(7, 3)]]),  # mixed cells
    ("2\n2\n1\n1/2\n-3/4\n0\n5/1\n7 / 3\n", [[Fraction(1, 2), Fraction(-3, 4)], [5, Fraction(7, 3)]]),  # 'p / q' glued
    ("2\n2\n1\n1\n2\n0\n-5\n9\n", [[1, 2], [-5, 9]]),  # integers only
])
def test_coq_parse_paths_agree(tmp_path, body, want):
    """The byte-level fast parse and the line-by-line parse give the same exact values."""
    p = tmp_path / "v.dat"
    p.write_text(body)
    ds = read_dataset(str(p))
    X, D = ds.exact()
    assert [[Fraction(int(a), D) for a in row] for row in X] == [[Fraction(v) for v in r] for r in want]
    assert list(ds.y) == [1, -1]


@pytest.mark.parametrize("body,line", [
    ("2\n2\n1\n1/2/3\n4\n0\n5/1\n7/3\n", 4),  # two slashes in one cell
    ("2\n2\n1/2\n1/2\n4/1\n0\n5/1\n7/3\n", 3),  # a fractional label
])
def test_coq_cells_the_fast_parse_must_not_accept(tmp_path, body, line):
    """Counts that happen to match must not make the fast parse misread a file: these go to
    the line-by-line parse, which names the line."""
    p = tmp_path / "v.dat"
    p.write_text(body)
    with pytest.raises(InputError) as e:
        read_dataset(str(p))
    assert f":{line}:" in str(e.value) or f"line {line}" in str(e.value)
