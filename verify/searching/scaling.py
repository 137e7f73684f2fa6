"""The learning rate as a scale: from w0 = 0 (and b0 = 0) a built-in variant's run with rate eta
is eta times its run with eta = 1 (every update adds eta times a term of the data and of
sign(score), which a positive scale leaves), with the same mistakes in the same order.  A claim
that compares only quantities of one degree in eta on each side (y w.x <= 0; |w|^2 <= k eta^2 R^2)
then has the same truth at every eta > 0, and the search runs one rate for all of them, as the
orbits of verify.searching.orbits take one dataset for all its rotations."""

from __future__ import annotations

from fractions import Fraction

from perceptron.variants import VARIANTS

__all__ = ["SCALED", "degree", "scale_free", "one_rate"]

#: Degree in eta of each quantity of such a run (every other name the language has is of degree 0
#: when listed in _ZERO_DEGREE; a name in neither is not known to scale, and the claim is run at
#: every rate).
_FIRST_DEGREE = frozenset({"eta", "w", "b", "w_hat", "score", "w_pocket"})
_ZERO_DEGREE = frozenset({
    "k", "t", "i", "R", "R2", "x", "x_hat", "y", "out", "ones", "n", "d", "epochs", "mistakes", "converged",
    "stopped_by_budget", "sumsq", "sign0", "kernel_degree", "kernel_offset", "pocket_errors", "min_visited_errors",
    "gamma", "w_opt", "b_opt", "w_hat_opt", "v_opt", "c_opt", "m_opt", "gamma_lo", "gamma_hi", "separable", "alpha",
    "sweep", "sweep_visits", "sweep_mistakes", "last_sweep_mistakes"})
#: What a search run at one rate says of the others.
SCALED = (" (searched at eta = {eta} for all of them: from w0 = 0 a run with eta is eta times the run with eta = 1, "
          "and the claim compares quantities of one degree in eta, so its truth is the same at every eta)")
#: The value 0 (a literal, or w0 = 0): of every degree.
ZERO = "zero"


def degree(tree):
    """The degree in eta of a compiled expression on a run from w0 = 0 (a Fraction; 0 for a truth
    value that does not change with eta), ZERO for 0, or None where it is not one degree (a sum
    of terms of two degrees, floor of a scaled value, a name not known to scale)."""
    op = tree[0]
    if op == "num":
        return ZERO if tree[1] == 0 else Fraction(0)
    if op == "name":
        name = tree[1]
        return ZERO if name == "w0" else Fraction(1) if name in _FIRST_DEGREE else \
            Fraction(0) if name in _ZERO_DEGREE else None
    if op in ("neg", "prev"):
        return degree(tree[1])
    if op in ("not", "and", "or"):
        return Fraction(0) if all(degree(t) is not None for t in ((tree[1],) if op == "not" else tree[1])) else None
    if op == "bin":
        a, b = degree(tree[2]), degree(tree[3])
        if a is None or b is None:
            return None
        if tree[1] in ("+", "-"):
            return b if a == ZERO else a if b == ZERO or a == b else None
        if ZERO in (a, b):
            return ZERO if tree[1] == "*" or a == ZERO and b != ZERO else None
        return a + b if tree[1] == "*" else a - b
    if op == "pow":
        a = degree(tree[1])
        return a if a is None else (ZERO if tree[2] > 0 else None) if a == ZERO else a * tree[2]
    if op == "cmp":  # a positive scale keeps every order: a <= b iff s a <= s b
        parts = {degree(t) for t in tree[2]} - {ZERO}
        return Fraction(0) if None not in parts and len(parts) <= 1 else None
    if op == "if":
        c, a, b = degree(tree[1]), degree(tree[2]), degree(tree[3])
        if c is None or a is None or b is None:
            return None
        return b if a == ZERO else a if b == ZERO or a == b else None
    if op == "agg":
        d = degree(tree[2])
        return d if tree[1] in ("sum_i", "min_i", "max_i") or d is None else Fraction(0)
    if op == "call":
        args = [degree(t) for t in tree[2]]
        if None in args:
            return None
        name, kinds = tree[1], set(args) - {ZERO}
        if name == "dot":
            return ZERO if ZERO in args else args[0] + args[1]
        if name in ("norm", "abs", "sqrt", "norm2"):
            if args[0] == ZERO:
                return ZERO
            return args[0] * 2 if name == "norm2" else args[0] / 2 if name == "sqrt" else args[0]
        if name == "sign":
            return ZERO if args[0] == ZERO else Fraction(0)
        if name in ("ceil", "floor"):  # floor(s a) is not s floor(a)
            return args[0] if args[0] in (ZERO, 0) else None
        if name in ("min", "max", "vec"):
            return ZERO if not kinds else kinds.pop() if len(kinds) == 1 else None
    return None


def scale_free(claim, dom) -> bool:
    """Whether the search may run one rate of ``dom`` for all: a built-in variant that scales
    (Variant.scales), runs from w0 = 0 and b0 = 0 (w0 box 0), more than one rate, and a claim
    (and premise) whose truth is of degree 0 in eta and reads no free name."""
    return getattr(VARIANTS.get(dom.variant), "scales", False) and dom.w0_box == 0 and len(set(map(Fraction, dom.etas))) > 1 \
        and not getattr(claim, "free", None) and all(degree(c.tree) == 0 for c in claim.conditions)


def one_rate(etas) -> str:
    """The rate a scale-free claim is searched at: 1 where the domain has it (the smallest
    integers), else the first."""
    return next((e for e in etas if Fraction(e) == 1), etas[0])
