"""The corpus: which datasets the audit runs, and which runs it makes of each for which claims
(the orders, learning rates, initial weights, sign(0) and forms that vary each claim's
quantifiers)."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from fractions import Fraction

from perceptron.errors import InputError
from perceptron.toml_data import table_names
from perceptron import Params, builtin, read_dataset
from perceptron.declared import variant_of
from perceptron.generators import BUILTIN
from verify.language.quantifiers import RUN_WHENS, ranging
from verify.replay.commands import run_options
from verify.language.assumptions import SEPARABLE

__all__ = ["plan_of", "Run", "configs", "needs_of", "corpus_datasets", "load_spec", "check_dataset_names",
           "VARY_MAX_POINTS", "CORPUS_MAX_EPOCHS"]


#: Epoch budget for corpus runs; separable corpus sets converge in far fewer, and
#: non-separable ones (XOR) must stop.
CORPUS_MAX_EPOCHS = 200


#: Built-in sets separable through the origin: run without augmentation.
HOMOGENEOUS = {"worked-example", "separable-d2-g1_5", "separable-d2-g1_20", "separable-d3-g1_10",
               "separable-d5-g1_10", "unit-d3-g1_5"}


@dataclass(frozen=True)
class Run:
    dataset: str  # corpus name
    params: Params
    path: str | None = None  # a --data file's path as the user's folder names it (the replay trains on it)

    def describe(self) -> str:
        """The run's train options (what a replay command trains)."""
        return run_options(self.params)


def _base_configs(name: str, coq: bool = False, E: int = CORPUS_MAX_EPOCHS):
    """Run parameters for one dataset of the corpus (E: its epoch budget)."""
    if coq:
        yield Params(variant="rosenblatt", augment="first", order="cyclic", max_epochs=E)
        return
    aug = None if name in HOMOGENEOUS else "last"
    for order in ("first", "cyclic", "random:1", "max-violation"):
        yield Params(variant="rosenblatt", augment=aug, order=order, max_epochs=E)
    for order in ("cyclic", "first", "random:2", "max-violation"):
        yield Params(variant="novikoff", order=order, max_epochs=E)
    yield Params(variant="novikoff", order="cyclic", eta=Fraction(1, 2), max_epochs=E)
    for sign0 in (0, 1):
        for form in ("yx", "half"):
            for order in ("cyclic", "first"):
                yield Params(variant="sign", augment=aug, order=order, sign0=sign0, form=form, max_epochs=E)
    for eta in (Fraction(1), Fraction(1, 2)):
        yield Params(variant="slides", augment=aug, order="cyclic", eta=eta, max_epochs=E)
    yield Params(variant="slides", augment=aug, order="random:3", max_epochs=E)
    for ratchet in (False, True):
        yield Params(variant="pocket", augment=aug, order="cyclic", ratchet=ratchet, max_epochs=30)
    yield Params(variant="pocket", augment=aug, order="random:4", max_epochs=30)
    yield Params(variant="kernel", augment=aug, order="cyclic", max_epochs=E)
    yield Params(variant="kernel", augment=aug, order="first", max_epochs=E)
    yield Params(variant="kernel", augment=aug, order="cyclic", kernel="poly", degree=2, offset=Fraction(1), max_epochs=E)
    for order in ("first", "cyclic", "max-violation"):
        yield Params(variant="unit", augment=aug, order=order, max_epochs=E)
    yield Params(variant="sklearn", order="cyclic", max_epochs=E)


#: Learning rates the corpus adds for claims that range over eta: below and above 1 (in
#: (0, 1] only for the variants whose note allows no more).
CORPUS_ETAS = (Fraction(1, 2), Fraction(2))


#: Datasets for 004's unit-norm setting: only the variants they are for run on them.
UNIT_ONLY = {"unit-d2-g1_10", "unit-d3-g1_20", "unit-d4-g1_8"}


def _initial_weights(dim: int) -> tuple:
    """A fixed non-zero w0 for the runs that vary w0: alternating -1, 1/2 (points against the
    data's usual direction, so the run from it differs from the run from 0)."""
    return tuple(Fraction(-1) if j % 2 == 0 else Fraction(1, 2) for j in range(dim))


#: Runs that vary eta, w0 or sign(0) go over the corpus datasets of at most this many points
#: (the larger sets repeat what the smaller ones show and cost the most to replay); each
#: claim's evidence lists the values it was evaluated at.
VARY_MAX_POINTS = 25


