"""proof-audit train: the one-line JSON summary and the trace it writes."""

import json
import subprocess
import sys

from verify.cli import main


def test_json_summary(tmp_path, capsys):
    """--json prints variant, updates, epochs, converged, w, b (p/q strings) and the dataset hash."""
    out = str(tmp_path / "t.npz")
    assert main(["train", "--data", "builtin:separable-d3-bias", "--variant", "novikoff", "--eta", "1/2",
                 "--trace", out, "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    for key in ("variant", "updates", "epochs", "converged", "w", "b", "dataset_sha256"):
        assert key in s
    assert s["variant"] == "novikoff" and s["converged"] is True
    assert all(isinstance(v, str) for v in s["w"]) and isinstance(s["b"], str)


def test_python_dash_m_is_the_same_cli():
    """python -m verify runs the same parser."""
    r = subprocess.run([sys.executable, "-m", "verify", "train", "--data", "builtin:worked-example", "--order", "first", "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["updates"] == 4 and s["w"] == ["2", "4"]


def test_bad_parameters_exit_2(capsys):
    """An impossible combination is one line and exit code 2."""
    assert main(["train", "--data", "builtin:worked-example", "--variant", "slides", "--eta", "3/2"]) == 2
    assert "eta in (0, 1]" in capsys.readouterr().err
    assert main(["train", "--data", "builtin:worked-example", "--order", "sideways"]) == 2
    assert main(["train", "--data", "builtin:nope"]) == 2


def test_a_run_the_data_do_not_allow_is_one_line_naming_the_data(tmp_path, capsys):
    """The unit variant on points of irrational norm, a sequence naming a point the data lack:
    the data's fault, said in one line that names the data file (it named no file)."""
    data = tmp_path / "d.txt"
    data.write_text("1 2 +1\n3 4 -1\n")
    for opts, says in ((["--variant", "unit"], "not the square of a rational"), (["--order", "sequence:5"], "names point 5")):
        assert main(["train", "--data", str(data), *opts]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"proof-audit: {data}: ") and says in err and len(err.splitlines()) == 1, err
