"""`proof-audit run` of the five notes, cold against warm, in the same script: medians and ratios.

    python benchmarks/bench_cache.py [--repeat 3]

The five built-in claim files are copied into a temporary directory and audited there with
`--claims` (as a course repository audits its own files):
  - cold: `--no-cache` (the whole audit; the peer every warm time is divided by);
  - warm, nothing changed: the run's cache (OUT/.cache/run.json) read back;
  - warm after editing one claim: 000.numerator.bound's expression made another, equivalent text
    each time (`+ 0`, `+ 0*k`, ...), so its key misses and it alone is evaluated
    (OUT/.cache/claims.json for the other 168).
Each warm run's results.json is compared byte for byte with a cold run of the same files.
Targets (issue 22): nothing changed <= 1 s, one claim edited <= 2 s.
"""

import argparse
import filecmp
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLAIM = 'expr = "dot(w_opt, w) > k*gamma"'


def _run(cwd, out, *extra) -> float:
    files = sorted(glob.glob(os.path.join(cwd, "*.toml")))
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", *files, "--out", out, "--quiet", *extra],
                       cwd=ROOT, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"proof-audit run failed: {r.stdout[-800:]}{r.stderr[-800:]}")
    return dt


def _edit(path, j):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    old = next(line for line in text.splitlines() if line.startswith('expr = "dot(w_opt, w) > k*gamma'))
    new = CLAIM[:-1] + " + 0" * (j + 1) + '"'
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace(old, new, 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    times = {"cold": [], "warm": [], "edit": []}
    with tempfile.TemporaryDirectory() as tmp:
        notes = os.path.join(tmp, "notes")
        shutil.copytree(os.path.join(ROOT, "verify", "claims"), notes)
        out = os.path.join(tmp, "out")
        _run(notes, out)  # fills the cache
        for j in range(args.repeat):
            times["cold"].append(_run(notes, os.path.join(tmp, f"cold{j}"), "--no-cache"))
            times["warm"].append(_run(notes, out))
            _edit(os.path.join(notes, "000_perceptron.toml"), j)
            times["edit"].append(_run(notes, out))
            cold = os.path.join(tmp, f"check{j}")
            _run(notes, cold, "--no-cache")
            same = filecmp.cmp(os.path.join(out, "results.json"), os.path.join(cold, "results.json"), shallow=False)
            if not same:
                raise SystemExit(f"edit {j}: the warm results.json differs from a cold run's")
    c = statistics.median(times["cold"])
    print(f"proof-audit run, five notes (169 claims), {args.repeat} runs each, medians")
    for k, label in (("cold", "cold (--no-cache)"), ("warm", "warm, nothing changed"),
                     ("edit", "warm, one claim edited")):
        m = statistics.median(times[k])
        print(f"  {label}: median {m:.2f} s  ({', '.join(f'{t:.2f}' for t in times[k])}); cold / this {c / m:.1f}x")
    print("  every edited warm run's results.json equals a cold run's, byte for byte")


if __name__ == "__main__":
    main()
