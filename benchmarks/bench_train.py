"""Training speed against peers run in this same script.  Prints medians and ratios.

1. Exact training with a full (every-visit) NPZ trace on CoqPerceptron's vec400_1.dat
   (400 points x 1000 rational features), parsing included.  Peer: the same algorithm written
   the plain way with Python Fractions (one visit at a time), on the same file.  CoqPerceptron's
   C++ GMP perceptron takes about 20 s on this file on a machine like ours (DESIGN.md).
2. Float training with a full trace against scikit-learn's Perceptron.fit on 100 000 separable
   points in 100 dimensions, same epochs, same run (shuffle=False, tol=None, alpha=0), with the
   default BLAS threads and again in a fresh process with one BLAS thread (both printed).

Usage: python benchmarks/bench_train.py [--repeat N] [--skip-peer]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from fractions import Fraction

import numpy as np

from perceptron import Params, open_writer, read_dataset, train
from perceptron.datasets import Dataset

HERE = os.path.dirname(os.path.abspath(__file__))
VEC400 = os.path.join(HERE, "..", "..", "shared", "data", "coqperceptron", "data", "vec400_1.dat")


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def fraction_peer(path):
    """The plain way: parse to Fractions, cyclic Rosenblatt with augmentation, one visit at a time."""
    with open(path) as fh:
        vals = [ln.split("#")[0].strip() for ln in fh]
    vals = [v for v in vals if v]
    n, d = int(vals[0]), int(vals[1])
    xs, ys = [], []
    pos = 2
    for _ in range(n):
        ys.append(1 if vals[pos] == "1" else -1)
        xs.append([Fraction(1)] + [Fraction(v.replace(" ", "").replace("%", "/")) for v in vals[pos + 1:pos + 1 + d]])
        pos += d + 1
    w = [Fraction(0)] * (d + 1)
    while True:
        clean = True
        for x, y in zip(xs, ys):
            if y * sum(a * b for a, b in zip(w, x)) <= 0:
                w = [a + y * b for a, b in zip(w, x)]
                clean = False
        if clean:
            return w


def bench_exact(repeat, skip_peer):
    if not os.path.exists(VEC400):
        print(f"exact: skipped ({VEC400} not found)")
        return
    tmp = tempfile.mkdtemp()

    def ours():
        ds = read_dataset(VEC400)
        return train(ds, Params(augment="first", arithmetic="exact"), open_writer(os.path.join(tmp, "t.npz")))

    t_ours, res = median_time(ours, repeat)
    print(f"exact vec400_1.dat, parse + train + full trace: median {t_ours:.3f} s over {repeat} "
          f"({res.updates} updates, {res.epochs} epochs, {res.visits} visits); target <= 1 s")
    print(f"  vs CoqPerceptron C++ GMP (about 20 s on this file, quoted, not run here): ratio {t_ours / 20:.4f}")
    if not skip_peer:
        t_peer, w = median_time(lambda: fraction_peer(VEC400), 1)
        assert w == res.w, "peer and ours disagree"
        print(f"  vs plain Python Fractions in this script: {t_peer:.2f} s, ratio ours/peer = {t_ours / t_peer:.4f}")


def separable_float(n, d, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    X = rng.uniform(-1, 1, size=(n, d))
    s = X @ w
    keep = np.abs(s) > 0.05
    X, s = X[keep], s[keep]
    return X, np.where(s > 0, 1, -1)


def bench_float(repeat, n=100_000, d=100):
    from sklearn.linear_model import Perceptron

    X, y = separable_float(int(n * 1.1), d)
    X, y = X[:n], y[:n]
    ds = Dataset(name="sep", y=y.astype(np.int8), X_float=np.ascontiguousarray(X))
    tmp = tempfile.mkdtemp()
    res = train(ds, Params(variant="sklearn", arithmetic="float"))
    epochs = res.epochs

    def ours():
        return train(ds, Params(variant="sklearn", arithmetic="float"), open_writer(os.path.join(tmp, "f.npz")))

    def peer():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Perceptron(shuffle=False, tol=None, alpha=0, eta0=1.0, max_iter=epochs).fit(X, y)

    ratios, t_o, t_p = [], [], []
    for _ in range(repeat):
        a, r = median_time(ours, 1)
        b, clf = median_time(peer, 1)
        t_o.append(a)
        t_p.append(b)
        ratios.append(a / b)
    assert np.array_equal(np.array(r.w), clf.coef_[0]) and r.b == clf.intercept_[0], "weights differ from sklearn"
    print(f"float {n} x {d} separable, {epochs} epochs, {r.updates} updates, full every-visit trace:")
    print(f"  ours median {statistics.median(t_o):.3f} s, sklearn.fit median {statistics.median(t_p):.3f} s, "
          f"median ratio ours/sklearn = {statistics.median(ratios):.3f} (target <= 1.0); weights bit-identical")


SINGLE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-peer", action="store_true", help="skip the slow Fraction peer")
    ap.add_argument("--float-only", action="store_true", help="only the float comparison (used for the one-thread run)")
    args = ap.parse_args(argv)
    if not args.float_only:
        bench_exact(args.repeat, args.skip_peer)
    threads = "one BLAS thread" if os.environ.get("OPENBLAS_NUM_THREADS") == "1" else "the default BLAS threads"
    print(f"[{threads}]")
    bench_float(args.repeat)
    if not args.float_only:  # BLAS reads its thread count when numpy loads: a fresh process for one thread
        import subprocess

        subprocess.run([sys.executable, os.path.abspath(__file__), "--float-only", "--repeat", str(args.repeat)],
                       env={**os.environ, **SINGLE_THREAD}, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
