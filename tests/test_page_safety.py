"""Pages a hostile contributor cannot arm (issue 34): a payload in every field that reaches a
page (the note's title, text, math, links and images; the claim file's title, statements,
sections and notes; a dataset's file name) runs nothing and fetches nothing, checked twice:
statically (no script element, no event handler, no link or source other than the page's own
anchors and relative paths, no style attribute from input) and in headless Chromium (the
payloads' ``document.title`` change does not happen, and a local server the payloads point at
receives no request)."""

import html.parser
import http.server
import json
import shutil
import subprocess
import textwrap
import threading

import pytest

from verify.cli import main

ATTACK = "127.0.0.1:{port}"


def _payloads(port: int) -> dict:
    host = ATTACK.format(port=port)
    js = f"document.title='PWNED';fetch('http://{host}/js')"
    return {
        "script": f"<script>{js}</script>",
        "img": f"<img src=http://{host}/img onerror=\"{js}\">",
        "href": "javascript:" + js,
        "style": f"background:url(http://{host}/css)",
        "host": host,
    }


NOTE = r"""# Title <script>{js_title}</script>

Payload $\text{{{script}}}$ inline, $\mbox{{{img}}} = 1$, $\textbf{{{img}}} = 2$ and $\operatorname{{{img}}}(x) = 3$.

A link [here](http://{host}/link), a [script link]({href}), an image ![alt](http://{host}/image.png) and raw
<script>{js_title}</script> HTML.

$$\href{{{href}}}{{x}} = 1$$

$$\style{{{style}}}{{y}} = 2$$

$$\begin{{array}}{{c}} {img} \\ 1 \end{{array}} = 3$$

$$\def\a{{{img}}}\a = 4$$

The mistakes satisfy $k \le R^2/\gamma^2$.
"""

TEX = r"""\documentclass{{article}}
\title{{{script}}}
\begin{{document}}
\section{{{img}}}
Text $\text{{{script}}} = 1$ and \href{{{href}}}{{link}}.
\begin{{theorem}}\label{{thm:{img}}}
The mistakes satisfy $k \le R^2/\gamma^2$.
\end{{theorem}}
\end{{document}}
"""

CLAIMS = '''
[document]
file = "{note}"
title = "{script_toml}"

[[claim]]
id = "p.{kind}"
section = "{img_toml}"
line = {line}
statement = "{script_toml} {img_toml}"
note = "{img_toml}"
expr = "mistakes <= R2/gamma**2 - 1"
variants = ["rosenblatt"]
when = "end"
assume = ["separable", "w0_zero", "eta_one"]
expect = "holds"
'''


def _toml(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


class _Catcher(http.server.BaseHTTPRequestHandler):
    hits: list = []

    def do_GET(self):  # noqa: N802 (the handler's name)
        _Catcher.hits.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *a):
        pass


@pytest.fixture
def catcher():
    _Catcher.hits = []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Catcher)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def _hostile_audit(tmp_path, port) -> list:
    """Run the audit of a Markdown and a LaTeX note full of payloads, with a dataset whose file
    name is one; the pages written."""
    p = _payloads(port)
    (tmp_path / ".git").mkdir()  # the notes' repository
    md = NOTE.format(js_title=p["script"][8:-9], **p)
    (tmp_path / "note.md").write_text(md)
    (tmp_path / "note.tex").write_text(TEX.format(**p))
    for name, line in (("note.md", md.splitlines().index("The mistakes satisfy $k \\le R^2/\\gamma^2$.") + 1),
                       ("note.tex", 7)):
        (tmp_path / f"claims_{name[5:]}.toml").write_text(CLAIMS.format(
            kind=name[5:], note=name, line=line, script_toml=_toml(p["script"]), img_toml=_toml(p["img"])))
    data = tmp_path / "data"
    data.mkdir()
    (data / (p["img"].replace("/", "_") + ".csv")).write_text("1,2,1\n-1,-1,-1\n2,1,1\n")
    out = tmp_path / "out"
    rc = main(["run", "--claims", str(tmp_path / "claims_md.toml"), str(tmp_path / "claims_tex.toml"), "--data",
               str(data), "--out", str(out), "--quiet", "--jobs", "1"])
    assert rc in (0, 1)
    pages = [out / "index.html", *sorted((out / "notes").glob("*.html"))]
    assert len(pages) == 3, pages
    return pages


from verify.report.html_safety import DOCS_URL  # noqa: E402


class _Inert(html.parser.HTMLParser):
    """Collects whatever on a page could run, fetch or style from input."""

    def __init__(self):
        super().__init__()
        self.bad: list = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed", "img", "link", "base", "form", "meta") and not (
                tag == "meta" and dict(attrs).get("http-equiv") != "refresh"):
            self.bad.append(tag)
        for k, v in attrs:
            v = v or ""
            if k == "xlink:href" and v.startswith("#"):
                continue  # an SVG's own definitions (matplotlib's glyphs)
            if k.startswith("on") or k in ("src", "srcset", "xlink:href", "action", "formaction"):
                self.bad.append(f"{tag} {k}={v}")
            if k == "href" and (":" in v.split("#")[0] or v.startswith("//")) and not v.startswith(DOCS_URL):
                # (the one remote link: a verdict's explanation on our docs site, a constant of the code)
                self.bad.append(f"{tag} href={v}")
            if k == "style" and ("url(" in v or "expression" in v):
                self.bad.append(f"{tag} style={v}")


def test_pages_have_no_active_content(tmp_path, catcher):
    """Statically: every page we write from hostile notes, claim files and data file names has
    no script, handler, remote link or source; each declares a CSP forbidding script."""
    for page in _hostile_audit(tmp_path, catcher):
        text = page.read_text()
        assert "Content-Security-Policy" in text and "default-src 'none'" in text, page
        parser = _Inert()
        parser.feed(text)
        assert parser.bad == [], (page.name, parser.bad[:5])


