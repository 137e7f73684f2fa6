"""Run a function in a child process with a hard time limit (z3's own limits are soft on
nonlinear problems).  The child sends one result through a pipe; past the limit it is killed."""

from __future__ import annotations

import multiprocessing as mp

__all__ = ["run_in_child"]


def run_in_child(target, args, limit: float, method: str = "fork"):
    """``target(*args, conn)`` in a child; its one message, or None if it was killed at
    ``limit`` seconds (or died).  ``method`` is the multiprocessing start method."""
    ctx = mp.get_context(method)
    recv, send = ctx.Pipe(duplex=False)
    p = ctx.Process(target=target, args=(*args, send), daemon=True)
    p.start()
    send.close()
    got = None
    if recv.poll(limit):
        try:
            got = recv.recv()
        except EOFError:
            got = None
    if p.is_alive():
        p.kill()
    p.join(1.0)
    return got
