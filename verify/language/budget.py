"""A claim's run budget: ``max_epochs = N`` raises the epoch budget of the runs on the
claim's datasets (verify.corpus.runs.needs_of), so a worked example that takes thousands of
epochs is seen to end instead of being cut (a cut run decides nothing about its end:
verify.replay.dispatch.cut_short)."""

from __future__ import annotations

__all__ = ["max_epochs", "MAX_CLAIM_EPOCHS"]

#: The epoch budget a claim may ask for the runs on its datasets (a worked example of a few
#: points that needs thousands of epochs; each epoch of n points is n visits of the trace).
MAX_CLAIM_EPOCHS = 1_000_000


def max_epochs(c: dict, lists: dict, where, problem) -> int | None:
    """``max_epochs = N``: the runs on the claim's datasets go on for up to N epochs (instead of
    the corpus's CORPUS_MAX_EPOCHS), so a run the note follows to its end is seen to end."""
    n = c.get("max_epochs")
    if n is None:
        return None
    if type(n) is not int or not 1 <= n <= MAX_CLAIM_EPOCHS:
        problem(*where("max_epochs"), f"max_epochs must be an integer from 1 to {MAX_CLAIM_EPOCHS} "
                                      "(verify.language.budget.MAX_CLAIM_EPOCHS)")
        return None
    if not lists.get("datasets"):
        problem(*where("max_epochs"), "max_epochs raises the budget of the runs on the claim's datasets: "
                                      "name them in datasets = [...]")
        return None
    return n
