"""The search domain D: what a search ranges over, its limits, and the canonical order of its
datasets (the order in which shards and blocks enumerate them, and in which "the smallest
counterexample" is meant).

D: ``points`` labelled points with integer coordinates in [-box, box]^dim (or rational points
of the unit circle); runs of at most ``max_updates`` updates from w0 with learning rate eta,
taking any misclassified point (``order any``) or following the ``first`` / ``cyclic`` rule;
separators w_opt = v/|v| (b_opt = c/|v|) for integer v in [-sep_box, sep_box]^dim (c in the
same range for the bias variants): ``separators = best`` takes, per dataset, the one with the
largest margin (ties: the first in the order below), ``all`` every one that separates.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import asdict, dataclass
from fractions import Fraction

import numpy as np

from perceptron.errors import OptionError
from perceptron.declared import variant_of
from perceptron.variants import DEFAULT_VARIANT, VARIANTS
from verify.searching.orbits import FLIPS, ORBITS, PAIRED, claim_label_even, flip_symmetric, rotation_symmetric
from verify.searching.scaling import SCALED
from verify.language import quantifiers
from verify.language.quantifiers import SEARCHABLE_VARIANTS, needs_separator
from verify.language.quantities import SWEEP_QUANTITIES
from verify.language.assumptions import CONVERGED, KERNEL_LINEAR, NONSEPARABLE, SEPARABLE, narrowed

__all__ = ["reads_certificate", "uncertified", "CERTIFIED_NAMES", "Domain", "SearchError", "domain_for", "widened_etas", "check_limits", "searchable_order", "sequence_of", "order_names", "late_names", "claim_names", "LATE_NAMES", "unit_points", "point_list", "blocks",
           "range_blocks", "separators", "widest_separator", "widest_arrays", "WIDEST_TEXT", "LIMITS", "DEFAULTS", "SEARCHABLE_VARIANTS"]

#: What a search needs a separator for: its quantities, and the name ``separable``.
SEPARATOR_NAMES = {*quantifiers.SEPARATOR_NAMES, "separable"}
UNSUPPORTED_NAMES = {"gamma_lo", "gamma_hi", "last_sweep_mistakes"}
#: What a deterministic order's runs define: where a visit is in its sweep and in the run, and the epochs.
ORDER_NAMES = {"t", "epochs"} | set(SWEEP_QUANTITIES)


def order_names(claim) -> set:
    """The quantities of ORDER_NAMES the claim reads (a free name of its own is not one)."""
    return set(claim.compiled.names) & ORDER_NAMES - set(claim.free or ())


def claim_names(claim) -> set:
    """The names a claim reads: its expression's and its premise's (given)."""
    given = getattr(claim, "given", None)
    return set(claim.compiled.names) | set(given.names if given is not None else ())


#: Whole-run quantities: known at a run's end, read at its visits and updates too.
LATE_NAMES = {"mistakes", "epochs", "converged", "stopped_by_budget"}


def late_names(claim) -> set:
    """The whole-run quantities a visit or update claim reads (in its expression, its premise or
    its assumptions): the search runs each candidate run to its end before evaluating it there."""
    if claim.when not in ("visit", "update"):
        return set()
    names = claim_names(claim)
    return (names & LATE_NAMES - set(claim.free or ())) | ({"converged"} if CONVERGED in claim.assume else set())


#: Bounds of each domain option, checked before any work: the domain grows as
#: (2 box + 1)^(dim points) and its arrays with it.
LIMITS = {"points": (1, 12), "dim": (1, 8), "box": (1, 1000), "max_updates": (0, 200), "sep_box": (1, 1000),
          "w0_box": (0, 10)}
#: Defaults of the domain options of `proof-audit search` (under [tool.proof-audit.search]).
DEFAULTS = {"points": 3, "dim": 2, "box": 3, "max_updates": 6, "sep_box": 6, "timeout": 60.0}
#: Points of the grid [-box, box]^dim, and separators of [-sep_box, sep_box]^dim, a search may
#: hold in memory (each is a list the enumeration indexes).
MAX_GRID = 10**6
#: Longest search (seconds).
MAX_SECONDS = 24 * 3600.0
#: Most run settings (eta x sign(0) x form) one search enumerates.
MAX_SETTINGS = 64
#: Most initial weight vectors (w0, b0) per dataset.
MAX_W0 = 729
#: Rational points of the unit circle for unit-norm domains: (a/L, b/L) with a^2 + b^2 = L^2.
UNIT_DENOMINATOR = 65


class SearchError(OptionError):
    """The claim cannot be searched (wrong kind, unsupported quantity or variant), or the
    domain is outside the search's limits."""


