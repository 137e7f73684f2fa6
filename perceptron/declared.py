"""Perceptron variants declared as data: a TOML table in the expression language.

A declaration (``[variants.NAME]`` in a variant file or a claim file) gives

    note        where the algorithm is stated (text)
    parameters  its own constants with their default values: ``{ tau = "1" }`` (exact rationals;
                a run sets them with ``--set tau=1/2``)
    state       every state variable with its initial value: ``{ w = "w0", b = "b0", u = "0 * w0" }``;
                ``w`` (a vector) is required, ``b`` (a scalar) is the bias a trace records
    score       the score of a point: ``"dot(w, x) + b"`` (x only inside dot(v, x))
    sign0       the value of sign(0) in ``out = sign(score)``: -1, 0, 1 or "param" (the run's --sign0)
    mistake     when the algorithm updates: ``"y * score <= tau"``
    update      the new value of each state variable that changes at an update, all computed from the
                values before it: ``{ w = "w + eta * y * x", b = "b + eta * y" }``
    outputs     values computed at the end: ``{ w_avg = "w - u / t" }``
    orders      the visit orders it supports: any of cyclic, random, first, sequence
    stop        "converged" (an epoch without an update ends the run) or "epochs" (always max_epochs)

Names an expression may use: in ``state`` the run's ``w0``, ``b0``, ``eta``, ``n``, ``d``, ``R``,
``R2`` and the parameters; in ``score`` also the state and ``x``; in ``mistake`` the state, ``y``,
``score``, ``out`` and ``k`` (updates so far); in ``update`` all of those and ``x``, ``t`` (the
visit's number, from 1) and ``i`` (the point's index), with ``k`` the number of updates before this
one; in ``outputs`` the final state, ``k``, ``t`` (visits) and ``epochs``.

A declaration is untrusted: it is parsed with the expression language's whitelist, type-checked
and bounded (MAX_NAMES names a section, the expression limits of perceptron.expression); nothing
in it is executed as code.  The state changes only at updates (as every trace records it); a
state that changes on every visit (the averaged perceptron's running sum) is written with ``t``:
see examples/variants/averaged.toml.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from fractions import Fraction

from ._numbers import NumberError, fits_text, format_rational, parse_rational
from .errors import InputError, OptionError
from .expression import (
    RESERVED_NAMES,
    RUN_QUANTITIES,
    Compiled,
    ExprError,
    compile_expr,
)
from .limits import MAX_CLAIM_BYTES, MAX_NUMBER_CHARS, read_toml, top_level_lines
from .variants import VARIANTS

__all__ = ["Declaration", "DeclarationError", "parse_declaration", "load_variants", "register", "declared",
           "variant_of", "registered", "DECLARED_ORDERS", "STOPS"]

#: Most names in one section (parameters, state, update, outputs): a declaration is a few lines.
MAX_NAMES = 16
#: Most declarations in one file.
MAX_DECLARATIONS = 32
#: Longest declared name and note.
MAX_NAME_CHARS = 32
MAX_NOTE_CHARS = 1000
#: Orders a declared variant may support (max-violation ranks by y * score, which a declared
#: score need not mean).
DECLARED_ORDERS = ("cyclic", "random", "first", "sequence")
STOPS = ("converged", "epochs")

S, V, B = "scalar", "vector", "bool"
_FIELDS = ("note", "parameters", "state", "score", "sign0", "mistake", "update", "outputs", "orders", "stop")
#: Names the engine binds; a declaration cannot reuse them for its own quantities.
_BOUND = {"x": V, "y": S, "score": S, "out": S, "k": S, "t": S, "i": S, "eta": S, "n": S, "d": S, "R": S, "R2": S,
          "w0": V, "b0": S, "epochs": S}
_CONSTS = ("eta", "n", "d", "R", "R2")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


class DeclarationError(OptionError):
    """A declaration outside the schema; ``key`` names the field (for the line of the file)."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key

    def __reduce__(self):
        return (DeclarationError, (self.message, self.key))


