"""The expression language of claim files and variant declarations: a whitelisted subset of
Python expression syntax.  This module parses and type-checks; verify.language.expr evaluates claims
exactly, perceptron.declared runs declared variants.

Claim and variant files are untrusted.  Their expressions are parsed with ``ast.parse`` (which
only builds a syntax tree; nothing is evaluated, imported or looked up), every node is checked
against a whitelist, and the tree is compiled into a small tuple form that the evaluators walk.
``eval``, ``sympify`` and ``parse_expr`` are never applied to file text.

Grammar (Python syntax):
    numbers      3, -2, 1/2 (division), 0.25 (read as the exact decimal), 1e-3
    arithmetic   + - * / and ** with an integer literal exponent (|e| <= 64)
    comparisons  < <= > >= == != , chained (0 < k <= n)
    logic        and, or, not
    choice       a if cond else b  (a and b of one type)
    functions    dot(u, v), norm(v), norm2(v), sqrt(s), ceil(s), floor(s), min(a, b, ...),
                 max(a, b, ...), abs(s), sign(s), vec(a, b, ...)  (a vector literal)
    previous     prev(e) is e evaluated with the values before the current update;
                 prev(e, j) with those j updates back (w0 before the first update)
    over points  min_i(e), max_i(e), sum_i(e) (a number or a vector), all_i(cond), any_i(cond): e evaluated with x, y
                 (and x_hat) bound to each point of the dataset in turn
Names are the quantities of RUN_QUANTITIES (vectors and scalars of a run), or a table the caller
gives (verify.language.quantities for claims).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["RUN_QUANTITIES", "RESERVED_NAMES", "ExprError", "compile_expr", "Compiled", "MAX_PREV"]

#: Longest expression accepted (characters).  Claims are one-line formulas; anything longer is
#: almost certainly not a claim, and bounding it bounds parse time.
MAX_LENGTH = 2000
#: Most syntax-tree nodes accepted.
MAX_NODES = 400
#: Deepest bracket / tree nesting accepted (Python's own parser would recurse on more).
MAX_DEPTH = 40
#: Largest |exponent| of a power; 10**10**10 is rejected before anything is computed.  Nested
#: powers multiply: the product of the exponents along any path is limited the same way.
MAX_EXPONENT = 64
#: Most digits in a number literal.
MAX_DIGITS = 80
#: Deepest prev(e, j) look-back.
MAX_PREV = 8

S, V, B = "scalar", "vector", "bool"

#: name -> (type, meaning): the quantities of a run (its data, state and log).  Availability depends
#: on when an expression is evaluated (verify.language.claims).  Readers of a run add their own
#: (verify.language.quantities: the certified separator and margins).
RUN_QUANTITIES: dict[str, tuple[str, str]] = {
    "k": (S, "updates (mistakes) so far, after the current step"),
    "t": (S, "visits so far"),
    "i": (S, "index of the current point (0-based)"),
    "eta": (S, "learning rate"),
    "R": (S, "max |x_i| over the inputs the learner sees (raw inputs for the bias variants)"),
    "R2": (S, "R squared"),
    "w": (V, "weights (after the update at an update step; final at the end)"),
    "b": (S, "bias (0 for variants without one)"),
    "w_hat": (V, "(w, b/R): 001's augmented weights"),
    "x": (V, "the current point"),
    "x_hat": (V, "(x, R): 001's augmented point"),
    "y": (S, "label of the current point, -1 or +1"),
    "score": (S, "w.x (+ b) before the update, or the kernel sum"),
    "out": (S, "sign(score) with the run's sign(0)"),
    "w0": (V, "initial weights"),
    "ones": (V, "the all-ones vector of the learner's input dimension d (after augmentation)"),
    "n": (S, "number of points"),
    "d": (S, "dimension of the learner's inputs"),
    "epochs": (S, "epochs of the run"),
    "mistakes": (S, "updates in the whole run"),
    "converged": (S, "1 if the run ended with every point correctly classified, else 0"),
    "stopped_by_budget": (S, "1 if the run stopped on its epoch/update/visit budget before converging (a claim "
                             "that reads it speaks of such runs too: the search's runs cut at its update bound "
                             "are among them, so 'it always stops' is a bound on mistakes, not stopped_by_budget == 0)"),
    "sumsq": (S, "sum of |x|^2 over the points updated on so far"),
    "sign0": (S, "the run's value of sign(0)"),
    "kernel_degree": (S, "the kernel perceptron's kernel (x.z + kernel_offset)^kernel_degree: its degree (1 for the "
                         "linear kernel; not defined for the RBF kernel or another variant)"),
    "kernel_offset": (S, "that kernel's offset (0 for the linear kernel)"),
    "w_pocket": (V, "pocket weights at the end (pocket variant)"),
    "pocket_errors": (S, "training errors of w_pocket"),
    "min_visited_errors": (S, "fewest training errors of any weights the run held"),
}

#: Names the language keeps for readers of a run, who define them (verify.language.quantities
#: gives their meaning): a variant declaration may not take them, so that an expression about a
#: declared run never means two things.
RESERVED_NAMES = frozenset({"gamma", "w_opt", "b_opt", "w_hat_opt", "v_opt", "c_opt", "m_opt", "gamma_lo", "gamma_hi", "separable"})


_FUNCS = {
    # name: (arg types or None for variadic scalars, result type)
    "dot": ((V, V), S), "norm": ((V,), S), "norm2": ((V,), S), "sqrt": ((S,), S),
    "ceil": ((S,), S), "floor": ((S,), S), "abs": ((S,), S), "sign": ((S,), S),
    "min": (None, S), "max": (None, S), "vec": (None, V),
}
_SYMBOLIC_FUNCS = {"exp": ((S,), S), "diff": ((S, S), S), "cat": ((V, S), V)}
_AGG = {"min_i": S, "max_i": S, "sum_i": S, "all_i": B, "any_i": B}

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


class ExprError(ValueError):
    """A claim expression outside the language; ``col`` is 1-based within the expression."""

    def __init__(self, message: str, col: int | None = None):
        self.message, self.col = message, col
        super().__init__(message if col is None else f"column {col}: {message}")


@dataclass(frozen=True)
class Compiled:
    source: str
    tree: tuple
    type: str
    names: frozenset
    uses_prev: int  # deepest prev look-back
    uses_points: bool


def _col(node) -> int | None:
    return getattr(node, "col_offset", -1) + 1 if hasattr(node, "col_offset") else None


def compile_expr(source: str, names: dict | None = None, symbolic: bool = False) -> Compiled:
    """Parse and type-check one expression; raises ExprError (never runs anything).

    ``names`` (name -> "scalar"/"vector") replaces the quantities of RUN_QUANTITIES (the free
    symbols of a symbolic proof step); ``symbolic`` also allows exp(s), diff(e, s) and
    cat(v, s) (v with the scalar s appended), which only the symbolic engine evaluates."""
    if not isinstance(source, str):
        raise ExprError("expression must be a string")
    if len(source) > MAX_LENGTH:
        raise ExprError(f"expression is {len(source)} characters long; the limit is {MAX_LENGTH}")
    depth = 0
    for j, ch in enumerate(source):
        if ch in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ExprError(f"brackets nested deeper than {MAX_DEPTH}", j + 1)
        elif ch in ")]}":
            depth -= 1
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as e:
        raise ExprError(f"syntax error: {e.msg}", e.offset) from None
    except (RecursionError, MemoryError, ValueError):
        raise ExprError("expression too deeply nested or malformed") from None
    count = sum(1 for _ in ast.walk(tree))
    if count > MAX_NODES:
        raise ExprError(f"expression has {count} syntax nodes; the limit is {MAX_NODES}")
    c = _Compiler(source.strip(), names, symbolic)
    t, ty = c.node(tree.body, 0)
    deg = _degree(t)
    if deg > MAX_EXPONENT:
        raise ExprError(f"nested powers raise a value to the power {deg}; the limit is {MAX_EXPONENT} "
                        "(the size of an exact value grows with it)")
    return Compiled(source, _intern(t), ty, frozenset(c.names), c.prev_depth, c.points)


def _degree(t) -> int:
    """The largest product of power exponents along any nesting path: (a**8)**8 is a**64."""
    if not isinstance(t, tuple):
        return 1
    if t and t[0] == "pow":
        return abs(t[2]) * _degree(t[1])
    return max((_degree(x) for x in t if isinstance(x, tuple)), default=1)


#: Structurally equal subtrees of all compiled claims share one object, so evaluate() can
#: cache a subtree's value per environment by identity (claims repeat dot(prev(w), x) etc.).
_INTERNED: dict = {}


def _intern(t):
    if isinstance(t, tuple):
        t = tuple(_intern(x) for x in t)
        try:
            return _INTERNED.setdefault(t, t)
        except TypeError:
            return t
    return t


class _Compiler:
    def __init__(self, src, names=None, symbolic=False):
        self.src = src
        self.table = {k: (v, "") for k, v in names.items()} if names is not None else RUN_QUANTITIES
        self.symbolic = symbolic
        self.names: set[str] = set()
        self.prev_depth = 0
        self.prev_offset = 0  # the look-back of the prev() calls around the node being read
        self.points = False
        self.in_points = False

    def fail(self, node, msg):
        raise ExprError(msg, _col(node))

    def node(self, n, depth):
        if depth > MAX_DEPTH:
            self.fail(n, f"expression nested deeper than {MAX_DEPTH}")
        d = depth + 1
        if isinstance(n, ast.Constant):
            return self.const(n)
        if isinstance(n, ast.Name):
            if n.id not in self.table:
                self.fail(n, f"unknown name {n.id!r}; known: {', '.join(sorted(self.table))}")
            self.names.add(n.id)
            return ("name", n.id), self.table[n.id][0]
        if isinstance(n, ast.UnaryOp):
            a, ta = self.node(n.operand, d)
            if isinstance(n.op, ast.Not):
                if ta != B:
                    self.fail(n, "'not' needs a condition")
                return ("not", a), B
            if isinstance(n.op, (ast.USub, ast.UAdd)):
                if ta == B:
                    self.fail(n, "cannot negate a condition; use 'not'")
                return (("neg", a) if isinstance(n.op, ast.USub) else a), ta
            self.fail(n, f"operator {type(n.op).__name__} is not allowed")
        if isinstance(n, ast.BinOp):
            return self.binop(n, d)
        if isinstance(n, ast.Compare):
            parts = [self.node(n.left, d)] + [self.node(c, d) for c in n.comparators]
            ops = []
            for o in n.ops:
                if type(o) not in _CMPOPS:
                    self.fail(n, f"comparison {type(o).__name__} is not allowed")
                ops.append(_CMPOPS[type(o)])
            for (_, t1), (_, t2), o in zip(parts, parts[1:], ops):
                if B in (t1, t2) and o not in ("==", "!="):
                    self.fail(n, "conditions can only be compared with == or !=")
                if t1 != t2:
                    self.fail(n, f"comparing a {t1} with a {t2}")
                if t1 == V and o not in ("==", "!="):
                    self.fail(n, f"vectors are not ordered ({o}); compare norms or components")
            return ("cmp", tuple(ops), tuple(p[0] for p in parts)), B
        if isinstance(n, ast.BoolOp):
            vals = [self.node(v, d) for v in n.values]
            if any(t != B for _, t in vals):
                self.fail(n, "'and'/'or' need conditions on both sides")
            return ("and" if isinstance(n.op, ast.And) else "or", tuple(v[0] for v in vals)), B
        if isinstance(n, ast.IfExp):
            c, tc = self.node(n.test, d)
            a, ta = self.node(n.body, d)
            b, tb = self.node(n.orelse, d)
            if tc != B:
                self.fail(n, "'a if cond else b' needs a condition after 'if'")
            if ta != tb:
                self.fail(n, f"'a if cond else b' chooses between a {ta} and a {tb}")
            return ("if", c, a, b), ta
        if isinstance(n, ast.Call):
            return self.call(n, d)
        if isinstance(n, ast.Tuple):
            self.fail(n, "tuples are not allowed; write vec(a, b, ...)")
        if isinstance(n, ast.Attribute):
            self.fail(n, "attribute access is not allowed")
        self.fail(n, f"{type(n).__name__} is not allowed in claim expressions")

    def binop(self, n, d):
        """a + b, a - b, a * b, a / b (typed), and a ** k for an integer literal k."""
        op = _BINOPS.get(type(n.op))
        if op is None:
            self.fail(n, f"operator {type(n.op).__name__} is not allowed")
        if op == "**":
            e = n.right
            neg = False
            if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
                e, neg = e.operand, True
            if not (isinstance(e, ast.Constant) and type(e.value) is int):
                self.fail(n, "the exponent of ** must be an integer literal")
            if e.value > MAX_EXPONENT:
                self.fail(n, f"exponent {e.value} exceeds the limit {MAX_EXPONENT}")
            a, ta = self.node(n.left, d)
            if ta != S:
                self.fail(n, "only numbers can be raised to a power (use norm2 for |v|^2)")
            return ("pow", a, -e.value if neg else e.value), S
        a, ta = self.node(n.left, d)
        b, tb = self.node(n.right, d)
        if B in (ta, tb):
            self.fail(n, f"arithmetic on a condition ({op})")
        if op in "+-" and ta != tb:
            self.fail(n, f"cannot {'add' if op == '+' else 'subtract'} a {tb} and a {ta}")
        if op == "*" and ta == V and tb == V:
            self.fail(n, "vector * vector is ambiguous; use dot(u, v)")
        if op == "/" and tb == V:
            self.fail(n, "cannot divide by a vector")
        return ("bin", op, a, b), (V if V in (ta, tb) else S)

    def const(self, n):
        v = n.value
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.fail(n, f"only numbers are allowed as literals, not {type(v).__name__}")
        text = ast.get_source_segment(self.src, n) or repr(v)
        digits = sum(ch.isdigit() for ch in text)
        if digits > MAX_DIGITS:
            self.fail(n, f"number literal with {digits} digits; the limit is {MAX_DIGITS}")
        if "e" in text.lower() and not text.lower().startswith("0x"):
            mant, _, exp = text.lower().partition("e")
            try:
                if abs(int(exp)) > 100:
                    self.fail(n, "exponent of a number literal beyond 1e100")
            except ValueError:
                self.fail(n, f"bad number {text!r}")
        try:
            val = Fraction(text.replace("_", ""))
        except (ValueError, ZeroDivisionError):
            self.fail(n, f"bad number {text!r}")
        return ("num", val), S

    def call(self, n, d):
        if not isinstance(n.func, ast.Name):
            self.fail(n, "only the listed functions can be called")
        name = n.func.id
        if n.keywords:
            self.fail(n, f"{name}() takes no keyword arguments")
        if any(isinstance(a, ast.Starred) for a in n.args):
            self.fail(n, "* arguments are not allowed")
        if name == "prev":
            if not 1 <= len(n.args) <= 2:
                self.fail(n, "prev(e) or prev(e, j)")
            j = 1
            if len(n.args) == 2:
                a2 = n.args[1]
                if not (isinstance(a2, ast.Constant) and type(a2.value) is int and 1 <= a2.value <= MAX_PREV):
                    self.fail(n, f"prev(e, j) needs an integer literal 1 <= j <= {MAX_PREV}")
                j = a2.value
            self.prev_offset += j  # prev(prev(e)) looks back two updates: the depth is the sum along the path
            if self.prev_offset > MAX_PREV:
                self.fail(n, f"prev() nested {self.prev_offset} updates back; the limit is {MAX_PREV}")
            a, ta = self.node(n.args[0], d)
            self.prev_depth = max(self.prev_depth, self.prev_offset)
            self.prev_offset -= j
            return ("prev", a, j), ta
        if name in _AGG:
            if len(n.args) != 1:
                self.fail(n, f"{name}(e) takes one argument")
            if self.in_points:
                self.fail(n, f"{name} cannot be nested in another aggregate")
            self.in_points, self.points = True, True
            a, ta = self.node(n.args[0], d)
            self.in_points = False
            want = B if _AGG[name] == B else S
            if name == "sum_i" and ta == V:  # a sum of vectors: sum_i(alpha * y * x), the dual form's w
                return ("agg", name, a), V
            if ta != want:
                self.fail(n, f"{name} needs a {'condition' if want == B else 'number'}"
                          + (" or a vector" if name == "sum_i" else ""))
            return ("agg", name, a), _AGG[name]
        if self.symbolic and name in _SYMBOLIC_FUNCS:
            sig, rt = _SYMBOLIC_FUNCS[name]
            args = [self.node(a, d) for a in n.args]
            if len(args) != len(sig) or any(t != want for (_, t), want in zip(args, sig)):
                self.fail(n, f"{name}() takes ({', '.join(sig)})")
            if name == "diff" and args[1][0][0] != "name":
                self.fail(n, "diff(e, s) differentiates with respect to a name")
            return ("call", name, tuple(a[0] for a in args)), rt
        if name not in _FUNCS:
            self.fail(n, f"unknown function {name!r}; allowed: {', '.join(sorted(list(_FUNCS) + list(_AGG) + ['prev']))}")
        sig, rt = _FUNCS[name]
        args = [self.node(a, d) for a in n.args]
        if sig is None:
            if not args:
                self.fail(n, f"{name}() needs arguments")
            if any(t != S for _, t in args):
                self.fail(n, f"{name}() takes numbers")
        else:
            if len(args) != len(sig):
                self.fail(n, f"{name}() takes {len(sig)} argument(s), got {len(args)}")
            for (_, t), want in zip(args, sig):
                if t != want:
                    self.fail(n, f"{name}() needs a {want}, got a {t}")
        return ("call", name, tuple(a[0] for a in args)), rt
