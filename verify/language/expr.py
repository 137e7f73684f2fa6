"""Exact evaluation of the expression language (parsed and type-checked by
perceptron.expression) with the arithmetic of verify.numbers.exact."""

from __future__ import annotations

from fractions import Fraction

from perceptron.expression import MAX_PREV, Compiled, ExprError
from perceptron.expression import compile_expr as compile_with
from verify.language.quantities import TYPES
from verify.numbers import exact as X

__all__ = ["ExprError", "compile_expr", "evaluate", "Compiled", "MAX_PREV", "scalar_bin", "scalar_pow",
           "call_scalar", "minmax_scalar", "guard"]


def compile_expr(source: str, names: dict | None = None, symbolic: bool = False) -> Compiled:
    """Parse and type-check a claim expression (perceptron.expression.compile_expr) against the
    claim language's names (verify.language.quantities) unless ``names`` gives others."""
    return compile_with(source, TYPES if names is None else names, symbolic)


#: Bits of one exact value during evaluation (numerator and denominator; for a sum of square
#: roots, every term): a product or power past it stops with "unknown: limit reached".
MAX_EXACT_BITS = 1 << 18
#: Distinct square roots in one exact value: (sqrt(2) + ... + sqrt(71))**64 would have 2^20.
MAX_SURD_TERMS = 256


def guard(v):
    """Stop an exact value that outgrows MAX_EXACT_BITS or MAX_SURD_TERMS: the evaluation
    ends "unknown: limit reached" instead of filling memory."""
    if isinstance(v, Fraction):
        bits = v.numerator.bit_length() + v.denominator.bit_length()
    elif isinstance(v, X.Surd):
        if len(v.terms) > MAX_SURD_TERMS:
            raise X.ExactError(f"limit reached: a sum of more than {MAX_SURD_TERMS} square roots "
                               "(verify.language.expr.MAX_SURD_TERMS)")
        bits = sum(c.numerator.bit_length() + c.denominator.bit_length() + m.bit_length() for m, c in v.terms.items())
    elif isinstance(v, int):
        bits = v.bit_length()
    else:
        return v
    if bits > MAX_EXACT_BITS:
        raise X.ExactError(f"limit reached: an exact intermediate of {bits} bits exceeds {MAX_EXACT_BITS} "
                           "(verify.language.expr.MAX_EXACT_BITS)")
    return v



# ---------------------------------------------------------------------------- evaluation

class EvalError(ArithmeticError):
    """A value the environment cannot supply, or arithmetic outside the exact domain."""


_CACHED = frozenset(("bin", "call", "pow", "neg", "prev", "agg"))


def evaluate(tree: tuple, env) -> object:
    """Evaluate a compiled tree.  ``env`` supplies ``get(name)``, ``prev(j)`` (an env) and
    ``points()`` (envs with x, y bound to each point); an env with a ``cache`` dict gets
    subtree values memoised in it."""
    op = tree[0]
    cache = getattr(env, "cache", None)
    if cache is not None and op in _CACHED:
        key = id(tree)
        hit = cache.get(key, _MISS)
        if hit is not _MISS:
            return hit
        val = _evaluate(tree, env, op)
        cache[key] = val
        return val
    return _evaluate(tree, env, op)


_MISS = object()


