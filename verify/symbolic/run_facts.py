"""What every run of a built-in variant satisfies, as the hypotheses of a proof, and the claim's
names as symbols of verify.symbolic.steps (the building blocks of verify.symbolic.one_step and
verify.symbolic.from_lemmas): the symbols and their types, the facts of a run (eta, R, each point
and its label, a separator), the translation of a claim's expression (its names replaced), a
case of a proof.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from perceptron.expression import compile_expr
from verify.language import assumptions as A

__all__ = ["OneStep", "Step", "Statement", "statement", "NotTaken", "TYPES", "VECTORS", "STATE", "NAMES", "SEPARATOR", "END_NAMES",
           "DATASET_NAMES", "COUNTS", "MAX_ATOMS", "bring_symbol", "part_of", "parsed", "compiled_step", "refused", "add_case", "facts_of_run", "ties_of", "output_facts",
           "unit_norms", "margin_fact", "translate", "children"]


#: The symbols of a proof: the state before the update (or any state: w, b), the point, the separator,
#: the points of each label a dataset has (xp, xn).
TYPES = {"w_prev": "vector", "w_prev2": "vector", "b_prev2": "scalar", "x": "vector", "w_opt": "vector", "x1": "vector", "w0": "vector", "b0": "scalar",
         "y1": "scalar", "k": "scalar", "sumsq_prev": "scalar", "b_prev": "scalar", "y": "scalar", "eta": "scalar",
         "R": "scalar", "R2": "scalar", "out": "scalar", "sign0": "scalar", "gamma": "scalar", "b_opt": "scalar",
         "w": "vector", "b": "scalar", "sumsq": "scalar", "xp": "vector", "xn": "vector", "out2": "scalar",
         "pair_c": "scalar", "dual_score": "scalar"}
VECTORS = ("w_prev", "x", "w_opt", "x1", "w0", "w", "xp", "xn", "w_prev2")
#: Most inner products and norms a proof from lemmas names as scalars of their own
#: (verify.symbolic.from_lemmas):
#: the notes' proofs read a handful.
MAX_ATOMS = 24
TYPES.update({f"atom{i}": "scalar" for i in range(MAX_ATOMS)})
#: The names a claim about one update may read (the rest, counters and the data as a whole, are
#: not shown by one update).
STATE = {"w", "b", "w_hat"}
NAMES = STATE | {"x", "x_hat", "y", "eta", "R", "R2", "score", "out", "sign0", "w_opt", "gamma", "b_opt", "w_hat_opt"}
SEPARATOR = {"w_opt", "gamma", "b_opt", "w_hat_opt"}
#: What a claim at the end of a run may read to be proved: the final state, the updates of the run,
#: the start, the run's constants and the separator; of a dataset: R and the separator.
END_NAMES = STATE | SEPARATOR | {"eta", "R", "R2", "sign0", "mistakes", "w0"}
DATASET_NAMES = SEPARATOR | {"R", "R2"}
#: What a claim about each update may also read when it is proved by induction over the updates:
#: the updates so far, the sum of |x|^2 over them, the start.
COUNTS = {"k", "sumsq", "w0"}


@dataclass(frozen=True)
class OneStep:
    """A claim made ready for verify.symbolic.steps: its cases (one update of each run setting, an
    induction's two, a state its lemmas allow, ...: each a label, hypotheses and the claim with its
    names substituted), and the facts it rests on."""

    profiles: tuple  # ((label, hypotheses (compiled), step (compiled)), ...)
    facts: tuple  # the hypotheses as text, for the evidence
    lemmas: tuple = ()  # the ids of the note's proved claims it is derived from
    abstract: bool = False  # inner products and norms taken as scalars (given_lemmas)
    what: str = ""  # what its cases cover, where the kind of claim does not say it


#: The names a claim or a declaration brings (a free name, a parameter) registered among TYPES,
#: with their type: the only names TYPES takes after it is built.
_BROUGHT: dict = {}


def bring_symbol(name: str, kind: str, own_ok=()) -> bool:
    """Register a name a claim or a declaration brings as a symbol of ``kind`` ("scalar" or
    "vector"); False where it is one of the proofs' own symbols (but those of ``own_ok``, of the
    same type) or was brought with the other type."""
    if TYPES.get(name, kind) != kind or (name in TYPES and name not in _BROUGHT and name not in own_ok):
        return False
    TYPES[name] = _BROUGHT[name] = kind
    return True


@dataclass(frozen=True)
class Statement:
    """A claim's statement as written: its expression, with the premise a top-level "A or B" was
    read as put back (the claim counts B where A is false; a proof of "A or B" proves it)."""

    tree: tuple
    names: frozenset
    uses_prev: int
    uses_points: bool


def part_of(tree) -> Statement:
    """A part of a statement (what is left of it in one case of a proof) as a Statement of its own
    (a look-back counted as one update, whatever its depth)."""
    names, ops, todo = set(), set(), [tree]
    while todo:
        t = todo.pop()
        ops.add(t[0])
        if t[0] == "name":
            names.add(t[1])
        todo.extend(children(t))
    return Statement(tree, frozenset(names), int("prev" in ops), "agg" in ops)


def statement(claim) -> Statement:
    c, g = claim.compiled, claim.given
    if g is None or not claim.implied:
        return Statement(c.tree, c.names, c.uses_prev, c.uses_points)
    return Statement(("or", (g.tree[1], c.tree)), c.names | g.names, max(c.uses_prev, g.uses_prev),
                     c.uses_points or g.uses_points)


@lru_cache(maxsize=None)
def parsed(src: str):
    return compile_expr(src, TYPES, symbolic=True).tree


def refused(claim) -> str | None:
    """Why no proof of verify.symbolic.one_step or from_lemmas is taken for the claim whatever it
    reads, or None (what its variants allow: verify.symbolic.learners)."""
    if claim.compiled is None or (claim.given is not None and not claim.implied) or claim.free or claim.pair:
        return "it has a premise, free names or a partner run"
    if claim.setting is not None and claim.setting.b0 is not None:
        return "its run states b0"
    return None


def add_case(profiles, facts, label, hyps, step) -> None:
    """One case of a proof (its label, hypotheses, step), its hypotheses' texts added to ``facts`` once."""
    profiles.append((label, tuple(h if isinstance(h, Step) else compiled_step(h) for h in hyps), step))
    for h in hyps:
        if (text := h if isinstance(h, str) else h.source) not in facts:
            facts.append(text)


