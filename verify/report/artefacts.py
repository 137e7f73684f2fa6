"""Reports people and CI tools read, all built from results.json (so `proof-audit report`
rebuilds them without re-running anything): report.md, junit.xml, results.sarif, index.html
(self-contained, matplotlib SVG plots inline), and, under
GitHub Actions, error annotations and a step summary.  Deterministic: same results, same bytes.
"""

from __future__ import annotations

import html as H
import json
import os
import re
import xml.etree.ElementTree as ET

from perceptron.outputs import write_file
from verify.report.claim_text import clipped, coverage_text, failure_text
from verify.report.figures import page_figures, unique_ids
from verify.report.html_safety import CSP_META, safe_href, verdict_help

__all__ = ["write_artefacts", "markdown", "junit_xml", "sarif", "github_annotations", "html"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL = "proof-audit"


def _md_text(s) -> str:
    """Text quoted in report.md as text: no raw HTML (``<`` ``>`` ``&`` as references), no inline
    link or image (``](`` and ``![`` broken by an escape), on one line."""
    s = str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return s.replace("](", "]\\(").replace("![", "!\\[").replace("\r", " ").replace("\n", " ")


def _md_cell(s) -> str:
    return _md_text(s).replace("|", "\\|")


def _md_code(s) -> str:
    """An id as inline code: a code span's text is not Markdown; a backtick or '|' in it is
    shown as plain escaped text instead."""
    s = str(s)
    return f"`{s}`" if re.fullmatch(r"[A-Za-z0-9_.:\-]+", s) else _md_cell(s)


def _md_fence(text: str) -> list[str]:
    """``text`` in a fenced block whose fence is longer than any run of backticks in it."""
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, run + 1)
    return [fence, text, fence]


def markdown(results: dict) -> str:
    out = ["# Proof audit", ""]
    claims = results["claims"]
    unexpected = [c for c in claims if not c["as_expected"]]
    out.append(f"{len(claims)} claims over {len(results['corpus']['datasets'])} datasets and {results['corpus']['runs']} runs: "
               f"{len(claims) - len(unexpected)} as expected, {len(unexpected)} unexpected."
               + _shown([c for c in claims if c["verdict"] not in ("refuted", "unknown")]).replace(" (", " Not refuted: ", 1)
               .rstrip(")"))
    out.append("")
    docs: dict = {}
    for c in claims:
        docs.setdefault(c["document"], []).append(c)
    for doc, cs in docs.items():
        out += [f"## {_md_text(doc)}", "", "| claim | statement as written | verdict | expected | evidence | smallest slack |",
                "|---|---|---|---|---|---|"]
        for c in cs:
            ev = c["evidence"]
            if "steps" in ev:
                evid = f"{sum(s['verdict'] == 'proved' for s in ev['steps'])}/{len(ev['steps'])} steps proved"
                if ev.get("hypotheses"):  # a claim about one update: what its proof assumed (verify.symbolic.one_step)
                    evid += " given " + "; ".join(ev["hypotheses"])
            else:
                evid = coverage_text(c)
            slack = ""
            if isinstance(ev.get("min_slack"), dict):
                ms = ev["min_slack"]
                slack = ms["exact"] if len(ms["exact"]) <= 20 else (f"~{ms['approx']:.3g}" if ms['approx'] is not None else f"a number of {len(ms['exact'])} characters")
            mark = "" if c["as_expected"] else " **UNEXPECTED**"
            out.append(f"| {_md_code(c['id'])} | {_md_cell(c['statement'])} | {_md_cell(c['verdict'])}{mark} | {_md_cell(c['expect'])} "
                       f"| {_md_cell(evid)} | {_md_cell(slack)} |")
        out.append("")
    details = [c for c in claims if c["verdict"] in ("refuted", "unknown")]
    if details:
        out += ["## Refuted and unknown claims", ""]
        for c in details:
            out += [f"### {_md_code(c['id'])}: {_md_text(c['verdict'])}" + ("" if c["as_expected"] else " (UNEXPECTED)"),
                    "", *_md_fence(failure_text(c)), ""]
            if c.get("note"):
                out += [f"Note: {_md_text(c['note'])}", ""]
    tight = results["corpus"].get("tightness") or []
    if tight:
        out += ["## Tightness", "", "Worst (updates / bound) over the search domain.", "", "| bound | ratio | updates | bound value | dataset |", "|---|---|---|---|---|"]
        for t in tight:
            out.append(f"| {_md_code(t['claim'])} | {t['worst_ratio']:.4f} | {_md_cell(t['updates'])} | {t['bound_value']:.4g} "
                       f"| {_md_cell(t['dataset'])} {_md_cell(t['labels'])} |")
        out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------- JUnit

