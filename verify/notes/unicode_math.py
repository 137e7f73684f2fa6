"""Math as people type it outside LaTeX (code blocks, plain text, study guides): ``w ← w + η ×
y × x``, ``k ≤ R²/γ²``, ``‖wₖ‖``, ``w^T x``, as the LaTeX the note reader already reads
(verify.notes.latex).  Only the symbols are rewritten; the words stay, so a line that is prose
stays prose (and a statement the reader cannot read stays a draft)."""

from __future__ import annotations

import re

__all__ = ["to_latex", "has_unicode_math", "prose_spans", "MATH_WORDS"]

_SUP = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹ᵀⁿ⁺⁻", "0123456789Tn+-"))
_SUB = dict(zip("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖₙₜₘ₊₋", "0123456789ijkntm+-"))
_SYMBOLS = {
    "≤": r" \le ", "≥": r" \ge ", "≠": r" \ne ", "←": r" \leftarrow ", "→": r" \to ", "≈": r" \approx ",
    "×": r" \times ", "·": r" \cdot ", "⋅": r" \cdot ", "√": r"\sqrt ", "‖": r"\|", "∑": r"\sum ", "Σ": r"\sum ",
    "∈": r" \in ", "−": "-", "∀": r"\forall ", "∞": r"\infty ", "⟨": r"\langle ", "⟩": r"\rangle ",
}
_GREEK = {"η": "eta", "γ": "gamma", "θ": "theta", "α": "alpha", "β": "beta", "ρ": "rho", "σ": "sigma", "μ": "mu",
          "λ": "lambda", "δ": "delta", "ε": "epsilon", "ξ": "xi", "τ": "tau", "ω": "omega", "φ": "phi"}
_MARK = re.compile("[" + "".join(_SUP) + "".join(_SUB) + "".join(_SYMBOLS) + "".join(_GREEK) + "]")


def has_unicode_math(s: str) -> bool:
    return bool(_MARK.search(s))


def to_latex(s: str) -> str:
    """``s`` with its Unicode math written as LaTeX (superscripts and subscripts grouped:
    ``R²`` is ``R^{2}``, ``wₖ₊₁`` is ``w_{k+1}``)."""
    s = re.sub("[" + "".join(_SUP) + "]+", lambda m: "^{" + "".join(_SUP[c] for c in m.group()) + "}", s)
    s = re.sub("[" + "".join(_SUB) + "]+", lambda m: "_{" + "".join(_SUB[c] for c in m.group()) + "}", s)
    for k, v in _SYMBOLS.items():
        s = s.replace(k, v)
    for k, v in _GREEK.items():
        s = s.replace(k, f"\\{v} ")
    # sign(...), max(...) written plain are functions, not products of letters
    s = re.sub(r"(?<![\\A-Za-z])(" + "|".join(sorted(MATH_WORDS - {"sqrt"})) + r")(?=\s*\()", r"\\operatorname{\1}", s)
    # max ‖xᵢ‖, min_i ...: the operators LaTeX writes as \max, \min (before a norm, a subscript or a letter)
    s = re.sub(r"(?<![\\A-Za-z])(max|min)(?![A-Za-z])(?=\s*(?:\\\||_|[A-Za-z]))", r"\\\1 ", s)
    # w* (the optimal w), not a product (products are × or ·); w*ᵀ is w^{*T}
    s = re.sub(r"(?<=[A-Za-z}])\*(?:\^\{([^{}]*)\})?", lambda m: "^{*" + (m.group(1) or "") + "}", s)
    return re.sub(r"[ \t]+", " ", s).strip()


#: A relation in prose: the symbol a span of Unicode math turns on.
_RELATION = re.compile(r"[≤≥≠≈]|(?<![<>=!])=(?!=)|(?<![<-])<(?![-=])|(?<![-=])>(?!=)")
#: Words that belong to the math around them (functions and operators notes write in words).
MATH_WORDS = {"max", "min", "sign", "norm", "exp", "log", "sqrt", "sum", "dot", "cos", "sin", "argmax", "argmin",
               "mod"}
#: One token of a span of math: a word, a number, or one other character.
_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+(?:\.[0-9]+)?|\s+|.", re.S)
#: Most characters a span of math in prose may take (a longer one is prose with symbols in it).
MAX_SPAN_CHARS = 200
#: Characters of a paragraph read for Unicode math in its prose (a paragraph is rarely longer; a
#: longer one's rest is not read, as the drafter's other windows).
MAX_PROSE_CHARS = 20_000


def _math_token(tok: str) -> bool:
    if tok.isspace() or tok[0].isdigit():
        return True
    if tok.isalpha() and tok.isascii():
        return len(tok) == 1 or tok.lower() in MATH_WORDS
    return tok in "+-−×·⋅/()[]{}‖|^_*√∑Σ'′,ᵀ" or tok in _SUP or tok in _SUB or tok in _GREEK or tok in "≤≥≠≈=<>"


def prose_spans(text: str) -> list[tuple[int, str]]:
    """(offset, span) of each relation written in Unicode math inside prose ("every ‖xᵢ‖ ≤ R",
    "w_k · w* ≥ k γ"): from each relation symbol, the run of math tokens on each side (single
    letters, Greek, numbers, operators, sub- and superscripts, max/min/norm...), stopping at a
    word, a clause's punctuation (": ; , " outside brackets) or the sentence's end.  A span with no
    Unicode math in it (plain "a = b" in words) is not taken: prose says "=" loosely."""
    toks = [(m.start(), m.group()) for m in _TOKEN.finditer(text[:MAX_PROSE_CHARS])]
    out, used = [], -1
    for j, (at, tok) in enumerate(toks):
        if at < used or not _RELATION.fullmatch(tok):
            continue
        lo = j
        depth = 0
        # each side is looked for within MAX_SPAN_CHARS of the relation: a paragraph of symbols is linear, not quadratic
        while lo > 0 and at - toks[lo - 1][0] <= MAX_SPAN_CHARS and _math_token(toks[lo - 1][1]) \
                and not (toks[lo - 1][1] == "," and depth == 0):
            depth += toks[lo - 1][1] in ")]}"
            depth -= toks[lo - 1][1] in "([{"
            lo -= 1
        hi, depth = j, 0
        while hi + 1 < len(toks) and toks[hi + 1][0] - at <= MAX_SPAN_CHARS and _math_token(toks[hi + 1][1]) \
                and not (toks[hi + 1][1] == "," and depth <= 0):
            depth += toks[hi + 1][1] in "([{"
            depth -= toks[hi + 1][1] in ")]}"
            hi += 1
        start, end = toks[lo][0], toks[hi][0] + len(toks[hi][1])
        span = text[start:end].strip()
        left, right = text[start:at].strip(), text[at + len(tok):end].strip()
        if left and right and len(span) <= MAX_SPAN_CHARS and has_unicode_math(span):
            out.append((start + (len(text[start:end]) - len(text[start:end].lstrip())), span))
        used = end  # the relations inside a span (taken or too long to be math) start no other
    return out
