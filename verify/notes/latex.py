"""A relation written in LaTeX, tokenised and parsed into a small tree.

    parse(r"\\|\\mathbf{w}_{k+1}\\|^2 \\leq R^2")
    -> ("rel", [("pow", ("norm", ("sym", "w", ("k", "+", "1"))), ("2",)), "<=", ...])

Sums, products (``\\cdot``, ``\\times``, juxtaposition), powers and transposes, fractions,
roots, norms and absolute values, ``\\langle\\cdot,\\cdot\\rangle``, ``\\min_i``/``\\max_i``/``\\sum_i``,
matrices and tuples, ``\\mathrm{sign}``, ``\\cos\\theta``, chains of relations and assignments
(``\\leftarrow``, ``w_{new} =``).  Fonts and sizes (``\\mathbf``, ``\\vec``, ``\\left``) are
dropped; a symbol keeps its decorations and sub/superscripts for the notation table
(verify.notes.reading) to look up.  What the reader does not know raises Untranslated, naming
it.  Nesting and length are bounded (MAX_DEPTH, MAX_MATH_CHARS): notes are untrusted.
"""

from __future__ import annotations

import re

__all__ = ["Untranslated", "tokens", "Parser", "parse", "rows", "split_rows", "symbol_key", "MAX_MATH_CHARS",
           "MAX_DEPTH", "WORDS"]

#: Characters of one relation translated (a displayed block longer than this is left as a
#: draft: no statement of a lecture note is this long, and the parser is recursive).
MAX_MATH_CHARS = 2000
#: Nesting depth of braces and parentheses followed.
MAX_DEPTH = 40

#: Words of more than one letter read as one symbol (any other run of letters is a product).
WORDS = ("out",)

_FONTS = {"mathbf", "boldsymbol", "bm", "vec", "mathrm", "mathit", "textbf", "overrightarrow", "mathsf", "pmb"}
_IGNORED = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "displaystyle",
            "quad", "qquad", ",", ";", "!", " ", ":", "nonumber", "notag", "limits", "textstyle"}
REL = {"<": "<", ">": ">", "=": "==", "\\le": "<=", "\\leq": "<=", "\\leqslant": "<=", "\\ge": ">=", "\\geq": ">=",
        "\\geqslant": ">=", "\\ne": "!=", "\\neq": "!=", "<=": "<=", ">=": ">="}
ASSIGN = {"\\leftarrow", "\\gets", "\\rightarrow", "\\to", ":="}
_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "eta", "theta", "lambda", "mu", "rho", "sigma",
          "tau", "phi", "varphi", "xi", "zeta", "kappa", "nu", "omega", "Gamma", "Delta", "Theta", "Lambda", "Phi"}
_UNICODE = {"≤": "\\leq ", "≥": "\\geq ", "≠": "\\neq ", "γ": "\\gamma ", "η": "\\eta ", "ρ": "\\rho ", "α": "\\alpha ",
            "β": "\\beta ", "θ": "\\theta ", "‖": "\\| ", "·": "\\cdot ", "−": "-", "⋅": "\\cdot ", "×": "\\times ",
            "∑": "\\sum ", "√": "\\sqrt ", "←": "\\leftarrow ", "→": "\\rightarrow ", "∀": "\\forall ", "ŵ": "\\hat w ",
            "⊤": "\\top ", "∗": "*", "²": "^2"}


class Untranslated(Exception):
    """A part of a relation with no reading; the message names it."""



