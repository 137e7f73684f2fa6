"""The one root for errors users should see: bad input, named by file and line."""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input from a user's file or argument.  Users see ``str(err)``, one line, never a
    traceback: ``FILE:LINE: problem`` (``FILE: problem`` when no line applies)."""

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