def test_report_md_quotes_input_as_text(tmp_path, catcher):
    """report.md (rendered by GitHub and by the step summary) has no raw HTML tag and no link or
    image from input."""
    _hostile_audit(tmp_path, catcher)
    import re

    md = (tmp_path / "out" / "report.md").read_text()
    assert "<script" in md  # the refutation's text, quoted in a fenced block: code, not HTML
    md = re.sub(r"^(`{3,})\n.*?^\1$", "", md, flags=re.S | re.M)
    assert "<script" not in md and "<img" not in md
    assert "](http" not in md and "](javascript" not in md


def test_pages_run_nothing_in_chromium(tmp_path, catcher):
    """In headless Chromium: each page keeps its own title (the payloads set it to PWNED) and the
    local server the payloads fetch from gets no request."""
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if chrome is None:
        pytest.skip("Chromium is not installed (Debian package chromium)")
    pages = _hostile_audit(tmp_path, catcher)
    for page in pages:
        r = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                            "--disable-component-update", "--disable-sync", "--no-first-run",
                            f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000", "--dump-dom",
                            page.as_uri()], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        title = r.stdout.split("<title>", 1)[1].split("</title>", 1)[0]
        assert title.strip() not in ("PWNED", ""), (page.name, title)
    assert _Catcher.hits == [], _Catcher.hits


def test_the_pages_disarmed_without_csp_still_run_nothing(tmp_path, catcher):
    """The escaping alone (the CSP removed from the pages) still runs nothing in Chromium: the
    policy is a second wall, not the only one."""
    chrome = shutil.which("chromium") or shutil.which("chromium-browser")
    if chrome is None:
        pytest.skip("Chromium is not installed (Debian package chromium)")
    from verify.report.html_safety import CSP_META

    for page in _hostile_audit(tmp_path, catcher):
        bare = page.with_name("bare-" + page.name)
        bare.write_text(page.read_text().replace(CSP_META, ""))
        assert "Content-Security-Policy" not in bare.read_text()
        r = subprocess.run([chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                            "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000",
                            "--dump-dom", bare.as_uri()], capture_output=True, text=True, timeout=120)
        title = r.stdout.split("<title>", 1)[1].split("</title>", 1)[0]
        assert title.strip() != "PWNED", (page.name, title)
    assert _Catcher.hits == [], _Catcher.hits


def test_badges_json_is_data(tmp_path, catcher):
    """badges.json (for a course site) is valid JSON keyed by the documents."""
    _hostile_audit(tmp_path, catcher)
    assert json.loads((tmp_path / "out" / "badges.json").read_text())


@pytest.mark.parametrize("tex", [r"\text{<b>x</b>}", r"\href{javascript:alert(1)}{x}", r"\style{color:red}{x}",
                                 r"\def\a{<i>}\a", "a" * 5000])
def test_mathml_is_escaped_and_attribute_free(tex):
    from verify.notes.mathml import Renderer

    out = Renderer()(tex, False)
    assert "<b>" not in out and "<i>" not in out and "href" not in out and "style" not in out
    assert out.startswith(("<math", "<code>"))


def test_a_textual_less_than_survives_as_text():
    """latex2mathml's own entities (its symbols) are decoded once and escaped once."""
    from verify.notes.mathml import Renderer

    out = Renderer()(r"a \le b < c", False)
    assert "≤" in out and "&lt;" in out and "&amp;" not in out
    assert textwrap.dedent(out).startswith('<math xmlns="http://www.w3.org/1998/Math/MathML"')


def test_what_was_shown_has_its_own_colour():
    """proved, holds on evidence, no counterexample in the searched domain, unknown and refuted
    are five colours on the page and in badges.json (a search of a small domain is not shown as
    a proof), and the searched one's reason names its scope."""
    from verify.notes.annotate import COLOURS, statement_status

    def claim(verdict, evidence=None):
        return {"id": "c", "verdict": verdict, "expect": "holds", "evidence": evidence or {}, "citation": "n, s",
                "statement": "s", "file": "c.toml", "line": 1}

    got = {v: statement_status([claim(v)])[0] for v in ("proved", "holds on evidence", "no counterexample in domain",
                                                           "unknown")}
    assert got == {"proved": "proved", "holds on evidence": "holds", "no counterexample in domain": "searched",
                   "unknown": "unknown"}
    assert len({COLOURS[s][0] for s in (*got.values(), "false")}) == 5
    assert statement_status([claim("proved"), claim("no counterexample in domain")])[0] == "searched"


def test_a_searched_verdict_carries_its_scope_as_fields(tmp_path):
    """results.json says how deep a "no counterexample in domain" went as fields, not only text."""
    import json

    from verify.cli import main

    p = tmp_path / "c.toml"
    p.write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "s.1"\nsection = "s"\nstatement = "s"\n'
                 'expr = "norm2(w) <= norm2(w0) + eta**2*t*R2"\nvariants = ["rosenblatt"]\nwhen = "update"\n'
                 'expect = "holds"\n')
    assert main(["run", "--claims", str(p), "--out", str(tmp_path / "o"), "--quiet", "--jobs", "1"]) == 0
    c = json.loads((tmp_path / "o" / "results.json").read_text())["claims"][0]
    assert c["verdict"] == "no counterexample in domain", c["verdict"]
    scope = c["evidence"]["scope"]
    assert scope["points"] >= 2 and scope["box"] >= 2 and scope["max_updates"] >= 4 and "1" in scope["etas"]
    assert f"up to {scope['points']} integer points in [-{scope['box']}, {scope['box']}]" in c["evidence"]["domain_text"]
