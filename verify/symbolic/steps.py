"""Symbolic checks of proof steps, for all dimensions.

A symbolic claim declares its vectors and scalars, its hypotheses, and its steps (each a
comparison, chained or not).  Vectors are abstracted to their inner products: every vector
expression is a linear combination of the declared vectors (plus appended scalar coordinates,
``cat(v, s)``), and ``dot(u, v)`` becomes a real unknown <u,v>.  What the proofs use about
inner products is stated as axioms: <u,u> >= 0 and every principal minor of the Gram matrix
is >= 0 (which contains Cauchy-Schwarz, <u,v>^2 <= <u,u><v,v>, and makes every model
realisable by actual vectors).  ``norm(v)`` is sqrt(<v,v>).

Each step ``a op b`` is decided:
* by sympy, when a - b simplifies to 0 (identities, ``==``), or to a constant;
* else by z3 (nonlinear real arithmetic): hypotheses + axioms + not(a op b) unsatisfiable
  means proved; satisfiable gives a counterexample, which is re-checked exactly with sympy
  (hypotheses hold, the step fails, the Gram matrix is positive semidefinite) before it is
  reported.  Square roots become s >= 0 with s^2 = arg, and only after arg >= 0 is proved;
  divisions only after the divisor is proved non-zero.  z3 runs in a child process killed at
  a hard time limit (its own timeouts are soft on nonlinear problems).
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from dataclasses import dataclass, field

import sympy

from verify._child import run_in_child
from verify.symbolic.z3_terms import Z3_TIMEOUT, ToZ3, Unsupported, close_server, relation, z3_check
from verify.verdicts import Verdict

__all__ = ["StepResult", "check_symbolic", "check_cases", "check_first", "check_at", "values_of", "expansion_terms", "Z3_TIMEOUT", "MAX_EXPANSION_TERMS"]

#: Hard wall-clock limit of one symbolic claim (sympy and its z3 queries run in a child
#: process, killed at the limit; sympy has no limit of its own: (a+b+c+d+e+f)**64 expands to
#: 11 million terms).
CLAIM_LIMIT = 120.0
#: Most terms a step's expansion may have, estimated from its expression before any work (a
#: power (t terms)**n has up to C(t + n - 1, n) monomials): the notes' steps have a few dozen;
#: (a+b+c+d+e+f)**64 would have 11 million, which sympy would spend minutes and gigabytes on.
MAX_EXPANSION_TERMS = 20_000


def expansion_terms(tree) -> int:
    """An upper bound on the number of terms of the expression's expansion (capped just past
    MAX_EXPANSION_TERMS, so huge exponents cost nothing)."""
    cap = MAX_EXPANSION_TERMS + 1
    op = tree[0]
    if op in ("num", "name"):
        return 1
    if op in ("neg", "not"):
        return expansion_terms(tree[1])
    if op == "bin":
        a, b = expansion_terms(tree[2]), expansion_terms(tree[3])
        return min(cap, a + b if tree[1] in ("+", "-") else a * b)
    if op == "pow":
        t, n = expansion_terms(tree[1]), abs(int(tree[2]))
        return min(cap, math.comb(t + n - 1, n)) if t > 1 else 1
    if op == "call":
        terms = [expansion_terms(a) for a in tree[2]]
        if tree[1] in ("dot",):
            return min(cap, math.prod(terms))
        return min(cap, sum(terms))  # the others are opaque symbols or sums of their arguments
    parts = [p for p in tree[1:] if isinstance(p, tuple) and p and isinstance(p[0], str)]
    parts += [q for p in tree[1:] if isinstance(p, (tuple, list)) and not (p and isinstance(p[0], str))
              for q in p if isinstance(q, tuple) and q and isinstance(q[0], str)]
    return min(cap, sum(expansion_terms(p) for p in parts) or 1)


@dataclass
class StepResult:
    step: str
    verdict: Verdict
    method: str
    detail: str = ""
    counterexample: dict = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict:
        out = {"step": self.step, "verdict": self.verdict.label, "method": self.method, "seconds": round(self.seconds, 3)}
        if self.detail:
            out["detail"] = self.detail
        if self.counterexample:
            out["counterexample"] = self.counterexample
        return out


# ------------------------------------------------------------------ to sympy

@dataclass(frozen=True)
class _SymVec:
    coef: tuple  # ((name, sympy expr), ...) sorted
    extra: tuple = ()

    def d(self):
        return dict(self.coef)


def _mk(coef: dict, extra=()):
    return _SymVec(tuple(sorted((k, v) for k, v in coef.items() if v != 0)), tuple(extra))


def _gram(a: str, b: str):
    a, b = sorted((a, b))
    return sympy.Symbol(f"<{a},{b}>", real=True)


class _ToSympy:
    """A step's tree -> sympy, recording each operation the claim's evaluator leaves undefined
    somewhere (``partial``: ("nonzero", a divisor, guard), ("nonneg", a root's argument, ())),
    in the step as written, before sympy cancels any of it.  A divisor's guard is what must hold
    for the evaluator to reach it (the items of _relations): it reads an 'or' left to right and
    stops at the first true alternative, so a divisor in a later one is reached only where each
    before it is false.  A root's argument is shown non-negative wherever the hypotheses hold
    (unguarded: its definition s*s == a then excludes no state)."""

    def __init__(self, vectors, scalars):
        self.vectors = set(vectors)
        self.syms = {s: sympy.Symbol(s, real=True) for s in scalars}
        self.partial: list = []
        self.guard: tuple = ()

    def __call__(self, t):
        op = t[0]
        if op == "num":
            return sympy.Rational(t[1].numerator, t[1].denominator)
        if op == "name":
            return _mk({t[1]: sympy.Integer(1)}) if t[1] in self.vectors else self.syms[t[1]]
        if op == "neg":
            a = self(t[1])
            return self._scale(-1, a) if isinstance(a, _SymVec) else -a
        if op == "bin":
            a, b = self(t[2]), self(t[3])
            o = t[1]
            if isinstance(a, _SymVec) or isinstance(b, _SymVec):
                if o in "+-":
                    if len(a.extra) != len(b.extra):
                        raise Unsupported("adding vectors of different lengths")
                    sgn = 1 if o == "+" else -1
                    coef = a.d()
                    for k, v in b.coef:
                        coef[k] = sympy.expand(coef.get(k, 0) + sgn * v)
                    return _mk(coef, tuple(x + sgn * y for x, y in zip(a.extra, b.extra)))
                if o == "*":
                    return self._scale(a, b) if isinstance(b, _SymVec) else self._scale(b, a)
                if o == "/":
                    self.partial.append(("nonzero", b, self.guard))
                    return self._scale(1 / b, a)
            if o == "/":
                self.partial.append(("nonzero", b, self.guard))
            return {"+": a + b, "-": a - b, "*": a * b, "/": a / b}[o]
        if op == "pow":
            base = self(t[1])
            if t[2] < 0:
                self.partial.append(("nonzero", base, self.guard))
            return base ** t[2]
        if op == "call":
            name, args = t[1], [self(a) for a in t[2]]
            if name == "dot":
                return self._dot(args[0], args[1])
            if name == "norm2":
                return self._dot(args[0], args[0])
            if name == "norm":
                return sympy.sqrt(self._dot(args[0], args[0]))
            if name == "sqrt":
                self.partial.append(("nonneg", args[0], ()))
                return sympy.sqrt(args[0])
            if name == "abs":
                return sympy.Abs(args[0])
            if name == "sign":
                return sympy.sign(args[0])
            if name == "min":
                return sympy.Min(*args)
            if name == "max":
                return sympy.Max(*args)
            if name == "exp":
                return sympy.exp(args[0])
            if name == "diff":
                return sympy.diff(args[0], args[1])
            if name == "cat":
                return _mk(args[0].d(), args[0].extra + (args[1],))
            if name in ("ceil", "floor"):
                return (sympy.ceiling if name == "ceil" else sympy.floor)(args[0])
            raise Unsupported(f"{name}() has no symbolic form")
        raise Unsupported(f"{op} in a symbolic step")

    def _scale(self, c, v: _SymVec):
        return _mk({k: sympy.expand(c * x) for k, x in v.coef}, tuple(c * x for x in v.extra))

    def _dot(self, a: _SymVec, b: _SymVec):
        if len(a.extra) != len(b.extra):
            raise Unsupported("dot of vectors of different lengths")
        s = sympy.Integer(0)
        for (ka, ca), (kb, cb) in itertools.product(a.coef, b.coef):
            s += ca * cb * _gram(ka, kb)
        for x, y in zip(a.extra, b.extra):
            s += x * y
        return sympy.expand(s)


def _relations(tree, conv):
    """[(lhs, op, rhs)] of a (chained) comparison, or of an 'and' of comparisons; an 'or' or a
    'not' is one item of its own, ("or", (alternatives, each a list of items)) or ("not", items)."""
    if tree[0] == "and":
        out = []
        for t in tree[1]:
            out += _relations(t, conv)
        return out
    if tree[0] == "or":  # an alternative is reached where each before it is false (_ToSympy.guard)
        alts, outer = [], conv.guard
        for t in tree[1]:
            alts.append(_relations(t, conv))
            conv.guard += (("not", alts[-1]),)
        conv.guard = outer
        return [("or", tuple(alts))]
    if tree[0] == "not":
        return [("not", _relations(tree[1], conv))]
    if tree[0] != "cmp":
        raise Unsupported("a step must be a comparison")
    vals = [conv(p) for p in tree[2]]
    if any(isinstance(v, _SymVec) for v in vals):
        raise Unsupported("compare vectors through dot/norm2")
    return [(a, o, b) for a, o, b in zip(vals, tree[1], vals[1:])]


def _gram_axioms(z3, conv: ToZ3, vectors):
    """Every principal minor of the Gram matrix of the vectors is >= 0."""
    vs = sorted(vectors)
    return [conv(_minor(sub)) >= 0 for r in range(1, min(len(vs), 4) + 1) for sub in itertools.combinations(vs, r)]


@functools.lru_cache(maxsize=None)
def _minor(names: tuple):
    """The determinant of the Gram matrix of the named vectors, expanded (the same in every case
    of a batch: computed once)."""
    return sympy.expand(sympy.Matrix([[_gram(a, b) for b in names] for a in names]).det())


# ------------------------------------------------------------------ the checker

def _symbolic_child(vectors, scalars, cases, timeout, confirm, conn):
    try:
        conn.send(("ok", [_check_all(vectors, scalars, hyps, steps, timeout, confirm) for hyps, steps in cases]))
    finally:
        close_server()
    conn.close()


def check_symbolic(vectors, scalars, hyps, steps, timeout=Z3_TIMEOUT, limit=CLAIM_LIMIT) -> list[StepResult]:
    """Check each step given the hypotheses; one StepResult per written step.  The work runs
    in a child process under a hard time limit and _child.CHILD_MEMORY; past either every step
    is unknown, "limit reached"."""
    return check_cases(vectors, scalars, [(hyps, steps)], timeout, limit)[0]


def check_cases(vectors, scalars, cases, timeout=Z3_TIMEOUT, limit=CLAIM_LIMIT, confirm=True) -> list[list[StepResult]]:
    """check_symbolic of each (hypotheses, steps) of ``cases``, all in one child process with one
    z3 server (starting them costs about 0.2 s, more than most cases take), under one hard limit
    ``limit``: past it every step of every case is unknown, "limit reached".  ``confirm`` False:
    only a proof is wanted, and a model is not re-checked (the step is unknown)."""
    import z3  # noqa: F401 - loaded here (sympy is, at import): every forked child shares both

    out: list = [None] * len(cases)
    for i, (hyps, steps) in enumerate(cases):
        big = {st.source: n for st in list(hyps) + list(steps) if (n := expansion_terms(st.tree)) > MAX_EXPANSION_TERMS}
        if big:  # refused at once, with the limit named, rather than expanded until the hard limit kills it
            what = "; ".join(f"{src[:60]} would expand to more than {MAX_EXPANSION_TERMS:,} terms" for src in big)
            out[i] = [StepResult(st.source, Verdict.UNKNOWN, "sympy/z3",
                                 f"limit reached: {what} (verify.symbolic.steps.MAX_EXPANSION_TERMS)") for st in steps]
    todo = [i for i in range(len(cases)) if out[i] is None]
    if not todo:
        return out
    got = run_in_child(_symbolic_child, (vectors, scalars, [cases[i] for i in todo], timeout, confirm), limit, daemon=False)
    if got is not None and got[0] == "ok":
        for i, res in zip(todo, got[1]):
            out[i] = res
        return out
    why = got[1] if got is not None else f"killed at the hard limit of {limit:.0f} s (verify.symbolic.steps.CLAIM_LIMIT)"
    for i in todo:
        out[i] = [StepResult(st.source, Verdict.UNKNOWN, "sympy/z3", f"limit reached: {why}") for st in cases[i][1]]
    return out


def check_first(vectors, scalars, groups, timeout=Z3_TIMEOUT, limit=CLAIM_LIMIT) -> list:
    """For each group of alternatives (each a list of (hypotheses, steps) cases), the first whose
    every step is proved: (its index, its results), or None; the later alternatives of a group are
    checked only where the earlier fail.  Only a proof is wanted (a model is not re-checked); all
    in one child process, under one hard limit (past it: None for every group not yet decided)."""
    import z3  # noqa: F401 - loaded here: every forked child shares it

    got = run_in_child(_first_child, (vectors, scalars, groups, timeout), limit, daemon=False)
    return got[1] if got is not None and got[0] == "ok" else [None] * len(groups)


def _first_child(vectors, scalars, groups, timeout, conn):
    try:
        out = []
        for group in groups:
            out.append(None)
            for j, cases in enumerate(group):
                if any(expansion_terms(st.tree) > MAX_EXPANSION_TERMS for hyps, steps in cases for st in [*hyps, *steps]):
                    continue  # refused: past MAX_EXPANSION_TERMS
                res = []
                for hyps, steps in cases:  # (a case not proved ends the alternative: the rest is not wanted)
                    res.append(_check_all(vectors, scalars, hyps, steps, timeout, False))
                    if any(r.verdict != Verdict.PROVED for r in res[-1]):
                        break
                if cases and len(res) == len(cases) and all(r.verdict == Verdict.PROVED for r in res[-1]):
                    out[-1] = (j, res)
                    break
        conn.send(("ok", out))
    finally:
        close_server()
    conn.close()


def _check_all(vectors, scalars, hyps, steps, timeout, confirm=True) -> list[StepResult]:
    import z3

    conv = _ToSympy(vectors, scalars)
    results = []
    try:
        hyp_rels = [r for h in hyps for r in _relations(h.tree, conv)]
    except Unsupported as e:
        return [StepResult(s.source, Verdict.UNKNOWN, "unsupported", f"hypotheses: {e}") for s in steps]
    for st in steps:
        t0 = time.perf_counter()
        try:
            n = len(conv.partial)
            rels = _relations(st.tree, conv)
            res = _check_step(z3, vectors, hyp_rels, rels, timeout, conv.partial[n:], confirm)
        except Unsupported as e:
            res = StepResult("", Verdict.UNKNOWN, "unsupported", str(e))
        res.step = st.source
        res.seconds = time.perf_counter() - t0
        results.append(res)
    return results


def _check_step(z3, vectors, hyp_rels, rels, timeout, partial=(), confirm=True) -> StepResult:
    """The step's relations ``rels`` given the hypotheses', the step's ``partial`` operations
    (_ToSympy) first shown defined wherever they are reached."""
    # 1. sympy: identities and constant comparisons; where a division or a root is not defined
    # for every value of its symbols, the evaluator has no value, so an identity of sympy's (which
    # rewrites sqrt(-y**2) as I |y|, and cancels x in x y / x) is no proof there: z3 shows each
    # defined from the hypotheses first (1 + exp(-s) is positive; y - 1 may be 0)
    partial = [p for p in partial if (p[1].is_nonzero if p[0] == "nonzero" else p[1].is_nonnegative) is not True]
    pending = []
    for item in rels:
        if partial or len(item) != 3:  # a root, a norm or a quotient: z3 shows it defined first; or, not: z3 decides
            pending.append(item)
            continue
        a, o, b = item
        d = sympy.simplify(a - b)
        if d == 0 and o in ("==", "<=", ">="):
            continue
        if d.is_number:
            ok = {"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0, "==": d == 0, "!=": d != 0}[o]
            if bool(ok):
                continue
            return StepResult("", Verdict.REFUTED, "sympy", f"{a} {o} {b} is false: the difference is {d}")
        pending.append((a, o, b))
    if not pending:
        return StepResult("", Verdict.PROVED, "sympy", "identity")
    # 2. z3 over the Gram abstraction
    conv = ToZ3(z3)
    hyps = [_z3_of(z3, conv, item) for item in hyp_rels]
    # the hypotheses hold, so their roots and divisors are defined; the step's own are shown below
    given = len(conv.defs)
    read = [(p[1], "==", sympy.Integer(0)) for p in partial] + [g for p in partial for g in p[2]]
    axioms = _gram_axioms(z3, conv, _vectors_in(vectors, hyp_rels + pending + read))
    # side conditions of the step: roots of non-negatives, divisions by non-zeros where reached,
    # each shown from the hypotheses and the definitions of the roots inside it (never its own)
    for kind, expr, guard in partial:
        before = len(conv.defs)
        term = conv(expr)
        reached = [_z3_of(z3, conv, g) for g in guard]
        r, _ = z3_check(hyps + axioms + conv.defs[:given] + conv.defs[before:] + reached
                        + [term == 0 if kind == "nonzero" else term < 0], timeout)
        if r != "unsat":
            why = f"the divisor {expr} is non-zero" if kind == "nonzero" else f"sqrt({expr}) is defined (its argument >= 0)"
            return StepResult("", Verdict.UNKNOWN, "z3", f"cannot show {why}{' where it is reached' if guard else ''}: {r}")
    goals = [_z3_of(z3, conv, item) for item in pending]
    base = hyps + axioms + conv.defs
    r, model = z3_check(base + [z3.Not(z3.And(*goals))], timeout)
    if r == "unsat":
        return StepResult("", Verdict.PROVED, "z3 (nonlinear real arithmetic over the Gram abstraction)")
    if r != "sat":
        return StepResult("", Verdict.UNKNOWN, "z3", f"z3 said {r} {model}".strip())
    if not confirm or any(len(item) != 3 for item in hyp_rels + pending):
        return StepResult("", Verdict.UNKNOWN, "z3", "z3 found a model (not re-checked: only a proof was asked for, "
                                                     "or the step has an or or a not)")
    return _confirm(model, vectors, hyp_rels, pending)


def _z3_of(z3, conv, item):
    """An item of _relations as a z3 formula."""
    if len(item) == 3:
        return relation(z3, conv(item[0]), item[1], conv(item[2]))
    if item[0] == "or":
        return z3.Or(*[z3.And(*[_z3_of(z3, conv, i) for i in alt]) for alt in item[1]])
    return z3.Not(z3.And(*[_z3_of(z3, conv, i) for i in item[1]]))


def _flat(items):
    """The comparisons of _relations items, inside an or or a not too."""
    for item in items:
        if len(item) == 3:
            yield item
        else:
            for alt in (item[1] if item[0] == "or" else [item[1]]):
                yield from _flat(alt)


def _vectors_in(vectors, rels):
    used = set()
    for a, _, b in _flat(rels):
        for e in (a, b):
            for s in e.free_symbols:
                if s.name.startswith("<"):
                    used.update(s.name[1:-1].split(","))
    return sorted(used & set(vectors))


def _confirm(model, vectors, hyp_rels, pending) -> StepResult:
    """Re-check a z3 model exactly; only a confirmed model is a counterexample."""
    subs = {}
    for name, v in model.items():
        if name.startswith("sqrt_"):
            continue
        if v[0] != "q":
            return StepResult("", Verdict.UNKNOWN, "z3", f"z3's counterexample has an irrational value ({name} ~ {v[1]}); not confirmed exactly")
        subs[sympy.Symbol(name, real=True)] = sympy.Rational(v[1], v[2])
    free = set()
    for a, _, b in hyp_rels + pending:
        free |= a.free_symbols | b.free_symbols
    for s in free:
        subs.setdefault(s, sympy.Integer(0))  # unconstrained by z3: any value works; use 0

    def holds(a, o, b):
        return _holds_at((a, o, b), subs)

    if not all(holds(*h) for h in hyp_rels):
        return StepResult("", Verdict.UNKNOWN, "z3", "z3's model does not satisfy the hypotheses exactly; not confirmed")
    vs = _vectors_in(vectors, hyp_rels + pending)
    G = sympy.Matrix([[subs.get(_gram(a, b), 0) for b in vs] for a in vs]) if vs else sympy.Matrix([])
    for r in range(1, len(vs) + 1):
        for sub in itertools.combinations(range(len(vs)), r):
            if G.extract(list(sub), list(sub)).det() < 0:
                return StepResult("", Verdict.UNKNOWN, "z3", "z3's inner products are not realisable by vectors; not confirmed")
    failing = [(a, o, b) for a, o, b in pending if holds(a, o, b) is False]
    if not failing:
        return StepResult("", Verdict.UNKNOWN, "z3", "z3's model does not violate the step exactly; not confirmed")
    a, o, b = failing[0]
    ce = {str(k): str(v) for k, v in sorted(subs.items(), key=lambda kv: str(kv[0]))}
    la, lb = sympy.nsimplify(a.subs(subs)), sympy.nsimplify(b.subs(subs))
    detail = f"{a} {o} {b} fails: {la} {o} {lb} is false"
    if vs:
        got = _as_vectors(vs, G, subs, hyp_rels, (a, o, b))
        if isinstance(got, str):
            detail += f"; {got}"
        else:
            ce["vectors"] = got
            detail += "; at the vectors " + ", ".join(f"{k} = ({', '.join(v)})" for k, v in got.items()) + \
                " (their inner products re-computed exactly)"
    return StepResult("", Verdict.REFUTED, "z3 model, confirmed exactly by sympy", detail, ce)


def _as_vectors(vs, G, subs, hyp_rels, failing):
    """The Gram model as rational vectors (verify.symbolic.vectors), with the hypotheses and the
    failing step re-checked on their inner products computed from the coordinates; or why not."""
    from fractions import Fraction

    from verify.symbolic.vectors import NotRealisable, realise

    try:
        vecs = realise([[Fraction(int(sympy.fraction(x)[0]), int(sympy.fraction(x)[1])) for x in row]
                        for row in G.tolist()])
    except NotRealisable as e:
        return f"no vectors given: {e}"
    again = dict(subs)
    for i, a in enumerate(vs):
        for j, b in enumerate(vs):
            ip = sum(p * q for p, q in zip(vecs[i], vecs[j]))
            again[_gram(a, b)] = sympy.Rational(ip.numerator, ip.denominator)
    if not all(_holds_at(h, again) for h in hyp_rels) or _holds_at(failing, again) is not False:
        raise AssertionError("realised vectors do not reproduce the model")  # a bug, never a verdict
    return {a: [str(c) for c in vecs[i]] for i, a in enumerate(vs)}


def _holds_at(rel, subs):
    """A relation's truth with ``subs`` for its symbols; None when it is not a number."""
    a, o, b = rel
    d = sympy.nsimplify(sympy.simplify((a - b).subs(subs)))
    return bool({"<": d < 0, "<=": d <= 0, ">": d > 0, ">=": d >= 0, "==": d == 0, "!=": d != 0}[o]) if d.is_number else None


# ------------------------------------------------------------------ a claim at given values

def check_at(vectors, scalars, hyps, steps, values: dict) -> list:
    """Every hypothesis and step of a symbolic claim evaluated exactly at given values (the
    replay of a refuted step): ``values`` maps each vector to a tuple of Fractions (one
    dimension for all) and each scalar to a Fraction.  Returns [(kind, source, relation, lhs,
    rhs, holds)], kind "hypothesis" or "step", one entry per link of a chain; raises
    ValueError naming a missing, extra or mis-sized value."""
    missing = [n for n in list(vectors) + list(scalars) if n not in values]
    if missing:
        raise ValueError(f"no value given for {', '.join(missing)}")
    extra = [n for n in values if n not in vectors and n not in scalars]
    if extra:
        raise ValueError(f"{', '.join(extra)} is not a vector or scalar of the claim")
    dims = {len(values[v]) for v in vectors if isinstance(values[v], tuple)}
    if any(not isinstance(values[v], tuple) for v in vectors) or len(dims) > 1:
        raise ValueError("every vector needs coordinates (a,b,...), all of one dimension")
    subs = {sympy.Symbol(s, real=True): sympy.Rational(values[s].numerator, values[s].denominator) for s in scalars}
    for a in vectors:
        for b in vectors:
            ip = sum(p * q for p, q in zip(values[a], values[b]))
            subs[_gram(a, b)] = sympy.Rational(ip.numerator, ip.denominator)
    conv = _ToSympy(vectors, scalars)
    out = []
    for kind, items in (("hypothesis", hyps), ("step", steps)):
        for st in items:
            try:
                rels = _relations(st.tree, conv)
            except Unsupported as e:
                raise ValueError(f"{st.source}: {e}") from None
            if any(len(item) != 3 for item in rels):
                raise ValueError(f"{st.source}: an or or a not is not evaluated at values")
            for a, o, b in rels:
                la, lb = sympy.nsimplify(a.subs(subs)), sympy.nsimplify(b.subs(subs))
                out.append((kind, st.source, f"{a} {o} {b}", la, lb, _holds_at((a, o, b), subs)))
    return out


def values_of(counterexample: dict, vectors, scalars) -> dict | None:
    """The concrete values of a refuted step's counterexample, every vector and scalar of the
    claim given (those the model leaves free: 0, as the exact confirmation took them); None when
    the model's inner products were not realised as vectors."""
    got = counterexample.get("vectors") or {}
    if any(k.startswith("<") for k in counterexample) and not got:
        return None
    dim = len(next(iter(got.values()))) if got else 1
    vals = {v: tuple(got.get(v, ["0"] * dim)) for v in vectors}
    vals.update({s: counterexample.get(s, "0") for s in scalars})
    return vals