def junit_xml(results: dict) -> str:
    """One testsuite per note, one testcase per claim; a claim whose verdict is what its file
    expects (refuted ones included) passes."""
    claims = results["claims"]
    root = ET.Element("testsuites", name=TOOL, tests=str(len(claims)),
                      failures=str(sum(1 for c in claims if not c["as_expected"])), errors="0")
    docs: dict = {}
    for c in claims:
        docs.setdefault(c["document"], []).append(c)
    for doc, cs in docs.items():
        suite = ET.SubElement(root, "testsuite", name=doc, tests=str(len(cs)),
                              failures=str(sum(1 for c in cs if not c["as_expected"])), errors="0", skipped="0")
        for c in cs:
            case = ET.SubElement(suite, "testcase", classname=doc, name=c["id"])
            where = f"{c['file']}:{c['line']}"
            if not c["as_expected"]:
                f = ET.SubElement(case, "failure", message=f"{where}: verdict {c['verdict']}, expected {c['expect']}", type="UnexpectedVerdict")
                f.text = failure_text(c)
            out = ET.SubElement(case, "system-out")
            out.text = f"{where}: verdict {c['verdict']}; covered: {coverage_text(c)}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ----------------------------------------------------------------------------- SARIF

#: What each kind of unexpected verdict means, and what to do about it (SARIF rule help).
_RULES = {
    "refuted": ("ClaimRefuted", "A claim the file expects to hold is refuted",
                "The audit found a counterexample to the claim and confirmed it by replaying it: a dataset and a run "
                "of the algorithm on which the claimed statement is false.",
                "The message gives the counterexample, both sides of the failing comparison and a command that "
                "replays it. If the note is wrong, keep the claim as written with expect = \"refuted\" and add the "
                "corrected statement beside it (corrects = \"<id>\"); if the transcription is wrong, fix the claim."),
    "unknown": ("ClaimUnknown", "The evidence cannot decide a claim",
                "A solver said unknown or ran out of time, a limit was reached, or a quantifier of the claim was never "
                "varied by the evidence: the audit does not know whether the claim holds.",
                "The message gives the reason. Widen the corpus or the search domain ([tool.proof-audit.search]), or "
                "state the assumption the note makes, so that the evidence covers what the claim ranges over."),
    "holds": ("ClaimNotRefuted", "A claim the file expects to be refuted was not refuted",
              "The file says the note's statement is false (expect = \"refuted\"), but no counterexample was found: "
              "the corpus and the search domain satisfied it.",
              "Check the expectation; if the statement is false, search a larger domain (proof-audit search) for "
              "a counterexample."),
}


def _rule_key(c) -> str:
    if c["verdict"] == "refuted":
        return "refuted"
    return "unknown" if c["verdict"] == "unknown" else "holds"


def _locations(c) -> tuple[list, list]:
    """(locations, related locations) of a finding: the statement's line in the note when the
    claim file gives it (reviewers see the finding on the prose), and the claim in its TOML file."""
    toml = {"physicalLocation": {"artifactLocation": {"uri": c["file"], "uriBaseId": SRCROOT},
                                 "region": {"startLine": int(c["line"] or 1)}},
            "message": {"text": f"claim {c['id']}"}}
    from verify.report.results import find_file

    src = c.get("source")
    if src and src.get("line") and find_file(src["path"]):  # a note not on this machine is no location
        note = {"physicalLocation": {"artifactLocation": {"uri": src["path"], "uriBaseId": SRCROOT},
                                     "region": {"startLine": int(src["line"])}},
                "message": {"text": f"statement of claim {c['id']} ({c['citation']})"}}
        return [note], [{"id": 1, **toml}]
    return [toml], []


