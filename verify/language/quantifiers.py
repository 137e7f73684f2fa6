"""What a claim ranges over, and whether the evidence varied it.

A statement in a note is about every run of an algorithm on every separable dataset, every
order the proof allows, every learning rate, every initial weight vector, every separator
satisfying a hypothesis, every w.  A claim file states the restrictions it makes (its
assumptions, ``orders``, ``datasets``, ``separator``); everything it does not restrict
ranges.  The rule, applied to every claim:

=============  =======================================================================  ==================================
quantity       ranges over (unless restricted)                                          restricted by
=============  =======================================================================  ==================================
dataset        every dataset satisfying the assumptions                                 ``datasets = [...]``
order          every choice of misclassified point the algorithm allows                 ``orders = [...]``
eta            every eta > 0                                                            ``eta_one`` (eta = 1), ``eta_le_one`` (0 < eta <= 1)
w0             every initial (w0, b0)  (not for the kernel variant: alpha starts at 0)  ``w0_zero``
sign0          -1, 0, +1  (variants with a sign(0) parameter: sign, unit)               ``sign0_zero``, ``sign0_nonzero``
form           eta y x and 1/2 eta (y - out) x  (the sign variant)                      ``form_yx``, ``form_half``
separator      every separator of the data: (w_opt, b_opt, gamma) with |w_opt| = 1       ``separator = "max-margin"``
               and gamma = min_i y_i (w_opt.x_i + b_opt) > 0 (claims that use one)
free names     ``free = ["w", "c:scalar", ...]``: every value (a statement "for all w")   --
c              a pair claim's factor (``pair = "eta:c"``, ``"scale:c"``, ``"w0:c"``)       --
=============  =======================================================================  ==================================

Evidence *varies* a quantity when the evaluations of the claim saw at least two of its values
(for eta: values below and above 1 where eta is unrestricted, two values in (0, 1] under
``eta_le_one``; for w0: zero and non-zero; for the separator: the certified max-margin one
and another).  A claim whose ranging quantity was never varied is "unknown", never "holds".
"""

from __future__ import annotations

from fractions import Fraction

from perceptron.declared import variant_of
from perceptron.variants import VARIANTS
from verify.language.assumptions import ETA_LE_ONE, SEPARABLE, fixed

__all__ = ["quantifiers", "Coverage", "SEPARATOR_NAMES", "RUN_WHENS", "FREE_TYPES", "SEARCHABLE_VARIANTS", "PAIR_C"]

RUN_WHENS = ("visit", "update", "end")
#: The built-in variants whose runs the counterexample search enumerates: every one (declared
#: variants too: verify.searching.domain); here, not in the search package, so the CLI's parser
#: need not load it.
SEARCHABLE_VARIANTS = tuple(VARIANTS)
#: Quantities that exist only relative to a separator.
SEPARATOR_NAMES = frozenset({"w_opt", "b_opt", "gamma", "w_hat_opt", "v_opt", "c_opt", "m_opt"})


def needs_separator(claim) -> bool:
    """Whether a claim reads a dataset's separator: a quantity of one (SEPARATOR_NAMES), the name
    ``separable``, or the assumption that the data are separable (a search then takes one
    separator of each dataset)."""
    return bool(set(claim.compiled.names) & SEPARATOR_NAMES) or "separable" in claim.compiled.names \
        or SEPARABLE in claim.assume


#: Types a free name may have, with the values the evidence draws them from (see verify.corpus.audit).
FREE_TYPES = {
    "vector": "a vector of the dataset's dimension",
    "scalar": "a rational number",
    "positive": "a rational number > 0",
    "label": "-1 or +1",
}


#: The factors c of a pair claim's transformation (eta:c, scale:c, w0:c) the audit evaluates:
#: below and above 1, so the evidence varies c.
PAIR_C = (Fraction(1, 2), Fraction(2), Fraction(3))

def eta_le_one(claim) -> bool:
    """Whether eta ranges over (0, 1] only (the assumption, or every variant's own range)."""
    return ETA_LE_ONE in claim.assume or _own_eta(claim) == "(0, 1]"


