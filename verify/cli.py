"""The ``proof-audit`` command line: run, train, check, certify, search, claims lint, report.

Exit codes: 0 every verdict as expected, 1 an unexpected verdict (or an inconsistent trace),
2 bad input or usage (one line naming the file, line and problem; never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction

from perceptron import InputError, ParamError, Params, load, open_writer, train
from perceptron._numbers import NumberError, format_rational, parse_rational
from perceptron.variants import VARIANTS

__all__ = ["main"]


class UsageError(ValueError):
    """A bad command-line argument; reported as one line with exit code 2."""


def _rational_arg(text: str) -> Fraction:
    try:
        return parse_rational(text)
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _vector_arg(text: str) -> tuple:
    try:
        return tuple(parse_rational(v) for v in text.split(","))
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_data_args(p):
    p.add_argument("--data", required=True, help="dataset file (CSV, NPZ, LIBSVM, CoqPerceptron .dat) or builtin:NAME")
    p.add_argument("--format", choices=["csv", "npz", "libsvm", "coq"], help="file format (default: from the name/content)")
    p.add_argument("--labels", choices=["01", "pm1"], help="force the label set: 01 maps 0 -> -1; pm1 takes -1/+1")


def _add_run_args(p):
    p.add_argument("--variant", default="rosenblatt", choices=sorted(VARIANTS))
    p.add_argument("--eta", type=_rational_arg, default=Fraction(1), help="learning rate (exact rational; default 1)")
    p.add_argument("--order", default="cyclic", help="first | cyclic | random:SEED | max-violation (default cyclic)")
    p.add_argument("--augment", choices=["first", "last"], help="add the constant-1 coordinate first or last")
    p.add_argument("--sign0", type=int, default=0, choices=[-1, 0, 1], help="value of sign(0) for the sign and unit variants")
    p.add_argument("--form", choices=["yx", "half"], default="yx", help="sign variant: eta y x, or 1/2 eta (y - out) x")
    p.add_argument("--w0", type=_vector_arg, help="initial weights, comma-separated rationals (default 0)")
    p.add_argument("--b0", type=_rational_arg, help="initial bias (default 0)")
    p.add_argument("--max-epochs", type=int, default=1000)
    p.add_argument("--max-updates", type=int, default=1_000_000)
    p.add_argument("--max-visits", type=int, help="maximum number of steps (visits)")
    p.add_argument("--patience", type=int, help="stop once w is unchanged for this many visits (slides, pocket)")
    p.add_argument("--ratchet", action="store_true", help="pocket: Gallant's ratchet")
    p.add_argument("--kernel", choices=["linear", "poly", "rbf"], default="linear")
    p.add_argument("--degree", type=int, default=2)
    p.add_argument("--offset", type=_rational_arg, default=Fraction(1))
    p.add_argument("--rbf-gamma", type=_rational_arg, default=Fraction(1))
    g = p.add_mutually_exclusive_group()
    g.add_argument("--exact", dest="arithmetic", action="store_const", const="exact",
                   help="exact integers/rationals (default for rational data)")
    g.add_argument("--float", dest="arithmetic", action="store_const", const="float", help="float64")


def _params(args, ds) -> Params:
    arithmetic = args.arithmetic or ("exact" if ds.is_rational else "float")
    return Params(variant=args.variant, eta=args.eta, order=args.order, augment=args.augment,
                  sign0=args.sign0, form=args.form, w0=args.w0, b0=args.b0,
                  max_epochs=args.max_epochs, max_updates=args.max_updates, max_visits=args.max_visits,
                  patience=args.patience, ratchet=args.ratchet, kernel=args.kernel, degree=args.degree,
                  offset=args.offset, rbf_gamma=args.rbf_gamma, arithmetic=arithmetic)


def cmd_train(args) -> int:
    ds = load(args.data, args.format, args.labels)
    params = _params(args, ds)
    writer = open_writer(args.trace, args.record) if args.trace else None
    try:
        res = train(ds, params, writer)
    except OSError as e:
        raise InputError(args.trace, f"cannot write the trace: {e.strerror or e}") from None
    summary = res.summary()
    summary["dataset"] = ds.name
    summary["label_map"] = ds.label_map
    if args.trace:
        summary["trace"] = args.trace
    if args.json:
        print(json.dumps(summary, separators=(",", ":")))
        return 0
    print(f"{ds.name}: {ds.n} points, d = {ds.d}, labels {ds.label_map}")
    print(f"variant {res.variant} ({VARIANTS[res.variant].note}), order {params.order}, {res.arithmetic} arithmetic")
    state = "converged" if res.converged else f"did NOT converge (stopped: {res.stop})"
    print(f"{state} after {res.updates} updates, {res.epochs} epochs, {res.visits} visits")
    if res.w is not None:
        fmt = format_rational if res.arithmetic == "exact" else repr
        w = ", ".join(fmt(v) for v in res.w[:20]) + (", ..." if len(res.w) > 20 else "")
        print(f"w = ({w})" + (f", b = {fmt(res.b)}" if res.b is not None else ""))
    if res.alpha is not None:
        print(f"alpha = {res.alpha[:30]}{' ...' if len(res.alpha) > 30 else ''}")
    if args.trace:
        print(f"trace: {args.trace}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="proof-audit", description="Mechanical, exact audits of perceptron convergence proofs.")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("train", help="run a reference perceptron and write its trace")
    _add_data_args(p)
    _add_run_args(p)
    p.add_argument("--trace", help="write the trace here (.jsonl or .npz)")
    p.add_argument("--record", choices=["visits", "updates"], default="visits", help="record every visit (default) or updates only")
    p.add_argument("--json", action="store_true", help="print a one-line JSON summary")
    p.set_defaults(func=cmd_train)
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except InputError as e:
        print(f"proof-audit: {e}", file=sys.stderr)
        return 2
    except (ParamError, UsageError) as e:
        print(f"proof-audit: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("proof-audit: interrupted", file=sys.stderr)
        return 130