#: The base the SARIF file locations are relative to: the repository root.
SRCROOT = "SRCROOT"


def _information_uri() -> str | None:
    """The project's home page from its package metadata, when it declares one (never a placeholder)."""
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        for entry in metadata("proof-audit").get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            if label.strip().lower() in ("homepage", "home", "repository", "source", "documentation"):
                return url.strip()
    except PackageNotFoundError:
        pass
    return None


def sarif(results: dict) -> dict:
    """SARIF 2.1.0: one result per unexpected verdict, located at the statement in the note (when
    the claim file gives its line) and at the claim in its TOML file, relative to the repository
    root (uriBaseId SRCROOT), so code scanning shows it on the file whatever directory ran it."""
    used, res = {}, []
    for c in results["claims"]:
        if c["as_expected"]:
            continue
        key = _rule_key(c)
        rid = "unexpected-verdict/" + key
        used[key] = rid
        locs, related = _locations(c)
        r = {"ruleId": rid, "level": "error", "message": {"text": failure_text(c)}, "locations": locs,
             "partialFingerprints": {"claimId": c["id"]}}
        if related:
            r["relatedLocations"] = related
        res.append(r)
    rules = []
    for key, rid in sorted(used.items(), key=lambda kv: kv[1]):
        name, short, full, help_text = _RULES[key]
        rules.append({"id": rid, "name": name, "shortDescription": {"text": short}, "fullDescription": {"text": full},
                      "help": {"text": help_text, "markdown": help_text},
                      "defaultConfiguration": {"level": "error"}, "properties": {"tags": ["proof-audit", "correctness"]}})
    from verify.report.results import package_version

    driver = {"name": TOOL, "version": package_version(), "rules": rules}
    uri = _information_uri()
    if uri:
        driver["informationUri"] = uri
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": driver},
                      "originalUriBaseIds": {SRCROOT: {"description": {
                          "text": "The repository root: $GITHUB_WORKSPACE under GitHub Actions, else the git top level "
                                  "of the claim file (paths of files in no repository are absolute)"}}},
                      "results": res}]}


# ----------------------------------------------------------------------------- GitHub

def _escape_data(s: str) -> str:
    """A workflow command's message (GitHub's rules: %, CR, LF)."""
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(s: str) -> str:
    """A workflow command's property value: also ':' and ',' (a comma in a path ends the value)."""
    return _escape_data(str(s)).replace(":", "%3A").replace(",", "%2C")


def github_annotations(results: dict) -> list[str]:
    """::error workflow commands for unexpected verdicts (GitHub Actions), on the statement's
    line in the note when the claim file gives it, else on the claim's line in its TOML file."""
    out = []
    for c in results["claims"]:
        if not c["as_expected"]:
            src = c.get("source") or {}
            file, line = (src["path"], src["line"]) if src.get("line") else (c["file"], c["line"] or 1)
            props = ",".join(f"{k}={_escape_property(v)}" for k, v in
                             (("file", file), ("line", line), ("title", f"proof-audit {c['id']}")))
            out.append(f"::error {props}::{_escape_data(failure_text(c))}")
    return out


_SUMMARY_BEGIN = "<!-- proof-audit summary: begin -->"
_SUMMARY_END = "<!-- proof-audit summary: end -->"


def write_step_summary(path: str, md: str) -> None:
    """Put the report in $GITHUB_STEP_SUMMARY once: a second write in the same step (run, then
    report) replaces the first instead of appending a copy."""
    block = f"{_SUMMARY_BEGIN}\n{md}\n{_SUMMARY_END}\n"
    try:
        with open(path, encoding="utf-8") as fh:
            old = fh.read()
    except FileNotFoundError:
        old = ""
    if _SUMMARY_BEGIN in old and _SUMMARY_END in old:
        head, _, rest = old.partition(_SUMMARY_BEGIN)
        _, _, tail = rest.partition(_SUMMARY_END + "\n")
        text = head + block + tail
    else:
        text = old + block
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _link_root(out_dir: str, results: dict) -> str | None:
    """The repository root relative to the report directory, when the claim files are there
    (so the page links to them); else None (locations shown as text)."""
    from verify.report.results import repo_root

    root = repo_root(os.path.join(out_dir, "index.html"))
    if root is None:
        return None
    if not all(not os.path.isabs(c["file"]) and os.path.isfile(os.path.join(root, c["file"])) for c in results["claims"]):
        return None
    rel = os.path.relpath(root, os.path.abspath(out_dir)).replace(os.sep, "/")
    return "" if rel == "." else rel + "/"


