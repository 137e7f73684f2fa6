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
import os
import stat
import tempfile

from perceptron.errors import InputError

__all__ = ["write_file", "output_folder", "remove_output"]


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