@dataclass(frozen=True, eq=False)
class Declaration:
    name: str
    note: str
    parameters: tuple  #: ((name, Fraction default), ...)
    state: tuple  #: ((name, Compiled init), ...)
    score: Compiled
    sign0: int | None  #: None: the run's --sign0
    mistake: Compiled
    update: tuple  #: ((name, Compiled), ...)
    outputs: tuple  #: ((name, Compiled), ...)
    orders: tuple
    stop: str
    source: dict  #: the declaration as written, canonical (JSON-able)

    # what the rest of the package asks of a variant (perceptron.variants.Variant)
    dual = False
    unit = False
    pocket = False
    half_form = False
    eta_max = None
    eta_text = None
    patience = False
    order = None
    defines = ()
    declared = True

    def bias_scale(self, r2, one):  # noqa: ARG002 (the Variant's signature)
        return None  # a declared update says how its b moves

    def profiles(self) -> list[dict]:
        return [{}]  # its corpus runs vary its declared parameters instead (verify.corpus.runs)

    @property
    def bias(self):
        """"declared" when the state has a bias b (the certificate then allows a separator's
        bias), else None."""
        return "declared" if "b" in self.types else None

    @property
    def tie(self):
        return self.sign0

    @property
    def types(self) -> dict:
        """Type of every declared quantity: parameters, state, outputs."""
        out = {p: S for p, _ in self.parameters}
        out.update({s: c.type for s, c in self.state})
        out.update({o: c.type for o, c in self.outputs})
        return out

    @property
    def sha256(self) -> str:
        return hashlib.sha256(json.dumps(self.source, sort_keys=True).encode()).hexdigest()

    def __eq__(self, other):
        return isinstance(other, Declaration) and self.name == other.name and self.source == other.source

    def __hash__(self):
        return hash((self.name, self.sha256))


def _table(v, key: str, limit: int = MAX_NAMES) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise DeclarationError(f"{key} must be a table of name = value", key)
    if len(v) > limit:
        raise DeclarationError(f"{key} has {len(v)} entries; the limit is {limit} (perceptron.declared.MAX_NAMES)", key)
    for name in v:
        if not _NAME.match(name) or len(name) > MAX_NAME_CHARS:
            raise DeclarationError(f"{key}: {name[:40]!r} is not a name (letters, digits, _; at most {MAX_NAME_CHARS})", key)
    return v


def _compile(src, key: str, names: dict, want: str | None) -> Compiled:
    if not isinstance(src, str):
        raise DeclarationError(f"{key} must be an expression in a string", key)
    try:
        c = compile_expr(src, names)
    except ExprError as e:
        raise DeclarationError(f"{key}: {e}", key) from None
    bad = _walk_ops(c.tree) & {"prev", "agg"}
    if bad:
        raise DeclarationError(f"{key}: {'prev(...)' if 'prev' in bad else 'min_i/max_i/sum_i/all_i/any_i'} is for claims; "
                               "a declaration speaks of one step", key)
    if want is not None and c.type != want:
        raise DeclarationError(f"{key} must be a {'condition' if want == B else want}, not a {c.type}", key)
    return c


def _walk_ops(t) -> set:
    out = set()
    if isinstance(t, tuple) and t and isinstance(t[0], str):
        out.add(t[0])
    if isinstance(t, tuple):
        for x in t:
            if isinstance(x, tuple):
                out |= _walk_ops(x)
    return out


def _x_only_in_dot(t, key: str):
    """The score is computed for a block of points at once: x may appear only as dot(v, x) with
    v free of x (one matrix-vector product)."""
    if not isinstance(t, tuple) or not t:
        return
    if not isinstance(t[0], str):  # a tuple of arguments
        for sub in t:
            _x_only_in_dot(sub, key)
        return
    if t[0] == "name" and t[1] == "x":
        raise DeclarationError(f"{key}: x may appear in the score only as dot(v, x)", key)
    if t[0] == "call" and t[1] == "dot":
        a, b = t[2]
        if b == ("name", "x") or a == ("name", "x"):
            other = a if b == ("name", "x") else b
            if "x" in names_in(other):
                raise DeclarationError(f"{key}: dot(v, x) needs a v free of x", key)
            return
    for sub in t[1:]:
        if isinstance(sub, tuple):
            _x_only_in_dot(sub, key)


#: Names that differ from point to point within a block of visits.
PER_POINT = frozenset(("x", "y", "score", "out"))


