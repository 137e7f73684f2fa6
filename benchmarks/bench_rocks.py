"""rocks_and_mines (the sonar data of ../shared/data/coqperceptron, 208 x 60) trained to
convergence and checked end to end: `train --exact --augment first --record checkpoints` (the
CoqPerceptron convention: the constant coordinate first), then `check` of every built-in claim
that applies, over every update.  Train and check alternate; medians of the wall times, their
ratio (the target: check / train <= 2), each command's peak memory (target: check <= 1 GB) and
the trace's size per update.

    python benchmarks/bench_rocks.py [--repeat 3]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data", "coqperceptron", "data", "rocks_and_mines")
#: Runs a command of the CLI and prints its peak resident memory (kB) on stderr's last line.
PEAK = ("import resource, sys\nfrom verify.cli import main\nrc = main(sys.argv[1:])\n"
        "print('peak_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\nsys.exit(rc)")


def _run(*argv) -> tuple[float, int, str]:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", PEAK, *argv], cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"{argv[0]} failed ({r.returncode}): {r.stdout[-800:]} {r.stderr[-800:]}")
    return wall, int(r.stderr.strip().splitlines()[-1].split()[1]), r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not os.path.exists(DATA):
        sys.exit(f"no {DATA}")
    times, peaks = {"train": [], "check": []}, {"train": [], "check": []}
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "rm.npz")
        for _ in range(args.repeat):
            wall, peak, out = _run("train", "--data", DATA, "--exact", "--augment", "first", "--max-epochs", "400000",
                                   "--max-updates", "3000000", "--record", "checkpoints", "--trace", trace)
            times["train"].append(wall)
            peaks["train"].append(peak)
            summary = next(line for line in out.splitlines() if "updates" in line)
            wall, peak, out = _run("check", "--data", DATA, "--trace", trace)
            if "consistent with" not in out:
                sys.exit(f"check did not accept the trace: {out[:500]}")
            times["check"].append(wall)
            peaks["check"].append(peak)
            evaluated = sum(1 for line in out.splitlines() if " evaluations, expect " in line)
        size = os.path.getsize(trace)
    updates = int(summary.split(" updates")[0].split()[-1])
    tr, ch = statistics.median(times["train"]), statistics.median(times["check"])
    print(f"rocks_and_mines to convergence, {args.repeat} alternating runs each: {summary.strip()}")
    print(f"  train --record checkpoints: median {tr:.1f} s ({', '.join(f'{t:.1f}' for t in times['train'])}), "
          f"peak {max(peaks['train']) / 1024:.0f} MB")
    print(f"  check ({evaluated} claims evaluated): median {ch:.1f} s ({', '.join(f'{t:.1f}' for t in times['check'])}), "
          f"peak {max(peaks['check']) / 1024:.0f} MB")
    print(f"  ratio check / train: {ch / tr:.2f} (target <= 2); check peak memory "
          f"{'within' if max(peaks['check']) <= 1 << 20 else 'OVER'} 1 GB")
    print(f"  trace: {size / 1e6:.1f} MB, {size / updates:.1f} bytes per update")


if __name__ == "__main__":
    main()
