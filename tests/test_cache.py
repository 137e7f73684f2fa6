"""A re-run with nothing changed reads the last result (verify.corpus.cache): the same bytes,
nothing run; after an edit, only the claims whose key changed are evaluated, and every output
is a cold run's byte for byte; a cache that is not one is ignored."""

import json
from fractions import Fraction
import os
import subprocess
import sys

import pytest

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
    assert info1["cache"].startswith("0 of 1 claims") and "from the cache" not in out1
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
    assert info["cache"].startswith("0 of 1") and "2*R2/gamma**2" in files["results.json"].decode()
    cache = tmp_path / "out" / ".cache" / "run.json"
    got = json.loads(cache.read_text())
    got["results_text"] = got["results_text"].replace('"claims"', '"claimz"')  # no longer a results file
    cache.write_text(json.dumps(got))
    _, files2, info2 = _run(tmp_path)
    assert not info2["cache"].startswith("hit") and files2 == files
    cache.write_text("not json")
    _, _, info3 = _run(tmp_path)
    assert not info3["cache"].startswith("hit") and os.path.getsize(cache) > 100  # written again


TWO = CLAIMS + '''
[[claim]]
id = "c.update"
section = "s"
statement = "w . w_opt grows by gamma at each update"
expr = "dot(w, w_opt) >= dot(prev(w), w_opt) + gamma"
variants = ["rosenblatt"]
assume = ["separable", "eta_one"]
when = "update"
expect = "holds"
'''


def test_an_edit_re_evaluates_only_that_claim_and_writes_a_cold_runs_bytes(tmp_path):
    """Editing one claim's expression evaluates that claim alone (the other's finding is read
    back) and every report is byte for byte what a cold run of the edited file writes; editing a
    statement (shown from the file) evaluates nothing; a claims.json that is not one (a verdict
    no verdict is, another plan) is ignored and the claims are evaluated."""
    (tmp_path / "c.toml").write_text(TWO)
    _run(tmp_path)
    (tmp_path / "c.toml").write_text(TWO.replace("R2/gamma**2", "2*R2/gamma**2"))
    _, warm, info = _run(tmp_path)
    assert info["cache"].startswith("1 of 2 claims' findings read back (1 evaluated)"), info
    cold_out = tmp_path / "cold"
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", str(tmp_path / "c.toml"), "--out",
                        str(cold_out), "--quiet", "--jobs", "1", "--no-cache"], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert warm == {n: (cold_out / n).read_bytes() for n in warm}
    (tmp_path / "c.toml").write_text(TWO.replace("R2/gamma**2", "2*R2/gamma**2").replace("grows by gamma", "grows"))
    _, files, info = _run(tmp_path)
    assert info["cache"].startswith("2 of 2") and "w . w_opt grows at each update" in files["results.json"].decode()
    claims_cache = tmp_path / "out" / ".cache" / "claims.json"
    got = json.loads(claims_cache.read_text())
    for entry in got["claims"].values():
        entry["verdict"] = "fine"  # not a verdict
    claims_cache.write_text(json.dumps(got))
    (tmp_path / "c.toml").write_text(TWO.replace("R2/gamma**2", "3*R2/gamma**2"))
    _, files2, info2 = _run(tmp_path)
    assert info2["cache"].startswith("0 of 2") and "3*R2/gamma**2" in files2["results.json"].decode()
    (tmp_path / "c.toml").write_text(TWO.replace('variants = ["rosenblatt"]\nassume = ["separable", "eta_one"]',
                                                 'variants = ["rosenblatt", "sign"]\nassume = ["separable", "eta_one", "form_yx"]'))
    _, _, info3 = _run(tmp_path)  # another variant: another corpus plan, every claim evaluated
    assert info3["cache"].startswith("0 of 2"), info3


def test_a_doctored_claims_cache_is_not_read_and_the_run_stays_whole(tmp_path):
    """An entry of claims.json edited (its seal no longer matches: evidence that is not one) is
    evaluated again, as is a corpus part edited; the run succeeds and writes the cache anew (it
    was an internal error on every later run)."""
    (tmp_path / "c.toml").write_text(TWO)
    _run(tmp_path)
    cache = tmp_path / "out" / ".cache"
    got = json.loads((cache / "claims.json").read_text())
    first = next(iter(got["claims"]))
    got["claims"][first]["evidence"] = {"counterexample": 5}
    got["corpus"] = {}
    (cache / "claims.json").write_text(json.dumps(got))
    (tmp_path / "c.toml").write_text(TWO.replace("grows by gamma", "grows"))  # the whole-run key misses
    _, files, info = _run(tmp_path)
    assert info["cache"].startswith("1 of 2"), info
    _, files2, info2 = _run(tmp_path, "--no-cache")
    assert files == files2


