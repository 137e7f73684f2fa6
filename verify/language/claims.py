"""Claim files: proofs as data.  One TOML file per source document.

    [document]
    file = "000_498759e4a63d39ab.txt"        # the note the claims come from
    title = "The Perceptron"
    path = "../notes/000.txt"                # optional: the note's path relative to this file
                                             # (default: file, beside it)

    [[claim]]
    id = "000.numerator.bound"               # unique, [A-Za-z0-9_.-]
    section = "4.1 Bound for numerator"       # where in the note (with file: the citation)
    statement = "w* . w_{k+1} > k gamma"      # as written in the note
    expr = "dot(w_opt, w) > k*gamma"          # the machine form (see verify.language.expr)
    variants = ["rosenblatt"]                 # the algorithms it speaks about
    when = "update"                           # visit | update | end | dataset | once | symbolic
    assume = ["separable", "w0_zero"]         # see ASSUMPTIONS
    expect = "holds"                          # or "refuted"
    corrects = "000.some.claim"               # optional: this is the corrected form of that one
    datasets = ["worked-example"]             # optional: only these datasets (corpus names)
    orders = ["first"]                        # optional: only runs with these orders
    note = "why it is wrong, or anything else" # optional
    separator = "any"                         # optional: "any" (every separator of the data, the
                                              # default) or "max-margin" (only the widest one)
    free = ["w", "c:positive"]                # optional: names the statement quantifies over
                                              # ("for all w"): vector (default), scalar, positive, label
    line = 42                                 # optional: the statement's line in the note (SARIF,
                                              # annotations and the HTML report point there too)
    anchor = "theorem-2"                      # optional: the statement's URL fragment in the note

A draft claim (``draft = true``, written by ``proof-audit draft``) keeps a statement whose
reading is unfinished: it has an ``untranslated`` field naming what had no reading, and is
counted and listed by ``claims lint`` and ``run`` but never evaluated.  A top-level
``[notation]`` table (LaTeX symbol -> claim-language name, e.g. ``"\\alpha" = "gamma"``) is
the drafter's, read back when the note is drafted again.

What a claim ranges over follows from these fields by the rule of verify.language.quantifiers.

A pair claim (when = "pair") compares two runs on the same data: the claim's run and the run
``pair`` names, which differs in one setting -- "eta" (eta = 2 eta), "arithmetic" (the float
run), or "variant:NAME" (the same data, order and settings with another variant) -- and
``relation`` = "same_mistakes" (the same sequence of updated points) or "same_decisions"
(the same mistake flag at every visit).

A symbolic claim (when = "symbolic") has no expr; it declares vectors = [...] and
scalars = [...] and lists hypotheses = [...] and steps = [...] (see verify.symbolic.steps).

Files are untrusted: size, count and every expression are bounded, nothing in them is run.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field

from perceptron.declared import declarations_from, variant_of
from perceptron.errors import InputError
from perceptron.limits import MAX_CLAIM_BYTES, read_toml, top_level_lines
from perceptron.variants import VARIANTS
from verify.language.assumptions import ASSUMPTIONS
from verify.language.budget import max_epochs
from verify.language.note_data import check_names, file_datasets
from verify.language.setting import Setting, setting_of
from verify.language.sides import split_implication
from verify.language.expr import Compiled, ExprError, compile_expr
from verify.language.quantities import PREVIOUS_SWEEP, SWEEP_QUANTITIES, TYPES

__all__ = ["Claim", "ClaimFile", "Draft", "with_expr", "with_notes_dir", "ClaimError", "load_claims", "claims_of", "builtin_claim_files", "WHEN"]

#: Most claims in one file.
MAX_CLAIMS = 2000

WHEN = {
    "visit": "every visit of every applicable trace",
    "update": "every update (prev(...) refers to the values before it)",
    "end": "once at the end of every applicable run",
    "dataset": "once per dataset (with its certificate)",
    "once": "once: a closed statement about numbers",
    "symbolic": "for all dimensions: steps checked by sympy and z3 over inner products",
    "pair": "once per applicable run: the run against the run `pair` names (its `relation` or `expr`: see pair claims below)",
}

#: Relations a pair claim may state between its two runs.
RELATIONS = {
    "same_mistakes": "the two runs update on the same points in the same order",
    "same_decisions": "the two runs make the same mistake decision at every visit",
}
#: What a pair claim's second run changes.  With ":c", c is a quantifier the audit varies over
#: PAIR_C: "eta:c" (the partner runs with c eta), "scale:c" (on the data c x), "translate:c" (on
#: the data x + c, every coordinate), "w0:c" (from c w0); "flip" runs on the data with every
#: label negated, "reverse" on the points in reverse order, "order:NAME" in another order.
PAIRS = ("eta", "arithmetic", "variant:NAME", "order:NAME", "eta:c", "scale:c", "translate:c", "w0:c", "flip",
         "reverse")
#: The partner run's values a pair claim's expr may name, as other_NAME (at the end of both runs).
PAIR_NAMES = {"w": "vector", "b": "scalar", "mistakes": "scalar", "epochs": "scalar", "converged": "scalar"}
#: Most free names in one claim (each multiplies the values evaluated).
MAX_FREE = 3


_FIELDS = {"id", "section", "statement", "expr", "variants", "when", "assume", "expect", "corrects",
           "datasets", "orders", "note", "vectors", "scalars", "hypotheses", "steps", "separator", "free", "pair",
           "relation", "line", "anchor", "given", "draft", "untranslated", "at", "max_epochs", "run"}
#: Entries of a [notation] table, and characters of one entry.
MAX_NOTATION, MAX_NOTATION_CHARS = 200, 200
_REQUIRED = ("id", "section", "statement", "when", "expect")
#: A claim id: letters, digits and . _ - : (a LaTeX note's labels, such as thm:novikoff, can be ids).
_ID = re.compile(r"[A-Za-z0-9_.:\-]{1,120}")
_ANCHOR = re.compile(r"[A-Za-z0-9_.\-]{1,200}")

#: Quantities that exist only at some evaluation points (a visit or update is about its point,
#: label, score, number: prev() cannot go back to them).
_STEP_NAMES = {"x", "y", "score", "out", "x_hat", "t", "i"}
_SWEEP_NAMES = set(SWEEP_QUANTITIES) | set(PREVIOUS_SWEEP)
#: What only the end of a run has (the pocket's weights and errors).
END_NAMES = {n for v in VARIANTS.values() if v.pocket for n in v.defines}
_RUN_NAMES = {"w", "b", "w_hat", "k", "eta", "w0", "epochs", "mistakes", "converged", "stopped_by_budget", "sumsq", "sign0", "alpha",
              "w_pocket", "pocket_errors", "min_visited_errors", "kernel_degree", "kernel_offset"}


class ClaimError(InputError):
    """A problem in a claim file, located as FILE:LINE:COL."""

    def __init__(self, path, line, col, message):
        super().__init__(path, message, line or 1, col or 1)
        self.line, self.col = line, col

    def __reduce__(self):  # sent back pickled from worker processes
        return (ClaimError, (self.path, self.line, self.col, self.message))


@dataclass(frozen=True)
class Claim:
    id: str
    document: str
    section: str
    statement: str
    when: str
    expect: str
    path: str
    line: int
    expr: str | None = None
    compiled: Compiled | None = None
    variants: tuple = ()
    assume: tuple = ()
    corrects: str | None = None
    datasets: tuple | None = None
    orders: tuple | None = None
    note: str = ""
    symbolic: dict | None = None  # vectors, scalars, hypotheses, steps (compiled)
    separator: str = "any"  # "any" or "max-margin"
    free: dict | None = None  # name -> type (see verify.language.quantifiers.FREE_TYPES)
    pair: str | None = None
    relation: str | None = None
    pair_at: str = "end"  # a pair expr's evaluations: at the end of both runs, or at each aligned update
    title: str = ""  # the note's title ([document] title)
    source: dict | None = None  # where the statement is in the note: path, line, anchor (as the file says)
    given: Compiled | None = None  # the statement's premise: where it is false the claim does not apply
    implied: bool = False  # the premise is read from a top-level "A or B" (given = "not (A)")
    max_epochs: int | None = None  # the epoch budget of the runs on its datasets (None: the corpus's)
    setting: Setting | None = None  # the run the note describes (verify.language.setting): fixed values

    @property
    def citation(self) -> str:
        return f"{self.document}, {self.section}"


@dataclass(frozen=True)
class Draft:
    """A statement kept as a draft: listed, never evaluated."""
    id: str
    document: str
    section: str
    statement: str
    untranslated: str
    path: str
    line: int
    source: dict | None = None


@dataclass
class ClaimFile:
    path: str
    document: str
    title: str
    claims: list = field(default_factory=list)
    drafts: list = field(default_factory=list)
    notation: dict = field(default_factory=dict)
    datasets: list = field(default_factory=list)  # the names of its [[dataset]] tables
    note: str | None = None  # the note's path ([document] path, or file beside this one)


def _locate(text: str):
    """Line of each [[claim]] header and of each key within it, and of each key of [document]
    (tomllib gives no positions); keys of other tables ([notation], [variants.NAME]) are not
    taken for [document]'s."""
    blocks = []
    doc_keys: dict = {}
    cur = None
    for ln, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if re.match(r"^\[\[\s*claim\s*\]\]", s):
            cur = {"__line__": ln}
            blocks.append(cur)
            continue
        if s.startswith("["):
            cur = doc_keys if re.match(r"^\[\s*document\s*\]", s) else None
            continue
        m = re.match(r"^\s*([A-Za-z0-9_\-]+)\s*=\s*", line)
        if m and cur is not None:
            cur.setdefault(m.group(1), (ln, m.end() + 1))
    return blocks, doc_keys


