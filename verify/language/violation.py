"""Where and how a claim fails: the first evaluation of a claim that was false on one run (or
dataset, or pair of runs).  Made by the evaluators (verify.language.scalar and .columns, the pair
replay verify.replay.pairs), completed by the corpus (the run that replays it, the separator it
was judged with), kept by a Counterexample, and read by the reports (verify.report.claim_text).
Its record -- the object results.json keeps under ``evidence.counterexample`` (a corpus run's)
and ``evidence.counterexample.search.violation`` -- is written and read here alone."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Violation", "WHERE_KEYS"]

#: Where in a run a violation is: the step, the update count, the point; for a pair of runs,
#: where the two part.
WHERE_KEYS = ("t", "k", "point", "first_difference_at_update", "first_difference_at_visit", "at_update")


@dataclass(frozen=True)
class Violation:
    record: dict  #: the record as results.json keeps it (its keys in the order they were made)

    # ------------------------------------------------------------------ made

    @classmethod
    def at(cls, where: dict, how: dict) -> "Violation":
        """A claim false at ``where`` (the step, update, point, dataset, run's end or free
        names' values), ``how`` its sides or parts there (verify.language.scalar.sides)."""
        return cls({**where, **how})

    @classmethod
    def between(cls, partner: str, **detail) -> "Violation":
        """A pair claim false between a run and its ``partner`` (described), ``detail`` where the
        two part: the update counts, the first update or visit that differs, the sides."""
        return cls({"partner": partner, **detail})

    def with_parts(self, **detail) -> "Violation":
        return Violation({**self.record, **detail})

    def on_run(self, run: str, data: str) -> "Violation":
        """The violation with the run and data that replay it (the corpus's)."""
        return Violation({**self.record, "run": run, "data": data})

    def at_separator(self, v, c: str, kind: str) -> "Violation":
        """The violation with the separator it was judged with (another than the certified one)."""
        return Violation({**self.record, "separator": {"v": [str(int(x)) for x in v], "c": c, "kind": kind}})

    def to_json(self) -> dict:
        return dict(self.record)

    @classmethod
    def from_json(cls, obj) -> "Violation":
        """The violation of a results.json entry; raises TypeError on another shape."""
        if not isinstance(obj, dict):
            raise TypeError(f"a violation is an object, not {type(obj).__name__}")
        return cls(dict(obj))

    def __bool__(self) -> bool:
        return bool(self.record)

    # ------------------------------------------------------------------ read

    def place(self, keys=WHERE_KEYS) -> list[tuple]:
        """(key, value) of those of ``keys`` the violation has, in the order of ``keys``."""
        return [(k, self.record[k]) for k in keys if k in self.record]

    @property
    def sides(self) -> list | None:
        """The values of the failing comparison's sides (as text), when it is one."""
        return self.record.get("sides")

    @property
    def ops(self) -> list:
        return self.record.get("ops", [])

    @property
    def parts(self) -> list | None:
        """For A or B (A and B): each part's value where the claim fails."""
        return self.record.get("parts")

    @property
    def connective(self) -> str:
        return self.record.get("connective", "or")

    @property
    def at_point(self) -> tuple | None:
        """(the all_i / any_i, the point) where an aggregate over the points fails, else None."""
        return (self.record.get("quantifier"), self.record["fails_at_point"]) if "fails_at_point" in self.record else None

    @property
    def free(self) -> dict:
        """The free names' values the claim fails at ({} when it has none)."""
        return self.record.get("free") or {}

    @property
    def at_end(self) -> bool:
        return bool(self.record.get("end"))

    @property
    def partner(self) -> str | None:
        """A pair claim's partner run, described."""
        return self.record.get("partner")

    @property
    def factor(self):
        """The factor c of a pair claim's transformation it fails at, else None."""
        return self.record.get("c")

    def parting(self) -> tuple:
        """Where a pair's two runs part: ("update", n, (points of one, of the other)),
        ("visit", n), ("after update", n) or ("ends", (updates of one, of the other) or None)."""
        r = self.record
        if "first_difference_at_update" in r:
            return "update", r["first_difference_at_update"], tuple(r["points_updated"])
        if "first_difference_at_visit" in r:
            return "visit", r["first_difference_at_visit"]
        if "at_update" in r:
            return "after update", r["at_update"]
        return "ends", tuple(r["updates"]) if "updates" in r else None

    @property
    def run(self) -> str | None:
        """The corpus run that replays it (Run.describe), else None."""
        return self.record.get("run")

    @property
    def data(self) -> str:
        return str(self.record.get("data", self.record.get("dataset", "")))

    @property
    def separator(self) -> tuple | None:
        """(v, c) of the separator it was judged with, when not the certified one."""
        sep = self.record.get("separator")
        return None if not sep else (sep["v"], sep.get("c"))