def write_artefacts(out_dir: str, results: dict, env=None, github: bool = True, figures=None,
                    notes_dir: str | None = None, claim_files: dict | None = None) -> list[str]:
    """Write report.md, junit.xml, results.sarif, index.html beside results.json; under GitHub
    Actions (and ``github``) also print annotations and put the summary in $GITHUB_STEP_SUMMARY.
    ``figures``: the page's corpus plots rendered already (figures_of), else rendered here."""
    from verify.notes.annotate import write_notes

    env = os.environ if env is None else env
    paths = []
    md = markdown(results)
    notes = write_notes(out_dir, results, notes_dir, claim_files)
    for name, text in (("report.md", md + "\n"), ("junit.xml", junit_xml(results)),
                       ("results.sarif", json.dumps(sarif(results), indent=1, sort_keys=True) + "\n"),
                       ("index.html", html(results, _link_root(out_dir, results), figures, notes))):
        p = os.path.join(out_dir, name)
        write_file(p, text)
        paths.append(p)
    if github and env.get("GITHUB_ACTIONS") == "true":
        from verify.report.github_text import print_command  # ours, past the guard on stdout

        for line in github_annotations(results):
            print_command(line)
        summary = env.get("GITHUB_STEP_SUMMARY")
        if summary:
            write_step_summary(summary, md)
    return paths


# ----------------------------------------------------------------------------- HTML

def _status(c) -> str:
    from verify.report.results import status

    return status(c["as_expected"], c["verdict"])


_STATUS_TEXT = {"unexpected": "unexpected verdict", "found": "error in the note (refuted as expected)",
                "unknown": "unknown", "ok": "not refuted, as expected"}
_STATUS_PLURAL = {"unexpected": "unexpected verdicts", "found": "errors in the notes (refuted as expected)",
                  "unknown": "unknown", "ok": "not refuted, as expected"}


def _statements(claims, where: str) -> str:
    """How many statements of the note(s) the claims are on ("3 statements of the note"): a
    statement is its note and line (several claims may transcribe one)."""
    n = len({(c["document"], (c.get("source") or {}).get("line", c["line"])) for c in claims})
    return f"{n} statement{'s' if n != 1 else ''} of {where}"


def _summary_counts(claims, by_status: dict, notes: int) -> str:
    """The page's summary: statements transcribed as holding and refuted (errors found in the
    note as written), other unexpected verdicts, errors refuted as their file expects, unknown
    verdicts (whatever was expected), and the rest."""
    false = [c for c in claims if c["verdict"] == "refuted" and c["expect"] == "holds"]
    unknown = [c for c in claims if c["verdict"] == "unknown"]
    other = [c for c in by_status.get("unexpected", []) if c not in false and c not in unknown]
    where = "the note" if notes == 1 else "the notes"
    spans = []
    if false:
        spans.append(("unexpected", len(false), f"unexpected verdict{'s' if len(false) != 1 else ''}: "
                                                f"claim{'s' if len(false) != 1 else ''} found false, on "
                                                f"{_statements(false, where)}"))
    if other or not false:
        spans.append(("unexpected", len(other), ("other " if false else "") + "unexpected verdict"
                      + ("s" if len(other) != 1 else "")))
    spans += [("found", len(by_status.get("found", [])), _plural("found", by_status)),
              ("unknown", len(unknown), "unknown"),
              ("ok", len(by_status.get("ok", [])), _plural("ok", by_status) + _shown(by_status.get("ok", [])))]
    return " ".join(f'<span class="{cls}">{n} {text}</span>' for cls, n, text in spans)


