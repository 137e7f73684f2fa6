"""The assumptions a claim may state (``assume = [...]``), each an object that knows what it
means, which quantity it fixes (and so what a verdict's coverage says of it), how it narrows a
counterexample search's domain, and whether a run meets it.  Everything else asks them: the name
of an assumption is written here alone (tests/test_house.py), other modules use the constants."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["Assumption", "ASSUMPTIONS", "FLIP_INVARIANT", "fixed", "narrowed", "eta_bound", "unmet", "met_on_data", "tested_on_data", "SEPARABLE", "NONSEPARABLE", "NONTRIVIAL",
           "UNIT_NORM", "W0_ZERO", "ETA_ONE", "ETA_LE_ONE", "STRICT_MARGIN", "CONVERGED", "SIGN0_NONZERO",
           "SIGN0_ZERO", "FORM_YX", "FORM_HALF", "KERNEL_LINEAR", "NO_AUGMENT", "RATCHET", "NO_RATCHET"]


@dataclass(frozen=True)
class Assumption:
    name: str
    meaning: str  #: what a claim assumes, as `explain` and the reference say it
    #: why a run does not meet it (None when it does): f(ctx, converged), ctx a replay's
    #: verify.replay.dispatch.RunContext, converged None before the run's end
    fails: Callable = field(repr=False, compare=False)
    fixes: tuple = ()  #: ((quantity, its one value or narrower range, as coverage says it), ...)
    narrows: tuple = ()  #: ((field of a search Domain, its values under the assumption), ...)
    eta_max: int | None = None  #: the bound it puts on eta
    #: whether it reads the dataset (not only the run's settings), and then its test of many
    #: datasets at once, or None where it has none: f(X, Y, D, separated) -> a mask of the datasets
    #: that meet it (X the integer numerators of their points over D, shape (B, n, d); Y their labels;
    #: separated, those a separator of the search's domain separates)
    data: bool = False
    on_data: Callable | None = field(default=None, repr=False, compare=False)

    def unmet(self, ctx, converged=None) -> str | None:
        return self.fails(ctx, converged)


def _rows_unit(ctx) -> bool:
    from verify.numbers import exact as X

    return all(X.vdot(r, r) == 1 for r in ctx.rows)


def _w0_zero(ctx) -> bool:
    return not ctx.w0.num.any() and ctx.b0 == 0


SEPARABLE = "separable"
NONSEPARABLE = "nonseparable"
NONTRIVIAL = "nontrivial"
UNIT_NORM = "unit_norm"
W0_ZERO = "w0_zero"
ETA_ONE = "eta_one"
ETA_LE_ONE = "eta_le_one"
STRICT_MARGIN = "strict_margin"
CONVERGED = "converged"
SIGN0_NONZERO = "sign0_nonzero"
SIGN0_ZERO = "sign0_zero"
FORM_YX = "form_yx"
FORM_HALF = "form_half"
KERNEL_LINEAR = "kernel_linear"
NO_AUGMENT = "no_augment"
RATCHET = "ratchet"
NO_RATCHET = "no_ratchet"

_ALL = [
    Assumption(SEPARABLE, "the dataset has a separability certificate",
               lambda ctx, _: None if ctx.kind == "separable" else f"dataset is not certified separable ({ctx.kind})",
               data=True, on_data=lambda X, Y, D, separated: separated),
    Assumption(NONSEPARABLE, "the dataset has a non-separability certificate",
               lambda ctx, _: None if ctx.kind == "nonseparable" else "dataset is not certified non-separable",
               data=True),
    Assumption(NONTRIVIAL, "both labels occur", lambda ctx, _: None if len(set(ctx.y)) == 2 else "all labels are equal",
               data=True, on_data=lambda X, Y, D, separated: (Y == 1).any(axis=1) & (Y == -1).any(axis=1)),
    Assumption(UNIT_NORM, "every input the learner sees has norm exactly 1",
               lambda ctx, _: None if _rows_unit(ctx) else "inputs are not all of norm 1", narrows=(("unit", True),),
               data=True, on_data=lambda X, Y, D, separated: ((X * X).sum(axis=2) == D * D).all(axis=1)),
    Assumption(W0_ZERO, "the run starts from w = 0 (and b = 0)",
               lambda ctx, _: None if _w0_zero(ctx) else "initial weights are not zero",
               fixes=(("w0", "fixed: 0"),), narrows=(("w0_box", 0),)),
    Assumption(ETA_ONE, "eta = 1", lambda ctx, _: None if ctx.eta == 1 else f"eta = {ctx.eta}",
               fixes=(("eta", "fixed: 1"),), narrows=(("etas", ("1",)),), eta_max=1),
    Assumption(ETA_LE_ONE, "0 < eta <= 1", lambda ctx, _: None if 0 < ctx.eta <= 1 else f"eta = {ctx.eta}",
               fixes=(("eta", "every eta in (0, 1]"),), eta_max=1),
    Assumption(STRICT_MARGIN, "gamma is taken strictly below the certified margin (y w*.x > gamma)",
               lambda ctx, _: None),
    Assumption(CONVERGED, "the run converged",
               lambda ctx, converged: None if converged in (None, True) else "the run did not converge"),
    Assumption(SIGN0_ZERO, "the run's sign(0) is 0", lambda ctx, _: None if ctx.tie == 0 else f"sign(0) = {ctx.tie}",
               fixes=(("sign0", "fixed: 0"),), narrows=(("sign0s", (0,)),)),
    Assumption(SIGN0_NONZERO, "the run's sign(0) is +1 or -1", lambda ctx, _: None if ctx.tie != 0 else "sign(0) = 0",
               fixes=(("sign0", "-1 and +1"),), narrows=(("sign0s", (-1, 1)),)),
    Assumption(FORM_YX, "the sign variant updates with eta y x",
               lambda ctx, _: None if ctx.params.form == "yx" else "update form is 1/2 eta (y - out) x",
               fixes=(("form", "fixed: eta y x"),), narrows=(("forms", ("yx",)),)),
    Assumption(FORM_HALF, "the sign variant updates with 1/2 eta (y - out) x",
               lambda ctx, _: None if ctx.params.form == "half" else "update form is eta y x",
               fixes=(("form", "fixed: 1/2 eta (y - out) x"),), narrows=(("forms", ("half",)),)),
    Assumption(KERNEL_LINEAR, "the kernel variant uses the linear kernel",
               lambda ctx, _: None if ctx.params.kernel == "linear" else f"kernel is {ctx.params.kernel}",
               fixes=(("kernel", "fixed: linear"),)),
    Assumption(NO_AUGMENT, "the run learns on the data as given: no constant coordinate added (no bias through the data)",
               lambda ctx, _: None if ctx.params.augment is None
               else f"the run adds a constant coordinate (--augment {ctx.params.augment})"),
    Assumption(RATCHET, "the pocket variant uses Gallant's ratchet",
               lambda ctx, _: None if ctx.params.ratchet else "no ratchet"),
    Assumption(NO_RATCHET, "the pocket variant runs without the ratchet",
               lambda ctx, _: None if not ctx.params.ratchet else "with ratchet"),
]

#: The assumptions a flip of every label at once (with w0, b0 and sign(0): the run negated, the
#: same mistakes) leaves as they are: each decided here, so that a new one is not taken by the
#: search's flip (verify.searching.orbits.flip_symmetric) until someone has checked it.  Separable,
#: both labels, unit norms, w0 = 0 and the settings of the run are all unchanged by it.
FLIP_INVARIANT = frozenset({SEPARABLE, NONSEPARABLE, NONTRIVIAL, UNIT_NORM, W0_ZERO, ETA_ONE, ETA_LE_ONE, STRICT_MARGIN,
                            CONVERGED, SIGN0_ZERO, SIGN0_NONZERO, FORM_YX, FORM_HALF, KERNEL_LINEAR, NO_AUGMENT,
                            RATCHET, NO_RATCHET})

#: Every assumption a claim may state, by name, in the order the reference lists them (and in
#: which the one that wins of two on one quantity comes first: eta_one before eta_le_one,
#: sign0_zero before sign0_nonzero, form_yx before form_half).
ASSUMPTIONS: dict[str, Assumption] = {a.name: a for a in _ALL}


def _stated(claim) -> list[Assumption]:
    return [ASSUMPTIONS[a] for a in ASSUMPTIONS if a in claim.assume]


def fixed(claim) -> dict[str, str]:
    """Quantity -> what the claim's assumptions leave of it (the narrowest, when two speak of one)."""
    out: dict[str, str] = {}
    for a in _stated(claim):
        for q, text in a.fixes:
            out.setdefault(q, text)
    return out


