"""Cost of the reports against the audit itself, in one process: `proof-audit run`
(the audit and results.json) versus building report.md, junit.xml, results.sarif and index.html
from its results.  Prints medians and the ratio (target: reports add at most 20%).

Usage: python benchmarks/bench_report.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from verify.report.artefacts import write_artefacts
from verify.corpus.audit import audit
from verify.language.claims import builtin_claim_files, load_claims
from verify.report.results import write_results


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    out = tempfile.mkdtemp()
    files = builtin_claim_files()
    by_id = {c.id: c for f in files for c in load_claims(f).claims}
    t_audit, t_report = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        findings, corpus, info = audit(files, quiet=True)
        path = write_results(out, findings, by_id, corpus, info)
        t_audit.append(time.perf_counter() - t)
        t = time.perf_counter()
        with open(path) as fh:
            write_artefacts(out, json.load(fh), env={})
        t_report.append(time.perf_counter() - t)
    a, r = statistics.median(t_audit), statistics.median(t_report)
    print(f"audit (built-in corpus, results.json): median {a:.2f} s; reports (md, junit, sarif, html): median {r:.2f} s; "
          f"reports add {100 * r / a:.1f}% (target <= 20%)")
    print(f"files in {out}: {sorted(os.listdir(out))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