def signed_score_test(tree):
    """(label, comparison, c) for a mistake condition y * score OP c (out may stand for y, the
    factors in either order; c free of per-point names), else None: the mistake condition of most
    variants, which the learner and the replay decide with one comparison per point."""
    if tree[0] != "cmp" or len(tree[1]) != 1:
        return None
    lhs, rhs = tree[2]
    if lhs[0] != "bin" or lhs[1] != "*" or names_in(rhs) & PER_POINT:
        return None
    for a, b in ((lhs[2], lhs[3]), (lhs[3], lhs[2])):
        if b == ("name", "score") and a in (("name", "y"), ("name", "out")):
            return a[1], tree[1][0], rhs
    return None


def split_dot(tree, found: list):
    """The score's tree with each dot(v, x) replaced by the name __dotJ__ (J the index in
    ``found``, where v is appended): a block's products are computed apart, once, with their
    rounding bound (not an interval product per coordinate)."""
    if not isinstance(tree, tuple) or not tree or not isinstance(tree[0], str):
        return tree
    if tree[0] == "call" and tree[1] == "dot" and ("name", "x") in tree[2]:
        v = tree[2][0] if tree[2][1] == ("name", "x") else tree[2][1]
        found.append(v)
        return ("name", f"__dot{len(found) - 1}__")
    return tuple(split_dot(t, found) if isinstance(t, tuple) and t and isinstance(t[0], str) else
                 (tuple(split_dot(a, found) for a in t) if isinstance(t, tuple) else t) for t in tree)


def names_in(t) -> set:
    """The names a compiled tree reads."""
    if not isinstance(t, tuple):
        return set()
    if t and t[0] == "name":
        return {t[1]}
    out = set()
    for x in t:
        if isinstance(x, tuple):
            out |= names_in(x)
    return out


def _parameter(p: str, v) -> Fraction:
    """A declared parameter's default: an integer or a string "p/q", exact, within the limits."""
    if type(v) is int:
        if not fits_text(Fraction(v), MAX_NUMBER_CHARS):
            raise DeclarationError(f"parameters.{p}: an integer longer than {MAX_NUMBER_CHARS} digits "
                                   "(perceptron.limits.MAX_NUMBER_CHARS)", "parameters")
        return Fraction(v)
    if type(v) is str:
        try:
            return parse_rational(v)
        except NumberError as e:
            raise DeclarationError(f"parameters.{p}: {e}", "parameters") from None
    raise DeclarationError(f"parameters.{p} must be an exact number (an integer or a string \"p/q\")", "parameters")


def _sign0(sign0) -> int | None:
    """A declaration's sign(0): -1, 0, 1, or "param" (None: the run's --sign0)."""
    if sign0 == "param":
        return None
    if type(sign0) is not int or sign0 not in (-1, 0, 1):
        raise DeclarationError("sign0 must be -1, 0, 1 or \"param\"", "sign0")
    return sign0


def _orders_and_stop(table) -> tuple:
    """The orders a declaration runs in and how its runs stop."""
    orders = table.get("orders", ["cyclic", "random", "first", "sequence"])
    if not isinstance(orders, list) or not orders or any(o not in DECLARED_ORDERS for o in orders) or len(set(orders)) != len(orders):
        raise DeclarationError(f"orders must be a list of distinct orders from {', '.join(DECLARED_ORDERS)}", "orders")
    stop = table.get("stop", "converged")
    if stop not in STOPS:
        raise DeclarationError(f"stop must be one of {', '.join(STOPS)}", "stop")
    if stop == "epochs" and set(orders) - {"cyclic", "random"}:
        raise DeclarationError("stop = \"epochs\" runs whole epochs: orders must be cyclic and/or random", "stop")
    return orders, stop


