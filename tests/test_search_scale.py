"""The search at scale: bounded memory (under prlimit), a hard deadline, the same result
whatever the sharding (1 worker, 2 workers, a Dask cluster), z3 alone refuting every planted
bound, and the search package free of import cycles."""

import ast
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from verify.language.claims import builtin_claim_files, load_claims
from verify.searching import Domain, search
from verify.verdicts import Verdict

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
PLANTED = os.path.join(HERE, "data", "planted_claims.toml")
SHARDING = os.path.join(HERE, "data", "sharding_claims.toml")
PLANTED_CLAIMS = {c.id: c for c in load_claims(PLANTED).claims}
BUILTIN = {c.id: c for f in builtin_claim_files() for c in load_claims(f).claims}


def cli(*args, timeout=300, prefix=()):
    t = time.monotonic()
    r = subprocess.run([*prefix, sys.executable, "-m", "verify", "search", *args], capture_output=True, text=True,
                       timeout=timeout, cwd=ROOT)
    return r, time.monotonic() - t


# --------------------------------------------------------------------------- memory

@pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs util-linux prlimit")
def test_search_stays_under_its_memory_budget_under_prlimit(tmp_path):
    """4 points, box 3, 8 updates grew to 24 GB before the enumeration streamed its datasets;
    now it completes in an address space of 1.5 GiB (prlimit) with --max-memory 1."""
    r, _ = cli("000.iterations", "--points", "4", "--box", "3", "--max-updates", "8", "--engine", "enumerate",
               "--max-memory", "1", "--quiet", "--results", str(tmp_path / "r.json"),
               prefix=("prlimit", f"--as={3 << 29}"))
    assert r.returncode == 0, (r.stdout, r.stderr[-2000:])
    assert "no counterexample in domain" in r.stdout and "Traceback" not in r.stderr
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["completed"]["datasets"] == res["completed"]["of"] > 100_000


def test_frontier_past_the_budget_is_unknown_with_the_part_completed():
    """One instance whose frontier outgrows the budget stops the search: unknown, limit
    reached, and the part of the domain completed is stated."""
    from verify.searching import WORKER_BASE
    from verify.searching.enumeration import row_bytes

    c = BUILTIN["000.denominator.bound"]  # no separability: runs on non-separable data go on
    dom = Domain(points=3, dim=2, box=2, max_updates=12)
    budget = WORKER_BASE + 5 * row_bytes(dom, c.compiled.uses_prev)  # 5 states
    res = search(c, dom, engine="enumerate", timeout=60, max_memory=budget)
    assert res.verdict == Verdict.UNKNOWN, res.to_json()
    assert "limit reached" in res.reason and "memory budget" in res.reason and "was reached" in res.reason
    done = res.completed
    assert 0 < done["datasets"] < done["of"] and f"completed {done['datasets']:,} of {done['of']:,} datasets" in res.reason


# --------------------------------------------------------------------------- time

@pytest.mark.parametrize("jobs", [pytest.param("1", marks=pytest.mark.slow), "2"])  # (each runs to its timeout)
def test_timeout_is_honoured_within_ten_percent(jobs):
    """A domain far too large for the time given stops at --timeout (within 10%), unknown,
    with the part completed."""
    r, wall = cli("000.iterations", "--points", "5", "--box", "4", "--max-updates", "10", "--engine", "enumerate",
                  "--timeout", "8", "--jobs", jobs, "--json", "--quiet")
    res = json.loads(r.stdout)
    assert res["verdict"] == "unknown" and "time limit of 8 s reached" in res["reason"], res
    assert res["seconds"] <= 8.8, res["seconds"]
    assert wall <= 8.8 + 5.0, wall  # + interpreter start-up and imports
    assert 0 < res["completed"]["datasets"] < res["completed"]["of"]


def test_z3_timeout_is_hard():
    """z3 on a true bound cannot refute it: it stops at the deadline (a killed child), unknown."""
    t = time.monotonic()
    res = search(BUILTIN["000.iterations"], Domain(points=3, dim=2, box=3, max_updates=6), engine="z3", timeout=5)
    assert res.verdict == Verdict.UNKNOWN and time.monotonic() - t <= 5.5, (res.to_json(), time.monotonic() - t)


# --------------------------------------------------------------------------- sharding

