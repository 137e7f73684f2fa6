"""Run parameters and their checks, and the inputs prepared for a run (the data as the
learner sees it: augmented, normalised, exact or float)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ._numbers import (
    INT64_SAFE,
    common_denominator,
    fits_text,
    format_rational,
    maxabs,
    to_int_array,
)
from .datasets import Dataset
from .errors import OptionError
from .limits import MAX_NUMBER_CHARS
from .declared import variant_of
from .variants import DEFAULT_VARIANT, VARIANTS

__all__ = ["Params", "ParamError", "DataParamError", "SequenceError", "prepare_inputs", "exact_inputs", "check_params", "declared_constants",
           "names_used", "parse_order", "epoch_permutations", "MAX_KERNEL_POINTS", "MAX_DEGREE"]


@dataclass(frozen=True)
class Params:
    """Everything that determines a run.  Rationals are Fractions; ``arithmetic`` is
    ``"exact"`` or ``"float"``."""

    variant: str = DEFAULT_VARIANT
    eta: Fraction = Fraction(1)
    order: str = "cyclic"
    augment: str | None = None  # None, "first", "last"
    sign0: int = 0  # value of sign(0) for the variants where it is a parameter
    form: str = "yx"  # sign variant: "yx" (eta y x) or "half" (1/2 eta (y - out) x)
    w0: tuple | None = None
    b0: Fraction | None = None
    max_epochs: int = 1000
    max_updates: int = 1_000_000
    max_visits: int | None = None
    patience: int | None = None  # slides/pocket: stop once w is unchanged for this many visits
    ratchet: bool = False  # pocket: Gallant's ratchet
    kernel: str = "linear"  # linear, poly, rbf
    degree: int = 2
    offset: Fraction = Fraction(1)
    rbf_gamma: Fraction = Fraction(1)
    arithmetic: str = "exact"
    declared: tuple = ()  #: ((name, Fraction), ...): values of a declared variant's parameters

    def to_json(self) -> dict:
        out = {}
        for k, v in self.__dict__.items():
            if k == "declared":
                if v:  # absent for the built-in variants: their traces are unchanged
                    out[k] = {name: format_rational(x) for name, x in v}
                continue
            if isinstance(v, Fraction):
                v = format_rational(v) if self.arithmetic == "exact" else float(v)
            elif isinstance(v, tuple):
                v = [format_rational(x) if self.arithmetic == "exact" else float(x) for x in v]
            out[k] = v
        return out

    def argv(self) -> list:
        """The options of ``proof-audit train`` that make this run again: the variant and order,
        every setting that is not train's default, and the epoch budget (always named: a replay
        must stop where the run did).  sign(0) is named only for a variant that takes it from the
        run.  The one place a run becomes a command line (shlex.join makes it the text)."""
        fr = format_rational
        var = variant_of(self.variant)
        out = ["--variant", self.variant, "--order", self.order]
        out += ["--augment", self.augment] if self.augment else []
        out += ["--eta", fr(self.eta)] if self.eta != 1 else []
        out += ["--sign0", str(self.sign0)] if self.sign0 and var is not None and var.tie is None else []
        out += ["--form", self.form] if self.form != "yx" else []
        out += ["--w0=" + ",".join(fr(v) for v in self.w0)] if self.w0 is not None else []
        out += [f"--b0={fr(self.b0)}"] if self.b0 is not None else []
        out += ["--ratchet"] if self.ratchet else []
        for name, v in self.declared:
            out += ["--set", f"{name}={fr(v)}"]
        if self.kernel != "linear":
            out += ["--kernel", self.kernel, "--degree", str(self.degree), "--offset", fr(self.offset)]
            out += ["--rbf-gamma", fr(self.rbf_gamma)] if self.rbf_gamma != 1 else []
        out += ["--max-updates", str(self.max_updates)] if self.max_updates != Params.max_updates else []
        out += ["--max-visits", str(self.max_visits)] if self.max_visits is not None else []
        out += ["--patience", str(self.patience)] if self.patience is not None else []
        out += ["--float"] if self.arithmetic == "float" else []
        return out + ["--max-epochs", str(self.max_epochs)]

    @classmethod
    def from_json(cls, obj: dict, var=None) -> "Params":
        """Parameters from a trace header, strictly typed: every field present, no other, each
        of its type (a string "false" is not a bool, 1.9 is not an int); raises ParamError.
        ``var``: the variant (a declaration from the header), else looked up by name."""
        if not isinstance(obj, dict):
            raise ParamError("params must be a JSON object")
        names = [k for k in cls.__dataclass_fields__ if k != "declared"]
        extra = sorted(set(obj) - set(names) - {"declared"})
        missing = [k for k in names if k not in obj]
        if extra or missing:
            raise ParamError(f"params {'has unknown field ' + repr(extra[0]) if extra else 'lacks ' + repr(missing[0])}")
        kw = {}
        for k in names:
            v = obj[k]
            kind = _PARAM_TYPES[k]
            if v is None and k in _OPTIONAL:
                kw[k] = None
            elif kind == "int":
                if type(v) is not int:
                    raise ParamError(f"params.{k} must be an integer, not {v!r}"[:200])
                kw[k] = v
            elif kind == "bool":
                if type(v) is not bool:
                    raise ParamError(f"params.{k} must be true or false, not {v!r}"[:200])
                kw[k] = v
            elif kind == "str":
                if type(v) is not str or len(v) > 100_000:
                    raise ParamError(f"params.{k} must be a string, not {v!r}"[:200])
                kw[k] = v
            elif kind == "rational":
                kw[k] = _rational_field(k, v)
            elif kind == "vector":
                if type(v) is not list:
                    raise ParamError(f"params.{k} must be a list of numbers"[:200])
                kw[k] = tuple(_rational_field(k, x) for x in v)
        if "declared" in obj:
            dv = obj["declared"]
            if not isinstance(dv, dict) or len(dv) > 64 or not all(isinstance(k, str) and len(k) <= 64 for k in dv):
                raise ParamError("params.declared must be an object of parameter values")
            kw["declared"] = tuple((k, _rational_field(f"declared.{k}", v)) for k, v in sorted(dv.items()))
        params = cls(**kw)
        if var is None or var.name != params.variant:
            var = variant_of(params.variant)
        check_params(params, var)
        return params


#: JSON types of the Params fields (see Params.from_json).
_PARAM_TYPES = {"variant": "str", "eta": "rational", "order": "str", "augment": "str", "sign0": "int", "form": "str",
                "w0": "vector", "b0": "rational", "max_epochs": "int", "max_updates": "int", "max_visits": "int",
                "patience": "int", "ratchet": "bool", "kernel": "str", "degree": "int", "offset": "rational",
                "rbf_gamma": "rational", "arithmetic": "str"}


_OPTIONAL = {"augment", "w0", "b0", "max_visits", "patience"}


#: Which of the run's parameters a declared variant takes (the others belong to built-in variants).
_DECLARED_DEFAULTS = {"form": "yx", "patience": None, "ratchet": False, "kernel": "linear"}


#: Most points of a kernel run: its Gram matrix has n^2 entries (10^8 float64 = 800 MB).
MAX_KERNEL_POINTS = 10_000


#: Largest polynomial kernel degree: (x.z + c)^degree is computed exactly, its size grows with it.
MAX_DEGREE = 64


def _rational_field(name: str, v) -> Fraction:
    from ._numbers import NumberError, parse_rational

    if type(v) is str:
        try:
            return parse_rational(v)
        except NumberError as e:
            raise ParamError(f"params.{name}: {e}") from None
    if type(v) is int:
        if len(str(abs(v))) > 1000:
            raise ParamError(f"params.{name}: a number of more than 1000 digits")
        return Fraction(v)
    if type(v) is float and math.isfinite(v):
        return Fraction(v)
    raise ParamError(f"params.{name} must be a finite number, not {v!r}"[:200])


class ParamError(OptionError):
    """A parameter combination that the variant does not allow."""


class DataParamError(ParamError):
    """Parameters these data do not allow (the unit variant's zero vector or irrational norm, a
    sequence naming a point the data lack): said naming the data file."""


class SequenceError(DataParamError):
    """A ``sequence:`` order the data does not allow: a point it names is not in the dataset, or
    is correctly classified when its turn comes (the run is no run of that sequence)."""


def prepare_inputs(ds: Dataset, params: Params):
    """The inputs the learner sees, after augmentation and (unit variant) normalisation.

    Exact: ``(X_num, D)`` with x = X_num / D.  Float: ``(X_float, 1)``.
    """
    var = variant_of(params.variant)
    if params.arithmetic == "exact":
        X, D = ds.exact()
        if params.augment:
            ones = np.full((ds.n, 1), D, dtype=X.dtype)
            X = np.hstack([ones, X] if params.augment == "first" else [X, ones])
        if var.unit:
            X, D = _unit_rows_exact(X, D)
        return X, D
    X = ds.as_float()
    if params.augment:
        ones = np.ones((ds.n, 1))
        X = np.hstack([ones, X] if params.augment == "first" else [X, ones])
    if var.unit:
        norms = np.sqrt(np.cumsum(X * X, axis=1)[:, -1])
        if (norms == 0).any():
            raise DataParamError(f"the unit variant cannot scale the zero vector (point {int(np.argmax(norms == 0))})")
        X = X / norms[:, None]
    return np.ascontiguousarray(X), 1


def exact_inputs(ds: Dataset, params: Params):
    """The exact inputs (after augmentation; for the unit variant x itself, whose score has the
    sign of the score of x/|x|)."""
    X, D = ds.exact()
    if params.augment:
        ones = np.full((ds.n, 1), D, dtype=X.dtype)
        X = np.hstack([ones, X] if params.augment == "first" else [X, ones])
    return X, D


def _unit_rows_exact(X, D):
    rows = []
    for i, row in enumerate(X):
        sq = sum(int(v) * int(v) for v in row)
        r = math.isqrt(sq)
        if sq == 0:
            raise DataParamError(f"the unit variant cannot scale the zero vector (point {i})")
        if r * r != sq:
            raise DataParamError(
                f"point {i} has |x|^2 = {format_rational(Fraction(sq, D * D))}, not the square of a rational, "
                "so x/|x| is irrational: run the unit variant with --float, or give unit-norm data")
        rows.append([Fraction(int(v), r) for v in row])
    den = common_denominator(f.denominator for row in rows for f in row)
    return to_int_array([[f.numerator * (den // f.denominator) for f in row] for row in rows]), den


def check_params(params: Params, var):
    if var is None:
        raise ParamError(f"unknown variant {params.variant!r}; choose one of {', '.join(VARIANTS)}, "
                         "or declare it in a variant file (--variants FILE)")
    if getattr(var, "declared", False):
        _check_declared(params, var)
        return
    if params.declared:
        raise ParamError(f"--set gives the parameters of a declared variant; {params.variant} is built in")
    _check_common(params)
    if var.eta_max is not None and Fraction(params.eta) > var.eta_max:
        raise ParamError(f"the {params.variant} variant takes --eta in {var.eta_text}, got {params.eta}")
    if params.form == "half" and not var.half_form:
        raise ParamError(f"--form half (1/2 eta (y - out) x) belongs to the sign variant, not {params.variant}")
    if params.form not in ("yx", "half"):
        raise ParamError(f"form must be yx or half, got {params.form!r}")
    if var.order is not None and params.order != var.order:
        raise ParamError(f"the {params.variant} variant runs in data order: use --order {var.order}")
    if var.dual and (params.w0 is not None or params.b0 is not None):
        raise ParamError("the kernel variant starts from alpha = 0; initial weights do not apply")
    parse_order(params.order)
    _check_budgets(params, ("max_epochs", "max_updates", "max_visits", "patience"))
    if params.kernel not in ("linear", "poly", "rbf"):
        raise ParamError(f"--kernel must be linear, poly or rbf, not {params.kernel!r}")
    if params.kernel != "linear" and not var.dual:
        raise ParamError(f"--kernel {params.kernel} needs the kernel variant")
    if not 1 <= params.degree <= MAX_DEGREE:
        raise ParamError(f"--degree must be in 1..{MAX_DEGREE} (perceptron.run.MAX_DEGREE), got {params.degree}")
    if Fraction(params.rbf_gamma) <= 0:
        raise ParamError(f"--rbf-gamma must be positive, got {params.rbf_gamma}")
    if params.patience is not None and not var.patience:
        raise ParamError(f"--patience belongs to the {' and '.join(n for n, v in VARIANTS.items() if v.patience)} variants")


def _check_common(params: Params):
    """What every variant, built in or declared, requires of its parameters."""
    if params.arithmetic not in ("exact", "float"):
        raise ParamError(f"arithmetic must be exact or float, not {params.arithmetic!r}")
    _check_numbers(params)
    if Fraction(params.eta) <= 0:
        raise ParamError(f"--eta must be positive, got {params.eta}")
    if params.sign0 not in (-1, 0, 1):
        raise ParamError(f"--sign0 must be -1, 0 or +1, got {params.sign0}")
    if params.augment not in (None, "first", "last"):
        raise ParamError(f"augment must be first or last, got {params.augment!r}")


def _exact_values(params: Params):
    """(option, value) for every rational parameter of a run."""
    yield "--eta", Fraction(params.eta)
    for j, v in enumerate(params.w0 or ()):
        yield f"--w0 (coordinate {j})", Fraction(v)
    if params.b0 is not None:
        yield "--b0", Fraction(params.b0)
    yield "--offset", Fraction(params.offset)
    yield "--rbf-gamma", Fraction(params.rbf_gamma)
    for name, v in params.declared:
        yield f"--set {name}", Fraction(v)


def _check_numbers(params: Params):
    """Every rational parameter fits where it goes: written "p/q" within MAX_NUMBER_CHARS (the
    trace holds it, and check reads no longer number), and for a float run within the float range."""
    for option, v in _exact_values(params):
        if not fits_text(v, MAX_NUMBER_CHARS):
            raise ParamError(f"{option}: its exact value takes more than {MAX_NUMBER_CHARS} characters as p/q, the "
                             "longest number a trace holds (perceptron.limits.MAX_NUMBER_CHARS)")
        if params.arithmetic == "float":
            try:
                finite = math.isfinite(float(v))
            except OverflowError:
                finite = False
            if not finite:
                text = format_rational(v)
                raise ParamError(f"{option}: {text[:24]}{'...' if len(text) > 24 else ''} is beyond the float range of "
                                 "a --float run (about 1.8e308); run it exact")


def _check_budgets(params: Params, names):
    for name in names:
        v = getattr(params, name)
        if v is not None and v < 0:
            raise ParamError(f"--{name.replace('_', '-')} must be >= 0, got {v}")


def _check_declared(params: Params, decl):
    _check_common(params)
    for name, default in _DECLARED_DEFAULTS.items():
        if getattr(params, name) != default:
            raise ParamError(f"--{name} belongs to the built-in variants; a declaration states its own rule")
    kind, _ = parse_order(params.order)
    if kind not in decl.orders:
        raise ParamError(f"the declared variant {decl.name} supports the orders {', '.join(decl.orders)}, not {params.order}")
    _check_budgets(params, ("max_epochs", "max_updates", "max_visits"))
    known = dict(decl.parameters)
    for name, _ in params.declared:
        if name not in known:
            raise ParamError(f"{decl.name} has no parameter {name!r}"
                             + (f" (its parameters: {', '.join(known)})" if known else " (it declares none)"))


def declared_constants(ds: Dataset, params: Params, X, D, decl) -> dict:
    """The constants a declaration's expressions may name: eta, n, d, R2, R (when rational, or
    in float), and the declared parameters (their defaults, overridden by the run's --set)."""
    out = {"eta": Fraction(params.eta), "n": Fraction(ds.n), "d": Fraction(X.shape[1])}
    if not names_used(decl) & {"R", "R2"}:
        pass  # R and R2 cost a pass over the data: only for declarations that name them
    elif params.arithmetic == "exact":
        big = X.dtype == object or maxabs(X) ** 2 * max(X.shape[1], 1) >= INT64_SAFE
        sq = (X.astype(object) ** 2).sum(axis=1) if big else np.einsum("ij,ij->i", X, X)
        r2 = Fraction(max((int(v) for v in sq), default=0), D * D)
        out["R2"] = r2
        p, q = math.isqrt(r2.numerator), math.isqrt(r2.denominator)
        if p * p == r2.numerator and q * q == r2.denominator:
            out["R"] = Fraction(p, q)
        elif names_used(decl) & {"R"}:
            raise ParamError(f"R = sqrt({format_rational(r2)}) is irrational: an exact run of {decl.name} cannot hold it; "
                             "run it with --float")
    else:
        r2f = float(np.max(np.cumsum(X * X, axis=1)[:, -1])) if X.size else 0.0
        out["R2"], out["R"] = r2f, math.sqrt(r2f)
    out.update(dict(decl.parameters))
    out.update(dict(params.declared))
    return out


def names_used(decl) -> set:
    used = set(decl.score.names) | set(decl.mistake.names)
    for _, c in decl.state + decl.update + decl.outputs:
        used |= set(c.names)
    return used


def epoch_permutations(seed: int, n: int):
    """The points of each epoch of a ``random:SEED`` run on n points, epoch after epoch: one
    generator, one permutation an epoch.  The learner, its replays and the search all draw them
    here, so they cannot disagree."""
    rng = np.random.default_rng(seed)
    while True:
        yield rng.permutation(n)


def parse_order(order: str):
    if order in ("first", "cyclic", "max-violation"):
        return order, None
    if order.startswith("sequence:"):
        body = order.split(":", 1)[1]
        try:
            seq = [int(v) for v in body.split(",")] if body else []
        except ValueError:
            raise ParamError(f"sequence order needs comma-separated point indices, as sequence:0,2,1; got {order!r}") from None
        if any(v < 0 for v in seq):
            raise ParamError("sequence indices are 0-based and non-negative")
        return "sequence", seq
    if order.startswith("random:"):
        seed = order.split(":", 1)[1]
        if not seed.isdigit():
            raise ParamError(f"random order needs an integer seed, as random:SEED; got {order!r}")
        return "random", int(seed)
    raise ParamError(f"unknown order {order!r}; choose first, cyclic, random:SEED, max-violation or sequence:I,J,...")