def narrowed(claim) -> dict:
    """Field of a search Domain -> its values under the claim's assumptions."""
    out: dict = {}
    for a in _stated(claim):
        for f, values in a.narrows:
            out.setdefault(f, values)
    return out


def eta_bound(claim) -> int | None:
    """The bound the claim's assumptions put on eta, if any."""
    return min((a.eta_max for a in _stated(claim) if a.eta_max is not None), default=None)


def unmet(claim, ctx, converged=None, data=True) -> str | None:
    """Why the run of ``ctx`` does not meet one of the claim's assumptions, or None; ``data``
    False: only those that read the run's settings (the caller tests the data's: on_data)."""
    for a in claim.assume:
        if a in ASSUMPTIONS and not data and ASSUMPTIONS[a].data:
            continue
        why = ASSUMPTIONS[a].unmet(ctx, converged) if a in ASSUMPTIONS else f"unknown assumption {a}"
        if why:
            return why
    return None


def tested_on_data(claim) -> bool:
    """Whether every assumption of the claim that reads the data has a test of arrays (on_data)."""
    return all(a.on_data is not None for a in _stated(claim) if a.data)


def met_on_data(claim, X, Y, D, separated):
    """The mask of the datasets (arrays, as Assumption.on_data reads them) that meet every
    assumption of the claim that reads the data (each has a test of arrays: tested_on_data)."""
    ok = np.ones(len(X), dtype=bool)
    for a in _stated(claim):
        if a.data:
            ok &= a.on_data(X, Y, D, separated)
    return ok
