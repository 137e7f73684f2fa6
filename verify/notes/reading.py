"""A note's relation read into the claim language, through a notation table.

    translate(r"\\|\\mathbf{w}_{k+1}\\|^2 \\leq \\|\\mathbf{w}_k\\|^2 + R^2", NOTATION)
    -> Translation(expr="norm2(w) <= norm2(prev(w)) + R2", when="update", ...)

The relation is parsed (verify.notes.latex) and each symbol looked up in the notation table:
the default below, which covers the usual perceptron notation, overridden by the
``[notation]`` table a user writes once per note.  Indices decide the time of a statement:
``w_{k+1}`` against ``w_k`` is "at each update" (the highest index is the current ``w``, lower
ones ``prev(w, j)``); ``x_i``, ``y_i`` are the updated point there, and "for all i" on a
statement without weights (``all_i``); a bound on ``k`` with no weights is a bound on the
number of mistakes at the end (at each update inside a proof).  A chain gives each link too,
so each line of a proof can have its own claim.  Whatever has no reading (``\\cos\\phi``, a
``\\text``, an unknown symbol) is named in ``untranslated``: the drafter keeps such a statement
as a draft claim and never guesses.  Nothing here evaluates anything; the result is compiled
by the claim language like any hand-written expression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verify.notes.latex import MAX_MATH_CHARS, Parser, Untranslated, parse, rows, symbol_key, tokens

__all__ = ["NOTATION", "Translation", "translate", "normalise_symbol", "initial_weights"]

NOTATION = {
    "w": "w", "\\hat w": "w_hat", "w^*": "w_opt", "w_*": "w_opt", "w_{opt}": "w_opt", "w^{opt}": "w_opt",
    "u": "w_opt", "\\hat w_{opt}": "w_hat_opt", "\\hat w^*": "w_hat_opt", "\\hat u": "w_hat_opt",
    "x": "x", "\\hat x": "x_hat", "y": "y", "b": "b", "b^*": "b_opt", "b_{opt}": "b_opt", "b_*": "b_opt",
    "\\gamma": "gamma", "\\rho": "gamma", "R": "R", "\\eta": "eta", "k": "k", "t": "t", "n": "n", "N": "n",
    "d": "d", "M": "mistakes", "\\mathbf{0}": "0", "q": "k", "T": "k", "\\alpha": "gamma", "\\beta": "R2", "out": "out",
}
#: Symbols whose usual meaning the claim language has no name for: what the drafter says.
UNNAMED = {
    "\\theta": "theta is the angle or the weights depending on the note; give it one in [notation]",
}
_VECTORS = {"w", "w_hat", "x", "x_hat", "w_opt", "w_hat_opt", "w0", "ones", "v_opt", "w_pocket"}
#: Names that change at each update (prev(...) applies) and may carry a step index.
_STEPPED = {"w", "w_hat", "b"}
#: Names of a point, indexed by i, j or n.
_POINT = {"x", "x_hat", "y"}
@dataclass
class Translation:
    expr: str | None  # the claim language's expression, or None when a part has no reading
    when: str  # update | end | dataset | once
    untranslated: list = field(default_factory=list)  # what had no reading, each named
    names: set = field(default_factory=set)  # the claim-language names used
    indices: set = field(default_factory=set)  # step indices seen (("k", 1), ("num", 1), ...)
    links: list = field(default_factory=list)  # a chain's (or a block's) relations one by one, when more than one


def normalise_symbol(key: str) -> str:
    """A notation key as written by a user (``\\mathbf{w}^*``, ``\\vec{w}_{opt}``) in the form
    the translator looks up (``w^*``, ``w_{opt}``)."""
    if len(key) > MAX_MATH_CHARS:
        return key.strip()
    toks = tokens(key)
    p = Parser(toks)
    try:
        node = p.atom()
    except (Untranslated, RecursionError):
        return key.strip()
    if node[0] != "sym" or p.i != len(toks):
        return key.strip()
    return symbol_key(node)


def initial_weights(math: str, notation: dict | None = None) -> str | None:
    """The index the note gives its initial weights when ``math`` sets them to zero (``w_1 = 0``:
    "1"; ``\\theta_0 \\leftarrow \\mathbf{0}``: "0"; an unindexed ``w = 0``: ""), read through the
    notation table; None when ``math`` is not such a statement."""
    if len(math) > MAX_MATH_CHARS:
        return None
    table = dict(NOTATION)
    table.update(notation or {})
    try:
        tree = parse(re.sub(r"(\\mathbf\{0\}|\b0)\s*_\s*\{?\s*d\s*\}?", r"\1", math))
    except (Untranslated, RecursionError, TypeError, ValueError, IndexError, KeyError):
        return None
    if tree[0] != "rel" or len(tree[1]) != 3 or tree[1][1] not in ("==", "<-"):
        return None
    lhs, _, rhs = tree[1]
    zero = rhs in (("num", "0"), ("sym", "\\mathbf{0}", None)) or (
        rhs[0] == "vec" and all(e == ("num", "0") for e in rhs[1]))  # w_1 = (0, 0), a column of zeros
    if not zero or lhs[0] != "sym" or table.get(lhs[1]) != "w":
        return None
    return "".join(lhs[2] or ())


def _combine(parts: list) -> "Translation":
    """Separate relations of one block: one claim when each has a reading at the same time."""
    # a counter's increment (t <- t + 1) is the loop's bookkeeping, which the claim language keeps
    parts = [p for p in parts if not any(u.startswith("an increment of the counter") for u in p.untranslated)] or parts
    bad = [u for p in parts for u in p.untranslated]
    if bad:
        return Translation(None, "once", bad)
    whens = {p.when for p in parts}
    if len(parts) == 1:
        return parts[0]
    if len(whens) > 1:
        return Translation(None, "once", [f"rows at different times ({', '.join(sorted(whens))})"])
    return Translation(" and ".join(f"({p.expr})" for p in parts), whens.pop(), [],
                       set().union(*(p.names for p in parts)), set().union(*(p.indices for p in parts)),
                       [link for p in parts for link in (p.links or [p.expr])])



class _Renderer:
    def __init__(self, notation, base):
        self.notation, self.base = notation, base
        self.names, self.indices, self.points = set(), set(), set()
        self.current = 0  # the highest step offset (k + current is the current w)
        self.in_agg = []
        self.over_updates = False
        self.counter = None  # the letter indexing the weights (k, t, q, T), once the relation is scanned
        self.unindexed_before = False  # an unindexed w at an update is the w the mistake is found with

    # the symbols -------------------------------------------------------------
    def resolve(self, node):
        """(claim name, step index or None, point index or None) of a symbol."""
        key, sub = node[1], node[2]
        if sub is not None:
            full = f"{key}_{{{''.join(sub)}}}"
            if full in self.notation:
                return self.notation[full], None, None
        if key not in self.notation:
            if key in UNNAMED:
                raise Untranslated(UNNAMED[key])
            raise Untranslated(f"the symbol {key} (not in the notation table)")
        name = self.notation[key]
        if sub is None:
            if name in _STEPPED and self.unindexed_before:
                return name, ("k", -1), None  # "the current w" when a mistake is found: before the update
            return name, None, None
        s = "".join(sub)
        if name in _POINT:
            if re.fullmatch(r"[ijn]", s):
                return name, None, s
            m = re.fullmatch(r"\(?i_\{?([a-z])\}?\)?", s)  # x_{i_q}: the point of the q-th update
            if m:
                return name, None, "upd:" + m.group(1)
            if re.fullmatch(r"[kt]", s):  # x_t, y_t: the point of step t (online notation), the current one
                return name, None, "upd:" + s
            raise Untranslated(f"{key}_{{{s}}} (a particular point)")
        if name in _STEPPED:
            m = re.fullmatch(r"([ktqT])([+-]\d+)?|(\d+)", s)
            if m and m.group(3) is not None:
                return name, ("num", int(m.group(3))), None
            if m:
                return name, (m.group(1), int(m.group(2) or 0)), None
        if key == "\\alpha" and re.fullmatch(r"[ijn]", s):  # the dual coefficients: updates made on point i
            return "alpha", None, s
        raise Untranslated(f"{key}_{{{s}}}")

    def scan(self, node):
        """First pass: the step indices, so the highest is known before rendering."""
        if node[0] == "sym":
            try:
                name, step, _ = self.resolve(node)
            except Untranslated:
                return
            if step is not None:
                self.indices.add(step)
        for child in node[1:]:
            if isinstance(child, tuple):
                self.scan(child)
            elif isinstance(child, list):
                for c in child:
                    if isinstance(c, tuple):
                        self.scan(c)

    # rendering ---------------------------------------------------------------
    def render(self, node):
        """(text, type, precedence): type is "vector" or "scalar"."""
        kind = node[0]
        if kind == "num":
            return node[1], "scalar", 9
        if kind == "sym":
            return self.symbol(node)
        if kind == "neg":
            t, ty, _ = self.render(node[1])
            return f"-{_wrap(t, _, 6)}", ty, 5
        if kind == "T":
            t, ty, p = self.render(node[1])
            return t, "T" + ty, p
        if kind == "vec":
            parts = [self.render(x) for x in node[1]]
            if any(ty != "scalar" for _, ty, _ in parts):
                raise Untranslated("a matrix of vectors")
            return f"vec({', '.join(t for t, _, _ in parts)})", "vector", 9
        if kind == "norm":
            t, ty, _ = self.render(node[1])
            return (f"norm({t})" if ty.endswith("vector") else f"abs({t})"), "scalar", 9
        if kind == "abs":
            t, ty, _ = self.render(node[1])
            return (f"norm({t})" if ty.endswith("vector") else f"abs({t})"), "scalar", 9
        if kind == "cos":  # cos(theta_k): the angle between w_k and the separator
            t, ty, _ = self.render(node[1])
            return f"dot({t}, w_opt)/(norm({t})*norm(w_opt))", "scalar", 9
        if kind == "sign":
            t, ty, _ = self.render(node[1])
            if ty != "scalar":
                raise Untranslated("the sign of a vector")
            return f"sign({t})", "scalar", 9
        if kind == "sqrt":
            t, ty, _ = self.render(node[1])
            if ty != "scalar":
                raise Untranslated("the square root of a vector")
            return f"sqrt({t})", "scalar", 9
        if kind == "pow":
            return self.power(node)
        if kind == "agg":
            return self.aggregate(node)
        if kind == "bin":
            return self.binary(node)
        if kind == "rel":
            raise Untranslated("a relation inside an expression")
        raise Untranslated(kind)

    def symbol(self, node):
        name, step, point = self.resolve(node)
        if point is not None and point.startswith("upd:"):
            if self.in_agg and point[4:] == self.in_agg[-1]:
                self.over_updates = True  # a sum over the updates so far
                point = None
            else:
                point = "i"  # x_{i_q} outside a sum over j: the point of the current update
        if point is not None:
            if self.in_agg and point != self.in_agg[-1]:
                raise Untranslated(f"the index {point} inside an aggregate over {self.in_agg[-1]}")
            if not self.in_agg:
                self.points.add(point)
        if node[2] is None and node[1] == self.counter:
            name = "k"  # the letter that indexes the weights (w_t) counts their updates: the note's t is k
        if name == "k" and node[2] is None:
            shift = self.base - self.current if self.indices else 0
            self.names.add("k")
            if shift == 0:
                return "k", "scalar", 9
            return f"(k {'+' if shift > 0 else '-'} {abs(shift)})", "scalar", 9
        if step is not None:
            if step[0] == "num" and step[1] == self.base:
                if name != "w":
                    raise Untranslated(f"the initial value of {name}")
                self.names.add("w0")
                return "w0", "vector", 9
            if step[0] == "num":
                back = self.current - (step[1] - self.base) if self.current_is_num else None
                if back is None:
                    raise Untranslated("a numbered iterate beside an indexed one")
            else:
                back = self.current - step[1]
            self.names.add(name)
            text = name if back == 0 else (f"prev({name})" if back == 1 else f"prev({name}, {back})")
        elif name == "0":
            return "0", "scalar", 9
        elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            text = name  # a notation entry that is an expression
            self.names.add(name)
            return f"({text})", "vector" if any(v in name for v in ("w", "x")) and "dot" not in name and "norm" not in name else "scalar", 9
        else:
            text = name
            self.names.add(name)
        return text, ("vector" if name in _VECTORS else "scalar"), 9

    def power(self, node):
        base, sup = node[1], node[2]
        t, ty, p = self.render(base)
        exp = "".join(sup)
        if not re.fullmatch(r"\d+", exp):
            if exp in ("1/2", "\\frac12", "\\frac{1}{2}"):
                return f"sqrt({t})", "scalar", 9
            raise Untranslated(f"the power {exp}")
        if ty.endswith("vector"):
            if exp == "2":
                inner = base[1] if base[0] in ("norm", "abs") else base
                it, ity, _ = self.render(inner)
                return f"norm2({it})", "scalar", 9
            raise Untranslated(f"a vector to the power {exp}")
        if base[0] in ("norm", "abs") and exp == "2":
            it, ity, _ = self.render(base[1])
            if ity.endswith("vector"):
                return f"norm2({it})", "scalar", 9
        if t == "R" and exp == "2":
            return "R2", "scalar", 9
        return f"{_wrap(t, p, 8)}**{exp}", "scalar", 7

    def aggregate(self, node):
        fn, var, body = node[1], node[2], node[3]
        self.in_agg.append(var)
        self.over_updates = False
        t, ty, _ = self.render(body)
        self.in_agg.pop()
        if self.over_updates:
            if fn == "sum" and t == "norm2(x)":
                self.names.add("sumsq")
                return "sumsq", "scalar", 9
            raise Untranslated(f"a {fn} over the updates so far (only the sum of |x|^2, sumsq, has a name)")
        if ty != "scalar":
            if fn == "sum":  # the dual form's sum_i alpha_i y_i x_i: a vector
                return f"sum_i({t})", ty, 9
            raise Untranslated(f"the {fn} of a vector")
        return f"{fn}_i({t})", "scalar", 9

    def binary(self, node):
        op, a, b = node[1], node[2], node[3]
        ta, tya, pa = self.render(a)
        tb, tyb, pb = self.render(b)
        va, vb = tya.endswith("vector"), tyb.endswith("vector")
        if op in ("cdot", "juxt") and va and vb:
            return f"dot({ta}, {tb})", "scalar", 9
        tya, tyb = tya.lstrip("T"), tyb.lstrip("T")
        if op in ("+", "-"):
            if va != vb:
                raise Untranslated("a vector added to a number")
            return f"{_wrap(ta, pa, 4)} {op} {_wrap(tb, pb, 5)}", tya, 4
        if op == "/":
            if vb:
                raise Untranslated("division by a vector")
            return f"{_wrap(ta, pa, 6)}/{_wrap(tb, pb, 7)}", tya, 6
        return f"{_wrap(ta, pa, 6)}*{_wrap(tb, pb, 7)}", ("vector" if va or vb else "scalar"), 6


def _wrap(text, prec, need):
    return text if prec >= need else f"({text})"


# ------------------------------------------------------------------------------- entry

def translate(math: str, notation: dict | None = None, *, base: int = 0, forall: bool = False,
              running: bool = False, ends: bool = False) -> Translation:
    """The claim-language reading of one relation written in LaTeX.  ``base`` is the note's
    index of the initial weights (``w_1 = 0``: 1; ``w_0 = 0``: 0); ``forall``: the sentence says
    "for all i"; ``running``: the statement is inside a proof, where a bound on k speaks of the
    mistakes so far at each update (elsewhere it is the theorem's bound on all the mistakes, at
    the end); ``ends``: the sentence speaks of the run's end ("when the algorithm stops", "the
    final weights"), so an unindexed w is the final one."""
    table = dict(NOTATION)
    table.update(notation or {})
    if len(math) > MAX_MATH_CHARS:
        return Translation(None, "once", [f"a relation of {len(math)} characters (limit {MAX_MATH_CHARS})"])
    block = rows(math)
    if len(block) > 1:
        return _combine([translate(r, notation, base=base, forall=forall, running=running, ends=ends) for r in block])
    src = math
    if re.search(r"\\forall\s*[a-z]\b|\\text\{\s*(for all|for every|for each)\s*\}\s*[a-z]", src):
        forall = True
        src = re.sub(r"\\forall\s*[a-z]\b|\\text\{\s*(for all|for every|for each)\s*\}\s*[a-z]", " ", src)
    src = re.sub(r"\\(?:text|mbox)\{\s*(and|if|where|,)?\s*\}", " ", src)
    try:
        tree = parse(src)
        if tree[0] != "rel":
            raise Untranslated("no relation (nothing compared)")
        return _render_relation(tree, table, base, forall or ends, running)
    except Untranslated as e:
        return Translation(None, "once", [str(e)])
    except RecursionError:
        return Translation(None, "once", ["nesting too deep"])
    except (TypeError, ValueError, IndexError, KeyError) as e:  # a shape of LaTeX this reader does not know
        return Translation(None, "once", [f"no reading of this form ({type(e).__name__})"])


