"""The parts of a claim's expression a verdict names: the two halves of an implication written
``A or B``, and the text of each side of a comparison (of the whole claim, or of the condition
inside ``all_i(...)`` / ``any_i(...)``).  Read from the expression as the claim language parses
it (Python's grammar: perceptron.expression), never by text, never run; the reports name a
violation's sides with it."""

from __future__ import annotations

import ast

__all__ = ["split_implication", "side_names"]


def _body(src: str):
    try:
        return ast.parse(src.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def split_implication(src: str) -> tuple[str, str] | None:
    """(A, B) of an expression whose top level is ``A or B`` (B its last disjunct, A the rest),
    else None.  Such a claim is read as the implication it usually is: it applies where A is
    false (``given = "not (A)"``), so a claim whose A holds on every evaluation is unknown,
    never holds.  The expression is split where Python's grammar (which the claim language's
    parser uses: perceptron.expression) puts its top-level ``or``, never by text."""
    tree = _body(src)
    if not (isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.Or)) or len(tree.values) < 2:
        return None
    text = src.strip()
    parts = [ast.get_source_segment(text, v) for v in tree.values]
    if any(p is None for p in parts):
        return None
    first = parts[0] if len(parts) == 2 else " or ".join(f"({p})" for p in parts[:-1])
    return first, parts[-1]


def _inner(src):
    """The condition inside ``all_i(...)`` / ``any_i(...)``, else None."""
    node = _body(src or "")
    if isinstance(node, ast.Call) and len(node.args) == 1:
        return ast.get_source_segment((src or "").strip(), node.args[0])
    return None


def side_names(src, count: int, *, implied: bool = True, at_point: bool = False) -> list:
    """The source of each side of ``src`` when it is one comparison of ``count`` sides, else
    blanks; ``implied``: of B when ``src`` is the implication A or B (where it is evaluated);
    ``at_point``: of the condition inside its all_i / any_i."""
    if implied and src:
        parts = split_implication(src)
        src = parts[1] if parts else src
    if at_point:
        src = _inner(src)
    node = _body(src or "")
    if not isinstance(node, ast.Compare) or len(node.comparators) + 1 != count:
        return [""] * count
    text = (src or "").strip()
    return [ast.get_source_segment(text, n) or "" for n in [node.left, *node.comparators]]
