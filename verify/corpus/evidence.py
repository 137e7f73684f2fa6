"""Evidence: what the corpus showed about one claim, merged run by run and dataset by dataset,
and the finding it supports (verify.verdicts.verdict_of decides the verdict of the evaluations;
this module weighs what they covered: the quantifiers they varied, the free names, the symbolic
steps)."""

from __future__ import annotations

from types import SimpleNamespace

import dataclasses
import time
from dataclasses import dataclass, field

from perceptron._numbers import format_rational
from perceptron.generators import BUILTIN
from verify.language.quantifiers import Coverage, quantifiers, ranging
from verify.language.scalar import ClaimTally, exact_json
from verify.numbers import exact as X
from verify.replay.commands import OUT, at_command, replay_trace, train_and_check, with_out
from verify.verdicts import Finding, Verdict, verdict_of

__all__ = ["Evidence", "new_evidence", "finding_of", "replay_command", "SYMBOLIC_FILE_BUDGET", "finding_with_out"]

#: Symbolic seconds one claim file may use in all (each claim is also limited, by
#: verify.symbolic.steps.CLAIM_LIMIT); claims past it are unknown, "limit reached".
SYMBOLIC_FILE_BUDGET = 600.0


#: Distinct reasons a claim's evidence keeps for the runs it did not apply to (each with its count).
MAX_REASONS = 20


@dataclass
class Evidence:
    """The evaluations of one claim over the corpus: how many, on how many runs, the first
    violation (with the run that shows it), the first undecided evaluation, the smallest slack
    and where, the runs it did not apply to and why, and what the runs varied."""

    evaluations: int = 0
    runs: int = 0
    violation: dict | None = None
    unknown: str | None = None
    min_slack: object = None
    min_slack_at: dict | None = None
    not_applicable: int = 0
    #: why the runs it did not apply to did not: each reason with its count, in first-seen order
    not_applicable_why: dict = field(default_factory=dict)
    coverage: Coverage = field(default_factory=Coverage)
    #: steps of applicable runs where the claim's premise (given) was false
    premise_unmet: int = 0

    def not_applying(self, why: str) -> None:
        """A run the claim does not apply to."""
        self.not_applicable += 1
        self._why(why, 1)

    def _why(self, why: str, count: int) -> None:
        if why in self.not_applicable_why or len(self.not_applicable_why) < MAX_REASONS or not _elsewhere(why):
            self.not_applicable_why[why] = self.not_applicable_why.get(why, 0) + count

    @property
    def not_applicable_reason(self) -> str | None:
        """The reasons runs did not apply, the commonest first, with their counts."""
        if not self.not_applicable_why:
            return None
        # why the claim's own datasets gave nothing first (a dataset it does not name says little),
        # then the commonest; stable: first seen among equals
        top = sorted(self.not_applicable_why.items(), key=lambda kv: (_elsewhere(kv[0]), -kv[1]))[:3]
        return "; ".join(f"{n} run(s): {why}" for why, n in top) + ("; ..." if len(self.not_applicable_why) > 3 else "")

    def cover(self, run, ctx, separator_kind) -> None:
        """Record what an evaluated run varied (dataset, order, eta, w0, separator, sign0, form, kernel,
        declared parameters)."""
        if run is None:
            return
        p = run.params
        w0 = "non-zero" if (p.w0 is not None and any(p.w0)) or (p.b0 is not None and p.b0 != 0) else "zero"
        kernel = None if ctx is None or not ctx.var.dual else p.kernel if p.kernel != "poly" else \
            f"(x.z + {format_rational(p.offset)})^{p.degree}"
        self.coverage.add(dataset=run.dataset, order=p.order, eta=format_rational(p.eta), w0=w0,
                          separator=separator_kind, sign0=(ctx.tie if ctx is not None else None), form=p.form,
                          kernel=kernel,
                          **{k: format_rational(v) for k, v in (getattr(ctx, "declared_values", None) or {}).items()})

    def violated(self, detail: dict, run) -> None:
        """The first violation wins; it names the run that replays it."""
        if self.violation is None:
            self.violation = detail if not run else detail.on_run(
                run.describe(), f"builtin:{run.dataset}" if run.dataset in BUILTIN else run.path or run.dataset)

    def evaluate_once(self, c) -> None:
        """A closed claim (when = "once") evaluated exactly, once: no run, no dataset."""
        from verify.language.scalar import Env, eval_claim

        tally = ClaimTally()
        eval_claim(c, Env(None, {}), tally, {"once": True})
        self.add_tally(tally, None, None, None)

    def add_tally(self, t: ClaimTally, run, ctx, separator_kind, separator=None) -> None:
        """One run's tally of the claim."""
        if t.not_applicable:
            self.not_applying(t.not_applicable)
            return
        self.runs += 1
        self.evaluations += t.evaluations
        self.premise_unmet += t.premise_unmet
        if t.evaluations:  # what a run varied counts only where the claim was evaluated (its premise met)
            self.cover(run, ctx, separator_kind)
        if t.violation and self.violation is None:
            self.violated(t.violation, run)
            if separator is not None:
                self.violation = self.violation.at_separator(separator[0], format_rational(separator[1]), separator_kind)
        if t.unknown and self.unknown is None:
            self.unknown = t.unknown
        if t.min_slack is not None and (self.min_slack is None or X.compare(t.min_slack, self.min_slack) < 0):
            self.min_slack = t.min_slack
            self.min_slack_at = {**(t.min_slack_at or {}), **({"run": run.describe()} if run else {})}

    def absorb(self, later: "Evidence") -> None:
        """Fold a later dataset's evidence into this one: the result is the same as if its
        evaluations had been merged one by one after the earlier ones (first violation, first
        unknown and the earliest smallest slack win)."""
        self.evaluations += later.evaluations
        self.premise_unmet += later.premise_unmet
        self.runs += later.runs
        self.not_applicable += later.not_applicable
        self.violation = self.violation if self.violation is not None else later.violation
        self.unknown = self.unknown if self.unknown is not None else later.unknown
        for why, n in later.not_applicable_why.items():
            self._why(why, n)
        if later.min_slack is not None and (self.min_slack is None or X.compare(later.min_slack, self.min_slack) < 0):
            self.min_slack, self.min_slack_at = later.min_slack, later.min_slack_at
        self.coverage.merge(later.coverage)