@dataclass(frozen=True)
class Domain:
    points: int = 3
    dim: int = 2
    box: int = 3
    max_updates: int = 6
    order: str = "any"
    sep_box: int = 6
    separators: str = "best"
    variant: str = DEFAULT_VARIANT
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

    def flipped(self, claim) -> bool:
        """Whether the enumeration of some setting takes one dataset of each pair whose labels are all
        flipped (flips_datasets)."""
        return any(flips_datasets(claim, self, s0) for _, s0, _ in self.settings())

    def describe(self, fold: bool, engine: str, claim=None, searched=None) -> dict:
        """What the search covers, as text and fields; ``searched``: the Domain it ran, when it ran
        fewer settings for all of them (one rate for a scale-free claim: verify.searching.scaling;
        sign(0) = +1 for -1 too: verify.searching.orbits.paired_sign0s)."""
        import z3

        d = asdict(self)
        var = VARIANTS[self.variant]
        ran = searched or self
        scaled = SCALED.format(eta=ran.etas[0]) if len(ran.etas) < len(self.etas) else ""
        w0 = "0" if self.w0_box == 0 else f"every integer vector in [-{self.w0_box}, {self.w0_box}]^{self.dim}" + (
            " (and b0 in the same range)" if var.bias else "")
        settings = f"eta in {{{', '.join(self.etas)}}}{scaled}, w0 = {w0}"
        if var.tie is None:
            settings += f", sign(0) in {{{', '.join(map(str, self.sign0s))}}}" + (PAIRED if len(ran.sign0s) < len(self.sign0s) else "")
        if var.half_form:
            settings += f", update form in {{{', '.join(self.forms)}}}"
        pts = (f"points on the unit circle with denominator dividing {UNIT_DENOMINATOR}" if self.unit
               else f"integer points in [-{self.box}, {self.box}]^{self.dim} (not all zero)")
        d.update({
            "datasets": f"up to {self.points} {pts}, labels -1/+1"
                        + (", only those with an exact non-separability certificate (as certify gives)"
                           if claim is not None and NONSEPARABLE in claim.assume else "")
                        + ((" (labels folded into the points: the claim is label-symmetric)"
                            if claim is not None and claim.when == "dataset" else
                            " (labels folded into the points: the claim and the tie rule sign(0) = 0 are label-symmetric)")
                           if fold else "") + (ORBITS if claim is not None and engine == "enumerate" and rotation_symmetric(claim, self) else "")
                        + (FLIPS if claim is not None and engine == "enumerate" and self.flipped(claim) else ""),
            "runs": f"{self.variant}{' (the linear kernel: w = eta sum_i alpha_i y_i x_i)' if var.dual else ''} with "
                    f"{settings}, at most {self.max_updates} updates, order {self.order}"
                    + (" (any misclassified point may be taken at each step)" if self.order == "any" else ""),
            "separators": WIDEST_TEXT if var.bias and self.separators == "best" else
                          f"integer v in [-{self.sep_box}, {self.sep_box}]^{self.dim}" + (" and bias c in the same range" if var.bias else "")
                          + f", w_opt = v/|v|; {'the widest-margin one per dataset' if self.separators == 'best' else 'every one that separates'}",
            "engine": engine,
            "versions": {"z3": z3.get_version_string(), "numpy": np.__version__},
        })
        if sequence_of(self.order):
            d["runs"] += ("; the runs that update the named points in turn, each misclassified when its turn comes "
                          "(the datasets where one is not make no run), ending after the sequence")
        elif claim is not None and claim.when == "end":
            d["runs"] += ("; runs the update bound cuts count as stopped by budget" if "stopped_by_budget" in
                          claim_names(claim) else
                          "; the ends of the runs that converge within the update bound (a run the bound cuts has "
                          "not ended: read stopped_by_budget to include it)")
        if claim is not None and late_names(claim):
            d["runs"] += (f"; each run followed to its end before its {claim.when}s are evaluated (mistakes, epochs, "
                          "converged and stopped_by_budget are its end's; a run the update bound cuts is stopped by budget)"
                          + ("; only the runs that converge within the update bound" if CONVERGED in claim.assume else ""))
        if claim is not None and claim.when == "dataset":
            d["runs"] = "none (a claim about datasets)"
        if claim is not None and claim.free:
            from verify.language.free import describe

            d["runs"] += f"; free names at every assignment: {describe(claim.free).split(' (datasets')[0]}"
        if claim is not None and not needs_separator(claim):
            d["separators"] = "none (the claim uses no separator)"
        d["text"] = f"{d['datasets']}; runs: {d['runs']}; separators: {d['separators']}; engine {engine}"
        return d