def claims_of(files) -> list:
    """The claims of several loaded claim files, in order; an id given twice across them is a
    ClaimError at its second place (results, caches and --only name a claim by its id)."""
    seen: dict = {}
    out = []
    for f in files:
        for c in f.claims:
            if c.id in seen:
                raise ClaimError(c.path, c.line, 1, f"claim id {c.id!r} is also given in {seen[c.id]}: ids must be "
                                                   "unique across the claim files audited together")
            seen[c.id] = f"{c.path}:{c.line}"
            out.append(c)
    return out


def load_claims(path: str, *, collect: list | None = None) -> ClaimFile:
    """Read and validate one claim file.  Problems raise ClaimError; with ``collect`` (a list),
    every problem is appended there instead and the valid claims are still returned."""
    problems = [] if collect is None else collect

    def problem(line, col, msg):
        err = ClaimError(path, line, col, msg)
        if collect is None:
            raise err
        problems.append(err)

    got = _read_toml(path, problem)
    if got is None:
        return ClaimFile(path, "", "")
    data, text = got
    blocks, doc_keys = _locate(text)
    top = top_level_lines(text)
    try:
        declarations_from(path, data, text)  # [variants.NAME]: declared variants, registered
    except InputError as e:
        problem(e.line, None, e.message)
    doc, note_path, raw_claims = _document(data, doc_keys, top, problem)
    cf = ClaimFile(path, doc.get("file", "?"), str(doc.get("title", "")), notation=_notation(data, text, top, problem),
                   note=os.path.normpath(os.path.join(os.path.dirname(path), note_path or doc.get("file", "?"))),
                   datasets=file_datasets(path, data, text, problem))
    seen: dict = {}
    for j, c in enumerate(raw_claims):
        pos = blocks[j] if j < len(blocks) else {"__line__": 1}
        before = len(problems)
        if "draft" in c:
            draft = _draft(c, pos, cf, seen, note_path, problem)
            if draft is not None:
                cf.drafts.append(draft)
            continue
        claim = _claim(c, pos, cf, seen, note_path, problem, lambda: len(problems) == before)
        if claim is not None:
            cf.claims.append(claim)
    ids = {c.id for c in cf.claims}
    for c in cf.claims:
        if c.corrects and c.corrects not in ids:
            problem(c.line, 1, f"corrects = {c.corrects!r}, which is not a claim id in this file")
    return cf


