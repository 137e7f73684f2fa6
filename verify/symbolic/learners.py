"""What a learner does at an update, as the expressions of a proof (verify.symbolic.one_step,
from_lemmas, converged): a built-in variant's score, update and mistake, or a declared variant's
(perceptron.declared), so that a note's own algorithm is proved as the built-in ones are.

A declaration is taken when a proof can state it: its state is w (and a bias b), and its
score, mistake, update and start read only the state, the point, eta, R, the start w0, b0 and
its parameters.  Each parameter is a number of its own (a proof covers every value of it, as
the search covers its default, half and twice it); a declaration reading the visit, the count of
updates or a choice (``a if c else b``) is not taken.

The dual form (003's kernelized perceptron) is taken with the linear kernel (the claim assumes
kernel_linear): it is then the primal form of its weights w = eta sum_j alpha_j y_j x_j, from
w = 0, with the score dot(w, x) and the update alpha_i += 1, that is w += eta y x.  That its
score is dot(w, x) is the learner's premise (Learner.premises), proved with every proof about it,
by induction over its updates: 0 = dot(0, x) before any, and the score gains
eta y_i K(x_i, x) = eta y_i dot(x_i, x) at each, as dot(w, x) does.  So naming the learner starts
no solver.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from perceptron.declared import variant_of
from perceptron.expression import RUN_QUANTITIES
from perceptron.variants import BIAS_ONE, BIAS_R2
from verify.language import assumptions as A
from verify.language.quantities import QUANTITIES
from verify.symbolic.run_facts import NotTaken, bring_symbol, compiled_step, translate

__all__ = ["Learner", "learner_of", "learners_of", "premises_of", "dual_premises", "text_of"]

#: What a declaration's expressions may read to be proved (besides its state and parameters).
_READS = {"x", "y", "eta", "R", "R2", "score", "out", "w0", "b0"}


@dataclass(frozen=True)
class Learner:
    """A variant as a proof states it; the state before an update is w_prev, b_prev."""

    name: str
    variant: object  #: the Variant or Declaration (its bias, sign(0), unit norm, bound on eta, forms)
    forms: tuple  #: ((form, w after the update, b after it), ...)
    score: str  #: the score at the state before the update
    mistake: str  #: when it updates, at the state before ("out != y" for the built-in variants)
    start: tuple  #: (w, b) at the start, from the symbols w0, b0
    params: dict  #: a parameter's name in a claim -> its symbol
    keeps_b: bool  #: a built-in variant without a bias keeps b at b0; a declared one has no b
    #: cases (label, hypotheses, step) of what stating it so rests on, proved with any proof about it
    premises: tuple = ()

    def at(self, text: str, w: str, b: str) -> str:
        """A text about the state before the update, about the state (w, b) instead."""
        return re.sub(r"\bb_prev\b", b, re.sub(r"\bw_prev\b", w, text))

    def started(self, text: str, w0: str, b0: str) -> str:
        """A text about the state before the update, at the start (from w0, b0)."""
        w, b = (re.sub(r"\bb0\b", b0, re.sub(r"\bw0\b", w0, s)) for s in self.start)
        return self.at(text, *(v if re.fullmatch(r"\w+", v) else f"({v})" for v in (w, b)))


def learner_of(name: str) -> Learner | str:
    """The learner of a variant's name, or why a proof cannot state it (a text)."""
    var = variant_of(name)
    return _learner(name, var, var.sha256 if getattr(var, "declared", False) else None)


