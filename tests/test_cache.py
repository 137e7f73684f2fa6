"""A re-run with nothing changed reads the last result (verify.corpus.cache): the same bytes,
nothing run; any change of an input, or a cache that is not one, runs the audit cold."""

import json
import os
import subprocess
import sys

CLAIMS = '''[document]
file = "n.md"

[[claim]]
id = "c.bound"
section = "s"
statement = "mistakes <= R^2/gamma^2"
expr = "mistakes <= R2/gamma**2"
variants = ["rosenblatt"]
assume = ["separable", "w0_zero"]
when = "end"
expect = "holds"
'''


def _run(tmp_path, *extra):
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", str(tmp_path / "c.toml"), "--out",
                        str(tmp_path / "out"), "--quiet", "--jobs", "1", *extra], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = tmp_path / "out"
    info = json.loads((out / "run_info.json").read_text())
    return r.stdout, {n: (out / n).read_bytes() for n in ("results.json", "index.html", "report.md")}, info


def test_a_warm_run_reads_the_cache_and_writes_the_same_bytes(tmp_path):
    (tmp_path / "c.toml").write_text(CLAIMS)
    out1, files1, info1 = _run(tmp_path)
    assert "cache" not in info1 and "from the cache" not in out1
    out2, files2, info2 = _run(tmp_path)
    assert info2["cache"].startswith("hit") and "from the cache: nothing changed" in out2
    assert files1 == files2
    # --no-cache runs cold
    _, files3, info3 = _run(tmp_path, "--no-cache")
    assert "cache" not in info3 and files3 == files1


def test_an_edited_claim_or_a_broken_cache_runs_cold(tmp_path):
    (tmp_path / "c.toml").write_text(CLAIMS)
    _run(tmp_path)
    (tmp_path / "c.toml").write_text(CLAIMS.replace("R2/gamma**2", "2*R2/gamma**2"))
    _, files, info = _run(tmp_path)
    assert "cache" not in info and "2*R2/gamma**2" in files["results.json"].decode()
    cache = tmp_path / "out" / ".cache" / "run.json"
    got = json.loads(cache.read_text())
    got["results_text"] = got["results_text"].replace('"claims"', '"claimz"')  # no longer a results file
    cache.write_text(json.dumps(got))
    _, files2, info2 = _run(tmp_path)
    assert "cache" not in info2 and files2 == files
    cache.write_text("not json")
    _, _, info3 = _run(tmp_path)
    assert "cache" not in info3 and os.path.getsize(cache) > 100  # written again