def _read_toml(path, problem):
    """(the parsed table, the text), or None after reporting why the file cannot be read."""
    try:
        return read_toml(path, MAX_CLAIM_BYTES, "claim", exact=True)  # a note's 0.1 is 1/10
    except InputError as e:
        problem(e.line, e.col, e.message)
    return None


def _document(data: dict, doc_keys: dict, top: dict, problem):
    """The [document] table, the note's path (or None) and the [[claim]] tables, checked
    (``top``: the line of each top-level name)."""
    doc = data.get("document")
    if not isinstance(doc, dict) or not isinstance(doc.get("file"), str):
        problem(doc_keys.get("file", (top.get("document", 1), 1))[0], 1, "missing [document] table with file = \"...\" (the source note)"
                if not isinstance(doc, dict) else "[document] needs file = \"...\" (the source note's file name)"
                if "file" not in doc else "[document] file must be a string (the source note's file name)")
        doc = {"file": "?", "title": ""}
    for key in data:
        if key not in ("document", "claim", "variants", "notation", "dataset"):
            problem(top.get(key, 1), 1, f"unknown top-level key {key[:40]!r} (expected [document], [[claim]], "
                                        "[variants.NAME], [notation] and [[dataset]])")
    raw_claims = data.get("claim", [])
    if not isinstance(raw_claims, list) or not all(isinstance(c, dict) for c in raw_claims):
        problem(top.get("claim", 1), 1, "'claim' must be an array of tables: [[claim]]")
        raw_claims = []
    elif not raw_claims:
        problem(1, 1, "no [[claim]] tables: a claim file with nothing to audit passes vacuously")
    for key in doc:
        if key not in ("file", "title", "path"):
            problem(doc_keys.get(key, (1, 1))[0], 1, f"unknown [document] field {key!r}; fields are file, title, path")
    note_path = doc.get("path")
    if note_path is not None and (not isinstance(note_path, str) or not note_path or len(note_path) > 1000
                                  or "\0" in note_path):
        problem(doc_keys.get("path", (1, 1))[0], 1, "path must be the note's path relative to this claim file")
        note_path = None
    if len(raw_claims) > MAX_CLAIMS:
        problem(top.get("claim", 1), 1, f"{len(raw_claims)} claims; a file is limited to {MAX_CLAIMS}")
        raw_claims = raw_claims[:MAX_CLAIMS]
    return doc, note_path, raw_claims