def _own_eta(claim) -> str | None:
    """The range of eta every variant of the claim's own notes allows, when they bound it alike."""
    texts = {getattr(variant_of(v), "eta_text", None) for v in claim.variants}
    return texts.pop() if len(texts) == 1 else None


def uses_separator(claim) -> bool:
    return claim.compiled is not None and bool(set(claim.compiled.names) & SEPARATOR_NAMES)


def quantifiers(claim) -> dict[str, str]:
    """Quantity -> its range, for every quantity the claim ranges over (by the rule above).
    Fixed quantities (restricted to one value) are included with their value, so a verdict
    can say what it covered."""
    q: dict[str, str] = {}
    fix = fixed(claim)
    variants = [variant_of(v) for v in claim.variants if variant_of(v) is not None]
    if claim.when in ("once", "symbolic"):
        return q
    q["dataset"] = ("the datasets " + ", ".join(claim.datasets)) if claim.datasets else "every dataset satisfying the assumptions"
    run = claim.when in RUN_WHENS or claim.when == "pair"
    if run:
        q["order"] = ("the orders " + ", ".join(claim.orders)) if claim.orders else "every order"
        own = _own_eta(claim)
        q["eta"] = fix.get("eta") or (f"every eta in {own} (the variant's own range)" if own else "every eta > 0")
        if any(not v.dual for v in variants):
            q["w0"] = fix.get("w0", "every initial w0 (and b0)")
        if any(v.tie is None for v in variants):
            q["sign0"] = fix.get("sign0", "-1, 0 and +1")
        if any(getattr(v, "dual", False) for v in variants):  # the kernel perceptron: its kernel
            q["kernel"] = fix.get("kernel", "every kernel (linear, polynomial, RBF)")
        if any(v.half_form for v in variants):
            q["form"] = fix.get("form", "eta y x and 1/2 eta (y - out) x")
    for v in variants:  # a declared variant's parameters range unless the claim is about one value
        for name, default in getattr(v, "parameters", ()):
            if run or name in (claim.compiled.names if claim.compiled is not None else ()):
                q.setdefault(name, f"every value of {name} (a parameter of {v.name}; default {default})")
    if uses_separator(claim):
        q["separator"] = ("fixed: the maximum-margin separator (certified)" if claim.separator == "max-margin"
                          else "every separator (w_opt, b_opt, gamma) of the data")
    for name, ty in (claim.free or {}).items():
        q[name] = f"every {FREE_TYPES[ty]} (free)"
    if getattr(claim, "setting", None) is not None and run:
        q = claim.setting.describe(q)  # the run the note describes: one run, its values fixed
    if claim.when == "pair" and (claim.pair or "").endswith(":c"):
        q["c"] = (f"every factor c > 0 of the partner run ({claim.pair}; evaluated at "
                  + ", ".join(str(c) for c in PAIR_C) + ")")
    return q


def ranging(claim) -> list[str]:
    """The quantities the claim ranges over (not fixed to one value): those the evidence must vary."""
    out = []
    for k, rng in quantifiers(claim).items():
        if rng.startswith("fixed") or rng.startswith("the datasets ") and len(claim.datasets) == 1 \
                or rng.startswith("the orders ") and len(claim.orders) == 1:
            continue
        out.append(k)
    return out


class Coverage:
    """The values of each quantity that a claim's evaluations saw (merged over runs)."""

    def __init__(self):
        self.seen: dict[str, set] = {}

    def add(self, **values):
        for k, v in values.items():
            if v is not None:
                self.seen.setdefault(k, set()).add(v)

    def merge(self, other: "Coverage"):
        for k, vs in other.seen.items():
            self.seen.setdefault(k, set()).update(vs)

    def varied(self, name: str, claim) -> bool:
        vals = self.seen.get(name, set())
        if name == "eta":
            etas = {Fraction(v) for v in vals}
            if eta_le_one(claim):
                return len({e for e in etas if 0 < e <= 1}) >= 2
            return any(e < 1 for e in etas) and any(e > 1 for e in etas)
        if name == "w0":
            return {"zero", "non-zero"} <= vals
        return len(vals) >= 2

    def summary(self) -> dict:
        return {k: sorted(map(str, v))[:12] + (["..."] if len(v) > 12 else []) for k, v in sorted(self.seen.items())}
