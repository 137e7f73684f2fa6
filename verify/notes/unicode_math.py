"""Math as people type it outside LaTeX (code blocks, plain text, study guides): ``w ← w + η ×
y × x``, ``k ≤ R²/γ²``, ``‖wₖ‖``, ``w^T x``, as the LaTeX the note reader already reads
(verify.notes.latex).  Only the symbols are rewritten; the words stay, so a line that is prose
stays prose (and a statement the reader cannot read stays a draft)."""

from __future__ import annotations

import re

__all__ = ["to_latex", "has_unicode_math"]

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
    return re.sub(r"[ \t]+", " ", s).strip()