def facts_of_run(claim, var, names, points=(("x", "y"),)) -> list:
    """What every run of the variant satisfies: eta > 0 (and its bounds), R, of each point (x, y)
    the run has (x: a vector, y: a label), and of a separator the claim reads."""
    narrowed = A.narrowed(claim)
    hyps = [h for x, y in points for h in ([f"{y}**2 == 1"] if y.isidentifier() else []) + [f"norm2({x}) <= R2"]]
    hyps += ["eta > 0", "R >= 0", "R2 == R**2"]
    etas = narrowed.get("etas")
    bound = min((b for b in (A.eta_bound(claim), var.eta_max) if b is not None), default=None)
    if etas is not None and len(etas) == 1:
        hyps.append(f"eta == {etas[0]}")
    elif bound is not None:
        hyps.append(f"eta <= {bound}")
    unit = [h for x, _ in points for h in unit_norms(claim, var, x)]
    hyps += unit + (["R == 1"] if unit else [])  # every point has norm 1: so has the largest
    if names & {"w_hat", "w_hat_opt"}:  # (w, b/R) is undefined when every point is 0: no evaluation there
        hyps.append("R > 0")
    elif A.NONTRIVIAL in claim.assume and names & SEPARATOR:  # a point of each label, each of margin >= gamma > 0
        hyps.append("R > 0")  # under the separator: they are not both 0
    if names & SEPARATOR:  # defined only where the dataset has a separator (of margin gamma > 0)
        hyps += ["norm2(w_opt) == 1", "gamma > 0"] + [margin_fact(claim, var, x, y) for x, y in points]
    return hyps