def _notation(data: dict, text: str, top: dict, problem) -> dict:
    """The [notation] table: LaTeX symbol -> claim-language name or expression (both strings);
    a problem is reported at its entry's line (else the table's)."""
    table = data.get("notation", {})
    line = top.get("notation", 1)
    if not isinstance(table, dict):
        problem(line, 1, "[notation] must be a table of \"LaTeX symbol\" = \"claim-language name\"")
        return {}
    if len(table) > MAX_NOTATION:
        problem(line, 1, f"[notation] has {len(table)} entries; at most {MAX_NOTATION}")
        return {}
    for k, v in table.items():
        if not isinstance(v, str) or not v.strip() or len(k) > MAX_NOTATION_CHARS or len(v) > MAX_NOTATION_CHARS:
            at = next((line + j for j, ln in enumerate(text.splitlines()[line:line + len(table) + 50], 1)
                       if ln.lstrip().startswith((f'"{k}"'.replace("\\", "\\\\"), f"'{k}'", f"{k} ", f"{k}="))), line)
            problem(at, 1, f"[notation] {k[:40]!r}: the value must be a name or expression of at most "
                          f"{MAX_NOTATION_CHARS} characters")
            return {}
    return dict(table)


def _draft(c: dict, pos: dict, cf: ClaimFile, seen: dict, note_path, problem) -> Draft | None:
    """A [[claim]] with draft = true: the fields it has checked; never compiled."""
    line = pos["__line__"]
    before = [0]

    def report(ln, col, msg):
        before[0] += 1
        problem(ln, col, msg)

    if c.get("draft") is not True:
        report(*pos.get("draft", (line, 1)), "draft must be true (remove the field once the claim is finished)")
    for key in c:
        if key not in _FIELDS:
            report(*pos.get(key, (line, 1)), f"unknown field {key!r}; fields are {', '.join(sorted(_FIELDS))}")
    for key in ("id", "section", "statement", "untranslated"):
        if not isinstance(c.get(key), str):
            report(line, 1, f"draft claim lacks {key!r} (a string)")
    cid = c.get("id")
    if isinstance(cid, str):
        if not _ID.fullmatch(cid):
            report(*pos.get("id", (line, 1)), f"bad id {cid!r}: use letters, digits, '.', '_', '-', ':'")
        elif cid in seen:
            report(*pos.get("id", (line, 1)), f"duplicate id {cid!r} (first at line {seen[cid]})")
        else:
            seen[cid] = line
    src_line, anchor = c.get("line"), c.get("anchor")
    if src_line is not None and (type(src_line) is not int or not 1 <= src_line <= 10**7):
        report(*pos.get("line", (line, 1)), "line must be the statement's line number in the note (a positive integer)")
    if anchor is not None and (not isinstance(anchor, str) or not _ANCHOR.fullmatch(anchor)):
        report(*pos.get("anchor", (line, 1)), "anchor must be a URL fragment of letters, digits, '-', '_', '.' (no '#')")
    if before[0]:
        return None
    return Draft(cid, cf.document, c["section"], c["statement"], c["untranslated"], cf.path, line,
                 _source(cf.path, note_path, cf.document, src_line, anchor))


