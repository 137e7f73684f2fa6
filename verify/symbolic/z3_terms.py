"""sympy expressions as z3 terms, and the z3 child that decides them (verify.symbolic.steps).

A square root becomes an auxiliary s >= 0 with s*s == its argument (its definition, in defs),
a division 1/d z3's own (any value where d = 0): the caller shows each defined where the claim's
evaluator reaches it before it decides anything (verify.symbolic.steps).  z3 runs in a child process killed at a hard limit (its own timeouts are soft on
nonlinear problems), one server per process for all its checks.
"""

from __future__ import annotations

import os

import sympy

from verify._child import ChildServer

__all__ = ["ToZ3", "Unsupported", "relation", "z3_check", "close_server", "Z3_TIMEOUT"]

#: Hard limit for one z3 query (seconds).  Steps of the notes decide in well under a second;
#: a query that needs longer is reported unknown rather than allowed to stall the audit.
Z3_TIMEOUT = 5.0


class Unsupported(Exception):
    """An expression outside what the symbolic checks take."""


class ToZ3:
    """sympy expression -> z3 term, collecting the definitions of its roots."""

    def __init__(self, z3):
        self.z3 = z3
        self.vars: dict = {}
        self.defs: list = []  # constraints defining auxiliary variables
        self.aux = 0

    def var(self, sym):
        if sym.name not in self.vars:
            self.vars[sym.name] = self.z3.Real(sym.name)
        return self.vars[sym.name]

    def __call__(self, e):
        z3 = self.z3
        if e.is_Symbol:
            return self.var(e)
        if e.is_Rational:
            return z3.RealVal(f"{e.p}/{e.q}")
        if e.is_Add:
            return z3.Sum([self(a) for a in e.args])
        if e.is_Mul:
            out = self(e.args[0])
            for a in e.args[1:]:
                out = out * self(a)
            return out
        if e.is_Pow:
            b, x = e.args
            if x.is_Integer:
                n = int(x)
                if n >= 0:
                    return self(b) ** n if n > 1 else (self(b) if n == 1 else z3.RealVal(1))
                base = self(b)
                return 1 / (base ** (-n)) if n < -1 else 1 / base
            if x == sympy.Rational(1, 2) or x == sympy.Rational(-1, 2):
                arg = self(b)
                self.aux += 1
                s = z3.Real(f"sqrt_{self.aux}")
                self.defs += [s >= 0, s * s == arg]
                if x < 0:
                    return 1 / s
                return s
            raise Unsupported(f"power {x}")
        if isinstance(e, sympy.Abs):
            a = self(e.args[0])
            return z3.If(a >= 0, a, -a)
        if isinstance(e, (sympy.Min, sympy.Max)):
            args = [self(a) for a in e.args]
            out = args[0]
            for a in args[1:]:
                out = z3.If(a < out, a, out) if isinstance(e, sympy.Min) else z3.If(a > out, a, out)
            return out
        if isinstance(e, sympy.sign):
            a = self(e.args[0])
            return z3.If(a > 0, z3.RealVal(1), z3.If(a < 0, z3.RealVal(-1), z3.RealVal(0)))
        raise Unsupported(f"{type(e).__name__} has no z3 form")


def relation(z3, a, o, b):
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[o]


def _z3_solve(smt: str, timeout: float):
    import z3

    s = z3.Solver()
    s.set("timeout", int(timeout * 1000))
    s.from_string(smt)
    r = s.check()
    if r == z3.sat:
        m = s.model()
        vals = {}
        for d in m.decls():
            v = m[d]
            if z3.is_rational_value(v):
                vals[d.name()] = ("q", v.as_fraction().numerator, v.as_fraction().denominator)
            elif z3.is_algebraic_value(v):
                vals[d.name()] = ("a", v.approx(20).as_decimal(20).rstrip("?"))
        return "sat", vals
    return str(r), s.reason_unknown() if r == z3.unknown else ""


#: The child that runs the z3 checks of the claim being checked (one per claim, not one per check).
_SERVER: dict = {}


def z3_check(assertions, timeout=Z3_TIMEOUT):
    """('sat', model) / ('unsat', '') / ('unknown', reason), in a child killed at the limit."""
    import z3

    s = z3.Solver()
    s.add(*assertions)
    server = _SERVER.get("server")
    if server is None or _SERVER.get("pid") != os.getpid():  # a forked process starts its own
        server = _SERVER["server"] = ChildServer(_z3_solve)
        _SERVER["pid"] = os.getpid()
    got = server.call((s.to_smt2(), timeout), timeout + 1.0)
    if got is None:
        return "unknown", f"z3 killed at the hard limit of {timeout + 1:.0f} s"
    return got


def close_server() -> None:
    """Stop this process's z3 server, if it started one."""
    server = _SERVER.pop("server", None)
    if server is not None and _SERVER.pop("pid", None) == os.getpid():
        server.close()
