"""A counterexample a search found and the replay confirmed: the dataset, the run (its Params),
the points it updated on, the separator it was judged with and the replay's record of the
violation.  Made by verify.searching.confirm and the pair search, kept as it is (its trace too,
so that the claim's own form is evaluated on it without training again), and written to JSON and
read back in one place, here (results.json's ``evidence.counterexample.search``)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from perceptron import Params, from_rows
from perceptron._numbers import format_rational
from verify.language.violation import Violation

__all__ = ["Counterexample"]


@dataclass(frozen=True)
class Counterexample:
    points: tuple  #: the dataset's points (rows of rationals)
    labels: tuple  #: their labels, +1 or -1
    updates: tuple  #: the points the run updated on, 0-based, in order
    params: Params  #: the run
    violation: Violation  #: where and how the claim fails
    separator: tuple | None = None  #: (v, bias) the claim was judged with, else the certified one
    summary: dict | None = None  #: the learner's summary of the run
    cut: bool = False  #: the run was stopped at params.max_updates, as the search's was
    found_by: str | None = None  #: the engine's note (z3: the slice it was found in)
    trace: object = field(default=None, compare=False, repr=False)  #: the run's trace (not written)

    def __getstate__(self):  # sent between processes without its trace (a replay makes it again)
        return {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "trace"}

    def __setstate__(self, state):
        for k, v in {**state, "trace": None}.items():
            object.__setattr__(self, k, v)

    def dataset(self):
        return from_rows("counterexample", [list(p) for p in self.points], list(self.labels))

    def with_found_by(self, note: str) -> "Counterexample":
        return replace(self, found_by=note)

    def to_json(self) -> dict:
        """The counterexample as results.json keeps it (values as exact text)."""
        fr, p = format_rational, self.params
        prm = {"eta": fr(p.eta), "w0": None if p.w0 is None else [fr(v) for v in p.w0],
               "b0": None if p.b0 is None else fr(p.b0), "sign0": p.sign0, "form": p.form, "ratchet": p.ratchet}
        if self.cut:
            prm["max_updates"] = p.max_updates
        if p.max_epochs != Params.max_epochs:
            prm["max_epochs"] = p.max_epochs
        if p.kernel != "linear":
            prm.update(kernel=p.kernel, degree=p.degree, offset=fr(p.offset))
        if p.declared:
            prm["declared"] = {k: fr(v) for k, v in p.declared}
        out = {"points": [[fr(Fraction(c)) for c in row] for row in self.points], "labels": [int(v) for v in self.labels],
               "updates": [int(v) for v in self.updates], "params": prm, "violation": self.violation.to_json(),
               "variant": p.variant, "order": p.order, "summary": self.summary,
               "separator": None if self.separator is None else {"v": [int(a) for a in self.separator[0]],
                                                                  "b": fr(Fraction(self.separator[1]))}}
        if self.found_by:
            out["found_by"] = self.found_by
        return out

    @classmethod
    def from_json(cls, obj: dict) -> "Counterexample":
        """A counterexample read back from results.json (checked by verify.report.evidence_check
        before a report reads it); raises KeyError, TypeError or ValueError on another shape."""
        from perceptron._numbers import parse_rational

        def q(v):  # a number of the file, bounded in length and exponent before it is converted
            return parse_rational(str(v))

        prm = obj["params"]
        sep = obj.get("separator")
        params = Params(variant=obj["variant"], order=obj["order"], eta=q(prm["eta"]),
                        w0=None if prm.get("w0") is None else tuple(q(v) for v in prm["w0"]),
                        b0=None if prm.get("b0") is None else q(prm["b0"]), sign0=prm.get("sign0", 0),
                        form=prm.get("form", "yx"), ratchet=bool(prm.get("ratchet", False)),
                        declared=tuple((k, q(v)) for k, v in sorted((prm.get("declared") or {}).items())),
                        **{k: prm[k] for k in ("max_updates", "max_epochs") if prm.get(k) is not None},
                        **({"kernel": prm["kernel"], "degree": prm["degree"], "offset": q(prm["offset"])}
                           if "kernel" in prm else {}))
        return cls(tuple(tuple(q(v) for v in row) for row in obj["points"]), tuple(obj["labels"]),
                   tuple(obj["updates"]), params, Violation.from_json(obj["violation"]),
                   None if sep is None else (tuple(sep["v"]), q(sep["b"])), obj.get("summary"),
                   "max_updates" in prm, obj.get("found_by"))