def new_evidence(claims) -> dict:
    """Empty evidence for each claim, by id."""
    return {c.id: Evidence() for c in claims}


def closed_and_true(c) -> bool:
    """Whether the claim's statement (at each step, visit, end or dataset) reads no name at all and
    evaluates, exactly, to true: then it is true wherever it is evaluated, whatever its premise
    (a closed computation written as a claim about runs, e.g. -1 + 0.5 == -0.5)."""
    from verify.language.scalar import Env, eval_claim

    if c.when in ("once", "symbolic", "pair") or c.compiled is None or c.compiled.names or c.compiled.uses_prev \
            or c.compiled.uses_points:  # an aggregate over the points reads the data (sum_i(1) is n)
        return False
    tally = ClaimTally()
    eval_claim(SimpleNamespace(compiled=c.compiled, given=None), Env(None, {}), tally, {"once": True})
    return tally.evaluations == 1 and tally.violation is None and tally.unknown is None


def finding_of(c, ev: Evidence, corpus_desc="the corpus", budget=None, symbolic=None) -> Finding:
    """The finding the evidence supports: verdict_of's verdict of the evaluations, then never
    "holds" where a quantifier the claim ranges over was not varied."""
    if c.when == "symbolic":
        return _symbolic_finding(c, budget if budget is not None else {}, symbolic)
    out: dict = {"evaluations": ev.evaluations, "applicable_runs": ev.runs, "not_applicable_runs": ev.not_applicable}
    cov = ev.coverage
    quant = quantifiers(c)
    if quant:
        out["quantifiers"] = {q: {"range": rng, "values_evaluated": cov.summary().get(q, []),
                                  "varied": q in ranging(c) and cov.varied(q, c)}
                              for q, rng in quant.items() if q not in (c.free or {})}
    v, reason = verdict_of(ev)
    if getattr(c, "given", None) is not None:
        out["premise"] = {"given": c.given.source, "met": ev.evaluations, "not_met": ev.premise_unmet}
        if v == Verdict.UNKNOWN and ev.evaluations == 0 and ev.unknown is None and ev.premise_unmet:
            reason = (f"premise never met: given {c.given.source} was false at all {ev.premise_unmet} steps where the "
                      "claim applies, so nothing was evaluated; not 'holds'")
    never = [q for q in ranging(c) if q not in (c.free or {}) and not cov.varied(q, c)]
    if v == Verdict.REFUTED:
        out["counterexample"] = ev.violation.to_json()
        out["replay"] = replay_command(c, ev.violation)
    elif v == Verdict.UNKNOWN:
        out["reason"] = reason + (f" (not applicable: {ev.not_applicable_reason})" if ev.evaluations == 0 and ev.unknown is None
                                  and ev.not_applicable_reason and not ev.premise_unmet else "")
    elif c.when == "once":
        v = Verdict.PROVED
        out["method"] = "exact evaluation (rationals and square roots)"
    elif closed_and_true(c):
        v = Verdict.PROVED
        out["method"] = (f"exact evaluation: {c.expr} reads nothing of the run or the data (no names), so it has the "
                         "same value at every step of every run, and it is true")
    elif never:
        v = Verdict.UNKNOWN
        if not c.free:
            out["corpus"] = corpus_desc
        what = "the free names were enumerated, but the evidence never varied " if c.free else "the evidence never varied "
        out["reason"] = what + ", ".join(
            f"{q} (evaluated only at {', '.join(cov.summary().get(q, ['nothing']))})" if c.free else
            f"{q} (claim ranges over {quant[q]}; evaluated only at {', '.join(cov.summary().get(q, ['nothing']))})"
            for q in never) + ": not 'holds'"
        out["unvaried"] = never
    elif c.free:
        from verify.language.free import describe

        v = Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN
        out["domain"] = {"datasets": f"every dataset of the corpus ({corpus_desc}) with the claim's assumptions",
                         "free": describe(c.free), "engine": "exact evaluation of every assignment"}
        out["domain_text"] = f"corpus datasets ({corpus_desc}) x free names ({describe(c.free)}), exact"
    else:
        out["corpus"] = corpus_desc
        out["varied"] = [q for q in ranging(c)]
        if "dataset" in cov.seen:  # the corpus's datasets its assumptions, orders and datasets left
            out["datasets_applied"] = len(cov.seen["dataset"])
    if ev.min_slack is not None and v != Verdict.REFUTED:
        out["min_slack"] = exact_json(ev.min_slack)
        out["min_slack_at"] = ev.min_slack_at
    return Finding(c.id, c.citation, c.statement, v, c.expect, out, c.path, c.line)


