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
from functools import lru_cache

from perceptron.expression import compile_expr
from perceptron.variants import BIAS_ONE, BIAS_R2, VARIANTS
from verify.language import assumptions as A
from verify.verdicts import Verdict

__all__ = ["OneStep", "one_step", "taken", "prove_one_step", "prove_all"]

#: The symbols of a proof: the state before the update, the point, the separator.
_TYPES = {"w_prev": "vector", "x": "vector", "w_opt": "vector", "x1": "vector", "w0": "vector", "b0": "scalar",
          "y1": "scalar", "k": "scalar", "sumsq_prev": "scalar", "b_prev": "scalar", "y": "scalar", "eta": "scalar",
          "R": "scalar", "R2": "scalar", "out": "scalar", "sign0": "scalar", "gamma": "scalar", "b_opt": "scalar"}
_VECTORS = ("w_prev", "x", "w_opt", "x1", "w0")
#: The names a claim about one update may read (the rest, counters and the data as a whole, are
#: not shown by one update).
_STATE = {"w", "b", "w_hat"}
_NAMES = _STATE | {"x", "x_hat", "y", "eta", "R", "R2", "score", "out", "sign0", "w_opt", "gamma", "b_opt", "w_hat_opt"}
_SEPARATOR = {"w_opt", "gamma", "b_opt", "w_hat_opt"}
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


@lru_cache(maxsize=None)
def _tree(src: str):
    return compile_expr(src, _TYPES, symbolic=True).tree


def one_step(claim) -> OneStep | str:
    """The claim as one update (or, at a visit, one state) of each of its variants, or why it is
    not taken (a text)."""
    if claim.when not in ("update", "visit") or claim.compiled is None:
        return "not a claim about each update or visit"
    if claim.given is not None or claim.free or claim.pair:
        return "it has a premise, free names or a partner run"
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
    if any(v not in VARIANTS or VARIANTS[v].dual for v in variants):
        return "one of its variants is declared or the dual form"
    if claim.setting is not None and claim.setting.b0 is not None:
        return "its run states b0"
    if claim.when == "update" and not _settings_left(claim, variants):
        return "its assumptions leave no run setting of its variants (form_half on a variant with one form)"
    try:
        profiles, facts = [], []
        for v in variants:
            for label, hyps, subs in _profiles(claim, VARIANTS[v], names):
                for label, hyps, subs in (_induction(claim, VARIANTS[v], names, label, hyps, subs) if counted
                                          else [(label, hyps, subs)]):
                    step = _translate(claim.compiled.tree, subs, subs["prev"])
                    profiles.append((label, tuple(h if isinstance(h, _Step) else _compiled(h) for h in hyps),
                                     _Step(claim.expr, step)))
                    facts += [h if isinstance(h, str) else h.source for h in hyps
                              if (h if isinstance(h, str) else h.source) not in facts]
    except _NotTaken as e:
        return str(e)
    return OneStep(tuple(profiles), tuple(facts))


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
    hyps = ["y**2 == 1", "eta > 0", "R >= 0", "R2 == R**2", "norm2(x) <= R2"]
    if update:
        hyps += [f"out == sign({score}) + (1 - sign({score})**2)*sign0", "out != y",
                 "*".join(_factor(t) for t in ties) + " == 0"]
    etas = narrowed.get("etas")
    bound = min((b for b in (A.eta_bound(claim), var.eta_max) if b is not None), default=None)
    if etas is not None and len(etas) == 1:
        hyps.append(f"eta == {etas[0]}")
    elif bound is not None:
        hyps.append(f"eta <= {bound}")
    unit = _unit(claim, var, "x")
    hyps += unit + (["R == 1"] if unit else [])  # every point has norm 1: so has the largest
    if names & {"w_hat", "w_hat_opt"}:  # (w, b/R) is undefined when every point is 0: no evaluation there
        hyps.append("R > 0")
    if names & _SEPARATOR:  # defined only where the dataset has a separator (of margin gamma > 0)
        hyps += ["norm2(w_opt) == 1", "gamma > 0", _margin(claim, var, "x", "y")]
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
    """Whether the claim is one this module tries to prove (cheap: no solver is started)."""
    return not isinstance(one_step(claim), str)


def prove_one_step(claim) -> dict | None:
    """The evidence of the claim's proof over one update (method, hypotheses, the step at each
    profile), or None when it is not taken or not proved at every profile."""
    return prove_all([claim])[claim.id]


def prove_all(claims) -> dict:
    """prove_one_step of each claim (id -> its evidence or None), every case checked in one child
    process, under a hard limit of LIMIT seconds plus CASE_LIMIT a case."""
    from verify.symbolic.steps import check_cases

    taken_ = [(c, got) for c in claims if not isinstance(got := one_step(c), str)]
    cases = [(hyps, [step]) for _, got in taken_ for _, hyps, step in got.profiles]
    results = iter(check_cases(list(_VECTORS), [s for s in _TYPES if s not in _VECTORS], cases, QUERY_LIMIT,
                               LIMIT + CASE_LIMIT * len(cases)) if cases else [])
    out = {c.id: None for c in claims}
    for claim, got in taken_:
        res = [next(results)[0] for _ in got.profiles]
        if got.profiles and all(r.verdict == Verdict.PROVED for r in res):
            out[claim.id] = _evidence(claim, got, res)
    return out


def _evidence(claim, got: OneStep, res) -> dict:
    steps = [{"step": f"{label}; {claim.expr}", "verdict": r.verdict.label, "method": r.method}
             for (label, _, _), r in zip(got.profiles, res)]
    what = ("one update, for every state before it (w_prev, b_prev: prev(w), prev(b)), on a mistake (out != y), "
            "each run setting's update substituted" if claim.when == "update" else "every state (w_prev, b_prev: w, b) "
            "at a visit of any point")
    if any("the first update" in label for label, _, _ in got.profiles):
        what += ("; by induction over the updates: the first (k = 1, from w0, b0) and each later one given the claim "
                 "at the one before")
    return {"method": f"{what}; for all dimensions, by sympy and z3 over inner products (the hypotheses: facts of "
                      "every run of the variant; a variant without a bias of its own keeps b at b0 and scores "
                      "without it)", "hypotheses": list(got.facts), "steps": steps}