# ------------------------------------------------------------------------------- tokens

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\d+(?:\.\d+)?|(?<![A-Za-z\\])(?:" + "|".join(WORDS) + r")(?![A-Za-z])|[A-Za-z]|<=|>=|:=|[_^{}()\[\]|+\-*/=<>,'&.!;:]|\S")


def tokens(src: str) -> list:
    src = re.sub(r"\s+", " ", src)  # one space at most between tokens: the patterns below never backtrack far
    for u, t in _UNICODE.items():
        src = src.replace(u, t)
    src = re.sub(r"\\operatorname\*?\{(\w+)\}", r"\\\1", src)
    # w_{new} = ...: the update, written as an assignment
    src = re.sub(r"_\s*\{?\s*(?:\\text|\\mathrm)?\{?\s*new\s*\}?\s*\}?\s*=", r" \\leftarrow ", src)
    src = re.sub(r"\\(?:mathrm|text|textrm)\{\s*sign\s*\}|\\sgn\b", r"\\sign ", src)
    src = re.sub(r"\^\s*\{?\s*\\(?:rightarrow|to)(?![A-Za-z])\s*\}?", " ", src)  # w^{\rightarrow}: an arrow over w, a vector
    src = re.sub(r"(\\\||\\rVert)\s*_\s*\{?\s*2\s*\}?", r"\1", src)  # the Euclidean norm ||.||_2
    src = re.sub(r"\\(?:mathrm|text|textrm|mathit)\{\s*(opt|OPT|T)\s*\}", r"\1", src)
    out = []
    for m in _TOKEN.finditer(src):
        t = m.group()
        if t.startswith("\\") and t[1:] in _IGNORED:
            continue
        if t == "&":
            continue
        out.append(t)
    while out and out[-1] in (".", ",", ";"):
        out.pop()
    return out


# ------------------------------------------------------------------------------- parser

class Parser:
    """Recursive descent over the tokens into tuples: ("rel", [a, op, b, ...]), ("bin", op, a, b),
    ("neg", a), ("pow", a, e), ("norm", a), ("abs", a), ("sqrt", a), ("agg", fn, var, body),
    ("sym", key, sub), ("num", text), ("vec", [items]), ("T", a) (a transpose)."""

    def __init__(self, toks):
        self.t, self.i, self.depth, self.closers = toks, 0, 0, []

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else None

    def take(self, want=None):
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise Untranslated(f"expected {want or 'more'} at {' '.join(self.t[self.i:self.i + 3]) or 'the end'}")
        self.i += 1
        return tok

    def relation(self):
        if self.peek() in REL or self.peek() in ASSIGN:
            raise Untranslated(f"a relation with nothing on its left ({self.peek()} ...): the sentence around it "
                               "supplies that side; write the whole relation in the claim")
        parts = [self.sum()]
        while self.peek() in REL or self.peek() in ASSIGN:
            op = self.take()
            parts += ["<-" if op in ASSIGN else REL[op], self.sum()]
        return parts[0] if len(parts) == 1 else ("rel", parts)

    def sum(self):
        node = self.unary()
        while self.peek() in ("+", "-", "\\pm"):
            op = self.take()
            if op == "\\pm":
                raise Untranslated("\\pm")
            node = ("bin", op, node, self.term())
        return node

    def unary(self):
        if self.peek() == "-":
            self.take()
            return ("neg", self.term())
        if self.peek() == "+":
            self.take()
        return self.term()

    def term(self):
        node = self.power()
        while True:
            tok = self.peek()
            if tok in ("\\cdot", "*", "\\times", "/"):
                self.take()
                node = ("bin", {"\\cdot": "cdot", "\\times": "*"}.get(tok, tok), node, self.power())
            elif self._starts_atom(tok):
                node = ("bin", "juxt", node, self.power())
            else:
                return node

    def _starts_atom(self, tok):
        if tok is None or tok in self.closers:
            return False
        if tok in ("(", "[", "{", "|", "\\|", "\\lVert", "\\langle") or re.fullmatch(r"[A-Za-z]|\d.*", tok):
            return True
        return tok.startswith("\\") and tok not in REL and tok not in ASSIGN and tok not in (
            "\\cdot", "\\times", "\\pm", "\\rangle", "\\rVert", "\\|", "\\forall", "\\quad", "\\text", "\\end",
            "\\implies", "\\iff", "\\Rightarrow", "\\Longrightarrow", "\\wedge", "\\vee", "\\in")

    def power(self):
        node = self.atom()
        while self.peek() in ("^", "'"):
            if self.take() == "'":
                raise Untranslated("a prime (')")
            sup = self.script()
            if sup in (("T",), ("\\top",), ("\\intercal",)):
                node = ("T", node)
            else:
                node = ("pow", node, sup)
        return node

    def script(self):
        """A sub- or superscript: a braced group's tokens, or one token."""
        if self.peek() == "{":
            return tuple(self.grouptokens())
        return (self.take(),)

    def grouptokens(self):
        self.take("{")
        depth, out = 1, []
        while True:
            tok = self.take()
            depth += {"{": 1, "}": -1}.get(tok, 0)
            if depth == 0:
                return out
            out.append(tok)

    def sub_parse(self, toks, closers=()):
        p = Parser(list(toks))
        p.depth = self.depth + 1
        if p.depth > MAX_DEPTH:
            raise Untranslated("nesting too deep")
        node = p.relation()
        if p.i != len(p.t):
            p.rest()
        return node

    def rest(self):
        """Raise Untranslated for tokens left after a relation, naming where the reading stopped."""
        before = "".join(self.t[max(0, self.i - 3):self.i]) or "the start"
        raise Untranslated(f"no reading of {''.join(self.t[self.i:self.i + 4])!r} after {before!r} (the math there is "
                           "not one relation)")

    def enclosed(self, close):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Untranslated("nesting too deep")
        self.closers.append(close)
        node = self.relation() if close in (")", "]", "}") else self.sum()
        self.closers.pop()
        self.take(close)
        self.depth -= 1
        return node

    def atom(self):
        tok = self.take()
        if re.fullmatch(r"\d+(\.\d+)?", tok):
            return ("num", tok)
        if tok in ("(", "["):
            close = ")" if tok == "(" else "]"
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise Untranslated("nesting too deep")
            self.closers.append(close)
            items = [self.relation()]
            while self.peek() == ",":
                self.take()
                items.append(self.relation())
            self.closers.pop()
            self.take(close)
            self.depth -= 1
            return items[0] if len(items) == 1 else ("vec", items)
        if tok == "{":
            node = self.enclosed("}")
            return self.subscripts(node) if node[0] == "sym" else node
        if tok in ("|",):
            return ("abs", self.enclosed("|"))
        if tok in ("\\|", "\\lVert"):
            return ("norm", self.enclosed("\\rVert" if tok == "\\lVert" else "\\|"))
        if tok == "\\langle":
            a = self.sum()
            self.take(",")
            b = self.sum()
            self.take("\\rangle")
            return ("bin", "cdot", a, b)
        if tok == "\\frac" or tok == "\\dfrac" or tok == "\\tfrac":
            return ("bin", "/", self.sub_parse(self.grouptokens()), self.sub_parse(self.grouptokens()))
        if tok == "\\sqrt":
            if self.peek() == "[":
                raise Untranslated("an n-th root")
            return ("sqrt", self.sub_parse(self.grouptokens()) if self.peek() == "{" else self.atom())
        if tok in ("\\min", "\\max", "\\sum"):
            var = "i"
            if self.peek() == "_":
                self.take()
                sub = self.script()
                var = sub[0]
                if not re.fullmatch(r"[a-z]", var):
                    raise Untranslated(f"{tok}_{{{''.join(sub)}}}")
            if self.peek() == "^":  # \sum_{i=1}^n: the limits are the whole dataset
                self.take()
                self.script()
            return ("agg", tok[1:], var, self.term())
        if tok == "\\begin":
            return self.matrix()
        if tok == "\\sign":
            return ("sign", self.power())
        if tok == "\\cos":
            arg = self.power()
            if arg[0] != "sym" or arg[1] != "\\theta":
                raise Untranslated("\\cos of anything but the angle theta")
            return ("cos", ("sym", "w", arg[2]))
        if tok.startswith("\\") and tok[1:] in _FONTS:
            inner = self.grouptokens() if self.peek() == "{" else [self.take()]
            node = self.sub_parse(inner)
            if node[0] == "num" and node[1] == "0":
                node = ("sym", "\\mathbf{0}", None)
            return self.subscripts(node) if node[0] == "sym" else node
        if tok in ("\\hat", "\\widehat"):
            inner = self.grouptokens() if self.peek() == "{" else [self.take()]
            node = self.sub_parse(inner)
            if node[0] != "sym":
                raise Untranslated("\\hat of an expression")
            return self.subscripts(("sym", "\\hat " + node[1], node[2]))
        if re.fullmatch(r"[A-Za-z]|" + "|".join(WORDS), tok) or (tok.startswith("\\") and tok[1:] in _GREEK):
            return self.subscripts(("sym", tok, None))
        raise Untranslated(tok)

    def subscripts(self, node):
        """``_{...}`` and a ``*`` superscript attached to a symbol (other superscripts are powers)."""
        key, sub = node[1], node[2]
        while True:
            if self.peek() == "_" and sub is None:
                self.take()
                s = self.script()
                if s in (("*",), ("\\star",), ("\\ast",)):
                    key += "_*"
                elif s in (("o", "p", "t"),):
                    key += "_{opt}"
                else:
                    sub = s
            elif (sub is None and key in ("w", "\\hat w", "\\theta", "b") and self.peek() == "("
                  and self._index_call()):
                self.take("(")
                sub = []
                while self.peek() != ")":
                    sub.append(self.take())
                self.take(")")
                sub = tuple(sub)
            elif self.peek() == "^" and self.peek(1) in ("*", "\\star", "\\ast"):
                self.i += 2
                key += "^*"
            elif self.peek() == "^" and self.peek(1) == "{" and self.peek(2) in ("*", "\\star", "\\ast"):
                self.i += 3  # ^{*T}: the star, and the transpose left as ^{T}
                rest = []
                while self.peek() != "}":
                    rest.append(self.take())
                self.take("}")
                key += "^*"
                if rest:
                    if rest not in (["T"], ["\\top"]):
                        raise Untranslated("^{*" + "".join(rest) + "}")
                    return ("T", ("sym", key, sub))
            else:
                return ("sym", key, sub)

    def _index_call(self) -> bool:
        """w(q), w(q - 1), w(0): an iterate written as a function of the step."""
        j = self.i + 1
        inner = []
        while j < len(self.t) and self.t[j] != ")" and len(inner) < 4:
            inner.append(self.t[j])
            j += 1
        return j < len(self.t) and self.t[j] == ")" and bool(re.fullmatch(r"[ktq]([+-]\d+)?|\d+", "".join(inner)))

    def matrix(self):
        env = "".join(self.grouptokens())
        if env not in ("pmatrix", "bmatrix", "matrix", "array"):
            raise Untranslated(f"\\begin{{{env}}}")
        items, cur = [], []
        while not (self.peek() == "\\end"):
            tok = self.take()
            if tok == "\\\\" or tok == "\\cr":
                items.append(cur)
                cur = []
            else:
                cur.append(tok)
        self.take("\\end")
        self.grouptokens()
        items.append(cur)
        return ("vec", [self.sub_parse(x) for x in items if x])


#: Environments whose rows are one chain (their ``&`` and row breaks dropped), and those kept
#: whole as one atom (a matrix; cases, which has no reading).
_CHAIN_ENVS = r"aligned|align\*?|split|gathered|gather\*?|eqnarray\*?"
_ATOM_ENVS = r"[pbv]?matrix|cases"


def rows(src: str) -> list:
    """The separate relations of an aligned block: a row that starts with a relation (``&=``,
    ``&\\leq``) continues the chain above it; any other row starts a new one."""
    body = re.sub(r"\\(begin|end)\{(" + _CHAIN_ENVS + r")\}", " ", src)
    pieces = re.split(r"(\\begin\{(" + _ATOM_ENVS + r")\}.*?\\end\{\2\})", body, flags=re.S)
    pieces = [x for j, x in enumerate(pieces) if j % 3 != 2]
    marked = "".join(x if j % 2 else x.replace("\\\\", "\0") for j, x in enumerate(pieces))
    out = []
    for row in marked.split("\0"):
        row = row.strip()
        if not row:
            continue
        lead = row.lstrip("& ")
        if out and (re.match(r"(=|<|>|\\le|\\ge|\\ne|\\leq|\\geq)", lead) or row.startswith("&")):
            out[-1] += " " + row
        else:
            out.append(row)
    return out or [src]


def split_rows(src: str) -> str:
    """An aligned chain's rows joined into one chain (``&`` and the row breaks outside a
    matrix dropped)."""
    src = re.sub(r"\\(begin|end)\{(" + _CHAIN_ENVS + r")\}", " ", src)
    pieces = re.split(r"(\\begin\{(" + _ATOM_ENVS + r")\}.*?\\end\{\2\})", src, flags=re.S)
    pieces = [x for j, x in enumerate(pieces) if j % 3 != 2]
    return "".join(x if j % 2 else x.replace("\\\\", " ") for j, x in enumerate(pieces))


def symbol_key(node) -> str:
    return node[1] + (f"_{{{''.join(node[2])}}}" if node[2] else "")


def parse(src: str) -> tuple:
    """The tree of one relation (its rows joined; see rows() for a block of several)."""
    toks = tokens(split_rows(src))
    p = Parser(toks)
    tree = p.relation()
    if p.i != len(toks):
        p.rest()
    return tree