def check_limits(dom: Domain, timeout: float | None = None) -> None:
    """SearchError unless every option of ``dom`` is inside LIMITS, MAX_GRID and MAX_SECONDS."""
    for name, (lo, hi) in LIMITS.items():
        v = getattr(dom, name)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise SearchError(f"--{name.replace('_', '-')} {v}: choose {lo} to {hi} (verify.searching.domain.LIMITS)")
    if (2 * dom.box + 1) ** dom.dim > MAX_GRID:
        raise SearchError(f"--box {dom.box} --dim {dom.dim}: a grid of {(2 * dom.box + 1) ** dom.dim} points exceeds "
                          f"{MAX_GRID} (verify.searching.domain.MAX_GRID)")
    if (2 * dom.sep_box + 1) ** dom.dim > MAX_GRID:
        raise SearchError(f"--sep-box {dom.sep_box} --dim {dom.dim}: {(2 * dom.sep_box + 1) ** dom.dim} separators "
                          f"exceed {MAX_GRID} (verify.searching.domain.MAX_GRID)")
    var = VARIANTS.get(dom.variant)  # counted as settings() builds them, without building them
    settings = len(dom.etas) * (len(dom.sign0s) if var is None or var.tie is None else 1) * (
        len(dom.forms) if var is None or var.half_form else 1)
    if settings > MAX_SETTINGS:
        raise SearchError(f"{settings} run settings (eta x sign(0) x form); a search takes at most {MAX_SETTINGS}")
    if timeout is not None and not (math.isfinite(timeout) and 0 < timeout <= MAX_SECONDS):
        raise SearchError(f"--timeout {timeout}: choose a number of seconds in (0, {MAX_SECONDS:.0f}]")


def widened_etas(claim, etas) -> tuple:
    """The rates a search of ``claim`` runs: 1 under eta_one; where the claim ranges over eta,
    the given ones in its range and 1/2, 1 (and 2 unless eta stays in (0, 1]); else those given."""
    from verify.language.quantifiers import eta_le_one, ranging

    if "etas" in narrowed(claim):
        return narrowed(claim)["etas"]
    if "eta" not in ranging(claim):
        return tuple(etas)
    le_one = eta_le_one(claim)
    mine = [e for e in etas if not le_one or Fraction(e) <= 1]
    return tuple(dict.fromkeys(mine + (["1/2", "1"] if le_one else ["1/2", "1", "2"])))


def domain_for(claim, base: Domain) -> Domain:
    """The domain of ``base`` widened over every quantity the claim ranges over (eta below and
    above 1 unless eta_one / eta_le_one, w0 in a box unless w0_zero, every sign(0) and update
    form the assumptions leave, every separator unless separator = "max-margin")."""
    from verify.language.quantifiers import ranging

    r = set(ranging(claim))
    kw = {"etas": widened_etas(claim, base.etas), "sign0s": (-1, 0, 1), "forms": ("yx", "half")}
    if "w0" in r:
        kw["w0_box"] = max(base.w0_box, 1)
    if "separator" in r and base.separators == "best":
        kw["separators"] = "all"
    if getattr(variant_of(base.variant), "unit", False):
        kw["unit"] = True  # the unit variant normalises its inputs: searched on points that are unit already
    kw.update({f: v for f, v in narrowed(claim).items() if f != "etas"})
    if claim.orders:  # the stated order is part of the domain: its runs are deterministic on ordered datasets
        kw["order"] = claim.orders[0]
    elif (claim.when == "visit" or order_names(claim) or late_names(claim)) and base.order == "any":
        kw["order"] = "cyclic"  # visits, sweeps and a run's end (one per dataset) are a deterministic order's
    return Domain(**{**asdict(base), **kw})


# --------------------------------------------------------------------------- claims