def configs(name: str, coq: bool, needs: dict, d: int, n: int = 0):
    """(params, quantity varied or None) for the base runs, plus runs that vary each quantity
    some claim ranges over (needs: quantity -> variants whose claims range over it).  Base runs
    only of the variants some claim is evaluated on (needs["variants"]; None: every variant)."""
    wanted = needs.get("variants")
    E = needs.get("epochs", {}).get(name, CORPUS_MAX_EPOCHS)  # a claim about this dataset may raise it
    if name in UNIT_ONLY:
        base_runs = [Params(variant="unit", order=order, sign0=sign0, max_epochs=E)
                     for order in ("first", "cyclic", "max-violation") for sign0 in (0, 1)]
        base_runs.append(Params(variant="rosenblatt", order="cyclic", max_epochs=E))
    else:
        base_runs = _base_configs(name, coq, E)
    made = set()
    for p in base_runs:
        if wanted is None or p.variant in wanted:
            made.add(p)
            yield p, None
    for p in _stated_runs(name, needs, d, E):
        if p not in made:  # the run the note describes, unless a base run is that very run
            made.add(p)
            yield p, None
    if not coq and name not in UNIT_ONLY:
        yield from ((p, None) for p in _declared_configs(name, wanted))
    if coq or n > VARY_MAX_POINTS:
        return
    aug_default = None if name in HOMOGENEOUS or name in UNIT_ONLY else "last"

    def aug(v):
        return aug_default if _augmented(v) else None

    def ok(v):
        return name not in UNIT_ONLY or v == "unit"

    base = list(_base_configs(name, coq))
    for v in sorted(needs.get("eta", ())):
        if not ok(v):
            continue
        top = variant_of(v).eta_max
        etas = [e for e in CORPUS_ETAS if top is None or e <= top]
        for prof in variant_of(v).profiles():
            have = {p.eta for p in base if p.variant == v and all(getattr(p, k) == val for k, val in prof.items())}
            for eta in etas:
                if any((e < 1) == (eta < 1) and e != 1 for e in have):
                    continue  # the base runs already have an eta on this side of 1
                yield Params(variant=v, augment=aug(v), order="cyclic", eta=eta, max_epochs=30 if v == "pocket" else E,
                             **prof), "eta"
    for v in sorted(needs.get("w0", ())):
        if variant_of(v).dual or not ok(v):
            continue
        dim = d + (1 if aug(v) else 0)
        b0 = Fraction(-1) if variant_of(v).bias else None
        for prof in variant_of(v).profiles():
            yield Params(variant=v, augment=aug(v), order="cyclic", w0=_initial_weights(dim), b0=b0,
                         max_epochs=30 if v == "pocket" else E, **prof), "w0"
    for v in sorted(needs.get("sign0", ())):
        if not ok(v):
            continue
        # the base runs (and the eta / w0 profiles) have sign(0) = 0 and +1: add -1
        yield Params(variant=v, augment=aug(v), order="cyclic", sign0=-1, max_epochs=E), "sign0"


def _stated_runs(name: str, needs: dict, d: int, E: int):
    """The runs the claims about this dataset state (verify.language.setting): each claim's
    variants and orders with its setting, which says whether a constant coordinate is added (the
    note's run, not the corpus's augmented one)."""
    for variant, order, s in needs.get("stated", {}).get(name, ()):
        # the pocket's epochs are its T: the corpus's 30, unless a claim about this dataset raised them
        epochs = E if variant != "pocket" or name in needs.get("epochs", {}) else 30
        yield s.params_for(variant, order, d, epochs)


def _augmented(v: str) -> bool:
    """Whether the variant's runs use the data augmented (when the dataset is not homogeneous):
    every variant with no bias of its own learns one through a constant coordinate."""
    return variant_of(v).bias is None


#: The visit orders of a declared variant's corpus runs (a random order with a fixed seed).
DECLARED_CORPUS_ORDERS = {"cyclic": "cyclic", "random": "random:5", "first": "first"}


