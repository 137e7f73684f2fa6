"""The note, annotated: ``notes/NAME.html`` and ``badges.json`` beside index.html.

For every note that the claims of results.json name (``source``: a path and a line), the note's
own text is rendered -- Markdown with markdown-it-py (dollarmath), LaTeX as text with
pylatexenc -- with its math as MathML (latex2mathml: no script, nothing from the network), and
each statement is marked where it stands with the colour of its verdict, computed from the
results, never set by hand: false (a claim of it refuted), unknown, draft (not evaluated),
holds, and "not checked" for a statement the drafter finds that no claim covers.  Each badge
expands to the claim's reason, both sides, the replay command and what was covered, and links
to the claim in index.html.  ``badges.json`` gives the same per anchor, for a course site.
The page is the same bytes whether ``run`` or ``report`` writes it.
"""

from __future__ import annotations

import bisect
import html as H
import json
import os
import re
import stat

from perceptron.errors import InputError
from perceptron.outputs import output_folder, remove_output, write_file
from verify.notes.mathml import Renderer
from verify.notes.latex_numbers import Numbering, headed_env, numbering, with_refs
from verify.notes.source import DISPLAY_ENVS, THEOREMS, Note, delimited, read_note, slug, statements, tied_runs
from verify.report.figures import counterexample_figure, unique_ids
from verify.report.html_safety import CSP_META, verdict_help
from verify.report.claim_text import clipped, coverage_text, failure_text
from verify.report.results import find_file, repo_root

__all__ = ["write_notes", "statement_status", "COLOURS", "note_allowed", "check_note_places"]

#: A statement's status -> (colour, label) on the page and in badges.json.
COLOURS = {"false": ("#d33", "false"), "known": ("#c0641a", "false, as its claim expects"),
           "unknown": ("#d90", "unknown"), "draft": ("#888", "draft: not evaluated"),
           "searched": ("#3572b0", "no counterexample up to its searched scope"),
           "holds": ("#2a2", "holds on evidence"), "proved": ("#17661b", "proved"),
           "unchecked": ("#bbb", "not checked"), "defines": ("#9ab", "defines the note's notation or run")}
#: The mark at the head of every page we write: only pages holding it are removed as stale.
GENERATOR = '<meta name="generator" content="proof-audit annotated note">'
#: Worst first.  What was shown stays apart: a search of a small domain is not a proof, and a
#: corpus whose quantities were varied is not a search (issue 38: colours that say what was shown).
_RANK = ("false", "known", "unknown", "draft", "searched", "holds", "proved", "unchecked", "defines")
_SHOWN = {"proved": "proved", "holds on evidence": "holds", "no counterexample in domain": "searched"}

_CSS = ("body{font-family:Georgia,serif;margin:0;color:#222;line-height:1.5}"
        "header{background:#f4f4f6;padding:.8em 2em;border-bottom:1px solid #ddd;font-family:system-ui,sans-serif}"
        "header h1{margin:.2em 0;font-size:1.5em}main{max-width:860px;padding:0 2em 3em}"
        ".sum span{display:inline-block;margin:.15em .5em .15em 0;padding:.1em .6em;border-radius:4px;font-size:14px}"
        ".blk{border-left:4px solid transparent;padding-left:.8em;margin-left:-1.2em}"
        + "".join(f".s-{k}{{border-left-color:{c}}}.b-{k}{{background:{c};color:#fff}}" for k, (c, _) in COLOURS.items())
        + ".b-unchecked{color:#333!important}"
        ".badges{font-family:system-ui,sans-serif;font-size:13px;margin:.2em 0 .8em}"
        ".badges details{margin:.15em 0}.badges summary{cursor:pointer}"
        ".badge{display:inline-block;padding:0 .5em;border-radius:4px;margin-right:.4em;font-size:12px}"
        ".badges pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;background:#f7f7f7;padding:.5em}"
        "pre.src{white-space:pre-wrap}math{font-size:1.05em}main pre{white-space:pre-wrap;overflow-wrap:anywhere}"
        "main table{border-collapse:collapse;margin:.5em 0}main td,main th{border:1px solid #ddd;padding:.15em .6em}"
        ".label{font-family:system-ui,sans-serif;font-size:11px;color:#777;margin-left:.4em}.titleblock{text-align:center}")


