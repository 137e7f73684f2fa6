"""The argument parser of every command (its help is the reference page of the docs)."""

from __future__ import annotations

import argparse
from fractions import Fraction

from perceptron.variants import DEFAULT_VARIANT, VARIANTS
from verify.report.command_line import EXIT_CODES, Formatter, Parser, Unused, Version
from verify.language.quantifiers import SEARCHABLE_VARIANTS
from verify.cli.audit import cmd_report, cmd_run
from verify.cli.claims import cmd_at, cmd_draft, cmd_lint
from verify.cli.options import add_data_args, add_run_args, rational_arg, vector_arg
from verify.cli.runs import cmd_certify, cmd_check, cmd_train
from verify.cli.search import cmd_search


def _check_command(command):
    """The check command's arguments."""
    p = command("check", "replay a trace against its dataset and evaluate claims",
                "Trusts nothing in the trace: re-runs the algorithm its header names on the data, compares every "
                "record, proves the trace complete, then evaluates the claims (--claims, --only) at every step "
                "where they apply.")
    add_data_args(p)
    p.add_argument("--trace", required=True, help="trace file (.jsonl or .npz)")
    p.add_argument("--variants", action="append", metavar="FILE",
                   help="a variant file declaring the trace's variant (needed when the trace's header does not "
                        "embed its declaration; when it does, the two must agree)")
    p.add_argument("--claims", nargs="+", help="claim files (default: the built-in ones)")
    p.add_argument("--only", action="append", help="evaluate only this claim id (repeatable)")
    p.add_argument("--separator", type=vector_arg, help="use w_opt = v/|v| for this integer/rational v instead of a certificate")
    p.add_argument("--separator-bias", type=rational_arg, default=Fraction(0), help="b_opt = c/|v| with --separator")
    p.set_defaults(func=cmd_check)


def _search_command(command):
    """The search command's arguments."""
    p = command("search", "search small integer datasets for a counterexample to a claim",
                "Enumerates (or samples with Hypothesis, or asks z3 for) small integer datasets, runs and separators "
                "in the stated domain, widened over every quantity the claim ranges over; a counterexample is "
                "replayed before it is reported. Defaults also come from [tool.proof-audit.search].")
    p.add_argument("claim_id", help="the id of the claim (in --claims, [tool.proof-audit] claims, or the built-in files)")
    p.add_argument("--claims", nargs="+", help="claim files to find the claim in (default: the built-in ones)")
    p.add_argument("--points", type=int, help="points per dataset (default 3)")
    p.add_argument("--dim", type=int, help="dimension (default 2)")
    p.add_argument("--box", type=int, help="coordinates in [-BOX, BOX] (default 3)")
    p.add_argument("--max-updates", type=int, help="longest update sequence (default 6)")
    p.add_argument("--order", default="any", help="which misclassified point is updated: any (every choice, as "
                   "the proofs allow), first, cyclic, max-violation, random:SEED")
    p.add_argument("--sep-box", type=int, help="integer separators in [-SEP_BOX, SEP_BOX]^dim (default 6)")
    p.add_argument("--separators", choices=["best", "all"], default="best",
                   help="best: the widest integer separator per dataset; all: every one (a claim that ranges over "
                        "every separator is searched with all)")
    p.add_argument("--variant", choices=list(SEARCHABLE_VARIANTS),
                   help="the algorithm searched (default: the claim's first searchable variant, else rosenblatt)")
    p.add_argument("--sign0", type=int, choices=[-1, 0, 1], nargs="+",
                   help="values of sign(0) (default 0; widened to -1 0 1 when the claim ranges over sign(0))")
    p.add_argument("--eta", nargs="+", type=str, metavar="P/Q",
                   help="learning rates (default 1; widened to 1/2 1 2 when the claim ranges over eta)")
    p.add_argument("--w0-box", type=int, default=0, help="initial weights: every integer vector in [-W0_BOX, W0_BOX]^dim "
                   "(default 0; widened to 1 when the claim ranges over w0)")
    p.add_argument("--unit", action="store_true", help="points on the unit circle (rational, dim 2) instead of the integer box")
    p.add_argument("--engine", choices=["auto", "enumerate", "hypothesis", "z3"], default="auto",
                   help="enumerate: exhaustive; hypothesis: random with shrinking (never 'none in domain'); "
                        "z3: a solver; auto picks by the domain")
    p.add_argument("--timeout", type=float, help="seconds (a hard limit; default 60)")
    p.add_argument("--max-memory", type=float, metavar="GIB",
                   help="memory budget of the whole search in GiB (default 4): the enumeration's blocks are sized to it "
                        "and its address space capped at it; past it: unknown, limit reached")
    p.add_argument("--jobs", type=int, help="worker processes for the enumeration's shards (default 1, or "
                   "[tool.proof-audit] jobs); the result is the same for any number")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the shards on the Dask cluster whose scheduler is at "
                   "ADDRESS (e.g. tcp://10.0.0.5:8786; or [tool.proof-audit] scheduler); needs proof-audit[dask]")
    p.add_argument("--results", metavar="FILE", help="also write the result as JSON to FILE, without timings: the "
                   "same bytes whatever the sharding")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--worst", action="store_true", help="maximise updates / bound over the domain instead")
    p.add_argument("--out", default="counterexamples", help="where counterexample datasets and traces are written")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(func=cmd_search)


