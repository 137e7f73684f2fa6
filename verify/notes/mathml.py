"""A note's math as MathML that cannot carry script, links or style.

latex2mathml builds an element tree and then serialises it with ``unescape(tostring(tree))``,
which turns the ``&lt;`` of ``\\text{<script>}`` back into ``<``; it also copies ``\\href``'s URL
into an ``href`` and ``\\style``'s text into a ``style`` attribute.  So the tree is taken, not the
string: every element is checked against a MathML allow-list (anything else becomes an
``mrow`` holding its children), every attribute against a list of presentation attributes whose
values are plain words and lengths (no ``href``, ``style``, ``class``, ``id``, event handlers or
URLs), and the text is escaped as it is written.  Notes are untrusted, so the work is bounded
before latex2mathml sees it: the length of one span (MAX_RENDERED_MATH_CHARS), the number of
spans one page renders (MAX_RENDERED_SPANS), and no macro definitions at all (a ``\\def`` of a
few hundred bytes, nested in brace groups, expands to millions of elements: latex2mathml's
depth counter restarts in every group).  Math past a bound is shown as the code it is.
"""

from __future__ import annotations

import html as H
import re

__all__ = ["Renderer", "MAX_RENDERED_MATH_CHARS", "MAX_RENDERED_SPANS", "MAX_MATHML_NODES"]

#: Characters of one span of math rendered as MathML: a long display is a few hundred.
MAX_RENDERED_MATH_CHARS = 4000
#: Spans of math one page renders as MathML (a long note has a few thousand); the rest are code.
MAX_RENDERED_SPANS = 5000
#: Elements of one span's MathML: a long display has a few hundred.
MAX_MATHML_NODES = 20000

_ELEMENTS = frozenset((
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup", "msubsup", "mfrac", "msqrt",
    "mroot", "mstyle", "merror", "mpadded", "mphantom", "mfenced", "menclose", "munder", "mover", "munderover",
    "mtable", "mtr", "mtd", "mlabeledtr", "mmultiscripts", "mprescripts", "none", "semantics"))
_ATTRIBUTES = frozenset((
    "display", "mathvariant", "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines",
    "frame", "framespacing", "equalrows", "equalcolumns", "displaystyle", "scriptlevel", "stretchy", "fence",
    "separator", "separators", "lspace", "rspace", "width", "height", "depth", "linethickness", "accent",
    "accentunder", "movablelimits", "minsize", "maxsize", "largeop", "symmetric", "form", "notation", "open",
    "close", "align", "columnspan", "rowspan", "mathsize"))
#: An attribute value we keep: words, numbers and lengths (no ':', '(', quotes or slashes: no URL).
_VALUE = re.compile(r"[A-Za-z0-9 .#%+\-]{0,80}")
_DEFINITIONS = re.compile(r"\\(?:[egx]?def|let|(?:re)?newcommand|providecommand|DeclareMathOperator|newenvironment)"
                          r"(?![A-Za-z])")
_NS = "http://www.w3.org/1998/Math/MathML"


class Renderer:
    """Renders the spans of one page, counting them against MAX_RENDERED_SPANS."""

    def __init__(self):
        self.spans = 0

    def __call__(self, tex: str, display: bool) -> str:
        self.spans += 1
        if self.spans > MAX_RENDERED_SPANS or len(tex) > MAX_RENDERED_MATH_CHARS or _DEFINITIONS.search(tex):
            return _code(tex)
        import latex2mathml.converter as L

        tex = tex.replace("{aligned}", "{align*}")  # latex2mathml lays out align* (not aligned) as a table
        try:
            tree = L.convert_to_element(tex, display="block" if display else "inline")
        except Exception:  # latex2mathml raises many kinds on LaTeX it does not know: show it as written
            return _code(tex)
        out: list[str] = []
        if not _write(tree, out, [MAX_MATHML_NODES]):
            return _code(tex)
        return "".join(out)


def _code(tex: str) -> str:
    return f"<code>{H.escape(tex)}</code>"


def _write(el, out: list, budget: list) -> bool:
    """Append ``el`` as safe MathML to ``out``; False when it has more than the budget's nodes."""
    budget[0] -= 1
    if budget[0] < 0:
        return False
    tag = el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else "mrow"
    tag = tag if tag in _ELEMENTS else "mrow"
    attrs = "".join(f' {k}="{H.escape(v)}"' for k, v in sorted(el.attrib.items())
                    if k in _ATTRIBUTES and _VALUE.fullmatch(v))
    if tag == "math":
        attrs = f' xmlns="{_NS}"' + attrs
    out.append(f"<{tag}{attrs}>")
    if el.text:
        out.append(_text(el.text))
    for child in el:
        if not _write(child, out, budget):
            return False
        if child.tail:
            out.append(_text(child.tail))
    out.append(f"</{tag}>")
    return True


def _text(s: str) -> str:
    """latex2mathml writes its symbols as character references in the text (``&#x02264;``):
    decoded here, then everything escaped as it is written."""
    return H.escape(H.unescape(s), quote=False)
