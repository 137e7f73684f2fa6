"""One update, for every state before it: a claim evaluated at each update of a built-in variant
(a proof line such as |w|^2 <= |prev(w)|^2 + R^2), proved for all dimensions, every dataset and
every run at once.

The claim's names are replaced by what the variant makes of an arbitrary state before the
update: w by prev(w) + eta y x (or prev(w) + eta (y - out)/2 x), b by prev(b) plus the variant's
own bias step, score by prev(w).x + prev(b), out by sign(score) with the run's sign(0); and the
update happens only on a mistake, out != y.  What every update of every run of the variant
satisfies is stated as hypotheses, each a fact of the run (never of the claim): y^2 = 1,
eta > 0 (and the claim's and the variant's bound on it), |x|^2 <= R^2, and of a separator the
claim reads, |w_opt| = 1 and y (w_opt.x + b_opt) >= gamma > 0.  verify.symbolic.steps then
decides the claim over the Gram abstraction (sympy identities, z3), for every profile of the run
(sign(0), the update form) the claim's assumptions leave.

Only a claim that reads nothing but these names is taken (no aggregate over the points, no
look-back past the one update, no premise): a proof of a claim about one update needs nothing the
update does not show.  A claim that also reads k, sumsq or w0 (and no prev(), score or out) is
proved by induction over the updates: at the first (k = 1, from w0 and b0, 0 under w0_zero), and
at each later one (k >= 2) given the claim at the update before it, at its own point.  A claim this cannot prove is searched
as before; only "proved" at every profile changes its verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from perceptron.expression import compile_expr
from perceptron.variants import BIAS_ONE, BIAS_R2, VARIANTS
from verify.language import assumptions as A
from verify.verdicts import Verdict

__all__ = ["OneStep", "one_step", "given_lemmas", "lemma_of", "lemmas_of", "taken", "prove_one_step", "prove_all"]

#: The symbols of a proof: the state before the update (or any state: w, b), the point, the separator,
#: the points of each label a dataset has (xp, xn).
_TYPES = {"w_prev": "vector", "x": "vector", "w_opt": "vector", "x1": "vector", "w0": "vector", "b0": "scalar",
          "y1": "scalar", "k": "scalar", "sumsq_prev": "scalar", "b_prev": "scalar", "y": "scalar", "eta": "scalar",
          "R": "scalar", "R2": "scalar", "out": "scalar", "sign0": "scalar", "gamma": "scalar", "b_opt": "scalar",
          "w": "vector", "b": "scalar", "sumsq": "scalar", "xp": "vector", "xn": "vector"}
_VECTORS = ("w_prev", "x", "w_opt", "x1", "w0", "w", "xp", "xn")
#: Most inner products and norms a proof from lemmas names as scalars of their own (_abstract):
#: the notes' proofs read a handful.
MAX_ATOMS = 24
_TYPES.update({f"atom{i}": "scalar" for i in range(MAX_ATOMS)})
#: The names a claim about one update may read (the rest, counters and the data as a whole, are
#: not shown by one update).
_STATE = {"w", "b", "w_hat"}
_NAMES = _STATE | {"x", "x_hat", "y", "eta", "R", "R2", "score", "out", "sign0", "w_opt", "gamma", "b_opt", "w_hat_opt"}
_SEPARATOR = {"w_opt", "gamma", "b_opt", "w_hat_opt"}
#: What a claim at the end of a run may read to be proved: the final state, the updates of the run,
#: the start, the run's constants and the separator; of a dataset: R and the separator.
_END = _STATE | _SEPARATOR | {"eta", "R", "R2", "sign0", "mistakes", "w0"}
_DATASET = _SEPARATOR | {"R", "R2"}
#: What a claim about each update may also read when it is proved by induction over the updates:
#: the updates so far, the sum of |x|^2 over them, the start.
_COUNTS = {"k", "sumsq", "w0"}
#: Hard limit of the proofs of a set of claims checked together (seconds): LIMIT, plus CASE_LIMIT
#: for each case (a run setting, a case of an induction); the proof lines of the notes decide in a
#: tenth of a second a case.
LIMIT, CASE_LIMIT = 30.0, 5.0
#: Time limit of one z3 query (seconds): the proof lines of the notes decide in a tenth of a
#: second; a query past it leaves the claim to the search, as an unprovable one does.
QUERY_LIMIT = 2.0


@dataclass(frozen=True)
class OneStep:
    """A claim about one update made ready for verify.symbolic.steps: per profile of the run
    (its label, hypotheses and the claim with the update substituted), and the facts it rests on."""

    profiles: tuple  # ((label, hypotheses (compiled), step (compiled)), ...)
    facts: tuple  # the hypotheses as text, for the evidence
    lemmas: tuple = ()  # the ids of the note's proved claims it is derived from
    abstract: bool = False  # inner products and norms taken as scalars (given_lemmas)


@lru_cache(maxsize=None)
def _tree(src: str):
    return compile_expr(src, _TYPES, symbolic=True).tree


def one_step(claim) -> OneStep | str:
    """The claim as one update (or, at a visit, one state) of each of its variants, of a dataset
    (its points of each label as witnesses), or at the end of a run (for any final state its
    variants' runs allow, with no lemma), or why it is not taken (a text)."""
    if claim.when in ("dataset", "end"):
        return given_lemmas(claim, ())
    if claim.when not in ("update", "visit") or claim.compiled is None:
        return "not a claim about each update or visit, a dataset or the end of a run"
    if (why := _refused(claim)) is not None:
        return why
    names = set(claim.compiled.names)
    allowed = _NAMES | _COUNTS if claim.when == "update" else _NAMES - {"score", "out"}  # at a visit: before or after its update?
    if not names <= allowed:
        return f"it reads {', '.join(sorted(names - allowed))}, which one {claim.when} does not show"
    counted = bool(names & _COUNTS)
    if counted and (claim.compiled.uses_prev or names & {"score", "out"}):
        return "it reads k, sumsq or w0 with prev(), score or out: no induction over the updates is taken for it"
    if claim.compiled.uses_points or claim.compiled.uses_prev > (claim.when == "update"):
        return "it reads the whole dataset or looks back further than the update"
    variants = claim.variants or tuple(VARIANTS)
    if claim.when == "update" and not _settings_left(claim, variants):
        return "its assumptions leave no run setting of its variants (form_half on a variant with one form)"
    try:
        profiles, facts = [], []
        for v in variants:
            for label, hyps, subs in _profiles(claim, VARIANTS[v], names):
                for label, hyps, subs in (_induction(claim, VARIANTS[v], names, label, hyps, subs) if counted
                                          else [(label, hyps, subs)]):
                    _add(profiles, facts, label, hyps, _Step(claim.expr, _translate(claim.compiled.tree, subs, subs["prev"])))
    except _NotTaken as e:
        return str(e)
    return OneStep(tuple(profiles), tuple(facts))


def _refused(claim) -> str | None:
    """Why no proof of this module is taken for the claim whatever it reads, or None."""
    if claim.compiled is None or claim.given is not None or claim.free or claim.pair:
        return "it has a premise, free names or a partner run"
    if any(v not in VARIANTS or VARIANTS[v].dual for v in claim.variants or tuple(VARIANTS)):
        return "one of its variants is declared or the dual form"
    if claim.setting is not None and claim.setting.b0 is not None:
        return "its run states b0"
    return None


def _add(profiles, facts, label, hyps, step) -> None:
    profiles.append((label, tuple(h if isinstance(h, _Step) else _compiled(h) for h in hyps), step))
    facts += [h if isinstance(h, str) else h.source for h in hyps if (h if isinstance(h, str) else h.source) not in facts]


def given_lemmas(claim, lemmas, abstract=False) -> OneStep | str:
    """The claim for any state the note's proved ``lemmas`` allow, nothing substituted, or why it is
    not taken: at an update (w, b, k, sumsq: any values the lemmas at that update leave; the point
    updated on), at the end of a run (no update: w0, b0, mistakes = 0; or the last update's
    state, mistakes = k >= 1), of a dataset (under nontrivial, a point of each label)."""
    if (why := _not_derived(claim)) is not None:
        return why
    if claim.when == "update" and not lemmas:  # one_step proves it with the update itself
        return "no proved claim of its note to derive it from"
    read = set(claim.compiled.names).union(*(set(lem.compiled.names) for lem in lemmas))
    try:
        profiles, facts = [], []
        for v in claim.variants or tuple(VARIANTS):
            for label, hyps, subs, updated in _states(claim, VARIANTS[v], read):
                said = [_Step(f"{lem.id} (proved): {lem.expr}", _translate(lem.compiled.tree, subs, None))
                        for lem in lemmas if updated or lem.when == "dataset"]
                step = _Step(claim.expr, _translate(claim.compiled.tree, subs, None))
                hyps_ = [h if isinstance(h, _Step) else _compiled(h) for h in hyps] + said
                if abstract:
                    hyps_, step = _abstract(hyps_, step)
                else:
                    hyps_ += _cauchy_schwarz([*said, step])
                _add(profiles, facts, label, hyps_, step)
    except _NotTaken as e:
        return str(e)
    return OneStep(tuple(profiles), tuple(facts), tuple(lem.id for lem in lemmas), abstract)


def _abstract(hyps, step):
    """The hypotheses and the step with each inner product and norm a scalar of its own (atomN),
    related only by what holds of all vectors: |u|^2 >= 0, norm(u) = sqrt(|u|^2) and
    Cauchy-Schwarz; or they are returned as they are when there are more than MAX_ATOMS."""
    atoms: dict = {}

    def atom(key):
        if key not in atoms:
            if len(atoms) >= MAX_ATOMS:
                raise _NotTaken("too many inner products")
            atoms[key] = ("name", f"atom{len(atoms)}")
        return atoms[key]

    def norm2(u):
        return atom(("norm2", u))

    def walk(t):
        if t[0] == "call" and t[1] in ("dot", "norm2", "norm"):
            u, v = (t[2][0], t[2][1 if t[1] == "dot" else 0])
            if u == v:
                return norm2(u) if t[1] != "norm" else ("call", "sqrt", (norm2(u),))
            norm2(u), norm2(v)
            return atom(("dot",) + tuple(sorted((u, v), key=repr)))
        if not isinstance(t, tuple):
            return t
        return tuple(walk(p) if isinstance(p, tuple) and p and isinstance(p[0], str)
                     else tuple(walk(q) for q in p) if isinstance(p, tuple) else p for p in t)

    try:
        hyps_ = [_Step(h.source, walk(h.tree)) for h in hyps]
        step_ = _Step(step.source, walk(step.tree))
    except _NotTaken:
        return hyps, step
    zero = ("num", Fraction(0))
    for key, name in atoms.items():
        if key[0] == "norm2":
            hyps_.append(_Step("each |u|^2 >= 0", ("cmp", (">=",), (name, zero))))
        else:
            hyps_.append(_Step("Cauchy-Schwarz: dot(u, v)**2 <= norm2(u)*norm2(v) for each inner product read",
                               ("cmp", ("<=",), (("pow", name, 2), ("bin", "*", atoms[("norm2", key[1])],
                                                                     atoms[("norm2", key[2])])))))
    return hyps_, step_


def _cauchy_schwarz(steps) -> list:
    """Cauchy-Schwarz, dot(u, v)^2 <= |u|^2 |v|^2, for each inner product of two vectors the steps
    read: a fact of all vectors, which z3 finds slowly from the Gram matrix's minors when a
    proof chains it with lemmas."""
    seen, out = set(), []

    def walk(t):
        if t[0] == "call" and t[1] == "dot" and t[2][0] != t[2][1] and t not in seen:
            seen.add(t)
            u, v = t[2]
            out.append(_Step("Cauchy-Schwarz: dot(u, v)**2 <= norm2(u)*norm2(v) for each inner product read",
                             ("cmp", ("<=",), (("pow", t, 2), ("bin", "*", ("call", "norm2", (u,)),
                                                                 ("call", "norm2", (v,)))))))
        for c in _children(t):
            walk(c)

    for st in steps:
        walk(st.tree)
    return out


def _not_derived(claim) -> str | None:
    """Why given_lemmas takes no claim like this one whatever its lemmas, or None."""
    allowed = {"update": _NAMES - {"score", "out"} | _COUNTS, "end": _END, "dataset": _DATASET}.get(claim.when)
    if allowed is None or claim.compiled is None:
        return "not a claim about each update, a dataset or the end of a run"
    if (why := _refused(claim)) is not None:
        return why
    names = set(claim.compiled.names)
    if not names <= allowed:
        return f"it reads {', '.join(sorted(names - allowed))}, which {_WHERE[claim.when]} does not show"
    if claim.compiled.uses_points or claim.compiled.uses_prev:
        return "it reads the whole dataset or looks back an update"
    return None


_WHERE = {"update": "a state at an update", "end": "the end of a run", "dataset": "a dataset"}


def _states(claim, var, names):
    """(label, hypotheses, substitutions, whether an update was made) of each state of given_lemmas."""
    zero = A.W0_ZERO in claim.assume
    w0, b0 = ("0*x" if zero else "w0"), ("0" if zero else "b0")
    bias = var.bias is not None
    opt = {"w_hat_opt": f"cat(w_opt, {'b_opt' if bias else '0'}/R)", "b_opt": "b_opt" if bias else "0"}
    if claim.when == "dataset":  # a point of each label, where the dataset has both
        both = [("xp", "1"), ("xn", "(-1)")] if A.NONTRIVIAL in claim.assume else []
        yield var.name + (", a point of each label (xp, xn)" if both else ""), _facts(claim, var, names, both), opt, False
        return
    b = "b" if bias else b0
    subs = {**opt, "w": "w", "b": b, "w_hat": f"cat(w, {b}/R)", "x_hat": "cat(x, R)", "k": "k", "sumsq": "sumsq",
            "w0": w0, "mistakes": "k"}
    counts = ["k >= 1"] + (["sumsq >= norm2(x)", "sumsq <= k*R2"] if "sumsq" in names else [])
    if claim.when == "end":
        start = {**subs, "w": w0, "b": b0, "w_hat": f"cat({w0}, {b0}/R)", "mistakes": "0"}
        yield f"{var.name}: no update (mistakes = 0, w = w0)", _facts(claim, var, names, []), start, False
        yield (f"{var.name}: the last update (mistakes = k >= 1, at its point x, y)",
               _facts(claim, var, names) + counts, subs, True)
        return
    yield f"{var.name}: any state at an update (w, b, k) its proved claims allow", _facts(claim, var, names) + counts, subs, True


def _facts(claim, var, names, points=(("x", "y"),)) -> list:
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
    unit = [h for x, _ in points for h in _unit(claim, var, x)]
    hyps += unit + (["R == 1"] if unit else [])  # every point has norm 1: so has the largest
    if names & {"w_hat", "w_hat_opt"}:  # (w, b/R) is undefined when every point is 0: no evaluation there
        hyps.append("R > 0")
    elif A.NONTRIVIAL in claim.assume and names & _SEPARATOR:  # a point of each label, each of margin >= gamma > 0
        hyps.append("R > 0")  # under the separator: they are not both 0
    if names & _SEPARATOR:  # defined only where the dataset has a separator (of margin gamma > 0)
        hyps += ["norm2(w_opt) == 1", "gamma > 0"] + [_margin(claim, var, x, y) for x, y in points]
    return hyps


@dataclass(frozen=True)
class _Step:
    source: str
    tree: tuple


def _compiled(src: str) -> _Step:
    return _Step(src, _tree(src))


class _NotTaken(ValueError):
    pass


def _profiles(claim, var, names):
    """(label, hypotheses, substitutions) of each run setting of ``var`` the claim's assumptions
    leave: sign(0) stays a symbol ranging over its values, the update form is one per profile.
    At a visit, the state (w_prev, b_prev) is any state, and nothing is updated."""
    narrowed = A.narrowed(claim)
    ties = (var.tie,) if var.tie is not None else tuple(narrowed.get("sign0s", (-1, 0, 1)))
    update = claim.when == "update"
    forms = ("yx", "half") if var.half_form and update else ("yx",)
    forms = tuple(f for f in forms if f in narrowed.get("forms", forms)) if update else forms
    bias = var.bias is not None
    # a variant without a bias of its own keeps b where it started (a run may be given --b0), and
    # scores without it (perceptron.models.primal)
    score = "(dot(w_prev, x) + b_prev)" if bias else "dot(w_prev, x)"
    hyps = _facts(claim, var, names)
    if update:
        hyps += [f"out == sign({score}) + (1 - sign({score})**2)*sign0", "out != y",
                 "*".join(_factor(t) for t in ties) + " == 0"]
    b_step = {BIAS_R2: " + eta*y*R2", BIAS_ONE: " + eta*y"}.get(var.bias, "")
    for form in forms:
        w = "w_prev" if not update else "w_prev + eta*y*x" if form == "yx" else "w_prev + eta*(y - out)/2*x"
        b = f"(b_prev{b_step})" if update else "b_prev"
        subs = {"w": w, "b": b, "w_hat": f"cat({w}, {b}/R)", "x_hat": "cat(x, R)", "score": score,
                "w_hat_opt": f"cat(w_opt, {'b_opt' if bias else '0'}/R)", "b_opt": "b_opt" if bias else "0"}
        subs["prev"] = {**subs, "w": "w_prev", "b": "b_prev", "w_hat": "cat(w_prev, b_prev/R)"}
        label = var.name + (f", sign(0) in {{{', '.join(map(str, ties))}}}" if var.tie is None and update else "")
        if update:
            label += f": w = {w}" + (f", b = {b[1:-1]}" if bias else "")
        yield label, hyps, subs


def _induction(claim, var, names, label, hyps, subs):
    """The two cases of an induction over the updates of a claim that reads k, sumsq or w0: the
    first update (k = 1, from the start w0, b0: 0 under w0_zero), and a later one (k >= 2) given
    the claim at the update before it (at its own point x1, y1, with k - 1 and sumsq_prev)."""
    zero = A.W0_ZERO in claim.assume
    w0, b0 = ("0*x" if zero else "w0"), ("0" if zero else "b0")

    def start(text):
        return text.replace("w_prev", w0).replace("b_prev", b0)

    first = {key: start(v) for key, v in subs.items() if key != "prev"}
    first.update(k="1", sumsq="norm2(x)", w0=w0, prev=None)
    yield f"{label}; the first update (k = 1, from w0)", [start(h) for h in hyps], first
    before = {**subs, "w": "w_prev", "b": "b_prev", "w_hat": "cat(w_prev, b_prev/R)", "x": "x1", "y": "y1",
              "x_hat": "cat(x1, R)", "k": "(k - 1)", "sumsq": "sumsq_prev", "w0": w0}
    said = _Step(f"the claim at the update before (point x1, label y1, k - 1 updates): {claim.expr}",
                 _translate(claim.compiled.tree, before, None))
    point = ["y1**2 == 1", "norm2(x1) <= R2"] + _unit(claim, var, "x1") + ([_margin(claim, var, "x1", "y1")]
                                                                        if names & _SEPARATOR else [])
    later = {**subs, "k": "k", "sumsq": "(sumsq_prev + norm2(x))", "w0": w0, "prev": None}
    yield (f"{label}; a later update (k >= 2), given the claim at the one before",
           hyps + ["k >= 2", "sumsq_prev >= 0", "sumsq_prev <= (k - 1)*R2"] + point + [said], later)


def _unit(claim, var, x: str) -> list:
    """The unit norm of a point the learner sees, where 004's variant or the claim's assumption gives it."""
    return [f"norm2({x}) == 1"] if var.unit or A.UNIT_NORM in claim.assume else []


def _margin(claim, var, x: str, y: str) -> str:
    """A point's margin under the separator: >= gamma, or > gamma where gamma is taken strictly below."""
    score = f"dot(w_opt, {x}) + b_opt" if var.bias is not None else f"dot(w_opt, {x})"
    return f"{y}*({score}) {'>' if A.STRICT_MARGIN in claim.assume else '>='} gamma"


def _settings_left(claim, variants) -> bool:
    """Whether the claim's assumptions leave every one of its variants a run setting (sign(0),
    update form): a proof over no setting would prove anything."""
    narrowed = A.narrowed(claim)
    for v in variants:
        var = VARIANTS[v]
        forms = ("yx", "half") if var.half_form else ("yx",)
        ties = (var.tie,) if var.tie is not None else (-1, 0, 1)
        if not set(forms) & set(narrowed.get("forms", forms)) or not set(ties) & set(narrowed.get("sign0s", ties)):
            return False
    return True


def _factor(t: int) -> str:
    """sign0 - t, as a factor of the polynomial whose roots are sign(0)'s values."""
    return "sign0" if t == 0 else f"(sign0 {'-' if t > 0 else '+'} {abs(t)})"


def _translate(tree, subs, prev_subs):
    """The claim's tree with its names replaced (under prev(), by the state before the update);
    a comparison of vectors becomes one of |a - b|^2 with 0."""
    op = tree[0]
    if op == "name":
        src = subs.get(tree[1], tree[1])
        return _tree(src) if src != tree[1] or tree[1] in _TYPES else _fail(tree[1])
    if op == "prev":
        if tree[2] != 1 or prev_subs is None:  # prev(e, 2), prev(prev(e)), or no update before: not shown
            raise _NotTaken("it looks back more than one update")
        return _translate(tree[1], prev_subs, None)
    if op == "num":
        return tree
    if op in ("neg", "not"):
        return (op, _translate(tree[1], subs, prev_subs))
    if op == "bin":
        return ("bin", tree[1], _translate(tree[2], subs, prev_subs), _translate(tree[3], subs, prev_subs))
    if op == "pow":
        return ("pow", _translate(tree[1], subs, prev_subs), tree[2])
    if op == "call":
        return ("call", tree[1], tuple(_translate(a, subs, prev_subs) for a in tree[2]))
    if op in ("and", "or"):
        return (op, tuple(_translate(t, subs, prev_subs) for t in tree[1]))
    if op == "cmp":
        parts = [_translate(p, subs, prev_subs) for p in tree[2]]
        if not any(_vector(p) for p in parts):
            return ("cmp", tree[1], tuple(parts))
        zero = ("num", 0)
        return ("and", tuple(("cmp", (o,), (("call", "norm2", (("bin", "-", a, b),)), zero))
                             for o, a, b in zip(tree[1], parts, parts[1:])))
    raise _NotTaken(f"{op} has no symbolic form here")


def _fail(name):
    raise _NotTaken(f"it reads {name}")


def _vector(tree) -> bool:
    op = tree[0]
    if op == "name":
        return tree[1] in _VECTORS
    if op == "call":
        return tree[1] in ("cat", "vec")
    if op == "bin":
        return _vector(tree[2]) or _vector(tree[3])
    if op == "neg":
        return _vector(tree[1])
    return False


def taken(claim) -> bool:
    """Whether the claim is one this module tries to prove, by itself or from its note's proved
    claims (cheap: no solver is started)."""
    return not isinstance(one_step(claim), str) or _not_derived(claim) is None


def lemma_of(lemma, claim) -> bool:
    """Whether ``lemma``, once proved, holds wherever ``claim`` is evaluated and may be a hypothesis
    of its proof: a claim of the same note about each update (for a claim at an update or at the
    end of a run) or about the dataset, with no more assumptions and no fewer variants, stating no
    other run, and defined wherever the claim's own facts hold (its divisors eta, gamma, R where
    R > 0 is one; a separator where the claim has one)."""
    if (lemma.id == claim.id or lemma.document != claim.document or _refused(lemma) is not None
            or claim.compiled is None or lemma.when not in ("update", "dataset")
            or (lemma.when == "update" and claim.when not in ("update", "end"))):
        return False
    names, own = set(lemma.compiled.names), set(claim.compiled.names)
    if lemma.compiled.uses_prev or lemma.compiled.uses_points or names & {"score", "out"}:
        return False
    if not (set(lemma.assume) <= set(claim.assume)
            and set(claim.variants or VARIANTS) <= set(lemma.variants or VARIANTS)
            and lemma.setting in (None, claim.setting) and lemma.separator in ("any", claim.separator)):
        return False
    if names & _SEPARATOR and not (own & _SEPARATOR or A.SEPARABLE in claim.assume):
        return False
    # R > 0 where the claim reads (w, b/R), or where a separator and both labels make a point non-zero
    r_positive = bool(own & {"w_hat", "w_hat_opt"}) or (A.NONTRIVIAL in claim.assume
                                                       and bool(own & _SEPARATOR or A.SEPARABLE in claim.assume))
    return (r_positive or not names & {"w_hat", "w_hat_opt"}) and _defined(lemma.compiled.tree, r_positive)


def lemmas_of(claim, notes) -> list:
    """The claims of ``notes`` a proof of ``claim`` may rest on: its lemmas (lemma_of), theirs, and
    so on (a finding read back from a cache depends on each of them)."""
    out: dict = {}
    todo = [claim]
    while todo:
        c = todo.pop()
        for lem in notes:
            if lem.id not in out and lem.id != claim.id and lemma_of(lem, c):
                out[lem.id] = lem
                todo.append(lem)
    return [lem for lem in notes if lem.id in out]


def _defined(tree, r_positive: bool) -> bool:
    """Whether every divisor and square root of the expression is defined wherever a run's facts
    hold (a lemma with no value somewhere is no hypothesis there)."""
    op = tree[0]
    if op == "bin" and tree[1] == "/" and _sign(tree[3], r_positive) != 1:
        return False
    if op == "pow" and tree[2] < 0 and _sign(tree[1], r_positive) != 1:
        return False
    if op == "call" and tree[1] == "sqrt" and _sign(tree[2][0], r_positive) is None:
        return False
    return all(_defined(t, r_positive) for t in _children(tree))


def _children(tree):
    for part in tree[1:]:
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            yield part
        elif isinstance(part, tuple):
            yield from (t for t in part if isinstance(t, tuple) and t and isinstance(t[0], str))


def _sign(tree, r_positive: bool) -> int | None:
    """1 where the expression is positive wherever a run's facts hold, 0 where it is only
    non-negative, None where neither is shown (eta, gamma > 0; k, R, norms >= 0)."""
    op = tree[0]
    if op == "num":
        return 1 if tree[1] > 0 else 0 if tree[1] == 0 else None
    if op == "name":
        return 1 if tree[1] in ("eta", "gamma") or (r_positive and tree[1] in ("R", "R2")) else \
            0 if tree[1] in ("k", "mistakes", "sumsq", "R", "R2") else None
    if op == "call" and tree[1] in ("norm", "norm2", "abs"):
        return 0
    if op == "call" and tree[1] == "sqrt":
        return _sign(tree[2][0], r_positive)
    if op == "pow":
        got = _sign(tree[1], r_positive)
        return got if got is not None else (0 if tree[2] % 2 == 0 else None)
    if op == "bin" and tree[1] in ("+", "*", "/"):
        a, b = _sign(tree[2], r_positive), _sign(tree[3], r_positive)
        if a is None or b is None or (tree[1] == "/" and b != 1):
            return None
        return max(a, b) if tree[1] == "+" else min(a, b)
    return None


def prove_one_step(claim) -> dict | None:
    """The evidence of the claim's proof over one update (method, hypotheses, the step at each
    profile), or None when it is not taken or not proved at every profile."""
    return prove_all([claim])[claim.id]


#: Rounds of derivation from proved claims (one proved in a round is a lemma of the next): the
#: proofs of the notes build on their lemmas two levels deep (001: Lemmas 1-3, then the Theorem).
MAX_ROUNDS = 3


def prove_all(claims, notes=()) -> dict:
    """prove_one_step of each claim (id -> its evidence or None), and then, for a claim not proved
    so, its proof from the claims of its note proved before it (given_lemmas; ``notes``: the
    claims of the notes, each proved here as needed), in up to MAX_ROUNDS rounds.  Each round's
    cases are checked in one child process, under a hard limit of LIMIT seconds plus CASE_LIMIT a
    case; only "proved" at every case of a claim counts."""
    pool = list({c.id: c for c in [*notes, *claims]}.values())
    wanted = {c.id: c for c in claims}
    for c in claims:
        wanted.update({lem.id: lem for lem in lemmas_of(c, pool)})
    lemmas = {i: [lem for lem in pool if lemma_of(lem, c)] for i, c in wanted.items()}
    proved = _proved({i: one_step(c) for i, c in wanted.items()}, wanted)
    tried: dict = {}
    for _ in range(MAX_ROUNDS):
        todo = {}
        for i, c in wanted.items():
            got = [lem for lem in lemmas[i] if lem.id in proved]
            if i not in proved and got and tried.get(i) != len(got):
                tried[i] = len(got)
                todo[i] = got
        # first with each inner product and norm a scalar of its own (fast where a proof chains
        # its lemmas), then over the Gram matrix (where it needs what the vectors are)
        done = _proved({i: given_lemmas(wanted[i], got, abstract=True) for i, got in todo.items()}, wanted)
        done.update(_proved({i: given_lemmas(wanted[i], got) for i, got in todo.items() if i not in done}, wanted))
        if not done:  # nothing new to derive from
            break
        proved.update(done)
    return {c.id: proved.get(c.id) for c in claims}


def _proved(attempts: dict, claims: dict) -> dict:
    """The evidence of each attempt (claim id -> OneStep, or why it is not taken) proved at every case."""
    from verify.symbolic.steps import check_cases

    taken_ = [(claims[i], got) for i, got in attempts.items() if not isinstance(got, str)]
    cases = [(hyps, [step]) for _, got in taken_ for _, hyps, step in got.profiles]
    results = iter(check_cases(list(_VECTORS), [s for s in _TYPES if s not in _VECTORS], cases, QUERY_LIMIT,
                               LIMIT + CASE_LIMIT * len(cases), confirm=False) if cases else [])
    out = {}
    for claim, got in taken_:
        res = [next(results)[0] for _ in got.profiles]
        if got.profiles and all(r.verdict == Verdict.PROVED for r in res):
            out[claim.id] = _evidence(claim, got, res)
    return out


def _evidence(claim, got: OneStep, res) -> dict:
    steps = [{"step": f"{label}; {claim.expr}", "verdict": r.verdict.label, "method": r.method}
             for (label, _, _), r in zip(got.profiles, res)]
    if got.lemmas:
        what = (f"derived from the note's proved claims {', '.join(got.lemmas)}: for any "
                + {"update": "state at an update they allow", "end": "end of a run (no update, or the last update's "
                   "state: what they allow)", "dataset": "dataset (a point of each label under nontrivial)"}[claim.when])
        if got.abstract:
            what += "; each inner product and norm a number of its own, related by Cauchy-Schwarz"
    elif claim.when == "update":
        what = ("one update, for every state before it (w_prev, b_prev: prev(w), prev(b)), on a mistake (out != y), "
                "each run setting's update substituted")
    else:
        what = {"visit": "every state (w_prev, b_prev: w, b) at a visit of any point",
                "end": "the end of any run: no update (w0, b0, mistakes = 0) or the last update's state",
                "dataset": "every dataset (under nontrivial: a point of each label, xp and xn)"}[claim.when]
    if any("the first update" in label for label, _, _ in got.profiles):
        what += ("; by induction over the updates: the first (k = 1, from w0, b0) and each later one given the claim "
                 "at the one before")
    out = {"method": f"{what}; for all dimensions, by sympy and z3 over inner products (the hypotheses: facts of "
                     "every run of the variant; a variant without a bias of its own keeps b at b0 and scores "
                     "without it)", "hypotheses": list(got.facts), "steps": steps}
    return {**out, "lemmas": list(got.lemmas)} if got.lemmas else out
