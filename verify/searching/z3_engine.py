"""The z3 engine: a dataset, its separator and a run as one formula over integers, in
polynomial form.

Unknowns: the points (integers in the box) and labels, an unnormalised integer separator v (and
c) with its integer margin m = min_i y_i (v.x_i + c), and the point taken at each update.
Every quantity of a claim is kept as num/den * sqrt(rad) with num, den, rad integer
polynomials (gamma = m/|v| is m sqrt(v.v)/(v.v), R = sqrt(R2), w_opt = v sqrt(v.v)/(v.v)), and
each comparison is decided by signs and squared sides (a sqrt(r) <= b sqrt(s) becomes sign
cases and a^2 r <= b^2 s), so no root or real number reaches the solver.  A claim that adds
square roots of different quantities is not encodable this way (``unsupported``).

The run is unrolled one update at a time on one incremental solver per number of points: the
claim's failure at update t is pushed, checked under a time slice, popped; the slices grow
(0.25 s, 1 s, 4 s, ...) until the deadline, so a length that z3 cannot settle quickly does not
block a longer one.  Symmetry breaking: with ``order any`` the points are sorted
lexicographically (a run may take them in any order).  Encoded: eta = 1 and w0 = 0 (the domain
must contain them), the ``yx`` update, orders any and first, integer boxes (not the unit circle).
Declared variants (DeclaredProblem): their own score, mistake condition and updates, in each run
setting of the domain.

Everything runs in one fresh child process killed at the deadline (z3's own time limits are
soft on nonlinear problems).  A model is only a candidate: it is replayed exactly
(verify.searching.confirm), with the separator the domain assigns to its dataset, before it is
believed.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction

from perceptron.variants import VARIANTS
from verify._child import run_in_child
from verify.language.assumptions import NONTRIVIAL, STRICT_MARGIN
from verify.searching.z3_algebra import Algebra, Rad, Translator, Unsupported

__all__ = ["z3_search", "SLICES"]

#: Time slices of one check (seconds), in passes: every length is tried with the first, then
#: with the next, and so on; the last repeats until the deadline.
SLICES = (0.25, 1.0, 4.0, 16.0)


# --------------------------------------------------------------------------- the formula

class _Assertions:
    """The base formula, and each unrolled update's constraints apart (a check at length t
    takes the base and the first t updates only)."""

    def __init__(self):
        self.base, self.steps = [], []
        self.step = None  # the update being unrolled

    def add(self, *fs):
        (self.base if self.step is None else self.step).extend(fs)


def _rad(v):
    return v if isinstance(v, Rad) else Rad(v)


def _signed(z3, y, e):
    """y * e for a label y in {-1, 1}, written as a case split so that the product of two
    unknowns (nonlinear for the solver) does not appear."""
    if z3.is_int_value(y):
        return e if y.as_long() == 1 else -e
    return z3.If(y == 1, e, -e)


def _lex_le(z3, a, b):
    out = z3.BoolVal(True)
    for p, q in reversed(list(zip(a, b))):
        out = z3.Or(p < q, z3.And(p == q, out))
    return out


class _Problem:
    """The base formula for n points, and the claim's failure at each length."""

    def __init__(self, claim, dom, n, fold, tie, var=None):
        import z3

        from verify.searching.domain import needs_separator

        self.z3 = z3
        var = var or VARIANTS[dom.variant]
        bias = var.bias is not None
        self.claim, self.dom, self.n, self.tie, self.bias = claim, dom, n, tie, bias
        d, B = dom.dim, dom.box
        s = self.s = _Assertions()
        X = self.X = [[z3.Int(f"x_{i}_{j}") for j in range(d)] for i in range(n)]
        Y = self.Y = [z3.IntVal(1) if fold else z3.Int(f"y_{i}") for i in range(n)]
        for i in range(n):
            if not fold:
                s.add(z3.Or(Y[i] == 1, Y[i] == -1))
            for j in range(d):
                s.add(X[i][j] >= -B, X[i][j] <= B)
        if dom.order == "any":  # points in lexicographic order: any run of a permutation is a run of this one
            for i in range(n - 1):
                s.add(_lex_le(z3, X[i] + ([] if fold else [Y[i]]), X[i + 1] + ([] if fold else [Y[i + 1]])))
        n2 = [z3.Sum([v * v for v in X[i]]) for i in range(n)]
        R2 = self.R2 = z3.Int("R2")
        s.add(*[R2 >= q for q in n2], z3.Or(*[R2 == q for q in n2]), R2 > 0)  # not all points zero, as in D
        if NONTRIVIAL in claim.assume:
            s.add(z3.Or(*[y == 1 for y in Y]), z3.Or(*[y == -1 for y in Y]))
        self.alg = Algebra(z3)
        self.alg.positive.add(R2.get_id())
        base = {"R2": Rad(R2), "R": Rad(1, 1, R2), "eta": Rad(1), "n": Rad(n), "d": Rad(d), "w0": [Rad(0)] * d,
                "sign0": Rad(tie)}
        names = set(claim.compiled.names)
        if names & {"v_opt", "c_opt", "m_opt"}:
            raise Unsupported("v_opt, c_opt, m_opt depend on the scale of the integer separator")
        self.V = self.C = None
        if needs_separator(claim):
            V = self.V = [z3.Int(f"v_{j}") for j in range(d)]
            C = self.C = z3.Int("c") if bias else z3.IntVal(0)
            S = dom.sep_box
            s.add(*[z3.And(v >= -S, v <= S) for v in V], z3.Or(*[v != 0 for v in V]))
            if bias:
                s.add(C >= -S, C <= S)
            margins = [_signed(z3, Y[i], z3.Sum([V[j] * X[i][j] for j in range(d)]) + C) for i in range(n)]
            m = z3.Int("margin")
            s.add(*[m <= q for q in margins], z3.Or(*[m == q for q in margins]), m > 0)
            V2 = z3.Int("vv")
            s.add(V2 == z3.Sum([v * v for v in V]), V2 > 0)
            self.alg.positive.add(V2.get_id())
            w_opt = [Rad(v, V2, V2) for v in V]
            b_opt = Rad(C, V2, V2)
            gamma = Rad(m, V2, V2)
            if STRICT_MARGIN in claim.assume:
                gamma = Rad(m * (2**32 - 1), V2 * 2**32, V2)
            base.update({"w_opt": w_opt, "b_opt": b_opt, "gamma": gamma, "separable": Rad(1),
                         "w_hat_opt": w_opt + [self.alg.div(b_opt, base["R"])]})
        self.base = base
        self.points = [{"x": [Rad(v) for v in X[i]], "y": Rad(Y[i]), "x_hat": [Rad(v) for v in X[i]] + [base["R"]]}
                       for i in range(n)]
        self.tr = Translator(self.alg, self.points)
        self.step_b = var.bias_scale(lambda: R2, z3.IntVal(1))
        self.W = [[z3.IntVal(0)] * d]
        self.Bs = [z3.IntVal(0)]
        self.SS = [z3.IntVal(0)]
        self.steps = []
        self.unsat = set()  # lengths z3 proved impossible
        self._inc, self._acts, self._model = None, [], None  # the incremental solver, its update literals

    def _score(self, w, b, x):
        z3 = self.z3
        return z3.Sum([p * q for p, q in zip(w, x)]) + (b if self.bias else 0)

    def _mistake(self, score, y):
        z3 = self.z3
        return z3.Or(_signed(z3, y, score) < 0, z3.And(score == 0, z3.IntVal(self.tie) != y))

    def add_step(self):
        """Unroll one more update (every run checked at length t has at least t updates)."""
        z3, s, n, d = self.z3, self.s, self.n, self.dom.dim
        t = len(self.steps) + 1
        s.step = []
        c = z3.Int(f"c_{t}")
        s.add(c >= 0, c < n)
        xs = [z3.Int(f"xs_{t}_{j}") for j in range(d)]
        ys = z3.Int(f"ys_{t}")
        s.add(z3.Or(*[z3.And(c == i, ys == self.Y[i], *[xs[j] == self.X[i][j] for j in range(d)]) for i in range(n)]))
        w, b = self.W[-1], self.Bs[-1]
        score = z3.Int(f"score_{t}")
        s.add(score == self._score(w, b, xs))
        s.add(self._mistake(score, ys))
        if self.dom.order == "first":
            for i in range(n):
                s.add(z3.Implies(i < c, z3.Not(self._mistake(self._score(w, b, self.X[i]), self.Y[i]))))
        wn = [z3.Int(f"w_{t}_{j}") for j in range(d)]
        s.add(*[wn[j] == w[j] + _signed(z3, ys, xs[j]) for j in range(d)])
        if self.step_b is not None:
            bn = z3.Int(f"b_{t}")
            s.add(bn == b + _signed(z3, ys, self.step_b))
        else:
            bn = z3.IntVal(0)
        ss = z3.Int(f"sumsq_{t}")
        s.add(ss == self.SS[-1] + z3.Sum([v * v for v in xs]))
        self.W.append(wn)
        self.Bs.append(bn)
        self.SS.append(ss)
        out = z3.If(score > 0, 1, z3.If(score < 0, -1, self.tie))
        s.steps.append(s.step)
        s.step = None
        self.steps.append({"c": c, "x": xs, "y": ys, "score": score, "out": out})

    def _state(self, t):
        return {**self.base, "w": [Rad(v) for v in self.W[t]], "b": Rad(self.Bs[t]), "k": Rad(t), "mistakes": Rad(t),
                "sumsq": Rad(self.SS[t]), "converged": Rad(1),
                "w_hat": [Rad(v) for v in self.W[t]] + [self.alg.div(Rad(self.Bs[t]), self.base["R"])]}

    def failure(self, t):
        """The claim's failure at length t (update claims: at the t-th update; end claims: the
        run converges after exactly t updates; dataset claims: t = 0), with its side conditions."""
        z3 = self.z3
        self.alg.side = []
        prevs = {j: self._state(t - j) for j in range(1, t + 1)}
        if self.claim.when == "dataset":
            env = dict(self.base)
        elif self.claim.when == "update":
            st = self.steps[t - 1]
            env = {**self._state(t), "x": [Rad(v) for v in st["x"]], "y": Rad(st["y"]), "score": _rad(st["score"]),
                   "i": Rad(st["c"]), "out": _rad(st["out"])}
            env["x_hat"] = env["x"] + [self.base["R"]]
        else:
            env = self._state(t)
        cond = self.tr.ev(self.claim.compiled.tree, env, prevs)
        goal = [z3.Not(cond), *self.alg.side]
        if self.claim.when == "end":
            goal += self._converged(t)
        return z3.And(*goal)

    def _converged(self, t):
        """No point is misclassified by the weights after t updates."""
        z3 = self.z3
        return [z3.Not(self._mistake(self._score(self.W[t], self.Bs[t], self.X[i]), self.Y[i])) for i in range(self.n)]

    def check(self, goal, t, seconds, incremental):
        """sat / unsat / unknown of the base formula, the first t updates and ``goal``.
        Incremental: one solver per number of points; update j's constraints are guarded by a
        literal, assumed for j <= t; the goal is pushed and popped."""
        z3 = self.z3
        if incremental:
            if self._inc is None:
                self._inc = z3.SolverFor("QF_NIA")
                self._inc.set("random_seed", 0)
                self._inc.add(*self.s.base)
            while len(self._acts) < len(self.s.steps):
                a = z3.Bool(f"update_{len(self._acts) + 1}")
                self._inc.add(z3.Implies(a, z3.And(*self.s.steps[len(self._acts)])))
                self._acts.append(a)
            solver = self._inc
            solver.push()
            solver.add(goal)
            solver.set("timeout", max(1, int(1000 * seconds)))
            r = solver.check(*self._acts[:t])
        else:
            solver = z3.SolverFor("QF_NIA")
            solver.set("random_seed", 0)
            solver.add(*self.s.base, *[f for st in self.s.steps[:t] for f in st], goal)
            solver.set("timeout", max(1, int(1000 * seconds)))
            r = solver.check()
        self._model = solver.model() if r == z3.sat else None
        if incremental:
            solver.pop()
        return r

    def block(self, cand):
        """Exclude a candidate dataset from later checks."""
        z3 = self.z3
        f = z3.Or(*[v != val for row, vals in zip(self.X, cand["X"]) for v, val in zip(row, vals)],
                  *[y != val for y, val in zip(self.Y, cand["Y"]) if z3.is_const(y) and not z3.is_int_value(y)])
        self.s.base.append(f)
        if self._inc is not None:
            self._inc.add(f)

    def model(self, t):
        m = self._model

        def val(e, default=0):
            v = m.eval(e, model_completion=True)
            return int(v.as_long()) if v is not None else default

        out = {"X": [[val(v) for v in row] for row in self.X], "Y": [val(v, 1) for v in self.Y],
               "path": [val(st["c"]) for st in self.steps[:t]]}
        if self.V is not None:
            out["V"] = [val(v) for v in self.V]
            out["C"] = val(self.C)
        return out


