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
import shlex
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from perceptron import MemoryTrace, ParamError, Params, from_rows, open_writer, train
from perceptron.datasets import write_csv
from perceptron.variants import VARIANTS

from . import _interval as I
from .replay import RunContext, replay
from .verdicts import Verdict

__all__ = ["Domain", "SearchResult", "search", "SEARCHABLE_VARIANTS"]

SEARCHABLE_VARIANTS = ("rosenblatt", "novikoff", "sign", "slides", "sklearn", "unit")
_SEPARATOR_NAMES = {"w_opt", "b_opt", "gamma", "w_hat_opt", "separable", "v_opt", "c_opt", "m_opt"}
_UNSUPPORTED_NAMES = {"t", "epochs", "w_pocket", "pocket_errors", "min_visited_errors", "stopped_by_budget",
                      "gamma_lo", "gamma_hi"}
#: Most instances (dataset x separator x initial weights) one enumeration level holds in memory
#: (a few int64 arrays of this length times points x dimension): a larger domain is refused
#: before its arrays are built, rather than exhausting memory.
MAX_INSTANCES = 3_000_000


#: Most run settings (eta x sign(0) x form) one search enumerates.
MAX_SETTINGS = 64
#: Most initial weight vectors (w0, b0) per dataset.
MAX_W0 = 729
#: Rational points of the unit circle for unit-norm domains: (a/L, b/L) with a^2 + b^2 = L^2.
UNIT_DENOMINATOR = 65


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
    etas: tuple = ("1",)  # learning rates, exact rationals as strings
    w0_box: int = 0  # initial weights (and b0 for the bias variants): every integer vector in [-w0_box, w0_box]^dim
    sign0s: tuple = (0,)  # values of sign(0) (variants with the parameter)
    forms: tuple = ("yx",)  # update forms (the sign variant)
    unit: bool = False  # points on the unit circle (dim 2) instead of the integer box

    def settings(self):
        """(eta, sign0, form) in the engine's order."""
        var = VARIANTS[self.variant]
        sign0s = self.sign0s if var.tie is None else (var.tie,)
        forms = self.forms if var.half_form else ("yx",)
        return [(Fraction(e), s0, f) for e in self.etas for s0 in sign0s for f in forms]

    def describe(self, fold: bool, engine: str, claim=None) -> dict:
        import z3

        d = asdict(self)
        var = VARIANTS[self.variant]
        etas = ", ".join(self.etas)
        w0 = "0" if self.w0_box == 0 else f"every integer vector in [-{self.w0_box}, {self.w0_box}]^{self.dim}" + (
            " (and b0 in the same range)" if var.bias else "")
        settings = f"eta in {{{etas}}}, w0 = {w0}"
        if var.tie is None:
            settings += f", sign(0) in {{{', '.join(map(str, self.sign0s))}}}"
        if var.half_form:
            settings += f", update form in {{{', '.join(self.forms)}}}"
        pts = (f"points on the unit circle with denominator dividing {UNIT_DENOMINATOR}" if self.unit
               else f"integer points in [-{self.box}, {self.box}]^{self.dim} (not all zero)")
        d.update({
            "datasets": f"up to {self.points} {pts}, labels -1/+1"
                        + (" (labels folded into the points: the claim and the tie rule sign(0) = 0 are label-symmetric)" if fold else ""),
            "runs": f"{self.variant} with {settings}, at most {self.max_updates} updates, order {self.order}"
                    + (" (any misclassified point may be taken at each step)" if self.order == "any" else ""),
            "separators": f"integer v in [-{self.sep_box}, {self.sep_box}]^{self.dim}" + (" and bias c in the same range" if var.bias else "")
                          + f", w_opt = v/|v|; {'the widest-margin one per dataset' if self.separators == 'best' else 'every one that separates'}",
            "engine": engine,
            "versions": {"z3": z3.get_version_string(), "numpy": np.__version__},
        })
        if claim is not None and claim.when == "dataset":
            d["runs"] = "none (a claim about datasets)"
        if claim is not None and not _needs_separator(claim):
            d["separators"] = "none (the claim uses no separator)"
        d["text"] = f"{d['datasets']}; runs: {d['runs']}; separators: {d['separators']}; engine {engine}"
        return d