def statement_status(claims: list) -> tuple[str, str]:
    """(status, one-line reason) of a statement from the claims that transcribe it: a claim
    with ``corrects`` is the corrected form beside it and does not decide its colour."""
    from verify.notes.draft import SETS

    own = [c for c in claims if not c.get("corrects")] or claims
    best = None
    for c in own:  # a draft that sets the note's run or notation has no truth: it greys nothing
        st = (("defines" if str(c.get("untranslated", "")).startswith(SETS) else "draft") if c.get("draft") else ("known" if c["expect"] == "refuted" else "false") if c["verdict"] == "refuted"
              else _SHOWN.get(c["verdict"], "unknown"))
        if best is None or _RANK.index(st) < _RANK.index(best[0]):
            best = (st, c)
    st, c = best
    if st in ("draft", "defines"):
        reason = f"{c['id']}: not evaluated: {c['untranslated']}"
    elif st in ("false", "known"):
        lines = failure_text(c).splitlines()
        pick = [ln for ln in lines if ln.startswith(("sides:", "parts", "counterexample:", "step", "search"))]
        reason = f"{c['id']}: refuted: " + "; ".join(pick[:2] or lines[:1])
    elif st == "unknown":
        lines = failure_text(c).splitlines()
        pick = [ln for ln in lines if "unknown" in ln or "reason" in ln or "premise" in ln]
        reason = f"{c['id']}: {c['verdict']}: " + (pick or lines or [""])[-1]
    else:  # the scope of a search is in the reason (points, box, then the runs and their updates)
        parts = [p.strip() for p in (coverage_text(c) or "").split(";")]
        mine = [p for p in parts[1:4] if p.startswith("the claim applied") or " evaluations in " in p]
        # what the claim itself was evaluated on, rather than the size of the whole corpus
        reason = f"{c['id']}: {c['verdict']}: " + "; ".join(parts[:2] if st == "searched" else mine or parts[:1])
    return st, clipped(reason, 300)


def note_allowed(note: str, claim_file: str, notes_dir: str | None = None) -> bool:
    """Whether the note a claim file names may be read: its real path (links resolved) lies
    under the claim file's repository (its git root, else its directory) or under ``notes_dir``
    (``--notes``).  Claim files are untrusted: ``[document] path = "/etc/passwd"`` must not put
    a runner's secrets on the course's report site."""
    real = os.path.realpath(note)
    claim_dir = os.path.dirname(os.path.abspath(claim_file))
    roots = [repo_root(claim_file) or claim_dir, claim_dir] + ([notes_dir] if notes_dir else [])
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in map(os.path.realpath, roots))


def check_note_places(items, notes_dir: str | None = None) -> None:
    """One InputError naming the claim file, its line and the path, for the first claim (or
    draft) whose note exists outside the places notes are read from (note_allowed)."""
    for c in items:
        src = c.source
        if src and os.path.lexists(src["path"]) and not note_allowed(src["path"], c.path, notes_dir):
            raise InputError(c.path, f"claim {c.id}: its note {src['path']!r} is outside this claim file's repository"
                                     f"{' and --notes' if notes_dir else ''}; a note is read only from there "
                                     "(give its folder as --notes DIR)", c.line)


