"""Trust round three (issue 34): hostile inputs that gave an internal error, a hang or a wrong
line get one line on stderr naming the file (and line) or the option, and exit 2."""

from __future__ import annotations

import contextlib
import io
import socket
import threading
import time
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


@contextlib.contextmanager
def _server(answer: bytes | None):
    """A local TCP server that accepts connections and sends ``answer`` at once (None: says
    nothing, ever)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    stop, held = threading.Event(), []

    def serve():
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            held.append(conn)
            if answer is not None:
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        sock.close()


def _run_with_scheduler(tmp_path, capsys, address):
    claims = tmp_path / "c.toml"
    claims.write_text('[document]\nfile = "n.md"\n\n[[claim]]\nid = "d.wrong"\nsection = "s"\nstatement = "s"\n'
                      'when = "update"\nvariants = ["rosenblatt"]\nexpr = "norm2(w) <= k"\nexpect = "refuted"\n')
    capsys.readouterr()
    start = time.monotonic()
    rc = cli_main(["run", "--claims", str(claims), "--quiet", "--no-cache", "--out", str(tmp_path / "out"),
                   "--scheduler", address])
    return rc, capsys.readouterr().err.strip(), time.monotonic() - start


@pytest.mark.parametrize("answer, why", [(None, "sent no handshake within"),
                                         (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                                          "does not speak Dask's protocol")])
def test_scheduler_that_is_not_one_is_one_line_in_seconds(tmp_path, capsys, answer, why):
    """A silent TCP server (accepts, never answers) and an HTTP server as the scheduler: one
    line naming the option, exit 2, within the handshake deadline (was: a hang past 60 s, and a
    MemoryError of 3 EiB)."""
    pytest.importorskip("distributed")
    from verify.searching.scheduler import HANDSHAKE_SECONDS

    with _server(answer) as address:
        rc, err, took = _run_with_scheduler(tmp_path, capsys, address)
    assert rc == 2 and err.count("\n") == 0 and f"--scheduler {address}" in err and why in err, err
    assert "internal error" not in err and took < HANDSHAKE_SECONDS + 5


@pytest.mark.parametrize("address", ["ucx://127.0.0.1:8786", "tls://127.0.0.1:8786", "inproc://x/1/2",
                                     "tcp://127.0.0.1:99999", "tcp://a b:1"])
def test_scheduler_address_of_an_unsupported_scheme_is_one_line(tmp_path, capsys, address):
    """ucx:// and tls:// gave a TypeError; every scheme but tcp:// is refused by name."""
    pytest.importorskip("distributed")
    rc, err, took = _run_with_scheduler(tmp_path, capsys, address)
    assert rc == 2 and err.count("\n") == 0 and "--scheduler" in err and "internal error" not in err, err
    assert took < 5


def test_scheduler_probe_accepts_a_real_scheduler():
    distributed = pytest.importorskip("distributed")
    from verify.searching.scheduler import connect

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp://",
                                  dashboard_address=None) as cl:
        with connect(cl.scheduler_address, 5) as client:
            assert client.submit(lambda x: x + 1, 1).result(timeout=10) == 2
