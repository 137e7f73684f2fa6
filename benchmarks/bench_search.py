"""Search speed, with peers run in this same script.  Prints medians and ratios.

1. Planted false bounds (tests/data/planted_claims.toml) in 4 points, 2 dimensions, box 3,
   6 updates: the complete enumeration, z3 (incremental, the default) and z3 with a fresh solver
   per check, side by side (target: z3 median <= 2 s per bound).
2. Where enumeration cannot go: the planted bounds in 4 points, 3 dimensions, box 6, 6 updates
   (about 10^12 datasets): enumeration with 60 s (its completed part), z3 (target <= 30 s).
3. "No counterexample in domain" for the true iteration bounds of 000, 001, 002 (3 points,
   box 3, 6 updates); peer: a plain Python enumeration of the same domain for 000's bound.
4. Workers: 000's bound on 4 points, box 4, 8 updates with 1 and 2 worker processes (target:
   speed-up >= 1.8 on this 2-core machine).
5. The largest domain completed within 60 s (2 workers), against 4.9 million candidates
   (5 points, box 3, 8 updates) measured for the search before it streamed its datasets.
6. Every symbolic step of the built-in claim files: median and maximum time.

Usage: python benchmarks/bench_search.py [--repeat N] [--skip-peer] [--sections 1,2,...]
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import statistics
import sys
import time
from fractions import Fraction

from verify.language.claims import builtin_claim_files, load_claims
from verify.searching import Domain, _prepare, search
from verify.searching.z3_engine import z3_search
from verify.symbolic.steps import check_symbolic
from verify.verdicts import Verdict

HERE = os.path.dirname(os.path.abspath(__file__))
PLANTED = os.path.join(HERE, "..", "tests", "data", "planted_claims.toml")
#: candidates of the largest domain the search completed in 60 s before this version (the issue's figure)
BEFORE_60S = 4_900_000


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def plain_peer_000(box=3, points=3, K=6, S=6):
    """The plain way: every dataset (labels folded), its widest integer separator, every run
    (any order) by depth-first search, k <= R^2/gamma^2 checked in Fractions."""
    coords = [c for c in itertools.product(range(-box, box + 1), repeat=2) if any(c)]
    seps = [v for v in itertools.product(range(-S, S + 1), repeat=2) if any(v) and math.gcd(*v) == 1]
    checked = 0
    for n in range(1, points + 1):
        for Z in itertools.combinations_with_replacement(coords, n):
            best = None
            for v in seps:
                m = min(v[0] * z[0] + v[1] * z[1] for z in Z)
                if m > 0:
                    g2 = Fraction(m * m, v[0] ** 2 + v[1] ** 2)
                    if best is None or g2 > best:
                        best = g2
            if best is None:
                continue
            R2 = max(z[0] ** 2 + z[1] ** 2 for z in Z)
            bound = R2 / best
            stack = [((0, 0), 0)]
            while stack:
                w, k = stack.pop()
                mis = [z for z in Z if w[0] * z[0] + w[1] * z[1] <= 0]
                if not mis:
                    checked += 1
                    if k > bound:
                        return ("refuted", Z)
                    continue
                if k == K:
                    continue
                for z in mis:
                    stack.append(((w[0] + z[0], w[1] + z[1]), k + 1))
    return ("none", checked)


def z3_only(claim, dom, timeout, incremental):
    d = _prepare(claim, dom, True)
    return z3_search(claim, d, time.time() + timeout, incremental=incremental)[0]


def fmt(t, ok):
    return f"{t:7.2f} s" if ok else f"{t:7.2f} s (not refuted)"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-peer", action="store_true")
    ap.add_argument("--sections", default="1,2,3,4,5,6", help="which sections to run (comma-separated)")
    args = ap.parse_args(argv)
    want = set(args.sections.split(","))
    planted = load_claims(PLANTED).claims
    claims = {c.id: c for f in builtin_claim_files() for c in load_claims(f).claims}

    if "1" in want:
        section1(args, planted)
    if "2" in want:
        section2(args, planted)
    if "3" in want:
        section3(args, claims)
    if "4" in want:
        section4(args, claims)
    if "5" in want:
        section5(args, claims)
    if "6" in want:
        section6(claims)
    return 0


def section1(args, planted):
    print("1. planted false bounds, 4 points, 2 dims, box 3, 6 updates: enumeration | z3 incremental | z3 fresh per check")
    z3_medians = []
    for c in planted:
        dom = Domain(points=4, dim=3 if c.id == "planted.dimension-factor" else 2, box=3, max_updates=6, sep_box=6)
        en = [timed(lambda: search(c, dom, engine="enumerate", timeout=60)) for _ in range(args.repeat)]
        zi = [timed(lambda: z3_only(c, dom, 30, True)) for _ in range(args.repeat)]
        zf = [timed(lambda: z3_only(c, dom, 30, False)) for _ in range(args.repeat)]
        me = statistics.median(t for t, _ in en)
        mi = statistics.median(t for t, _ in zi)
        mf = statistics.median(t for t, _ in zf)
        z3_medians.append(mi)
        ok_e = all(r.verdict == Verdict.REFUTED for _, r in en)
        print(f"  {c.id:<26} {fmt(me, ok_e)} | {fmt(mi, all(r for _, r in zi))} | {fmt(mf, all(r for _, r in zf))}"
              f"   z3/enumeration {mi / me:.2f}" + (" (3 dims)" if dom.dim == 3 else ""))
    print(f"  z3 incremental: median over the bounds {statistics.median(z3_medians):.2f} s, max {max(z3_medians):.2f} s "
          "(target: median <= 2 s)")



def section2(args, planted):
    print("2. 4 points, 3 dims, box 6, 6 updates (where enumeration cannot finish): enumeration (60 s) | z3")
    big = Domain(points=4, dim=3, box=6, max_updates=6, sep_box=6)
    for c in planted:
        te, re = timed(lambda: search(c, big, engine="enumerate", timeout=60, jobs=2))
        zs = [timed(lambda: z3_only(c, big, 60, True)) for _ in range(args.repeat)]
        mz = statistics.median(t for t, _ in zs)
        done = re.completed or {}
        part = f"{done.get('datasets', 0):,} of {done.get('of', 0):,} datasets"
        what = (f"unknown, {part}" if re.verdict == Verdict.UNKNOWN else
                f"refuted, from a partial enumeration: {part}" if re.reason else re.verdict.label)
        print(f"  {c.id:<26} enumeration {te:6.1f} s ({what}) | z3 median {fmt(mz, all(r for _, r in zs))} (target <= 30 s)")



def section3(args, claims):
    print("3. true iteration bounds, 3 points, 2 dims, box 3, 6 updates, separators in [-6, 6]^2 (2 workers):")
    mid = Domain(points=3, dim=2, box=3, max_updates=6, sep_box=6)
    for cid in ("000.iterations", "001.theorem.bound", "002.conclusion.bound"):
        runs = [timed(lambda: search(claims[cid], mid, engine="enumerate", timeout=600, jobs=2)) for _ in range(args.repeat)]
        assert all(r.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN for _, r in runs), runs[0][1].to_json()
        print(f"  {cid:<22} median {statistics.median(t for t, _ in runs):.3f} s ({runs[0][1].checked:,} candidates)")
    if not args.skip_peer:
        t_peer, out = timed(plain_peer_000)
        t_ours = statistics.median(timed(lambda: search(claims["000.iterations"], mid, engine="enumerate",
                                                        timeout=120))[0] for _ in range(args.repeat))
        print(f"  plain Python enumeration of 000.iterations: {t_peer:.2f} s ({out[0]}); ratio ours/plain = {t_ours / t_peer:.4f}")



def section4(args, claims):
    print("4. 000.iterations, 4 points, box 4, 8 updates: 1 worker against 2")
    d448 = Domain(points=4, dim=2, box=4, max_updates=8, sep_box=6)
    t1 = [timed(lambda: search(claims["000.iterations"], d448, engine="enumerate", timeout=300, jobs=1))
          for _ in range(max(1, args.repeat // 2))]
    t2 = [timed(lambda: search(claims["000.iterations"], d448, engine="enumerate", timeout=300, jobs=2))
          for _ in range(max(1, args.repeat // 2))]
    assert t1[0][1].to_json(timing=False) == t2[0][1].to_json(timing=False)
    m1, m2 = statistics.median(t for t, _ in t1), statistics.median(t for t, _ in t2)
    print(f"  1 worker {m1:.1f} s, 2 workers {m2:.1f} s: speed-up {m1 / m2:.2f} (target >= 1.8); "
          f"{t1[0][1].checked:,} candidates, {t1[0][1].verdict.label}, identical results")



def section5(args, claims):
    print(f"5. largest domain completed within 60 s by 000.iterations (2 workers), against {BEFORE_60S:,} candidates before:")
    best = None
    for pts, box, upd in [(4, 3, 8), (5, 3, 8), (4, 4, 8), (4, 5, 8), (5, 4, 8)]:
        d = Domain(points=pts, dim=2, box=box, max_updates=upd, sep_box=6)
        t, r = timed(lambda: search(claims["000.iterations"], d, engine="enumerate", timeout=60, jobs=2))
        print(f"  {pts} points, box {box}, {upd} updates: {r.verdict.label} in {t:.1f} s ({r.checked:,} candidates)")
        if r.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN and (best is None or r.checked > best):
            best = r.checked
    if best:
        print(f"  largest completed: {best:,} candidates, {best / BEFORE_60S:.1f}x the {BEFORE_60S:,} before (target >= 4x)")



def section6(claims):
    print("6. symbolic steps (target <= 1 s each):")
    step_times = []
    for c in claims.values():
        if c.when == "symbolic":
            for s in check_symbolic(c.symbolic["vectors"], c.symbolic["scalars"], c.symbolic["hypotheses"], c.symbolic["steps"]):
                step_times.append((s.seconds, c.id, s.step))
    step_times.sort()
    print(f"  {len(step_times)} steps: median {statistics.median(t for t, _, _ in step_times):.3f} s, "
          f"max {step_times[-1][0]:.3f} s ({step_times[-1][1]}: {step_times[-1][2][:50]})")


if __name__ == "__main__":
    sys.exit(main())
