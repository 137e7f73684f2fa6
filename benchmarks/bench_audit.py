"""Audit speed against training, measured in this same script.  Prints medians and ratios.

For each CoqPerceptron benchmark file (Rosenblatt, augmented first, exact, full NPZ trace):
  - `proof-audit train --exact` (parse, train, write the trace), as a user runs it;
  - `proof-audit check` (parse, certificate, replay, every built-in claim), as a user runs it;
  - ratio check / train (the issue's target: at most 2 on every file).
Both run as installed Python runs them: with the package's bytecode compiled once (this script
compiles it, as `pip install` does; a source checkout with PYTHONDONTWRITEBYTECODE set would
otherwise recompile every module on every start, about 0.1 s).

On vec400_1 also a peer written the plain way, in this process: the replay done with Python
Fractions one visit at a time (tests/reference.py's naive perceptron, every recorded score and
weight compared) plus every claim evaluated step by step by the scalar evaluator (verify.language.expr;
its time is the visit-by-visit replay with claims minus the same replay without them).
CoqPerceptron's C++ GMP perceptron is not built by this project: its training time on vec400_1
measured here (9.6 s, the issue's figure) and the 2017 figures of
../shared/data/coqperceptron/output/cpptimes (the median of each file's section) are quoted beside
the ratios: check / C++ per file (issue 22's target: at most 0.05, i.e. 20x faster).

First the start-up: the bare interpreter, and `check --help` and `train --help` (the command
line parsed, every import the command makes before it reads anything done: issue 22's "start",
at most 0.15 s).  Finally the cost's growth: the in-process replay + claims time (certificate given) and the
check wall time against visits x dimension, with the fitted exponent (1 = linear), over
Z100_1, Z1600_1, Z12800_1 (as the issue asks) and over vec50_1 ... vec400_1.

Usage: python benchmarks/bench_audit.py [--repeat N] [--files vec400_1 Z100_1 ...]
"""

from __future__ import annotations

import argparse
import compileall
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COQ = os.path.join(ROOT, "..", "shared", "data", "coqperceptron")
FILES = ["vec50_1", "vec100_1", "vec200_1", "vec400_1", "Z100_1", "Z1600_1", "Z12800_1", "feat100_1", "feat800_1",
         "feat3200_1"]
GROWTH = {"Z": ["Z100_1", "Z1600_1", "Z12800_1"], "vec": ["vec50_1", "vec100_1", "vec200_1", "vec400_1"]}
sys.path.insert(0, ROOT)  # tests.reference, the plain perceptron

#: The cpptimes section of each family of files ("vec400_1" -> "vectors 400").
_SECTIONS = {"vec": "vectors", "feat": "features", "Z": "Z"}
CPP_VEC400_HERE = 9.6  # seconds, C++ peer's training on vec400_1 measured on this machine (issue 13)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _cli(*args) -> float:
    """Wall time of `proof-audit ARGS` (of the bare interpreter with ARGS = None)."""
    t = time.perf_counter()
    cmd = [sys.executable, "-c", "pass"] if args == (None,) else [sys.executable, "-m", "verify", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=ENV)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"proof-audit {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
    return dt


def _median(fn, repeat) -> float:
    return statistics.median(fn() for _ in range(repeat))


def _cpp_2017(section: str) -> float | None:
    """Median of the 2017 C++ timings of one section of cpptimes ("vectors 400": lines 0m17.5s)."""
    path = os.path.join(COQ, "output", "cpptimes")
    if not os.path.exists(path):
        return None
    times, cur = {}, None
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            m = re.fullmatch(r"(\d+)m([\d.]+)s", line)
            if m and cur is not None:
                times[cur].append(60 * float(m.group(1)) + float(m.group(2)))
            elif line:
                cur = line
                times[cur] = []
    got = times.get(section)
    return statistics.median(got) if got else None


def _claims():
    from verify.language.claims import builtin_claim_files, load_claims

    return [c for p in builtin_claim_files() for c in load_claims(p).claims]


def _plain_replay(data: str, trace: str) -> float:
    """The plain Fraction replay: the reference perceptron re-run, every record compared."""
    from perceptron import Params, read_dataset
    from perceptron.trace_reader import read_trace
    from tests.reference import naive_run

    ds = read_dataset(data)
    tr = read_trace(trace)
    t = time.perf_counter()
    visits, updates, _ = naive_run(ds, Params.from_json(tr.header["params"]))
    for j, (epoch, i, score, mistake, k) in enumerate(visits):
        assert tr.score_value(j) == score and bool(tr.mistake[j]) == mistake and int(tr.k[j]) == k
    for u, (_, w, _) in enumerate(updates):
        assert tr.weights_after(u)[0] == w
    return time.perf_counter() - t