def _shown(claims) -> str:
    """What the claims not refuted showed, kept apart: a proof, the corpus with its quantities
    varied, or no counterexample in a searched domain (a scope, not a proof)."""
    kinds = (("proved", "proved"), ("holds on evidence", "hold on evidence"),
             ("no counterexample in domain", "without counterexample up to their searched scope"))
    parts = [f"{n} {text}" for verdict, text in kinds if (n := sum(1 for c in claims if c["verdict"] == verdict))]
    by_points: dict = {}
    for c in claims:
        scope = c["evidence"].get("scope") if c["verdict"] == "no counterexample in domain" else None
        if isinstance(scope, dict) and isinstance(scope.get("points"), int):
            by_points[scope["points"]] = by_points.get(scope["points"], 0) + 1
    if by_points and parts and parts[-1].endswith("scope"):
        other = sum(1 for c in claims if c["verdict"] == "no counterexample in domain") - sum(by_points.values())
        parts[-1] += ": " + ", ".join([f"{n} up to {p} point{'' if p == 1 else 's'}" for p, n in sorted(by_points.items())]
                                      + ([f"{other} in the corpus and their free names' values"] if other else []))
    return f" ({'; '.join(parts) if by_points else ', '.join(parts)})" if parts else ""


def _plural(st: str, by_status: dict) -> str:
    return (_STATUS_TEXT if len(by_status.get(st, [])) == 1 else _STATUS_PLURAL)[st]


def _anchor(cid: str) -> str:
    return H.escape("claim-" + str(cid))


#: The page's style sheet (the status filter is CSS alone: no script).
_CSS = ("body{font-family:system-ui,sans-serif;margin:0;color:#222}"
       "header{background:#f4f4f6;padding:1em 2em;border-bottom:1px solid #ddd}"
       "nav{position:sticky;top:0;background:#fff;padding:.5em 2em;border-bottom:1px solid #ddd;z-index:1}"
       "nav a{margin-right:1em}main{padding:0 2em 2em;max-width:1200px}"
       ".summary span{display:inline-block;margin:.2em .6em .2em 0;padding:.2em .6em;border-radius:4px}"
       ".unexpected{background:#fdd}.found{background:#ffe9c2}.ok{background:#e8f6e8}.unknown{background:#eee}"
       ".badge{font-size:12px;padding:.1em .5em;border-radius:4px;border:1px solid #bbb;font-weight:normal}"
       ".card{border:1px solid #ccc;border-radius:6px;padding:.3em 1em;margin:.8em 0}"
       ".card.unexpected{border-color:#d33}.card.found{border-color:#d90}"
       "pre,.details{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}"
       "table{border-collapse:collapse;margin:.5em 0 1.5em;width:100%;table-layout:fixed}"
       "td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px;vertical-align:top;overflow-wrap:anywhere;text-align:left}"
       "th:nth-child(1){width:17%}th:nth-child(2){width:28%}th:nth-child(3){width:13%}th:nth-child(4){width:7%}"
       ".where{font-size:12px;color:#555}figure{margin:1em 0;overflow-x:auto}"
       ".filters{padding:0 2em;font-size:14px}.filters label{margin-right:1em;cursor:pointer;text-decoration:underline}"
       "input.f{display:none}"
       + "".join(f"#f-{k}:checked~.filters label[for=f-{k}]{{font-weight:bold;text-decoration:none}}"
                 for k in ("all", "unexpected", "found", "unknown", "ok")) +
       "#f-unexpected:checked~main tr.row:not(.unexpected),#f-found:checked~main tr.row:not(.found),"
       "#f-unknown:checked~main tr.row:not(.unknown),#f-ok:checked~main tr.row:not(.ok){display:none}")


def _loc_links(c, link_root) -> str:
    """Where a claim is: its claim file's line (linked when the page knows the repository) and the note's."""
    where = f"{c['file']}:{c['line']}"
    out = H.escape(where)
    if link_root is not None:
        out = f'<a href="{H.escape(safe_href(link_root + str(c["file"])))}#L{H.escape(str(c["line"]))}">{out}</a>'
    src = c.get("source")
    if src:
        frag = src.get("anchor") or (f"L{src['line']}" if src.get("line") else "")
        text = H.escape(f"{src['path']}" + (f":{src['line']}" if src.get("line") else "") +
                        (f" #{src['anchor']}" if src.get("anchor") else ""))
        out += " &middot; note: " + (f'<a href="{H.escape(safe_href(link_root + str(src["path"])))}#{H.escape(str(frag))}">{text}</a>'
                                     if link_root is not None else text)
    return out