# --------------------------------------------------------------------------- declared variants

class DeclaredProblem(_Problem):
    """z3 for declared variants (perceptron.declared): the declaration's own expressions, unrolled
    one update at a time into the polynomial encoding of verify.searching.z3_engine.

    Each state variable after an update is the translation of its update expression (num/den with
    den a known integer: k, t and the parameters are constants at each unrolled step), its
    numerators bound to fresh integer unknowns; the score, sign(0) rule and mistake condition are
    the declaration's.  One problem per run setting (eta, sign(0), the declared parameters, each a
    constant) and number of points; w0 = 0 and b0 = 0 (the domain must contain them).  A model is
    a candidate only: verify.searching.confirm replays it with the learner."""

    def __init__(self, claim, dom, n, tie, decl, setting):
        eta, _, values = setting
        super().__init__(claim, dom, n, False, tie, var=decl)
        self.decl = decl
        a = self.alg
        consts = {"eta": a.const(eta), **{p: a.const(v) for p, v in values}}
        self.base.update(consts)
        init = {**self.base, "w0": [Rad(0)] * dom.dim, "b0": Rad(0)}
        self.S = [self._materialise({s: self.tr.ev(c.tree, init, {}) for s, c in decl.state}, 0)]

    def _materialise(self, values: dict, t: int) -> dict:
        """Each numerator a fresh integer unknown equal to it (the formula stays small as the run
        unrolls); denominators must be integers here."""
        z3, out = self.z3, {}
        for name, v in values.items():
            comps = v if isinstance(v, list) else [v]
            made = []
            for j, r in enumerate(comps):
                if not (isinstance(r.r, int) and r.r == 1):
                    raise Unsupported(f"the state {name} holds a square root")
                if not isinstance(r.d, int):
                    raise Unsupported(f"the state {name} has a denominator that depends on the data")
                if isinstance(r.n, int):
                    made.append(Rad(r.n, r.d))
                    continue
                u = z3.Int(f"s_{name}_{t}_{j}")
                self.s.add(u == r.n)
                made.append(Rad(u, r.d))
            out[name] = made if isinstance(v, list) else made[0]
        return out

    def _env(self, t):
        st = self.S[t]
        return {**self.base, **st, "b": st.get("b", Rad(0)), "k": Rad(t)}

    def _decide(self, env, x, y):
        """(score, out, mistake) of a point under the state of env."""
        a, z3 = self.alg, self.z3
        score = self.tr.ev(self.decl.score.tree, {**env, "x": x}, {})
        out = a.ite(z3.Not(a.le(score, Rad(0))), Rad(1), a.ite(z3.Not(a.le(Rad(0), score)), Rad(-1), Rad(self.tie)))
        mistake = self.tr.ev(self.decl.mistake.tree, {**env, "y": y, "score": score, "out": out}, {})
        return score, out, mistake

    def add_step(self):
        z3, s, n, d = self.z3, self.s, self.n, self.dom.dim
        t = len(self.steps) + 1
        s.step = []
        self.alg.side = []
        c = z3.Int(f"c_{t}")
        s.add(c >= 0, c < n)
        xs = [z3.Int(f"xs_{t}_{j}") for j in range(d)]
        ys = z3.Int(f"ys_{t}")
        s.add(z3.Or(*[z3.And(c == i, ys == self.Y[i], *[xs[j] == self.X[i][j] for j in range(d)]) for i in range(n)]))
        env = self._env(t - 1)
        x = [Rad(v) for v in xs]
        score, out, mistake = self._decide(env, x, Rad(ys))
        s.add(mistake)
        if self.dom.order == "first":
            for i in range(n):
                s.add(z3.Implies(i < c, z3.Not(self._decide(env, [Rad(v) for v in self.X[i]], Rad(self.Y[i]))[2])))
        step = {**env, "x": x, "y": Rad(ys), "score": score, "out": out, "t": Rad(t), "i": Rad(c)}
        new = {v: self.tr.ev(e.tree, step, {}) for v, e in self.decl.update}
        s.add(*self.alg.side)
        self.alg.side = []
        self.S.append({**self.S[-1], **self._materialise(new, t)})
        ss = z3.Int(f"sumsq_{t}")
        s.add(ss == self.SS[-1] + z3.Sum([v * v for v in xs]))
        self.SS.append(ss)
        s.steps.append(s.step)
        s.step = None
        self.steps.append({"c": c, "x": xs, "y": ys, "score": score, "out": out})

    def _state(self, t):
        env = {**self._env(t), "mistakes": Rad(t), "sumsq": Rad(self.SS[t]), "converged": Rad(1), "t": Rad(t),
               "epochs": Rad(t)}
        if self.claim.when == "end" and self.decl.outputs:  # a run of the learner's --order sequence: t = k
            env.update({o: self.tr.ev(c.tree, env, {}) for o, c in self.decl.outputs})
        return env

    def _converged(self, t):
        env = self._env(t)
        return [self.z3.Not(self._decide(env, [Rad(v) for v in self.X[i]], Rad(self.Y[i]))[2]) for i in range(self.n)]