def claim_variant(claim, wanted):
    if wanted:
        if claim.variants and wanted not in claim.variants:
            raise SearchError(f"claim {claim.id} is about {list(claim.variants)}, not {wanted}")
        return wanted
    for v in claim.variants or (DEFAULT_VARIANT,):
        if getattr(variant_of(v), "dual", False) and KERNEL_LINEAR not in claim.assume:
            continue  # only the linear kernel's runs are the primal runs the enumeration steps
        if v in SEARCHABLE_VARIANTS or getattr(variant_of(v), "declared", False):
            return v
    dual = [v for v in claim.variants or () if getattr(variant_of(v), "dual", False)]
    if dual:
        return dual[0]  # with any kernel: the learner's own runs (verify.searching.learner_runs.search_kernels)
    raise SearchError(f"claim {claim.id} is about {list(claim.variants)}; the search runs {', '.join(SEARCHABLE_VARIANTS)}")


#: Orders a claim may state and still be searched: deterministic given an ordered dataset, so
#: the enumeration of ordered datasets covers every run of the order (random:SEED draws the same
#: permutations of n points for every dataset of n points).
SEARCHABLE_ORDERS = ("first", "cyclic", "random:SEED", "max-violation", "sequence:I,J,...")


def searchable_order(order: str) -> bool:
    """Whether a search runs this order: any, first, cyclic, max-violation, random:SEED (a decimal
    seed) or sequence:I,J,... (at most LIMITS max_updates points, each below LIMITS points)."""
    if order in ("any", "first", "cyclic", "max-violation"):
        return True
    head, _, seed = order.partition(":")
    if head == "sequence":
        seq = sequence_of(order)
        return seq is not None and len(seq) <= LIMITS["max_updates"][1] and max(seq) < LIMITS["points"][1]
    return head == "random" and seed.isdigit() and len(seed) <= 18


def sequence_of(order: str) -> tuple | None:
    """The points a ``sequence:I,J,...`` order updates in turn (None for another order or a bad one)."""
    from perceptron.params import ParamError, parse_order

    if not order.startswith("sequence:"):
        return None
    try:
        kind, seq = parse_order(order)
    except ParamError:
        return None
    return tuple(seq) if kind == "sequence" and seq else None


def check_searchable(claim):
    if claim.when not in ("visit", "update", "end", "dataset") or claim.compiled is None:
        raise SearchError(f"claim {claim.id} is evaluated '{claim.when}'; the search handles visit, update, end and "
                          "dataset claims")
    if claim.datasets:
        raise SearchError(f"claim {claim.id} is about particular datasets ({', '.join(claim.datasets)}), not a search domain")
    if claim.orders and any(o == "any" or not searchable_order(o) for o in claim.orders):
        raise SearchError(f"claim {claim.id} is about runs of the orders {', '.join(claim.orders)}; the search runs "
                          f"the deterministic orders {' and '.join(SEARCHABLE_ORDERS)} of its ordered datasets")
    # every assumption must be enforced by the domain itself, or "none in D" could rest on
    # candidates that do not satisfy it (converged: the runs that converge within the update
    # bound, each run to its end first: verify.searching.enumeration)
    names = claim_names(claim)
    bad = names & UNSUPPORTED_NAMES - set(claim.free or ())  # a free name is the claim's own
    if bad:
        raise SearchError(f"claim {claim.id} uses {', '.join(sorted(bad))}, which the search's runs do not define")


def label_symmetric(claim, variant, tie) -> bool:
    """Whether folding labels into the points (x -> y x, y -> +1) is sound: the tie rule must be
    label-symmetric (sign(0) = 0: a zero score is a mistake for either label; with sign(0) =
    +-1 a zero score is correct for one label only), no bias (then a run makes the same updates
    with any point's sign and label flipped), and the claim (and its premise) must have the same
    truth with them flipped: it reads a point and its label only so that the flip leaves it
    unchanged (orbits.label_parity: y dot(w, x) <= 0 does, dot(w, x) <= 0 does not)."""
    return tie == 0 and VARIANTS[variant].bias is None and claim_label_even(claim)


