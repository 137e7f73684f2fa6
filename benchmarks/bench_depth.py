"""The audit's search depth: `proof-audit run` of the five notes (or --claims files) at this
checkout's depths against an earlier revision, in the same script, alternating: medians of the
wall time, their ratios, and the scopes each audit reached (how many "no counterexample"
verdicts up to how many points, box and updates).

    python benchmarks/bench_depth.py --base a0c62c7 [--depths 1 2 3] [--repeat 3] [--claims F ...]

The earlier revision runs in a temporary git worktree with this environment's Python, as in
bench_run.py.
"""

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def audit(cwd: str, out: str, extra: list) -> tuple[float, dict]:
    """(seconds, results) of one cold `proof-audit run` in ``cwd``."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "verify", "run", "--out", out, "--quiet", "--no-cache", *extra], cwd=cwd,
                   capture_output=True, check=False)
    seconds = time.perf_counter() - t
    with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
        return seconds, json.load(fh)


def scopes(results: dict) -> str:
    """The scopes the "no counterexample" verdicts reached, most common first."""
    got = collections.Counter()
    for c in results["claims"]:
        if c["verdict"] == "no counterexample in domain":
            s = c["evidence"].get("scope") or {}
            got[(s.get("points"), s.get("box"), s.get("max_updates"))] += 1
    return ", ".join(f"{n} x (points {p}, box {b}, updates {u})" for (p, b, u), n in
                     sorted(got.items(), key=lambda kv: (-kv[1], str(kv[0]))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the earlier revision (a commit or branch)")
    ap.add_argument("--depths", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--claims", nargs="+", default=[], help="claim files (absolute paths; default: the built-ins)")
    args = ap.parse_args()
    extra = ["--claims", *args.claims] if args.claims else []
    times = collections.defaultdict(list)
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        wt = os.path.join(tmp, "base")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", wt, args.base], check=True,
                       capture_output=True)
        try:
            for j in range(args.repeat):
                sides = [("base", wt, [])] + [(f"depth {d}", ROOT, ["--depth", str(d)]) for d in args.depths]
                for name, cwd, more in sides:
                    seconds, results = audit(cwd, os.path.join(tmp, f"out_{name.replace(' ', '_')}_{j}"), extra + more)
                    times[name].append(seconds)
                    found[name] = results
        finally:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", wt], capture_output=True)
    base = statistics.median(times["base"])
    print(f"proof-audit run{' ' + ' '.join(args.claims) if args.claims else ', five notes'}: {args.repeat} alternating "
          "runs each")
    for name, ts in times.items():
        med = statistics.median(ts)
        label = args.base if name == "base" else name
        print(f"  {label}: median {med:.2f} s ({', '.join(f'{t:.2f}' for t in ts)}), ratio to {args.base} "
              f"{med / base:.3f}")
        print(f"    scopes: {scopes(found[name]) or 'none'}")


if __name__ == "__main__":
    main()