@lru_cache(maxsize=256)
def _learner(name: str, var, key) -> Learner | str:  # noqa: ARG001 - key: the declaration's digest
    if var is None or var.dual:
        return "one of its variants is the dual form or not known"
    if not var.declared:
        bias = var.bias is not None
        score = "(dot(w_prev, x) + b_prev)" if bias else "dot(w_prev, x)"
        b = "(b_prev" + {BIAS_R2: " + eta*y*R2", BIAS_ONE: " + eta*y"}.get(var.bias, "") + ")"
        forms = (("yx", "w_prev + eta*y*x", b),) + ((("half", "w_prev + eta*(y - out)/2*x", b),) if var.half_form else ())
        return Learner(name, var, forms, score, "out != y", ("w0", "b0"), {}, True)
    state = dict(var.state)
    if not set(state) <= {"w", "b"} or state["w"].type != "vector" or ("b" in state and state["b"].type != "scalar"):
        return f"its state ({', '.join(state)}) is more than w and b"
    params = {p: p for p, _ in var.parameters}
    if clash := [p for p in params if p in QUANTITIES or p in RUN_QUANTITIES or not bring_symbol(p, "scalar")]:
        return f"its parameter {clash[0]} has the name of a symbol of the proofs or a quantity of a run"
    allowed = _READS | set(state) | set(params)
    exprs = [var.score, var.mistake] + [c for _, c in var.update] + list(state.values())
    if any(not set(c.names) <= allowed for c in exprs):
        return "its score, mistake, update or start reads more than the state, the point, eta, R and its parameters"
    before = {"w": "w_prev", "b": "b_prev", **params}
    try:
        score = text_of(translate(var.score.tree, before, None))
        upd = dict(var.update)
        after = {s: text_of(translate(upd[s].tree, {**before, "score": f"({score})"}, None)) if s in upd else f"{s}_prev"
                 for s in ("w", "b")}
        mistake = text_of(translate(var.mistake.tree, {**before, "score": f"({score})"}, None))
        start = tuple(text_of(translate(state[s].tree, params, None)) if s in state else "b0" for s in ("w", "b"))
    except NotTaken as e:
        return f"its declaration: {e}"
    return Learner(name, var, (("declared", after["w"], after["b"] if "b" in state else "b_prev"),), score, mistake,
                   start, params, False)


def learners_of(claim) -> list | str:
    """The learners of the claim's variants (all built-in ones when it names none), or why a
    proof cannot state one of them (a text)."""
    from perceptron.variants import VARIANTS

    out = []
    for v in claim.variants or tuple(VARIANTS):
        var = variant_of(v)
        got = _dual(v) if var is not None and var.dual and A.KERNEL_LINEAR in claim.assume else learner_of(v)
        if isinstance(got, str):
            return got
        out.append(got)
    return out


@lru_cache(maxsize=None)
def _dual(name: str) -> Learner:
    """The dual form with the linear kernel as the primal form of its weights, its premise that
    its score is dot(w, x) (dual_premises)."""
    return Learner(f"{name} (linear kernel: the primal form of w = eta sum_j alpha_j y_j x_j, its score dot(w, x) "
                   "proved by induction over its updates)", variant_of(name),
                   (("yx", "w_prev + eta*y*x", "(b_prev)"),), "dot(w_prev, x)", "out != y", ("0*x", "0"), {}, True,
                   dual_premises())


@lru_cache(maxsize=1)
def dual_premises() -> tuple:
    """That the dual score with the linear kernel, eta sum_j alpha_j y_j dot(x_j, x), is dot(w, x)
    for w = eta sum_j alpha_j y_j x_j at any point x, by induction over the updates: before any,
    both are 0; an update on (x1, y1) adds eta y1 dot(x1, x) to the score (dual_score, the one
    before it) and eta y1 x1 to w.  Two cases (label, hypotheses, step)."""
    what = "the dual form's score is dot(w, x) (linear kernel)"
    return ((f"{what}: before any update", (), compiled_step("0 == dot(0*x, x)")),
            (f"{what}: at each update, given it at the one before",
             (compiled_step("dual_score == dot(w_prev, x)"), compiled_step("y1**2 == 1")),
             compiled_step("dual_score + eta*y1*dot(x1, x) == dot(w_prev + eta*y1*x1, x)")))


def premises_of(learners) -> tuple:
    """The premises of the learners (each case once)."""
    out: dict = {}
    for lrn in learners:
        for case in lrn.premises:
            out.setdefault(case[0], case)
    return tuple(out.values())


def text_of(tree) -> str:
    """A translated tree as the expression text it stands for (every operation parenthesised)."""
    op = tree[0]
    if op == "num":
        v = tree[1]
        return f"({v.numerator})" if v.denominator == 1 else f"({v.numerator}/{v.denominator})"
    if op == "name":
        return tree[1]
    if op == "neg":
        return f"(-{text_of(tree[1])})"
    if op == "not":
        return f"(not {text_of(tree[1])})"
    if op == "bin":
        return f"({text_of(tree[2])} {tree[1]} {text_of(tree[3])})"
    if op == "pow":
        return f"({text_of(tree[1])})**({tree[2]})"
    if op == "call":
        return f"{tree[1]}({', '.join(text_of(a) for a in tree[2])})"
    if op in ("and", "or"):
        return "(" + f" {op} ".join(text_of(t) for t in tree[1]) + ")"
    if op == "cmp":
        parts = [text_of(p) for p in tree[2]]
        return "(" + parts[0] + "".join(f" {o} {p}" for o, p in zip(tree[1], parts[1:])) + ")"
    raise NotTaken(f"{op} has no symbolic form here")
