"""Dataset generators, all exact and seeded: same arguments, same dataset, same SHA-256."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from .datasets import Dataset, from_rows

__all__ = ["worked_example", "boolean", "separable", "grid", "rational_unit_vector", "unit_sphere_points", "builtin", "BUILTIN"]


def worked_example() -> Dataset:
    """The four points of 000_498759e4a63d39ab.txt, section 3 (no augmentation)."""
    return from_rows("worked-example", [(-2, 0), (0, -2), (-2, 2), (2, 2)], [-1, -1, 1, 1])


def boolean(fn: str, d: int = 2, m: int | None = None) -> Dataset:
    """A boolean function on {0,1}^d labelled -1/+1: ``and``, ``or``, ``xor`` or ``m-of-d``
    (true when at least m inputs are 1; 003, "m-of-d functions").  Points are not augmented."""
    rows = list(itertools.product((0, 1), repeat=d))
    if fn == "and":
        lab = [all(r) for r in rows]
    elif fn == "or":
        lab = [any(r) for r in rows]
    elif fn == "xor":
        lab = [sum(r) % 2 == 1 for r in rows]
    elif fn == "m-of-d":
        if m is None or not 0 < m <= d:
            raise ValueError(f"m-of-d needs 0 < m <= d, got m={m}, d={d}")
        lab = [sum(r) >= m for r in rows]
    else:
        raise ValueError(f"unknown boolean function {fn!r}")
    name = f"{fn}-{d}" if fn != "m-of-d" else f"{m}-of-{d}"
    return from_rows(name, rows, [1 if v else -1 for v in lab])


def rational_unit_vector(t) -> list[Fraction]:
    """An exactly unit-norm rational vector: inverse stereographic projection of t in Q^(d-1)."""
    t = [Fraction(v) for v in t]
    s = sum(v * v for v in t)
    return [2 * v / (s + 1) for v in t] + [(s - 1) / (s + 1)]


def separable(n: int, d: int, margin, radius=1, seed: int = 0, *, bias: bool = False, denom: int = 100) -> Dataset:
    """n points with coordinates on the grid (1/denom)Z, inside the ball of ``radius``, at
    distance >= ``margin`` from a hyperplane through the origin (or, with ``bias``, offset)
    whose unit normal is rational; labelled by the side.  Exact: the margin is checked in
    rationals.  The separator is not returned: certificates recompute it."""
    rng = np.random.default_rng(seed)
    margin, radius = Fraction(margin), Fraction(radius)
    t = [Fraction(int(v), 7) for v in rng.integers(-9, 10, size=d - 1)] if d > 1 else []
    w = rational_unit_vector(t) if d > 1 else [Fraction(1)]
    b = Fraction(int(rng.integers(-3, 4)), 10) * radius if bias else Fraction(0)
    if margin >= radius + abs(b):
        raise ValueError("margin must be smaller than the radius")
    rows, labels = [], []
    lim = int(radius * denom)
    tries = 0
    while len(rows) < n:
        tries += 1
        if tries > 10000 * n:
            raise ValueError("could not place points with this margin; lower it")
        p = [Fraction(int(v), denom) for v in rng.integers(-lim, lim + 1, size=d)]
        if sum(v * v for v in p) > radius * radius:
            continue
        s = sum(a * c for a, c in zip(w, p)) + b
        if abs(s) < margin:
            continue
        rows.append(p)
        labels.append(1 if s > 0 else -1)
    if len(set(labels)) < 2:  # keep the set non-trivial: flip the farthest point across
        rows[0] = [-v for v in rows[0]]
        labels[0] = -labels[0]
    tag = f"separable-n{n}-d{d}-g{margin}-r{radius}-s{seed}" + ("-bias" if bias else "")
    return from_rows(tag.replace("/", "_"), rows, labels)


def unit_sphere_points(n: int, d: int, margin, seed: int = 0) -> Dataset:
    """n exactly unit-norm rational points separated with margin by a rational unit w* (004's
    setting: |w*.x| >= margin, no bias)."""
    rng = np.random.default_rng(seed)
    margin = Fraction(margin)
    wstar = rational_unit_vector([Fraction(int(v), 5) for v in rng.integers(-6, 7, size=d - 1)])
    rows, labels = [], []
    tries = 0
    while len(rows) < n:
        tries += 1
        if tries > 10000 * n:
            raise ValueError("could not place unit points with this margin")
        p = rational_unit_vector([Fraction(int(v), 4) for v in rng.integers(-12, 13, size=d - 1)])
        s = sum(a * c for a, c in zip(wstar, p))
        if abs(s) < margin:
            continue
        rows.append(p)
        labels.append(1 if s > 0 else -1)
    return from_rows(f"unit-n{n}-d{d}-g{margin}-s{seed}".replace("/", "_"), rows, labels)


def grid(d: int, box: int, w, b=0) -> Dataset:
    """Every integer point of [-box, box]^d off the hyperplane w.x + b = 0, labelled by side."""
    rows, labels = [], []
    for p in itertools.product(range(-box, box + 1), repeat=d):
        s = sum(Fraction(a) * c for a, c in zip(w, p)) + Fraction(b)
        if s != 0:
            rows.append(p)
            labels.append(1 if s > 0 else -1)
    return from_rows(f"grid-d{d}-b{box}-w{'_'.join(map(str, w))}-b{b}", rows, labels)


def _corpus():
    return {
        "worked-example": worked_example,
        "and-2": lambda: boolean("and", 2),
        "or-2": lambda: boolean("or", 2),
        "and-3": lambda: boolean("and", 3),
        "2-of-3": lambda: boolean("m-of-d", 3, 2),
        "3-of-5": lambda: boolean("m-of-d", 5, 3),
        "xor-2": lambda: boolean("xor", 2),
        "xor-3": lambda: boolean("xor", 3),
        "grid-2": lambda: grid(2, 2, (1, 2), Fraction(1, 2)),
        "grid-3": lambda: grid(3, 1, (2, -1, 1), Fraction(1, 3)),
        "separable-d2-g1_5": lambda: separable(30, 2, Fraction(1, 5), 1, seed=1),
        "separable-d2-g1_20": lambda: separable(40, 2, Fraction(1, 20), 1, seed=2),
        "separable-d3-g1_10": lambda: separable(40, 3, Fraction(1, 10), 1, seed=3),
        "separable-d5-g1_10": lambda: separable(60, 5, Fraction(1, 10), 2, seed=4),
        "separable-d3-bias": lambda: separable(40, 3, Fraction(1, 10), 1, seed=5, bias=True),
        "unit-d3-g1_5": lambda: unit_sphere_points(30, 3, Fraction(1, 5), seed=6),
        # 004's setting (exactly unit-norm points, rational: Pythagorean / stereographic)
        "unit-d2-g1_10": lambda: unit_sphere_points(24, 2, Fraction(1, 10), seed=7),
        "unit-d3-g1_20": lambda: unit_sphere_points(30, 3, Fraction(1, 20), seed=8),
        "unit-d4-g1_8": lambda: unit_sphere_points(30, 4, Fraction(1, 8), seed=9),
    }


#: Names of the built-in corpus; ``builtin(name)`` builds one (deterministically).
BUILTIN = tuple(_corpus())


def builtin(name: str) -> Dataset:
    """A dataset of the built-in corpus by name (see BUILTIN)."""
    try:
        ds = _corpus()[name]()
    except KeyError:
        raise KeyError(f"no built-in dataset {name!r}; choose one of {', '.join(BUILTIN)}") from None
    ds.name = name
    ds.source = f"builtin:{name}"
    return ds