def domain_for(claim, base: "Domain") -> "Domain":
    """The domain of ``base`` widened over every quantity the claim ranges over (eta below and
    above 1 unless eta_one / eta_le_one, w0 in a box unless w0_zero, every sign(0) and update
    form the assumptions leave, every separator unless separator = "max-margin")."""
    from .quantifiers import eta_le_one, ranging

    r = set(ranging(claim))
    a = set(claim.assume)
    kw = {}
    if "eta_one" in a:
        kw["etas"] = ("1",)
    elif "eta" in r:  # the caller's rates (those in the claim's range) and the defaults
        le_one = eta_le_one(claim)
        mine = [e for e in base.etas if not le_one or Fraction(e) <= 1]
        kw["etas"] = tuple(dict.fromkeys(mine + (["1/2", "1"] if le_one else ["1/2", "1", "2"])))
    if "w0_zero" in a:
        kw["w0_box"] = 0
    elif "w0" in r:
        kw["w0_box"] = max(base.w0_box, 1)
    kw["sign0s"] = (0,) if "sign0_zero" in a else (-1, 1) if "sign0_nonzero" in a else (-1, 0, 1)
    kw["forms"] = ("yx",) if "form_yx" in a else ("half",) if "form_half" in a else ("yx", "half")
    if "separator" in r and base.separators == "best":
        kw["separators"] = "all"
    if "unit_norm" in a or base.variant == "unit":
        kw["unit"] = True  # the unit variant normalises its inputs: searched on points that are unit already
    return Domain(**{**asdict(base), **kw})


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
    # every assumption must be enforced by the domain itself, or "none in D" could rest on
    # candidates that do not satisfy it
    if "nonseparable" in claim.assume:
        raise SearchError(f"claim {claim.id} assumes nonseparable data; the search cannot certify non-separability "
                          "of its candidates, so it does not search it")
    if "converged" in claim.assume and claim.when != "end":
        raise SearchError(f"claim {claim.id} assumes the run converges; the search's runs are cut at max_updates")
    bad = set(claim.compiled.names) & _UNSUPPORTED_NAMES
    if bad:
        raise SearchError(f"claim {claim.id} uses {', '.join(sorted(bad))}, which the search's runs do not define")


def _label_symmetric(claim, variant, tie) -> bool:
    """Whether folding labels into the points (x -> y x, y -> +1) is sound: the tie rule must be
    label-symmetric (sign(0) = 0: a zero score is a mistake for either label; with sign(0) =
    +-1 a zero score is correct for one label only), no bias, and the claim must not look at
    a point or label on its own."""
    names = set(claim.compiled.names)
    return tie == 0 and VARIANTS[variant].bias is None and not (names & {"x", "y", "score", "out", "x_hat", "i"}) \
        and not claim.compiled.uses_points and "nontrivial" not in claim.assume


def _needs_separator(claim) -> bool:
    return bool(set(claim.compiled.names) & _SEPARATOR_NAMES) or "separable" in claim.assume


def unit_points(dim):
    """Integer numerators of the rational points of the unit circle with denominator dividing
    UNIT_DENOMINATOR: (a, b) with a^2 + b^2 = L^2 (x = (a, b) / L)."""
    if dim != 2:
        raise SearchError("unit-norm domains are drawn on the unit circle: use --dim 2")
    L = UNIT_DENOMINATOR
    return [(a, b) for a in range(-L, L + 1) for b in range(-L, L + 1) if a * a + b * b == L * L]


