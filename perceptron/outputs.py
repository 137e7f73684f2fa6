"""Files the tools write: never through a link, never half-written.

An output folder is shared with whoever wrote into it before (a CI cache, a contributor's
commit), so a name we write may already be a symbolic link to somewhere else (``OUT/.cache``
pointing at ``~/.ssh``, ``OUT/index.html`` at a file to overwrite, ``OUT/notes`` at a folder
whose pages we would replace).  Each file is written to a fresh temporary file in its own
folder and then renamed over the name (an interrupted write leaves the old file whole); a link
where a file or folder of ours should be is refused in one line (and a folder where a file should be).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import tempfile

from perceptron.errors import InputError

__all__ = ["write_file", "output_folder", "remove_output", "portable_name"]


def output_folder(path: str) -> str:
    """``path`` as a folder to write into, made if missing; a link or a non-folder there is
    refused (the folder's own name as the user gave it may be a link: only the folders we
    name inside it are checked, by the callers that name them)."""
    if os.path.islink(path):
        raise InputError(path, "is a symbolic link where an output folder should be; refusing to write through it "
                               "(remove it, or name another output folder)")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise InputError(path, f"cannot make the output folder: {e.strerror or e}") from None
    if not os.path.isdir(path):
        raise InputError(path, "is not a folder; an output folder of this name is needed")
    return path


def _refuse_non_file(path: str) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise InputError(path, "is a symbolic link where an output file should be; refusing to write through it")
    if stat.S_ISDIR(st.st_mode):
        raise InputError(path, "is a folder; an output file of this name is needed")
    # a FIFO or device there is never opened: the rename replaces the name, not what it is


def write_file(path: str, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file in the same folder,
    renamed over it; a link or folder at ``path`` is refused."""
    _refuse_non_file(path)
    folder = os.path.dirname(path) or "."
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    except OSError as e:
        raise InputError(path, f"cannot write: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise InputError(path, f"cannot write: {e.strerror or e}") from None
        raise


def remove_output(path: str) -> None:
    """Remove a file we wrote (a link or anything else at that name is left alone)."""
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.remove(path)


#: Characters a file name we make from input keeps as they are; every other is written +XX (its
#: code in hex), so that no name holds a character Windows forbids (<>:"/\\|?*), nor one a shell
#: (POSIX, cmd or PowerShell) reads: the name pastes into a command unquoted.
_KEPT = re.compile(r"[A-Za-z0-9._-]")
#: Names Windows reserves for devices, whatever the extension.
_DEVICES = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
#: Characters of a name past which it is cut (and a digest of the whole appended).
_MAX_NAME = 160


def portable_name(text: str) -> str:
    """A file name (without its extension) for ``text`` (a claim id such as ``000.a:b``, a
    dataset name such as ``builtin:and-2``) that every system accepts: a character outside
    letters, digits and ``._-`` is written ``+`` and its code in two hex digits (``:`` is ``+3a``,
    ``+`` itself ``+2b``; past 255, ``++`` and six), so different texts give different names, a device name Windows reserves
    (``CON``, ``NUL``, ``COM1``, ...) is prefixed with ``_+``, a name that ends in a dot gets
    ``+`` after it, and a long one is cut and given a digest of the whole."""
    name = "".join(ch if _KEPT.fullmatch(ch) else "+" + format(ord(ch), "02x") if ord(ch) < 256
                   else "++" + format(ord(ch), "06x") for ch in text) or "+"
    if name.split(".")[0].lower() in _DEVICES:
        name = "_+" + name
    if name.endswith("."):
        name += "+"
    if len(name) > _MAX_NAME:
        name = name[:_MAX_NAME] + "+" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return name