def _claim(c: dict, pos: dict, cf: ClaimFile, seen: dict, note_path, problem, clean):
    """One [[claim]] table checked field by field and compiled: a Claim, or None when it has a
    problem (each reported through ``problem``; ``clean()`` says whether none was)."""
    line = pos["__line__"]

    def where(key):
        return pos.get(key, (line, 1))

    cid, when, expect, lists = _fields(c, line, where, seen, problem)
    check_names(c, cf.datasets, where, problem)
    sep = c.get("separator", "any")
    if isinstance(sep, str) and sep not in ("any", "max-margin"):
        problem(*where("separator"), f"separator = {sep!r}; choose \"any\" or \"max-margin\"")
    free = _free_names(lists.get("free", ()), where, problem)
    pair = c.get("pair")
    _check_pair(c, when, pair, where, problem)
    if free and when != "dataset":
        problem(*where("free"), f"free names are evaluated once per dataset (when = \"dataset\"), not with when = {when!r}")
    if when in ("visit", "update", "end", "pair") and not lists.get("variants"):
        problem(*where("when"), f"a claim evaluated at each {when} needs variants = [...]")
    compiled, symbolic = _compile(c, when, lists, free, line, where, problem)
    given = _compile_given(c, when, lists, free, where, problem)
    implied = None if given is not None or compiled is None or when not in ("visit", "update", "end", "dataset") \
        else split_implication(c.get("expr", ""))
    if implied is not None:  # A or B: the implication "not A -> B", counted only where A is false
        given = _condition("expr", f"not ({implied[0]})", when, lists, free, where, problem)
        compiled = _condition("expr", implied[1], when, lists, free, where, problem)
    if not clean():
        return None
    src = c.get("expr")
    return Claim(
        id=cid, document=cf.document, section=c["section"], statement=c["statement"], when=when,
        expect=expect, path=cf.path, line=line, expr=src, compiled=compiled,
        variants=lists.get("variants", ()), assume=lists.get("assume", ()), corrects=c.get("corrects"),
        datasets=lists.get("datasets"), orders=lists.get("orders"), note=c.get("note", ""), symbolic=symbolic,
        separator=sep, free=free or None, pair=pair if when == "pair" else None,
        relation=c.get("relation") if when == "pair" else None, pair_at=c.get("at", "end") if when == "pair" else "end",
        title=cf.title, max_epochs=max_epochs(c, lists, where, problem),
        setting=setting_of(c.get("run"), lambda msg: problem(*where("run"), msg), bool(lists.get("datasets")),
                           lists.get("variants", ())),
        source=_source(cf.path, note_path, cf.document, c.get("line"), c.get("anchor")), given=given,
        implied=implied is not None)


def _fields(c: dict, line: int, where, seen: dict, problem):
    """The claim's plain fields checked: (id, when, expect, its lists by key)."""
    for key in c:
        if key not in _FIELDS:
            problem(*where(key), f"unknown field {key!r}; fields are {', '.join(sorted(_FIELDS))}")
    for key in _REQUIRED:
        if key not in c:
            problem(line, 1, f"claim lacks required field {key!r}")
    cid = c.get("id")
    if cid is not None and (not isinstance(cid, str) or not _ID.fullmatch(cid)):
        problem(*where("id"), f"bad id {cid!r}: use letters, digits, '.', '_', '-', ':'")
    elif cid in seen:
        problem(*where("id"), f"duplicate id {cid!r} (first at line {seen[cid]})")
    elif cid:
        seen[cid] = line
    for key in ("section", "statement", "note", "expr", "corrects", "separator", "pair", "relation", "anchor", "given"):
        if key in c and not isinstance(c[key], str):
            problem(*where(key), f"{key} must be a string")
    src_line = c.get("line")
    if src_line is not None and (type(src_line) is not int or not 1 <= src_line <= 10**7):
        problem(*where("line"), "line must be the statement's line number in the note (a positive integer)")
    anchor = c.get("anchor")
    if isinstance(anchor, str) and not _ANCHOR.fullmatch(anchor):
        problem(*where("anchor"), "anchor must be a URL fragment of letters, digits, '-', '_', '.' (no '#')")
    when = c.get("when")
    if when is not None and when not in WHEN:
        problem(*where("when"), f"when = {when!r}; choose one of {', '.join(WHEN)}")
    expect = c.get("expect")
    if expect is not None and expect not in ("holds", "refuted"):
        problem(*where("expect"), f"expect = {expect!r}; choose \"holds\" or \"refuted\"")
    lists = {}
    for key in ("variants", "assume", "datasets", "orders", "vectors", "scalars", "hypotheses", "steps", "free"):
        v = c.get(key)
        if v is None:
            continue
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            problem(*where(key), f"{key} must be a list of strings")
            continue
        lists[key] = tuple(v)
    for v in lists.get("variants", ()):
        if variant_of(v) is None:
            problem(*where("variants"), f"unknown variant {v!r}; choose from {', '.join(VARIANTS)}, or declare it "
                                        f"in a [variants.{v}] table")
    for a in lists.get("assume", ()):
        if a not in ASSUMPTIONS:
            problem(*where("assume"), f"unknown assumption {a!r}; choose from {', '.join(ASSUMPTIONS)}")
    return cid, when, expect, lists