def _datasets(n, dim, box, fold, ordered, unit=False):
    """Arrays X (M, n, dim) and Y (M, n) of every dataset in the domain, up to symmetry."""
    coords = unit_points(dim) if unit else list(itertools.product(range(-box, box + 1), repeat=dim))
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
    """Enumerates one setting (eta, sign(0), form) of the domain; initial weights are part of
    each instance (dataset, separator, w0).  Weights are kept as integers W = S w with
    S = q (eta = p/q), times 2 for the 1/2 eta (y - out) x form, times L for unit-circle points."""

    def __init__(self, claim, dom: Domain, deadline, max_exact=None, setting=None):
        self.claim, self.dom, self.deadline = claim, dom, deadline
        self.max_exact, self.exact = max_exact, 0
        self.var = VARIANTS[dom.variant]
        self.bias = self.var.bias is not None
        eta, sign0, form = setting if setting is not None else dom.settings()[0]
        self.eta, self.sign0, self.form = eta, sign0, form
        self.tie = self.var.tie if self.var.tie is not None else sign0
        self.fold = _label_symmetric(claim, dom.variant, self.tie)
        self.need_sep = _needs_separator(claim)
        self.L = UNIT_DENOMINATOR if dom.unit else 1  # x = X / L
        if dom.unit and self.bias:
            raise SearchError("unit-circle domains are for variants without a bias")
        self.f = 2 if form == "half" else 1
        self.S = eta.denominator * self.f * self.L  # w = W / S
        self.p = eta.numerator
        self.checked = 0
        self.max_candidates = None
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

    def _w0s(self, dim):
        """Initial (w0, b0) pairs, integers; (0, 0) first."""
        r = range(-self.dom.w0_box, self.dom.w0_box + 1)
        ws = list(itertools.product(r, repeat=dim))
        bs = list(r) if self.bias else [0]
        pairs = sorted(((w, b) for w in ws for b in bs), key=lambda wb: (max(map(abs, wb[0] + (wb[1],))), wb))
        if len(pairs) > MAX_W0:
            raise SearchError(f"{len(pairs)} initial weight vectors; a search takes at most {MAX_W0} (MAX_W0)")
        return np.array([w for w, _ in pairs], dtype=np.int64).reshape(len(pairs), dim), np.array([b for _, b in pairs], dtype=np.int64)

    def _search_n(self, n):
        dom = self.dom
        X, Y = _datasets(n, dom.dim, dom.box, self.fold, ordered=dom.order != "any", unit=dom.unit)
        nonzero = (X != 0).any(axis=(1, 2))  # R = 0 leaves b/R and x/R undefined: not in D
        X, Y = X[nonzero], Y[nonzero]
        if "nontrivial" in self.claim.assume:
            keep = (Y == 1).any(axis=1) & (Y == -1).any(axis=1)
            X, Y = X[keep], Y[keep]
        if self.need_sep:
            V, C = _separators(dom.dim, dom.sep_box, self.bias)
            if self.L != 1:
                C = C * self.L
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
        W0, B0 = self._w0s(dom.dim)
        if len(X) * len(W0) > MAX_INSTANCES:
            raise SearchError(f"{len(X)} datasets x {len(W0)} initial weight vectors at {n} points exceed "
                              f"{MAX_INSTANCES} instances (MAX_INSTANCES); use fewer points, a smaller box or w0 box")
        self._check_overflow(X, R2, int(np.abs(W0).max(initial=0)), int(np.abs(B0).max(initial=0)))
        if len(W0) > 1:  # instances: every dataset (and separator) with every w0
            M, K = len(X), len(W0)
            rep = np.repeat(np.arange(M), K)
            inst = {k: (v[rep] if v is not None else None) for k, v in inst.items()}
            inst["W0"], inst["B0"] = np.tile(W0, (M, 1)), np.tile(B0, M)
        else:
            inst["W0"], inst["B0"] = np.repeat(W0, len(X), axis=0), np.repeat(B0, len(X))
        return self._bfs(inst, n)

    def _check_overflow(self, X, R2, w0max, b0max):
        """Refuse a setting whose integer weights, biases or scores could leave int64, bounded
        in Python integers before any array is built: |W| <= S |w0| + K p f |x|, |B| <= S |b0| +
        K p R^2, |score| <= |W| |x| d + |B| L."""
        K, S, p, f = self.dom.max_updates, self.S, self.p, self.f
        xmax = int(np.abs(X).max(initial=0))
        wmax = S * w0max + K * p * f * xmax
        bmax = S * b0max + K * p * int(R2.max(initial=0))
        if wmax * xmax * X.shape[2] + bmax * self.L > 2**62:
            raise SearchError(f"eta = {self.eta} with this box, w0 box and {K} updates would overflow 64-bit integers; "
                              "use a smaller box, a simpler eta or a smaller w0 box")

    # ---- runs
    def _bfs(self, inst, n):
        X, Y = inst["X"], inst["Y"]
        M = len(X)
        S, p, f = self.S, self.p, self.f
        # b += eta y R^2 (novikoff) or eta y (sklearn): in units of 1/S
        # (the bias variants have neither the half form nor unit-circle points: f = L = 1)
        eta_b = {"R2": inst["R2"], "one": np.ones(M, dtype=np.int64)}.get(self.var.bias)
        # a state: instance, w, b, k, sumsq, history of (w, b, k, sumsq), path, position
        st = {"inst": np.arange(M), "w": inst["W0"] * S, "b": inst["B0"] * S,
              "sumsq": np.zeros(M, dtype=np.int64), "pos": np.zeros(M, dtype=np.int64),
              "path": np.zeros((M, 0), dtype=np.int64), "hist": []}
        for depth in range(1, self.dom.max_updates + 1):
            if time.monotonic() > self.deadline:
                return "timeout"
            Xi, Yi = X[st["inst"]], Y[st["inst"]]
            scores = np.einsum("mnd,md->mn", Xi, st["w"]) + st["b"][:, None] * self.L
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
            o = out[si, pi]
            w_prev, b_prev = st["w"][si], st["b"][si]
            coef = p * (y - o) if f == 2 else p * y  # W += S eta y x = p f y x (or p (y - out) x)
            w_new = w_prev + coef[:, None] * x
            b_new = b_prev + (coef * eta_b[ins] if eta_b is not None else 0)  # B += S eta y R^2 = p y R^2
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
            scores = np.einsum("mnd,md->mn", Xi, st["w"]) + st["b"][:, None] * self.L
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
        """Interval values of every quantity for a batch of candidates, in the data's units
        (x = X / L, w = W / S, b = B / S, score = (W.X + B L) / (S L))."""
        m = len(ins)
        L, S = self.L, self.S
        X, Y = inst["X"][ins], inst["Y"][ins]
        R2 = _scaled(I.point(inst["R2"][ins]), L * L, m)
        R = I.sqrt(R2)
        vals = {"R2": R2, "R": R, "eta": I.const(self.eta, m), "n": I.point(np.full(m, X.shape[1])),
                "d": I.point(np.full(m, X.shape[2])), "sign0": I.point(np.full(m, self.tie))}
        if "W0" in inst:
            vals["w0"] = _vec(inst["W0"][ins])
        if inst["V"] is not None:
            V, C, Mg = inst["V"][ins], inst["C"][ins], inst["M"][ins]
            nv = I.sqrt(I.point((V * V).sum(axis=1)))
            lo = np.empty(V.shape, dtype=float)
            hi = np.empty(V.shape, dtype=float)
            for j in range(V.shape[1]):
                lo[:, j], hi[:, j] = I.div(I.point(V[:, j]), nv)
            vals["w_opt"] = (lo, hi)
            vals["v_opt"] = _vec(V)
            vals["c_opt"] = _scaled(I.point(C), L, m)
            vals["m_opt"] = _scaled(I.point(Mg), L, m)
            vals["b_opt"] = I.div(vals["c_opt"], nv)
            gamma = I.div(vals["m_opt"], nv)
            if "strict_margin" in self.claim.assume:
                gamma = I.mul(gamma, I.const(1 - Fraction(1, 2**32), m))
            vals["gamma"] = gamma
            bo = I.div(vals["b_opt"], R)
            vals["w_hat_opt"] = (np.hstack([lo, bo[0][:, None]]), np.hstack([hi, bo[1][:, None]]))
            vals["separable"] = I.point(np.ones(m))
        prevs = {}
        if state is not None:
            vals["w"] = _scaled_vec(state["w"], S)
            vals["b"] = _scaled(I.point(state["b"]), S, m)
            vals["k"] = I.point(np.full(m, depth))
            vals["mistakes"] = vals["k"]
            vals["converged"] = I.point(np.ones(m))
            vals["sumsq"] = _scaled(I.point(state["sumsq"]), L * L, m)
            for j, h in enumerate(reversed(state["hist"]), 1):
                pv = dict(vals)
                pv.update({"w": _scaled_vec(h[0], S), "b": _scaled(I.point(h[1]), S, m), "k": I.point(np.full(m, h[2])),
                           "sumsq": _scaled(I.point(h[3]), L * L, m)})
                _with_hats(pv, R)
                prevs[j] = _IEnv(pv, m)
        if edge is not None:
            vals["x"] = _scaled_vec(edge["x"], L)
            vals["y"] = I.point(edge["y"])
            vals["score"] = _scaled(I.point(edge["score"]), S * L, m)
            o = np.sign(edge["score"])
            o[o == 0] = self.tie
            vals["out"] = I.point(o)
            vals["i"] = I.point(edge["i"])
        _with_hats(vals, R)
        pts = []
        for p in range(X.shape[1]):
            pv = dict(vals)
            pv["x"], pv["y"] = _scaled_vec(X[:, p], L), I.point(Y[:, p])
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
        if self.max_candidates is not None and self.checked > self.max_candidates:
            return "candidates"
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
            sep = ([int(v) for v in inst["V"][mi]], Fraction(int(inst["C"][mi]), self.L))
        pts = [[Fraction(int(c), self.L) for c in row] for row in X.tolist()]
        w0 = b0 = None
        if "W0" in inst and (inst["W0"][mi].any() or inst["B0"][mi]):
            w0 = tuple(Fraction(int(c)) for c in inst["W0"][mi])
            b0 = Fraction(int(inst["B0"][mi])) if self.bias else None
        return confirm(self.claim, self.dom.variant, pts, Y.tolist(), path, sep, self.tie, eta=self.eta, w0=w0, b0=b0,
                       form=self.form)


