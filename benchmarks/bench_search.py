"""Search and symbolic-check speed, with peers run in this same script.  Prints medians and ratios.

1. Planted false bounds (tests/data/planted_claims.toml) in the domain 4 points, 2 dimensions,
   box 3, 6 updates: our default engine (auto: the complete enumeration decides) against our
   z3 engine (a bounded z3 encoding, the plain approach) on the same claims.
2. "No counterexample in domain" for the true iteration bounds of 000, 001, 002 with 3 points,
   2 dimensions, box 3, up to 6 updates, any order, integer separators in [-6, 6]^2; peer: a
   plain Python enumeration of the same domain for 000's bound (exact Fractions, no batching).
3. How far the domain grows within 60 s for 000's bound.
4. Every symbolic step of the built-in claim files: median and maximum time.

Usage: python benchmarks/bench_search.py [--repeat N] [--skip-peer]
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

from verify.claims import builtin_claim_files, load_claims
from verify.search import Domain, search
from verify.symbolic import check_symbolic
from verify.verdicts import Verdict

HERE = os.path.dirname(os.path.abspath(__file__))
PLANTED = os.path.join(HERE, "..", "tests", "data", "planted_claims.toml")


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


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-peer", action="store_true")
    args = ap.parse_args(argv)

    planted = load_claims(PLANTED).claims
    dom = Domain(points=4, dim=2, box=3, max_updates=6, sep_box=6)
    print("1. planted false bounds, domain 4 points, 2 dims, box 3, 6 updates (target <= 5 s median):")
    for c in planted:
        ours, peer = [], []
        for _ in range(args.repeat):
            t, r = timed(lambda: search(c, dom, engine="auto", timeout=60))
            assert r.verdict == Verdict.REFUTED, r.to_json()
            ours.append(t)
        for _ in range(max(1, args.repeat // 2)):
            t, r = timed(lambda: search(c, dom, engine="z3", timeout=30))
            peer.append(t if r.verdict == Verdict.REFUTED else float("inf"))
        mo, mp = statistics.median(ours), statistics.median(peer)
        print(f"  {c.id:<28} ours (auto) median {mo:.3f} s; our z3 encoding median "
              f"{mp:.3f} s{' (did not refute within 30 s)' if math.isinf(mp) else ''}; ratio ours/z3 = {mo / mp:.4f}")

    print("2. true iteration bounds, no counterexample in 3 points, 2 dims, box 3, 6 updates, any order, separators [-6,6]^2 (target <= 10 s):")
    claims = {c.id: c for f in builtin_claim_files() for c in load_claims(f).claims}
    big = Domain(points=3, dim=2, box=3, max_updates=6, sep_box=6)
    for cid in ("000.iterations", "001.theorem.bound", "002.conclusion.bound"):
        times = []
        for _ in range(args.repeat):
            t, r = timed(lambda: search(claims[cid], big, engine="enumerate", timeout=120))
            assert r.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, r.to_json()
            times.append(t)
        print(f"  {cid:<22} median {statistics.median(times):.3f} s ({r.checked} candidates screened)")
    if not args.skip_peer:
        t_peer, out = timed(plain_peer_000)
        t_ours = statistics.median(timed(lambda: search(claims["000.iterations"], big, engine="enumerate", timeout=120))[0]
                                   for _ in range(args.repeat))
        print(f"  plain Python enumeration of 000.iterations: {t_peer:.2f} s ({out[0]}); ratio ours/plain = {t_ours / t_peer:.4f}")

    print("3. domain growth for 000.iterations within 60 s:")
    for pts, box, upd in [(3, 3, 6), (3, 4, 6), (4, 3, 6), (3, 5, 8), (4, 4, 8), (5, 3, 8)]:
        d = Domain(points=pts, dim=2, box=box, max_updates=upd, sep_box=6)
        t, r = timed(lambda: search(claims["000.iterations"], d, engine="enumerate", timeout=60))
        print(f"  {pts} points, box {box}, {upd} updates: {r.verdict.label} in {t:.2f} s ({r.checked} candidates)")
        if r.verdict != Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN:
            break

    print("4. symbolic steps (target <= 1 s each):")
    step_times = []
    for c in claims.values():
        if c.when == "symbolic":
            for s in check_symbolic(c.symbolic["vectors"], c.symbolic["scalars"], c.symbolic["hypotheses"], c.symbolic["steps"]):
                step_times.append((s.seconds, c.id, s.step))
    step_times.sort()
    print(f"  {len(step_times)} steps: median {statistics.median(t for t, _, _ in step_times):.3f} s, "
          f"max {step_times[-1][0]:.3f} s ({step_times[-1][1]}: {step_times[-1][2][:50]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
