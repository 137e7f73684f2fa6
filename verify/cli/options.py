"""The command line's shared options and how they are read: data, run settings, claim files, configuration."""

from __future__ import annotations

import argparse
from fractions import Fraction

from perceptron import Params, load
from perceptron._numbers import NumberError, parse_rational
from perceptron.errors import OptionError
from perceptron.variants import DEFAULT_VARIANT


class UsageError(OptionError):
    """A bad command-line argument; reported as one line with exit code 2."""


def rational_arg(text: str) -> Fraction:
    try:
        return parse_rational(text)
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def vector_arg(text: str) -> tuple:
    try:
        return tuple(parse_rational(v) for v in text.split(","))
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def label_map_arg(text: str) -> tuple:
    from perceptron.labels import parse_label_map

    try:
        return parse_label_map(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_data_args(p):
    p.add_argument("--data", required=True, help="dataset file (CSV/TSV/whitespace text, NPZ, LIBSVM/svmlight, "
                   "CoqPerceptron .dat) or builtin:NAME")
    p.add_argument("--format", choices=["csv", "npz", "libsvm", "coq"], help="file format (default: from the name/content; "
                   "csv covers comma, semicolon, tab and whitespace separated text)")
    p.add_argument("--labels", choices=["01", "pm1"], help="force the label set: 01 maps 0 -> -1; pm1 takes -1/+1 "
                   "(default: whichever of the two the labels are)")
    p.add_argument("--label-column", metavar="COL", help="text tables: the label column: first, last, a column number "
                   "(from 1) or a header name (default: a column named label/y/target/class, else the last)")
    p.add_argument("--label-map", type=label_map_arg, metavar="A=1,B=-1",
                   help="label texts to -1/+1, e.g. M=1,R=-1 (default: numbers as --labels; true/false, yes/no, pos/neg)")
    p.add_argument("--header", choices=["auto", "yes", "no"], default="auto",
                   help="text tables: is the first row a header? (default auto: names, pandas' index column, or "
                        "its integer column names)")


def load_data(args):
    from perceptron.labels import ReadOptions

    return load(args.data, args.format, args.labels,
                ReadOptions(label_column=args.label_column, label_map=args.label_map, header=args.header))


def add_run_args(p):
    p.add_argument("--variant", default=DEFAULT_VARIANT, metavar="NAME",
                   help="the algorithm: rosenblatt (000), novikoff (001, b += eta y R^2), sign (002), slides, pocket, "
                        "kernel (003), unit (004), sklearn (scikit-learn's Perceptron), or a variant declared in "
                        "--variants FILE")
    p.add_argument("--variants", action="append", metavar="FILE",
                   help="a variant file: [variants.NAME] declarations (see examples/variants; repeatable)")
    p.add_argument("--set", action="append", metavar="NAME=P/Q", dest="set_values",
                   help="a declared variant's parameter, e.g. --set tau=1/2 (repeatable; default: the declaration's)")
    p.add_argument("--eta", type=rational_arg, default=Fraction(1), help="learning rate (exact rational; default 1)")
    p.add_argument("--order", default="cyclic", help="first | cyclic | random:SEED | max-violation | sequence:I,J,... "
                                                    "(default cyclic)")
    p.add_argument("--augment", choices=["first", "last"], help="add the constant-1 coordinate first or last")
    p.add_argument("--sign0", type=int, default=0, choices=[-1, 0, 1], help="value of sign(0) for the sign and unit variants")
    p.add_argument("--form", choices=["yx", "half"], default="yx", help="sign variant: eta y x, or 1/2 eta (y - out) x")
    p.add_argument("--w0", type=vector_arg, help="initial weights, comma-separated rationals (default 0)")
    p.add_argument("--b0", type=rational_arg, help="initial bias (default 0)")
    p.add_argument("--max-epochs", type=int, default=1000, help="stop after this many passes over the data")
    p.add_argument("--max-updates", type=int, default=1_000_000, help="stop after this many updates (mistakes)")
    p.add_argument("--max-visits", type=int, help="maximum number of steps (visits)")
    p.add_argument("--patience", type=int, help="stop once w is unchanged for this many visits (slides, pocket)")
    p.add_argument("--ratchet", action="store_true", help="pocket: Gallant's ratchet")
    p.add_argument("--kernel", choices=["linear", "poly", "rbf"], default="linear", help="kernel variant: the kernel")
    p.add_argument("--degree", type=int, default=2, help="poly kernel: (x.z + offset)^degree, degree 1 to 64")
    p.add_argument("--offset", type=rational_arg, default=Fraction(1), help="poly kernel: the offset (exact rational)")
    p.add_argument("--rbf-gamma", type=rational_arg, default=Fraction(1), help="rbf kernel: exp(-gamma |x - z|^2) (float only)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--exact", dest="arithmetic", action="store_const", const="exact",
                   help="exact integers/rationals (default for rational data)")
    g.add_argument("--float", dest="arithmetic", action="store_const", const="float",
                   help="float64, every decision within rounding re-decided exactly (default for float data)")


def load_variant_files(paths):
    from verify.language.variant_files import load_variant_file  # claim files as --claims reads them

    for path in paths or ():
        load_variant_file(path)


def set_values(items) -> tuple:
    out = {}
    for item in items or ():
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise UsageError(f"--set {item}: write NAME=VALUE, e.g. --set tau=1/2")
        if name in out:
            raise UsageError(f"--set {name} is given twice")
        try:
            out[name] = rational_arg(value)
        except argparse.ArgumentTypeError as e:
            raise UsageError(f"--set {item}: {e}") from None
    return tuple(sorted(out.items()))


def params_of(args, ds) -> Params:
    arithmetic = args.arithmetic or ("exact" if ds.is_rational else "float")
    return Params(variant=args.variant, eta=args.eta, order=args.order, augment=args.augment,
                  declared=set_values(getattr(args, "set_values", None)),
                  sign0=args.sign0, form=args.form, w0=args.w0, b0=args.b0,
                  max_epochs=args.max_epochs, max_updates=args.max_updates, max_visits=args.max_visits,
                  patience=args.patience, ratchet=args.ratchet, kernel=args.kernel, degree=args.degree,
                  offset=args.offset, rbf_gamma=args.rbf_gamma, arithmetic=arithmetic)


_CONFIG: list = []


def reset_config() -> None:
    """Forget the configuration read: each command reads it afresh (main calls this first)."""
    _CONFIG.clear()


def config_of():
    """[tool.proof-audit] of the nearest pyproject.toml (read once; see verify.config)."""
    if not _CONFIG:
        from verify.config import load_config

        _CONFIG.append(load_config())
    return _CONFIG[0]


def claim_paths(args):
    from verify.language.claims import builtin_claim_files

    return args.claims or config_of().claims or builtin_claim_files()


def load_all_claims(paths):
    from verify.language.claims import claims_of, load_claims

    return claims_of(load_claims(p) for p in paths)


def claim_named(args):
    match = [c for c in load_all_claims(claim_paths(args)) if c.id == args.claim_id]
    if not match:
        raise UsageError(f"no claim {args.claim_id!r} in the claim files")
    return match[0]
