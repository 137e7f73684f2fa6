"""Trust round three (issue 34): hostile inputs that gave an internal error, a hang or a wrong
line get one line on stderr naming the file (and line) or the option, and exit 2."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from perceptron import InputError
from verify.cli import main as cli_main


def _bomb_npz(path, members: int, declared: int) -> None:
    """An NPZ of small members whose zip directory declares ``declared`` bytes each."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for k in range(members):
            buf = io.BytesIO()
            np.save(buf, np.zeros(4))
            zf.writestr(f"junk{k}.npy", buf.getvalue())
        for info in zf.filelist:
            info.file_size = declared


@pytest.mark.parametrize("what", ["trace", "data"])
def test_npz_members_summed_against_one_budget(tmp_path, capsys, what):
    """12 members of 400 MB each (each within MAX_CELLS, 4.8 GB together) are refused before
    one is read, in one line naming the file."""
    from perceptron.limits import MAX_NPZ_UNPACKED

    bomb = tmp_path / "bomb.npz"
    _bomb_npz(bomb, 12, 400_000_000)
    data = tmp_path / "d.csv"
    data.write_text("1,1\n-1,-1\n")
    args = ["check", "--data", str(data), "--trace", str(bomb)] if what == "trace" else \
        ["train", "--data", str(bomb)]
    capsys.readouterr()
    assert cli_main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(bomb) in err and "MAX_NPZ_UNPACKED" in err, err
    assert str(MAX_NPZ_UNPACKED) in err
