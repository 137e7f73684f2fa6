"""Serialisations of findings: results.json (versioned, deterministic) and the terminal table.

This is the only module that prints audit results.

results.json, schema ``proof-audit/results`` version 1::

    {"schema": "proof-audit/results", "version": 1,
     "claims": [{"id", "document", "citation", "statement", "expr", "when", "expect",
                 "verdict", "as_expected" (true/false), "evidence": {...},
                 "file", "line" (the claim in its TOML file; the path relative to the
                 repository root), "title" (the note's), "source" (optional: {"path",
                 "line", "anchor"} of the statement in the note, when the claim file says)},
                ...],                            # claim-file order
     "summary": {"<document>": {"<verdict>": count, ..., "unexpected": count}},
     "corpus": {"datasets": [{name, n, d, sha256, source, certificates}], "runs": N,
                "inconsistent_traces": [...]}}

Evidence holds: evaluations, applicable_runs, not_applicable_runs; for refuted claims the
counterexample (dataset, run, step, both sides exactly) and the command that replays it;
min_slack (exact and approximate) and where; for unknown claims the reason; for "no
counterexample in domain" the domain as text (domain_text) and as fields (scope: points, dim,
box, max_updates, w0_box, etas, sep_box, order: verify.corpus.searches.scope_of).  Nothing volatile
(timing, versions, paths of this machine) is written to results.json: that goes to
run_info.json beside it, so two audits of the same inputs give the same bytes.
"""

from __future__ import annotations

import json
import os
import platform
import sys

__all__ = ["write_results", "print_table", "results_dict", "validate_results", "findings_of", "MAX_RESULTS_BYTES"]

_CLAIM_FIELDS = {"id": str, "document": str, "citation": str, "statement": str, "when": str, "expect": str,
                 "verdict": str, "as_expected": bool, "evidence": dict, "file": str}

#: Bytes of a results.json read back (``report``): the five notes' is 0.5 MB; a course's many
#: notes stay far below it, and a file past it is refused rather than read into memory.
MAX_RESULTS_BYTES = 256 << 20


def validate_results(results: dict) -> str | None:
    """The first way a results.json (read back by ``proof-audit report``) departs from the
    schema, or None: the reports are rebuilt only from a complete file."""
    from verify.verdicts import Verdict

    claims = results.get("claims")
    if not isinstance(claims, list):
        return "'claims' must be a list"
    labels = {v.label for v in Verdict}
    for j, c in enumerate(claims):
        if not isinstance(c, dict):
            return f"claims[{j}] must be an object"
        for key, typ in _CLAIM_FIELDS.items():
            if type(c.get(key)) is not typ:
                return f"claims[{j}].{key} must be a {typ.__name__}"
        if c["verdict"] not in labels:
            return f"claims[{j}].verdict {c['verdict'][:40]!r} is not a verdict"
        if c.get("line") is not None and type(c["line"]) is not int:
            return f"claims[{j}].line must be an integer"
        if c.get("title") is not None and type(c["title"]) is not str:
            return f"claims[{j}].title must be a string"
        src = c.get("source")
        if src is not None and not (isinstance(src, dict) and type(src.get("path")) is str
                                    and type(src.get("line", 1)) is int and type(src.get("anchor", "")) is str):
            return f"claims[{j}].source must be an object with a path, and optionally a line and an anchor"
    corpus = results.get("corpus")
    if not isinstance(corpus, dict) or not isinstance(corpus.get("datasets"), list) or type(corpus.get("runs")) is not int:
        return "'corpus' must be an object with 'datasets' (a list) and 'runs' (an integer)"
    if not isinstance(results.get("summary"), dict):
        return "'summary' must be an object"
    drafts = results.get("drafts", [])
    if not isinstance(drafts, list) or not all(
            isinstance(d, dict) and all(type(d.get(k)) is str for k in ("id", "document", "statement", "untranslated"))
            and (d.get("source") is None or (isinstance(d["source"], dict) and type(d["source"].get("path")) is str
                                             and type(d["source"].get("line", 1)) is int)) for d in drafts):
        return "'drafts' must be a list of objects with id, document, statement, untranslated (strings)"
    return None