def _certify_command(command):
    """The certify command's arguments."""
    p = command("certify", "separability or non-separability certificate, exactly verified",
                "A separator with a certified margin interval [gamma_lo, gamma_hi] (a rounded QP solution and a "
                "dual point, both checked in exact arithmetic), or a Gordan/Farkas certificate that no separator "
                "exists.")
    add_data_args(p)
    p.add_argument("--variant", default=DEFAULT_VARIANT, choices=sorted(VARIANTS), help="bias variants certify (w, b) on raw inputs")
    p.add_argument("--augment", choices=["first", "last"], help="certify the inputs with a constant-1 coordinate added")
    p.add_argument("--json", action="store_true", help="print the certificate as one JSON object")
    p.set_defaults(func=cmd_certify)


def _run_command(command):
    """The run command's arguments."""
    p = command("run", "audit the claim files over the corpus (the main job)",
                "Trains every variant the claims speak about on the built-in corpus (and --data files), replays "
                "every trace, evaluates every claim wherever it applies, searches small datasets for "
                "counterexamples, checks symbolic proof steps, and writes results.json, report.md, index.html, "
                "junit.xml and results.sarif. Settings also come from [tool.proof-audit] in pyproject.toml.")
    p.add_argument("--data", action="append", help="also audit every dataset file in this directory (repeatable), "
                   "e.g. ../shared/data/coqperceptron/data")
    p.add_argument("--claims", nargs="+", help="claim files (default: the built-in audits of the five notes)")
    p.add_argument("--notes", metavar="DIR", help="where the notes are when not beside their claim files ([document] "
                   "file looked up in DIR): each becomes an annotated page, notes/NAME.html")
    p.add_argument("--out", help="output directory (default: out of [tool.proof-audit], else reports/)")
    p.add_argument("--quiet", action="store_true", help="no progress, no table unless something is unexpected")
    p.add_argument("--verbose", action="store_true", help="evidence for every claim in the table")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: the CPU count, at most 4; 1: no workers); results do not depend on it")
    p.add_argument("--scheduler", metavar="ADDRESS", help="the workers of this Dask cluster do the work instead "
                   "([tool.proof-audit] scheduler); needs proof-audit[dask] and the files at the same paths there")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                   help="colour the verdict table and progress (auto: on a terminal, unless NO_COLOR is set)")
    p.add_argument("--no-cache", action="store_true", help="audit cold, ignoring OUT/.cache (or [tool.proof-audit] "
                   "cache), where each run keeps its result for a re-run with nothing changed")
    p.add_argument("--depth", type=int, choices=range(1, 5), metavar="1-4", help="how deep each claim is searched: "
                   "growing scopes within a per-claim budget about ten times larger a step (default 2, or "
                   "[tool.proof-audit] depth; a [tool.proof-audit.search] domain is searched as given instead)")
    p.set_defaults(func=cmd_run)


