"""The arithmetic of the z3 search: a claim's numbers as num/den * sqrt(rad) over z3 integer
terms (Rad), their algebra with the side conditions a division or a square root needs (Algebra),
and a claim's expression translated into it (Translator)."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["Algebra", "Rad", "Translator", "Unsupported"]


class Unsupported(Exception):
    pass


# --------------------------------------------------------------------------- num/den * sqrt(rad)

def _is_one(e):
    return isinstance(e, int) and e == 1


class Rad:
    """num/den * sqrt(rad): num, den, rad are Python ints or z3 integer terms; den != 0 and
    rad >= 0 are side conditions the translator records."""

    __slots__ = ("n", "d", "r")

    def __init__(self, n, d=1, r=1):
        self.n, self.d, self.r = n, d, r


def _same(a, b):
    if isinstance(a, int) or isinstance(b, int):
        return isinstance(a, int) and isinstance(b, int) and a == b
    return a.eq(b)


def _mul(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    if isinstance(a, int) and a == 0 or isinstance(b, int) and b == 0:
        return 0
    return a * b


def _add(a, b):
    if isinstance(a, int) and a == 0:
        return b
    if isinstance(b, int) and b == 0:
        return a
    return a + b


class Algebra:
    def __init__(self, z3):
        self.z3 = z3
        self.side = []  # side conditions (den != 0, rad >= 0, floor definitions)
        self.fresh = 0
        self.positive = set()  # ids of terms known to be > 0 (the formula says so)

    def known_positive(self, e):
        if isinstance(e, int):
            return e > 0
        return e.get_id() in self.positive

    def pmul(self, a, b):
        """a * b, registered as positive when both factors are."""
        out = _mul(a, b)
        if self.known_positive(a) and self.known_positive(b) and not isinstance(out, int):
            self.positive.add(out.get_id())
        return out

    def const(self, f):
        f = Fraction(f)
        return Rad(f.numerator, f.denominator, 1)

    def neg(self, a):
        return Rad(_mul(-1, a.n), a.d, a.r)

    def mul(self, a, b):
        if _same(a.r, b.r):  # sqrt(r)^2 = r
            return Rad(_mul(_mul(a.n, b.n), a.r), self.pmul(a.d, b.d), 1)
        return Rad(_mul(a.n, b.n), self.pmul(a.d, b.d), self.pmul(a.r, b.r))

    def inv(self, a):
        # 1 / (n/d sqrt r) = d sqrt(r) / (n r)
        self._nonzero(a.n)
        self._nonzero(a.r)
        return Rad(a.d, self.pmul(a.n, a.r), a.r) if not _is_one(a.r) else Rad(a.d, a.n, 1)

    def div(self, a, b):
        return self.mul(a, self.inv(b))

    def add(self, a, b):
        if not _same(a.r, b.r):
            if isinstance(a.n, int) and a.n == 0:
                return b
            if isinstance(b.n, int) and b.n == 0:
                return a
            raise Unsupported("a sum of square roots of different quantities has no polynomial form here")
        if _same(a.d, b.d):
            return Rad(_add(a.n, b.n), a.d, a.r)
        return Rad(_add(_mul(a.n, b.d), _mul(b.n, a.d)), self.pmul(a.d, b.d), a.r)

    def sub(self, a, b):
        return self.add(a, self.neg(b))

    def sqrt(self, a):
        if not _is_one(a.r):
            raise Unsupported("a square root of a square root has no polynomial form here")
        # sqrt(n/d) = sqrt(n d) / d, defined for n d >= 0
        nd = _mul(a.n, a.d)
        self._nonneg(nd)
        return Rad(1, a.d, nd)

    def pow(self, a, e):
        if e < 0:
            return self.inv(self.pow(a, -e))
        out = Rad(1, 1, 1)
        for _ in range(e):
            out = self.mul(out, a)
        return out

    def _nonzero(self, e):
        if isinstance(e, int):
            if e == 0:
                raise Unsupported("division by zero")
        else:
            self.side.append(e != 0)

    def _nonneg(self, e):
        if isinstance(e, int):
            if e < 0:
                raise Unsupported("square root of a negative number")
        else:
            self.side.append(e >= 0)

    def term(self, e):
        return self.z3.IntVal(e) if isinstance(e, int) else e

    def le(self, a, b):
        """a <= b, polynomial: multiply both sides by d_a^2 d_b^2 > 0, then compare
        A sqrt(r) with B sqrt(s) by their signs and squares."""
        z3 = self.z3
        self._nonzero(a.d)
        self._nonzero(b.d)
        if self.known_positive(a.d) and self.known_positive(b.d):  # multiply by d_a d_b > 0
            A, B = _mul(a.n, b.d), _mul(b.n, a.d)
        else:
            A = _mul(_mul(a.n, a.d), _mul(b.d, b.d))
            B = _mul(_mul(b.n, b.d), _mul(a.d, a.d))
        if _same(a.r, b.r):
            if _is_one(a.r) or self.known_positive(a.r):
                return self._cmp(A, B)
            return z3.Or(self.term(a.r) == 0, self._cmp(A, B))
        A, B = self.term(A), self.term(B)
        ra, rb = self.term(a.r), self.term(b.r)
        zero_a = z3.BoolVal(False) if self.known_positive(a.r) else ra == 0
        zero_b = z3.BoolVal(False) if self.known_positive(b.r) else rb == 0
        neg_a, pos_a = z3.Or(A <= 0, zero_a), z3.Or(A >= 0, zero_a)
        neg_b, pos_b = z3.Or(B <= 0, zero_b), z3.Or(B >= 0, zero_b)
        sa, sb = A * A * ra, B * B * rb
        return z3.Or(z3.And(neg_a, pos_b), z3.And(pos_a, pos_b, sa <= sb), z3.And(neg_a, neg_b, sa >= sb))

    def _cmp(self, A, B):
        if isinstance(A, int) and isinstance(B, int):
            return self.z3.BoolVal(A <= B)
        return self.term(A) <= self.term(B)

    def ite(self, c, a, b):
        z3 = self.z3
        return Rad(z3.If(c, self.term(a.n), self.term(b.n)), z3.If(c, self.term(a.d), self.term(b.d)),
                   z3.If(c, self.term(a.r), self.term(b.r)))

    def floor(self, a, ceil=False):
        self.fresh += 1
        f = self.z3.Int(f"floor_{self.fresh}")
        fr = Rad(f, 1, 1)
        if ceil:  # f - 1 < a <= f
            self.side += [self.z3.Not(self.le(a, self.sub(fr, Rad(1)))), self.le(a, fr)]
        else:  # f <= a < f + 1
            self.side += [self.le(fr, a), self.z3.Not(self.le(self.add(fr, Rad(1)), a))]
        return fr


# --------------------------------------------------------------------------- the claim

class Translator:
    """Claim tree -> z3 booleans and Rad values (vectors are lists of Rad)."""

    def __init__(self, alg: Algebra, points):
        self.a, self.z3, self.points = alg, alg.z3, points

    def ev(self, t, env, prevs):
        a, z3 = self.a, self.z3
        op = t[0]
        if op == "num":
            return a.const(t[1])
        if op == "name":
            if t[1] not in env:
                raise Unsupported(f"{t[1]} is not encoded")
            return env[t[1]]
        if op == "neg":
            v = self.ev(t[1], env, prevs)
            return [a.neg(x) for x in v] if isinstance(v, list) else a.neg(v)
        if op == "not":
            return z3.Not(self.ev(t[1], env, prevs))
        if op == "bin":
            x, y, o = self.ev(t[2], env, prevs), self.ev(t[3], env, prevs), t[1]
            if isinstance(x, list) or isinstance(y, list):
                if o in "+-":
                    f = a.add if o == "+" else a.sub
                    return [f(p, q) for p, q in zip(x, y)]
                if o == "*":
                    return [a.mul(y, v) for v in x] if isinstance(x, list) else [a.mul(x, v) for v in y]
                if o == "/":
                    return [a.div(v, y) for v in x]
            return {"+": a.add, "-": a.sub, "*": a.mul, "/": a.div}[o](x, y)
        if op == "pow":
            return a.pow(self.ev(t[1], env, prevs), t[2])
        if op == "cmp":
            vals = [self.ev(p, env, prevs) for p in t[2]]
            parts = []
            for o, x, y in zip(t[1], vals, vals[1:]):
                if isinstance(x, list):
                    eq = z3.And(*[z3.And(a.le(p, q), a.le(q, p)) for p, q in zip(x, y)])
                    parts.append(eq if o == "==" else z3.Not(eq))
                    continue
                parts.append({"<=": lambda: a.le(x, y), ">=": lambda: a.le(y, x), "<": lambda: z3.Not(a.le(y, x)),
                              ">": lambda: z3.Not(a.le(x, y)), "==": lambda: z3.And(a.le(x, y), a.le(y, x)),
                              "!=": lambda: z3.Not(z3.And(a.le(x, y), a.le(y, x)))}[o]())
            return z3.And(*parts)
        if op == "and":
            return z3.And(*[self.ev(v, env, prevs) for v in t[1]])
        if op == "or":
            return z3.Or(*[self.ev(v, env, prevs) for v in t[1]])
        if op == "prev":
            j = t[2]
            if j not in prevs:
                raise Unsupported("prev beyond the run")
            return self.ev(t[1], prevs[j], {k - j: v for k, v in prevs.items() if k > j})
        if op == "agg":
            vals = [self.ev(t[2], {**env, **pe}, prevs) for pe in self.points]
            name = t[1]
            if name == "all_i":
                return z3.And(*vals)
            if name == "any_i":
                return z3.Or(*vals)
            if name == "sum_i":
                out = vals[0]
                for v in vals[1:]:
                    out = a.add(out, v)
                return out
            out = vals[0]
            for v in vals[1:]:
                out = a.ite(a.le(v, out) if name == "min_i" else a.le(out, v), v, out)
            return out
        if op == "call":
            return self.call(t[1], [self.ev(x, env, prevs) for x in t[2]])
        raise Unsupported(f"{op} is not encoded for z3")

    def call(self, name, args):
        """A function of the claim language on encoded values."""
        a, z3 = self.a, self.z3
        if name in ("dot", "norm2", "norm"):
            u, v = (args[0], args[1]) if name == "dot" else (args[0], args[0])
            s = Rad(0)
            for p, q in zip(u, v):
                s = a.add(s, a.mul(p, q))
            return a.sqrt(s) if name == "norm" else s
        if name == "sqrt":
            return a.sqrt(args[0])
        if name == "abs":
            return a.ite(a.le(Rad(0), args[0]), args[0], a.neg(args[0]))
        if name == "sign":
            x = args[0]
            return a.ite(z3.Not(a.le(x, Rad(0))), Rad(1), a.ite(z3.Not(a.le(Rad(0), x)), Rad(-1), Rad(0)))
        if name in ("min", "max"):
            out = args[0]
            for v in args[1:]:
                out = a.ite(a.le(v, out) if name == "min" else a.le(out, v), v, out)
            return out
        if name in ("floor", "ceil"):
            return a.floor(args[0], ceil=name == "ceil")
        if name == "vec":
            return args
        raise Unsupported("call is not encoded for z3")
