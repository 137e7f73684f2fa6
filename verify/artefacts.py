"""Reports people and CI tools read, all built from results.json (so `proof-audit report`
rebuilds them without re-running anything): report.md, junit.xml, results.sarif, and, under
GitHub Actions, error annotations and a step summary.  Deterministic: same results, same bytes.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

__all__ = ["write_artefacts", "markdown", "junit_xml", "sarif", "github_annotations"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL = "proof-audit"


def _sides(ev) -> str:
    ce = ev.get("counterexample") or {}
    if "search" in ce:
        ce = ce["search"]["violation"] if isinstance(ce.get("search"), dict) else ce
    if "sides" in ce:
        ops = ce.get("ops", [])
        out = ce["sides"][0]
        for o, s in zip(ops, ce["sides"][1:]):
            out += f" {o} {s}"
        return out + "  (false)"
    return ""


def _failure_text(c) -> str:
    """The explanation shown for a claim whose verdict is not what the file expects."""
    ev = c["evidence"]
    lines = [f"{c['id']} ({c['citation']}): verdict {c['verdict']}, expected {c['expect']}",
             f"statement: {c['statement']}"]
    if c.get("expr"):
        lines.append(f"expr: {c['expr']}")
    ce = ev.get("counterexample")
    if ce:
        if "search" in ce:
            s = ce["search"]
            lines.append("counterexample (search): points " + ", ".join(f"{tuple(p)} -> {y:+d}" for p, y in zip(s["points"], s["labels"]))
                         + f"; updates {s['updates']}" + (f"; separator v = {tuple(s['separator']['v'])}" if s.get("separator") else ""))
            v = s["violation"]
            if "sides" in v:
                lines.append("sides: " + f" {v['ops'][0]} ".join(v["sides"]) + "  (false)")
        else:
            where = ", ".join(f"{k} = {ce[k]}" for k in ("data", "run", "t", "k", "point") if k in ce)
            lines.append(f"counterexample: {where}")
            if _sides(ev):
                lines.append("sides: " + _sides(ev))
    if ev.get("replay"):
        lines.append(f"replay: {ev['replay']}")
    for st in ev.get("steps", []):
        if st["verdict"] != "proved":
            lines.append(f"step {st['step']!r}: {st['verdict']} ({st.get('detail', st['method'])})")
    if ev.get("reason"):
        lines.append(f"reason: {ev['reason']}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- Markdown

def _md_cell(s) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def markdown(results: dict) -> str:
    out = ["# Proof audit", ""]
    claims = results["claims"]
    unexpected = [c for c in claims if not c["as_expected"]]
    out.append(f"{len(claims)} claims over {len(results['corpus']['datasets'])} datasets and {results['corpus']['runs']} runs: "
               f"{len(claims) - len(unexpected)} as expected, {len(unexpected)} unexpected.")
    out.append("")
    docs: dict = {}
    for c in claims:
        docs.setdefault(c["document"], []).append(c)
    for doc, cs in docs.items():
        out += [f"## {doc}", "", "| claim | statement as written | verdict | expected | evidence | smallest slack |",
                "|---|---|---|---|---|---|"]
        for c in cs:
            ev = c["evidence"]
            if "steps" in ev:
                evid = f"{sum(s['verdict'] == 'proved' for s in ev['steps'])}/{len(ev['steps'])} steps proved"
            elif "evaluations" in ev:
                evid = f"{ev['evaluations']} evaluations in {ev['applicable_runs']} runs"
                if isinstance(ev.get("search"), dict) and ev["search"].get("verdict"):
                    evid += f"; search: {ev['search']['verdict']}"
            else:
                evid = ev.get("method", "")
            slack = ""
            if isinstance(ev.get("min_slack"), dict):
                ms = ev["min_slack"]
                slack = ms["exact"] if len(ms["exact"]) <= 20 else f"~{ms['approx']:.3g}"
            mark = "" if c["as_expected"] else " **UNEXPECTED**"
            out.append(f"| `{c['id']}` | {_md_cell(c['statement'])} | {c['verdict']}{mark} | {c['expect']} | {_md_cell(evid)} | {_md_cell(slack)} |")
        out.append("")
    details = [c for c in claims if c["verdict"] in ("refuted", "unknown")]
    if details:
        out += ["## Refuted and unknown claims", ""]
        for c in details:
            out += [f"### `{c['id']}`: {c['verdict']}" + ("" if c["as_expected"] else " (UNEXPECTED)"), "", "```",
                    _failure_text(c), "```", ""]
            if c.get("note"):
                out += [f"Note: {c['note']}", ""]
    tight = results["corpus"].get("tightness") or []
    if tight:
        out += ["## Tightness", "", "Worst (updates / bound) over the search domain.", "", "| bound | ratio | updates | bound value | dataset |", "|---|---|---|---|---|"]
        for t in tight:
            out.append(f"| `{t['claim']}` | {t['worst_ratio']:.4f} | {t['updates']} | {t['bound_value']:.4g} | {t['dataset']} {t['labels']} |")
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
            case = ET.SubElement(suite, "testcase", classname=doc, name=c["id"], file=c["file"], line=str(c["line"]))
            if not c["as_expected"]:
                f = ET.SubElement(case, "failure", message=f"verdict {c['verdict']}, expected {c['expect']}", type="UnexpectedVerdict")
                f.text = _failure_text(c)
            else:
                out = ET.SubElement(case, "system-out")
                out.text = f"verdict: {c['verdict']}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ----------------------------------------------------------------------------- SARIF

def sarif(results: dict) -> dict:
    """SARIF 2.1.0: one result per unexpected verdict, located at the claim in its TOML file."""
    rules = []
    seen = set()
    res = []
    for c in results["claims"]:
        if c["as_expected"]:
            continue
        rid = "unexpected-verdict/" + c["verdict"].replace(" ", "-")
        if rid not in seen:
            seen.add(rid)
            rules.append({"id": rid, "name": "UnexpectedVerdict",
                          "shortDescription": {"text": f"A claim's verdict is {c['verdict']}, not what its claim file expects"},
                          "defaultConfiguration": {"level": "error"}})
        res.append({
            "ruleId": rid, "level": "error",
            "message": {"text": _failure_text(c)},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": c["file"].replace(os.sep, "/")},
                                                "region": {"startLine": int(c["line"])}}}],
            "partialFingerprints": {"claimId": c["id"]},
        })
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": TOOL, "informationUri": "https://example.invalid/proof-audit",
                                          "rules": sorted(rules, key=lambda r: r["id"])}},
                      "results": res}]}


# ----------------------------------------------------------------------------- GitHub

def github_annotations(results: dict) -> list[str]:
    """::error workflow commands for unexpected verdicts (GitHub Actions)."""
    out = []
    for c in results["claims"]:
        if not c["as_expected"]:
            msg = _failure_text(c).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            out.append(f"::error file={c['file']},line={c['line']},title=proof-audit {c['id']}::{msg}")
    return out


def write_artefacts(out_dir: str, results: dict, env=None) -> list[str]:
    """Write report.md, junit.xml, results.sarif beside results.json; under GitHub Actions also
    print annotations and append a summary to $GITHUB_STEP_SUMMARY."""
    env = os.environ if env is None else env
    paths = []
    md = markdown(results)
    for name, text in (("report.md", md + "\n"), ("junit.xml", junit_xml(results)),
                       ("results.sarif", json.dumps(sarif(results), indent=1, sort_keys=True) + "\n")):
        p = os.path.join(out_dir, name)
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(text)
        paths.append(p)
    if env.get("GITHUB_ACTIONS") == "true":
        for line in github_annotations(results):
            print(line)
        summary = env.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(md + "\n")
    return paths