def flips_datasets(claim, dom, sign0) -> bool:
    """Whether the enumeration of a setting with this sign(0) takes one dataset of each pair whose
    labels are all flipped (verify.searching.orbits.flip_symmetric): the variant's tie is 0 there
    (a flip maps the setting onto itself), and its labels are not folded (folded, every label is
    +1 already)."""
    tie = VARIANTS[dom.variant].tie
    tie = sign0 if tie is None else tie
    return tie == 0 and not label_symmetric(claim, dom.variant, tie) and flip_symmetric(claim, dom)


@functools.lru_cache(maxsize=16)
def symmetries(dim: int, box: int, fold: bool, unit: bool = False, rotate: bool = True, flip: bool = False) -> tuple:
    """The signed permutations of ``dim`` coordinates (only the identity unless ``rotate``), each
    with every label kept and, when ``flip``, with every label negated too, but the identity: each
    as the permutation of point_list's indices it makes."""
    P, L = point_list(dim, box, fold, unit)
    where = {(tuple(int(v) for v in p), int(y)): j for j, (p, y) in enumerate(zip(P, L))}
    same = tuple(range(dim))
    out = []
    for perm in itertools.permutations(range(dim)) if rotate else (same,):
        for signs in itertools.product((1, -1), repeat=dim) if rotate else ((1,) * dim,):
            for f in (1, -1) if flip else (1,):
                if perm == same and all(s > 0 for s in signs) and f == 1:
                    continue
                out.append(np.array([where[(tuple(signs[c] * int(p[perm[c]]) for c in range(dim)), f * int(y))]
                                     for p, y in zip(P, L)], dtype=np.int64))
    return tuple(out)


def first_length(claim) -> int:
    """The fewest updates at which the claim is evaluated: 1 for update claims (at each update),
    0 for visit claims (the first visits see w0), end claims (a run may converge before any
    update: w0 that separates, or sign(0) = the label) and dataset claims."""
    return 1 if claim.when == "update" else 0


#: What a claim reads of a dataset's certificate beside its separator (SEPARATOR_NAMES).
CERTIFIED_NAMES = frozenset({"gamma_lo", "gamma_hi"})


def reads_certificate(claim) -> bool:
    """Whether anything the claim reads or assumes comes from a dataset's certificate (a QP and an
    exact check per dataset: a search makes a context without one for a claim that reads none)."""
    names = set()
    for compiled in (claim.compiled, getattr(claim, "given", None)):
        names |= set(getattr(compiled, "names", ()) or ())
    return bool(names & (SEPARATOR_NAMES | CERTIFIED_NAMES)) or SEPARABLE in claim.assume or NONSEPARABLE in claim.assume


def uncertified(bias: bool):
    """The certificate a search gives a dataset whose certificate its claim does not read."""
    from verify.certify.certificates import Certificate

    return Certificate("unknown", bias, reason="not certified: the claim reads nothing of it")


def folds(claim, dom: Domain) -> bool:
    """Whether every setting of the domain folds labels (the domain's description says so)."""
    var = VARIANTS[dom.variant]
    return {label_symmetric(claim, dom.variant, var.tie if var.tie is not None else s0) for _, s0, _ in dom.settings()} == {True}


# --------------------------------------------------------------------------- points, datasets, separators

def unit_points(dim):
    """Integer numerators of the rational points of the unit circle with denominator dividing
    UNIT_DENOMINATOR: (a, b) with a^2 + b^2 = L^2 (x = (a, b) / L)."""
    if dim != 2:
        raise SearchError("unit-norm domains are drawn on the unit circle: use --dim 2")
    L = UNIT_DENOMINATOR
    return [(a, b) for a in range(-L, L + 1) for b in range(-L, L + 1) if a * a + b * b == L * L]


def _frozen(*arrays):
    for a in arrays:
        a.flags.writeable = False  # shared by every caller of a cached list
    return arrays


@functools.lru_cache(maxsize=4)
def point_list(dim, box, fold, unit=False):
    """(P, labels), read-only and built once per process: the labelled points a dataset draws
    from, in the canonical order: smallest first (largest |coordinate|, then sum of
    |coordinates|, then lexicographic), label -1 before +1.  The zero point is one of them (datasets of zeros only are left out where they are
    built: R = 0 leaves b/R and x/R undefined)."""
    coords = unit_points(dim) if unit else list(itertools.product(range(-box, box + 1), repeat=dim))
    coords.sort(key=lambda c: (max(map(abs, c)), sum(map(abs, c)), c))
    pts = [(c, 1) for c in coords] if fold else [(c, y) for c in coords for y in (-1, 1)]
    P = np.array([p[0] for p in pts], dtype=np.int64).reshape(len(pts), dim)
    L = np.array([p[1] for p in pts], dtype=np.int64)
    return _frozen(P, L)