@pytest.fixture(scope="module")
def dask_cluster():
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


@pytest.mark.parametrize("claim,extra", [
    ("sharding.two-r-over-gamma", ["--points", "3", "--box", "3", "--max-updates", "10"]),  # refuted at 3 points
    ("000.iterations", ["--points", "3", "--box", "3", "--max-updates", "6"]),  # none in domain
])
def test_same_result_for_one_worker_two_workers_and_dask(tmp_path, dask_cluster, claim, extra):
    """The result file (verdict, counterexample, candidates, completed part) and the
    counterexample's dataset and trace are byte-identical whatever runs the shards."""
    outs = {}
    for name, opts in [("one", ["--jobs", "1"]), ("two", ["--jobs", "2"]), ("dask", ["--scheduler", dask_cluster])]:
        d = tmp_path / name
        r, _ = cli(claim, *(["--claims", SHARDING] if claim.startswith("sharding") else []), *extra,
                   "--engine", "enumerate", "--out", str(d / "ce"), "--results", str(d / "result.json"), "--quiet", *opts)
        assert "Traceback" not in r.stderr, r.stderr[-2000:]
        files = {p: (d / "ce" / p).read_bytes() for p in sorted(os.listdir(d / "ce"))} if (d / "ce").exists() else {}
        text = (d / "result.json").read_text().replace(str(d), "<out>")
        outs[name] = (text, files)
    assert outs["one"] == outs["two"] == outs["dask"]
    res = json.loads(outs["one"][0])
    if claim.startswith("sharding"):
        assert res["verdict"] == "refuted" and len(res["counterexample"]["points"]) == 3
        assert res["completed"]["shards_of"] > 2  # the counterexample's group is sharded
        assert set(outs["one"][1]) == {"sharding.two-r-over-gamma.csv", "sharding.two-r-over-gamma.trace.jsonl"}
    else:
        assert res["verdict"] == "no counterexample in domain"


def test_two_workers_share_the_shards():
    """With 2 workers the shards run in 2 processes (the statistics name them)."""
    from verify.searching import shards as S

    c = BUILTIN["000.iterations"]
    dom = Domain(points=3, dim=2, box=3, max_updates=6)
    seen = set()
    res = search(c, dom, engine="enumerate", timeout=60, jobs=2, progress=lambda r, s, n: seen.add(r.worker))
    assert res.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and len(seen) == 2, seen
    assert len(S.plan([48], 3, False)) > 2


# --------------------------------------------------------------------------- z3

Z3_DOMAIN = Domain(points=4, dim=2, box=3, max_updates=6, sep_box=6)


@pytest.mark.parametrize("cid", sorted(PLANTED_CLAIMS))
def test_z3_alone_refutes_every_planted_bound(cid, tmp_path):
    """z3 (no enumeration, no Hypothesis) refutes each planted bound; the counterexample is
    replayed, and its replay command (proof-audit check) reproduces the refutation."""
    from verify.cli import main

    dom = Domain(points=3, dim=3, box=3, max_updates=6, sep_box=6) if cid == "planted.dimension-factor" else Z3_DOMAIN
    res = search(PLANTED_CLAIMS[cid], dom, engine="z3", timeout=60, out_dir=str(tmp_path))
    assert res.verdict == Verdict.REFUTED and res.engine == "z3", res.to_json()
    ce = res.counterexample.to_json()
    assert ce["violation"] and ce["found_by"].startswith("z3")
    cmd = res.files["replay"].split()
    assert cmd[0] == "proof-audit" and main(cmd[1:]) == 0


def test_dimension_factor_bound_fails_only_from_three_dimensions():
    """The planted 2R^2/(d gamma^2) is at least the true bound in 1 and 2 dimensions: the
    complete enumeration finds nothing there, z3 refutes it in 3 dimensions."""
    c = PLANTED_CLAIMS["planted.dimension-factor"]
    for dim in (1, 2):
        res = search(c, Domain(points=3, dim=dim, box=3, max_updates=6, sep_box=6), engine="enumerate", timeout=60)
        assert res.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, res.to_json()
    res = search(c, Domain(points=3, dim=3, box=3, max_updates=6, sep_box=6), engine="z3", timeout=60)
    assert res.verdict == Verdict.REFUTED and len(res.counterexample.to_json()["points"][0]) == 3


