"""The ``proof-audit`` command line: run, train, check, certify, search, claims lint, report.

Exit codes: 0 every verdict as expected, 1 an unexpected verdict (or an inconsistent trace),
2 bad input or usage (one line naming the file, line and problem; never a traceback).
"""

from __future__ import annotations

import os
import sys

from perceptron import InputError
from perceptron.limits import allow_long_numbers
from verify.cli.options import reset_config
from verify.cli.parser import build_parser
from verify.report.command_line import say

__all__ = ["main", "build_parser"]


def main(argv=None) -> int:
    allow_long_numbers()
    reset_config()  # read where this command runs (an in-process caller may have changed folder)
    argv = sys.argv[1:] if argv is None else argv
    ap = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
    args = ap.parse_args(argv)
    try:
        return args.func(args)
    except InputError as e:  # every error a user should see: one line, exit code 2
        say(f"proof-audit: {e.lead}{e}")
        return 2
    except BrokenPipeError:
        # the reader went away (``| head``): nothing more to say, and nowhere to say it
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 141
    except KeyboardInterrupt:
        say("proof-audit: interrupted")
        return 130
    except OSError as e:  # a file the user named could not be read or written (a full disk, a directory)
        where = f"{e.filename}: " if e.filename else ""
        say(f"proof-audit: error: {where}{e.strerror or e}")
        return 2
    except Exception as e:  # MemoryError and RecursionError included
        # A last guard, not a way of handling input: every input-driven size has a named limit
        # (perceptron.limits) checked before the work, and the fuzz suite asserts this line is
        # never reached.  If it is, the user still gets one line, not a traceback.
        if os.environ.get("PROOF_AUDIT_DEBUG"):
            raise
        say(f"proof-audit: internal error: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''} "
             "(please report this input; PROOF_AUDIT_DEBUG=1 shows the traceback)")
        return 2
