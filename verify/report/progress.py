"""Progress on stderr: one tqdm bar per phase (the audit's corpus and searches, a search's
shards), with counts, rate and time left; quiet off a terminal (a line at most every 10 s)."""

from __future__ import annotations

import sys

__all__ = ["Progress"]


class Progress:
    """Progress on stderr, one bar per phase (datasets of the corpus, then claims searched), with
    counts, rate and time left (tqdm); nothing when quiet.  Off a terminal it writes a line at
    most every 10 s, so CI logs stay short."""

    def __init__(self, quiet: bool, colour: bool = False):
        self.quiet, self.colour, self.bar = quiet, colour, None

    def phase(self, desc: str, total: int, unit: str):
        self.close()
        if self.quiet or total == 0:
            return
        from tqdm import tqdm

        tty = sys.stderr.isatty()
        self.bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True, leave=True,
                        mininterval=0.2 if tty else 10.0, colour="green" if self.colour else None, ascii=not tty)

    def step(self, what: str):
        if self.bar is not None:
            self.bar.set_postfix_str(what[:40], refresh=False)
            self.bar.update(1)

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