def _confirmed(claim, dom, pb, cand, tie, eta, values):
    """z3's model replayed exactly: the Counterexample, or None (a model with no separator the
    domain assigns, or one the replay does not confirm)."""
    from verify.searching.confirm import candidate_run, confirm
    from verify.searching.domain import best_separator

    sep = None
    if pb.V is not None:
        sep = (cand["V"], cand["C"])
        if dom.separators == "best":  # the separator D assigns to this dataset
            sep = best_separator(cand["X"], cand["Y"], dom, pb.bias)
        if sep is None:
            return None
    run = candidate_run(dom.variant, cand["path"], sign0=tie, eta=eta, declared=values)
    return confirm(claim, cand["X"], cand["Y"], cand["path"], sep, run)


def _child(claim, dom, fold, tie, deadline, incremental, decl, settings, conn):
    """In the child: every number of points, every length, in passes of growing slices; the
    first model that survives replay is sent back.  A declared variant (``decl``) is searched
    in each of its run ``settings`` (eta, sign(0), parameter values)."""
    import z3

    from verify.searching.domain import first_length

    if decl is not None:  # a fresh interpreter: the declaration is registered here too
        from perceptron.declared import register

        register(decl)
    settings = settings or [(Fraction(1), tie, ())]

    min_t = first_length(claim)
    K = 0 if claim.when == "dataset" else dom.max_updates
    notes = []
    problems = {}
    # fewer points first, then shorter runs; pass p looks at datasets of at most p + 2 points, so a
    # small dataset z3 just missed is looked at again before the large ones get their first slice
    # (measured against every size in every pass and against points + updates first: both slower
    # on the planted bounds)
    order = [(si, n, t) for n in range(1, dom.points + 1) for si in range(len(settings)) for t in range(min_t, K + 1)]
    for p in itertools.count():
        slice_s = SLICES[min(p, len(SLICES) - 1)]
        settled = p + 2 >= dom.points
        for si, n, t in order:
            if n > p + 2:
                break
            eta, tie, values = settings[si]
            if (si, n) not in problems:
                try:
                    if decl is not None:
                        problems[si, n] = DeclaredProblem(claim, dom, n, tie, decl, settings[si])
                    else:
                        problems[si, n] = _Problem(claim, dom, n, fold, tie)
                except Unsupported as e:
                    conn.send(("unsupported", str(e)))
                    return
            pb = problems[si, n]
            if t in pb.unsat:
                continue
            while len(pb.steps) < t:
                pb.add_step()
            if claim.compiled.uses_prev > t:
                continue
            left = deadline - time.time()
            if left <= 0.05:
                conn.send(("unknown", "; ".join(notes + ["time limit reached"])))
                return
            try:
                goal = pb.failure(t)
            except Unsupported as e:
                conn.send(("unsupported", str(e)))
                return
            r = pb.check(goal, t, min(slice_s, left), incremental)
            if r == z3.sat:
                cand = pb.model(t)
                ce = _confirmed(claim, dom, pb, cand, tie, eta, values)
                if ce is not None:
                    ce = ce.with_found_by(f"z3 at {n} point(s), {t} update(s), slice {slice_s:g} s")
                    conn.send(("sat", ce))
                    return
                notes.append(f"{n} point(s), {t} update(s): z3's model did not survive exact replay")
                pb.block(cand)  # and look again at this length in a later pass
                settled = False
            elif r == z3.unsat:
                pb.unsat.add(t)
            else:
                settled = False
        if settled:
            conn.send(("unsat", f"no model at 1 to {dom.points} point(s), up to {K} update(s): z3 proved each "
                                f"length unsatisfiable (within its encoding: eta = 1, w0 = 0, sign(0) = {tie})"))
            return


