"""The run a note describes, stated on a claim: ``run = { eta = "0.1", w0 = [0, 0], b0 = 0,
sign0 = 1, ... }``.

A worked example is one run: the note's learning rate, initial weights and bias, tie rule,
update form and bias update.  A claim that states them is about that run only: each stated
value is *fixed* (its coverage says "eta fixed: 1/10"; it is never "unknown: never varied"),
the corpus makes that run on the claim's datasets for each of its variants and orders, and the
claim applies to no other run.  Values are exact as written (``0.1`` is 1/10).

=========  ===================================================  ==============================
field      meaning                                              the learner's option
=========  ===================================================  ==============================
eta        the learning rate, any rational > 0                  ``--eta``
w0, b0     the initial weights and bias, as the note writes     ``--w0``, ``--b0`` (the bias is
           them (a variant without a bias of its own keeps b    the added coordinate of an
           in its added constant coordinate)                    augmented run)
sign0      the tie rule: the output at a score of 0 (-1, 0, 1)  ``--sign0``
form       ``yx`` (w += eta y x) or ``half`` (1/2 eta (y - out) x: the 0/1-label rule w += eta (t - o) x)
augment    ``none``, ``first`` or ``last``: where the constant coordinate 1 goes (the bias)
ratchet    the pocket's ratchet (true / false)
set        a declared variant's parameters: ``set = { lr = "1/10" }``
=========  ===================================================  ==============================
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from perceptron._numbers import parse_rational

__all__ = ["Setting", "setting_of", "SETTING_FIELDS", "MAX_SETTING_DIM"]

SETTING_FIELDS = ("eta", "w0", "b0", "sign0", "form", "augment", "ratchet", "set")
#: Entries of a stated w0: a note's worked example has a few features.
MAX_SETTING_DIM = 1000


@dataclass(frozen=True)
class Setting:
    eta: Fraction | None = None
    w0: tuple | None = None
    b0: Fraction | None = None
    sign0: int | None = None
    form: str | None = None
    augment: str | None = None  # "none" | "first" | "last" (None: the corpus's choice)
    ratchet: bool | None = None
    declared: tuple = ()  # ((name, Fraction), ...)

    def describe(self, quantities: dict) -> dict[str, str]:
        """The claim's quantities (verify.language.quantifiers) with what the setting fixes: a
        stated run is one run, so what it does not state is the learner's default, fixed too
        (eta 1, w0 0, sign(0) = 0, the eta y x form, a declared parameter's default)."""
        out = dict(quantities)
        fixed = {"eta": str(self.eta if self.eta is not None else 1),
                 "w0": ("(" + ", ".join(str(v) for v in self.w0) + ")" if self.w0 is not None else "0")
                 + (f", b0 = {self.b0}" if self.b0 is not None else ""),
                 "sign0": str(self.sign0 if self.sign0 is not None else 0),
                 "form": "eta y x" if (self.form or "yx") == "yx" else "1/2 eta (y - out) x",
                 "kernel": "linear"}  # the learner's default kernel: a stated run states no other
        for k, v in fixed.items():
            if k in out or (k == "sign0" and self.sign0 is not None):
                out[k] = f"fixed: {v}"
        declared = dict(self.declared)
        for k, rng in quantities.items():
            if rng.startswith("every value of "):  # a declared variant's parameter
                default = rng.rsplit("default ", 1)[-1].rstrip(")")
                out[k] = f"fixed: {declared.get(k, default)}"
        return out

    def initial(self, augment: str | None, own_bias: bool, d: int):
        """(w0, b0) for the learner on data of d features: the note's bias folded into the added
        coordinate of an augmented run of a variant without a bias of its own."""
        if self.w0 is None and self.b0 is None:
            return None, None
        w = list(self.w0) if self.w0 is not None else [Fraction(0)] * d
        if own_bias or augment is None:
            return w, self.b0
        b = self.b0 or Fraction(0)
        return ([b] + w if augment == "first" else w + [b]), None


    def params_for(self, variant: str, order: str, d: int, max_epochs: int):
        """The learner's Params of this stated run of ``variant`` in ``order`` on data of ``d``
        features.  What the setting does not state is the learner's default, the constant
        coordinate too: the data as given, unless ``augment`` says where one goes or a b0 is
        stated for a variant without a bias of its own (its bias lives in one: last)."""
        from perceptron import Params
        from perceptron.declared import variant_of

        var = variant_of(variant)
        own_bias = var is not None and var.bias is not None
        augment = None
        if self.augment is not None:
            augment = None if self.augment == "none" else self.augment
        elif self.b0 is not None and not own_bias:
            augment = "last"  # the note's bias lives in the added coordinate
        w0, b0 = self.initial(augment, own_bias, d)
        kw = {k: v for k, v in (("eta", self.eta), ("sign0", self.sign0), ("form", self.form), ("ratchet", self.ratchet))
              if v is not None}
        return Params(variant=variant, order=order, augment=augment, w0=tuple(w0) if w0 is not None else None, b0=b0,
                      declared=self.declared, max_epochs=max_epochs, **kw)

    def mismatch(self, params, d: int, data_only: bool = False) -> str | None:
        """Why a run (its Params, on data of ``d`` features) is not this setting's run: every
        parameter of the learner is compared (the budgets and the order aside: ``orders`` says
        which), what the setting does not state at the learner's default; None when it is.
        ``data_only`` (a claim about the dataset): only what makes the data the run sees, its
        constant coordinate (augment)."""
        want = self.params_for(params.variant, params.order, d, params.max_epochs)
        have, want = _normal(params), _normal(want)
        for k in (("augment",) if data_only else have):
            if have[k] != want[k]:
                return f"{k} = {_show(have[k])}, not the stated run's {_show(want[k])}"
        return None


#: Fields of Params that are a run's budget or order, not its setting.
_NOT_SETTING = {"max_epochs", "max_updates", "max_visits", "order"}


def _normal(p) -> dict:
    """A run's setting, comparable: no initial weights are zero weights, a variant's parameters
    at their defaults where not given, sign(0) only where the variant leaves it open."""
    from dataclasses import fields

    from perceptron.declared import variant_of

    var = variant_of(p.variant)
    out = {f.name: getattr(p, f.name) for f in fields(p) if f.name not in _NOT_SETTING}
    out["w0"] = tuple(Fraction(v) for v in p.w0) if p.w0 is not None and any(p.w0) else None
    out["b0"] = Fraction(p.b0 or 0)
    if var is not None and getattr(var, "tie", None) is not None:
        out["sign0"] = None  # the variant fixes its tie rule
    defaults = dict(getattr(var, "parameters", ()) or ())
    out["declared"] = tuple(sorted({**{k: Fraction(v) for k, v in defaults.items()},
                                    **{k: Fraction(v) for k, v in p.declared}}.items()))
    return out


def _show(v) -> str:
    if isinstance(v, tuple):
        return "(" + ", ".join(_show(x) for x in v) + ")"
    return "none" if v is None else str(v)


def _rational(v) -> Fraction:
    if type(v) is bool or not isinstance(v, (int, str)):
        raise ValueError(f"{v!r} is not a number: write 3, \"0.1\" or \"1/10\"")
    return parse_rational(str(v).strip())


def setting_of(raw, problem_at, has_datasets: bool, variants=()) -> Setting | None:
    """The claim's ``run`` table checked: a Setting, or None after ``problem_at(message)``.  A
    stated run is a run on the claim's datasets (the search, which ranges over datasets and
    settings, does not make it)."""
    if raw is None:
        return None
    if not has_datasets:
        problem_at("run = {...} states the run on the claim's datasets: name them in datasets = [...]")
        return None
    if not isinstance(raw, dict):
        problem_at("run must be a table: run = { eta = \"0.1\", w0 = [0, 0], b0 = 0, sign0 = 1 }")
        return None
    unknown = sorted(set(raw) - set(SETTING_FIELDS))
    if unknown:
        problem_at(f"unknown run field {unknown[0]!r}; fields are {', '.join(SETTING_FIELDS)}")
        return None
    try:
        s = _checked(raw)
        _fits(s, variants)
        return s
    except (ValueError, ArithmeticError) as e:
        problem_at(f"run: {e}")
        return None


def _fits(s: Setting, variants) -> None:
    """A stated value each of the claim's variants can take (else ValueError): a tie rule the
    variant fixes otherwise, a bias with nowhere to go."""
    from perceptron.declared import variant_of

    for name in variants:
        var = variant_of(name)
        if var is None:
            continue
        tie = getattr(var, "tie", None)
        if s.sign0 is not None and tie is not None and tie != s.sign0:
            raise ValueError(f"variant {name} fixes sign(0) = {tie}; sign0 = {s.sign0} is another variant's "
                             "rule (the sign variant takes sign0)")
        if s.b0 and getattr(var, "bias", None) is None and s.augment == "none":
            raise ValueError(f"b0 = {s.b0} with augment = \"none\": variant {name} has no bias of its own, so the "
                             "bias needs the added coordinate (augment \"last\" or \"first\")")
        if s.form == "half" and not getattr(var, "half_form", False):
            raise ValueError(f"form = \"half\": variant {name} has one update form")


def _checked(raw: dict) -> Setting:
    eta = _rational(raw["eta"]) if "eta" in raw else None
    if eta is not None and eta <= 0:
        raise ValueError(f"eta = {eta}: the learning rate must be > 0")
    w0 = raw.get("w0")
    if w0 is not None:
        if not isinstance(w0, list) or not w0 or len(w0) > MAX_SETTING_DIM:
            raise ValueError(f"w0 must be a list of 1 to {MAX_SETTING_DIM} numbers")
        w0 = tuple(_rational(v) for v in w0)
    b0 = _rational(raw["b0"]) if "b0" in raw else None
    sign0 = raw.get("sign0")
    if sign0 is not None and (type(sign0) is not int or sign0 not in (-1, 0, 1)):
        raise ValueError("sign0 (the output at a score of 0) must be -1, 0 or 1")
    form = raw.get("form")
    if form is not None and form not in ("yx", "half"):
        raise ValueError("form must be \"yx\" (w += eta y x) or \"half\" (1/2 eta (y - out) x)")
    augment = raw.get("augment")
    if augment is not None and augment not in ("none", "first", "last"):
        raise ValueError("augment must be \"none\", \"first\" or \"last\"")
    ratchet = raw.get("ratchet")
    if ratchet is not None and type(ratchet) is not bool:
        raise ValueError("ratchet must be true or false")
    declared = raw.get("set", {})
    if not isinstance(declared, dict):
        raise ValueError("set must be a table of a declared variant's parameters: set = { lr = \"1/10\" }")
    return Setting(eta, w0, b0, sign0, form, augment, ratchet,
                   tuple(sorted((str(k), _rational(v)) for k, v in declared.items())))