def _card(c, link_root, corrected_by) -> str:
    """A refuted or unexpected claim in full: why, where, and its corrected form."""
    st = _status(c)
    return (f'<article class="card {st}" id="{_anchor(c["id"])}-detail"><h3><a href="#{_anchor(c["id"])}">'
            f'{H.escape(c["id"])}</a> <span class="badge {st}">{H.escape(c["verdict"])}</span>{verdict_help(c["verdict"])}</h3>'
            f'<p class="where">{H.escape(c["citation"])} &middot; {_loc_links(c, link_root)}</p>'
            f'<pre>{H.escape(failure_text(c))}</pre>'
            + "".join(f'<p>Corrected form: <a href="#{_anchor(k["id"])}">{H.escape(k["id"])}</a> '
                      f'({H.escape(k["verdict"])}): {H.escape(k["statement"])}</p>' for k in corrected_by.get(c["id"], []))
            + "</article>")



def _notes_links(notes, results) -> str:
    """The annotated notes (notes/NAME.html) and the draft claims, named in the header."""
    out = ""
    if notes:
        out += "<p>The notes, annotated: " + ", ".join(
            f'<a href="{H.escape(n["href"])}">{H.escape(n["title"])}</a> ({n["counts"]["false"]} false, '
            f'{n["counts"]["unknown"]} unknown, {n["counts"]["unchecked"]} not checked of {n["counts"]["found"]} '
            "statements)" for n in notes) + "</p>"
    drafts = results.get("drafts", [])
    if drafts:
        out += (f"<p>{len(drafts)} draft claim{'s' if len(drafts) != 1 else ''} not evaluated (draft = true): "
                + ", ".join(f'<span id="{_anchor(d["id"])}">{H.escape(d["id"])}</span> ({H.escape(clipped(d["untranslated"], 80))})'
                           for d in drafts) + "</p>")
    return out


def _note_table(j, doc, cs, link_root) -> list[str]:
    """One note's claims, a table row each."""
    parts = []
    title = cs[0].get("title") or doc
    small = f' <small class="where">({H.escape(doc)})</small>' if title != doc else ""
    parts.append(f'<section id="note-{j}"><h2>{H.escape(title)}{small}</h2>'
                 "<table><tr><th>claim</th><th>statement as written</th><th>verdict</th><th>expected</th>"
                 "<th>details</th></tr>")
    for c in cs:
        st = _status(c)
        detail = (f'<div class="details">{H.escape(coverage_text(c))}</div>' if st == "ok"
                  else f'<div class="details"><a href="#{_anchor(c["id"])}-detail">details</a>: '
                       f"{H.escape(failure_text(c).splitlines()[0])}</div>" if st in ("unexpected", "found")
                  else f'<div class="details">{H.escape(failure_text(c))}</div>')
        corr = (f'<br><small>corrects <a href="#{_anchor(c["corrects"])}">{H.escape(c["corrects"])}</a></small>'
                if c.get("corrects") else "")
        cls = st + (" unknown" if c["verdict"] == "unknown" and st != "unknown" else "")  # both filters show it
        parts.append(f'<tr class="row {cls}" id="{_anchor(c["id"])}"><td><code>{H.escape(c["id"])}</code>{corr}'
                     f'<br><span class="where">{_loc_links(c, link_root)}</span></td><td>{H.escape(c["statement"])}'
                     f'<br><span class="where">{H.escape(c["citation"])}</span></td>'
                     f'<td>{H.escape(c["verdict"])}<br><small>{_STATUS_TEXT[st]}{verdict_help(c["verdict"])}</small></td><td>{H.escape(str(c["expect"]))}</td>'
                     f"<td>{detail}</td></tr>")
    parts.append("</table></section>")
    return parts