def parse_declaration(name: str, table) -> Declaration:
    """A declaration from its table (a TOML table or the JSON object a trace header embeds);
    raises DeclarationError naming the field."""
    if not isinstance(name, str) or not _NAME.match(name) or len(name) > MAX_NAME_CHARS:
        raise DeclarationError(f"variant name {str(name)[:40]!r} must be a name (letters, digits, _)")
    if name in VARIANTS:
        raise DeclarationError(f"{name!r} is a built-in variant; give the declaration another name")
    if not isinstance(table, dict):
        raise DeclarationError(f"[variants.{name}] must be a table")
    for key in table:
        if key not in _FIELDS:
            raise DeclarationError(f"unknown field {key[:40]!r}; fields are {', '.join(_FIELDS)}", key)
    for key in ("state", "score", "mistake", "update"):
        if key not in table:
            raise DeclarationError(f"a declaration needs {key} (see perceptron.declared)", None)
    note = table.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_NOTE_CHARS:
        raise DeclarationError(f"note must be text of at most {MAX_NOTE_CHARS} characters", "note")
    taken = set(_BOUND) | ((set(RUN_QUANTITIES) | RESERVED_NAMES) - {"w", "b"})

    def own(section, names):
        for nm in names:
            if nm in taken:
                raise DeclarationError(f"{section}: {nm!r} is a name the engine or the claims already use; choose another", section)

    params_raw = _table(table.get("parameters"), "parameters")
    own("parameters", params_raw)
    params = [(p, _parameter(p, v)) for p, v in params_raw.items()]
    pnames = {p: S for p, _ in params}

    state_raw = _table(table.get("state"), "state")
    own("state", [s for s in state_raw if s not in ("w", "b")])
    if "w" not in state_raw:
        raise DeclarationError("state needs w (the weight vector every trace records)", "state")
    clash = set(state_raw) & set(pnames)
    if clash:
        raise DeclarationError(f"{sorted(clash)[0]!r} is both a parameter and a state variable", "state")
    init_names = {**{c: S for c in _CONSTS}, "w0": V, "b0": S, **pnames}
    state = [(s, _compile(src, f"state.{s}", init_names, None)) for s, src in state_raw.items()]
    stypes = {s: c.type for s, c in state}
    if stypes["w"] != V:
        raise DeclarationError("state.w must be a vector", "state")
    if stypes.get("b", S) != S:
        raise DeclarationError("state.b must be a scalar", "state")
    if B in stypes.values():
        raise DeclarationError("a state variable holds a number or a vector, not a condition", "state")

    base = {**{c: S for c in _CONSTS}, **pnames, **stypes}
    score = _compile(table["score"], "score", {**base, "x": V, "k": S}, S)
    _x_only_in_dot(score.tree, "score")
    sign0 = _sign0(table.get("sign0", 0))
    mistake = _compile(table["mistake"], "mistake", {**base, "y": S, "score": S, "out": S, "k": S}, B)

    upd_raw = _table(table.get("update"), "update")
    if not upd_raw:
        raise DeclarationError("update must change at least one state variable", "update")
    upd_names = {**base, "x": V, "y": S, "score": S, "out": S, "k": S, "t": S, "i": S}
    update = []
    for s, src in upd_raw.items():
        if s not in stypes:
            raise DeclarationError(f"update.{s}: {s!r} is not a state variable (declare it under state)", "update")
        update.append((s, _compile(src, f"update.{s}", upd_names, stypes[s])))

    out_raw = _table(table.get("outputs"), "outputs")
    own("outputs", out_raw)
    clash = set(out_raw) & (set(stypes) | set(pnames))
    if clash:
        raise DeclarationError(f"output {sorted(clash)[0]!r} already names a state variable or parameter", "outputs")
    outputs = [(o, _compile(src, f"outputs.{o}", {**base, "k": S, "t": S, "epochs": S}, None)) for o, src in out_raw.items()]
    if any(c.type == B for _, c in outputs):
        raise DeclarationError("an output is a number or a vector, not a condition", "outputs")

    orders, stop = _orders_and_stop(table)

    source = {"note": note, "parameters": {p: format_rational(v) for p, v in params},
              "state": dict(state_raw), "score": table["score"], "sign0": "param" if sign0 is None else sign0,
              "mistake": table["mistake"], "update": dict(upd_raw), "outputs": dict(out_raw),
              "orders": list(orders), "stop": stop}
    return Declaration(name, note, tuple(params), tuple(state), score, sign0, mistake, tuple(update), tuple(outputs),
                       tuple(orders), stop, source)


# --------------------------------------------------------------------------- the registry

_REGISTRY: dict[str, Declaration] = {}


def register(decl: Declaration) -> Declaration:
    """Make ``decl`` known by its name to the learner, traces and replay of this process.  A name
    declared twice must be declared the same way (else DeclarationError)."""
    old = _REGISTRY.get(decl.name)
    if old is not None and old != decl:
        raise DeclarationError(f"variant {decl.name!r} is declared twice, differently")
    _REGISTRY[decl.name] = decl
    return decl


#: name -> (file, line) of the [variants.NAME] table a declaration was first read from.
_ORIGIN: dict = {}