def _compile_given(c: dict, when, lists: dict, free: dict, where, problem):
    """The premise (``given``): a condition on the same names as expr, where the claim applies."""
    src = c.get("given")
    if src is None:
        return None
    if when in ("symbolic", "pair", "once"):
        problem(*where("given"), f"given is a premise on a run or a dataset; a claim with when = {when!r} has none")
        return None
    if not isinstance(src, str):
        return None  # reported with the other string fields
    return _condition("given", src, when, lists, free, where, problem)


def _condition(key: str, src: str, when, lists: dict, free: dict, where, problem):
    """The field ``key`` (expr, given) compiled against the claim's names, available where the
    claim is evaluated, and a condition; None after reporting why not."""
    try:
        names = _names_with(free, lists.get("variants", ()))
        compiled = compile_expr(src, names)
        _check_availability(compiled, when, free, _declares_alpha(lists.get("variants", ())))
    except ExprError as e:
        ln, col = where(key)
        problem(ln, col + (e.col or 1), f"in {key}: {e.message}")
        return None
    if compiled.type != "bool":
        problem(*where(key), f"{key} must be a condition (a comparison), not a number or vector")
        return None
    return compiled


def _order_ok(order: str) -> bool:
    from perceptron.params import ParamError, parse_order

    try:
        parse_order(order)
    except ParamError:
        return False
    return True


def _check_pair(c: dict, when, pair, where, problem):
    """A pair claim names its second run and a relation; no other claim may."""
    if when == "pair":
        if not isinstance(pair, str) or not (pair in PAIRS and not pair.endswith(":NAME") or
                                             (pair.startswith("variant:") and variant_of(pair[8:]) is not None) or
                                             (pair.startswith("order:") and _order_ok(pair[6:]))):
            problem(*where("pair" if "pair" in c else "when"),
                    f"pair = {pair!r}; a pair claim needs pair = one of {', '.join(PAIRS)} "
                    f"(variant:NAME with NAME one of {', '.join(VARIANTS)}; order:NAME with an order the learner "
                    "runs: first, cyclic, random:SEED, max-violation, sequence:I,J,...)")
        if ("expr" in c) == ("relation" in c):
            problem(*where("relation" if "relation" in c else "when"),
                    "a pair claim states either a relation (" + ", ".join(RELATIONS) + ") or an expr on both runs' "
                    "ends (other_mistakes, other_w, ...), not both")
        elif "relation" in c and c.get("relation") not in RELATIONS:
            problem(*where("relation"), f"relation = {c.get('relation')!r}; choose one of {', '.join(RELATIONS)}")
        if "at" in c and (c["at"] not in ("end", "update") or "expr" not in c):
            problem(*where("at"), f"at = {c['at']!r}: a pair expr is evaluated at \"end\" (both runs' ends, the "
                    "default) or at \"update\" (each aligned update: the k-th of one run beside the k-th of the other)")
    elif "at" in c:
        problem(*where("at"), "at belongs to when = \"pair\" claims with an expr")
    if when != "pair" and ("pair" in c or "relation" in c):
        problem(*where("pair" if "pair" in c else "relation"), "pair and relation belong to when = \"pair\" claims")


def _compile(c: dict, when, lists: dict, free: dict, line: int, where, problem):
    """(the compiled expr or None, the compiled symbolic steps or None)."""
    compiled = None
    symbolic = None
    src = c.get("expr")
    if when == "symbolic":
        symbolic = _compile_symbolic(c, lists, where, problem)
    if isinstance(src, str) and when == "symbolic":
        problem(*where("expr"), "a symbolic claim states its proof in steps = [...] (and hypotheses), not expr")
    elif isinstance(src, str) and when != "pair":
        compiled = _condition("expr", src, when, lists, free, where, problem)
    elif isinstance(src, str):  # a pair claim's expr: both runs' ends (other_NAME: the partner's), and c
        compiled = _pair_condition(c, src, lists, free, where, problem)
    elif when in WHEN and when not in ("symbolic", "pair") and "expr" not in c:
        problem(line, 1, "claim lacks 'expr' (only symbolic claims may omit it)")
    if compiled is not None and free and not (set(free) & set(compiled.names)):
        problem(*where("free"), f"free names {', '.join(free)} do not occur in expr")
    return compiled, symbolic