def _render_relation(tree, table, base, forall, running=False) -> Translation:
    parts = tree[1]
    r = _Renderer(table, base)
    for x in parts[::2]:
        r.scan(x)
    if not r.indices and "<-" not in parts and _mentions_point(tree) and not forall:
        r.unindexed_before = True
        for x in parts[::2]:
            r.scan(x)
    steps = [s for s in r.indices if s[0] != "num"]
    nums = {s[1] for s in r.indices if s[0] == "num" and s[1] != base}
    if steps and nums:
        raise Untranslated("a numbered iterate beside an indexed one")
    if len({s[0] for s in steps}) > 1:
        raise Untranslated("two step indices (k and t)")
    if len(nums) > 1:
        raise Untranslated("two numbered iterates")
    r.current_is_num = bool(nums)
    r.counter = steps[0][0] if steps else None
    r.current = max((s[1] for s in steps), default=0) if steps else (max(nums) - base if nums else 0)
    if len({s[1] for s in steps}) == 1 and "<-" not in parts and _mentions_point(tree) and not forall:
        r.current += 1  # one iterate beside the current point: the w the mistake is found with
    if "<-" in parts:
        parts = _assignment(parts, r)
    texts = []
    for j, x in enumerate(parts):
        if j % 2:
            texts.append(x)
            continue
        t, ty, _ = r.render(x)
        texts.append((t, ty.lstrip("T")))
    # a comparison of vectors: == and != only
    ops = texts[1::2]
    sides = texts[::2]
    if any(ty == "vector" for _, ty in sides) and any(o not in ("==", "!=") for o in ops):
        raise Untranslated("an order between vectors")
    if any((ty == "vector") != (sides[0][1] == "vector") for _, ty in sides):
        sides = [(("0*ones" if t == "0" else t), "vector") if ty != "vector" else (t, ty) for t, ty in sides]
        if any(t != "0*ones" and ty != "vector" for t, ty in sides):
            raise Untranslated("a vector compared with a number")
    names = r.names
    if "alpha" in names and not steps:  # the updates made on each point: counted at the end of a run
        forall = True
    if (steps or nums) or names & {"w", "w_hat", "b"} and (r.points or "x" in names) and not forall or (
            running and names & {"k", "sumsq"}):
        when = "update"
    elif names & {"w", "w_hat", "b", "mistakes", "w0", "eta"} or "k" in names:
        when = "end"
    elif names & {"x", "y", "x_hat"} or r.points:
        when = "dataset"
    else:
        when = "dataset" if names else "once"

    def finish(expr):
        if forall and r.points and when in ("update", "end"):  # "for all i": every point, at that w
            expr = f"all_i({expr})"
        if when == "update" and r.current_is_num:
            return f"k != {r.current} or ({expr})"
        if when == "end" and "k" in names:
            return re.sub(r"\bk\b", "mistakes", expr)
        if when == "dataset" and names & {"x", "y", "x_hat"} and (r.points or forall):
            return f"all_i({expr})"
        return expr

    texts = [t for t, _ in sides]
    whole = finish(" ".join(x for pair in zip(texts, ops + [""]) for x in pair).strip())
    links = [finish(f"{texts[j]} {ops[j]} {texts[j + 1]}") for j in range(len(ops))] if len(ops) > 1 else []
    return Translation(whole, when, [], names, r.indices, links)