def test_a_claim_file_named_by_another_path_is_evaluated_again(tmp_path):
    """Replay commands quote the claim file's path as given: the same file named by another path
    string keys other findings, so a warm run still writes a cold run's bytes."""
    refuted = TWO.replace('expr = "mistakes <= R2/gamma**2"', 'expr = "mistakes <= 0"').replace(
        'expect = "holds"', 'expect = "refuted"', 1)  # a refutation's replay command quotes the path
    (tmp_path / "c.toml").write_text(refuted)
    _run(tmp_path)
    assert f"--claims {tmp_path / 'c.toml'}" in (tmp_path / "out" / "results.json").read_text()
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "c.toml", "--out", str(tmp_path / "out"),
                        "--quiet", "--jobs", "1"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    info = json.loads((tmp_path / "out" / "run_info.json").read_text())
    assert info["cache"].startswith("0 of 2"), info
    assert "--claims c.toml" in (tmp_path / "out" / "results.json").read_text()


def test_an_id_given_in_two_claim_files_is_refused(tmp_path):
    (tmp_path / "a.toml").write_text(CLAIMS)
    (tmp_path / "b.toml").write_text(CLAIMS)
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "a.toml", "b.toml", "--out",
                        str(tmp_path / "out"), "--quiet"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 2 and "b.toml:4:1" in r.stderr and "also given in a.toml:4" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


MIXED = TWO + '''
[[claim]]
id = "c.sign-update"
section = "s"
statement = "the sign variant's w . w_opt grows at each update"
expr = "dot(w, w_opt) > dot(prev(w), w_opt)"
variants = ["sign"]
assume = ["separable", "form_yx"]
when = "update"
expect = "holds"

[[claim]]
id = "c.labels"
section = "s"
statement = "w_opt classifies every point"
expr = "all_i(y*dot(w_opt, x) > 0)"
variants = ["sign"]
assume = ["separable"]
when = "dataset"
expect = "holds"

[[claim]]
id = "c.eta-pair"
section = "s"
statement = "from w = 0 the mistakes do not depend on eta"
variants = ["sign"]
assume = ["w0_zero"]
when = "pair"
pair = "eta"
relation = "same_mistakes"
expect = "holds"
'''


#: The edits: a run claim's bound (slow: the pair, update and dataset edit covers the same path
#: and more kinds of claim in the default run), then a pair relation, an update and a dataset claim.
EDITS = [pytest.param([("2*R2", "R2")], marks=pytest.mark.slow, id="bound"),
         pytest.param([('relation = "same_mistakes"', 'relation = "same_decisions"'),
                       ("dot(prev(w), w_opt)\"", "dot(prev(w), w_opt) + 0\""),
                       ("y*dot(w_opt, x) > 0", "y*dot(w_opt, x) >= 0")], id="pair-update-dataset")]


@pytest.mark.parametrize("edit", EDITS)
def test_an_edit_makes_only_the_runs_its_claim_is_about(tmp_path, monkeypatch, edit):
    """After an edit, the runs of variants the edited claims are not about are counted, not made
    (each claim finds them not applicable, as a replay would), and the certificates and second
    separators are the cache's (no program solved again, but for a pair claim's partner runs);
    the findings, for claims of every kind
    (run, update, dataset, pair, separator), are a cold run's byte for byte."""
    import verify.corpus.audit as audit_mod
    import verify.replay.dispatch as dispatch
    from verify.corpus.cache import audit_reusing
    from verify.language.claims import load_claims
    from verify.report.results import results_dict

    path = tmp_path / "c.toml"

    def run(text, cache=True):
        path.write_text(text)
        claims = load_claims(str(path)).claims
        # (depth 1: what the cache keeps is the point here, not how deep each claim is searched)
        if not cache:
            got = audit_mod.audit([str(path)], jobs=1, quiet=True, figures=False, depth=1)
        else:
            got = audit_reusing([str(path)], claims, str(tmp_path / "cache"), {"depth": 1}, figures=False, jobs=1,
                                quiet=True, depth=1)
        findings, corpus, _ = got
        return json.dumps(results_dict(findings, {c.id: c for c in claims}, corpus), sort_keys=True)

    made = []
    train = audit_mod.train
    monkeypatch.setattr(audit_mod, "train", lambda ds, params, rec=None: made.append(params.variant) or train(ds, params, rec))
    run(MIXED)
    cold_runs = len(made)
    assert {"rosenblatt", "sign"} <= set(made)
    solved = []
    for mod, name in ((dispatch, "certify"), (audit_mod, "alternative_separator")):
        fn = getattr(mod, name)
        monkeypatch.setattr(mod, name, lambda *a, _fn=fn, _n=name, **k: solved.append(_n) or _fn(*a, **k))
    for edit in [edit]:
        text = MIXED.replace("R2/gamma**2", "2*R2/gamma**2")
        path.write_text(text)
        run(text)  # the cache of this text
        made.clear()
        solved.clear()
        dispatch._CERTIFICATES.clear()  # (what this process remembers: a warm re-run is a new process)
        edited = text
        for old, new in edit:
            assert old in edited
            edited = edited.replace(old, new, 1)
        warm = run(edited)
        assert 0 < len(made) < cold_runs, (edit, len(made), cold_runs)
        assert not solved or "relation" in edit[0][0], solved  # (a pair claim's partner runs certify their data)
        assert warm == run(edited, cache=False), edit
        assert {"certify", "alternative_separator"} <= set(solved)  # (a cold run solves them: the test sees it)


