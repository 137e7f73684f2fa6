"""z3 for declared variants (perceptron.declared): the declaration's own expressions, unrolled
one update at a time into the polynomial encoding of verify.search.z3_engine.

Each state variable after an update is the translation of its update expression (num/den with
den a known integer: k, t and the parameters are constants at each unrolled step), its
numerators bound to fresh integer unknowns; the score, sign(0) rule and mistake condition are
the declaration's.  One problem per run setting (eta, sign(0), the declared parameters, each a
constant) and number of points; w0 = 0 and b0 = 0 (the domain must contain them).  A model is
a candidate only: verify.search.confirm replays it with the learner.
"""

from __future__ import annotations

from .z3_engine import Rad, Unsupported, _Problem

__all__ = ["DeclaredProblem"]


class DeclaredProblem(_Problem):
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
