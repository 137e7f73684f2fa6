"""Iterative deepening (issue 38): the default audit searches each claim in growing scopes within a
deterministic per-claim budget and names the largest scope completed; `run --depth` and
[tool.proof-audit] depth ask for more.  Oracle: the claim below is false only on runs of more
than four updates, which the audit's old single domain (2 points, box 2, 4 updates) cut short."""

import json
import subprocess
import sys

import pytest

from verify.searching.scopes import (DEFAULT_DEPTH, DEPTHS, FLOOR_CANDIDATES, LADDER, OVERRUN, Scope, deepen, foreseen,
                                     growth)

#: "on two points the perceptron makes at most four mistakes": false (the points (-1, 0) and
#: (1, -1), both +1, take five updates from w = 0), and no corpus dataset has two points.
FIVE = '''[document]
file = "n.md"

[[claim]]
id = "p.five"
section = "1"
statement = "on two points the perceptron makes at most four mistakes"
when = "end"
given = "n <= 2"
expr = "mistakes <= 4"
variants = ["rosenblatt"]
assume = ["separable", "w0_zero", "eta_one"]
expect = "holds"

[[claim]]
id = "p.radius"
section = "1"
statement = "no point is farther from 0 than R (a claim about datasets: it has no run)"
when = "dataset"
expr = "all_i(norm2(x) <= R2)"
expect = "holds"

[[claim]]
id = "p.norm"
section = "1"
statement = "the norm squared is at most t R squared after t visits"
when = "update"
expr = "norm2(w) <= t*R2"
variants = ["rosenblatt"]
assume = ["w0_zero", "eta_one"]
expect = "holds"
'''


def _audit(tmp_path, *extra):
    p = tmp_path / "c.toml"
    p.write_text(FIVE)
    (tmp_path / "n.md").write_text("# n\n")
    out = tmp_path / ("o" + "".join(extra).replace("-", "_"))
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", str(p), "--out", str(out), "--quiet",
                        "--no-cache", *extra], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    return r, out


def test_the_ladder_grows_and_the_budgets_grow_tenfold():
    assert LADDER[0].points == 1
    for a, b in zip(LADDER, LADDER[1:]):
        assert (b.points, b.box, b.max_updates) >= (a.points, a.box, a.max_updates)
        assert (b.points, b.box, b.max_updates) != (a.points, a.box, a.max_updates)
    assert any(s.points >= 3 and s.box >= 3 and s.max_updates >= 10 for s in LADDER)
    for d in range(1, 4):
        assert DEPTHS[d + 1].candidates == 10 * DEPTHS[d].candidates or d == 1
        assert DEPTHS[d + 1].runs >= DEPTHS[d].runs
    # a scope is foreseen from the one before by the ratio of their datasets: more points, more
    assert foreseen(1000, Scope(2, 2, 10, 3), Scope(3, 2, 10, 3)) > 10_000
    assert foreseen(1000, Scope(2, 2, 4, 3), Scope(2, 2, 10, 3)) == 1000


def test_the_foresight_measures_how_the_candidates_grew():
    """A scope is foreseen from the last step that grew the same thing (points, or the box): its
    candidates grew 8 times where its datasets grew ``d``, so 8/d of the datasets' ratio."""
    s114, s214, s224, s2210, s3210 = Scope(1, 1, 4, 3), Scope(2, 1, 4, 3), Scope(2, 2, 4, 3), Scope(2, 2, 10, 3), \
        Scope(3, 2, 10, 3)
    d = foreseen(30, s114, s214) / 30  # the datasets' ratio of one more point
    done = [(30, s114), (240, s214), (1000, s224), (1100, s2210)]
    assert growth(done, s3210, False) == pytest.approx(8 / d)
    assert growth(done, Scope(2, 3, 10, 3), False) == pytest.approx((1000 / 240) / (foreseen(240, s214, s224) / 240))
    assert growth(done[:1], s214, False) is None  # nothing measured yet
    assert foreseen(1100, s2210, s3210, False, 8 / d) == pytest.approx(foreseen(1100, s2210, s3210) * 8 / d, rel=1e-6)


