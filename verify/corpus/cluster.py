"""The audit's units of work (datasets, proof steps, searches, the page's figures) on a Dask
cluster: ``run --scheduler ADDRESS`` (or ``[tool.proof-audit] scheduler``).

The pool has the interface of the local process pool the audit otherwise uses (``submit`` returns
a concurrent.futures.Future, ``shutdown``), so the audit merges the results in corpus and
claim-file order whatever ran them, and the results file is the same byte for byte.  Each worker
loads the claim files once (the first task it runs); the claim files and the ``--data``
directories must be readable at the same paths on the workers (a shared file system, or a
cluster on this machine).
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib.util

from perceptron.errors import OptionError

__all__ = ["ClusterPool", "CONNECT_SECONDS"]

#: Seconds to wait for the scheduler to answer before the audit says it cannot reach it.
CONNECT_SECONDS = 10


class ClusterPool:
    """Tasks ``task(fn, setup, *args)`` on the cluster at ``address``; ``setup`` is what a worker
    loads before its first unit (the claim files and the ids audited)."""

    def __init__(self, address: str, task, setup: tuple):
        if importlib.util.find_spec("distributed") is None:
            raise OptionError("--scheduler needs Dask's distributed package: pip install 'proof-audit[dask]'")
        from verify.searching.scheduler import connect

        self.client = connect(address, CONNECT_SECONDS)  # read at call time (tests lower it)
        self.task, self.setup = task, setup
        self._held: list = []  # the cluster's futures, kept until shutdown (a dropped one is cancelled)

    def submit(self, fn, *args) -> cf.Future:
        out: cf.Future = cf.Future()
        fut = self.client.submit(self.task, fn, self.setup, *args, pure=False)

        def done(f):
            try:
                out.set_result(f.result())
            except BaseException as e:  # the worker's exception, as the local pool would raise it
                out.set_exception(e)

        fut.add_done_callback(done)
        self._held.append(fut)
        return out

    def shutdown(self, wait: bool = True, cancel_futures: bool = False):  # (the local pool's signature)
        self.client.cancel([f for f in self._held if not f.done()])
        self.client.close()