def symbolic_steps(c, limit: float):
    """(the claim's step results, seconds taken)."""
    from verify.symbolic.steps import check_symbolic

    sym = c.symbolic
    t0 = time.perf_counter()
    steps = check_symbolic(sym["vectors"], sym["scalars"], sym["hypotheses"], sym["steps"], limit=limit)
    return steps, time.perf_counter() - t0


def _symbolic_finding(c, budget: dict, done=None) -> Finding:
    """The finding of a symbolic claim; ``done`` = (steps, seconds) when a worker checked it
    already.  Claims are charged to their file's budget in file order either way: one that
    starts (or, checked beside the corpus, would start) past the budget is unknown."""
    from verify.symbolic.steps import CLAIM_LIMIT, StepResult

    sym = c.symbolic
    left = budget.setdefault(c.path, SYMBOLIC_FILE_BUDGET)
    if left < 1.0:
        steps = [StepResult(st.source, Verdict.UNKNOWN, "sympy/z3",
                            f"limit reached: the claim file's symbolic budget of {SYMBOLIC_FILE_BUDGET:.0f} s "
                            "is spent (verify.corpus.evidence.SYMBOLIC_FILE_BUDGET)") for st in sym["steps"]]
    else:
        steps, seconds = done if done is not None else symbolic_steps(c, min(CLAIM_LIMIT, left))
        budget[c.path] = left - seconds
    verdicts = [s.verdict for s in steps]
    v = min(verdicts) if verdicts else Verdict.UNKNOWN
    ev = {"method": "symbolic: sympy identities, z3 over inner products (Gram abstraction)",
          "steps": [{k: val for k, val in s.to_json().items() if k != "seconds"} for s in steps]}
    failing = [s for s in steps if s.verdict != Verdict.PROVED]
    if failing:
        ev["first_failing_step"] = failing[0].step
    refuted = [s for s in steps if s.verdict == Verdict.REFUTED and s.counterexample]
    if refuted:  # the values that refute it, re-checked by a command (when they are concrete)
        from verify.symbolic.steps import values_of

        vals = values_of(refuted[0].counterexample, sym["vectors"], sym["scalars"])
        if vals is not None:
            ev["replay"] = at_command(c, vals)
    return Finding(c.id, c.citation, c.statement, v, c.expect, ev, c.path, c.line)


def finding_with_out(f: Finding, out: str) -> Finding:
    """The finding with its replay command's files under the output folder ``out``."""
    if OUT not in str(f.evidence.get("replay", "")):
        return f
    return dataclasses.replace(f, evidence={**f.evidence, "replay": with_out(f.evidence["replay"], out)})


def replay_command(c, viol) -> str | None:
    """The two commands that replay a corpus counterexample: train the run, check the claim.
    They run from the folder the audit was started in (the data and claim files as the user
    named them); the trace goes under the output folder (verify.replay.commands.with_out)."""
    if viol.run is None:
        return None
    # found at a separator other than the certified one: check takes the same
    return train_and_check(c, viol.data, viol.run, replay_trace(c), viol.separator)


def _elsewhere(why: str) -> bool:
    """A reason that only says the run is not one the claim names (another dataset, order or
    variant): it says less than why a run the claim is about gave nothing."""
    return why.startswith(("dataset ", "order ", "variant ")) and " not in [" in why
