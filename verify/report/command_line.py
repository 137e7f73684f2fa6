"""The command line's argparse pieces (verify.cli builds the commands): one-line usage errors,
help that shows each option's default, a --version read only when asked, and the commands an
invocation does not run left unbuilt (start-up time)."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from perceptron._numbers import format_rational

__all__ = ["EXIT_CODES", "Formatter", "Parser", "Version", "Unused", "say", "stop_on_sigterm"]

EXIT_CODES = """exit codes:
  0  every verdict as the claim file expects
  1  an unexpected verdict, or an inconsistent trace
  2  bad input or usage (one line naming the file, line and problem)"""


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs as written; each option's default shown unless its help says it."""

    def _get_help_string(self, action):
        h = action.help or ""
        if "default" not in h and action.default not in (None, False, argparse.SUPPRESS) and action.option_strings:
            d = action.default
            h += f" (default: {format_rational(d) if isinstance(d, Fraction) else d})"
        return h

    def _fill_text(self, text, width, indent):
        import textwrap

        return "\n".join(textwrap.fill(p, width, initial_indent=indent, subsequent_indent=indent) if p and not p.startswith(" ")
                         else indent + p for p in text.split("\n"))


class Version(argparse.Action):
    """--version, the package's version read only when asked (importlib.metadata costs start-up)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from verify.report.results import package_version

        print(f"proof-audit {package_version()}")
        parser.exit()


class Unused:
    """The arguments of a command this invocation does not run: not built (start-up time)."""

    def __getattr__(self, name):
        return lambda *a, **k: Unused() if name in ("add_subparsers", "add_parser", "add_mutually_exclusive_group") \
            else None


def say(line: str) -> None:
    """One line on stderr (newlines in a message are shown escaped: one problem, one line)."""
    try:
        print(line.replace("\n", "\\n").replace("\r", "\\r"), file=sys.stderr)
    except (BrokenPipeError, OSError):
        pass


_OWNER: list = []  # the process that installed the handler: a forked worker inherits it


def _interrupt(signum, frame):
    import os
    import signal

    if _OWNER and os.getpid() != _OWNER[0]:  # a worker (its pool terminates it): the default action
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise KeyboardInterrupt


def stop_on_sigterm() -> None:
    """SIGTERM (a CI job cancelled, ``kill``) stops a command as Ctrl-C does: by
    KeyboardInterrupt, so that what it was writing is removed (a trace's spool directory, a
    partial file) and its worker pool is shut down, instead of the process vanishing mid-write."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        import os

        _OWNER[:] = [os.getpid()]
        signal.signal(signal.SIGTERM, _interrupt)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the option and the problem), exit code 2; under
    GitHub Actions the command's output cannot start a workflow command (no line printed from
    input is obeyed by the runner: verify.report.github_text); SIGTERM stops it as Ctrl-C does."""

    def parse_args(self, args=None, namespace=None):
        from verify.report.github_text import guard_streams

        guard_streams()
        stop_on_sigterm()
        return super().parse_args(args, namespace)

    def error(self, message):
        say(f"{self.prog}: error: {message} (see {self.prog} --help)")
        raise SystemExit(2)
