"""Bounded search for counterexamples to claims: small integer datasets, runs of the claim's
variant, and integer separators.

Domain D: ``points`` labelled points with integer coordinates in [-box, box]^dim; runs of
at most ``max_updates`` updates from w = 0 with eta = 1, taking any misclassified point
(``order any``) or following the ``first`` / ``cyclic`` rule; separators w_opt = v/|v|
(b_opt = c/|v|) for integer v in [-sep_box, sep_box]^dim (c in the same range for the bias
variants): ``separators = best`` takes, per dataset, the one with the largest margin (ties:
the first in lexicographic order), ``all`` every one that separates.  gamma is the exact
margin min_i y_i (w_opt.x_i + b_opt) of that separator.  Update claims are evaluated at every
update, end claims at the end of every run that converges within the budget, dataset claims
once per dataset and separator.

Engines
* ``enumerate`` (complete): every dataset up to symmetry (point order for ``any``; label
  folding x -> y x when the claim never looks at x, y or the score on their own and the
  variant has no bias), every run, breadth first, so the first counterexample found has the
  fewest points, then the fewest updates; among those the smallest coordinates.  Candidates
  are screened in batches by interval arithmetic (verify._interval), undecided ones are
  evaluated exactly.  "No counterexample in D" comes only from this engine.
* ``hypothesis``: random and shrinking search (Hypothesis) over larger domains; can refute,
  never concludes "none".
* ``z3``: a bounded encoding of datasets, separator and runs, solved in a child process
  with a hard time limit; can refute, never concludes "none" (its integer encodings of these
  nonlinear problems rarely finish).
* ``auto``: enumerate, then hypothesis, then z3, until one refutes; says which decided.

Every candidate, whatever the engine, is confirmed by the replay engine (a real dataset, a
trace of the run written by the learner with ``--order sequence:...``, the claim evaluated
exactly) before it is reported.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from perceptron import MemoryTrace, ParamError, Params, from_rows, open_writer, train
from perceptron.datasets import write_csv
from perceptron.variants import VARIANTS

from . import _interval as I
from .replay import ClaimTally, RunContext, _Env, _eval_claim, applicable, replay
from .verdicts import Verdict

__all__ = ["Domain", "SearchResult", "search", "SEARCHABLE_VARIANTS"]

SEARCHABLE_VARIANTS = ("rosenblatt", "novikoff", "sign", "slides", "sklearn")
_SEPARATOR_NAMES = {"w_opt", "b_opt", "gamma", "w_hat_opt", "separable"}
_UNSUPPORTED_NAMES = {"t", "epochs", "w_pocket", "pocket_errors", "min_visited_errors", "stopped_by_budget"}
#: Largest batch of candidates screened at once (bounds memory: a few arrays of this length).
BATCH = 200_000


@dataclass(frozen=True)
class Domain:
    points: int = 3
    dim: int = 2
    box: int = 3
    max_updates: int = 6
    order: str = "any"
    sep_box: int = 6
    separators: str = "best"
    variant: str = "rosenblatt"
    sign0: int = 0

    def describe(self, fold: bool, engine: str) -> dict:
        import z3

        d = asdict(self)
        d.update({
            "datasets": f"up to {self.points} points in [-{self.box}, {self.box}]^{self.dim} (not all zero), labels -1/+1"
                        + (" (labels folded into the points: the claim is label-symmetric)" if fold else ""),
            "runs": f"{self.variant} from w = 0, eta = 1, at most {self.max_updates} updates, order {self.order}"
                    + (" (any misclassified point may be taken at each step)" if self.order == "any" else ""),
            "separators": f"integer v in [-{self.sep_box}, {self.sep_box}]^{self.dim}" + (" and bias c in the same range" if VARIANTS[self.variant].bias else "")
                          + f", w_opt = v/|v|; {'the widest-margin one per dataset' if self.separators == 'best' else 'every one that separates'}",
            "engine": engine,
            "versions": {"z3": z3.get_version_string(), "numpy": np.__version__},
        })
        return d


@dataclass
class SearchResult:
    claim_id: str
    verdict: Verdict
    engine: str
    domain: dict
    seconds: float
    checked: int = 0
    counterexample: dict | None = None
    reason: str = ""
    files: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out = {"claim": self.claim_id, "verdict": self.verdict.label, "engine": self.engine, "domain": self.domain,
               "seconds": round(self.seconds, 3), "candidates_checked": self.checked}
        if self.counterexample:
            out["counterexample"] = self.counterexample
        if self.reason:
            out["reason"] = self.reason
        if self.files:
            out["files"] = self.files
        return out


class SearchError(ValueError):
    """The claim cannot be searched (wrong kind, unsupported quantity or variant)."""


# --------------------------------------------------------------------------- helpers

def _claim_variant(claim, wanted):
    if wanted:
        if claim.variants and wanted not in claim.variants:
            raise SearchError(f"claim {claim.id} is about {list(claim.variants)}, not {wanted}")
        return wanted
    for v in claim.variants or ("rosenblatt",):
        if v in SEARCHABLE_VARIANTS:
            return v
    raise SearchError(f"claim {claim.id} is about {list(claim.variants)}; the search runs {', '.join(SEARCHABLE_VARIANTS)}")


def _check_searchable(claim):
    if claim.when not in ("update", "end", "dataset") or claim.compiled is None:
        raise SearchError(f"claim {claim.id} is evaluated '{claim.when}'; the search handles update, end and dataset claims")
    if claim.datasets or claim.orders:
        raise SearchError(f"claim {claim.id} is about particular datasets or orders, not a search domain")
    bad = set(claim.compiled.names) & _UNSUPPORTED_NAMES
    if bad:
        raise SearchError(f"claim {claim.id} uses {', '.join(sorted(bad))}, which the search's runs do not define")
    for a in claim.assume:
        if a in ("unit_norm",):
            raise SearchError(f"claim {claim.id} assumes {a}; integer datasets are not unit-norm (search with the assumption dropped)")


def _label_symmetric(claim, variant) -> bool:
    names = set(claim.compiled.names)
    return VARIANTS[variant].bias is None and not (names & {"x", "y", "score", "out", "x_hat", "i"}) \
        and not claim.compiled.uses_points and "nontrivial" not in claim.assume


def _needs_separator(claim) -> bool:
    return bool(set(claim.compiled.names) & _SEPARATOR_NAMES) or "separable" in claim.assume


def _datasets(n, dim, box, fold, ordered):
    """Arrays X (M, n, dim) and Y (M, n) of every dataset in the domain, up to symmetry."""
    coords = list(itertools.product(range(-box, box + 1), repeat=dim))
    pts = [(c, 1) for c in coords] if fold else [(c, y) for c in coords for y in (-1, 1)]
    combos = itertools.product(range(len(pts)), repeat=n) if ordered else itertools.combinations_with_replacement(range(len(pts)), n)
    idx = np.array(list(combos), dtype=np.int64).reshape(-1, n)
    P = np.array([p[0] for p in pts], dtype=np.int64).reshape(len(pts), dim)
    L = np.array([p[1] for p in pts], dtype=np.int64)
    return P[idx], L[idx]


def _separators(dim, sep_box, bias):
    """Primitive integer separators (v, c) (gcd 1: multiples are the same hyperplane), smallest
    first (max |coordinate|, then lexicographic), so ties go to the simplest."""
    rng = range(-sep_box, sep_box + 1)
    cands = []
    for v in itertools.product(rng, repeat=dim):
        if not any(v):
            continue
        for c in (rng if bias else (0,)):
            if math.gcd(*v, c) == 1:
                cands.append((max(max(abs(t) for t in v), abs(c)), v, c))
    cands.sort()
    V = np.array([v for _, v, _ in cands], dtype=np.int64)
    C = np.array([c for _, _, c in cands], dtype=np.int64)
    return V, C


def _choose_separators(X, Y, V, C, mode):
    """Per dataset, (instance dataset index, separator index) pairs with margin > 0."""
    if len(X) * len(V) > 4_000_000:  # chunk to bound memory (M x S margins per chunk)
        step = max(1, 4_000_000 // len(V))
        parts = [_choose_separators(X[i:i + step], Y[i:i + step], V, C, mode) for i in range(0, len(X), step)]
        offs = np.arange(0, len(X), step)
        return (np.concatenate([p[0] + o for p, o in zip(parts, offs)]), np.concatenate([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]))
    Vt = V.T.astype(np.float64)
    margins = None
    for p in range(X.shape[1]):
        m_p = Y[:, p, None] * ((X[:, p, :].astype(np.float64) @ Vt) + C[None, :])
        margins = m_p if margins is None else np.minimum(margins, m_p)
    margins = np.rint(margins).astype(np.int64)  # integer data: the products are exact
    valid = margins > 0
    if mode == "all":
        mi, si = np.nonzero(valid)
        return mi, si, margins[mi, si]
    norms2 = (V * V).sum(axis=1)
    # The widest separator maximises margin^2/|v|^2, a ratio of small integers.  Two different
    # such ratios p/q, r/s differ by at least 1/(q s); when that exceeds the rounding of the
    # quotients (max margin^2 * max |v|^4 < 2^50), the float quotients order them exactly and
    # equal ratios give equal floats, so argmax picks the widest, ties going to the first
    # (smallest) separator.  Outside that range the comparison is done in integers.
    mmax = int(np.abs(margins).max(initial=0))
    nmax = int(norms2.max(initial=1))
    if mmax * mmax * nmax * nmax < 2**50:
        score = np.where(valid, (margins.astype(np.float64) ** 2) / norms2[None, :], -1.0)
        best = np.argmax(score, axis=1)
    else:
        best = np.argmax(valid, axis=1)
        for m in range(len(X)):
            for s in np.nonzero(valid[m])[0]:
                t = int(best[m])
                if int(margins[m, s]) ** 2 * int(norms2[t]) > int(margins[m, t]) ** 2 * int(norms2[s]):
                    best[m] = int(s)
    ok = valid[np.arange(len(X)), best]
    mi = np.nonzero(ok)[0]
    return mi, best[mi], margins[mi, best[mi]]


# --------------------------------------------------------------------------- interval env

class _IEnv:
    """Interval values for a batch of M candidates."""

    def __init__(self, vals: dict, m: int, prevs=None, points=None):
        self.vals, self.m, self._prevs, self._points = vals, m, prevs or {}, points

    def get(self, name):
        if name not in self.vals:
            raise I.IntervalError(f"{name} is not defined here")
        return self.vals[name]

    def prev(self, j):
        if j not in self._prevs:
            raise I.IntervalError(f"prev(..., {j}) not available")
        return self._prevs[j]

    def points(self):
        if self._points is None:
            raise I.IntervalError("no points here")
        return self._points


def _vec(a):
    a = np.asarray(a, dtype=np.float64)
    return a, a


def _with_hats(vals, R):
    if "w" in vals and "b" in vals:
        vals["w_hat"] = (np.hstack([vals["w"][0], I.div(vals["b"], R)[0][:, None]]),
                         np.hstack([vals["w"][1], I.div(vals["b"], R)[1][:, None]]))
    if "x" in vals:
        vals["x_hat"] = (np.hstack([vals["x"][0], R[0][:, None]]), np.hstack([vals["x"][1], R[1][:, None]]))


# --------------------------------------------------------------------------- enumerate

class _Enumerator:
    def __init__(self, claim, dom: Domain, deadline, max_exact=None):
        self.claim, self.dom, self.deadline = claim, dom, deadline
        self.max_exact, self.exact = max_exact, 0
        self.var = VARIANTS[dom.variant]
        self.bias = self.var.bias is not None
        self.tie = self.var.tie if self.var.tie is not None else dom.sign0
        self.fold = _label_symmetric(claim, dom.variant)
        self.need_sep = _needs_separator(claim)
        self.checked = 0
        self.prev_depth = claim.compiled.uses_prev
        self.worst = None  # (bound tree, best record) in tightness mode

    def _track_worst(self, inst, ins, state, depth, edge):
        m = len(ins)
        self.checked += m
        env = self._env(inst, ins, state, edge, depth)
        lo, hi = I.ieval(self.worst[0], env, m)
        ratio = depth / np.maximum(hi, 1e-300)
        j = int(np.argmax(ratio))
        if self.worst[1] is None or ratio[j] > self.worst[1]["ratio"]:
            mi = int(ins[j])
            self.worst[1] = {"ratio": float(ratio[j]), "updates": depth, "bound": float(hi[j]),
                             "points": inst["X"][mi].tolist(), "labels": inst["Y"][mi].tolist(),
                             "path": [int(p) for p in state["path"][j]],
                             "separator": None if inst["V"] is None else [int(v) for v in inst["V"][mi]]}
        return None
    def run(self):
        for n in range(1, self.dom.points + 1):
            found = self._search_n(n)
            if found is not None:
                return found
            if time.monotonic() > self.deadline:
                return "timeout"
        return None

    def _search_n(self, n):
        dom = self.dom
        X, Y = _datasets(n, dom.dim, dom.box, self.fold, ordered=dom.order != "any")
        nonzero = (X != 0).any(axis=(1, 2))  # R = 0 leaves b/R and x/R undefined: not in D
        X, Y = X[nonzero], Y[nonzero]
        if "nontrivial" in self.claim.assume:
            keep = (Y == 1).any(axis=1) & (Y == -1).any(axis=1)
            X, Y = X[keep], Y[keep]
        if self.need_sep:
            V, C = _separators(dom.dim, dom.sep_box, self.bias)
            mi, si, margins = _choose_separators(X, Y, V, C, dom.separators)
            X, Y = X[mi], Y[mi]
            sepV, sepC, marg = V[si], C[si], margins
        else:
            sepV = sepC = marg = None
        if len(X) == 0:
            return None
        R2 = (X * X).sum(axis=2).max(axis=1)
        inst = {"X": X, "Y": Y, "R2": R2, "V": sepV, "C": sepC, "M": marg}
        if self.claim.when == "dataset":
            return self._check_batch(inst, np.arange(len(X)), None, depth=0, n=n)
        return self._bfs(inst, n)

    # ---- runs
    def _bfs(self, inst, n):
        X, Y = inst["X"], inst["Y"]
        M, d = len(X), X.shape[2]
        eta_b = {"R2": inst["R2"], "one": np.ones(M, dtype=np.int64)}.get(self.var.bias)
        # a state: instance, w, b, k, sumsq, history of (w, b, k, sumsq), path, position
        st = {"inst": np.arange(M), "w": np.zeros((M, d), dtype=np.int64), "b": np.zeros(M, dtype=np.int64),
              "sumsq": np.zeros(M, dtype=np.int64), "pos": np.zeros(M, dtype=np.int64),
              "path": np.zeros((M, 0), dtype=np.int64), "hist": []}
        for depth in range(1, self.dom.max_updates + 1):
            if time.monotonic() > self.deadline:
                return "timeout"
            Xi, Yi = X[st["inst"]], Y[st["inst"]]
            scores = np.einsum("mnd,md->mn", Xi, st["w"]) + st["b"][:, None]
            out = np.sign(scores)
            out[out == 0] = self.tie
            mist = out != Yi
            if self.claim.when == "end":
                conv = ~mist.any(axis=1)
                if depth > 1 and conv.any():
                    found = self._check_end(inst, st, conv, depth - 1, n)
                    if found is not None:
                        return found
            # expand
            order = self.dom.order
            if order == "any":
                si, pi = np.nonzero(mist)
            elif order == "first":
                has = mist.any(axis=1)
                si = np.nonzero(has)[0]
                pi = np.argmax(mist[si], axis=1)
            else:  # cyclic: first mistake at or after pos
                nn = mist.shape[1]
                rolled = np.array([np.roll(mist[j], -st["pos"][j]) for j in range(len(mist))]) if len(mist) else mist
                has = rolled.any(axis=1)
                si = np.nonzero(has)[0]
                pi = (np.argmax(rolled[si], axis=1) + st["pos"][si]) % nn
            if len(si) == 0:
                return None
            ins = st["inst"][si]
            x = X[ins, pi]
            y = Y[ins, pi]
            w_prev, b_prev = st["w"][si], st["b"][si]
            w_new = w_prev + y[:, None] * x
            b_new = b_prev + (y * eta_b[ins] if eta_b is not None else 0)
            sumsq = st["sumsq"][si] + (x * x).sum(axis=1)
            new = {"inst": ins, "w": w_new, "b": b_new, "sumsq": sumsq, "pos": (pi + 1) % X.shape[1],
                   "path": np.hstack([st["path"][si], pi[:, None]]),
                   "hist": [(h[0][si], h[1][si], h[2], h[3][si]) for h in st["hist"]] + [(w_prev, b_prev, depth - 1, st["sumsq"][si])]}
            new["hist"] = new["hist"][-max(self.prev_depth, 1):]
            if self.claim.when == "update":
                edge = {"x": x, "y": y, "score": scores[si, pi], "i": pi}
                found = self._check_batch(inst, ins, new, depth, n, edge)
                if found is not None:
                    return found
            st = self._dedupe(new)
        if self.claim.when == "end":
            Xi, Yi = X[st["inst"]], Y[st["inst"]]
            scores = np.einsum("mnd,md->mn", Xi, st["w"]) + st["b"][:, None]
            out = np.sign(scores)
            out[out == 0] = self.tie
            conv = ~(out != Yi).any(axis=1)
            if conv.any():
                return self._check_end(inst, st, conv, self.dom.max_updates, n)
        return None

    def _dedupe(self, st):
        """Merge states that behave the same from here on (same instance, weights, position,
        and the history the claim can look back on); keep the first path."""
        parts = [st["inst"][:, None], st["w"], st["b"][:, None], st["pos"][:, None]]
        if self.prev_depth or "sumsq" in self.claim.compiled.names:
            parts.append(st["sumsq"][:, None])
            for h in st["hist"][-self.prev_depth:] if self.prev_depth else []:
                parts += [h[0], h[1][:, None]]
        key = np.hstack(parts)
        _, first = np.unique(key, axis=0, return_index=True)
        first.sort()
        out = {k: (v[first] if isinstance(v, np.ndarray) else v) for k, v in st.items() if k != "hist"}
        out["hist"] = [(h[0][first], h[1][first], h[2], h[3][first]) for h in st["hist"]]
        return out

    def _check_end(self, inst, st, conv, depth, n):
        sel = np.nonzero(conv)[0]
        sub = {k: (v[sel] if isinstance(v, np.ndarray) else v) for k, v in st.items() if k != "hist"}
        sub["hist"] = [(h[0][sel], h[1][sel], h[2], h[3][sel]) for h in st["hist"]]
        return self._check_batch(inst, sub["inst"], sub, depth, n)

    # ---- evaluation
    def _env(self, inst, ins, state, edge, depth):
        m = len(ins)
        X, Y = inst["X"][ins], inst["Y"][ins]
        R2 = I.point(inst["R2"][ins])
        R = I.sqrt(R2)
        vals = {"R2": R2, "R": R, "eta": I.const(Fraction(1), m), "n": I.point(np.full(m, X.shape[1])),
                "d": I.point(np.full(m, X.shape[2])), "w0": _vec(np.zeros((m, X.shape[2]))),
                "sign0": I.point(np.full(m, self.tie))}
        if inst["V"] is not None:
            V, C, Mg = inst["V"][ins], inst["C"][ins], inst["M"][ins]
            nv = I.sqrt(I.point((V * V).sum(axis=1)))
            lo = np.empty(V.shape, dtype=float)
            hi = np.empty(V.shape, dtype=float)
            for j in range(V.shape[1]):
                lo[:, j], hi[:, j] = I.div(I.point(V[:, j]), nv)
            vals["w_opt"] = (lo, hi)
            vals["b_opt"] = I.div(I.point(C), nv)
            gamma = I.div(I.point(Mg), nv)
            if "strict_margin" in self.claim.assume:
                gamma = I.mul(gamma, I.const(1 - Fraction(1, 2**32), m))
            vals["gamma"] = gamma
            bo = I.div(vals["b_opt"], R)
            vals["w_hat_opt"] = (np.hstack([lo, bo[0][:, None]]), np.hstack([hi, bo[1][:, None]]))
            vals["separable"] = I.point(np.ones(m))
        prevs = {}
        if state is not None:
            vals["w"] = _vec(state["w"])
            vals["b"] = I.point(state["b"])
            vals["k"] = I.point(np.full(m, depth))
            vals["mistakes"] = vals["k"]
            vals["converged"] = I.point(np.ones(m))
            vals["sumsq"] = I.point(state["sumsq"])
            for j, h in enumerate(reversed(state["hist"]), 1):
                pv = dict(vals)
                pv.update({"w": _vec(h[0]), "b": I.point(h[1]), "k": I.point(np.full(m, h[2])), "sumsq": I.point(h[3])})
                _with_hats(pv, R)
                prevs[j] = _IEnv(pv, m)
        if edge is not None:
            vals["x"] = _vec(edge["x"])
            vals["y"] = I.point(edge["y"])
            vals["score"] = I.point(edge["score"])
            o = np.sign(edge["score"])
            o[o == 0] = self.tie
            vals["out"] = I.point(o)
            vals["i"] = I.point(edge["i"])
        _with_hats(vals, R)
        pts = []
        for p in range(X.shape[1]):
            pv = dict(vals)
            pv["x"], pv["y"] = _vec(X[:, p]), I.point(Y[:, p])
            _with_hats(pv, R)
            pts.append(_IEnv(pv, m, prevs))
        for env in prevs.values():
            env._points = pts
        return _IEnv(vals, m, prevs, pts)

    def _check_batch(self, inst, ins, state, depth, n, edge=None):
        m = len(ins)
        if state is not None and depth < self.prev_depth:
            return None  # prev(e, j) before the j-th update: the claim does not speak here
        if self.worst is not None:
            return self._track_worst(inst, ins, state, depth, edge)
        self.checked += m
        try:
            env = self._env(inst, ins, state, edge, depth)
            res = I.ieval(self.claim.compiled.tree, env, m)
        except (I.IntervalError, IndexError, ValueError):
            res = np.full(m, I.UNDECIDED)
        cand = np.nonzero(res != I.TRUE)[0]
        if len(cand) == 0:
            return None
        # smallest coordinates first
        X = inst["X"][ins[cand]]
        size = np.abs(X).reshape(len(cand), -1).max(axis=1) * 10**6 + np.abs(X).reshape(len(cand), -1).sum(axis=1)
        for j in cand[np.argsort(size, kind="stable")]:
            if time.monotonic() > self.deadline:
                return "timeout"
            self.exact += 1
            if self.max_exact is not None and self.exact > self.max_exact:
                return "budget"
            found = self._confirm(inst, int(ins[j]), state, j, depth)
            if found is not None:
                return found
        return None

    def _confirm(self, inst, mi, state, j, depth):
        X, Y = inst["X"][mi], inst["Y"][mi]
        path = [int(p) for p in state["path"][j]] if state is not None else []
        sep = None
        if inst["V"] is not None:
            sep = ([int(v) for v in inst["V"][mi]], int(inst["C"][mi]))
        return confirm(self.claim, self.dom.variant, X.tolist(), Y.tolist(), path, sep, self.dom.sign0)


def confirm(claim, variant, points, labels, path, separator, sign0=0):
    """Replay a candidate exactly.  Returns the counterexample dict if the claim fails on it."""
    ds = from_rows("counterexample", points, labels)
    params = Params(variant=variant, order="sequence:" + ",".join(map(str, path)), sign0=sign0 if VARIANTS[variant].tie is None else 0)
    rec = MemoryTrace()
    try:
        res = train(ds, params, rec)
    except ParamError:
        return None
    if claim.when == "end" and not res.converged:
        return None
    if claim.when == "dataset":
        ctx = RunContext(ds, params, separator=separator)
        from .replay import evaluate_dataset_claims

        tallies: dict = {}
        evaluate_dataset_claims([claim], ctx, "counterexample", tallies)
        bad = None
    else:
        ctx, bad, tallies = replay(ds, rec.trace, [claim], dataset_name="counterexample", separator=separator)
    if bad is not None:
        raise AssertionError(f"search produced an inconsistent trace: {bad}")
    t = tallies.get(claim.id)
    if t is None or t.not_applicable or t.violation is None:
        return None
    return {"points": [[int(c) for c in p] for p in points], "labels": [int(v) for v in labels],
            "updates": path, "separator": None if separator is None else {"v": separator[0], "b": separator[1]},
            "violation": t.violation, "variant": variant, "order": params.order, "summary": res.summary()}


# --------------------------------------------------------------------------- hypothesis

def _hypothesis_search(claim, dom: Domain, deadline, examples=300):
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    from .certificates import certify_points

    var = VARIANTS[dom.variant]
    tie = var.tie if var.tie is not None else dom.sign0
    found = {}

    @st.composite
    def candidates(draw):
        n = draw(st.integers(1, dom.points))
        pts = draw(st.lists(st.lists(st.integers(-dom.box, dom.box), min_size=dom.dim, max_size=dom.dim), min_size=n, max_size=n))
        labels = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
        choices = draw(st.lists(st.integers(0, 10**6), min_size=0, max_size=dom.max_updates))
        return pts, labels, choices

    def violates(c):
        if time.monotonic() > deadline:
            return False
        pts, labels, choices = c
        ds = from_rows("h", pts, labels)
        # build a run: at each step take the chosen misclassified point
        fr = [[Fraction(v) for v in p] for p in pts]
        w = [Fraction(0)] * dom.dim
        b = Fraction(0)
        R2 = max(sum(v * v for v in p) for p in fr)
        path = []
        for ch in choices:
            mis = []
            for i, (p, yv) in enumerate(zip(fr, labels)):
                s = sum(a * c for a, c in zip(w, p)) + (b if var.bias else 0)
                o = 1 if s > 0 else -1 if s < 0 else tie
                if o != yv:
                    mis.append(i)
            if not mis:
                break
            i = mis[ch % len(mis)] if dom.order == "any" else mis[0]
            path.append(i)
            w = [a + labels[i] * c for a, c in zip(w, fr[i])]
            if var.bias == "R2":
                b += labels[i] * R2
            elif var.bias == "one":
                b += labels[i]
        sep = None
        if _needs_separator(claim):
            cert = certify_points(fr, labels, bias=var.bias is not None)
            if cert.kind != "separable":
                return False
            # scale the certified rational separator to integers for an exact, reproducible one
            den = math.lcm(*[v.denominator for v in cert.w_opt + [cert.b_opt]])
            v = [int(c * den) for c in cert.w_opt]
            sep = (v, int(cert.b_opt * den))
        ce = confirm(claim, dom.variant, pts, labels, path, sep, dom.sign0)
        if ce is not None:
            found["ce"] = ce
            return True
        return False

    try:
        best = find(candidates(), violates, settings=settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                                                              suppress_health_check=list(HealthCheck),
                                                              phases=[Phase.generate, Phase.shrink]))
    except NoSuchExample:
        return None
    violates(best)
    return found.get("ce")


# --------------------------------------------------------------------------- entry point

def search(claim, dom: Domain, engine: str = "auto", timeout: float = 60.0, out_dir: str | None = None,
           max_exact: int | None = None) -> SearchResult:
    """Search for a counterexample to ``claim`` in ``dom``.  ``max_exact`` bounds the
    candidates the enumeration may evaluate exactly (a deterministic budget, unlike time)."""
    _check_searchable(claim)
    variant = _claim_variant(claim, dom.variant if dom.variant != "rosenblatt" or not claim.variants else None)
    dom = Domain(**{**asdict(dom), "variant": variant})
    if dom.order not in ("any", "first", "cyclic"):
        raise SearchError(f"order must be any, first or cyclic, not {dom.order!r}")
    t0 = time.monotonic()
    deadline = t0 + timeout
    fold = _label_symmetric(claim, variant)
    engines = ["enumerate", "hypothesis", "z3"] if engine == "auto" else [engine]
    reasons = []
    checked = 0
    for eng in engines:
        if time.monotonic() > deadline:
            reasons.append(f"{eng}: not started (time limit)")
            continue
        if eng == "enumerate":
            en = _Enumerator(claim, dom, deadline, max_exact)
            got = en.run()
            checked += en.checked
            if got == "timeout":
                reasons.append(f"enumerate: time limit of {timeout:g} s reached")
                continue
            if got == "budget":
                reasons.append(f"enumerate: more than {max_exact} candidates needed exact evaluation (the budget)")
                continue
            if got is None:
                return SearchResult(claim.id, Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, eng, dom.describe(fold, eng),
                                    time.monotonic() - t0, checked)
        elif eng == "hypothesis":
            got = _hypothesis_search(claim, dom, deadline)
            if got is None:
                reasons.append("hypothesis: unable to find an example (this does not mean none exists)")
                continue
        elif eng == "z3":
            from .search_z3 import z3_search

            got, why = z3_search(claim, dom, deadline)
            if got is None:
                reasons.append(f"z3: {why}")
                continue
        else:
            raise SearchError(f"unknown engine {eng!r}")
        res = SearchResult(claim.id, Verdict.REFUTED, eng, dom.describe(fold, eng), time.monotonic() - t0, checked, got)
        if out_dir:
            res.files = save_counterexample(claim, got, out_dir)
        return res
    return SearchResult(claim.id, Verdict.UNKNOWN, engine, dom.describe(fold, engine), time.monotonic() - t0, checked,
                        reason="; ".join(reasons))


def _bound_tree(claim):
    """The bound B of a claim 'mistakes <= B' (end) or 'k <= B' (update), else None."""
    t = claim.compiled.tree
    if t[0] == "and":
        t = t[1][0]
    if t[0] == "cmp" and len(t[1]) == 1 and t[1][0] in ("<=", "<") and t[2][0] in (("name", "mistakes"), ("name", "k")):
        return t[2][1]
    return None


def worst(claim, dom: Domain, timeout: float = 60.0) -> dict:
    """Tightness: the largest (update count) / (bound) over the domain, with its dataset."""
    _check_searchable(claim)
    bound = _bound_tree(claim)
    if bound is None:
        raise SearchError(f"claim {claim.id} is not a bound of the form 'mistakes <= B' or 'k <= B'")
    variant = _claim_variant(claim, None)
    dom = Domain(**{**asdict(dom), "variant": variant})
    t0 = time.monotonic()
    en = _Enumerator(claim, dom, t0 + timeout)
    en.worst = [bound, None]
    got = en.run()
    best = en.worst[1] or {"ratio": 0.0, "updates": 0, "bound": float("nan")}
    best.update({"claim": claim.id, "domain": dom.describe(en.fold, "enumerate"), "seconds": round(time.monotonic() - t0, 3),
                 "complete": got != "timeout", "candidates": en.checked})
    return best


def save_counterexample(claim, ce, out_dir) -> dict:
    """Write the counterexample as a dataset CSV and its trace; return the paths and the
    command that replays it."""
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, claim.id.replace("/", "_"))
    ds = from_rows("counterexample", ce["points"], ce["labels"])
    data = base + ".csv"
    write_csv(ds, data)
    trace = base + ".trace.jsonl"
    train(ds, Params(variant=ce["variant"], order=ce["order"]), open_writer(trace))
    sep = ""
    if ce["separator"]:
        sep = " --separator=" + ",".join(map(str, ce["separator"]["v"]))
        if VARIANTS[ce["variant"]].bias:
            sep += f" --separator-bias={ce['separator']['b']}"
    cmd = f"proof-audit check --data {data} --trace {trace} --claims {claim.path} --only {claim.id}{sep}"
    return {"data": data, "trace": trace, "replay": cmd}