def test_a_scope_past_its_foresight_is_stopped_there_as_probed():
    """A scope started on a measured foresight that takes more than OVERRUN times it stops there
    (its candidates counted, 'probed'), and the rest of the budget is not spent on it."""
    from types import SimpleNamespace

    from verify.searching.domain import Domain
    from verify.verdicts import Verdict

    need = {(1, 1, 4): 30, (2, 1, 4): 240, (2, 2, 4): 1000, (2, 2, 10): 1100, (3, 2, 10): 10**9}
    asked = {}

    def fake_search(claim, dom, engine, timeout, max_exact, max_candidates):
        key = (dom.points, dom.box, dom.max_updates)
        asked[key] = max_candidates
        if need.get(key, 10**9) > max_candidates:
            return SimpleNamespace(walked=0, verdict=Verdict.UNKNOWN, checked=max_candidates, domain={}, reason="unknown: limit reached")
        return SimpleNamespace(walked=0, verdict=Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, checked=need[key], domain={"n": key},
                               reason="")

    got = deepen(SimpleNamespace(when="update"), Domain(points=1, dim=2, box=1, max_updates=4), 2, fake_search, 60)
    last = got.scopes[-1]
    ahead = foreseen(1100, Scope(2, 2, 10, 3), Scope(3, 2, 10, 3), False, growth(
        [(30, Scope(1, 1, 4, 3)), (240, Scope(2, 1, 4, 3)), (1000, Scope(2, 2, 4, 3)), (1100, Scope(2, 2, 10, 3))],
        Scope(3, 2, 10, 3), False))
    assert (last["points"], last["box"], last["max_updates"]) == (3, 2, 10) and last["verdict"] == "probed"
    assert asked[(3, 2, 10)] == -(-OVERRUN * ahead // 1) < DEPTHS[2].candidates - 2370
    assert "given at most 3 x that, it did not complete" in last["reason"]
    assert (got.scopes[-2]["points"], got.scopes[-2]["max_updates"]) == (2, 10)


def test_the_scopes_up_to_the_floor_have_the_floors_budget_and_past_it_the_depths():
    """A claim whose scopes up to (3, 3, 10) take more than the depth's budget but less than
    FLOOR_CANDIDATES completes (3, 3, 10) at the default depth; the scope past it is not started
    (the depth's budget is spent), and says so; at depth 1 the floor is not given."""
    from types import SimpleNamespace

    from verify.searching.domain import Domain
    from verify.verdicts import Verdict

    done = [(300, Scope(1, 1, 4, 3)), (2400, Scope(2, 1, 4, 3)), (10_000, Scope(2, 2, 4, 3)), (11_000, Scope(2, 2, 10, 3))]
    for s in (Scope(3, 2, 10, 3), Scope(3, 3, 10, 3)):  # each as foreseen from the ones before
        done.append((foreseen(*done[-1], s, False, growth(done, s, False) or 1.0), s))
    need = {(s.points, s.box, s.max_updates): n for n, s in done}
    assert DEPTHS[2].candidates < sum(need.values()) < FLOOR_CANDIDATES

    def fake_search(claim, dom, engine, timeout, max_exact, max_candidates, need=need):
        key = (dom.points, dom.box, dom.max_updates)
        if need.get(key, 10**12) > max_candidates:
            return SimpleNamespace(walked=0, verdict=Verdict.UNKNOWN, checked=max_candidates, domain={}, reason="unknown: limit reached")
        return SimpleNamespace(walked=0, verdict=Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, checked=need[key], domain={"n": key},
                               reason="")

    got = deepen(SimpleNamespace(when="update"), Domain(points=1, dim=2, box=1, max_updates=4), 2, fake_search, 60)
    done = [(s["points"], s["box"], s["max_updates"]) for s in got.scopes if s["verdict"] == "no counterexample in domain"]
    assert done[-1] == (3, 3, 10), got.scopes
    assert got.scopes[-1]["verdict"] == "not started" and "allows past the scope of 3 points" in got.scopes[-1]["reason"]
    # where the scopes to the floor are foreseen past its budget, the claim keeps the depth's
    asked = []
    big = {key: n * 40 for key, n in need.items()}
    far = deepen(SimpleNamespace(when="update"), Domain(points=1, dim=2, box=1, max_updates=4), 2,
                 lambda c, dom, **kw: asked.append(kw["max_candidates"]) or fake_search(c, dom, **{**kw, "need": big}), 60)
    assert sum(x["candidates"] for x in far.scopes) <= DEPTHS[2].candidates, far.scopes
    assert far.scopes[-1]["verdict"] in ("probed", "not started") and max(asked[1:]) <= DEPTHS[2].candidates
    shallow = deepen(SimpleNamespace(when="update"), Domain(points=1, dim=2, box=1, max_updates=4), 1, fake_search, 60)
    assert (3, 3, 10) not in [(s["points"], s["box"], s["max_updates"]) for s in shallow.scopes
                              if s["verdict"] == "no counterexample in domain"]


def test_a_claim_false_only_past_four_updates_is_refuted_by_the_default_audit(tmp_path):
    """Refuted by the default audit, with a replay command that reproduces the counterexample;
    the old single domain (kept as [tool.proof-audit.search]) does not refute it."""
    r, out = _audit(tmp_path)
    assert r.returncode == 1, r.stderr
    claims = {c["id"]: c for c in json.loads((out / "results.json").read_text())["claims"]}
    five = claims["p.five"]
    assert five["verdict"] == "refuted", five
    assert len(five["evidence"]["counterexample"]["search"]["updates"]) > 4  # beyond the old domain's runs
    replay = five["evidence"]["replay"]
    assert "--max-updates 10" in replay
    argv = replay.split()
    assert argv[:2] == ["proof-audit", "search"]
    rr = subprocess.run([sys.executable, "-m", "verify", *argv[1:]], capture_output=True, text=True, cwd=tmp_path,
                        timeout=600)
    assert rr.returncode == 1 and "mistakes = 5 <= 4" in rr.stdout, rr.stdout + rr.stderr
    # the norm claim holds: its verdict names the largest scope completed, as fields and text
    norm = claims["p.norm"]
    assert norm["verdict"] == "no counterexample in domain"
    scope, scopes = norm["evidence"]["scope"], norm["evidence"]["search"]["scopes"]
    assert scope["points"] >= 2 and scope["max_updates"] >= 10
    assert [s["points"] for s in scopes] == sorted(s["points"] for s in scopes)
    assert norm["evidence"]["search"]["depth"] == 2
    # a claim about datasets has no run: its scope names no updates, w0 or rate, in the fields and the text
    radius = claims["p.radius"]
    assert radius["verdict"] == "no counterexample in domain" and radius["evidence"]["scope"]["points"] >= 3
    assert not {"max_updates", "w0_box", "etas", "order"} & set(radius["evidence"]["scope"]), radius["evidence"]["scope"]
    line = next(ln for ln in (out / "report.md").read_text().splitlines() if "p.radius" in ln)
    assert "points in" in line and "updates" not in line, line
    # the old domain: 2 points, box 2, 4 updates, given as the project's one search domain
    (tmp_path / "pyproject.toml").write_text('[tool.proof-audit.search]\npoints = 2\nbox = 2\nmax-updates = 4\n'
                                             'sep-box = 3\n')
    r2, out2 = _audit(tmp_path, "--jobs", "1")
    claims2 = {c["id"]: c for c in json.loads((out2 / "results.json").read_text())["claims"]}
    assert claims2["p.five"]["verdict"] != "refuted", claims2["p.five"]["verdict"]


def test_results_are_the_same_for_one_and_two_workers_and_depth_is_asked_for(tmp_path):
    """The budget counts candidates, not seconds: one worker or two, the same bytes; --depth 1
    searches less deep than the default, and the depth is in results.json's corpus."""
    # p.norm for every w0 and eta: a search whose scopes the depth's budget decides
    any_run = FIVE.replace('expect = "holds"\n', 'expect = "refuted"\n', 1).replace(
        'expr = "norm2(w) <= t*R2"\nvariants = ["rosenblatt"]\nassume = ["w0_zero", "eta_one"]',
        'expr = "norm2(w) <= norm2(w0) + eta*eta*t*R2"\nvariants = ["rosenblatt"]\nassume = []')
    assert "eta*eta*t*R2" in any_run
    (tmp_path / "c.toml").write_text(any_run)
    (tmp_path / "n.md").write_text("# n\n")
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"o{jobs}"
        r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "c.toml", "--out", str(out),
                            "--quiet", "--no-cache", "--jobs", jobs], capture_output=True, text=True, cwd=tmp_path,
                           timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
        outs.append((out / "results.json").read_bytes())
    assert outs[0].replace(b"o1/replays", b"OUT/replays") == outs[1].replace(b"o2/replays", b"OUT/replays")
    res = {2: json.loads(outs[0])}
    for depth in (1, 3):
        out = tmp_path / f"d{depth}"
        r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", "c.toml", "--out", str(out), "--quiet",
                            "--no-cache", "--depth", str(depth)], capture_output=True, text=True, cwd=tmp_path,
                           timeout=600)
        res[depth] = json.loads((out / "results.json").read_text())
    reached = {}
    for depth, got in res.items():
        assert got["corpus"]["search_depth"]["depth"] == depth
        norm = {c["id"]: c for c in got["claims"]}["p.norm"]["evidence"]
        spent = sum(s["candidates"] for s in norm["search"]["scopes"])
        assert spent <= (max(DEPTHS[depth].candidates, FLOOR_CANDIDATES) if depth >= DEFAULT_DEPTH else DEPTHS[depth].candidates)
        reached[depth] = (norm["scope"]["points"], norm["scope"]["box"], norm["scope"]["max_updates"])
    assert reached[1] <= reached[2] <= reached[3] and reached[1] < reached[3], reached


