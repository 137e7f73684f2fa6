"""What every replay checks a trace's records with: the inconsistency it reports, the stopping
rule of the cyclic and random orders, and the comparison of end records."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from perceptron._numbers import NumberError, format_rational, parse_rational
from perceptron.params import epoch_permutations
from verify.numbers import exact as X

__all__ = ["Inconsistency", "RecordChecker", "CyclicRule", "end_mismatch", "run_values", "augmented_bias", "short_vector", "short_value",
           "SHOWN_COORDINATES"]


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
    perms = epoch_permutations(int(order.split(":")[1]), n) if order.startswith("random:") else None
    epoch = 0
    while True:
        epoch += 1
        perm = next(perms) if perms is not None else range(n)
        for i in perm:
            yield epoch, int(i)


def _canonical(v):
    """An exact value (or a list of them) as the learner's end record writes it."""
    if isinstance(v, list):
        return [_canonical(x) for x in v]
    return format_rational(v) if isinstance(v, (Fraction, int)) else v


def run_values(end: dict) -> dict:
    """What visit and update claims read of the whole run (mistakes, epochs, converged,
    stopped_by_budget), from the trace's end record: the replay compares that record with its
    own re-run's end before any verdict, and a trace whose record differs is inconsistent and
    gives none, so the values claims read are the re-run's."""
    vals = {}
    for name, key in (("mistakes", "updates"), ("epochs", "epochs")):
        if type(end.get(key)) is int:
            vals[name] = Fraction(end[key])
    if type(end.get("converged")) is bool:
        vals["converged"] = Fraction(int(end["converged"]))
        vals["stopped_by_budget"] = Fraction(int(not end["converged"]))
    return vals


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
            if isinstance(want, list) and isinstance(have, list) and len(want) == len(have):
                for j, (a, b) in enumerate(zip(want, have)):  # name the first coordinate that differs
                    try:
                        differs = norm(a) != norm(b)
                    except (ValueError, TypeError, ZeroDivisionError, NumberError):
                        differs = True
                    if differs:
                        return Inconsistency(None, f"the re-run ends with {key}[{j}] = {_show(a)}; the trace's end "
                                                   f"record says {_show(b)}")
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


def short_value(v) -> str:
    """A value for an inconsistency message: a vector by its first SHOWN_COORDINATES coordinates,
    a sum of square roots with its approximation, a rational as "p/q"."""
    if isinstance(v, X.Vec):
        return short_vector(v.components())
    if isinstance(v, X.Surd):
        return f"{v!r} (~{X.to_float(v):.6g})"
    return format_rational(v)


