"""Reading NPZ archives without trusting them: every member's header is read and checked
(a NumPy array, no objects, a size within the limits) before its data is allocated."""

from __future__ import annotations

import math
import zipfile

import numpy as np

from .errors import InputError
from .limits import MAX_CELLS, MAX_NPZ_MEMBERS, MAX_NPZ_UNPACKED, check_regular_file

__all__ = ["load_npz"]


def load_npz(path: str, limit_bytes: int, what: str) -> dict:
    """``{name: array}`` of an NPZ file (names without ``.npy``).  A member that is not a
    NumPy array, holds Python objects, or whose header claims more than MAX_CELLS values or
    more bytes than the archive could hold is refused with an InputError naming it; so is an
    archive whose members unpack to more than MAX_NPZ_UNPACKED bytes together."""
    check_regular_file(path, limit_bytes, what)
    out = {}
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            _check_members(path, what, infos)
            for info in infos:
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                if name in out:  # readers differ on which copy they take: a trace or dataset has one of each
                    raise InputError(path, f"member {name!r} appears twice in the archive")
                with zf.open(info) as fh:
                    try:
                        version = np.lib.format.read_magic(fh)
                        if version == (1, 0):
                            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
                        elif version == (2, 0):
                            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
                        else:
                            raise ValueError(f"NPY format version {version}")
                    except (ValueError, SyntaxError, TypeError) as e:
                        raise InputError(path, f"member {name!r} is not a NumPy array ({str(e).splitlines()[0][:80]})") from None
                    if dtype.hasobject:
                        raise InputError(path, f"member {name!r} holds Python objects (not allowed)")
                    cells = math.prod(shape)
                    if cells > MAX_CELLS:
                        raise InputError(path, f"member {name!r} claims shape {shape}: more than {MAX_CELLS} values "
                                               "(perceptron.limits.MAX_CELLS)")
                    if cells * dtype.itemsize > info.file_size:
                        raise InputError(path, f"member {name!r} claims shape {shape} of {dtype} "
                                               f"({cells * dtype.itemsize} bytes) but stores {info.file_size} bytes")
                with zf.open(info) as fh:
                    arr = np.lib.format.read_array(fh, allow_pickle=False)
                out[name] = arr
    except InputError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as e:
        raise InputError(path, f"not a readable NPZ {what}: {str(e).splitlines()[0][:120] if str(e) else type(e).__name__}") from None
    return out


def _check_members(path: str, what: str, infos) -> None:
    """The number of members and the sum of their decompressed sizes as the zip directory
    declares them, within the limits, before any is read (a member is never read past its
    declared size: zipfile stops there, and its array header is checked against it)."""
    if len(infos) > MAX_NPZ_MEMBERS:
        raise InputError(path, f"an NPZ {what} of {len(infos)} members (at most {MAX_NPZ_MEMBERS}: "
                               "perceptron.limits.MAX_NPZ_MEMBERS)")
    total = sum(info.file_size for info in infos)
    if total > MAX_NPZ_UNPACKED:
        raise InputError(path, f"an NPZ {what} whose members unpack to {total} bytes, over the limit of "
                               f"{MAX_NPZ_UNPACKED} bytes (perceptron.limits.MAX_NPZ_UNPACKED)")
