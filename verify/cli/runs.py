"""train, certify and check: one run of the learner, a dataset's certificate, a trace's claims."""

from __future__ import annotations

import json
from fractions import Fraction

from perceptron import InputError, Params, open_writer, train
from perceptron._numbers import format_rational
from perceptron.declared import variant_of
from perceptron.params import DataParamError
from perceptron.variants import VARIANTS
from verify.cli.options import UsageError, claim_paths, load_all_claims, load_data, load_variant_files, params_of


def cmd_train(args) -> int:
    load_variant_files(args.variants)
    ds = load_data(args)
    params = params_of(args, ds)
    writer = open_writer(args.trace, args.record) if args.trace else None
    try:
        res = train(ds, params, writer)
    except BaseException as e:  # a refused or failed run leaves no partial trace behind
        if writer is not None:
            writer.abort()
        if isinstance(e, OSError):
            raise InputError(args.trace, f"cannot write the trace: {e.strerror or e}") from None
        if isinstance(e, DataParamError):  # the data's fault: said naming the data
            raise InputError(args.data, str(e)) from None
        raise
    summary = res.summary()
    summary["dataset"] = ds.name
    summary["label_map"] = ds.label_map
    if args.trace:
        summary["trace"] = args.trace
    if args.json:
        print(json.dumps(summary, separators=(",", ":")))
        return 0
    print(f"{ds.name}: {ds.n} points, d = {ds.d}, labels {ds.label_map}")
    print(f"variant {res.variant} ({variant_of(res.variant).note}), order {params.order}, {res.arithmetic} arithmetic"
          + (", " + ", ".join(f"{k} = {format_rational(v)}" for k, v in params.declared) if params.declared else ""))
    if res.arithmetic == "float":
        print("float64 weights, rounded at each update; every mistake decision is the exact sign of the score of "
              "those weights on the exact data (scores within the rounding bound are re-decided in rationals)")
    state = "converged" if res.converged else f"did NOT converge (stopped: {res.stop})"
    print(f"{state} after {res.updates} updates, {res.epochs} epochs, {res.visits} visits")
    if res.w is not None:
        fmt = format_rational if res.arithmetic == "exact" else repr
        w = ", ".join(fmt(v) for v in res.w[:20]) + (", ..." if len(res.w) > 20 else "")
        print(f"w = ({w})" + (f", b = {fmt(res.b)}" if res.b is not None else ""))
    if res.alpha is not None:
        print(f"alpha = {res.alpha[:30]}{' ...' if len(res.alpha) > 30 else ''}")
    for name, v in res.extra.get("outputs", {}).items():
        print(f"{name} = " + (f"({', '.join(str(a) for a in v[:20])}{', ...' if len(v) > 20 else ''})"
                              if isinstance(v, list) else str(v)))
    if args.trace:
        print(f"trace: {args.trace}")
    return 0



def cmd_certify(args) -> int:
    from perceptron.params import prepare_inputs
    from verify.certify.certificates import certify
    from verify.numbers import exact as X_

    ds = load_data(args)
    params = Params(variant=args.variant, augment=args.augment, arithmetic="exact")
    bias = VARIANTS[args.variant].bias is not None
    X, D = prepare_inputs(ds, params)
    cert = certify(X, D, [int(v) for v in ds.y], bias=bias)
    out = {"dataset": ds.name, "sha256": ds.sha256, "variant": args.variant, "augment": args.augment, **cert.to_json()}
    if args.json:
        print(json.dumps(out, separators=(",", ":"), sort_keys=True))
    else:
        print(f"{ds.name}: {cert.kind} ({cert.method}), inputs {'with bias' if bias else 'through the origin'}"
              + (f", augmented {args.augment}" if args.augment else ""))
        if cert.kind == "separable":
            # int(a) truncated the exactly unit-norm rational separator of a unit certificate to zeros
            v = [format_rational(Fraction(a)) for a in cert.v]
            shown = f"({', '.join(v[:8])}{', ...' if len(v) > 8 else ''})"
            print(f"  w_opt = v = {shown} (exactly unit-norm rationals)" if cert.unit else
                  f"  w_opt = v/|v|, v = {shown} (integers), |w_opt| = 1 exactly")
            if bias:
                print(f"  b_opt = c/|v|, c = {format_rational(cert.c)}")
            print(f"  maximum margin in [gamma_lo, gamma_hi] = [{X_.to_float(cert.gamma):.9g}, "
                  + (f"{X_.to_float(cert.gamma_hi):.9g}]" if cert.gamma_hi is not None else "?]")
                  + (f", gamma_lo/gamma_hi = {cert.ratio():.6f}" if cert.gamma_hi is not None else "")
                  + (" (both ends exact: gamma_lo the margin of w_opt, gamma_hi the norm of a dual point)"
                     if cert.gamma_hi is not None else " (gamma_lo exact, the margin of w_opt; no upper bound computed)"))
        elif cert.kind == "nonseparable":
            sup = [i for i, v in enumerate(cert.lam) if v]
            print(f"  lambda >= 0 on points {sup}: " + ", ".join(f"{format_rational(cert.lam[i])}" for i in sup[:12])
                  + "; sum lambda_i y_i x_i = 0 exactly")
        else:
            print(f"  {cert.reason}")
    return 0


def cmd_check(args) -> int:
    from perceptron.trace_reader import read_trace
    from verify.replay.dispatch import replay

    load_variant_files(args.variants)
    claims = load_all_claims(claim_paths(args))  # claim files may declare variants too
    ds = load_data(args)
    from perceptron.declared import declared

    tr = read_trace(args.trace)
    embedded = tr.declaration is not None and declared(tr.declaration.name) is None
    if args.only:
        missing = set(args.only) - {c.id for c in claims}
        if missing:
            raise UsageError(f"no claim {sorted(missing)[0]!r} in the claim files")
        claims = [c for c in claims if c.id in args.only]
    if args.separator is not None and len(args.separator) != tr.header["model_dim"]:
        raise UsageError(f"--separator has {len(args.separator)} coordinates; the run's inputs have "
                         f"{tr.header['model_dim']}")
    sep = (args.separator, args.separator_bias) if args.separator else None
    ctx, bad, tallies = replay(ds, tr, claims, separator=sep)
    if bad is not None:
        print(f"{args.trace}: INCONSISTENT with {ds.name}: {bad}")
        return 1
    explicit = bool(args.claims or args.only)
    if ctx is not None and explicit:  # named pair claims: the partner run is made, replayed and compared
        from verify.replay.pairs import pair_tally

        tallies.update({c.id: pair_tally(c, ds, ctx, tr) for c in claims if c.when == "pair"})
    from verify.report.terminal import check_text

    text, unexpected = check_text(args.trace, ds, tr, ctx, claims, tallies, explicit=explicit, embedded=embedded)
    print(text)
    return 1 if unexpected else 0
