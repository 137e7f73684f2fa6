"""``proof-audit draft NOTE``: a draft claim file from a lecture note.

Every statement the note's reader finds (verify.notes.source) becomes a claim with its line,
anchor, section and text as written; its relation is read into the claim language through
the notation table (verify.notes.latex).  Assumptions are proposed from the note's own
sentences ("w_1 = 0", "eta = 1", "linearly separable", a stated order) and marked
``# review:``.  A statement with a part that has no reading is kept as a draft claim
(``draft = true``, ``untranslated`` naming the part): listed by ``claims lint`` and ``run``,
never evaluated.  The drafter never repairs a statement: a false one is drafted as written.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import tempfile

from perceptron.errors import InputError
from perceptron.limits import parse_toml, read_bytes
from perceptron.outputs import write_file
from verify.notes.note_run import (data_claims, fact_expr, names_a_point, one_runs_value, run_facts, section_of,
                                   unread_scores)
from verify.notes.proposals import RUN_TIMES as _RUN
from verify.notes.proposals import START_ZERO, Proposals, proposals
from verify.notes.reading import initial_weights, translate
from verify.notes.source import Note, Statement, read_note, statements
from verify.notes.worked_example import rate_symbol
from verify.notes.written_data import note_data
from verify.language.assumptions import CONVERGED, ETA_ONE, FORM_HALF, SIGN0_ZERO, W0_ZERO

__all__ = ["draft", "write_draft", "Proposals", "proposals", "definition_of", "SETS"]

#: A statement that sets the learning rate ("eta = 0.5"): a setting of the run, not a claim.
_ETA_SET = re.compile(r"\s*(\\eta|η)\s*=\s*([0-9./]+)\s*[.,;]?\s*")
#: A sentence that introduces notation ("Let R = max ||x_i||", "where gamma = ...", "define ...").
_DEFINES = re.compile(r"\b(let|define[sd]?|denote[sd]?|we write|write|where|set)\b[^.]{0,80}$", re.I)
_DEFINED = re.compile(r"\s*\\?[A-Za-z]+(_\{?\w+\}?)?\s*(=|:=|\\coloneqq|\\equiv|\\triangleq)")

_BOUND = re.compile(r"(mistakes|updates|corrections|errors|iterations|steps)[^.]{0,120}?(bounded(?: above)? by|at most|"
                    r"no more than|no larger than)\s*:?\s*$", re.I | re.S)


#: Words with which a note disowns a relation it writes ("written as ... it would be wrong").
_DISOWNED = re.compile(r"\b(would be|is|are) (wrong|false|incorrect)\b|\bdoes not hold\b|\bnot true\b|\bincorrect(ly)?\b|"
                       r"\ba (common|typical) (mistake|error)\b", re.I)


#: A statement about every start ("from any initial weight vector"): the note's w_0 = 0 is not its.
#: A sentence that gives the algorithm's prediction rule ("predict 1 when w·x + b > 0", "the
#: output is +1 if ..."): its relation is the rule's condition, not something the run satisfies.
_PREDICTION_RULE = re.compile(r"\b(predicts?|outputs?|classif(y|ies)|returns?|labels?|says?)\b[^.;]{0,60}?\b(when|if|iff|"
                              r"whenever)\b", re.I)
#: "after M mistakes" / "after k updates": a count of the mistakes so far at a step.
_SO_FAR = re.compile(r"\b(after|once)\s+\$?\\?[A-Za-z]\w{0,8}\$?\s+(mistakes|updates|errors|corrections)\b", re.I)
_ANY_W0 = re.compile(r"\b(any|every|all|arbitrary)\s+(non-?zero\s+)?(initial|starting)\s+(weights?|weight vectors?|"
                     r"vectors?|points?|values?)|\b(any|arbitrary|whatever)\s+\$?\\?(w|theta|θ)(_\{?0\}?|₀)|\bany\s+start\b|"
                     r"\b(start(s|ed|ing)?|initiali[sz]ed)\s+anywhere\b|"
                     r"\b(regardless of|independent(ly)? of|(does not|doesn't|do not|don't) depend on)\s+(where|how)\s+"
                     r"(we|it|one|you|the (run|algorithm|perceptron))\s+(starts?|begins?|initiali[sz]es?)|"
                     r"\bwherever\s+(we|it|one|you)\s+(starts?|begins?)", re.I)


#: "for all i" in the sentence, the i written plain or as math ($i$).
_FORALL = re.compile(r"for (all|every|each) \$?i\b")
#: The sentence speaks of the run's end: its unindexed w is the final one.
_AT_END = re.compile(r"\b(when|once|after|where)\s+(the\s+)?(algorithm|perceptron|it|run|training|learning)\s+"
                     r"(stops|terminates|halts|ends|converges|has converged|has stopped)|\bfinal (weights?|weight vector|w)\b",
                     re.I)


#: How a draft that sets the note's run or notation (its learning rate, initial weights, data,
#: prediction rule) begins its reason: such a statement has no truth of its own, and the page
#: shows it as defining the note (verify.notes.annotate), never greying a line a claim checks.
SETS = "sets the note's run or notation: "

#: Words with which a sentence asserts something of its math (it is then no mere setting).
_ASSERTS = re.compile(r"\b(times|as many|more|fewer|less|needs?|changes?|depends?|faster|slower|halve[sd]?|"
                      r"doubles?|doubled|triples?|quadruples?|would|never|always|at most|at least|bound(ed)?|"
                      r"increases?|decreases?)\b", re.I)
#: A sentence that speaks of what is not (a separator XOR "would need"), or supposes: its math is
#: no statement about the note's runs.
_HYPOTHETICAL = re.compile(r"\b(would|impossible|imagine|hypothetical(ly)?|if there were)\b", re.I)
#: An assignment in an algorithm ("w ← w₀", "w := w_0"), and a reading that only starts the state there.
_ASSIGNS = re.compile(r"←|\\leftarrow|\\gets|:=")
_STARTS_AT = re.compile(r"\(?(?:w == w0|b == b0)\)?(?: and \(?(?:w == w0|b == b0)\)?)*")
#: Quantities of a dataset alone: "R = 3" of the note's data is one dataset's value.
_DATA_NAMES = {"R", "R2", "gamma", "n", "d", "w_opt", "b_opt"}
#: Where a clause of a sentence begins: a comma, colon or semicolon, or a word that opens one.
_CLAUSE = re.compile(r"[,;:]\s|\b(?:because|since|otherwise|hence|thus|so that|we have|we get|then)\b", re.I)
#: "... from any $w_1$ with <math>": the math is the premise of a claim said in words.
_PREMISE = re.compile(r"\b(any|every|each|all)\s+\S{1,40}\s+(with|such that|satisfying|where)\s*\$?\s*$", re.I)
_WITHOUT_MATH = re.compile(r"\$[^$]*\$|\\\(.*?\\\)")
#: The initial bias: "b₀ = 0", "b_0 = 0".
_B0_SET = re.compile(r"\s*b_\{?0\}?\s*=\s*[-+]?[0-9./]+\s*")

#: A counter set at the algorithm's start: "k = 0", "t ← 1".
_COUNTER_SET = re.compile(r"\s*[kt]\s*(?:=|:=|\\leftarrow|\\gets|←)\s*[01]\s*")
#: The output at a score of 0, as the note sets it: "sign(0) = −1", "sgn(0) := +1".
_SIGN0_SET = re.compile(r"\s*(?:\\operatorname\{)?(?:sign|sgn)\}?\s*\(\s*0\s*\)\s*(?:=|:=|\\coloneqq)\s*[+−-]?\s*[01]\s*")
#: A point of the note's data written out, with or without its label: "x_1 = (1, 1), y_1 = +1".
_DATA_POINT = re.compile(r"\s*x_\{?\w{1,4}\}?\s*=\s*[(\[][^()\[\]]{1,200}[)\]]\s*"
                         r"(?:,?\s*(?:\\quad\s*)?y_\{?\w{1,4}\}?\s*=\s*[+−-]?\s*1\s*)?|\s*y_\{?\w{1,4}\}?\s*=\s*[+−-]?\s*1\s*")


#: A pseudo-code assignment of a new name: "net = w₁x₁ + w₂x₂ + b" (one "=", nothing compared).
_ASSIGNED = re.compile(r"\s*([A-Za-z]\w{0,12})\s*=(?!=)[^=<>]*")
#: Names a pseudo-code line may assign that are the run's own (their assignment is a step, not notation).
_RUN_NAMES = {"w", "b", "k", "t", "x", "y", "R", "eta", "gamma", "M"}


def definition_of(s: Statement, notation: dict | None = None) -> str | None:
    """What a statement sets rather than asserts, or None: the run's initial weights or learning
    rate, or a definition of notation (``R := max ||x_i||``, "Let R = ...").  The page shows such a
    statement as defining the note, not as one no claim checks."""
    if s.math is None:
        return None
    if initial_weights(s.math, notation) is not None:
        return "sets the run's initial weights (state it as w0_zero, or run = { w0 = ... })"
    if _DATA_POINT.fullmatch(s.math):
        return ("a point of the note's data (written out with what the note says its run did, or as a worked "
                "example's table, it becomes the [[dataset]] of the claims about that run)")
    if _B0_SET.fullmatch(s.math):
        return "sets the run's initial bias (state it as run = { b0 = ... })"
    if _COUNTER_SET.fullmatch(s.math):
        return "sets the run's counter at its start (k = 0: no update yet)"
    if _SIGN0_SET.fullmatch(s.math):
        return ("sets the algorithm's output at a score of 0, its tie rule (state it as run = { sign0 = ... } with "
                "variants = [\"sign\"])")
    if not s.display and _PREDICTION_RULE.search(s.text):
        return "the algorithm's prediction rule: it says which variant the note's runs are"
    if _ETA_SET.fullmatch(s.math):
        return "sets the learning rate (state it as run = { eta = ... } or eta_one)"
    if re.search(r"\\leftarrow|\\gets", s.math):
        return "a step of the algorithm (it is the claims' variant and run = {...}; or transcribe it as an update claim)"
    if s.code and (m := _ASSIGNED.fullmatch(s.math)) and m.group(1) not in _RUN_NAMES:
        return "defines notation the claims use (an assignment of the algorithm's pseudo-code)"
    if re.search(r":=|\\coloneqq|\\triangleq|\\equiv", s.math) or (
            _DEFINED.match(s.math) and _DEFINES.search((s.context or "")[-120:].split("$")[0] if s.context else "")):
        return "defines notation the claims use"
    return None


def _id(prefix: str, s: Statement, used: set) -> str:
    base = re.sub(r"[^A-Za-z0-9_.:\-]+", "-", s.label).strip("-") if s.label else f"{prefix}.L{s.line}"
    base = base[:100] or f"{prefix}.L{s.line}"
    cid, n = base, 2
    while cid in used:
        cid, n = f"{base}-{n}", n + 1
    used.add(cid)
    return cid


def draft(note_path: str, notation: dict | None = None) -> tuple[Note, list[dict], Proposals]:
    """The note read, and one claim (a dict of fields, plus ``review`` comments) per statement."""
    note = read_note(note_path)
    found = statements(note)
    rate = rate_symbol(note.text)  # "a learning rate $\lambda > 0$": the note's lambda is eta, unless it says otherwise
    notation = {**({rate: "eta"} if rate else {}), **(notation or {})}
    props = proposals(note, found, notation)
    props.written = note_data(note.text)
    prefix = re.sub(r"[^A-Za-z0-9_]+", "_", os.path.splitext(os.path.basename(note_path))[0]).strip("_")[:40] or "note"
    used: set = set()
    claims = []
    for s in found:
        claims.extend(_claims(s, _id(prefix, s, used), notation or {}, props, used))
    claims = _of_the_notes_data(claims)
    claims.extend(_table_claims(note, found, prefix, props, used))
    claims = _with_data_claims(note, claims, prefix, props, used)
    claims += unread_scores(claims, lambda cid: _unique(cid, used))
    return note, claims, props


#: Why a value of the note's own data is a draft.
_ONE_DATASET = ("a value of one dataset ({}), the note's own: give its data ([[dataset]], datasets = [...]) to check it; "
                "no other data need have it")


def _of_the_notes_data(claims: list) -> list:
    """``claims`` where a claim about every dataset reads a quantity its section fixed to numbers by
    then ("Take u = (1, −1)/√2. Every point has y (u·x) ≥ 1/√2") is a draft like that value: a statement about the note's data, not every dataset's."""
    fixes: dict = {}  # section -> ([line, ...], [the names fixed up to that line, ...]), in line order
    for line, section, names in sorted((c["line"], c["section"], c.pop("fixes")) for c in claims if "fixes" in c):
        lines, upto = fixes.setdefault(section, ([], []))
        lines.append(line)
        upto.append((upto[-1] if upto else frozenset()) | set(names))
    out = []
    for c in claims:
        lines, upto = fixes.get(c["section"], ((), ()))
        at = bisect.bisect_right(lines, c["line"]) if not c.get("draft") and c.get("when") == "dataset" else 0
        read = set(re.findall(r"[A-Za-z_]\w*", c["expr"])) & upto[at - 1] if at else set()
        if read:
            c = {**{k: c[k] for k in ("id", "line", "anchor", "section", "statement")}, "draft": True,
                 "untranslated": _ONE_DATASET.format(c["expr"]) + f" (its section fixes {', '.join(sorted(read))} "
                                                                  "to numbers)"}
        out.append(c)
    return out


#: A line that works a step at a lettered point: "B: ...", "point B) ...", "Step 1, P: ...", "Update 2 (Q): ...".
_STEP_AT = re.compile(r"\s*(?:(?i:step|iteration|update|visit)\s*\d{1,3}\s*[,:.]?\s*)?(?:(?i:at|on)\s+)?(?:(?i:point)\s+)?"
                      r"\(?([A-Z])\s*[:),]")


def _of_one_run(s, t, letters=frozenset()) -> str | None:
    """Why a translated statement is of the note's own run and no other's (None when it is not):
    a value one run reaches, or a step at the point it names ("x₁ gives w·x = 0", or "B: y·(w·x)
    = 2" where the note's data names its points A, B, C, ``letters``: the note's point read as
    every run's x would make it a claim about every visit)."""
    # (a step worked at a lettered point computes a number, "= 2": a general statement in a lettered list does not)
    lettered = _STEP_AT.match(s.text) if re.search(r"=\s*[−-]?\d", s.text) else None
    if t.when in _RUN + ("visit",) and "x" in t.names and (names_a_point(s.text) or lettered and lettered.group(1) in letters):
        return (f"a step of the note's own run at the point it names ({t.expr}): give its data and setting "
                "([[dataset]], datasets = [...], run = {...}) and the step (given = \"t == ...\") to check it; "
                "another run's visits need not agree")
    if t.when in _RUN and one_runs_value(t.expr):
        return (f"a value of one run ({t.expr}), the note's worked example: give its data and setting ([[dataset]], "
                "datasets = [...], run = {...}) to check it; no other run need reach it")
    return None


def _with_data_claims(note: Note, claims: list, prefix: str, props: Proposals, used: set) -> list:
    """``claims`` with the note's data written out and what it says its run did
    (verify.notes.note_run): a fact's claim takes the place of the draft its line had ("a value
    of one run ... give its data", or a worked step's arithmetic it could not read), now that the
    line is read as the run's.  A line read as a step of that run (its weights after one visit) is
    the run's arithmetic: its "w·x = 0" speaks of that visit, not of every run, and leaves with the
    drafts."""
    values = [(c, *c.pop("one_run")) for c in claims if "one_run" in c]
    datasets, facts = data_claims(note.text, lambda cid: _unique(f"{prefix}.{cid}", used), props.datasets, values)
    props.datasets.extend(datasets)
    replaced = {c["id"] for c in facts}  # a value of one run now read on the note's run (or a draft that says why not)
    read = {c["line"] for c in facts + claims if not c.get("draft") and c.get("datasets")}  # the note's run, read there
    steps = {c["line"] for c in facts if c.get("when") == "visit"}
    kept = [c for c in claims if c["id"] not in replaced and not (c["line"] in read and c.get("draft") and not c.get("untranslated", "").startswith(SETS))
            and not (c["line"] in steps and not c.get("datasets") and c.get("when") in _RUN + ("visit",))]
    return kept + facts


def _table_claims(note: Note, found: list, prefix: str, props: Proposals, used: set) -> list:
    """The note's worked examples: each iteration table read (verify.notes.worked_example) as a
    [[dataset]] (in ``props.datasets``) and a claim per printed weight vector; a table that
    looks like one but cannot be read is a draft that says why."""
    from perceptron._numbers import format_rational as fr
    from verify.notes.worked_example import read_example, tables

    names = {n: p for d in props.written for n, p in zip(d.names, d.points)}  # "A = (2, 2)": a table's "A"

    out = []
    under = section_of(note.text)
    for table in tables(note.text):
        ex, why = read_example(table, note.text, names)
        if ex is None and why is None:
            continue
        section = under(table.line)  # the heading the table is under
        head = {"line": table.line, "anchor": f"L{table.line}", "section": section,
                "statement": "the worked example's table: " + " | ".join(table.header)[:300]}
        if ex is None:
            out.append({**head, "id": _unique(f"{prefix}.table{table.line}", used), "draft": True,
                        "untranslated": f"a worked example's table, not read: {why}"})
            continue
        name = f"table-{table.line}"
        props.datasets.append({"name": name, "points": [[fr(v) for v in p] for p in ex.points], "labels": ex.labels})
        p = ex.params
        d = len(ex.points[0])
        run = {"eta": fr(p.eta), "w0": [fr(v) for v in p.w0[:d]], "augment": "last" if p.augment else "none"}
        if p.augment:  # the table's bias, the last coordinate of the weights
            run["b0"] = fr(p.w0[d])
        if p.variant == "sign":
            run.update(sign0=p.sign0, form=p.form)
        review = [f"the table read as the note's run on its {len(ex.points)} points, in the order of its rows (cyclic): "
                  f"{ex.rule}, eta = {fr(p.eta)}, w0 = ({', '.join(map(fr, p.w0))})"
                  + (" (its last coordinate the bias b)" if p.augment else "") + " -- the rule, of those the drafter "
                  f"knows, that the learner agrees with on the most rows from the first ({ex.agreed} of "
                  f"{len(table.rows)}); check it is the note's"]
        for line, when, given, w in ex.claims:
            row = next(" | ".join(cells) for ln, cells in table.rows if ln == line)
            c = {"id": _unique(f"{prefix}.table{table.line}.L{line}", used), "line": line, "anchor": f"L{line}",
                 "section": section, "statement": f"the table's row: {row}"[:600],
                 "expr": "w == vec(" + ", ".join(map(fr, w)) + ")", "when": when, "variants": [p.variant],
                 "datasets": [name], "orders": ["cyclic"], "run": run, "expect": "holds",
                 "note": "the weights the note prints " + ("at the run's end" if when == "end" else
                                                            "after this row (at the next visit, before its update)"),
                 "review": review if not out or out[-1].get("datasets") != [name] else []}
            if given:
                c["given"] = given
            out.append(c)
        last = table.rows[-1][0]
        for fact in run_facts(note.text, last + 1, last, p.eta):  # "one mistake in total": what the run did
            if (expr := fact_expr(fact, p, d)) is None:
                continue
            line = fact.line
            out.append({"id": _unique(f"{prefix}.table{table.line}.L{line}", used), "line": line, "anchor": f"L{line}",
                        "section": section, "statement": fact.sentence[:600], "expr": expr, "when": "end",
                        "variants": [p.variant], "datasets": [name], "orders": ["cyclic"], "run": run, "expect": "holds",
                        "note": "what the prose after the table says its run did", "review": []})
    return out


def _unique(cid: str, used: set) -> str:
    while cid in used:
        cid += "b"
    used.add(cid)
    return cid


def _claims(s: Statement, cid: str, notation: dict, props: Proposals, used: set) -> list[dict]:
    """The statement's claim; a chain (``a = b <= c``, or the rows of an aligned block) gives one
    claim per link, so each line of a proof gets its own verdict."""
    c = _claim(s, cid, notation, props)
    links = c.pop("links", [])
    if c.get("draft") or len(links) < 2:
        return [c]
    out = []
    for j, expr in enumerate(links, 1):
        lid = f"{cid}.{j}"
        while lid in used:
            lid += "b"
        used.add(lid)
        out.append({**c, "id": lid, "expr": expr, "note": f"link {j} of {len(links)} of the chain as written",
                    "review": c["review"] if j == 1 else []})
    return out


def _claim(s: Statement, cid: str, notation: dict, props: Proposals) -> dict:
    out = {"id": cid, "line": s.line, "anchor": s.anchor, "section": s.section or "(no section)",
           "statement": re.sub(r"\s+", " ", s.text).strip()[:600]}
    if s.math is None:
        return {**out, "draft": True, "untranslated": "a statement in words, with no relation to read: transcribe it "
                                                        "by hand (proof-audit claims lint --explain checks a reading)"}
    if not s.display and _PREDICTION_RULE.search(s.text):
        return {**out, "draft": True, "untranslated": SETS + "the algorithm's prediction rule (its relation is the rule's "
                                                        "condition): it says which variant the note's runs are, "
                                                        "not something a run satisfies"}
    if initial_weights(s.math, notation) is not None or (re.match(r"\s*(initiali[sz]e|initially|start|begin)", s.context, re.I)
                               and re.fullmatch(r"\s*[A-Za-z]\s*=\s*0\s*", s.math)):
        return {**out, "draft": True, "untranslated": SETS + "the algorithm's initial value: a setting of the run, " + (
            "proposed as assume = [\"w0_zero\"] on the run claims" + (
                " after it, until the note states another start" if props.starts_elsewhere() else ""))}
    if _DATA_POINT.fullmatch(s.math) or _B0_SET.fullmatch(s.math) or _SIGN0_SET.fullmatch(s.math) or \
            _COUNTER_SET.fullmatch(s.math):
        return {**out, "draft": True, "untranslated": SETS + definition_of(s, notation)}
    eta = _ETA_SET.fullmatch(s.math)
    if eta and _ASSERTS.search(_WITHOUT_MATH.sub(" ", s.text)):  # "because η = 0.25, training needs four times ...
        return {**out, "draft": True, "untranslated": "a statement about runs with this learning rate, in words: "
                                                        "not read (transcribe it by hand, e.g. a pair claim "
                                                        "pair = \"eta:c\")"}
    if eta:
        one = eta.group(2).rstrip(".") in ("1", "1.0")
        return {**out, "draft": True, "untranslated": SETS + "the algorithm's learning rate: a setting of the run, " + (
            ("proposed as an assumption (eta_one) on the run claims" if ETA_ONE in props.assume else
             "not proposed for every claim (its sentence says more): add eta_one to the claims it is about") if one else
            f"not an assumption: state it as run = {{ eta = \"{eta.group(2).rstrip('.')}\" }} on the claims about "
            "the note's own run (with datasets = [...])")}
    if not s.display and not s.code and (why := _not_a_claim(s)):
        return {**out, "draft": True, "untranslated": why}
    in_proof = bool(re.search(r"\bproof\b", s.section, re.I))
    t = translate(s.math, notation, base=props.base, forall=bool(_FORALL.search(_lead_sentence(s.context))), running=in_proof,
                  ends=bool(_AT_END.search(s.context)))
    if t.expr is None and "no relation (nothing compared)" in t.untranslated and _BOUND.search(s.context or ""):
        t = translate("M \\leq " + s.math, notation, base=props.base)  # "... is bounded by <display>"
    if t.expr is None:
        why = definition_of(s, notation)  # "where R = max ||x_i||": notation, not something to check
        return {**out, "draft": True, "untranslated": SETS + why if why else "; ".join(t.untranslated)[:300]}
    if t.names and t.names <= {"eta"}:  # "pick a learning rate 0 < eta < 1": what the run is given, not what it does
        return {**out, "draft": True, "untranslated": SETS + "a condition on the learning rate: a setting of the run, proposed as "
                                                      "an assumption (eta_le_one or eta_one) on the run claims"}
    if t.when in _RUN and _ASSIGNS.search(s.math) and _STARTS_AT.fullmatch(t.expr):  # "w ← w₀" in the algorithm
        return {**out, "draft": True, "untranslated": SETS + f"the algorithm's start ({t.expr}): every run starts there"}
    if t.when in _RUN and one_runs_value(t.expr) and t.names <= {"w0", "b0"}:
        return {**out, "draft": True, "untranslated": SETS + f"the run's initial weights ({t.expr}): state them as "
                                                             "assume = [\"w0_zero\"] or run = { w0 = [...] }"}
    if t.when == "dataset" and one_runs_value(t.expr) and t.names <= _DATA_NAMES:  # "for our data R = 3"
        return {**out, "draft": True, "fixes": sorted(t.names), "untranslated": _ONE_DATASET.format(t.expr)}
    if (why := _of_one_run(s, t, {n for d in props.written for n in d.names})) is not None:  # a claim on the note's own run, its data written out
        return {**out, "draft": True, "one_run": (t.expr, t.when), "untranslated": why}
    so_far = _SO_FAR.search(f"{s.context} {s.text}")
    if t.when in ("update", "visit") and so_far and re.search(r"\bmistakes\b", t.expr):
        # "after M mistakes, ...": M counts the mistakes so far (k), not the whole run's
        t.expr = re.sub(r"\bmistakes\b", "k", t.expr)
        t.links = [re.sub(r"\bmistakes\b", "k", link) for link in t.links]
    if t.when in _RUN and t.names & {"b", "w_hat", "x_hat"} and props.bias[1] and not props.bias[0]:
        return {**out, "draft": True, "untranslated": f"a statement of the run's bias, whose update the note writes as "
                f"{props.bias[1][:80]}: no built-in variant updates b so (sklearn: b += eta y; novikoff: b += eta y "
                "R^2); declare the note's rule as a variant (docs: declared variants) and name it in variants"}
    out.update(expr=t.expr, when=t.when)
    review = _variant_and_assumptions(s, t, out, props)
    if props.order and t.when in _RUN:
        review.append(f"the note states an order ({props.order}): add orders = [\"cyclic\"] to hold the claim to it")
    out["expect"] = "holds"
    disowned = None if s.display else _DISOWNED.search(s.text)  # the sentence that holds the relation, not its neighbours
    if disowned:  # the note itself says this is wrong: transcribed as its refutation
        out["expect"] = "refuted"
        review.append(f"expect = \"refuted\": the note's sentence says this relation is wrong ({disowned.group()})")
    out["review"] = review
    out["links"] = t.links
    return out


def _lead_sentence(context: str) -> str:
    """The last sentence of the prose before a statement (a display's "for all i:"), not the
    paragraphs before it (a theorem's "for every i" does not make the next display's x_i any point)."""
    return re.split(r"(?<=[.!?])\s+|\n\s*\n", context or "")[-1]


def _not_a_claim(s: Statement) -> str | None:
    """Why the relation of a statement in prose is no claim of its own, or None: its sentence
    supposes or speaks of what is not ("a separator would need $b < 0$"), or the relation is the
    premise of a claim said in words ("the same bound holds from any $w_1$ with $\\|w_1\\| \\le \\gamma$")."""
    at = s.text.find(s.math)
    clause = _WITHOUT_MATH.sub(" ", s.text[:at] if at >= 0 else s.text)
    clause = _CLAUSE.split(clause)[-1]  # the clause the relation is in: "..., because otherwise it would" is another's
    if m := _HYPOTHETICAL.search(clause):
        return (f"a sentence that supposes or speaks of what is not ({m.group()}): its math is no statement about the "
                "note's runs; transcribe it by hand if it is one")
    if at > 0 and (m := _PREMISE.search(s.text[max(0, at - 120):at].rstrip("\\( "))):
        return (f"the premise of a claim said in words ({m.group().strip().rstrip('$ ')} ...: {s.math.strip()[:60]}): transcribe the "
                "claim it is the premise of, with given = \"...\" (or an assumption) for this relation")
    return None


def _variant_and_assumptions(s: Statement, t, out: dict, props: Proposals) -> list:
    """The claim's variant, assumptions and premise (into ``out``), each from the statement and
    its section, never from another statement; returns the review comments that say why."""
    review = []
    if t.when in _RUN or t.when == "dataset":  # a dataset claim's separator is the variant's (with a bias or not)
        bias = t.names & {"b", "w_hat", "x_hat", "b_opt", "w_hat_opt"}
        # a statement of the output (out = sign(w.x)) is about the variant that has one; one of the
        # bias, about the variant whose bias update the note writes (novikoff's when it writes none);
        # any other, about the note's algorithm: with the bias update it writes, when it is one of ours
        # (a bound it states for it is kept as written: "k <= R^2/gamma^2" with b <- b + eta y is false)
        with_bias = props.bias[0] or "novikoff"
        biased = bool(bias) or props.bias[0] is not None
        out["variants"] = ["sign"] if "out" in t.names and not bias else [with_bias] if biased else ["rosenblatt"]
        review.append("variants: the note's algorithm" + (f" (with a bias: {props.bias[1]})" if biased and props.bias[1]
                                                           else " (with a bias)" if biased else "")
                      + "; proof-audit has rosenblatt, novikoff, sklearn, sign, kernel, pocket, ... (README)")
    assume = props.for_claim(t.names, t.when, s.line)
    if out.get("variants") == ["sign"] and re.search(r"\(y - out\)", t.expr):
        assume = assume + [FORM_HALF]  # w += eta (y - out) x / 2, as the statement writes it: the 0/1-label form
        props.assume.setdefault(FORM_HALF, "the statement writes the update with (y - out)")
    if out.get("variants") == ["sign"] and re.search(r"\bout\b.*\bsign\(|\bsign\(.*\bout\b", t.expr):
        # the note writes the output as sign(...) itself, whose value at 0 is 0: its tie rule
        assume = assume + [SIGN0_ZERO]
        props.assume.setdefault(SIGN0_ZERO, "the statement writes the output as sign(...), which is 0 at 0")
    anyw0 = _ANY_W0.search(f"{s.context} {s.text}")
    if W0_ZERO in assume and anyw0:  # the statement's own words widen what the note's algorithm fixes
        assume = [a for a in assume if a != W0_ZERO]
        review.append(f"assume: not w0_zero: the statement speaks of any initial weights ({anyw0.group()})")
    if t.when == "end" and re.search(r"converge|terminat|halts|no more mistakes|stops", s.context, re.I):
        assume = assume + [CONVERGED]
        props.assume.setdefault(CONVERGED, "the sentence speaks of the run once it has converged")
    own = _own_clause(s)
    if t.when in _RUN and W0_ZERO not in assume and not anyw0 and START_ZERO.search(own or s.text):
        assume = assume + [W0_ZERO]  # "started from w = 0, a run ...": the statement's own hypothesis
        props.assume.setdefault(W0_ZERO, "the statement: " + START_ZERO.search(own or s.text).group())
    eta_here = re.search(r"(\\eta|η)\s*=\s*1(?![\d./]|\s*/)", own)
    if t.when in _RUN and eta_here and ETA_ONE not in assume:  # "with η = 1, the weights satisfy ...": its hypothesis
        assume = assume + [ETA_ONE]
    eta_c = re.search(r"(\\eta|η)\s*=\s*\$?\s*(\d+(?:\.\d+)?(?:/\d+)?)(?![\d.])", own)
    if t.when in _RUN and eta_c and not eta_here and "eta" not in t.names and ETA_ONE not in assume:
        # "with η = 1/2, at most ... mistakes": the statement's own hypothesis, a premise on the run's eta
        out["given"] = f"eta == {eta_c.group(2)}"
        review.append(f"given: the statement's own hypothesis ({eta_c.group()})")
    if assume:
        out["assume"] = assume
        review.append("assume: " + "; ".join(f"{a} ({props.assume.get(a) or 'the statement: ' + eta_here.group()})"
                                             for a in assume))
    return review


def _own_clause(s: Statement) -> str:
    """The clause of the statement's sentence that holds its math (clauses split at ";"): a
    hypothesis there ("with η = 1, ...") is the statement's own; one in another clause is not."""
    from verify.notes.unicode_math import to_latex

    clauses = re.split(r";", s.context or s.text or "")
    math = re.sub(r"\s+", "", s.math or "")
    for c in clauses:
        if math and (math in re.sub(r"\s+", "", c) or math in re.sub(r"\s+", "", to_latex(c))):
            return c
    return clauses[0] if len(clauses) == 1 else ""


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):  # an inline table (a run's setting)
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    return json.dumps(v, ensure_ascii=False)  # a JSON string is a TOML basic string


