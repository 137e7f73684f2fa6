"""What every replay checks a trace's records with: the inconsistency it reports, the stopping
rule of the cyclic and random orders, and the comparison of end records."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from perceptron._numbers import NumberError, format_rational, parse_rational

__all__ = ["Inconsistency", "CyclicRule", "end_mismatch", "augmented_bias", "short_vector", "SHOWN_COORDINATES"]


@dataclass
class Inconsistency:
    t: int | None
    message: str

    def __str__(self):
        return (f"visit {self.t}: " if self.t is not None else "") + self.message


#: Coordinates an inconsistency message shows of a vector (the differing one is named apart):
#: a doctored trace of a 1000-dimensional run is one readable line, not 10 KB.
SHOWN_COORDINATES = 8


def short_vector(values) -> str:
    """A vector for an inconsistency message: its first SHOWN_COORDINATES coordinates."""
    vals = [format_rational(Fraction(v)) for v in values]
    more = f", ... ({len(vals)} coordinates)" if len(vals) > SHOWN_COORDINATES else ""
    return "(" + ", ".join(vals[:SHOWN_COORDINATES]) + more + ")"


class CyclicRule:
    """The stopping rule of the cyclic and random orders, as the learner applies it, for both
    replays: an epoch without a mistake converges; max_epochs, max_updates (checked before an
    epoch and after each update), max_visits and the slides/pocket patience end the run."""

    def __init__(self, ctx, p, stop_when_clean: bool = True):
        self.p = p
        self.stop_when_clean = stop_when_clean
        self.steps = _order_iter(ctx, p.order)
        self.max_visits = p.max_visits if p.max_visits is not None else float("inf")
        self.cur_epoch, self.clean, self.unchanged = 0, True, 0
        self.epochs, self.stop, self.converged = 0, None, False

    def next(self, k: int, t: int):
        """(epoch, point) of the next visit, or None when the run has ended (see ``stop``)."""
        epoch, i = next(self.steps)
        if epoch != self.cur_epoch:
            if self.cur_epoch and self.clean and self.stop_when_clean:
                self.converged, self.stop = True, "converged"
                return None
            if epoch > self.p.max_epochs:
                self.stop = "max_epochs"
                return None
            if k >= self.p.max_updates:
                self.stop = "max_updates"
                return None
            self.cur_epoch, self.clean = epoch, True
        self.epochs = epoch
        if t >= self.max_visits:
            self.stop = "max_visits"
            return None
        return epoch, i

    def after(self, mistake: bool, k: int) -> bool:
        """Account for a visit; True when the run ends with it."""
        if mistake:
            self.clean, self.unchanged = False, 0
            if k >= self.p.max_updates:
                self.stop = "max_updates"
                return True
            return False
        self.unchanged += 1
        if self.p.patience is not None and self.unchanged >= self.p.patience:
            self.stop = "unchanged"
            return True
        return False


def _order_iter(ctx, order: str):
    """Visit sequence for cyclic / random orders: yields (epoch, index)."""
    n = ctx.n
    rng = np.random.default_rng(int(order.split(":")[1])) if order.startswith("random:") else None
    epoch = 0
    while True:
        epoch += 1
        perm = rng.permutation(n) if rng is not None else range(n)
        for i in perm:
            yield epoch, int(i)


def _canonical(v):
    """An exact value (or a list of them) as the learner's end record writes it."""
    if isinstance(v, list):
        return [_canonical(x) for x in v]
    return format_rational(v) if isinstance(v, (Fraction, int)) else v


def end_mismatch(end: dict, got: dict, exact: bool):
    """The first field where the trace's end record differs from the re-run's end."""
    def norm(v):
        if isinstance(v, list):
            return [norm(x) for x in v]
        if v is None or isinstance(v, bool):
            return v
        if exact:
            return Fraction(v) if not isinstance(v, str) else parse_rational(v)
        return float(v)

    for key, want in got.items():
        have = end.get(key)
        try:
            if key in ("w", "b", "w_pocket"):  # the canonical "p/q" text first: no parse of long numbers
                same = exact and _canonical(want) == have or norm(have) == norm(want)
            else:
                same = type(have) is type(want) and have == want
        except (ValueError, TypeError, ZeroDivisionError, NumberError):
            same = False
        if not same:
            return Inconsistency(None, f"the re-run ends with {key} = {_show(want)}; the trace's end record says "
                                       f"{_show(have)}")
    return None


def _show(v) -> str:
    """A value of an end record, briefly."""
    if isinstance(v, list):
        return f"a list of {len(v)}"
    return (format_rational(v) if isinstance(v, Fraction) else str(v))[:60]


def augmented_bias(p, w):
    """The bias an end record states for a run without a b: the augmented coordinate, or 0."""
    if p.augment == "first":
        return w[0]
    if p.augment == "last":
        return w[-1]
    return Fraction(0)