def _claims_command(command):
    """claims lint and claims at."""
    p = command("claims", "claim file tools", "lint: validate claim files without auditing them; at: a symbolic "
                "claim at given values.")
    csub = p.add_subparsers(dest="claims_command", required=True, metavar="TOOL")
    q = csub.add_parser("lint", help="validate claim files; problems as FILE:LINE:COL: message",
                        description="Validates claim files (TOML, fields, expressions, variants, assumptions) "
                                    "without running anything; every problem as FILE:LINE:COL: message.",
                        epilog="exit codes:\n  0  every file is valid\n  2  a problem in a file (each printed as "
                               "FILE:LINE:COL: message), or bad usage",
                        formatter_class=Formatter)
    q.add_argument("files", nargs="+", help="claim files (TOML)")
    q.add_argument("--explain", action="store_true", help="also each claim's reading in words: when it is evaluated, "
                   "on which runs and data, what its assumptions and run fix, and what it ranges over")
    q.set_defaults(func=cmd_lint)
    q = csub.add_parser("at", help="a symbolic claim's hypotheses and steps at given values, exactly",
                        description="Evaluates a symbolic claim exactly at NAME=VALUE values (the replay printed "
                                    "beside a refuted step).", formatter_class=Formatter,
                        epilog="exit codes:\n  0  no step fails there, or a hypothesis does not hold\n  1  every "
                               "hypothesis holds and a step fails (refuted)\n  2  bad input or usage")
    q.add_argument("claim_id", help="the id of a symbolic claim")
    q.add_argument("values", nargs="+", help="NAME=VALUE for a scalar (y=-1, eta=1/2), NAME=a,b,... for a vector")
    q.add_argument("--claims", nargs="+", help="claim files to find the claim in (default: the built-in ones)")
    q.set_defaults(func=cmd_at)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ``only``, the arguments of that command alone are built (every
    command is still listed, with its summary)."""
    ap = Parser(prog="proof-audit", description="Mechanical, exact audits of perceptron convergence proofs.",
                 epilog=EXIT_CODES, formatter_class=Formatter)
    ap.add_argument("--version", action=Version, help="show program's version number and exit")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, summary, description, epilog=EXIT_CODES):
        p = sub.add_parser(name, help=summary, description=f"{summary}.\n\n{description}", epilog=epilog,
                           formatter_class=Formatter)
        return p if only is None or only == name else Unused()

    p = command("train", "run a reference perceptron and write its trace",
                "Runs one variant of the notes' algorithm on a dataset, exactly (rationals) or in float with every "
                "close decision re-decided exactly, and writes the complete update log (JSON Lines or NPZ).")
    add_data_args(p)
    add_run_args(p)
    p.add_argument("--trace", help="write the trace here (.jsonl or .npz)")
    p.add_argument("--record", choices=["visits", "updates", "checkpoints"], default="visits",
                   help="record every visit, updates only, or (a long run, .npz) each update's visit and point with "
                        "the weights every 65536 updates: check re-runs every visit from the data")
    p.add_argument("--json", action="store_true", help="print a one-line JSON summary")
    p.set_defaults(func=cmd_train)

    _run_command(command)

    p = command("report", "rebuild report.md, index.html, junit.xml, results.sarif from results.json",
                "Reads a results.json written by run (validated first) and writes the reports beside it, "
                "byte for byte what run wrote; nothing is re-run.")
    p.add_argument("--out", default="reports", help="directory holding results.json")
    p.add_argument("--notes", metavar="DIR", help="the --notes DIR the run was given (notes are read only from "
                   "their claim files' repositories and from here)")
    p.add_argument("--github", action="store_true",
                   help="under GitHub Actions also print the annotations and write the step summary (run does "
                        "this itself; report does not, so a run-then-report step has one summary)")
    p.set_defaults(func=cmd_report)

    _check_command(command)

    _search_command(command)

    _certify_command(command)

    p = command("draft", "a draft claim file from a lecture note (Markdown or LaTeX)",
                "Finds every numbered statement and displayed or inline relation of the note, reads each into "
                "the claim language through a notation table (the default perceptron notation, overridden by "
                "the [notation] table of the output file when it is drafted again), proposes assumptions from "
                "the note's own sentences (marked '# review:'), and keeps what it cannot read as draft claims "
                "(listed, never evaluated). Then: proof-audit run --claims OUT.",
                "exit codes:\n  0  the draft was written\n  2  bad input or usage (one line naming the file, line "
                "and problem): nothing written")
    p.add_argument("note", help="the note: .md, .markdown, .txt (Markdown with $ math) or .tex")
    p.add_argument("--out", help="the claim file to write (default: claims_NOTE.toml beside the note)")
    p.add_argument("--force", action="store_true", help="write over an existing file (its [notation] is kept)")
    p.set_defaults(func=cmd_draft)

    _claims_command(command)
    return ap