def html(results: dict, link_root: str | None = None, figures=None, notes=()) -> str:
    """One self-contained page (inline SVG plots, no scripts, no external resources): a summary,
    the unexpected verdicts first, then the errors found in the notes, then every note's claims
    (filterable by status with CSS alone), then the plots of the notes audited.  ``link_root``:
    the repository root relative to the page, to link each claim to its line in its TOML file
    (and the note's section when the claim file gives it)."""

    claims = results["claims"]
    by_status: dict = {}
    for c in claims:
        by_status.setdefault(_status(c), []).append(c)
    docs: dict = {}
    for c in claims:
        docs.setdefault(c["document"], []).append(c)

    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">', CSP_META,
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>Proof audit: {len(by_status.get('unexpected', []))} unexpected</title>",
             f"<style>{_CSS}</style></head><body>"]
    counts = _summary_counts(claims, by_status, len(docs))
    corrected_by: dict = {}
    for c in claims:
        if c.get("corrects"):
            corrected_by.setdefault(c["corrects"], []).append(c)
    corpus = results["corpus"]
    parts.append(f'<header><h1>Proof audit</h1><p class="summary">{len(claims)} claims from {len(docs)} '
                 f'note{"s" if len(docs) != 1 else ""}, over {len(corpus.get("datasets", []))} datasets and '
                 f'{corpus.get("runs", 0)} runs: {counts}</p>' + _notes_links(notes, results) + '</header>')
    figs = page_figures(results, figures)
    nav = ['<a href="#unexpected">Unexpected</a>', '<a href="#found">Errors found</a>']
    nav += [f'<a href="#note-{j}">{H.escape(cs[0].get("title") or doc)}</a>' for j, (doc, cs) in enumerate(docs.items())]
    if figs:
        nav.append('<a href="#plots">Plots</a>')
    parts.append("<nav>" + "".join(nav) + "</nav>")
    # the filter: radio buttons, siblings before <main>, hide rows by CSS sibling selectors (no script)
    filters = (("all", "all"), ("unexpected", "unexpected"), ("found", "errors in the notes"), ("unknown", "unknown"),
               ("ok", "not refuted"))
    for key, _ in filters:
        parts.append(f'<input class="f" type="radio" name="filter" id="f-{key}"{" checked" if key == "all" else ""}>')
    parts.append('<p class="filters">Show claims: ' + "".join(f'<label for="f-{k}">{t}</label>' for k, t in filters) + "</p>")
    parts.append("<main>")
    unexpected = by_status.get("unexpected", [])
    parts.append(f'<section id="unexpected"><h2>Unexpected verdicts ({len(unexpected)})</h2>')
    false = sum(1 for c in unexpected if c["verdict"] == "refuted" and c["expect"] == "holds")
    if false:
        wrong = [c for c in unexpected if c["verdict"] == "refuted" and c["expect"] == "holds"]
        parts.append(f"<p>{false} claim{'s' if false != 1 else ''} transcribed as holding {'are' if false != 1 else 'is'} "
                     f"refuted, on {_statements(wrong, 'the notes' if len(docs) > 1 else 'the note')}: each card shows the "
                     "counterexample, both sides and the command that replays it. Keep the statement, set its expect to "
                     "\"refuted\" and write the corrected form beside it.</p>")
    parts.append("".join(_card(c, link_root, corrected_by) for c in unexpected) if unexpected else
                 "<p>None: every verdict is what its claim file expects.</p>")
    parts.append("</section>")
    found = by_status.get("found", [])
    parts.append(f'<section id="found"><h2>Errors found in the notes ({len(found)})</h2>')
    parts.append("<p>Statements kept as written and refuted, as their claim files expect, each with its corrected "
                 "form where the claim file gives one.</p>" + "".join(_card(c, link_root, corrected_by) for c in found) if found else
                 "<p>None: no claim file expects a refutation that was found.</p>")
    parts.append("</section>")
    for j, (doc, cs) in enumerate(docs.items()):
        parts += _note_table(j, doc, cs, link_root)
    if figs:
        parts.append('<section id="plots"><h2>Plots</h2>')
        for k, (title, svg) in enumerate(figs):
            parts.append(f"<figure>{unique_ids(svg, f'fig{k}-')}<figcaption>{H.escape(title)}</figcaption></figure>")
        parts.append("</section>")
    parts.append("</main></body></html>")
    return "\n".join(p for p in parts if p) + "\n"
