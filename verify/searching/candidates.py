"""The quantities of a batch of the search's candidates, in the arithmetic the caller asks for:
intervals for the screen (perceptron._interval.Intervals), exact radicals for what the screen
leaves undecided (verify.searching.radicals.Radicals).  Written once for both, so that the two
evaluations cannot disagree about what a quantity means.

Units: the enumerator keeps integers, x = X / L, w = W / S, b = B / S and score =
(W.X + B L) / (S L); each quantity is computed when the claim first asks for it.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from perceptron import _interval as I
from verify.language.quantities import SWEEP_QUANTITIES
from verify.searching.domain import LATE_NAMES
from verify.language.assumptions import STRICT_MARGIN

__all__ = ["quantities", "subset", "separator_quantities", "Lazy", "BatchEnv", "with_hats"]


def subset(d, sel):
    """The rows ``sel`` of a state or edge dict (its arrays and its history of earlier states)."""
    if d is None:
        return None
    out = {k: (v[sel] if isinstance(v, np.ndarray) else v) for k, v in d.items() if k != "hist"}
    if "hist" in d:
        out["hist"] = [(h[0][sel], h[1][sel], h[2], h[3][sel]) for h in d["hist"]]
    return out


def quantities(en, inst, ins, state, edge, depth, A=I.Intervals):
    """The environment of the claim's names for the candidates ``ins`` of the instances
    ``inst`` of the enumerator ``en``, at ``depth`` updates, in the arithmetic ``A``."""
    m = len(ins)
    L, S = en.L, en.S
    X, Y = inst["X"][ins], inst["Y"][ins]
    vals = Lazy()
    _instance_quantities(vals, en, inst, ins, A)
    vals.put("eta", lambda: A.const(en.eta, m))
    vals.put("n", lambda: A.over(np.full(m, X.shape[1]), 1))
    vals.put("d", lambda: A.over(np.full(m, X.shape[2]), 1))
    vals.put("sign0", lambda: A.over(np.full(m, en.tie), 1))
    if "W0" in inst:
        vals.put("w0", lambda: A.over(inst["W0"][ins], 1))
    for key in inst:
        if key.startswith("F:"):  # a free name's value in this row's assignment
            num, den = inst[key][ins], inst["D:" + key[2:]][ins]
            vals.put(key[2:], lambda num=num, den=den: A.over(num, 1) if num.ndim == 2 else
                     A.div(A.over(num, 1), A.over(den, 1)))
    prevs = {}
    if state is not None:
        _run_state(vals, state, depth, m, L, S, A, end=en.claim.when == "end")
        if "E:mistakes" in inst and en.claim.when != "end":  # the run's end, reached before (Enumerator._with_ends)
            for name in LATE_NAMES:
                vals.put(name, lambda name=name: A.over(inst["E:" + name][ins], 1))
        for j, h in enumerate(reversed(state["hist"]), 1):
            pv = vals.child()
            _run_state(pv, {"w": h[0], "b": h[1], "sumsq": h[3]}, h[2], m, L, S, A)
            with_hats(pv, A)
            prevs[j] = BatchEnv(pv, m)
    if edge is not None:
        vals.put("x", lambda: A.over(edge["x"], L))
        vals.put("y", lambda: A.over(edge["y"], 1))
        vals.put("score", lambda: A.over(edge["score"], S * L))

        def out():
            o = np.sign(edge["score"])
            o[o == 0] = en.tie
            return A.over(o, 1)

        vals.put("out", out)
        vals.put("i", lambda: A.over(edge["i"], 1))
        for name in (*SWEEP_QUANTITIES, "t"):  # where the visit is in its sweep, and in the run
            if name in edge:
                vals.put(name, lambda name=name: A.over(edge[name], 1))
    with_hats(vals, A)

    vals.put("ones", lambda: A.over(np.ones((m, X.shape[2]), dtype=np.int64), 1))

    def points():
        pts = []
        for p in range(X.shape[1]):
            pv = vals.child()
            pv.put("x", lambda p=p: A.over(X[:, p], L))
            pv.put("y", lambda p=p: A.over(Y[:, p], 1))
            if state is not None:  # alpha_i: the updates the run made on point i so far
                pv.put("alpha", lambda p=p: A.over((state["path"] == p).sum(axis=1), 1))
            with_hats(pv, A)
            pts.append(BatchEnv(pv, m, prevs))
        for env in prevs.values():
            env._points = pts
        return pts

    return BatchEnv(vals, m, prevs, points)


def _instance_quantities(vals, en, inst, ins, A):
    """R, R2 and the separator's quantities, which belong to the instance and not to the run's
    state: computed once per distinct instance of ``ins`` (a block's candidates are many states
    of few instances), then given to each row."""
    L, got = en.L, {}

    def rows():  # (the distinct instances, each row's index among them), when a name asks
        if not got:
            if len(ins) > 1 and (ins[1:] >= ins[:-1]).all():  # the walk keeps its states in instance order
                new = np.empty(len(ins), dtype=bool)
                new[0] = True
                np.not_equal(ins[1:], ins[:-1], out=new[1:])
                got["u"], got["inv"] = ins[new], np.cumsum(new) - 1
            else:
                got["u"], got["inv"] = np.unique(ins, return_inverse=True)
            got["A"] = A.sized(len(got["u"]))
            iv = got["iv"] = Lazy()
            u, Ak = got["u"], got["A"]
            iv.put("R2", lambda: Ak.over(inst["R2"][u], L * L))
            iv.put("R", lambda: Ak.sqrt(iv["R2"]))
            if inst["V"] is not None:
                separator_quantities(iv, inst["V"][u], inst["C"][u], inst["M"][u], len(u), L, Ak,
                                     STRICT_MARGIN in en.claim.assume)
        return got

    def given(name):
        g = rows()
        v = A.take(g["iv"][name], g["inv"])
        if g["A"] is not A:  # a value that may be undefined on an instance may be on each of its rows
            A.absorb(g["A"], g["inv"])
        return v

    for name in ("R2", "R") + (SEPARATOR_QUANTITIES if inst["V"] is not None else ()):
        vals.put(name, lambda name=name: given(name))


def separator_quantities(vals, V, C, Mg, m, L, A, strict=False):
    """The separator's quantities (w_opt, b_opt, gamma, ...) of candidates whose integer
    separator is (V, C / L) with margin numerator Mg / L (``strict``: gamma made a little smaller,
    as the strict_margin assumption reads it: RunContext.strict_gamma)."""
    vals.put("_nv", lambda: A.sqrt(A.over((V * V).sum(axis=1), 1)))

    def gamma():
        g = A.div(vals["m_opt"], vals["_nv"])
        return A.mul(g, A.const(1 - Fraction(1, 2**32), m)) if strict else g

    def w_hat_opt():
        return A.stack(A.columns(vals["w_opt"]) + [A.div(vals["b_opt"], vals["R"])])

    vals.put("w_opt", lambda: A.scale(A.div, vals["v_opt"], vals["_nv"]))
    vals.put("v_opt", lambda: A.over(V, 1))
    vals.put("c_opt", lambda: A.over(C, L))
    vals.put("m_opt", lambda: A.over(Mg, L))
    vals.put("b_opt", lambda: A.div(vals["c_opt"], vals["_nv"]))
    vals.put("gamma", gamma)
    vals.put("w_hat_opt", w_hat_opt)
    vals.put("separable", lambda: A.over(np.ones(m, dtype=np.int64), 1))


def _run_state(vals, state, depth, m, L, S, A, end=False):
    """w, b, k, mistakes, sumsq (and, for the current state of an end claim, converged) of a run's state."""
    vals.put("w", lambda: A.over(state["w"], S))
    vals.put("b", lambda: A.over(state["b"], S))
    vals.put("k", lambda: A.over(np.full(m, depth), 1))
    vals.put("mistakes", lambda: vals["k"])
    vals.put("sumsq", lambda: A.over(state["sumsq"], L * L))
    if end:  # an end claim sees converged runs, and those its domain's update bound cut (stopped by budget)
        if "epochs" in state:
            vals.put("epochs", lambda: A.over(state["epochs"], 1))
        if "w_pocket" in state:
            vals.put("w_pocket", lambda: A.over(state["w_pocket"], S))
            vals.put("pocket_errors", lambda: A.over(state["pocket_errors"], 1))
            vals.put("min_visited_errors", lambda: A.over(state["min_visited_errors"], 1))
        stopped = int(bool(state.get("stopped")))
        vals.put("converged", lambda: A.over(np.full(m, 1 - stopped, dtype=np.int64), 1))
        vals.put("stopped_by_budget", lambda: A.over(np.full(m, stopped, dtype=np.int64), 1))


