"""`proof-audit run` of the five notes: this checkout against an earlier revision, in the same
script, alternating, medians and their ratio.

    python benchmarks/bench_run.py --base 7e37e41 [--repeat 3]

The earlier revision is checked out in a temporary git worktree and run with this
environment's Python (`python -m verify run`, which imports the package from the directory it
runs in), so both sides use the same interpreter and libraries.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(cwd: str, out: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "verify", "run", "--out", out, "--quiet"], cwd=cwd, capture_output=True,
                   check=False)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the earlier revision (a commit or branch)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wt = os.path.join(tmp, "base")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", wt, args.base], check=True,
                       capture_output=True)
        try:
            times = {"base": [], "head": []}
            for j in range(args.repeat):  # a fresh output directory each time: every run is cold (no OUT/.cache)
                times["base"].append(_run(wt, os.path.join(tmp, f"out_base_{j}")))
                times["head"].append(_run(ROOT, os.path.join(tmp, f"out_head_{j}")))
        finally:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", wt], capture_output=True)
    b, h = statistics.median(times["base"]), statistics.median(times["head"])
    print(f"proof-audit run, five notes, {args.repeat} alternating runs each")
    print(f"  {args.base}: median {b:.2f} s  ({', '.join(f'{t:.2f}' for t in times['base'])})")
    print(f"  this checkout: median {h:.2f} s  ({', '.join(f'{t:.2f}' for t in times['head'])})")
    print(f"  ratio this / {args.base}: {h / b:.3f}")


if __name__ == "__main__":
    main()