def _mentions_point(node) -> bool:
    """Whether a relation names the current point (x_i, y_i, or x, y written bare) outside an
    aggregate: then it speaks of the step at which that point is visited."""
    if isinstance(node, tuple):
        if node[0] == "agg":
            return False
        if node[0] == "sym" and node[1] in ("x", "y", "\\hat x"):
            return True
        return any(_mentions_point(c) for c in node[1:] if isinstance(c, (tuple, list)))
    if isinstance(node, list):
        return any(_mentions_point(c) for c in node if isinstance(c, (tuple, list)))
    return False


def _assignment(parts, r):
    """``a <- e`` (an update rule, an arrow or :=) read as "after the update, a == e", with an
    unindexed a on the right meaning its value before the update."""
    if len(parts) != 3:
        raise Untranslated("a chain with an assignment")
    lhs, _, rhs = parts
    if lhs[0] != "sym":
        raise Untranslated("an assignment to an expression")
    if lhs[2] is None:  # w <- w + ...: the right side's w is the old value
        name, _, _ = r.resolve(lhs)
        if name in ("k", "t"):
            raise Untranslated(f"an increment of the counter {name} (the claim language keeps it as {name})")
        if name not in _STEPPED:
            raise Untranslated(f"an assignment to {lhs[1]}")
        r.indices.add(("k", 0))
        r.current = 0
        old = ("sym", lhs[1], ("k", "-", "1"))
        return [lhs, "==", _substitute(rhs, lhs, old)]
    return [lhs, "==", rhs]


def _substitute(node, old, new):
    if node == old:
        return new
    if isinstance(node, tuple):
        return tuple(_substitute(c, old, new) if isinstance(c, (tuple, list)) else c for c in node)
    if isinstance(node, list):
        return [_substitute(c, old, new) for c in node]
    return node