def results_dict(findings, claims_by_id, corpus, drafts=(), out: str = "reports") -> dict:
    """results.json's content; ``out``: the output folder as the user named it, where the replay
    commands write their files (verify.replay.commands.with_out)."""
    from verify.corpus.evidence import finding_with_out

    rows = []
    summary: dict = {}
    for f in (finding_with_out(f, out) for f in findings):
        c = claims_by_id[f.claim_id]
        rows.append({
            "id": f.claim_id, "document": c.document, "citation": f.citation, "statement": f.statement,
            "expr": c.expr, "when": c.when, "expect": f.expect, "verdict": f.verdict.label,
            "as_expected": f.as_expected, "evidence": f.evidence,
            "file": repo_path(f.path), "line": f.line, "title": c.title,
            **({"source": {**c.source, "path": repo_path(c.source["path"])}} if c.source else {}),
            **({"corrects": c.corrects} if c.corrects else {}), **({"note": c.note} if c.note else {}),
        })
        s = summary.setdefault(c.document, {})
        s[f.verdict.label] = s.get(f.verdict.label, 0) + 1
        if not f.as_expected:
            s["unexpected"] = s.get("unexpected", 0) + 1
    out = {"schema": "proof-audit/results", "version": 1, "claims": rows, "summary": summary, "corpus": corpus}
    if drafts:  # draft claims (draft = true): listed, never evaluated
        out["drafts"] = [{"id": d.id, "document": d.document, "section": d.section, "statement": d.statement,
                          "untranslated": d.untranslated, "file": repo_path(d.path), "line": d.line,
                          **({"source": {**d.source, "path": repo_path(d.source["path"])}} if d.source else {})}
                         for d in drafts]
    return out


def findings_of(results: dict) -> list:
    """The findings a results.json holds (the terminal table of a run read from the cache)."""
    from verify.verdicts import Finding, Verdict

    by_label = {v.label: v for v in Verdict}
    return [Finding(c["id"], c["citation"], c["statement"], by_label[c["verdict"]], c["expect"], c["evidence"],
                    c["file"], c.get("line") or 0) for c in results["claims"]]