def _inprocess(data: str, trace: str, claims, scalar: bool) -> float:
    """replay(ds, trace, claims) in this process, the certificate computed beforehand."""
    import verify.replay.dispatch as R
    from perceptron import Params, read_dataset
    from perceptron.trace_reader import read_trace

    ds = read_dataset(data)
    tr = read_trace(trace)
    cert = R.RunContext(ds, Params.from_json(tr.header["params"])).cert
    old = R.SCALAR_ORACLE
    R.SCALAR_ORACLE = scalar
    try:
        t = time.perf_counter()
        _, bad, _ = R.replay(ds, tr, claims, cert=cert)
        dt = time.perf_counter() - t
    finally:
        R.SCALAR_ORACLE = old
    assert bad is None, bad
    return dt


def _fit(xs, ys) -> float:
    """Least-squares slope of log y on log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--files", nargs="+", default=FILES)
    ap.add_argument("--skip-peer", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(COQ):
        raise SystemExit(f"CoqPerceptron data not found at {COQ}")
    for pkg in ("verify", "perceptron"):
        compileall.compile_dir(os.path.join(ROOT, pkg), quiet=1)
    claims = _claims()
    start = {name: _median(lambda cmd=cmd: _cli(*cmd), max(5, args.repeat))
             for name, cmd in (("interpreter", (None,)), ("check", ("check", "--help")), ("train", ("train", "--help")))}
    print(f"start-up (medians of {max(5, args.repeat)}; the command parsed, its imports done, nothing read): "
          f"python -c pass {start['interpreter']:.3f} s, check {start['check']:.3f} s, train {start['train']:.3f} s "
          "(issue 22's target: at most 0.15 s each)")
    print(f"{'file':<11} {'visits':>7} {'d':>5} {'train s':>8} {'check s':>8} {'check/train':>12} {'C++ s':>7} "
          f"{'check/C++':>10}  (medians of {args.repeat}; C++: the peer's median in cpptimes; target check/C++ <= 0.05)")
    growth: dict = {k: [] for k in GROWTH}
    with tempfile.TemporaryDirectory() as tmp:
        for f in args.files:
            data = os.path.join(COQ, "data", f + ".dat")
            trace = os.path.join(tmp, f + ".npz")
            tr = _median(lambda: _cli("train", "--data", data, "--augment", "first", "--exact", "--trace", trace,
                                      "--max-epochs", "1000"), args.repeat)
            ch = _median(lambda: _cli("check", "--data", data, "--trace", trace), args.repeat)
            from perceptron.trace_reader import read_trace

            t = read_trace(trace)
            visits, d = len(t.t), int(t.header["model_dim"])
            peer = _cpp_2017(_SECTIONS[re.match(r"[A-Za-z]+", f).group(0)] + " " + re.search(r"(\d+)_", f).group(1))
            vs = f"{peer:7.2f} {ch / peer:10.3f}" if peer else f"{'-':>7} {'-':>10}"
            print(f"{f:<11} {visits:>7} {d:>5} {tr:8.3f} {ch:8.3f} {ch / tr:12.2f} {vs}", flush=True)
            for key, names in GROWTH.items():
                if f in names:
                    inner = _median(lambda: _inprocess(data, trace, claims, False), args.repeat)
                    growth[key].append((f, visits * d, inner, ch))
            if f == "vec400_1":
                cpp17 = _cpp_2017("vectors 400")
                print(f"  vec400_1: check {ch:.3f} s against the C++ peer's training measured here ({CPP_VEC400_HERE} s): "
                      f"ratio {ch / CPP_VEC400_HERE:.3f} (target <= 0.05, i.e. check <= 0.5 s)"
                      + (f"; its 2017 figure (cpptimes, vectors 400): {cpp17:.1f} s" if cpp17 else ""))
                if not args.skip_peer:
                    plain = _median(lambda: _plain_replay(data, trace), 1)
                    with_claims = _median(lambda: _inprocess(data, trace, claims, True), 1)
                    without = _median(lambda: _inprocess(data, trace, [], True), 1)
                    ours = _median(lambda: _inprocess(data, trace, claims, False), args.repeat)
                    peer = plain + max(0.0, with_claims - without)
                    print(f"  vec400_1, in process (no parse, no certificate): ours {ours:.3f} s; the plain way "
                          f"{peer:.2f} s (Fraction replay {plain:.2f} s + scalar claim evaluation "
                          f"{max(0.0, with_claims - without):.2f} s); ours / plain = {ours / peer:.4f}")
    for key, rows in growth.items():
        if len(rows) < 2:
            continue
        print(f"growth over {', '.join(g[0] for g in rows)} (visits x d: {', '.join(str(g[1]) for g in rows)}):")
        print(f"  replay + claims in process: {', '.join(f'{g[2]:.3f}' for g in rows)} s; fitted exponent "
              f"{_fit([g[1] for g in rows], [g[2] for g in rows]):.2f} (1 = linear in visits x d)")
        print(f"  check wall time: {', '.join(f'{g[3]:.3f}' for g in rows)} s; fitted exponent "
              f"{_fit([g[1] for g in rows], [g[3] for g in rows]):.2f} (start-up and the certificate included)")
    print("(the Z files differ in the size of their integers, hardly in visits x d: their exponent says little; "
          "the vec files span 7x in visits x d)")


if __name__ == "__main__":
    main()