def origin(name: str) -> str:
    """Where a declaration was written, for messages: "FILE:LINE: [variants.NAME]" (or, for one
    that came in a trace's header, "[variants.NAME]")."""
    path, line = _ORIGIN.get(name, (None, None))
    return f"{path}:{line}: [variants.{name}]" if path else f"[variants.{name}]"


def fields(decl: Declaration):
    """(field, its source text, its compiled tree) for every expression of a declaration."""
    for s, c in decl.state:
        yield f"state.{s}", c.source, c.tree
    yield "score", decl.score.source, decl.score.tree
    yield "mistake", decl.mistake.source, decl.mistake.tree
    for s, c in decl.update:
        yield f"update.{s}", c.source, c.tree
    for o, c in decl.outputs:
        yield f"outputs.{o}", c.source, c.tree


def check_dimension(decl: Declaration, d: int) -> None:
    """Every vector of a declaration has the data's dimension d (after augmentation): a vec(...)
    literal of another length is the declaration's error, found when it meets the data, before
    the run (never a broadcast, never numpy's shape error)."""
    for field, src, tree in fields(decl):
        for node in _walk(tree):
            if node[0] == "call" and node[1] == "vec" and len(node[2]) != d:
                raise DeclarationError(f"{field} = {src!r}: vec(...) of {len(node[2])} coordinates; the run's inputs have "
                                       f"{d} (after augmentation)", field.split(".")[0])


def _walk(tree):
    yield tree
    for part in tree[1:]:
        if isinstance(part, tuple) and part and isinstance(part[0], str):
            yield from _walk(part)
        elif isinstance(part, (tuple, list)):
            for q in part:
                if isinstance(q, tuple) and q and isinstance(q[0], str):
                    yield from _walk(q)


def declared(name: str) -> Declaration | None:
    return _REGISTRY.get(name)


def registered() -> dict:
    return dict(_REGISTRY)


def variant_of(name: str):
    """The built-in Variant or the registered Declaration of this name, else None."""
    return VARIANTS.get(name) or _REGISTRY.get(name)


def _locate(text: str) -> dict:
    """Line of each [variants.NAME] header and of each key in it (tomllib gives no positions)."""
    where, cur = {}, None
    for ln, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        m = re.match(r"^\[\s*variants\.([A-Za-z0-9_]+)\s*\]", s)
        if m:
            cur = m.group(1)
            where[(cur, None)] = ln
            continue
        if s.startswith("["):
            cur = None
            continue
        k = re.match(r"^\s*([A-Za-z0-9_\-]+)\s*=", line)
        if k and cur is not None:
            where.setdefault((cur, k.group(1)), ln)
    return where


def declarations_from(path: str, data: dict, text: str) -> list:
    """The declarations under ``variants`` of a parsed TOML document, registered; problems raise
    InputError naming the file and line."""
    table = data.get("variants", {})
    if not isinstance(table, dict):
        raise InputError(path, "variants must be tables [variants.NAME]", 1)
    if len(table) > MAX_DECLARATIONS:
        raise InputError(path, f"{len(table)} declarations; a file is limited to {MAX_DECLARATIONS}", 1)
    where = _locate(text)
    out = []
    for name, body in table.items():
        try:
            out.append(register(parse_declaration(name, body)))
            _ORIGIN.setdefault(name, (path, where.get((name, None)) or 1))
        except DeclarationError as e:
            line = where.get((name, (e.key or "").split(".")[0])) or where.get((name, None)) or 1
            raise InputError(path, f"[variants.{name[:40]}] {e.message}", line) from None
    return out


def load_variants(path: str) -> list:
    """Read the [variants.NAME] tables of a variant file (or of a claim file, whose claims are
    left to verify.language.claims) and register the declarations."""
    data, text = read_toml(path, MAX_CLAIM_BYTES, "variant")
    extra = [k for k in data if k not in ("variants", "document", "claim", "notation", "dataset")]
    if extra:
        raise InputError(path, f"unknown top-level key {extra[0][:40]!r} (a variant file holds [variants.NAME] tables; "
                               "a claim file may hold them too)", top_level_lines(text).get(extra[0], 1))
    decls = declarations_from(path, data, text)
    if not decls:
        raise InputError(path, "no [variants.NAME] table", 1)
    return decls