def _evaluate(tree, env, op):
    if op == "num":
        return tree[1]
    if op == "name":
        return env.get(tree[1])
    if op == "neg":
        a = evaluate(tree[1], env)
        return X.vscale(-1, a) if isinstance(a, X.Vec) else X.neg(a)
    if op == "not":
        return not evaluate(tree[1], env)
    if op == "bin":
        return scalar_bin(tree[1], evaluate(tree[2], env), evaluate(tree[3], env))
    if op == "pow":
        return scalar_pow(evaluate(tree[1], env), tree[2])
    if op == "cmp":
        vals = [evaluate(p, env) for p in tree[2]]
        for o, a, b in zip(tree[1], vals, vals[1:]):
            if not cmp_scalar(o, a, b):
                return False
        return True
    if op == "if":
        return evaluate(tree[2] if evaluate(tree[1], env) else tree[3], env)
    if op == "and":
        return all(evaluate(v, env) for v in tree[1])
    if op == "or":
        return any(evaluate(v, env) for v in tree[1])
    if op == "prev":
        return evaluate(tree[1], env.prev(tree[2]))
    if op == "agg":
        name, sub = tree[1], tree[2]
        vals = (evaluate(sub, pe) for pe in env.points())
        if name == "all_i":
            return all(vals)
        if name == "any_i":
            return any(vals)
        vals = list(vals)
        if name == "sum_i":
            if vals and isinstance(vals[0], X.Vec):  # a sum of vectors
                s = vals[0]
                for v in vals[1:]:
                    s = scalar_bin("+", s, v)
                return s
            s = Fraction(0)
            for v in vals:
                s = X.add(s, v)
            return s
        return minmax_scalar(vals, name == "min_i")
    if op == "call":
        return call_scalar(tree[1], [evaluate(a, env) for a in tree[2]])
    raise EvalError(f"bad tree node {op!r}")


def scalar_bin(o: str, a, b):
    """a o b for exact scalars and vectors (o one of + - * /): the one definition both
    evaluators use (verify.language.columns applies it row by row where it cannot vectorise)."""
    if isinstance(a, X.Vec) or isinstance(b, X.Vec):
        if o == "+":
            return X.vadd(a, b)
        if o == "-":
            return X.vadd(a, b, -1)
        if o == "*":
            return X.vscale(a, b) if isinstance(b, X.Vec) else X.vscale(b, a)
        if o == "/":
            return X.vscale(X.div(Fraction(1), b), a)
    if o == "+":
        return X.add(a, b)
    if o == "-":
        return X.sub(a, b)
    if o == "*":
        return guard(X.mul(guard(a), guard(b)))
    return guard(X.div(guard(a), guard(b)))


def scalar_pow(a, e: int):
    a = guard(a)
    if e < 0:
        a, e = X.div(Fraction(1), a), -e
    out = Fraction(1)
    for _ in range(e):
        out = guard(X.mul(out, a))
    return out


def cmp_scalar(o, a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return (a == b) if o == "==" else (a != b)
    if isinstance(a, X.Vec):
        eq = X.veq(a, b)
        return eq if o == "==" else not eq
    s = X.compare(a, b)
    return {"<": s < 0, "<=": s <= 0, ">": s > 0, ">=": s >= 0, "==": s == 0, "!=": s != 0}[o]


def minmax_scalar(vals, lo):
    best = vals[0]
    for v in vals[1:]:
        c = X.compare(v, best)
        if (c < 0) if lo else (c > 0):
            best = v
    return best


def call_scalar(name, args):
    if name == "dot":
        return X.vdot(args[0], args[1])
    if name == "norm2":
        return X.vdot(args[0], args[0])
    if name == "norm":
        return X.sqrt(X.vdot(args[0], args[0]))
    if name == "sqrt":
        return X.sqrt(args[0])
    if name == "ceil":
        return Fraction(X.ceil(args[0]))
    if name == "floor":
        return Fraction(X.floor(args[0]))
    if name == "abs":
        return args[0] if X.sign(args[0]) >= 0 else X.neg(args[0])
    if name == "sign":
        return Fraction(X.sign(args[0]))
    if name == "min":
        return minmax_scalar(args, True)
    if name == "max":
        return minmax_scalar(args, False)
    if name == "vec":
        rat = [a for a in args if not isinstance(a, X.Surd)]
        if len(rat) == len(args):
            return X.vec_from_fractions(args)
        return X.Vec(X.vec_from_fractions([]).num, 1, tuple(args))
    raise EvalError(f"unknown function {name}")
