"""What keeps the pages we write inert: a Content-Security-Policy that forbids script, remote
loads and plugins on every page (index.html and the annotated notes), and links that can only
be relative paths or anchors.  The pages are built from notes, claim files and results that
contributors submit; everything from them is escaped as it is written, and this is the second
wall behind that."""

from __future__ import annotations

import re
from urllib.parse import quote

__all__ = ["CSP_META", "safe_href"]

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