_ORDER = ("id", "line", "anchor", "section", "statement", "given", "expr", "when", "variants", "assume", "datasets",
          "orders", "run", "expect", "note", "draft", "untranslated")


def _one_line(name: str) -> str:
    """Text in a TOML comment (a file name, a review quoting the note): its control characters (a
    newline would end the comment and start TOML) written as escapes."""
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029]", lambda m: repr(m.group())[1:-1], name)


def write_draft(note: Note, claims: list[dict], out_path: str, notation_text: str, datasets=()) -> str:
    """The draft claim file's text; ``datasets``: the note's own ([[dataset]] tables)."""
    rel = os.path.relpath(os.path.abspath(note.path), os.path.dirname(os.path.abspath(out_path)))
    drafts = sum(1 for c in claims if c.get("draft"))
    lines = [f"# Draft claims of {_one_line(os.path.basename(note.path))}: {len(claims)} claims on "
             f"{len({c['line'] for c in claims})} statements, "
             f"{len(claims) - drafts} read into the claim language, {drafts} left as drafts.",
             "# Written by `proof-audit draft`. Check each claim marked \"review:\", finish or delete each",
             "# draft (draft = true: listed, never evaluated), then: proof-audit run --claims "
             f"{_one_line(os.path.basename(out_path))}",
             "", "[document]", f"file = {_toml_value(os.path.basename(note.path))}",
             f"title = {_toml_value(note.title or os.path.basename(note.path))}", f"path = {_toml_value(rel)}", ""]
    lines += [notation_text.rstrip(), ""]
    for d in datasets:
        lines += ["[[dataset]]  # the note's own data (its worked example), exactly as the note prints it"]
        lines += [f"{k} = {_toml_value(v)}" for k, v in d.items()] + [""]
    for c in claims:
        lines.append("[[claim]]")
        for r in c.get("review", []):
            lines.append(f"# review: {_one_line(r)}")
        for key in _ORDER:
            if key in c:
                lines.append(f"{key} = {_toml_value(c[key])}")
        lines.append("")
    return "\n".join(lines)