def _scaled(iv, k, m):
    """The interval iv divided by the positive integer k (outward rounded)."""
    return iv if k == 1 else I.div(iv, I.point(np.full(m, k)))


def _scaled_vec(a, k):
    if k == 1:
        return _vec(a)
    a = np.asarray(a)
    lo = np.empty(a.shape, dtype=float)
    hi = np.empty(a.shape, dtype=float)
    kk = I.point(np.full(a.shape[0], k))
    for j in range(a.shape[1]):
        lo[:, j], hi[:, j] = I.div(I.point(a[:, j]), kk)
    return lo, hi


def confirm(claim, variant, points, labels, path, separator, sign0=0, *, eta=Fraction(1), w0=None, b0=None, form="yx"):
    """Replay a candidate exactly.  Returns the counterexample dict if the claim fails on it."""
    ds = from_rows("counterexample", points, labels)
    var = VARIANTS[variant]
    params = Params(variant=variant, order="sequence:" + ",".join(map(str, path)), sign0=sign0 if var.tie is None else 0,
                    eta=Fraction(eta), w0=w0, b0=b0, form=form if var.half_form else "yx")
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
    from perceptron._numbers import format_rational as fr

    return {"points": [[fr(Fraction(c)) for c in p] for p in points], "labels": [int(v) for v in labels],
            "updates": path, "separator": None if separator is None else {"v": [int(a) for a in separator[0]], "b": fr(Fraction(separator[1]))},
            "violation": t.violation, "variant": variant, "order": params.order, "summary": res.summary(),
            "params": {"eta": fr(params.eta), "w0": None if w0 is None else [fr(v) for v in w0],
                       "b0": None if b0 is None else fr(b0), "sign0": params.sign0, "form": params.form}}