def package_version(dist: str = "proof-audit") -> str:
    """The installed version of a distribution, read from its metadata (nothing imported)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:  # run from a source tree that was not installed
        return "unknown (not installed)"


def status(as_expected: bool, verdict: str) -> str:
    """How reports group a claim: unexpected | found (an error of the note: refuted, as its file
    expects) | unknown | ok."""
    if not as_expected:
        return "unexpected"
    if verdict == "refuted":
        return "found"
    return "unknown" if verdict == "unknown" else "ok"


def repo_root(path: str) -> str | None:
    """The repository a file belongs to: $GITHUB_WORKSPACE when the file is under it, else the
    nearest directory above it holding .git (a directory, or a file in a worktree)."""
    full = os.path.abspath(path)
    ws = os.environ.get("GITHUB_WORKSPACE")
    if ws and (full + os.sep).startswith(os.path.abspath(ws).rstrip(os.sep) + os.sep):
        return os.path.abspath(ws)
    from verify.config import find_upwards

    return find_upwards(os.path.dirname(full), ".git")


def find_file(path: str, out_dir: str = ".") -> str | None:
    """A file that results name (relative to the repository root, or to the working directory,
    or absolute), where it is on this machine; None when it is not here."""
    if os.path.isabs(path):
        return path if os.path.isfile(path) else None
    for root in (repo_root(os.path.join(out_dir, "index.html")), repo_root(os.path.join(os.getcwd(), "x")), os.getcwd()):
        if root and os.path.isfile(os.path.join(root, path)):
            return os.path.join(root, path)
    return None


def repo_path(path: str) -> str:
    """How results name a file: relative to its repository's root (so SARIF and annotations land
    on it whatever directory the audit ran from), with '/'; the built-in claim files as
    verify/claims/NAME; a file in no repository relative to the working directory when under
    it, else absolute."""
    from verify.language.claims import is_builtin

    if is_builtin(path):
        return "verify/claims/" + os.path.basename(path)
    full = os.path.abspath(path)
    for root in (repo_root(full), os.getcwd()):
        if root is not None:
            rel = os.path.relpath(full, root)
            if not rel.startswith(".."):
                return rel.replace(os.sep, "/")
    return full



def replays_folder(out_dir: str) -> str:
    """OUT/replays, made where results are written: the printed replay commands write their
    traces there (a trace's folder must exist: train makes none, so a mistyped path is an error)."""
    from perceptron.outputs import output_folder
    from verify.replay.commands import REPLAYS

    return output_folder(os.path.join(out_dir, REPLAYS))


def write_results(out_dir, findings, claims_by_id, corpus, run_info, drafts=()) -> str:
    from perceptron.outputs import write_file

    os.makedirs(out_dir, exist_ok=True)
    replays_folder(out_dir)
    data = results_dict(findings, claims_by_id, corpus, drafts, out=out_dir)
    path = os.path.join(out_dir, "results.json")
    write_file(path, json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    info = dict(run_info)
    info.update({"python": sys.version.split()[0], "platform": platform.platform()})
    info["versions"] = _versions()
    write_file(os.path.join(out_dir, "run_info.json"), json.dumps(info, indent=1, sort_keys=True) + "\n")
    return path


def _versions() -> dict:
    """The solvers' and libraries' versions (importing sympy, scipy and z3 only to ask would cost
    a warm re-run half a second)."""
    return {name: package_version(dist) for name, dist in (("numpy", "numpy"), ("scipy", "scipy"), ("sympy", "sympy"),
                                                            ("z3", "z3-solver"))}


_MARK = {True: "ok", False: "UNEXPECTED"}


#: ANSI colours of the table: an unexpected verdict, an error of the notes found (refuted as
#: the file expects), a claim that stands.
_COLOURS = {"unexpected": "\033[1;31m", "found": "\033[33m", "ok": "\033[32m"}


def use_colour(choice: str, stream) -> bool:
    """--color auto|always|never; auto: a terminal, unless NO_COLOR is set (no-color.org)."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _paint(text: str, f, colour: bool) -> str:
    if not colour:
        return text
    key = status(f.as_expected, f.verdict.label)
    return f"{_COLOURS.get(key, _COLOURS['ok'])}{text}\033[0m"


def print_table(findings, claims_by_id, file=None, verbose=False, colour=False):
    file = file or sys.stdout
    by_doc: dict = {}
    for f in findings:
        by_doc.setdefault(claims_by_id[f.claim_id].document, []).append(f)
    for doc, fs in by_doc.items():
        print(f"\n{doc}", file=file)
        w = max(len(f.claim_id) for f in fs)
        print(f"  {'claim':<{w}}  {'verdict':<28} {'expect':<8} {'evals':>7}  result", file=file)
        for f in fs:
            ev = f.evidence.get("evaluations", "")
            mark = "ok (error in the note)" if status(f.as_expected, f.verdict.label) == "found" else _MARK[f.as_expected]
            print(f"  {f.claim_id:<{w}}  {_paint(f'{f.verdict.label:<28}', f, colour)} {f.expect:<8} {ev!s:>7}  "
                  f"{_paint(mark, f, colour)}", file=file)
            if verbose or not f.as_expected:
                for line in _details(f, claims_by_id[f.claim_id].expr):
                    print(f"      {line}", file=file)
            if f.verdict.label != "refuted" and "steps" not in f.evidence:
                print(f"      covered: {_covered(f)}", file=file)
        counts: dict = {}
        for f in fs:
            counts[f.verdict.label] = counts.get(f.verdict.label, 0) + 1
        unexpected = sum(1 for f in fs if not f.as_expected)
        print("  " + ", ".join(f"{v}: {n}" for v, n in sorted(counts.items())) + f"; unexpected: {unexpected}", file=file)


def _covered(f) -> str:
    from verify.report.claim_text import coverage_text

    return coverage_text({"verdict": f.verdict.label, "evidence": f.evidence})  # JSON already: results.json holds it


def print_tightness(tightness, file=None):
    file = file or sys.stdout
    if not tightness:
        return
    print("\nTightness (worst updates / bound over the search domain)", file=file)
    w = max(len(t["claim"]) for t in tightness)
    for t in tightness:
        print(f"  {t['claim']:<{w}}  {t['worst_ratio']:.4f}  ({t['updates']} updates against {t['bound_value']:.4g}; "
              f"points {t['dataset']}, labels {t['labels']})", file=file)


def _details(f, expr=None):
    ev = f.evidence
    if "counterexample" in ev and "search" in ev["counterexample"]:
        from verify.report.claim_text import refutation_lines

        yield from refutation_lines({"evidence": ev, "expr": expr})
    elif "counterexample" in ev:
        from verify.report.claim_text import corpus_refutation_lines

        yield from corpus_refutation_lines(ev, expr)
    if "reason" in ev:
        yield f"reason: {ev['reason']}"
    for st in ev.get("steps", []):
        if st["verdict"] != "proved":
            yield f"step {st['step']!r}: {st['verdict']} ({st.get('detail', st['method'])})"
    if "steps" in ev and ev.get("replay"):
        yield f"replay: {ev['replay']}"
    if "min_slack" in ev and f.verdict.label != "refuted":
        yield f"smallest slack {ev['min_slack']['exact']} (~{ev['min_slack']['approx'] if ev['min_slack']['approx'] is not None else float('inf'):.3g}) at {ev.get('min_slack_at')}"