def test_a_forged_certificate_in_the_cache_is_verified_and_solved_again(tmp_path):
    """claims.json's certificates forged and sealed again (the seal is a digest anyone can
    recompute): a separator's margin, a gamma_hi without the hull it came from, a separable one
    without its separator.  Each cached certificate is verified exactly against its data
    before use, so the re-run after an edit solves the forged ones again and its findings are a
    cold run's; one that is not a certificate at all makes every run again."""
    import hashlib

    from verify.corpus.audit import audit
    from verify.corpus.cache import audit_reusing
    from verify.language.claims import load_claims
    from verify.report.results import results_dict

    path = tmp_path / "c.toml"
    cache = tmp_path / "cache"

    def run(text, cached=True):
        path.write_text(text)
        claims = load_claims(str(path)).claims
        got = audit_reusing([str(path)], claims, str(cache), {}, figures=False, jobs=1, quiet=True) if cached else \
            audit([str(path)], jobs=1, quiet=True, figures=False)
        return json.dumps(results_dict(got[0], {c.id: c for c in claims}, got[1]), sort_keys=True)

    def forge(fn):
        data = json.loads((cache / "claims.json").read_text())
        fn(data["certificates"]["certs"])
        rest = [data["corpus"], data["figures"], data["run_info"], data["certificates"]]
        data["seal"] = hashlib.sha256(json.dumps([data["plan"], rest], sort_keys=True).encode()).hexdigest()
        (cache / "claims.json").write_text(json.dumps(data))

    def separable(certs):
        return [st for _, st in certs if st["kind"] == "separable" and st["hull_weights"]]

    def margin(certs):
        st = separable(certs)[0]
        st["m"] = str(2 * Fraction(st["m"]))  # a wider margin than the separator has

    def gamma_hi(certs):
        for st in separable(certs):
            st["gamma_hi"] = [[1, "1000"]]  # gamma* <= 1000: true, but not the hull's |z|

    def no_separator(certs):
        separable(certs)[0]["v"] = None

    edited = TWO.replace("R2/gamma**2", "2*R2/gamma**2")
    cold = run(edited, cached=False)
    for doctor in (margin, gamma_hi, no_separator):
        run(TWO)
        forge(doctor)
        assert run(edited) == cold, doctor.__name__


def test_a_cache_file_edited_a_fifo_or_a_device_is_ignored_and_report_refuses_them(tmp_path):
    """run.json edited without its seal (a finding rewritten) is not read; a FIFO (which blocks
    a reader forever) or a link to /dev/zero (which never ends) in place of either cache file is
    ignored, never read, and the run is whole (a link there is refused in one line, never
    written through); ``report`` refuses a results.json that is one, in
    one line (the newcomer's hang and MemoryError)."""
    (tmp_path / "c.toml").write_text(CLAIMS)
    _, files, _ = _run(tmp_path)
    cache = tmp_path / "out" / ".cache"
    got = json.loads((cache / "run.json").read_text())
    got["results_text"] = got["results_text"].replace("mistakes <= R^2/gamma^2", "forged")
    (cache / "run.json").write_text(json.dumps(got))
    out, files2, info = _run(tmp_path)
    assert not info["cache"].startswith("hit") and files2 == files and "forged" not in out
    for name in ("run.json", "claims.json"):
        (cache / name).unlink()
        os.mkfifo(cache / name)
    _, files3, info3 = _run(tmp_path)  # (_run's timeout would end a hang)
    assert info3["cache"].startswith("0 of 1") and files3 == files
    # a link in place of a cache file is neither read nor written through: one line, exit 2
    (cache / "claims.json").unlink()
    os.symlink("/dev/zero", cache / "claims.json")
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", str(tmp_path / "c.toml"), "--out",
                        str(tmp_path / "out"), "--quiet", "--jobs", "1"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "symbolic link" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert os.path.islink(cache / "claims.json")
    (cache / "claims.json").unlink()
    results = tmp_path / "out" / "results.json"
    results.unlink()
    os.mkfifo(results)
    r = subprocess.run([sys.executable, "-m", "verify", "report", "--out", str(tmp_path / "out")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "is a FIFO, not a regular results file" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
