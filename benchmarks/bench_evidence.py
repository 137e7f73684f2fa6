"""The honest-verdicts work against the code before it, in one run:

1. `proof-audit run` (the built-in corpus; `--no-coq` at the reference) with the wider evidence (runs varying eta, w0, sign(0), form and the
   separator; searches widened over every quantifier) against the same command at a reference
   commit (default: 7538060, the last commit before it), checked out in a temporary git
   worktree and run with the same interpreter, alternating, medians and ratio (target <= 1.5).
2. The certificate [gamma_lo, gamma_hi] of every CoqPerceptron file in ../shared (when present):
   seconds (target <= 2 s each) and gamma_lo/gamma_hi (target >= 0.999), beside the margin the
   reference commit certified and its time.

Usage: python benchmarks/bench_evidence.py [--repeat N] [--ref COMMIT] [--no-audit] [--no-certs]
"""

from __future__ import annotations

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COQ = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "coqperceptron", "data"))


def _worktree(ref: str) -> str:
    path = tempfile.mkdtemp(prefix="proof-audit-ref-")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-f", path, ref], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def _run_audit(tree: str, extra=()) -> float:
    out = tempfile.mkdtemp()
    env = {**os.environ, "PYTHONPATH": tree}
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "verify", "run", *extra, "--quiet", "--out", out], cwd=tree, env=env,
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


_CERT_NEW = """
import sys, time, json
from perceptron import read_dataset, Params
from perceptron.params import prepare_inputs
from verify.certify.certificates import certify
ds = read_dataset(sys.argv[1])
X, D = prepare_inputs(ds, Params(variant="rosenblatt", augment="first"))
t = time.perf_counter(); c = certify(X, D, ds.y, bias=False); dt = time.perf_counter() - t
print(json.dumps({"s": dt, "kind": c.kind, "ratio": c.ratio(), "lo": float(c.to_json().get("gamma_lo_float", 0)),
                  "hi": c.to_json().get("gamma_hi_float")}))
"""
_CERT_OLD = """
import sys, time, json
from fractions import Fraction
from perceptron import read_dataset, Params
from perceptron.params import prepare_inputs
from verify.certify.certificates import certify_points
ds = read_dataset(sys.argv[1])
X, D = prepare_inputs(ds, Params(variant="rosenblatt", augment="first"))
rows = [[Fraction(int(v), D) for v in r] for r in X]
t = time.perf_counter(); c = certify_points(rows, [int(v) for v in ds.y], bias=False); dt = time.perf_counter() - t
print(json.dumps({"s": dt, "kind": c.kind, "gamma": float(c.gamma) if c.gamma else None}))
"""


def _cert(tree: str, code: str, path: str) -> dict:
    import json

    env = {**os.environ, "PYTHONPATH": tree}
    p = subprocess.run([sys.executable, "-c", code, path], cwd=tree, env=env, capture_output=True, text=True, timeout=600)
    return json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else {"error": p.stderr.strip()[-200:]}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ref", default="7538060")
    ap.add_argument("--no-audit", action="store_true")
    ap.add_argument("--no-certs", action="store_true")
    args = ap.parse_args(argv)
    ref = _worktree(args.ref)
    try:
        if not args.no_audit:
            new, one, old = [], [], []
            for _ in range(args.repeat):
                old.append(_run_audit(ref, ["--no-coq"]))  # the reference found ../shared by itself
                new.append(_run_audit(ROOT))
                one.append(_run_audit(ROOT, ["--jobs", "1"]))
            mo, mn, m1 = statistics.median(old), statistics.median(new), statistics.median(one)
            print(f"proof-audit run (built-in corpus): reference {args.ref} (one process) median {mo:.1f} s "
                  f"{sorted(round(v, 1) for v in old)}; now, default jobs, median {mn:.1f} s {sorted(round(v, 1) for v in new)}, "
                  f"ratio {mn / mo:.2f} (target <= 1.5); now, --jobs 1, median {m1:.1f} s "
                  f"{sorted(round(v, 1) for v in one)}, ratio {m1 / mo:.2f}")
        if not args.no_certs and os.path.isdir(COQ):
            print("certificate (homogeneous, augmented first): file, seconds now / before, gamma_lo/gamma_hi now, "
                  "gamma_lo now / gamma before")
            for path in sorted(glob.glob(os.path.join(COQ, "*"))):
                if os.path.basename(path) == "input_description":
                    continue
                n = _cert(ROOT, _CERT_NEW, path)
                o = _cert(ref, _CERT_OLD, path)
                if "error" in n:
                    print(f"  {os.path.basename(path)}: {n['error']}")
                    continue
                gain = (n["lo"] / o["gamma"]) if o.get("gamma") else float("nan")
                print(f"  {os.path.basename(path):18s} {n['s']:6.3f} s / {o.get('s', float('nan')):6.3f} s   "
                      f"ratio {n['ratio']:.6f}   x{gain:.2f} tighter")
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", ref], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