@pytest.mark.slow  # z3 over a box enumeration cannot finish (10 s)
def test_z3_large_box_where_enumeration_cannot_finish():
    """3 dimensions, box 6, 4 points: the enumeration's domain has ~10^12 datasets; auto says so
    and goes to z3, which refutes the misquoted k <= R/gamma."""
    res = search(PLANTED_CLAIMS["planted.no-square"], Domain(points=4, dim=3, box=6, max_updates=6, sep_box=6),
                 engine="auto", timeout=60)
    assert res.verdict == Verdict.REFUTED and res.engine == "z3", res.to_json()
    assert "z3 first" in res.choice and "AUTO_ENUMERATION_STATES" in res.choice


def test_z3_polynomial_form_has_no_roots():
    """The encoding keeps roots out of the solver: every comparison is over integer polynomials."""
    import z3

    from verify.searching.z3_engine import _Problem

    c = PLANTED_CLAIMS["planted.no-square"]  # mistakes <= R/gamma
    pb = _Problem(c, Z3_DOMAIN, 2, True, 0)
    pb.add_step()
    goal = pb.failure(1)
    seen, todo = set(), [goal, *pb.s.base, *pb.s.steps[0]]
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        assert not z3.is_real(e) and e.decl().kind() not in (z3.Z3_OP_POWER, z3.Z3_OP_DIV), e
        todo.extend(e.children())


# --------------------------------------------------------------------------- layout

def _imports(path, module):
    """verify.* modules a module imports (at any level), resolved."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    pkg = module if path.endswith("__init__.py") else module.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [target] + [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out.update(n for n in names if n.startswith("verify"))
    return out


def test_no_import_cycles_in_verify():
    mods = {}
    for dirpath, _, files in os.walk(os.path.join(ROOT, "verify")):
        for f in files:
            if f.endswith(".py"):
                p = os.path.join(dirpath, f)
                rel = os.path.relpath(p, ROOT)[:-3].replace(os.sep, ".")
                mods[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = p
    graph = {m: {t for t in _imports(p, m) if t in mods and t != m} for m, p in mods.items()}
    assert "verify.searching.z3_engine" in graph and "verify.searching.enumeration" in graph
    # a package's __init__ importing its own submodules is the package's API, not a cycle
    edges = {m: {t for t in ts if not (m.startswith(t + ".") and os.path.basename(mods[t]) == "__init__.py")}
             for m, ts in graph.items()}
    state = {}

    def visit(m, stack):
        state[m] = 1
        for t in edges[m]:
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack + [m, t]))
            if t not in state:
                visit(t, stack + [m])
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m, [])


def test_bad_scheduler_address_is_one_line():
    r, _ = cli("000.iterations", "--points", "2", "--box", "2", "--scheduler", "nonsense", "--quiet")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 and "--scheduler nonsense: cannot reach a Dask scheduler" in r.stderr


@pytest.mark.parametrize("path", ["/nonexistent-dir/r.json", "/"])
def test_unwritable_results_file_is_one_line_before_the_search(path):
    r, _ = cli("000.iterations", "--points", "1", "--box", "1", "--quiet", "--results", path)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert f"--results {path}: cannot write a file there" in r.stderr and r.stdout == ""


@pytest.mark.parametrize("npts,n,ordered", [(48, 3, False), (96, 4, False), (48, 4, True), (3, 2, False),
                                            (2001 * 2001 * 2, 12, False)])
def test_shard_plan_partitions_every_group(npts, n, ordered):
    """The shards of each (setting, points) cover the first-point indices 0..npts-1 once, in
    order, and their datasets add up to the group's; planning a grid of 8 million points is
    immediate (closed-form counts)."""
    from verify.searching.domain import count_datasets
    from verify.searching.shards import SHARDS_PER_GROUP, plan

    t = time.monotonic()
    shards = plan([npts], n, ordered)
    assert time.monotonic() - t < 1.0
    for k in range(1, n + 1):
        group = [s for s in shards if s.n == k]
        assert sum(s.datasets for s in group) == count_datasets(npts, k, ordered)
        if group[0].first:
            edges = [s.first for s in group]
            assert edges[0][0] == 0 and edges[-1][1] == npts and all(a[1] == b[0] for a, b in zip(edges, edges[1:]))
            assert len(group) <= SHARDS_PER_GROUP + 1