def _pair_condition(c: dict, src: str, lists: dict, free: dict, where, problem):
    """A pair claim's expr, compiled against the first run's names at its end, the partner's as
    other_NAME (PAIR_NAMES) and c where the pair has one."""
    names = {**_names_with(free, lists.get("variants", ())), **{f"other_{k}": t for k, t in PAIR_NAMES.items()}}
    if isinstance(c.get("pair"), str) and c["pair"].endswith(":c"):
        names["c"] = "scalar"
    try:
        compiled = compile_expr(src, names)
        _check_availability(compiled, "end", free, _declares_alpha(lists.get("variants", ())))
    except ExprError as e:
        ln, col = where("expr")
        problem(ln, col + (e.col or 1), f"in expr: {e.message}")
        return None
    if compiled.type != "bool":
        problem(*where("expr"), "expr must be a condition (a comparison), not a number or vector")
        return None
    return compiled


def _source(path, note_path, document, line, anchor) -> dict | None:
    """Where the claim's statement is in the note: the note's path (relative to the claim file,
    from [document] path), the line and the section anchor, when the claim file gives them."""
    if line is None and anchor is None:
        return None
    out = {"path": os.path.normpath(os.path.join(os.path.dirname(path), note_path or document))}
    if line is not None:
        out["line"] = line
    if anchor is not None:
        out["anchor"] = anchor
    return out


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,30}$")


def _free_names(items, where, problem) -> dict:
    """``free = ["w", "c:scalar"]`` -> {"w": "vector", "c": "scalar"}."""
    from verify.language.quantifiers import FREE_TYPES

    out = {}
    if len(items) > MAX_FREE:
        problem(*where("free"), f"{len(items)} free names; a claim may have at most {MAX_FREE}")
        return out
    for item in items:
        name, _, ty = item.partition(":")
        ty = ty or "vector"
        if not _NAME.match(name) or ty not in FREE_TYPES:
            problem(*where("free"), f"bad free name {item!r}: write NAME or NAME:TYPE, TYPE one of {', '.join(FREE_TYPES)}")
            continue
        out[name] = ty
    return out


def with_notes_dir(items, notes_dir: str) -> list:
    """Claims (or drafts) whose note is not where their file says, pointed at NOTES_DIR/FILE
    (``run --notes``)."""
    out = []
    for c in items:
        src = c.source
        if src and not os.path.isfile(src["path"]) and os.path.isfile(os.path.join(notes_dir, c.document)):
            c = dataclasses.replace(c, source={**src, "path": os.path.join(notes_dir, c.document)})
        out.append(c)
    return out


def with_expr(claim: Claim, src: str) -> Claim:
    """The claim with the condition ``src`` as its expression and no premise, compiled against
    the claim's names: the search reads a claim with a premise as ``not (given) or (expr)``, and
    seeks the premise met as ``not (given)`` refuted."""
    compiled = compile_expr(src, _names_with(claim.free, claim.variants))
    return dataclasses.replace(claim, expr=src, compiled=compiled, given=None)


def _names_with(free: dict | None, variants=()):
    """The expression language's names with the quantities of the claim's declared variants
    (their parameters, state and outputs) and its free names (which shadow quantities)."""
    decls = [variant_of(v) for v in variants if getattr(variant_of(v), "declared", False)]
    names = dict(TYPES)
    if not free and not decls:
        return names
    for d in decls:
        names.update(d.types)
    free = free or {}
    names.update({k: ("vector" if ty == "vector" else "scalar") for k, ty in free.items()})
    return names


