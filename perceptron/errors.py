"""The one root for errors users should see: bad input, named by file and line.

Every error a user may see subclasses InputError: the command line prints it as one line and
exits 2, whatever it is (no per-type conversion, no traceback).  ``OptionError``: a bad
argument, option or combination of them, with no file to name."""

from __future__ import annotations

__all__ = ["InputError", "OptionError"]


class InputError(ValueError):
    """Bad input from a user's file or argument.  Users see ``str(err)``, one line, never a
    traceback: ``FILE:LINE: problem`` (``FILE: problem`` when no line applies)."""

    #: What the command line puts before the message ("error: " for options, nothing for files,
    #: whose message starts with the file's name).
    lead = ""

    def __init__(self, path: str | None, message: str, line: int | None = None, col: int | None = None):
        self.path = path
        self.line = line
        self.col = col
        self.message = message
        where = path or "<input>"
        if line is not None:
            where += f":{line}"
            if col is not None:
                where += f":{col}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        # raised in the audit's worker processes and sent back pickled: rebuild it from its parts
        return (InputError, (self.path, self.message, self.line, self.col))


class OptionError(InputError):
    """A bad argument, option or parameter combination: ``str(err)`` is the message alone."""

    lead = "error: "

    def __init__(self, message: str):
        self.path, self.line, self.col, self.message = None, None, None, message
        ValueError.__init__(self, message)

    def __reduce__(self):
        return (type(self), (self.message,))
