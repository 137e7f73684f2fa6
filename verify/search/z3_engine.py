"""The z3 engine of the search: datasets, separator and a run as one bounded formula.

Unknowns: N points (integers in the box) and labels, an integer separator v (and c), the
point taken at each of up to K steps (any misclassified one, or the first); the claim's
negation at some update (update claims), at the end of a converged run (end claims), or for
the dataset (dataset claims).  Square roots become reals s >= 0 with s^2 = arg.  z3 runs in
a child process killed at the deadline (its own timeouts are soft on nonlinear problems);
a model is only a candidate: the caller replays it exactly before reporting anything.
"""

from __future__ import annotations

import time
from fractions import Fraction

from perceptron.variants import VARIANTS

from .._child import run_in_child

__all__ = ["z3_search"]


class _Unsupported(Exception):
    pass


def _build(claim, dom, n):
    import z3

    var = VARIANTS[dom.variant]
    tie = var.tie if var.tie is not None else dom.sign0s[0]  # z3 encodes eta = 1, w0 = 0, this sign(0)
    bias = var.bias is not None
    s = z3.Solver()
    d, B, K = dom.dim, dom.box, dom.max_updates
    X = [[z3.Int(f"x_{i}_{j}") for j in range(d)] for i in range(n)]
    Y = [z3.Int(f"y_{i}") for i in range(n)]
    for i in range(n):
        s.add(z3.Or(Y[i] == 1, Y[i] == -1))
        for j in range(d):
            s.add(X[i][j] >= -B, X[i][j] <= B)
    n2 = [z3.Sum([X[i][j] * X[i][j] for j in range(d)]) for i in range(n)]
    R2 = z3.Int("R2")
    s.add(*[R2 >= q for q in n2], z3.Or(*[R2 == q for q in n2]), R2 > 0)  # not all points zero, as in D
    R = z3.Real("R")
    s.add(R >= 0, R * R == z3.ToReal(R2))
    aux = [0]

    def fresh_sqrt(e):
        aux[0] += 1
        r = z3.Real(f"sqrt_{aux[0]}")
        s.add(r >= 0, r * r == e, e >= 0)
        return r

    sep = {}
    names = set(claim.compiled.names)
    if names & {"v_opt", "c_opt", "m_opt"}:
        raise _Unsupported("v_opt, c_opt, m_opt are not encoded")
    if names & {"w_opt", "b_opt", "gamma", "w_hat_opt", "separable"} or "separable" in claim.assume:
        V = [z3.Int(f"v_{j}") for j in range(d)]
        C = z3.Int("c") if bias else z3.IntVal(0)
        S = dom.sep_box
        for j in range(d):
            s.add(V[j] >= -S, V[j] <= S)
        if bias:
            s.add(C >= -S, C <= S)
        s.add(z3.Or(*[v != 0 for v in V]))
        margins = [Y[i] * (z3.Sum([V[j] * X[i][j] for j in range(d)]) + C) for i in range(n)]
        m = z3.Int("margin")
        s.add(*[m <= q for q in margins], z3.Or(*[m == q for q in margins]), m > 0)
        nv = z3.Real("nv")
        s.add(nv > 0, nv * nv == z3.ToReal(z3.Sum([v * v for v in V])))
        gamma = z3.ToReal(m) / nv
        if "strict_margin" in claim.assume:
            gamma = gamma * (1 - z3.RealVal(Fraction(1, 2**32)))
        w_opt = [z3.ToReal(v) / nv for v in V]
        b_opt = z3.ToReal(C) / nv
        sep = {"w_opt": w_opt, "b_opt": b_opt, "gamma": gamma, "w_hat_opt": w_opt + [b_opt / R],
               "separable": z3.RealVal(1), "_V": V, "_C": C}
    if "nontrivial" in claim.assume:
        s.add(z3.Or(*[Y[i] == 1 for i in range(n)]), z3.Or(*[Y[i] == -1 for i in range(n)]))

    def sel(vals, c):
        out = vals[-1]
        for i in range(len(vals) - 2, -1, -1):
            out = z3.If(c == i, vals[i], out)
        return out

    def outsign(sc):
        return z3.If(sc > 0, 1, z3.If(sc < 0, -1, tie))

    # the run
    W = [[z3.IntVal(0)] * d]
    Bs = [z3.IntVal(0)]
    SS = [z3.IntVal(0)]
    steps = []
    act = []
    for t in range(1, K + 1 if claim.when != "dataset" else 1):
        c = z3.Int(f"c_{t}")
        a = z3.Bool(f"active_{t}")
        s.add(c >= 0, c < n)
        if act:
            s.add(z3.Implies(a, act[-1]))
        xs = [sel([X[i][j] for i in range(n)], c) for j in range(d)]
        ys = sel(Y, c)
        score = z3.Sum([W[-1][j] * xs[j] for j in range(d)]) + (Bs[-1] if bias else 0)
        if dom.order == "first":
            for i in range(n):
                sc_i = z3.Sum([W[-1][j] * X[i][j] for j in range(d)]) + (Bs[-1] if bias else 0)
                s.add(z3.Implies(z3.And(a, i < c), outsign(sc_i) == Y[i]))
        s.add(z3.Implies(a, outsign(score) != ys))
        w_new = [z3.If(a, W[-1][j] + ys * xs[j], W[-1][j]) for j in range(d)]
        step_b = {"R2": R2, "one": z3.IntVal(1)}.get(var.bias)
        b_new = z3.If(a, Bs[-1] + ys * step_b, Bs[-1]) if step_b is not None else z3.IntVal(0)
        ss_new = z3.If(a, SS[-1] + z3.Sum([v * v for v in xs]), SS[-1])
        steps.append({"t": t, "x": xs, "y": ys, "score": score, "c": c, "a": a})
        act.append(a)
        W.append(w_new)
        Bs.append(b_new)
        SS.append(ss_new)

    def state(t):
        return {"w": W[t], "b": Bs[t], "k": z3.IntVal(t), "sumsq": SS[t], "mistakes": z3.IntVal(t)}

    base = {"R2": R2, "R": R, "eta": z3.IntVal(1), "n": z3.IntVal(n), "d": z3.IntVal(d), "w0": [z3.IntVal(0)] * d,
            "sign0": z3.IntVal(tie), **{k: v for k, v in sep.items() if not k.startswith("_")}}
    tr = _Translator(z3, fresh_sqrt, X, Y, R)
    goals = []
    if claim.when == "dataset":
        goals.append(z3.Not(tr.cond(claim.compiled.tree, {**base}, {})))
    elif claim.when == "update":
        for st in steps:
            t = st["t"]
            env = {**base, **state(t), "x": st["x"], "y": st["y"], "score": st["score"], "i": st["c"],
                   "out": outsign(st["score"])}
            prevs = {j: {**base, **state(t - j)} for j in range(1, t + 1)}
            if claim.compiled.uses_prev > t:
                continue
            goals.append(z3.And(st["a"], z3.Not(tr.cond(claim.compiled.tree, env, prevs))))
    else:  # end: runs that converge after exactly T updates
        for T in range(1, K + 1):
            conv = [outsign(z3.Sum([W[T][j] * X[i][j] for j in range(d)]) + (Bs[T] if bias else 0)) == Y[i] for i in range(n)]
            done = [act[T - 1]] + ([z3.Not(act[T])] if T < K else [])
            env = {**base, **state(T), "converged": z3.IntVal(1)}
            prevs = {j: {**base, **state(T - j)} for j in range(1, T + 1)}
            goals.append(z3.And(*done, *conv, z3.Not(tr.cond(claim.compiled.tree, env, prevs))))
    if not goals:
        raise _Unsupported("nothing to check in this domain")
    s.add(z3.Or(*goals))
    keys = {"X": [[str(v) for v in row] for row in X], "Y": [str(v) for v in Y],
            "c": [str(st["c"]) for st in steps], "a": [str(st["a"]) for st in steps]}
    if sep:
        keys["V"] = [str(v) for v in sep["_V"]]
        keys["C"] = str(sep["_C"])
    return s, keys