def _compile_symbolic(c, lists, where, problem):
    """Compile a symbolic claim's hypotheses and steps against its declared names (the expression
    language only: sympy and z3 are loaded when the steps are checked, not when a file is read)."""
    if not lists.get("steps"):
        problem(*where("when"), "a symbolic claim needs steps = [\"lhs <= rhs\", ...] (and optionally "
                                "vectors, scalars, hypotheses)")
        return None
    for key in ("vectors", "scalars"):
        for nm in lists.get(key, ()):
            if not _NAME.match(nm) or nm in ("dot", "norm", "norm2", "sqrt", "exp", "diff", "cat"):
                problem(*where(key), f"bad name {nm!r} in {key}")
                return None
    try:
        names = {v: "vector" for v in lists.get("vectors", ())}
        names.update({s: "scalar" for s in lists.get("scalars", ())})
        hyps = [compile_expr(h, names, symbolic=True) for h in lists.get("hypotheses", ())]
        steps = [compile_expr(s, names, symbolic=True) for s in lists.get("steps", ())]
        if any(t.type != "bool" for t in hyps + steps):
            raise ExprError("hypotheses and steps must be comparisons")
    except ExprError as e:
        problem(*where("steps"), f"in a step or hypothesis: {e.message}")
        return None
    return {"vectors": lists.get("vectors", ()), "scalars": lists.get("scalars", ()), "hypotheses": hyps, "steps": steps}


def _declares_alpha(variants) -> bool:
    """Whether one of the claim's declared variants names its own alpha (which then shadows ours)."""
    return any("alpha" in getattr(variant_of(v), "types", {}) for v in variants if getattr(variant_of(v), "declared", False))


def _names_under_prev(tree) -> set:
    """The names read inside some prev(...) of a compiled expression tree."""
    found: set = set()

    def walk(node, inside):
        if not isinstance(node, (tuple, list)):
            return
        if node and isinstance(node[0], str):  # a node: its tag, then its operands
            if node[0] == "name":
                if inside:
                    found.add(node[1])
                return
            inside, node = inside or node[0] == "prev", node[1:]
        for part in node:
            walk(part, inside)

    walk(tree, False)
    return found


def _check_availability(c: Compiled, when: str, free=(), declared_alpha: bool = False):
    names = set(c.names) - set(free or ())
    if when in ("dataset", "once"):
        bad = names & _RUN_NAMES
        if bad:
            raise ExprError(f"{', '.join(sorted(bad))} describe a run; a claim with when = {when!r} has none")
        if not c.uses_points and names & _STEP_NAMES:
            raise ExprError(f"{', '.join(sorted(names & _STEP_NAMES))} exist only at a visit or update, "
                            "or inside min_i/max_i/sum_i/all_i/any_i")
    if when == "once" and names:
        raise ExprError(f"a claim with when = 'once' is about numbers only; it uses {', '.join(sorted(names))}")
    if when == "end" and not c.uses_points and names & _STEP_NAMES:
        raise ExprError(f"{', '.join(sorted(names & _STEP_NAMES))} exist only at a visit or update")
    if c.uses_prev and when != "update":
        raise ExprError("prev(...) refers to the previous update; use it with when = 'update'")
    if names & END_NAMES and when in ("visit", "update"):
        raise ExprError(f"{', '.join(sorted(names & END_NAMES))}: defined at the end of a run only (use when = 'end')")
    if names & _SWEEP_NAMES and when not in ("visit", "update"):
        raise ExprError(f"{', '.join(sorted(names & _SWEEP_NAMES))} describe the sweep of a visit or update; "
                        "use when = 'visit' or 'update' (at the end, epochs counts the sweeps)")
    if "alpha" in names and (when not in ("visit", "update", "end") or not c.uses_points) and not declared_alpha:
        raise ExprError("alpha (the updates made on each point so far) is defined in a run (at a visit, an update "
                        "or the end), inside min_i/max_i/sum_i/all_i/any_i (e.g. sum_i(alpha) == k)")
    under = _names_under_prev(c.tree) - set(free or ())
    counts = under & (_SWEEP_NAMES | ({"alpha"} if not declared_alpha else set()))
    if counts:
        raise ExprError(f"{', '.join(sorted(counts))} inside prev(...): counts of the run so far, not a state "
                        "prev() goes back to (write the count itself, e.g. sweep_mistakes - 1)")
    step = under & _STEP_NAMES
    if step:
        raise ExprError(f"{', '.join(sorted(step))} inside prev(...): the current visit's, not a state's; prev() goes "
                        "back to the weights, bias, k and sumsq of an earlier state, not to an earlier update's point "
                        "(the current point against an earlier state is e.g. dot(prev(w), x))")


#: The built-in claim files (one per note), package data of ``verify``.
BUILTIN_CLAIMS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "claims")


def builtin_claim_files() -> list[str]:
    return sorted(os.path.join(BUILTIN_CLAIMS_DIR, f) for f in os.listdir(BUILTIN_CLAIMS_DIR) if f.endswith(".toml"))


def is_builtin(path: str) -> bool:
    """Whether path is one of the built-in claim files."""
    return os.path.dirname(os.path.abspath(path)) == BUILTIN_CLAIMS_DIR
