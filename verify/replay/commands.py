"""The commands a refutation prints to be replayed: the one module that writes them.

Every counterexample the audit, ``search`` or ``claims at`` reports comes with a command that
reproduces it as printed: train the run and check the claim on its trace (a corpus run, a pair
search's first run), check a trace written beside the dataset (a search's counterexample), find
the counterexample again by the same deterministic search, or evaluate a symbolic claim at the
values that refute it.  The run's options are ``Params.argv`` (the learner knows its options);
every path, id and value from input is quoted for the shell.

Files a command writes go under the run's output folder, which the audit's workers do not know:
a command names it by the mark ``OUT``, and ``with_out`` puts the folder in when the results are
written, so that the command runs from the folder the audit was started in and writes nothing
outside --out."""

from __future__ import annotations

import os
import re
import shlex

from perceptron.declared import variant_of
from perceptron.outputs import portable_name
from verify.language.claims import is_builtin

__all__ = ["OUT", "REPLAYS", "with_out", "run_options", "train_and_check", "check_command", "search_command",
           "at_command", "replay_trace"]

#: Where a replay command's files go: the run's output folder (``--out``).  (A NUL is in no
#: path, claim id or option a command quotes, so the mark is never input's.)
OUT = "\x00OUT\x00"
#: The folder of OUT that replay commands write into.
REPLAYS = "replays"

q = shlex.quote  # paths and ids come from users: the printed command must paste safely


def with_out(text, out: str):
    """``text`` (a command, or anything else) with every path under the mark ``OUT`` placed
    under the folder ``out`` as the user gave it, quoted for the shell."""
    if not isinstance(text, str) or OUT not in text:
        return text
    return re.sub(re.escape(OUT) + r"/(\S*)", lambda m: q(os.path.join(out, *m.group(1).split("/"))), text)


def run_options(params) -> str:
    """The train options of a run (``Params.argv``) as command text."""
    return shlex.join(params.argv())


def replay_trace(claim) -> str:
    """The trace a replayed run writes: OUT/replays/<claim id>.trace.jsonl, its name portable
    (a claim id may hold a ':', which Windows forbids in a file name)."""
    return f"{OUT}/{REPLAYS}/{portable_name(claim.id)}.trace.jsonl"


def _path(path: str) -> str:
    """A path quoted for the shell; one under OUT is quoted by with_out once the folder is in."""
    return path if path.startswith(OUT) else q(path)


def _claims(claim) -> str:
    """--claims FILE, but for a built-in claim (check, search and claims at read those by default)."""
    return "" if is_builtin(claim.path) else f" --claims {q(claim.path)}"


def _separator(v, bias) -> str:
    """The separator a violation was found at (another than the certified one): check takes it."""
    if not v:
        return ""
    return f" --separator={','.join(map(str, v))}" + (f" --separator-bias={q(str(bias))}" if bias not in (None, 0, "0") else "")


def check_command(claim, data: str, trace: str, separator=None) -> str:
    """Check ``claim`` on a trace of the dataset ``data``; ``separator``: (v, bias) or None."""
    sep = _separator(*separator) if separator else ""
    return f"proof-audit check --data {q(data)} --trace {_path(trace)}{_claims(claim)} --only {q(claim.id)}{sep}"


def train_and_check(claim, data: str, run: str, trace: str, separator=None) -> str:
    """Train the run (``run``: its train options, ``run_options``) on ``data`` writing ``trace``,
    then check the claim on it.  A run of a variant the claim file declares reads the
    declaration from that file."""
    declares = any(getattr(variant_of(v), "declared", False) for v in getattr(claim, "variants", ()))
    variants = f" --variants {q(claim.path)}" if declares else ""
    return f"proof-audit train --data {q(data)} {run}{variants} --trace {_path(trace)} && " + check_command(
        claim, data, trace, separator)


def search_command(claim, domain) -> str:
    """Find a search's counterexample again: the search is deterministic (the first
    counterexample in the domain's canonical order, whatever the sharding), prints the
    counterexample with both sides and the commands that replay its run, and exits 1; its files
    go under the output folder (OUT/replays)."""
    return (f"proof-audit search {q(claim.id)}{_claims(claim)} --points {domain.points} --dim {domain.dim} "
            f"--box {domain.box} --max-updates {domain.max_updates} --sep-box {domain.sep_box} --engine enumerate "
            f"--out {OUT}/{REPLAYS}")


def at_command(claim, values: dict) -> str:
    """Re-check a symbolic claim at ``values`` (strings, or lists for vectors)."""
    args = " ".join(q(f"{k}={','.join(v) if isinstance(v, (list, tuple)) else v}") for k, v in values.items())
    return f"proof-audit claims at {q(claim.id)} {args}{_claims(claim)}"  # --claims last: it takes one or more files