def _notation_of(out_path: str) -> tuple[dict, str]:
    """The [notation] table of an earlier draft at ``out_path`` (kept when drafting again)."""
    default = ("[notation]\n# The note's symbols that the default table reads otherwise, e.g.\n"
               "# \"\\\\alpha\" = \"gamma\"\n# \"\\\\theta\" = \"w\"")
    if not os.path.exists(out_path):
        return {}, default
    text = read_bytes(out_path, 1 << 20, "claim").decode("utf-8", "replace")
    table = parse_toml(out_path, text).get("notation", {})
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise InputError(out_path, "[notation] must be a table of \"LaTeX symbol\" = \"claim-language name\"")
    from verify.notes.reading import normalise_symbol

    body = "\n".join(f"{_toml_value(k)} = {_toml_value(v)}" for k, v in table.items())
    return {normalise_symbol(k): v for k, v in table.items()}, "[notation]\n" + body


def _finish(note, claims, out, notation_text, datasets=()) -> str:
    """The draft's text, with every reading the claim language refuses turned into a draft
    that names why: the file the drafter writes always passes ``claims lint``."""
    from verify.language.lint import lint

    folder = os.path.dirname(out) or "."
    for _ in range(3):
        text = write_draft(note, claims, out, notation_text, datasets)
        # linted as a temporary file beside it (its relative paths resolve the same): a draft
        # that does not pass is never left where the user asked for one
        fd, tmp = tempfile.mkstemp(prefix=".draft-", suffix=".toml", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            problems = lint([tmp])
            if not problems:
                write_file(out, text)
                return text
        finally:
            os.unlink(tmp)
        starts = [j + 1 for j, ln in enumerate(text.split("\n")) if ln == "[[claim]]"]
        for e in problems:
            k = max((j for j, at in enumerate(starts) if at <= (e.line or 1)), default=None)
            if k is None or claims[k].get("draft"):
                raise InputError(out, f"the draft does not pass lint: line {e.line}: {e.message}")
            c = claims[k]
            claims[k] = {key: c[key] for key in ("id", "line", "anchor", "section", "statement")}
            claims[k].update(draft=True, untranslated=f"the reading {c.get('expr')!r} (when = {c.get('when')!r}) "
                                                       f"is not a claim: {e.message}"[:300])
    raise InputError(out, "the draft does not pass lint after three rounds")


def cmd_draft(args) -> int:
    out = args.out or os.path.join(os.path.dirname(args.note) or ".", "claims_" + os.path.splitext(
        os.path.basename(args.note))[0] + ".toml")
    if os.path.exists(out) and not args.force:
        raise InputError(out, "exists; pass --force to write the draft over it (its [notation] table is kept)")
    notation, notation_text = _notation_of(out)
    note, claims, props = draft(args.note, notation)
    if not claims:
        raise InputError(args.note, "no statements found (no displayed relation, no inline relation with = < > ≤ ≥ ≠, "
                                    "no numbered statement): nothing to draft")
    _finish(note, claims, out, notation_text, props.datasets)
    drafts = [c for c in claims if c.get("draft")]
    print(f"{out}: {len(claims)} claims on {len({c['line'] for c in claims})} statements of {args.note}; "
          f"{len(claims) - len(drafts)} read into claims (review the proposed assumptions), {len(drafts)} left as drafts")
    for c in drafts:
        print(f"  line {c['line']}: {c['id']}: {c['untranslated']}")
    print(f"next: proof-audit run --claims {out}")
    return 0