class _Translator:
    """Claim tree -> z3 terms.  Vectors are lists of terms."""

    def __init__(self, z3, fresh_sqrt, X, Y, R):
        self.z3, self.fresh_sqrt, self.X, self.Y, self.R = z3, fresh_sqrt, X, Y, R

    def cond(self, tree, env, prevs):
        return self.ev(tree, env, prevs)

    def ev(self, t, env, prevs):
        z3 = self.z3
        op = t[0]
        if op == "num":
            return z3.RealVal(t[1])
        if op == "name":
            nm = t[1]
            if nm == "w_hat":
                return list(env["w"]) + [z3.ToReal(env["b"]) / self.R]
            if nm == "x_hat":
                return list(env["x"]) + [self.R]
            if nm not in env:
                raise _Unsupported(f"{nm} is not encoded")
            return env[nm]
        if op == "neg":
            a = self.ev(t[1], env, prevs)
            return [-v for v in a] if isinstance(a, list) else -a
        if op == "not":
            return z3.Not(self.ev(t[1], env, prevs))
        if op == "bin":
            a, b = self.ev(t[2], env, prevs), self.ev(t[3], env, prevs)
            o = t[1]
            if isinstance(a, list) or isinstance(b, list):
                if o == "+":
                    return [p + q for p, q in zip(a, b)]
                if o == "-":
                    return [p - q for p, q in zip(a, b)]
                if o == "*":
                    return [b * v for v in a] if isinstance(a, list) else [a * v for v in b]
                if o == "/":
                    return [z3.ToReal(v) / b if z3.is_int(v) else v / b for v in a]
            if o == "/":
                return _real(z3, a) / _real(z3, b)
            return {"+": a + b, "-": a - b, "*": a * b}[o]
        if op == "pow":
            a = self.ev(t[1], env, prevs)
            e = t[2]
            out = z3.RealVal(1)
            for _ in range(abs(e)):
                out = out * a
            return out if e >= 0 else 1 / out
        if op == "cmp":
            vals = [self.ev(p, env, prevs) for p in t[2]]
            parts = []
            for o, a, b in zip(t[1], vals, vals[1:]):
                if isinstance(a, list):
                    eq = z3.And(*[p == q for p, q in zip(a, b)])
                    parts.append(eq if o == "==" else z3.Not(eq))
                else:
                    parts.append({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[o])
            return z3.And(*parts)
        if op == "and":
            return z3.And(*[self.ev(v, env, prevs) for v in t[1]])
        if op == "or":
            return z3.Or(*[self.ev(v, env, prevs) for v in t[1]])
        if op == "prev":
            j = t[2]
            if j not in prevs:
                raise _Unsupported("prev beyond the run")
            return self.ev(t[1], prevs[j], {k - j: v for k, v in prevs.items() if k > j})
        if op == "agg":
            vals = []
            for i in range(len(self.X)):
                e = {**env, "x": self.X[i], "y": self.Y[i]}
                vals.append(self.ev(t[2], e, prevs))
            name = t[1]
            if name == "all_i":
                return z3.And(*vals)
            if name == "any_i":
                return z3.Or(*vals)
            if name == "sum_i":
                return z3.Sum(vals)
            out = vals[0]
            for v in vals[1:]:
                out = z3.If(v < out, v, out) if name == "min_i" else z3.If(v > out, v, out)
            return out
        if op == "call":
            name = t[1]
            args = [self.ev(a, env, prevs) for a in t[2]]
            if name in ("dot", "norm2", "norm"):
                u, v = (args[0], args[1]) if name == "dot" else (args[0], args[0])
                s = z3.Sum([p * q for p, q in zip(u, v)])
                return self.fresh_sqrt(_real(z3, s)) if name == "norm" else s
            if name == "sqrt":
                return self.fresh_sqrt(_real(z3, args[0]))
            if name == "abs":
                return z3.If(args[0] >= 0, args[0], -args[0])
            if name == "sign":
                return z3.If(args[0] > 0, 1, z3.If(args[0] < 0, -1, 0))
            if name in ("min", "max"):
                out = args[0]
                for v in args[1:]:
                    out = z3.If(v < out, v, out) if name == "min" else z3.If(v > out, v, out)
                return out
            if name == "floor":
                return z3.ToInt(_real(z3, args[0]))
            if name == "ceil":
                return -z3.ToInt(-_real(z3, args[0]))
            if name == "vec":
                return args
        raise _Unsupported(f"{op} is not encoded for z3")


def _real(z3, e):
    return z3.ToReal(e) if z3.is_int(e) else e


def _child(claim, dom, n, timeout, conn):
    import z3

    try:
        s, keys = _build(claim, dom, n)
    except _Unsupported as e:
        conn.send(("unsupported", str(e)))
        return
    s.set("timeout", int(timeout * 1000))
    r = s.check()
    if r != z3.sat:
        conn.send((str(r), s.reason_unknown() if r == z3.unknown else ""))
        return
    m = s.model()
    byname = {d.name(): m[d] for d in m.decls()}

    def val(name, default=0):
        v = byname.get(name)
        return int(v.as_long()) if v is not None else default

    out = {"X": [[val(v) for v in row] for row in keys["X"]], "Y": [val(v, 1) for v in keys["Y"]],
           "c": [val(v) for v in keys["c"]], "a": [z3.is_true(byname[v]) if v in byname else False for v in keys["a"]]}
    if "V" in keys:
        out["V"] = [val(v) for v in keys["V"]]
        out["C"] = val(keys["C"]) if keys["C"] != "0" else 0
    conn.send(("sat", out))


def _solve(claim, dom, n, timeout):
    # A fresh interpreter per query: z3's term sharing (and so its search) depends on what the
    # process built before, and a forked child would inherit that; spawn keeps runs repeatable.
    got = run_in_child(_child, (claim, dom, n, timeout), timeout + 3.0, method="spawn")  # + start-up
    return got or ("unknown", f"killed at the hard limit ({timeout:.1f} s)")


def z3_search(claim, dom, deadline):
    """(counterexample dict, None) or (None, reason)."""
    from .confirm import confirm

    if Fraction(1) not in {Fraction(e) for e in dom.etas}:
        return None, "its encoding has eta = 1, w0 = 0, which this domain does not contain"
    reasons = []
    for n in range(1, dom.points + 1):
        left = deadline - time.time()
        if left <= 0.2:
            reasons.append("time limit reached")
            break
        r, model = _solve(claim, dom, n, left)
        if r == "unsupported":
            return None, f"not encodable: {model}"
        if r == "unsat":
            reasons.append(f"{n} point(s): unsat")
            continue
        if r != "sat":
            reasons.append(f"{n} point(s): {r} {model}".strip())
            continue
        path = [c for c, a in zip(model["c"], model["a"]) if a]
        sep = (model["V"], model.get("C", 0)) if "V" in model else None
        ce = confirm(claim, dom.variant, model["X"], model["Y"], path, sep, dom.sign0s[0])
        if ce is not None:
            return ce, None
        reasons.append(f"{n} point(s): z3's model did not survive exact replay")
    return None, "; ".join(reasons) or "no model"