class Lazy(dict):
    """Named values computed on first use (a claim names a few of them)."""

    def __init__(self, parent=None):
        super().__init__()
        self.thunks, self.parent = {}, parent

    def put(self, name, thunk):
        self.thunks[name] = thunk
        self.pop(name, None)

    def child(self):
        return Lazy(self)

    def __missing__(self, name):
        if name in self.thunks:
            v = self[name] = self.thunks[name]()
            return v
        if self.parent is not None:
            return self.parent[name]
        raise I.IntervalError(f"{name} is not defined here")

    def has(self, name):
        return name in self or name in self.thunks or (self.parent is not None and self.parent.has(name))


class BatchEnv:
    """The values of a batch of M candidates."""

    def __init__(self, vals: Lazy, m: int, prevs=None, points=None):
        self.vals, self.m, self._prevs, self._points = vals, m, prevs or {}, points

    def get(self, name):
        if not self.vals.has(name):
            raise I.IntervalError(f"{name} is not defined here")
        return self.vals[name]

    def prev(self, j):
        if j not in self._prevs:
            raise I.IntervalError(f"prev(..., {j}) not available")
        return self._prevs[j]

    def points(self):
        if self._points is None:
            raise I.IntervalError("no points here")
        if callable(self._points):
            self._points = self._points()
        return self._points


def with_hats(vals: Lazy, A):
    """w_hat = (w, b/R) and x_hat = (x, R), from the values of the same environment."""
    vals.put("w_hat", lambda: A.stack(A.columns(vals["w"]) + [A.div(vals["b"], vals["R"])]))
    vals.put("x_hat", lambda: A.stack(A.columns(vals["x"]) + [vals["R"]]))


def _names_put(put) -> tuple:
    """The names a function of Lazy values gives (its thunks, none of them computed)."""
    probe = Lazy()
    put(probe, None, None, None, 0, 1, I.Intervals)
    return tuple(probe.thunks)


#: The names separator_quantities gives.
SEPARATOR_QUANTITIES = _names_put(separator_quantities)
