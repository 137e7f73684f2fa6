"""Run a function in a child process under hard limits: wall-clock time (z3's and sympy's own
limits are soft on nonlinear problems), address space, and the parent's life (a child never
outlives the process that started it).  The child sends one result through a pipe; past the
time limit it is killed."""

from __future__ import annotations

import multiprocessing as mp
import signal

__all__ = ["run_in_child", "ChildServer", "die_with_parent", "address_space_held", "MemoryCap", "CHILD_MEMORY"]

#: Address space a solver child may add to what it starts with (bytes; a forked child starts
#: with its parent's): sympy and z3 grow without bound on hard inputs; past this they fail with
#: MemoryError in the child, which reports "limit reached".
CHILD_MEMORY = 4 << 30


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG); a
    no-op elsewhere."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def address_space_held() -> int:
    """Bytes of address space this process holds now (Linux /proc; OSError elsewhere)."""
    import os

    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _limit_memory(limit: int | None) -> None:
    """Cap the address space at what the process holds now plus ``limit`` bytes."""
    if not limit:
        return
    try:
        import resource

        held = address_space_held()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        want = held + limit if hard == resource.RLIM_INFINITY else min(held + limit, hard)
        if soft == resource.RLIM_INFINITY or soft > want:
            resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (ImportError, ValueError, OSError):
        pass


def _entry(target, args, memory, conn):
    die_with_parent()
    _limit_memory(memory)
    try:
        target(*args, conn)
    except MemoryError:
        try:
            conn.send(("limit", f"the child ran out of its {memory >> 20} MiB address space"))
        except (OSError, ValueError):
            pass


def run_in_child(target, args, limit: float, method: str = "fork", memory: int | None = CHILD_MEMORY,
                 daemon: bool = True):
    """``target(*args, conn)`` in a child; its one message, or None if it was killed at
    ``limit`` seconds (or died).  ``method`` is the multiprocessing start method; ``memory``
    the child's address-space limit in bytes (it also dies with its parent); a child that starts
    children of its own must not be a ``daemon`` (multiprocessing forbids it)."""
    if mp.current_process().daemon:  # a daemonic worker (a pool's, Dask's) may not start one: as if it had died
        return None
    ctx = mp.get_context(method)
    recv, send = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_entry, args=(target, args, memory, send), daemon=daemon)
    p.start()
    send.close()
    got = None
    try:
        if recv.poll(limit):
            try:
                got = recv.recv()
            except EOFError:
                got = None
    finally:
        if p.is_alive():
            p.kill()
        p.join(1.0)
        recv.close()
    return got



def _serve(target, memory, conn):
    die_with_parent()
    _limit_memory(memory)
    while True:
        try:
            req = conn.recv()
        except (EOFError, OSError):
            return
        if req is None:
            return
        try:
            out = target(*req)
        except MemoryError:
            out = ("limit", f"the child ran out of its {memory >> 20} MiB address space")
        conn.send(out)


class ChildServer:
    """One child that answers ``target(*args)`` request after request, under the limits of
    run_in_child: each request has its own wall-clock limit, past which the child is killed
    (the request's answer is None) and a fresh child serves the next one.  It spares a fork
    per request when many small ones come in a row (z3's checks of one proof)."""

    def __init__(self, target, method: str = "fork", memory: int | None = CHILD_MEMORY):
        self.target, self.method, self.memory = target, method, memory
        self.proc = self.conn = None

    def _start(self):
        ctx = mp.get_context(self.method)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(self.target, self.memory, child), daemon=True)
        self.proc.start()
        child.close()

    def call(self, args: tuple, limit: float):
        if self.proc is None or not self.proc.is_alive():
            self._start()
        try:
            self.conn.send(args)
            if self.conn.poll(limit):
                return self.conn.recv()
        except (EOFError, OSError):
            pass
        self.close()  # past the limit, or the child died: a fresh one next time
        return None

    def close(self):
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(1.0)
            self.conn.close()
        self.proc = self.conn = None


class MemoryCap:
    """Within it, this process's address space is capped at ``gib`` GiB above what it holds
    (the search's arrays fail with MemoryError there, reported as "limit reached"); the
    previous limit is restored on leaving."""

    def __init__(self, gib: float):
        self.gib = gib

    def __enter__(self):
        import resource

        cap = address_space_held() + int(self.gib * (1 << 30))
        self.saved = resource.getrlimit(resource.RLIMIT_AS)
        soft, hard = self.saved
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        if soft == resource.RLIM_INFINITY or soft > cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        return self

    def __exit__(self, *exc):
        import resource

        resource.setrlimit(resource.RLIMIT_AS, self.saved)
        return False