def count_datasets(npts: int, n: int, ordered: bool, first: int | None = None) -> int:
    """Datasets of n points drawn from npts (multisets, or sequences when the order matters),
    those whose first point index is ``first`` when given."""
    if first is None:
        return npts ** n if ordered else math.comb(npts + n - 1, n)
    return npts ** (n - 1) if ordered else math.comb(npts - first + n - 2, n - 1)


def blocks(npts: int, n: int, ordered: bool, prefix: tuple, size: int):
    """Index arrays (M, n) of every dataset starting with ``prefix``, in lexicographic order
    (non-decreasing indices when not ``ordered``), in blocks of at most ``size`` rows (a prefix
    is extended one index at a time until its datasets fit one block)."""
    r = n - len(prefix)
    lo = prefix[-1] if prefix and not ordered else 0
    if r == 0:
        yield np.array([prefix], dtype=np.int64)
        return
    total = (npts - lo) ** r if ordered else math.comb(npts - lo + r - 1, r)
    if total <= size or r == 1:
        tails = itertools.product(range(lo, npts), repeat=r) if ordered else itertools.combinations_with_replacement(range(lo, npts), r)
        flat = np.fromiter(itertools.chain.from_iterable(tails), dtype=np.int64, count=total * r).reshape(total, r)
        for s in range(0, total, size):
            part = flat[s:s + size]
            yield np.hstack([np.tile(np.array(prefix, dtype=np.int64), (len(part), 1)), part]) if prefix else part
        return
    for nxt in range(lo, npts):
        yield from blocks(npts, n, ordered, prefix + (nxt,), size)


def range_blocks(npts: int, n: int, ordered: bool, firsts: tuple, size: int):
    """Index arrays of every dataset whose first point index is in ``firsts`` ([lo, hi), or ()
    for every dataset), in lexicographic order, in blocks of at most ``size`` rows: the blocks
    of consecutive first points joined, so that a shard of many first points with few datasets
    each is screened in a few large batches (the screen's cost is per batch, not per row)."""
    if not firsts:
        yield from blocks(npts, n, ordered, (), size)
        return
    held, rows = [], 0
    for p in range(*firsts):
        for part in blocks(npts, n, ordered, (p,), size):
            if rows + len(part) > size and held:
                yield np.concatenate(held)
                held, rows = [], 0
            held.append(part)
            rows += len(part)
    if held:
        yield np.concatenate(held)


@functools.lru_cache(maxsize=4)
def separators(dim, sep_box, bias):
    """Primitive integer separators (v, c) (gcd 1: multiples are the same hyperplane), smallest
    first (max |coordinate|, then lexicographic), so ties go to the simplest.  Built once per
    process (the lists of every setting, shard and Hypothesis example are the same)."""
    rng = range(-sep_box, sep_box + 1)
    cands = []
    for v in itertools.product(rng, repeat=dim):
        if not any(v):
            continue
        for c in (rng if bias else (0,)):
            if math.gcd(*v, c) == 1:
                cands.append((max(max(abs(t) for t in v), abs(c)), v, c))
    cands.sort()
    V = np.array([v for _, v, _ in cands], dtype=np.int64).reshape(len(cands), dim)
    C = np.array([c for _, _, c in cands], dtype=np.int64)
    return _frozen(V, C)


