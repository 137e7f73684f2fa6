"""Output that cannot start a GitHub Actions workflow command, except the ones we mean.

Under GitHub Actions the runner reads every line a step prints (stdout and stderr) and obeys any
that begins, after leading blanks, with ``::`` (``::error``, ``::add-mask::``,
``::stop-commands::``, ...) or the older ``##[``.  Text from input files (a note's or dataset's
name, a statement, an id) reaches our output, and a newline in it would start such a line.  So
under Actions the command line's streams are wrapped (``guard_streams``): a line that would be
read as a command is escaped as GitHub escapes command text (``::`` as ``%3A%3A``, ``##[`` as
``%23%23[``) and shown, not obeyed.  Our own annotations (verify.report.artefacts, their text
escaped there: ``%``, CR and LF) are written past the guard by ``print_command``.
"""

from __future__ import annotations

import atexit
import io
import os
import sys

__all__ = ["neutralise_line", "guard_streams", "print_command"]

_STARTS = (("::", "%3A%3A"), ("##[", "%23%23["))


def neutralise_line(line: str) -> str:
    """``line`` (one line, with or without its end) such that the runner does not read it as a
    workflow command."""
    body = line.lstrip()
    for start, escaped in _STARTS:
        if body.startswith(start):
            return line[:len(line) - len(body)] + escaped + body[len(start):]
    return line


def _undecided(text: str) -> bool:
    """True while ``text`` (the start of a line) could still become a command."""
    body = text.lstrip()
    return any(start.startswith(body) for start, _ in _STARTS)


class _CommandSafe(io.TextIOBase):
    """A text stream whose lines are written through ``neutralise_line``: whole lines as they
    come, a part line once it can no longer become a command (or at exit)."""

    def __init__(self, raw):
        self.raw = raw
        self.pending = ""  # the current line's start, not yet written
        self.started = False  # the current line's start has been written (it is not a command)
        atexit.register(self.drain)

    def write(self, s: str) -> int:
        lines = (self.pending + s).splitlines(keepends=True)
        self.pending = "" if not lines or lines[-1].endswith(("\n", "\r")) else lines.pop()
        out = []
        for line in lines:
            out.append(line if self.started else neutralise_line(line))
            self.started = False
        if self.pending and not self.started and not _undecided(self.pending):
            out.append(neutralise_line(self.pending))
            self.pending, self.started = "", True
        elif self.pending and self.started:
            out.append(self.pending)
            self.pending = ""
        self.raw.write("".join(out))
        return len(s)

    def drain(self) -> None:
        """Write what is held back of a part line (at exit: it can no longer grow)."""
        if self.pending:
            self.raw.write(neutralise_line(self.pending))
            self.pending, self.started = "", True

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self):
        return self.raw.encoding

    def writable(self) -> bool:
        return True


def guard_streams(env=None) -> None:
    """Under GitHub Actions (``GITHUB_ACTIONS=true``), wrap sys.stdout and sys.stderr so that no
    line written to them is read as a workflow command; elsewhere (or wrapped already) nothing."""
    env = os.environ if env is None else env
    if env.get("GITHUB_ACTIONS") != "true":
        return
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, _CommandSafe):
            setattr(sys, name, _CommandSafe(stream))


def print_command(line: str) -> None:
    """Print one workflow command of ours (its text escaped already: one line) past the guard."""
    stream = sys.stdout
    if isinstance(stream, _CommandSafe):
        stream.drain()
        stream = stream.raw
    stream.write(line.replace("\r", "%0D").replace("\n", "%0A") + "\n")
