"""What keeps the pages we write inert: a Content-Security-Policy that forbids script, remote
loads and plugins on every page (index.html and the annotated notes), and links that can only
be relative paths or anchors.  The pages are built from notes, claim files and results that
contributors submit; everything from them is escaped as it is written, and this is the second
wall behind that."""

from __future__ import annotations

import re
from urllib.parse import quote

__all__ = ["CSP_META", "safe_href", "DOCS_URL", "verdict_help"]

#: No script, no remote resource, no form or plugin: inline styles and the data: images we make.
CSP_META = ('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            'style-src \'unsafe-inline\'; img-src data:; base-uri \'none\'; form-action \'none\'">')

_SCHEME = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.\-]*:|\s*[/\\]{2}")


def safe_href(path: str) -> str:
    """A relative path or '#anchor' as a link target, percent-encoded; a URL with a scheme
    (``javascript:``, ``http:``, ``data:``) or a network path (``//host``) becomes '#'."""
    if _SCHEME.match(path):
        return "#"
    return quote(path, safe="/#._-~")


#: Where the documentation site is published (mkdocs.yml's site_url; tests/test_docs.py checks they agree).
DOCS_URL = "https://proof-audit.readthedocs.io/en/latest/"
#: Each verdict's section of the docs page that says what it covers.
_VERDICT_ANCHORS = {"proved": "proved", "holds on evidence": "holds-on-evidence",
                    "no counterexample in domain": "no-counterexample-up-to-a-scope", "unknown": "unknown",
                    "refuted": "refuted"}


def verdict_help(verdict: str) -> str:
    """A link to the docs section that explains ``verdict`` ("" for a label we do not know)."""
    anchor = _VERDICT_ANCHORS.get(verdict)
    if anchor is None:
        return ""
    return (f' <a class="help" href="{DOCS_URL}explanation/verdicts/#{anchor}" title="what this verdict covers">'
            "what this means</a>")