def _declared_configs(name: str, wanted):
    """Runs of the declared variants some claim is about: each order the declaration supports
    with its parameters' defaults, and (cyclic) each parameter at half and twice its default
    (1/2 and 1 for a default 0): a declared parameter is a quantity the claims range over."""
    E = CORPUS_MAX_EPOCHS
    for v in sorted(wanted or ()):
        var = variant_of(v)
        if not getattr(var, "declared", False):
            continue
        aug = None if name in HOMOGENEOUS or var.bias is not None else "last"
        for order in var.orders:
            if order in DECLARED_CORPUS_ORDERS:
                yield Params(variant=v, augment=aug, order=DECLARED_CORPUS_ORDERS[order], max_epochs=E)
        order = DECLARED_CORPUS_ORDERS["cyclic" if "cyclic" in var.orders else var.orders[0]] \
            if any(o in DECLARED_CORPUS_ORDERS for o in var.orders) else None
        if order is None:
            continue
        for pname, default in var.parameters:
            others = (Fraction(1, 2), Fraction(1)) if default == 0 else (default / 2, default * 2)
            for value in others:
                yield Params(variant=v, augment=aug, order=order, max_epochs=E, declared=((pname, value),))


def needs_of(claims) -> dict:
    """quantity -> variants of the claims that range over it (the corpus varies those), and
    "variants" -> the variants any claim is evaluated on (None: all of them): a run of another
    variant is evidence for no claim of the audit, so it is not made."""
    needs: dict = {"variants": set()}
    for c in claims:
        if c.when in RUN_WHENS + ("dataset", "pair"):
            if not c.variants:
                needs["variants"] = None
            elif needs["variants"] is not None:
                needs["variants"].update(c.variants)
    for c in claims:
        r = ranging(c)
        for q in ("eta", "w0", "sign0"):
            if q in r:
                needs.setdefault(q, set()).update(c.variants)
        for name in (c.datasets or ()) if c.max_epochs else ():
            epochs = needs.setdefault("epochs", {})
            epochs[name] = max(epochs.get(name, CORPUS_MAX_EPOCHS), c.max_epochs)
        for name in (c.datasets or ()) if c.setting is not None and c.when in RUN_WHENS + ("pair", "dataset") else ():
            stated = needs.setdefault("stated", {}).setdefault(name, [])
            for v in c.variants:
                for order in c.orders or ("cyclic",):
                    if (v, order, c.setting) not in stated:
                        stated.append((v, order, c.setting))
    return needs


def check_dataset_names(claims, names) -> None:
    """A claim naming a dataset the corpus does not have is one InputError at its line, listing
    the names there are (it would otherwise end "unknown: evaluated at none")."""
    from verify.language.note_data import no_dataset

    have = set(names)
    for c in claims:
        for name in c.datasets or ():
            if name not in have:
                raise InputError(c.path, f"claim {c.id}: in the corpus, {no_dataset(name, have)}", c.line)


def plan_of(claims) -> list:
    """What of the claims decides which runs the corpus makes (needs_of, and which runs that vary
    a quantity are skipped as evidence for nothing: verify.corpus.audit.audit_dataset), as JSON:
    equal plans make equal runs."""
    return sorted([c.when, sorted(c.variants), sorted(set(ranging(c)) & {"eta", "w0", "sign0"}),
                   SEPARABLE in c.assume] + ([sorted(c.datasets or ()), c.max_epochs] if c.max_epochs else [])
                  + ([sorted(c.datasets or ()), list(c.orders or ()), repr(c.setting)] if c.setting is not None else [])
                  for c in claims)


def corpus_datasets(data_dirs=(), claim_files=()):
    """(name, spec, is_external) for the built-in corpus (the package's own datasets), the
    [[dataset]] tables of the claim files (a note's own data: run as the built-in sets are), and
    the dataset files of the given dirs; a spec is ("builtin", name) or ("file", path) (see
    load_spec).  Nothing outside the package is looked for: the CoqPerceptron benchmark files
    join with --data DIR."""
    out = [(name, ("builtin", name), False) for name in BUILTIN]
    for path in claim_files:
        for name in table_names(path):
            if any(name == o[0] for o in out):
                raise InputError(path, f"dataset {name!r} is also given in {dict((o[0], o[1][1]) for o in out)[name]}: "
                                       "dataset names must be unique across the claim files audited together")
            out.append((name, ("file", f"{path}#{name}"), False))
    for d in data_dirs:
        for path in sorted(glob.glob(os.path.join(d, "*"))):
            base = os.path.basename(path)
            if os.path.isdir(path) or base == "input_description" or base.startswith("."):
                continue
            out.append((base, ("file", path), True))
    return out


def load_spec(spec):
    kind, what = spec
    return builtin(what) if kind == "builtin" else read_dataset(what)