@pytest.mark.parametrize("bad", ["0", "5", "x"])
def test_a_depth_out_of_range_is_one_line(tmp_path, bad):
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--depth", bad, "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "--depth" in r.stderr and "Traceback" not in r.stderr
    value = '"x"' if bad == "x" else bad
    (tmp_path / "pyproject.toml").write_text(f"[tool.proof-audit]\ndepth = {value}\n")
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--out", str(tmp_path / "o")], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2 and "pyproject.toml" in r.stderr and "depth" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_the_reason_names_the_scope_and_what_stopped_the_next(tmp_path):
    from verify.report.claim_text import coverage_text, scope_text

    assert scope_text({"points": 3, "box": 3, "dim": 2, "max_updates": 10, "w0_box": 1, "etas": ["1/2", "1", "2"]}) \
        == "up to 3 points in [-3, 3]^2, 10 updates, w0 in [-1, 1]^2, eta in {1/2, 1, 2}"
    c = {"verdict": "no counterexample in domain", "evidence": {
        "scope": {"points": 2, "box": 2, "dim": 2, "max_updates": 10, "w0_box": 0},
        "domain_text": "D", "search": {"scopes": [
            {"points": 2, "box": 2, "max_updates": 10, "candidates": 10, "verdict": "no counterexample in domain"},
            {"points": 3, "box": 2, "max_updates": 10, "candidates": 0, "verdict": "not started",
             "reason": "foreseen to take about 99 candidates"}]}}}
    text = coverage_text(c)
    assert text.startswith("no counterexample up to 2 points in [-2, 2]^2, 10 updates, w0 = 0 (the next scope, "
                           "3 points in [-2, 2]^2, 10 updates, was not started: foreseen to take about 99")


