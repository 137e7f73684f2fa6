"""`proof-audit run` of the five notes on a Dask LocalCluster of 2 workers (`--scheduler`)
against `--jobs 2` (the local process pool), alternating, cold (no cache), medians and their
ratio; the two results files must be byte-identical.

    python benchmarks/bench_cluster.py [--repeat 3]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(out: str, *opts) -> float:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--out", out, "--quiet", "--no-cache", *opts], cwd=ROOT,
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"run failed: {r.stdout[-500:]} {r.stderr[-500:]}")
    return time.perf_counter() - t


def main():
    import distributed

    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    times = {"jobs2": [], "dask": []}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for j in range(args.repeat):
                times["jobs2"].append(_run(os.path.join(tmp, f"j{j}"), "--jobs", "2"))
                times["dask"].append(_run(os.path.join(tmp, f"d{j}"), "--scheduler", cluster.scheduler_address))
            same = all(open(os.path.join(tmp, f"j{j}", "results.json"), "rb").read()
                       == open(os.path.join(tmp, f"d{j}", "results.json"), "rb").read() for j in range(args.repeat))
    finally:
        cluster.close()
    a, b = statistics.median(times["jobs2"]), statistics.median(times["dask"])
    print(f"proof-audit run, five notes, {args.repeat} alternating cold runs each")
    print(f"  --jobs 2: median {a:.2f} s  ({', '.join(f'{t:.2f}' for t in times['jobs2'])})")
    print(f"  --scheduler (LocalCluster, 2 workers): median {b:.2f} s  ({', '.join(f'{t:.2f}' for t in times['dask'])})")
    print(f"  ratio scheduler / jobs 2: {b / a:.3f}; results.json byte-identical: {same}")


if __name__ == "__main__":
    main()