@dataclass(frozen=True)
class Step:
    source: str
    tree: tuple


def compiled_step(src: str) -> Step:
    return Step(src, parsed(src))


class NotTaken(ValueError):
    pass


def ties_of(claim, var) -> tuple:
    """The values of sign(0) a run of the variant may have under the claim's assumptions."""
    return (var.tie,) if var.tie is not None else tuple(A.narrowed(claim).get("sign0s", (-1, 0, 1)))


def output_facts(claim, var, score: str) -> list:
    """out is sign(score) with the run's sign(0), a symbol whose values are the roots of a
    polynomial: those ties_of leaves."""
    factors = ("sign0" if t == 0 else f"(sign0 {'-' if t > 0 else '+'} {abs(t)})" for t in ties_of(claim, var))
    return [f"out == sign({score}) + (1 - sign({score})**2)*sign0", "*".join(factors) + " == 0"]


def unit_norms(claim, var, x: str) -> list:
    """The unit norm of a point the learner sees, where 004's variant or the claim's assumption gives it."""
    return [f"norm2({x}) == 1"] if var.unit or A.UNIT_NORM in claim.assume else []


def margin_fact(claim, var, x: str, y: str) -> str:
    """A point's margin under the separator: >= gamma, or > gamma where gamma is taken strictly below."""
    score = f"dot(w_opt, {x}) + b_opt" if var.bias is not None else f"dot(w_opt, {x})"
    side = {"1": score, "(-1)": f"-({score})"}.get(y, f"{y}*({score})")  # a label, or one of each
    return f"{side} {'>' if A.STRICT_MARGIN in claim.assume else '>='} gamma"


def translate(tree, subs, prev_subs):
    """The claim's tree with its names replaced (under prev(), by the state before the update;
    under prev(e, 2), by the one before that: prev_subs["prev"], where there is one); a
    comparison of vectors becomes one of |a - b|^2 with 0."""
    op = tree[0]
    if op == "name":
        src = subs.get(tree[1], tree[1])
        return parsed(src) if src != tree[1] or tree[1] in TYPES else _fail(tree[1])
    if op == "prev":
        back = prev_subs
        for _ in range(tree[2] - 1):
            back = back.get("prev") if back is not None else None
        if back is None:  # further back than the proof states
            raise NotTaken(f"it looks back {tree[2]} updates, further than this proof states")
        return translate(tree[1], back, back.get("prev"))
    if op == "num":
        return tree
    if op in ("neg", "not"):
        return (op, translate(tree[1], subs, prev_subs))
    if op == "bin":
        return ("bin", tree[1], translate(tree[2], subs, prev_subs), translate(tree[3], subs, prev_subs))
    if op == "pow":
        return ("pow", translate(tree[1], subs, prev_subs), tree[2])
    if op == "call":
        return ("call", tree[1], tuple(translate(a, subs, prev_subs) for a in tree[2]))
    if op in ("and", "or"):
        return (op, tuple(translate(t, subs, prev_subs) for t in tree[1]))
    if op == "cmp":
        parts = [translate(p, subs, prev_subs) for p in tree[2]]
        if not any(_vector(p) for p in parts):
            return ("cmp", tree[1], tuple(parts))
        zero = ("num", 0)
        return ("and", tuple(("cmp", (o,), (("call", "norm2", (("bin", "-", a, b),)), zero))
                             for o, a, b in zip(tree[1], parts, parts[1:])))
    raise NotTaken(f"{op} has no symbolic form here")


def _fail(name):
    raise NotTaken(f"it reads {name}")


def _vector(tree) -> bool:
    op = tree[0]
    if op == "name":
        return tree[1] in VECTORS
    if op == "call":
        return tree[1] in ("cat", "vec")
    if op == "bin":
        return _vector(tree[2]) or _vector(tree[3])
    if op == "neg":
        return _vector(tree[1])
    return False


def children(tree):
    for part in tree[1:]:
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            yield part
        elif isinstance(part, tuple):
            yield from (t for t in part if isinstance(t, tuple) and t and isinstance(t[0], str))