def z3_search(claim, dom, deadline, incremental: bool = True, decl=None, settings=None):
    """(counterexample, None, False), or (None, reason, whether a time or memory limit stopped
    it).  ``deadline`` is a time.time() value.  ``incremental`` (the default): one solver per
    number of points, each update's constraints assumed through a literal and each length's goal
    pushed and popped; otherwise a fresh solver per check (benchmarks/bench_search.py measures
    both)."""
    from verify.searching.domain import label_symmetric

    if decl is not None:  # a declared variant: its own settings; w0 = 0, orders any and first
        if dom.w0_box:
            return None, "not encodable: initial weights other than 0 (w0 = 0, b0 = 0 only)", False
        if dom.order not in ("any", "first"):
            return None, f"not encodable: the {dom.order} order", False
        fold, tie = False, 0
    else:
        if Fraction(1) not in {Fraction(e) for e in dom.etas}:
            return None, "its encoding has eta = 1, w0 = 0, which this domain does not contain", False
        if dom.unit:
            return None, "not encodable: points on the unit circle", False
        if dom.order not in ("any", "first"):
            return None, f"not encodable: the {dom.order} order", False
        if "yx" not in dom.forms and VARIANTS[dom.variant].half_form:
            return None, "not encodable: the 1/2 (y - out) x update form", False
        var = VARIANTS[dom.variant]
        tie = var.tie if var.tie is not None else (0 if 0 in dom.sign0s else dom.sign0s[0])
        fold = label_symmetric(claim, dom.variant, tie)
    left = deadline - time.time()
    if left <= 0.2:
        return None, "time limit reached", True
    # A fresh interpreter: z3's term sharing (and so its search) depends on what the process
    # built before, and a forked child would inherit that; spawn keeps runs repeatable.
    got = run_in_child(_child, (claim, dom, fold, tie, deadline, incremental, decl, settings), left + 0.5,
                       method="spawn")
    if got is None:
        return None, f"killed at the hard time limit ({left:.1f} s)", True
    kind, what = got
    if kind == "sat":
        return what, None, False
    if kind == "unsupported":
        return None, f"not encodable: {what}", False
    return None, f"limit reached: {what}" if kind == "limit" else what, kind in ("limit", "unknown")
