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
from verify.language.claim_exprs import (WHEN, check_pair, compile_claim_expr, compile_condition, compile_given, free_names,
                                         names_with)
from verify.language.budget import max_epochs
from verify.language.note_data import check_names, file_datasets
from verify.language.setting import Setting, setting_of
from verify.language.sides import split_implication
from verify.language.expr import Compiled, compile_expr

__all__ = ["Claim", "ClaimFile", "Draft", "with_expr", "with_notes_dir", "ClaimError", "load_claims", "claims_of", "builtin_claim_files", "WHEN"]

#: Most claims in one file.
MAX_CLAIMS = 2000

_FIELDS = {"id", "section", "statement", "expr", "variants", "when", "assume", "expect", "corrects",
           "datasets", "orders", "note", "vectors", "scalars", "hypotheses", "steps", "separator", "free", "pair",
           "relation", "line", "anchor", "given", "draft", "untranslated", "at", "max_epochs", "run"}
#: Entries of a [notation] table, and characters of one entry.
MAX_NOTATION, MAX_NOTATION_CHARS = 200, 200
_REQUIRED = ("id", "section", "statement", "when", "expect")
#: A claim id: letters, digits and . _ - : (a LaTeX note's labels, such as thm:novikoff, can be ids).
_ID = re.compile(r"[A-Za-z0-9_.:\-]{1,120}")
_ANCHOR = re.compile(r"[A-Za-z0-9_.\-]{1,200}")

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

    @property
    def conditions(self) -> tuple:
        """What the claim evaluates: its compiled expression, and its premise when it has one."""
        return (self.compiled,) + ((self.given,) if self.given is not None else ())


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
    free = free_names(lists.get("free", ()), where, problem)
    pair = c.get("pair")
    check_pair(c, when, pair, where, problem)
    if free and when != "dataset":
        problem(*where("free"), f"free names are evaluated once per dataset (when = \"dataset\"), not with when = {when!r}")
    if when in ("visit", "update", "end", "pair") and not lists.get("variants"):
        problem(*where("when"), f"a claim evaluated at each {when} needs variants = [...]")
    compiled, symbolic = compile_claim_expr(c, when, lists, free, line, where, problem)
    given = compile_given(c, when, lists, free, where, problem)
    implied = None if given is not None or compiled is None or when not in ("visit", "update", "end", "dataset") \
        else split_implication(c.get("expr", ""))
    if implied is not None:  # A or B: the implication "not A -> B", counted only where A is false
        given = compile_condition("expr", f"not ({implied[0]})", when, lists, free, where, problem)
        compiled = compile_condition("expr", implied[1], when, lists, free, where, problem)
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
    compiled = compile_expr(src, names_with(claim.free, claim.variants))
    return dataclasses.replace(claim, expr=src, compiled=compiled, given=None)


#: The built-in claim files (one per note), package data of ``verify``.
BUILTIN_CLAIMS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "claims")


def builtin_claim_files() -> list[str]:
    return sorted(os.path.join(BUILTIN_CLAIMS_DIR, f) for f in os.listdir(BUILTIN_CLAIMS_DIR) if f.endswith(".toml"))


def is_builtin(path: str) -> bool:
    """Whether path is one of the built-in claim files."""
    return os.path.dirname(os.path.abspath(path)) == BUILTIN_CLAIMS_DIR
