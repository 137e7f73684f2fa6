"""``proof-audit claims at ID NAME=VALUE ...``: a symbolic claim evaluated exactly at concrete
values, the command printed beside every refuted step whose counterexample was realised as
vectors (verify.corpus.evidence).  Exit 1 when every hypothesis holds there and a step fails
(the refutation reproduced), 0 otherwise, 2 for bad input."""

from __future__ import annotations

from perceptron._numbers import NumberError, parse_rational
from perceptron.errors import OptionError

__all__ = ["cmd_at"]

#: Names a command gives values to (a claim declares at most 16 vectors and 16 scalars).
MAX_VALUES = 32
#: Coordinates of one vector: a realised counterexample has at most one per vector of the claim.
MAX_COORDINATES = 64


def _values(items) -> dict:
    if len(items) > MAX_VALUES:
        raise OptionError(f"{len(items)} values; at most {MAX_VALUES} (verify.symbolic.at.MAX_VALUES)")
    out = {}
    for item in items:
        name, eq, text = item.partition("=")
        if not eq or not name:
            raise OptionError(f"{item!r}: write NAME=VALUE (a scalar, e.g. y=-1) or NAME=a,b,... (a vector)")
        if name in out:
            raise OptionError(f"{name} is given twice")
        parts = text.split(",")
        if len(parts) > MAX_COORDINATES:
            raise OptionError(f"{name}: {len(parts)} coordinates; at most {MAX_COORDINATES} "
                              "(verify.symbolic.at.MAX_COORDINATES)")
        try:
            out[name] = tuple(parse_rational(p) for p in parts)
        except NumberError as e:
            raise OptionError(f"{name}={text}: {e}") from None
    return out


def cmd_at(claim, items) -> int:
    """Print every hypothesis and step of ``claim`` at the values ``items`` (NAME=VALUE)."""
    from verify.symbolic.steps import check_at

    if claim.symbolic is None:
        raise OptionError(f"claim {claim.id} is not symbolic (when = \"symbolic\"): use proof-audit check or search")
    sym = claim.symbolic
    values = _values(items)
    for s in sym["scalars"]:
        if s in values and len(values[s]) != 1:
            raise OptionError(f"claim {claim.id}: {s} is a scalar and takes one number")
        if s in values:
            values[s] = values[s][0]
    try:
        rows = check_at(sym["vectors"], sym["scalars"], sym["hypotheses"], sym["steps"], values)
    except ValueError as e:
        raise OptionError(f"claim {claim.id}: {e}") from None
    shown = ", ".join(f"{k} = ({', '.join(map(str, v))})" if isinstance(v, tuple) else f"{k} = {v}"
                      for k, v in values.items())
    print(f"{claim.id} at {shown}:")
    last = None
    for kind, source, rel, lhs, rhs, holds in rows:
        if (kind, source) != last:  # the line as written, then each link (inner products as <a,b>)
            print(f"  {kind} {source}")
            last = (kind, source)
        word = {True: "holds", False: "FAILS", None: "undecided"}[holds]
        print(f"    {rel}: {word} (left {lhs}, right {rhs})")
    hyps_hold = all(h for k, *_, h in rows if k == "hypothesis")
    failed = [rel for k, _, rel, _, _, h in rows if k == "step" and h is False]
    if not hyps_hold:
        print("not a counterexample: a hypothesis does not hold at these values")
        return 0
    if failed:
        print(f"refuted at these values: {failed[0]} is false" + (f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""))
        return 1
    print("every step holds at these values")
    return 0
