"""A deliberately naive reference perceptron for tests: one visit at a time, Fractions or
floats, no blocks, no scaling.  The run loop in perceptron.run must agree with it exactly."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from perceptron.params import prepare_inputs
from perceptron.variants import VARIANTS


def sgn(v, tie):
    return 1 if v > 0 else -1 if v < 0 else tie


def naive_run(ds, params):
    """Returns (visits, updates, final) where visits = [(epoch, i, score, mistake, k)],
    updates = [(t, w or alpha, b)]."""
    var = VARIANTS[params.variant]
    exact = params.arithmetic == "exact"
    X, D = prepare_inputs(ds, params)
    conv = (lambda v: Fraction(int(v), D)) if exact else float
    xs = [[conv(v) for v in row] for row in X]
    y = [int(v) for v in ds.y]
    n, d = len(xs), len(xs[0])
    num = Fraction if exact else float
    eta = num(params.eta)
    tie = var.tie if var.tie is not None else params.sign0
    w = [num(v) for v in params.w0] if params.w0 else [num(0)] * d
    b = num(params.b0 or 0)
    R2 = max(sum(v * v for v in x) for x in xs)
    alpha = [0] * n

    def dot(a, c):
        s = num(0)
        for p, q in zip(a, c):
            s += p * q
        return s

    def kern(a, c):
        g = dot(a, c)
        if params.kernel == "linear":
            return g
        return (g + num(params.offset)) ** params.degree

    def score(i):
        if var.dual:
            return eta * sum((alpha[j] * y[j] * kern(xs[j], xs[i]) for j in range(n)), num(0))
        s = dot(w, xs[i])
        return s + b if var.bias else s

    visits, updates = [], []
    k = 0
    run = run_pocket = 0
    pocket = list(w)

    def visit(epoch, i):
        nonlocal k, w, b, run, run_pocket, pocket
        s = score(i)
        out = sgn(s, tie)
        mistake = out != y[i]
        if mistake:
            if var.pocket and run > run_pocket:
                pocket, run_pocket = list(w), run
            if var.dual:
                alpha[i] += 1
            else:
                c = eta * y[i] if params.form == "yx" else eta * (y[i] - out) / 2
                w = [a + c * xv for a, xv in zip(w, xs[i])]
                if var.bias == "R2":
                    b = b + eta * y[i] * R2
                elif var.bias == "one":
                    b = b + eta * y[i]
            k += 1
            run = 0
            updates.append((len(visits) + 1, list(alpha) if var.dual else list(w), b if var.bias else None))
        else:
            run += 1
        visits.append((epoch, i, s, mistake, k))
        return mistake

    order = params.order
    epoch = 0
    if order in ("cyclic",) or order.startswith("random:"):
        rng = np.random.default_rng(int(order.split(":")[1])) if order.startswith("random:") else None
        while epoch < params.max_epochs and k < params.max_updates:
            epoch += 1
            perm = rng.permutation(n) if rng is not None else range(n)
            clean = True
            for i in perm:
                if visit(epoch, int(i)):
                    clean = False
                    if k >= params.max_updates:
                        break
            if clean:
                break
    else:
        while True:
            scores = [score(i) for i in range(n)]
            mist = [sgn(s, tie) != y[i] for i, s in enumerate(scores)]
            epoch += 1
            if not any(mist):
                for i in range(n):
                    visit(epoch, i)
                break
            if k >= params.max_updates or epoch > params.max_epochs:
                break
            if order == "first":
                j = mist.index(True)
                for i in range(j + 1):
                    visit(epoch, i)
            else:
                cand = [i for i in range(n) if mist[i]]
                j = min(cand, key=lambda i: (scores[i] * y[i], i))
                visit(epoch, j)
    if var.pocket and run > run_pocket:
        pocket = list(w)
    return visits, updates, {"w": w, "b": b, "alpha": alpha, "pocket": pocket}
