"""The exact replay's loop: the visits the rule makes, in the order it makes them (cyclic or
random epochs, a given sequence, the first or the most violated mistake), each handed to a
stepper that scores the point, checks its record and updates.  One loop for every variant: the
built-in variants (verify.replay.exact) and declared ones (verify.replay.declared) differ only
in their stepper.  This visit-by-visit loop is the oracle the block fast path
(verify.replay.blocks) is tested against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from verify.replay.records import CyclicRule, Inconsistency

__all__ = ["Stepper", "RunEnd", "Sweep", "follow_rule"]


class Stepper(Protocol):
    """A variant's state on one dataset, as the replay steps it."""

    #: updates made so far
    k: int

    def visit(self, t: int, epoch: int, i: int) -> tuple[bool, Inconsistency | None]:
        """Score point i at visit t, check its record, update on a mistake: (mistake, inconsistency)."""

    def is_mistake(self, i: int) -> bool:
        """Whether the rule would update on point i now."""

    def why_not(self, i: int) -> str:
        """Why point i is no mistake now (for the message when a sequence names it)."""

    def most_violated(self, candidates: list[int]) -> int:
        """The candidate with the smallest y_i s_i (the max-violation order)."""


class Sweep:
    """The sweep (epoch) a replay is in, as the claims' sweep quantities read it."""

    def __init__(self):
        self.epoch = self.t0 = self.k0 = 0
        self.last = -1

    def at(self, t: int, epoch: int, k: int, mistake: bool) -> tuple:
        """(the sweep's number, the visits made before it, the mistakes made in it up to and
        including visit t, the mistakes of the sweep before it or -1 in the first) for visit t
        of ``epoch``, k updates made before the visit."""
        if epoch != self.epoch:
            self.last = k - self.k0 if self.epoch else -1
            self.epoch, self.t0, self.k0 = epoch, t - 1, k
        return epoch, self.t0, k + mistake - self.k0, self.last


@dataclass
class RunEnd:
    """How the rule ended the run."""

    visits: int
    epochs: int
    stop: str | None
    converged: bool


def follow_rule(ctx, p, step: Stepper, *, stop_when_clean: bool = True):
    """Drive ``step`` through the visits the rule of ``p.order`` makes on ctx's dataset.  Returns a
    RunEnd, or the first Inconsistency a visit reports."""
    order = p.order
    if order == "cyclic" or order.startswith("random:"):
        return _epochs(ctx, p, step, stop_when_clean)
    if order.startswith("sequence:"):
        return _sequence(ctx, p, step)
    return _search_orders(ctx, p, step)


def _epochs(ctx, p, step, stop_when_clean):
    rule = CyclicRule(ctx, p, stop_when_clean=stop_when_clean)
    t = 0
    while (where := rule.next(step.k, t)) is not None:
        t += 1
        mistake, bad = step.visit(t, *where)
        if bad:
            return bad
        if rule.after(mistake, step.k):
            break
    return RunEnd(t, rule.epochs, rule.stop, rule.converged)


def _sequence(ctx, p, step):
    """The visits a ``sequence:i,j,...`` order names, each of which must be a mistake."""
    n, t, epochs = ctx.n, 0, 0
    body = p.order.split(":", 1)[1]
    for epochs, j in enumerate([int(v) for v in body.split(",")] if body else [], 1):
        if not 0 <= j < n:
            return Inconsistency(t + 1, f"the sequence names point {j}; the dataset has {n}")
        if not step.is_mistake(j):
            return Inconsistency(t + 1, f"{step.why_not(j)}: the rule forbids an update on it")
        t += 1
        _, bad = step.visit(t, epochs, j)
        if bad:
            return bad
    converged = all(not step.is_mistake(i) for i in range(n))
    return RunEnd(t, epochs, "converged" if converged else "sequence_end", converged)


def _search_orders(ctx, p, step):
    """``first`` and ``max-violation``: each step looks at every point and updates on the first
    (or the most violated) mistake; the points before the first are visited without an update."""
    n, t, epoch = ctx.n, 0, 0
    max_visits = p.max_visits if p.max_visits is not None else float("inf")
    while True:
        mist = [step.is_mistake(i) for i in range(n)]
        epoch += 1
        if not any(mist):
            m = n if max_visits == float("inf") else max(0, min(n, int(max_visits) - t))
            for i in range(m):
                t += 1
                _, bad = step.visit(t, epoch, i)
                if bad:
                    return bad
            return RunEnd(t, epoch, "converged" if m == n else "max_visits", m == n)
        if step.k >= p.max_updates:
            return RunEnd(t, epoch, "max_updates", False)
        if epoch > p.max_epochs:
            return RunEnd(t, epoch - 1, "max_epochs", False)
        if p.order == "first":
            j = mist.index(True)
            if t + j + 1 > max_visits:
                return RunEnd(t, epoch, "max_visits", False)
            for i in range(j + 1):
                t += 1
                _, bad = step.visit(t, epoch, i)
                if bad:
                    return bad
        else:
            best = step.most_violated([i for i in range(n) if mist[i]])
            if t + 1 > max_visits:
                return RunEnd(t, epoch, "max_visits", False)
            t += 1
            _, bad = step.visit(t, epoch, best)
            if bad:
                return bad