def choose_separators(X, Y, V, C, mode):
    """Per dataset, (dataset index, separator index, margin) of the separators with margin > 0:
    every one (``all``, dataset-major) or the widest (``best``)."""
    if len(X) * len(V) > 4_000_000:  # chunk to bound memory (M x S margins per chunk)
        step = max(1, 4_000_000 // len(V))
        parts = [choose_separators(X[i:i + step], Y[i:i + step], V, C, mode) for i in range(0, len(X), step)]
        offs = np.arange(0, len(X), step)
        return (np.concatenate([p[0] + o for p, o in zip(parts, offs)]), np.concatenate([p[1] for p in parts]),
                np.concatenate([p[2] for p in parts]))
    margins = None
    if int(np.abs(X).max(initial=0)) * int(np.abs(V).max(initial=0)) * X.shape[2] + int(np.abs(C).max(initial=0)) < 2**52:
        Vt = V.T.astype(np.float64)  # exact in float64 below 2^52, and fast through BLAS
        for p in range(X.shape[1]):
            m_p = Y[:, p, None] * ((X[:, p, :].astype(np.float64) @ Vt) + C[None, :])
            margins = m_p if margins is None else np.minimum(margins, m_p)
        margins = np.rint(margins).astype(np.int64)
    else:
        for p in range(X.shape[1]):
            m_p = Y[:, p, None] * ((X[:, p, :] @ V.T) + C[None, :])
            margins = m_p if margins is None else np.minimum(margins, m_p)
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


def best_separator(points, labels, dom: Domain, bias: bool, L: int = 1):
    """The separator D assigns to one dataset (integer numerators over L) with ``separators =
    best``, (v, c) with c over L, or None: with a bias, the maximum-margin hyperplane itself,
    exactly (the one the corpus and ``check`` certify: widest_separator; none with one class);
    without, the widest integer separator of the box."""
    if bias:
        got = widest_separator(tuple(tuple(int(a) for a in p) for p in points), tuple(int(v) for v in labels), L)
        return None if got is None else (list(got[0]), got[1])
    V, C = separators(dom.dim, dom.sep_box, bias)
    X = np.array([points], dtype=np.int64)
    Y = np.array([labels], dtype=np.int64)
    mi, si, _ = choose_separators(X, Y, V, C * L, "best")
    if len(mi) == 0:
        return None
    return [int(v) for v in V[si[0]]], int(C[si[0]])


#: What "the best separator" of a variant with a bias is, in the domain's text.
WIDEST_TEXT = ("the maximum-margin hyperplane (w_opt, b_opt), |w_opt| = 1, of each dataset, exactly (KKT conditions "
               "verified over the rationals); none where every point has the same label (the margin is unbounded)")
#: Points up to which widest_separator tries the supports itself before asking the QP for one.
WIDEST_SMALL = 6


@functools.lru_cache(maxsize=1 << 16)
def widest_separator(points: tuple, labels: tuple, L: int = 1):
    """The maximum-margin hyperplane (with a bias) of one dataset of integer numerators over L,
    exactly (verify.certify.widest: KKT conditions checked over the rationals) as integers
    (v, C, M): w_opt = v/|v|, b_opt = (C/L)/|v|, gamma = (M/L)/|v|; None where it does not exist
    (one class: the margin is unbounded; not separable) or is not certified."""
    from verify.certify.certificates import certify_points
    from verify.certify.widest import integer_separator, widest
    from verify.numbers import exact as X

    if len(set(labels)) < 2:
        return None
    rows = [[Fraction(int(c), L) for c in p] for p in points]
    got = widest(rows, labels, True) if len(rows) <= WIDEST_SMALL else None
    if got is not None:
        v, c, m = integer_separator(got[0], got[1])
    else:
        cert = certify_points(rows, list(labels), bias=True)
        if cert.kind != "separable" or cert.gamma_hi is None or X.compare(cert.gamma, cert.gamma_hi) != 0:
            return None
        v, c, m = cert.v, cert.c, cert.m
    C, M = Fraction(c) * L, Fraction(m) * L
    k = math.lcm(C.denominator, M.denominator, *[Fraction(a).denominator for a in v])
    return tuple(int(Fraction(a) * k) for a in v), int(C * k), int(M * k)


def widest_arrays(X, Y, L):
    """The datasets of X, Y that have a maximum-margin hyperplane (with a bias), and its exact
    (v, C, M) for each (widest_separator), as integer arrays."""
    mi, V, C, M = [], [], [], []
    for i in range(len(X)):
        got = widest_separator(tuple(map(tuple, X[i].tolist())), tuple(Y[i].tolist()), L)
        if got is None:
            continue
        if max(max(abs(a) for a in got[0]), abs(got[1]), abs(got[2])) >= 2**31:
            raise SearchError("the maximum-margin hyperplane of a dataset needs integers past 2^31: "
                              "choose a smaller --box")
        mi.append(i)
        V.append(got[0])
        C.append(got[1])
        M.append(got[2])
    d = X.shape[2]
    return (np.array(mi, dtype=np.int64), np.array(V, dtype=np.int64).reshape(len(mi), d),
            np.array(C, dtype=np.int64), np.array(M, dtype=np.int64))
