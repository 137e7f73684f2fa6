"""Audit speed against training, measured in this same script.  Prints medians and ratios.

For each CoqPerceptron benchmark file (Rosenblatt, augmented first, exact, full NPZ trace):
  - `proof-audit train --exact` (parse, train, write the trace), as a user runs it;
  - `proof-audit check` (parse, certificate, replay, every built-in claim), as a user runs it;
  - ratio check / train (the issue's target: at most 2 on every file).
On vec400_1 also a peer written the plain way: the replay done with Python Fractions one visit
at a time (tests/reference.py's naive perceptron, every recorded score and weight compared),
without the claims, the certificate or the parse -- so it is a lower bound on a plain audit.
CoqPerceptron's C++ GMP perceptron is not built by this project: its training time on vec400_1
measured here (9.6 s, the issue's figure) and the 2017 figures of
../shared/data/coqperceptron/output/cpptimes are quoted beside the ratio.

Usage: python benchmarks/bench_audit.py [--repeat N] [--files vec400_1 Z100_1 ...]
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, ROOT)  # tests.reference, the plain perceptron

CPP_VEC400_HERE = 9.6  # seconds, C++ peer's training on vec400_1 measured on this machine (issue 13)


def _cli(*args) -> float:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, cwd=ROOT)
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


def _plain_replay(data: str, trace: str) -> float:
    from perceptron import Params, read_dataset
    from perceptron.trace import read_trace
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--files", nargs="+", default=FILES)
    ap.add_argument("--skip-peer", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(COQ):
        raise SystemExit(f"CoqPerceptron data not found at {COQ}")
    print(f"{'file':<11} {'train s':>8} {'check s':>8} {'check/train':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for f in args.files:
            data = os.path.join(COQ, "data", f + ".dat")
            trace = os.path.join(tmp, f + ".npz")
            tr = _median(lambda: _cli("train", "--data", data, "--augment", "first", "--exact", "--trace", trace,
                                      "--max-epochs", "1000"), args.repeat)
            ch = _median(lambda: _cli("check", "--data", data, "--trace", trace), args.repeat)
            print(f"{f:<11} {tr:8.2f} {ch:8.2f} {ch / tr:12.2f}", flush=True)
            if f == "vec400_1":
                cpp17 = _cpp_2017("vectors 400")
                print(f"  vec400_1: check against the C++ peer's training measured here ({CPP_VEC400_HERE} s): "
                      f"{ch / CPP_VEC400_HERE:.3f} (target 0.05)"
                      + (f"; its 2017 figure (cpptimes, vectors 400): {cpp17:.1f} s" if cpp17 else ""))
                if not args.skip_peer:
                    peer = _median(lambda: _plain_replay(data, trace), 1)
                    print(f"  vec400_1: plain Fraction replay (no claims, no certificate, no parse): {peer:.2f} s; "
                          f"our check / it: {ch / peer:.2f}")


if __name__ == "__main__":
    main()
