"""Connecting to a Dask scheduler named by the user (``--scheduler ADDRESS``, or
``[tool.proof-audit] scheduler``) without trusting the address or what answers there.

The address is checked first (a scheme that needs packages or certificates we do not configure
is refused in one line).  Then the scheduler is probed with a plain socket under a deadline: a
Dask scheduler sends its handshake as soon as it accepts a connection, a small message in
Dask's framing.  A server that says nothing (a silent TCP port) or something else (an HTTP
server, whose first bytes read as a message of exabytes) is refused before Dask's client
connects, since the client would wait for it forever or try to allocate what it announces.
Only then does the client connect, itself under the deadline, with Dask's connection timeouts
set to it.
"""

from __future__ import annotations

import re
import socket
import struct
import time

from perceptron.errors import OptionError

__all__ = ["SCHEMES", "HANDSHAKE_SECONDS", "MAX_HANDSHAKE_BYTES", "check_address", "probe", "connect"]

#: Schemes this tool connects to: plain TCP (Dask's default, also meant by a bare
#: ``host:port``).  ``tls://`` and ``wss://`` need certificates we have no option for,
#: ``ucx://`` needs the ucx-py package, ``inproc://`` only reaches a scheduler inside this
#: process, and ``ws://`` is not what a scheduler listens on unless configured to.
SCHEMES = ("tcp",)
#: Seconds a scheduler has to send its handshake once connected: it sends it at once, so a
#: server still silent after this is not one (or not answering).
HANDSHAKE_SECONDS = 5
#: Bytes of a scheduler's handshake message (a few hundred in practice): a server announcing
#: more is not a Dask scheduler, and nothing that large is read from it.
MAX_HANDSHAKE_BYTES = 1 << 16

_HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(?P<port>[0-9]{1,5})")


def check_address(address: str, option: str = "--scheduler") -> tuple[str, str, int]:
    """``(address, host, port)`` of a TCP scheduler address (``tcp://HOST:PORT`` or
    ``HOST:PORT``); anything else is one OptionError naming ``option``."""
    text = address if isinstance(address, str) else repr(address)
    shown = text if len(text) <= 200 and text.isprintable() else repr(text[:200])
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme.lower() not in SCHEMES:
        raise OptionError(f"{option} {shown}: the scheme {scheme[:20]!r} is not supported here (a Dask scheduler "
                          "is reached by tcp://HOST:PORT; tls, wss, ucx and inproc need what this tool does not set up)")
    m = _HOST_PORT.fullmatch(rest)
    if m is None or not 0 < int(m.group("port")) < 65536:
        raise OptionError(f"{option} {shown}: cannot reach a Dask scheduler there (not an address: expected "
                          "tcp://HOST:PORT)")
    return f"tcp://{rest}", m.group("host").strip("[]"), int(m.group("port"))


def _recv_exactly(sock: socket.socket, n: int, deadline: float) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no answer")
        sock.settimeout(left)
        chunk = sock.recv(min(n - len(buf), 1 << 16))
        if not chunk:
            raise ConnectionError("the connection was closed")
        buf += chunk
    return bytes(buf)


def probe(address: str, connect_seconds: float, option: str = "--scheduler") -> str:
    """The checked address, after a scheduler there has sent a handshake of Dask's shape
    (an 8-byte length, at most MAX_HANDSHAKE_BYTES) within the deadlines."""
    address, host, port = check_address(address, option)

    def refuse(why: str):
        return OptionError(f"{option} {address}: cannot reach a Dask scheduler there ({why})")

    try:
        sock = socket.create_connection((host, port), timeout=connect_seconds)
    except (OSError, ValueError) as e:
        raise refuse(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'no answer'}") from None
    try:
        deadline = time.monotonic() + HANDSHAKE_SECONDS
        (size,) = struct.unpack("<Q", _recv_exactly(sock, 8, deadline))
        if not 0 < size <= MAX_HANDSHAKE_BYTES:
            raise refuse(f"the server there does not speak Dask's protocol: it announced a message of {size} bytes, "
                         f"a scheduler's handshake is at most {MAX_HANDSHAKE_BYTES} "
                         "(verify.searching.scheduler.MAX_HANDSHAKE_BYTES)")
        _recv_exactly(sock, size, deadline)
    except TimeoutError:
        raise refuse(f"it accepted the connection but sent no handshake within {HANDSHAKE_SECONDS} s "
                     "(verify.searching.scheduler.HANDSHAKE_SECONDS)") from None
    except OSError as e:
        raise refuse(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'the connection failed'}") from None
    finally:
        sock.close()
    return address


def connect(address: str, connect_seconds: float, option: str = "--scheduler", error=OptionError):
    """A ``distributed.Client`` of the scheduler at ``address`` (checked and probed first), every
    connection of it under Dask's connect timeout set to ``connect_seconds``.  A problem is one
    ``error`` (an OptionError) naming ``option``."""
    import dask
    from distributed import Client

    try:
        address = probe(address, connect_seconds, option)
    except OptionError as e:
        raise error(e.message) from None
    seconds = f"{connect_seconds}s"
    try:
        # the connect timeout bounds each connection's attempts; (the tcp one is the keep-alive
        # that detects a dead peer, at least 11 s by Dask's rule: it is left as configured)
        with dask.config.set({"distributed.comm.timeouts.connect": seconds}):
            return Client(address, timeout=seconds)
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise error(f"{option} {address}: cannot reach a Dask scheduler there "
                    f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'no answer'})") from None
