"""Named limits on every input-driven size, each with its reason.

A limit is checked before the work it bounds starts; exceeding one is an InputError (one line
naming the file, line or option), never a MemoryError, a hang or a traceback.  The values are
chosen for a machine of a few GiB: every one is far above what the notes, the built-in corpus
and the CoqPerceptron benchmark need (the largest CoqPerceptron file is 3 MB, 100 x 3 200,
denominators of 14 bits).
"""

from __future__ import annotations

import os
import stat
import sys

from .errors import InputError

__all__ = ["MAX_DATA_BYTES", "MAX_TRACE_BYTES", "MAX_CLAIM_BYTES", "MAX_NUMBER_CHARS", "MAX_EXPONENT", "parse_toml", "read_toml",
           "MAX_DENOMINATOR_BITS", "MAX_CELLS", "MAX_DIM", "MAX_POINTS", "MAX_TRACE_LINE",
           "MAX_TRACE_RECORDS", "MAX_NPZ_MEMBERS", "MAX_NPZ_UNPACKED", "check_regular_file", "top_level_lines", "read_bytes", "allow_long_numbers"]

#: A dataset file is read whole and parsed into exact rationals (a Fraction costs about 100
#: bytes against a few bytes of text): 256 MiB of text is some GiB of numbers.
MAX_DATA_BYTES = 256 << 20
#: A trace is read into columns in memory (JSON Lines records cost about 10 times their text).
MAX_TRACE_BYTES = 1 << 30
#: Claim and variant files are small hand-written TOML; anything larger is not one.
MAX_CLAIM_BYTES = 1 << 20
#: Characters in one spelled number: the conversion of a decimal string to an integer is
#: quadratic in its length (Python itself refuses 4 300 digits).
MAX_NUMBER_CHARS = 1000
#: Decimal exponent of a number such as ``1e400``: the exact rational has that many digits.
MAX_EXPONENT = 1000
#: Bits of a dataset's common denominator: every exact score, weight and margin is scaled by
#: it (or its square), so it bounds the size of every exact intermediate of a run.
MAX_DENOMINATOR_BITS = 4096
#: Cells (points x features) of a dataset held densely (int64 or float64: 8 bytes each).
MAX_CELLS = 50_000_000
#: Features of one point (LIBSVM indices, NPZ columns, trace weight vectors).
MAX_DIM = 1_000_000
#: Points of one dataset.
MAX_POINTS = 10_000_000
#: Characters of one JSON Lines trace record (a visit with w of 100 000 float coordinates
#: takes about 2.5 MB).
MAX_TRACE_LINE = 64 << 20
#: Visit records of one trace held in memory.
MAX_TRACE_RECORDS = 50_000_000
#: Members of one NPZ archive (a trace has about a dozen columns, a dataset two arrays).
MAX_NPZ_MEMBERS = 64
#: Bytes of all the members of one NPZ archive once decompressed, summed (each is also held to
#: MAX_CELLS): every member is held in memory at once, and a small compressed file can unpack to
#: GiB.  A trace is written stored (uncompressed) under MAX_TRACE_BYTES, and a dataset of
#: MAX_CELLS float64 values takes 400 MB, so both fit.
MAX_NPZ_UNPACKED = 1 << 30


def check_regular_file(path: str, limit: int, what: str) -> int:
    """The size of ``path`` after checking that it is a regular file of at most ``limit``
    bytes: devices (``/dev/zero``), FIFOs (which block forever) and directories are refused
    before a byte is read."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(path, f"is a directory, not a {what} file")
    if not stat.S_ISREG(st.st_mode):
        kind = "FIFO" if stat.S_ISFIFO(st.st_mode) else "device" if (stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)) \
            else "socket" if stat.S_ISSOCK(st.st_mode) else "special file"
        raise InputError(path, f"is a {kind}, not a regular {what} file")
    if st.st_size > limit:
        raise InputError(path, f"{what} file of {st.st_size} bytes exceeds the limit of {limit} bytes "
                               f"(perceptron.limits)")
    return st.st_size


def read_bytes(path: str, limit: int, what: str) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes (re-checked while
    reading: a file that grows past the limit is refused, not read to the end)."""
    check_regular_file(path, limit, what)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except IsADirectoryError:
        raise InputError(path, f"is a directory, not a {what} file") from None
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    if len(raw) > limit:
        raise InputError(path, f"{what} file exceeds the limit of {limit} bytes (perceptron.limits)")
    return raw


def allow_long_numbers() -> None:
    """Python refuses to convert integers of more than 4 300 digits to text (a guard against
    quadratic parsing of untrusted digits).  Every number read here is limited far below that
    (MAX_NUMBER_CHARS), but exact results may be longer (up to verify.language.expr.MAX_EXACT_BITS,
    about 79 000 digits) and must still be printable: the command line and the audit's workers
    raise the guard to 100 000 digits."""
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(100_000)


def read_toml(path: str, limit: int, what: str, exact: bool = False) -> tuple[dict, str]:
    """(the parsed table, the text) of the TOML file at ``path``, read within ``limit`` bytes as
    UTF-8 (parse_toml's ``exact``): one InputError naming the file and line otherwise."""
    raw = read_bytes(path, limit, what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(path, "not UTF-8 text", raw[:e.start].count(b"\n") + 1) from None
    return parse_toml(path, text, exact), text


def parse_toml(path: str, text: str, exact: bool = False) -> dict:
    """A user's TOML file (claims, variants, pyproject.toml): any problem is one InputError
    naming the file and line (a syntax error, nesting too deep, an integer too long to read).
    ``exact``: a float is kept as its text (``0.1`` stays "0.1", read later as 1/10), never
    rounded to binary."""
    import re
    import tomllib

    try:
        return tomllib.loads(text, parse_float=str) if exact else tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"at line (\d+), column (\d+)", str(e))
        raise InputError(path, f"TOML syntax error: {str(e).split(' (at line')[0]}", int(m.group(1)) if m else None,
                         int(m.group(2)) if m else None) from None
    except RecursionError:
        raise InputError(path, "TOML nested too deeply to read", 1) from None
    except ValueError:  # Python's own limit on the digits of an integer read from text
        raise InputError(path, f"an integer too long to read: numbers are limited to {MAX_NUMBER_CHARS} characters "
                               "(perceptron.limits.MAX_NUMBER_CHARS)") from None


def top_level_lines(text: str) -> dict:
    """The line of each top-level name of a TOML text (tomllib gives no positions): a table's
    first header (``[name]``, ``[name.sub]``, ``[[name]]``) or a key before any table, so that a
    problem with one is reported where it is written."""
    import re

    where: dict = {}
    in_table = False
    for ln, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*\[\[?\s*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_\-]+)", line)
        if m:
            in_table = True
            where.setdefault(m.group(1).strip("\"'"), ln)
            continue
        k = re.match(r"\s*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_\-]+)\s*[=.]", line)
        if k and not in_table:
            where.setdefault(k.group(1).strip("\"'"), ln)
    return where