class RecordChecker:
    """A trace's records, checked in order against what the rule requires.  Every replay (built-in
    and declared variants, exact and float) reads the trace's visit and update records through
    this one class, so each check, and its message, is written once.

    A trace recorded visit by visit (``record = "visits"``) has one record per visit; one recorded
    update by update has one per update, and the non-update visits are not in it."""

    #: Records read through Python lists (faster to index one at a time than arrays) up to this
    #: many; a longer trace is read from its arrays, so memory stays that of the trace.
    LIST_RECORDS = 1 << 18

    def __init__(self, tr, order: str, labels):
        cols = (tr.t, tr.i, tr.epoch, tr.y, tr.mistake, tr.k, tr.upd_t)
        if len(tr.t) <= self.LIST_RECORDS:
            cols = tuple(c.tolist() for c in cols)
        self.t, self.i, self.epoch, self.y, self.mistake, self.k, self.upd_t = cols
        self.visits = tr.header.get("record", "visits") == "visits"
        self.order, self.labels = order, labels
        self.rec = 0  # the next visit record
        self.upd = 0  # the next update record

    def recorded(self, mistake: bool, t: int) -> bool:
        """Whether visit t is to be checked against a record: every visit of a trace recorded
        visit by visit, every update, and any other visit a record is present for (every record
        present is checked, whatever the header says the trace holds)."""
        return self.visits or mistake or (self.rec < len(self.t) and int(self.t[self.rec]) == t)

    def visit(self, t: int, epoch: int, i: int, mistake: bool, k_before: int, describe, score_differs=None):
        """The record of visit t: point i in ``epoch``, a mistake or not by the rule, k_before updates
        before it.  ``describe()`` says why the rule decided as it did (for the message);
        ``score_differs(rec)`` says how the recorded score of record rec differs from the
        recomputed one, or None when it agrees.  Returns an Inconsistency or None."""
        rec = self.rec
        if rec >= len(self.t):
            return Inconsistency(t, f"the rule requires a visit to point {i} (epoch {epoch}); the trace has ended")
        if not self.visits and not mistake and int(self.t[rec]) == t:
            return Inconsistency(t, f"the header says the trace records updates only; it records visit {t}, at which the "
                                    "rule makes no update")
        rt = int(self.t[rec])
        if rt != t:
            what = "a visit" if rt > t else "a repeated or out-of-order visit"
            return Inconsistency(t, f"the trace records visit number {rt} where the rule requires visit {t} ({what} is "
                                    "missing or extra)")
        if int(self.i[rec]) != i:
            return Inconsistency(t, f"the rule ({self.order} order) requires point {i}; the trace has point "
                                    f"{int(self.i[rec])}")
        if int(self.epoch[rec]) != epoch:
            return Inconsistency(t, f"epoch should be {epoch}; the trace has {int(self.epoch[rec])}")
        if int(self.y[rec]) != self.labels[i]:
            return Inconsistency(t, f"point {i} has label {self.labels[i]} in the dataset; the trace records "
                                    f"{int(self.y[rec])}")
        if score_differs is not None:
            bad = score_differs(rec)
            if bad:
                return Inconsistency(t, bad)
        if bool(self.mistake[rec]) != mistake:
            if mistake:
                return Inconsistency(t, f"{describe()}: the rule requires an update, the trace records none")
            return Inconsistency(t, f"{describe()}: the rule forbids an update, the trace records one")
        if not mistake and self.upd < len(self.upd_t) and int(self.upd_t[self.upd]) == t:
            return Inconsistency(t, "the trace records weights after this visit; the rule makes no update here")
        expect_k = k_before + (1 if mistake else 0)
        if int(self.k[rec]) != expect_k:
            return Inconsistency(t, f"update count after this visit should be {expect_k}; the trace has {int(self.k[rec])}")
        self.rec += 1
        return None

    def update(self, t: int):
        """(index of the update record of visit t, None), or (None, Inconsistency) when the trace
        records no weights for the update the rule makes there."""
        if self.upd >= len(self.upd_t) or int(self.upd_t[self.upd]) != t:
            return None, Inconsistency(t, "the rule requires an update here; the trace records no weights for it")
        self.upd += 1
        return self.upd - 1, None

    def finish(self, t: int, stop):
        """After the rule's last visit t: every record must have been read."""
        if self.rec != len(self.t):
            return Inconsistency(int(self.t[self.rec]), f"the rule ends the run after visit {t} ({stop}); the trace goes "
                                                        f"on to {len(self.t)} visits")
        if self.upd != len(self.upd_t):
            return Inconsistency(int(self.upd_t[self.upd]), "the trace records an update the rule never makes")
        return None

    def block(self, t0: int, epoch: int, idx, mist, k0: int, score_ok, describe, score_message):
        """The records of the visits t0+1 .. t0+m to points ``idx`` (numpy arrays), whose rule
        decided ``mist`` (at most the last is a mistake), k0 updates before them: checked at once,
        and the first record that disagrees is read again by ``visit`` for its message.
        ``score_ok``: whether each recorded score agrees with the re-run's; ``describe(q)`` and
        ``score_message(q)`` say why for visit q of the block.  Returns an Inconsistency or None."""
        m, rec = len(idx), self.rec
        have = min(m, len(self.t) - rec)
        labels = np.asarray(self.labels, dtype=np.int64)
        want_k = k0 + np.cumsum(np.asarray(mist, dtype=np.int64))
        seg = slice(rec, rec + have)
        col = {name: np.asarray(getattr(self, name)[seg]) for name in ("t", "i", "epoch", "y", "mistake", "k")}
        bad = ((col["t"] != np.arange(t0 + 1, t0 + have + 1)) | (col["i"] != idx[:have])
               | (col["epoch"] != epoch) | (col["y"] != labels[idx[:have]])
               | ~np.asarray(score_ok[:have], dtype=bool) | (col["mistake"].astype(bool) != mist[:have])
               | (col["k"] != want_k[:have]))
        first = int(np.argmax(bad)) if bad.any() else have
        if first < m:  # the first disagreement (or the trace's end), read record by record for its message
            self.rec += first
            for q in range(first, m):
                got = self.visit(t0 + q + 1, epoch, int(idx[q]), bool(mist[q]), int(want_k[q] - mist[q]),
                                 lambda q=q: describe(q), lambda _rec, q=q: None if score_ok[q] else score_message(q))
                if got is not None:
                    return got
            return None
        nxt = int(self.upd_t[self.upd]) if self.upd < len(self.upd_t) else None
        if nxt is not None and nxt <= t0 + m and not (mist[m - 1] and nxt == t0 + m):
            return Inconsistency(nxt, "the trace records weights after this visit; the rule makes no update here")
        self.rec += m
        return None