def write_notes(out_dir: str, results: dict, notes_dir: str | None = None, claim_files: dict | None = None) -> list[dict]:
    """Write notes/NAME.html for each readable note and badges.json; returns, per note written,
    {document, title, href, counts} for index.html.  A note outside the places note_allowed
    admits (its claim file's repository, ``notes_dir``) is never opened.  ``claim_files``: where
    the claim files that results name are (run knows; report looks for them)."""
    groups: dict = {}
    for c in results["claims"] + [{**d, "draft": True} for d in results.get("drafts", [])]:
        src = c.get("source")
        if src and src.get("line"):
            g = groups.setdefault(src["path"], {"document": c["document"], "title": c.get("title") or c["document"],
                                                "by_line": {}, "files": set()})
            g["by_line"].setdefault(src["line"], []).append(c)
            g["files"].add(c["file"])
    written, badges = [], {}
    names: set = set()
    for path in sorted(groups):
        g = groups[path]
        full = find_file(path, out_dir)
        files = [(claim_files or {}).get(f) or find_file(f, out_dir) for f in sorted(g["files"])]
        if full is None or not files or not all(f and note_allowed(full, f, notes_dir) for f in files):
            continue
        try:
            note = read_note(full)
            found = statements(note)
        except InputError:
            continue  # an unreadable note has no page; its claims are still in every report
        name = slug(os.path.splitext(os.path.basename(path))[0])
        while name in names:
            name += "_"
        names.add(name)
        page, counts, marks = _page(note, g, found)
        write_file(os.path.join(output_folder(os.path.join(out_dir, "notes")), name + ".html"), page)
        badges[g["document"]] = {"page": f"notes/{name}.html", "statements": marks}
        written.append({"document": g["document"], "title": note.title or g["title"], "href": f"notes/{name}.html",
                        "counts": counts})
    if badges:
        write_file(os.path.join(out_dir, "badges.json"), json.dumps(badges, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    _remove_stale(out_dir, names, bool(badges))
    return written


def _remove_stale(out_dir: str, names: set, badges: bool) -> None:
    """Pages (and badges) an earlier audit wrote into this output directory for notes this one
    does not have: a page left there would show verdicts that are no longer the results.  Only
    what we wrote is removed: regular files (never through a link) in a notes/ folder that is not
    a link, each page opening with our GENERATOR mark."""
    pages = os.path.join(out_dir, "notes")
    if os.path.isdir(pages) and not os.path.islink(pages):
        for f in os.listdir(pages):
            p = os.path.join(pages, f)
            if f.endswith(".html") and f[:-5] not in names and _ours(p):
                remove_output(p)
    if not badges:
        remove_output(os.path.join(out_dir, "badges.json"))


def _ours(path: str) -> bool:
    """Whether a page is one this tool wrote (its head holds GENERATOR), read without following
    a link and only as far as the mark."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        with open(path, "rb") as fh:
            return GENERATOR.encode() in fh.read(1024)
    except OSError:
        return False


def _page(note: Note, group: dict, found: list) -> tuple[str, dict, dict]:
    by_line = group["by_line"]
    lines = sorted(set(by_line) | {s.line for s in found})
    anchors = {}
    for s in found:
        anchors.setdefault(s.line, s.anchor)
    for ln, cs in by_line.items():
        a = next((c["source"].get("anchor") for c in cs if c["source"].get("anchor")), None)
        anchors[ln] = a or anchors.get(ln) or f"L{ln}"
    from verify.notes.draft import definition_of

    defines = {s.line: why for s in found if (why := definition_of(s))}
    status = {}
    for ln in lines:
        status[ln] = (statement_status(by_line[ln]) if ln in by_line else ("defines", defines[ln]) if ln in defines
                      else ("unchecked", "no claim transcribes this statement"))
    counts = {k: sum(1 for ln in lines if status[ln][0] == k) for k in COLOURS}
    counts["found"] = len(lines)
    counts["claims"] = sum(len(cs) for cs in by_line.values())
    marks = {}
    for ln in lines:
        st, reason = status[ln]
        entry = marks.setdefault(anchors[ln], {"line": ln, "verdict": st, "colour": COLOURS[st][0], "reason": reason,
                                               "claims": []})
        if _RANK.index(st) < _RANK.index(entry["verdict"]):
            entry.update(verdict=st, colour=COLOURS[st][0], reason=reason)
        entry["claims"] += [c["id"] for c in by_line.get(ln, [])]
    blocks = _blocks(note)
    placed: dict = {}
    firsts = [a for a, _, _ in blocks]  # in order of the note: bisected, not scanned per line
    for ln in lines:
        placed.setdefault(max(bisect.bisect_right(firsts, ln) - 1, 0), []).append(ln)
    body = []
    for k, (a, b, html_) in enumerate(blocks):
        here = placed.get(k, [])
        if not here:
            body.append(html_)
            continue
        worst = min((status[ln][0] for ln in here), key=_RANK.index)
        ids = "".join(f'<a id="{H.escape(x)}"></a>' for x in dict.fromkeys(anchors[ln] for ln in here))
        ids += "".join(f'<a id="L{ln}"></a>' for ln in here if anchors[ln] != f"L{ln}")
        body.append(f'<div class="blk s-{worst}">{ids}{html_}<div class="badges">'
                    + "".join(_badges(ln, by_line.get(ln), status[ln]) for ln in here) + "</div></div>")
    summary = (f'<span class="b-unchecked" style="background:#eee">{counts["found"]} statements found '
               f'({counts["claims"]} claims on them)</span>'
               f'<span class="b-proved">{counts["proved"]} proved</span><span class="b-holds">{counts["holds"]} hold on '
               f'evidence</span><span class="b-searched">{counts["searched"]} without counterexample up to their '
               f'searched scope</span><span class="b-false">{counts["false"]} false</span>'
               f'<span class="b-known">{counts["known"]} false, as their claims expect</span>'
               f'<span class="b-unknown">{counts["unknown"]} unknown</span>'
               f'<span class="b-draft">{counts["draft"]} drafts</span>'
               f'<span class="b-unchecked" style="background:#eee">{counts["unchecked"]} not checked</span>'
               f'<span class="b-defines">{counts["defines"]} defining the notation or the run</span>')
    title = note.title or group["title"]
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">" + GENERATOR + CSP_META +
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{H.escape(title)}: annotated</title>"
            f"<style>{_CSS}</style></head><body><header><h1>{H.escape(title)}</h1>"
            f"<div class=\"sum\">{summary}</div><small>{H.escape(group['document'])}: each statement's colour is its "
            "verdict in this audit (a statement is a line of the note; several claims may transcribe it); click a badge for why. <a href=\"../index.html\">Full report</a></small></header>"
            f"<main>{''.join(body)}</main></body></html>\n")
    return page, counts, marks


def _badges(ln, claims, status) -> str:
    st, reason = status
    if not claims and st == "defines":
        return f'<div><span class="badge b-defines">defines</span>line {ln}: {H.escape(reason)}</div>'
    if not claims:
        return (f'<div><span class="badge b-unchecked" style="background:#eee">not checked</span>'
                f'line {ln}: no claim transcribes this statement</div>')
    out = []
    for c in claims:
        cst = statement_status([c])[0]
        label = (c["verdict"] if cst in ("holds", "proved", "searched") else COLOURS[cst][1]) + (" (corrected form)" if c.get("corrects") else "")
        detail = (f"not evaluated: {c['untranslated']}" if c.get("draft")
                  else "\n\n".join(x for x in (failure_text(c), coverage_text(c)) if x))
        svg = None if c.get("draft") else counterexample_figure(c)
        picture = f"<figure>{unique_ids(svg, 'ce-' + slug(c['id']) + '-')}</figure>" if svg else ""
        out.append(f'<details><summary><a class="badge b-{cst}" href="../index.html#claim-{H.escape(c["id"])}">'
                   f'{H.escape(label)}</a>{H.escape(statement_status([c])[1])}</summary>'
                   f'<pre>{H.escape(c["id"])}: {H.escape(c.get("expr") or "")}\n{H.escape(detail)}</pre>{picture}'
                   f'{"" if c.get("draft") else "<p>" + verdict_help(c["verdict"]).strip() + "</p>"}</details>')
    return "".join(out)


# ------------------------------------------------------------------------------- rendering

def _blocks(note: Note) -> list[tuple[int, int, str]]:
    """The note as (first line, last line, HTML) blocks in order."""
    mathml = Renderer()
    return _markdown_blocks(note, mathml) if note.kind == "markdown" else _latex_blocks(note, mathml)


def _display_brackets(state, silent: bool) -> bool:
    """``\\[ ... \\]`` inside a paragraph ("Step 1:" then the display on the next line), which
    texmath reads only at a block's start: a display, as MathJax shows it (its ``\\[`` is no
    escaped bracket)."""
    if not state.src.startswith("\\[", state.pos):
        return False
    unclosed = state.env.get("brackets_unclosed")  # (src, a position past which no \] follows): one scan a paragraph
    if unclosed and unclosed[0] is state.src and state.pos >= unclosed[1]:
        return False
    end = state.src.find("\\]", state.pos + 2)
    if end < 0:
        state.env["brackets_unclosed"] = (state.src, state.pos)
        return False
    if not silent:
        token = state.push("math_inline_double", "math", 0)
        token.content, token.markup = state.src[state.pos + 2:end], "\\["
    state.pos = end + 2
    return True


def _markdown_blocks(note: Note, mathml: Renderer) -> list:
    from verify.notes.source import markdown_parser

    from mdit_py_plugins.texmath import texmath_plugin

    md = markdown_parser().enable("table")  # the note's iteration tables, as GitHub shows them
    md.use(texmath_plugin, delimiters="brackets")  # \( ... \) and \[ ... \], as MathJax shows them
    md.inline.ruler.before("escape", "display_brackets_inline", _display_brackets)  # \[ ... \] inside a paragraph
    md.options["html"] = False
    md.add_render_rule("math_inline", lambda self, toks, idx, opts, env: mathml(toks[idx].content, False))
    md.add_render_rule("math_inline_double", lambda self, toks, idx, opts, env: mathml(toks[idx].content, True))
    md.add_render_rule("math_block", lambda self, toks, idx, opts, env: mathml(toks[idx].content, True))
    md.add_render_rule("math_block_label", lambda self, toks, idx, opts, env: mathml(toks[idx].content, True))
    md.add_render_rule("math_block_eqno", lambda self, toks, idx, opts, env: mathml(toks[idx].content, True))
    # nothing on the page is fetched or followed: an image is its alt text, a link its text
    # (an anchor of the page itself stays a link)
    md.add_render_rule("image", lambda self, toks, idx, opts, env: H.escape(toks[idx].content or ""))
    md.add_render_rule("link_open", lambda self, toks, idx, opts, env: _link_open(toks[idx]))
    toks = md.parse(note.text)
    out, start, depth = [], None, 0
    for j, t in enumerate(toks):
        if start is None:
            start = j
        depth += t.nesting
        if depth == 0:
            group = toks[start:j + 1]
            first = next((x.map for x in group if x.map), None)
            a, b = (first[0] + 1, first[1]) if first else (out[-1][1] if out else 1, out[-1][1] if out else 1)
            out.append((a, b, md.renderer.render(group, md.options, {})))
            start = None
    return out or [(1, 1, "")]


def _link_open(tok) -> str:
    href = str(tok.attrs.get("href", ""))
    return f'<a href="#{H.escape(slug(href[1:]))}">' if href.startswith("#") else "<a>"


def _latex_blocks(note: Note, mathml: Renderer) -> list:
    """A LaTeX note's body (between \\begin{document} and \\end{document}, when it has them) as
    blocks: a paragraph, a sectioning command, or a theorem or display environment each."""
    from pylatexenc.latex2text import LatexNodes2Text

    to_text = LatexNodes2Text(math_mode="verbatim")
    lines = tied_runs(note.text, note.path).split("\n")  # no quadratic run for pylatexenc
    first, last = 0, len(lines)
    for j, ln in enumerate(lines):
        if "\\begin{document}" in ln:
            first = j + 1
        elif "\\end{document}" in ln:
            last = j
    out, cur, depth = [], [], 0
    front = {k: _latex_arg(note.text, k) for k in ("title", "author", "date")}
    counters: dict = {}
    numbers = numbering(note.text)  # as typeset: shared counters, within sections, \ref{...} as numbers

    def flush():
        if cur and any(x.strip() for _, x in cur):
            out.append((cur[0][0], cur[-1][0], _latex_html("\n".join(x for _, x in cur), to_text, mathml, front,
                                                           counters, numbers, cur[0][0])))
        cur.clear()

    for j in range(first, last):
        ln = lines[j]
        opens = re.match(r"\s*\\(begin\{(\w+\*?)\}|(sub)*section\*?\{)", ln)
        if depth == 0 and (not ln.strip() or opens):
            flush()
        if ln.strip():
            cur.append((j + 1, ln))
        depth += len(re.findall(r"\\begin\{", ln)) - len(re.findall(r"\\end\{", ln))
        depth = max(depth, 0)
        if depth == 0 and (re.search(r"\\end\{\w+\*?\}\s*$", ln) or re.match(r"\s*\\(sub)*section", ln)):
            flush()
    flush()
    return out or [(1, 1, "")]


def _latex_arg(text: str, macro: str) -> str | None:
    """The argument of the preamble's \\title{...} (\\author, \\date) as written, one level of
    braces inside; None when there is none."""
    m = re.search(r"\\" + macro + r"\{((?:[^{}]|\{[^{}]*\}){0,300})\}", text)
    return m.group(1) if m else None


#: Environments shown with a header (numbered as the note declares them: verify.notes.latex_numbers).
_HEADED_ENV = headed_env(THEOREMS + ("example", "proof"))


def _latex_html(par: str, to_text, mathml: Renderer, front: dict | None = None, counters: dict | None = None,
                numbers: Numbering | None = None, line: int = 1) -> str:
    """One block of a LaTeX note (its first line ``line``) as HTML: a sectioning command becomes a
    numbered heading, a theorem-like environment its header with the number the note's
    declarations give it ("Lemma 3.2 (Norm)."; verify.notes.latex_numbers), \\ref{...} that number,
    \\maketitle the title block of the preamble (never the build date: \\today is left out), and
    \\label{...} its name."""
    front, counters = front or {}, counters if counters is not None else {}
    numbers = numbers or Numbering()
    par = with_refs(par.replace("\\today", ""), numbers.labels)
    sec = re.match(r"\s*\\((?:sub)*)section(\*?)\{([^{}]*)\}", par)
    head = ""
    if sec:
        level = len(sec.group(1)) // 3
        number = ""
        if not sec.group(2):
            key = ("section", level)
            counters[key] = counters.get(key, 0) + 1
            for deeper in [k for k in counters if k[0] == "section" and k[1] > level]:
                counters[deeper] = 0
            number = ".".join(str(counters.get(("section", i), 0)) for i in range(level + 1)) + " "
        head = f"<h{min(2 + level, 4)}>{H.escape(number + _text(sec.group(3), to_text))}</h{min(2 + level, 4)}>"
        line += par.count("\n", 0, sec.end())  # the lines the heading took
        par = par[sec.end():]
    env = numbers.headed.match(par) if numbers.headed else _HEADED_ENV.match(par)
    if env:
        name, star, opt = env.group(1), env.group(2), env.group(3)
        at = numbers.at_line.get(line + par.count("\n", 0, env.start(1)))
        number = f" {at}" if at and not star else ""
        title = (numbers.titles.get(name) or name.capitalize()) + number + (f" ({_text(opt, to_text)})" if opt else "") + "."
        head += f'<p class="thm"><b>{H.escape(title)}</b></p>'
        par = re.sub(r"\\end\{" + name + r"\*?\}\s*$", "", par[env.end():].rstrip())
    labels = re.findall(r"\\label\{([^{}]{1,100})\}", par)
    par = re.sub(r"\\label\{[^{}]{0,100}\}", "", par)
    head += "".join(f'<span class="label">[{H.escape(x)}]</span>' for x in labels)  # (its anchor: the block's ids)
    if "\\maketitle" in par:
        block = [f"<h2>{H.escape(_text(front['title'], to_text))}</h2>" if front.get("title") else ""]
        block += [f"<p>{H.escape(_text(front[k], to_text))}</p>" for k in ("author", "date")
                  if front.get(k) and front[k].replace("\\today", "").strip()]
        head += '<div class="titleblock">' + "".join(block) + "</div>"
        par = par.replace("\\maketitle", "")
    parts, pos = [], 0
    spans = delimited(par, [("$$", "$$"), ("$", "$"), ("\\[", "\\]")], DISPLAY_ENVS)
    for start, end, op, inner in spans:
        parts.append(H.escape(_text(par[pos:start], to_text)))
        if op.startswith("\\begin"):
            tex = re.sub(r"\\label\{[^}]*\}|\\nonumber|\\notag", "", inner)
            tex = "\\begin{aligned}" + tex + "\\end{aligned}" if op.startswith(
                ("\\begin{align", "\\begin{gather", "\\begin{eqnarray")) else tex
            parts.append(mathml(tex, True))
        else:
            parts.append(mathml(inner, op != "$"))
        pos = end
    parts.append(H.escape(_text(par[pos:], to_text)))
    body = "".join(parts)
    return head + (f"<p>{body}</p>" if body.strip() else "")


def _text(src: str, to_text) -> str:
    try:
        return to_text.latex_to_text(src)
    except Exception:  # pylatexenc on malformed LaTeX: the text as written
        return src