CLOSED = '''[document]
file = "n.md"

[[claim]]
id = "c.sum"
section = "1"
statement = "-1 + 0.5 = -0.5"
when = "update"
variants = ["rosenblatt"]
expr = "-1 + 0.5 == -0.5"
expect = "holds"

[[claim]]
id = "c.sum-wrong"
section = "1"
statement = "-1 + 0.5 = 0.5"
when = "update"
variants = ["rosenblatt"]
expr = "-1 + 0.5 == 0.5"
expect = "refuted"

[[claim]]
id = "c.premise"
section = "1"
statement = "after the first update, 2 * 3 = 6"
when = "update"
variants = ["rosenblatt"]
given = "k >= 1"
expr = "2 * 3 == 6"
expect = "holds"
'''


def test_a_closed_statement_written_about_runs_is_proved_once_not_searched(tmp_path):
    """A statement that reads nothing of the run (no names) has one value at every step: a true
    one is proved by its one exact evaluation (whatever its premise) and not searched; a false one
    is refuted by the corpus's first run where it applies, with the run's replay."""
    p = tmp_path / "c.toml"
    p.write_text(CLOSED)
    (tmp_path / "n.md").write_text("# n\n")
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", str(p), "--out", str(tmp_path / "o"), "--quiet",
                        "--no-cache", "--depth", "1"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    got = {c["id"]: c for c in json.loads((tmp_path / "o" / "results.json").read_text())["claims"]}
    for cid in ("c.sum", "c.premise"):
        assert got[cid]["verdict"] == "proved", got[cid]
        assert "reads nothing of the run" in got[cid]["evidence"]["method"]
        assert got[cid]["evidence"]["search"] == {"not searched": "already proved"}
    assert got["c.sum-wrong"]["verdict"] == "refuted" and "replay" in got["c.sum-wrong"]["evidence"]
