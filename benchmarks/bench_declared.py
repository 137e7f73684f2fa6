"""Declared variants against the same variants hand-written, measured in this same script.

A declaration (tests/data/builtins.toml) runs in the one engine of perceptron.run through
the declared model; the hand-written variant runs its own model.  For each, the median of N
paired runs of
  - training with a complete trace in memory (every visit), and
  - the replay of that trace (verify.replay.dispatch: every record recomputed and compared; the built-in
    variants by verify.replay.dispatch, the declared ones by verify.replay.declared),
on CoqPerceptron's vec400_1 (400 x 1000 rationals, exact, Rosenblatt, augmented first) and on a
separable 100 000 x 100 float set (scikit-learn's variant: b += eta y).  The issue's target: the
declared variant at most 1.5x the hand-written one, training and replay.

Usage: python benchmarks/bench_declared.py [--repeat N] [--skip-float] [--n 100000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import perceptron as P  # noqa: E402
from perceptron.datasets import Dataset  # noqa: E402
from perceptron.declared import load_variants  # noqa: E402
from verify.replay.dispatch import replay  # noqa: E402

VEC400 = os.path.join(ROOT, "..", "shared", "data", "coqperceptron", "data", "vec400_1.dat")


def _time(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def pair(ds, params, declared_name, repeat, cert):
    """Median seconds (train, replay) of the hand-written and the declared variant, and the
    per-pair ratios' medians."""
    rows = {"hand": ([], []), "declared": ([], [])}
    ratios_t, ratios_r = [], []
    for _ in range(repeat):
        got = {}
        for kind, p in (("hand", params), ("declared", P.Params(**{**params.__dict__, "variant": declared_name}))):
            rec = P.MemoryTrace()
            tt, res = _time(lambda: P.train(ds, p, rec))
            tr, (ctx, bad, _) = _time(lambda: replay(ds, rec.trace, cert=cert))
            if bad is not None:
                raise SystemExit(f"{kind} replay failed: {bad}")
            rows[kind][0].append(tt)
            rows[kind][1].append(tr)
            got[kind] = (tt, tr, res)
        ratios_t.append(got["declared"][0] / got["hand"][0])
        ratios_r.append(got["declared"][1] / got["hand"][1])
        a, b = got["hand"][2], got["declared"][2]
        same = a.updates == b.updates and a.visits == b.visits and [float(v) for v in a.w] == [float(v) for v in b.w]
        if not same:
            raise SystemExit("the declared variant's run differs from the hand-written one")
    med = {k: (statistics.median(v[0]), statistics.median(v[1])) for k, v in rows.items()}
    return med, statistics.median(ratios_t), statistics.median(ratios_r), got["hand"][2]


def separable_float(n, d, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    X = rng.uniform(-1, 1, size=(int(n * 1.1), d))
    s = X @ w
    keep = np.abs(s) > 0.05
    return X[keep][:n], np.where(s[keep] > 0, 1, -1)[:n]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-float", action="store_true")
    ap.add_argument("--n", type=int, default=100_000)
    args = ap.parse_args(argv)
    load_variants(os.path.join(ROOT, "tests", "data", "builtins.toml"))
    print("declared variant / hand-written variant (medians of paired runs; ratio < 1: the declared one is faster)")
    if os.path.exists(VEC400):
        ds = P.load(VEC400)
        params = P.Params(variant="rosenblatt", augment="first", arithmetic="exact")
        ctx, _, _ = replay(ds, _trace(ds, params))
        med, rt, rr, res = pair(ds, params, "rosenblatt_declared", args.repeat, ctx.cert)
        print(f"vec400_1 exact (400 x 1000 rationals, {res.updates} updates, {res.visits} visits, trace in memory):")
        _show(med, rt, rr)
    else:
        print(f"vec400_1: {VEC400} not found (../shared beside the checkout); skipped")
    if not args.skip_float:
        X, y = separable_float(args.n, 100)
        ds = Dataset(name="sep", y=y.astype(np.int8), X_float=np.ascontiguousarray(X))
        params = P.Params(variant="sklearn", arithmetic="float")
        from verify.replay.dispatch import RunContext

        # the claims-free replay of a float trace needs no certificate; one fixed separator skips the QP
        cert = RunContext(ds, P.Params(variant="sklearn", arithmetic="float"), separator=([1] * 100, 0)).cert
        med, rt, rr, res = pair(ds, params, "sklearn_declared", max(1, args.repeat // 2), cert)
        print(f"float {len(y)} x 100 separable ({res.updates} updates, {res.visits} visits, trace in memory):")
        _show(med, rt, rr)


def _trace(ds, params):
    rec = P.MemoryTrace()
    P.train(ds, params, rec)
    return rec.trace


def _show(med, rt, rr):
    (ht, hr), (dt, dr) = med["hand"], med["declared"]
    print(f"  train:  hand-written {ht:.4f} s, declared {dt:.4f} s, median ratio {rt:.2f} (target <= 1.5)")
    print(f"  replay: hand-written {hr:.4f} s, declared {dr:.4f} s, median ratio {rr:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
