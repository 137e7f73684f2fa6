"""search: small integer datasets searched for a counterexample to one claim."""

from __future__ import annotations

import json
import math
import os

from perceptron._numbers import NumberError, parse_rational
from perceptron.variants import DEFAULT_VARIANT
from verify.config import check_jobs, check_out_dir
from verify.cli.options import UsageError, claim_named, config_of


def cmd_search(args) -> int:
    from verify.searching import (
        DEFAULT_MEMORY,
        DEFAULTS,
        Domain,
        search,
        worst,
    )

    from verify._child import MemoryCap
    from verify.report.terminal import ShardProgress, search_result_text, worst_text

    claim = claim_named(args)
    cfg = config_of()  # [tool.proof-audit] and its search table, under the command line
    for k, default in DEFAULTS.items():
        if getattr(args, k) is None:
            setattr(args, k, cfg.search.get(k, default))
    args.jobs = args.jobs if args.jobs is not None else cfg.jobs or 1
    args.scheduler = args.scheduler or cfg.scheduler
    check_jobs(args.jobs)
    if args.max_memory is None:
        args.max_memory = DEFAULT_MEMORY / (1 << 30)
    if not (math.isfinite(args.max_memory) and 0.5 <= args.max_memory <= 1024):
        raise UsageError(f"--max-memory {args.max_memory}: choose 0.5 to 1024 GiB")
    check_etas(args.eta)
    check_out_dir(args.out, "--out", marker=None)
    if args.results:  # checked before the search, not after its work
        if os.path.isdir(args.results) or not os.access(os.path.dirname(os.path.abspath(args.results)), os.W_OK):
            raise UsageError(f"--results {args.results}: cannot write a file there")
    try:
        dom = Domain(points=args.points, dim=args.dim, box=args.box, max_updates=args.max_updates, order=args.order,
                     sep_box=args.sep_box, separators=args.separators, variant=args.variant or DEFAULT_VARIANT,
                     etas=tuple(args.eta) if args.eta else ("1",), w0_box=args.w0_box,
                     sign0s=tuple(args.sign0) if args.sign0 else (0,), unit=args.unit)
        budget = int(args.max_memory * (1 << 30))
        import z3  # noqa: F401  (its library is mapped before the address-space cap, which it would not fit under)

        if args.worst:
            with MemoryCap(args.max_memory):
                res = worst(claim, dom, timeout=args.timeout, max_memory=budget)
            print(json.dumps(res, indent=1, sort_keys=True, default=str) if args.json else worst_text(res))
            return 0
        with MemoryCap(args.max_memory), ShardProgress(args.quiet) as progress:
            res = search(claim, dom, engine=args.engine, timeout=args.timeout, out_dir=args.out, jobs=args.jobs,
                         scheduler=args.scheduler, max_memory=budget, progress=progress)
    except MemoryError:
        print(f"{claim.id} ({claim.citation}): unknown: limit reached: the search needed more than its memory "
              f"limit of {args.max_memory:g} GiB (--max-memory); no verdict on the domain")
        return 1
    if args.json:
        print(json.dumps(res.to_json(), sort_keys=True, default=str))
    else:
        print(search_result_text(claim, res))
    if args.results:
        try:
            with open(args.results, "w", encoding="utf-8") as fh:
                json.dump(res.to_json(timing=False), fh, sort_keys=True, indent=1, default=str)
                fh.write("\n")
        except OSError as e:
            raise UsageError(f"--results {args.results}: cannot write it: {e.strerror or e}") from None
    from verify.verdicts import meets

    return 0 if meets(res.verdict, claim.expect) else 1


def check_etas(etas):
    for e in etas or ():
        try:
            f = parse_rational(e)
            if f <= 0 or len(e) > 20:
                raise ValueError
        except (ValueError, NumberError):
            raise UsageError(f"--eta {e}: a learning rate is a positive rational P/Q of at most 20 characters") from None