# --------------------------------------------------------------------------- hypothesis

def _hypothesis_search(claim, dom: Domain, deadline, examples=300):
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    from .certificates import certify_points

    var = VARIANTS[dom.variant]
    run_settings = dom.settings()
    found = {}
    pool = unit_points(dom.dim) if dom.unit else None
    L = UNIT_DENOMINATOR if dom.unit else 1

    @st.composite
    def candidates(draw):
        n = draw(st.integers(1, dom.points))
        if pool is not None:
            pts = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
        else:
            pts = draw(st.lists(st.lists(st.integers(-dom.box, dom.box), min_size=dom.dim, max_size=dom.dim), min_size=n, max_size=n))
        labels = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
        choices = draw(st.lists(st.integers(0, 10**6), min_size=0, max_size=dom.max_updates))
        setting = draw(st.sampled_from(run_settings))
        w0 = draw(st.lists(st.integers(-dom.w0_box, dom.w0_box), min_size=dom.dim, max_size=dom.dim))
        b0 = draw(st.integers(-dom.w0_box, dom.w0_box)) if var.bias else 0
        return pts, labels, choices, setting, w0, b0

    def violates(c):
        if time.monotonic() > deadline:
            return False
        pts, labels, choices, (eta, sign0, form), w0, b0 = c
        tie = var.tie if var.tie is not None else sign0
        # build a run: at each step take the chosen misclassified point
        fr = [[Fraction(v, L) for v in p] for p in pts]
        w = [Fraction(v) for v in w0]
        b = Fraction(b0)
        R2 = max(sum(v * v for v in p) for p in fr)
        path = []
        for ch in choices:
            mis = []
            for i, (p, yv) in enumerate(zip(fr, labels)):
                s = sum(a * c for a, c in zip(w, p)) + (b if var.bias else 0)
                o = 1 if s > 0 else -1 if s < 0 else tie
                if o != yv:
                    mis.append((i, o))
            if not mis:
                break
            i, o = mis[ch % len(mis)] if dom.order == "any" else mis[0]
            path.append(i)
            coef = eta * labels[i] if form == "yx" or not var.half_form else eta * Fraction(labels[i] - o, 2)
            w = [a + coef * c for a, c in zip(w, fr[i])]
            if var.bias == "R2":
                b += coef * R2
            elif var.bias == "one":
                b += coef
        sep = None
        if _needs_separator(claim):
            cert = certify_points(fr, labels, bias=var.bias is not None)
            if cert.kind != "separable":
                return False
            # the certified integer separator, its bias scaled to an integer with it
            den = cert.c.denominator
            sep = ([int(a) * den for a in cert.v], int(cert.c * den))
        nz = any(w0) or b0
        ce = confirm(claim, dom.variant, fr, labels, path, sep, tie, eta=eta,
                     w0=tuple(Fraction(v) for v in w0) if nz else None, b0=Fraction(b0) if nz and var.bias else None, form=form)
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
           max_exact: int | None = None, widen: bool = True, max_candidates: int | None = None) -> SearchResult:
    """Search for a counterexample to ``claim`` in ``dom``, widened (``widen``) over every
    quantity the claim ranges over (see domain_for).  ``max_exact`` bounds the candidates the
    enumeration may evaluate exactly (a deterministic budget, unlike time).

    "No counterexample in D" needs a complete enumeration in which at least one candidate
    satisfied the claim's assumptions and was evaluated; otherwise the verdict is
    "unknown: empty domain"."""
    _check_searchable(claim)
    variant = _claim_variant(claim, dom.variant if dom.variant != "rosenblatt" or not claim.variants else None)
    dom = Domain(**{**asdict(dom), "variant": variant})
    if widen:
        dom = domain_for(claim, dom)
    if dom.order not in ("any", "first", "cyclic"):
        raise SearchError(f"order must be any, first or cyclic, not {dom.order!r}")
    settings = dom.settings()
    if len(settings) > MAX_SETTINGS:
        raise SearchError(f"{len(settings)} run settings (eta x sign(0) x form); a search takes at most {MAX_SETTINGS}")
    t0 = time.monotonic()
    deadline = t0 + timeout
    folds = {_label_symmetric(claim, variant, VARIANTS[variant].tie if VARIANTS[variant].tie is not None else s0)
             for _, s0, _ in settings}
    fold = folds == {True}
    engines = ["enumerate", "hypothesis", "z3"] if engine == "auto" else [engine]
    reasons = []
    checked = 0
    for eng in engines:
        if time.monotonic() > deadline:
            reasons.append(f"{eng}: not started (time limit)")
            continue
        if eng == "enumerate":
            got = None
            exact_used = 0
            for setting in settings:
                budget = None if max_exact is None else max_exact - exact_used
                en = _Enumerator(claim, dom, deadline, budget, setting)
                en.max_candidates = None if max_candidates is None else max_candidates - checked
                got = en.run()
                checked += en.checked
                exact_used += en.exact
                if got is not None:
                    break
            if got == "timeout":
                reasons.append(f"enumerate: time limit of {timeout:g} s reached")
                continue
            if got == "budget":
                reasons.append(f"enumerate: more than {max_exact} candidates needed exact evaluation (the budget)")
                continue
            if got == "candidates":
                reasons.append(f"enumerate: more than {max_candidates} candidates to screen (the budget)")
                continue
            if got is None:
                if checked == 0:
                    return SearchResult(claim.id, Verdict.UNKNOWN, eng, dom.describe(fold, eng, claim), time.monotonic() - t0, 0,
                                        reason="unknown: empty domain: no candidate of the domain satisfied the claim's "
                                               "assumptions and reached an evaluation (nothing was checked)")
                return SearchResult(claim.id, Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, eng, dom.describe(fold, eng, claim),
                                    time.monotonic() - t0, checked)
        elif eng == "hypothesis":
            got = _hypothesis_search(claim, dom, deadline)
            if got is None:
                reasons.append("hypothesis: unable to find an example (this does not mean none exists)")
                continue
        elif eng == "z3":
            from .search_z3 import z3_search

            # z3 encodes eta = 1 from w = 0 (always in the w0 box): only a domain with eta = 1 holds its models
            got, why = (None, "its encoding has eta = 1, w0 = 0, which this domain does not contain") \
                if Fraction(1) not in {Fraction(e) for e in dom.etas} else z3_search(claim, dom, deadline)
            if got is None:
                reasons.append(f"z3: {why}")
                continue
        else:
            raise SearchError(f"unknown engine {eng!r}")
        res = SearchResult(claim.id, Verdict.REFUTED, eng, dom.describe(fold, eng, claim), time.monotonic() - t0, checked, got)
        if out_dir:
            res.files = save_counterexample(claim, got, out_dir)
        return res
    return SearchResult(claim.id, Verdict.UNKNOWN, engine, dom.describe(fold, engine, claim), time.monotonic() - t0, checked,
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
    dom = domain_for(claim, Domain(**{**asdict(dom), "variant": variant}))
    t0 = time.monotonic()
    en = _Enumerator(claim, dom, t0 + timeout)
    en.worst = [bound, None]
    got = en.run()
    best = en.worst[1] or {"ratio": 0.0, "updates": 0, "bound": float("nan")}
    best.update({"claim": claim.id, "domain": dom.describe(en.fold, "enumerate", claim), "seconds": round(time.monotonic() - t0, 3),
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
    pr = ce.get("params") or {}
    train(ds, Params(variant=ce["variant"], order=ce["order"], eta=Fraction(pr.get("eta", "1")),
                     w0=None if pr.get("w0") is None else tuple(Fraction(v) for v in pr["w0"]),
                     b0=None if pr.get("b0") is None else Fraction(pr["b0"]), sign0=pr.get("sign0", 0),
                     form=pr.get("form", "yx")), open_writer(trace))
    sep = ""
    if ce["separator"]:
        sep = " --separator=" + ",".join(map(str, ce["separator"]["v"]))
        if VARIANTS[ce["variant"]].bias:
            sep += f" --separator-bias={ce['separator']['b']}"
    q = shlex.quote  # paths come from users: the printed command must paste safely
    cmd = f"proof-audit check --data {q(data)} --trace {q(trace)} --claims {q(claim.path)} --only {q(claim.id)}{sep}"
    return {"data": data, "trace": trace, "replay": cmd}
