"""Shards of a search domain and where they run.

A shard is one run setting, one number of points and a contiguous range of first points (in the
canonical order of verify.searching.domain); each is searched to completion on its own.  Shards
run in this process (one worker), on a process pool, or on a Dask cluster (``scheduler``: the
address of a ``distributed`` scheduler).  Whatever runs them, the result is merged in the order
of the plan: the counterexample reported is the smallest over every shard (by setting, points,
updates, then position in the plan), found once every shard before it completed, so it is the
same for any sharding and any number of workers; "none in domain" needs every shard complete.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import time
from dataclasses import dataclass

from verify.searching.domain import SearchError, count_datasets
from verify.searching.enumeration import Enumerator, ShardResult

__all__ = ["Shard", "plan", "run_shards", "tally_of", "SHARDS_PER_GROUP", "MIN_SHARD_DATASETS"]

#: Most shards one (setting, number of points) is split into: enough for a cluster's workers to
#: share it, few enough that scheduling costs nothing next to the work.
SHARDS_PER_GROUP = 64
#: Fewest datasets in a shard (except the last of a group): smaller ones cost more to send
#: than to search.
MIN_SHARD_DATASETS = 2000
#: Seconds the coordinator waits past the deadline for shards to report before it stops them
#: (each shard checks the deadline between steps; one still busy then is stopped, its part unfinished).
GRACE = 0.3
#: Seconds to wait for a Dask scheduler to answer before the search says it cannot reach it.
CONNECT_SECONDS = 10


@dataclass(frozen=True)
class Shard:
    index: int
    setting: int
    n: int
    first: tuple  # range of first-point indices [lo, hi), or () for every dataset
    datasets: int

    @property
    def group(self):
        return (self.setting, self.n)


def plan(npts_by_setting: list, points: int, ordered: bool) -> list:
    """Shards for every setting and number of points, in the engine's order."""
    shards = []
    for s, npts in enumerate(npts_by_setting):
        for n in range(1, points + 1):
            total = count_datasets(npts, n, ordered)
            if n == 1 or total <= MIN_SHARD_DATASETS:
                shards.append(Shard(len(shards), s, n, (), total))
                continue
            target = max(MIN_SHARD_DATASETS, math.ceil(total / SHARDS_PER_GROUP))
            lo = 0
            while lo < npts:  # the fewest first points from lo that hold target datasets (or the rest)
                want = _before(npts, n, ordered, lo) + target
                a, b = lo + 1, npts
                while a < b:
                    m = (a + b) // 2
                    if _before(npts, n, ordered, m) >= want:
                        b = m
                    else:
                        a = m + 1
                shards.append(Shard(len(shards), s, n, (lo, a), _before(npts, n, ordered, a) - _before(npts, n, ordered, lo)))
                lo = a
    return shards


def _before(npts: int, n: int, ordered: bool, k: int) -> int:
    """Datasets whose first point index is below k (closed form: the planning of a grid of a
    million points costs a few bisections, not a loop over the points)."""
    if ordered:
        return k * npts ** (n - 1)
    return math.comb(npts + n - 1, n) - math.comb(npts - k + n - 1, n)  # the hockey-stick identity


# --------------------------------------------------------------------------- one shard

_CACHE: dict = {}


def _enumerator(claim, dom, setting_index):
    key = (claim.id, claim.expr, tuple(claim.assume), claim.when, dom, setting_index)
    en = _CACHE.get(key)
    if en is None:
        _CACHE.clear()  # one search at a time per worker
        en = _CACHE[key] = Enumerator(claim, dom, dom.settings()[setting_index])
    return en


def run_shard(claim, dom, shard: Shard, deadline: float, max_rows: int, budget=None, worst_tree=None) -> ShardResult:
    """Search one shard to completion (or to a limit): the work a worker does."""
    en = _enumerator(claim, dom, shard.setting)
    en.worst = None if worst_tree is None else [worst_tree, None]  # tightness: the worst of this shard
    return en.run_shard(shard.index, shard.n, shard.first, deadline, max_rows, budget)


def _normal_key(shard: Shard, res: ShardResult):
    """The global order of a shard's counterexample: setting, points, updates, shard, then its
    position inside the shard."""
    k = res.found[0]
    return (shard.setting, shard.n, k[0], shard.index) + tuple(k[1:])


def _pool_task(args):
    from verify._child import die_with_parent

    die_with_parent()
    claim, dom, shard, deadline, max_rows = args
    res = run_shard(claim, dom, shard, deadline, max_rows)
    res.worker = f"pid {os.getpid()}"
    return res


def _dask_task(claim, dom, shard, deadline, max_rows):
    res = run_shard(claim, dom, shard, deadline, max_rows)
    res.worker = f"dask {os.getpid()}"
    return res


# --------------------------------------------------------------------------- the coordinator

class _Merge:
    """Results as they arrive, and when the search can stop."""

    def __init__(self, shards):
        self.shards = shards
        self.results: dict = {}
        self.best = None  # (key, shard, result)

    def add(self, res: ShardResult):
        self.results[res.index] = res
        if res.found is not None:
            key = _normal_key(self.shards[res.index], res)
            if self.best is None or key < self.best[0]:
                self.best = (key, self.shards[res.index], res)

    def needed(self, shard: Shard) -> bool:
        """Whether a shard can still matter: no counterexample yet in an earlier group."""
        return self.best is None or shard.group <= self.best[1].group

    def done(self) -> bool:
        if any(r.status != "complete" for r in self.results.values()):
            return True
        return all(s.index in self.results for s in self.shards if self.needed(s))


def run_shards(claim, dom, shards, deadline, max_rows, jobs=1, scheduler=None, budget=None, worst_tree=None,
               progress=None):
    """Run the shards; returns the _Merge (results by shard index and the best counterexample)."""
    merge = _Merge(shards)

    def report(res):
        merge.add(res)
        if progress is not None:
            progress(res, shards[res.index], len(shards))

    if scheduler is not None:
        _run_dask(claim, dom, shards, deadline, max_rows, scheduler, merge, report)
    elif jobs <= 1 or len(shards) == 1 or budget is not None or worst_tree is not None:
        for s in shards:
            if not merge.needed(s):
                continue
            report(run_shard(claim, dom, s, deadline, max_rows, budget, worst_tree))
            if merge.done():
                break
    else:
        _run_pool(claim, dom, shards, deadline, max_rows, jobs, merge, report)
    return merge


def _default_sigterm():
    """A pool worker dies of SIGTERM at once (the pool's terminate sends it): the command's own
    handler, inherited through fork (verify.report.command_line.stop_on_sigterm), runs Python
    code, which a worker blocked on the pool's queue lock was once seen never to run, leaving
    terminate waiting for it."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _run_pool(claim, dom, shards, deadline, max_rows, jobs, merge, report):
    import queue

    ctx = mp.get_context("fork")
    done_q: queue.SimpleQueue = queue.SimpleQueue()
    with ctx.Pool(min(jobs, len(shards)), initializer=_default_sigterm) as pool:
        for s in shards:
            pool.apply_async(_pool_task, ((claim, dom, s, deadline, max_rows),), callback=done_q.put,
                             error_callback=lambda e: done_q.put(e))
        while not merge.done():
            left = deadline + GRACE - time.time()
            if left <= 0:
                break
            try:
                got = done_q.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if isinstance(got, BaseException):
                raise got
            report(got)
        pool.terminate()


def _run_dask(claim, dom, shards, deadline, max_rows, scheduler, merge, report):
    from distributed import as_completed  # checked by the caller

    from verify.searching.scheduler import connect

    client = connect(scheduler, CONNECT_SECONDS, error=SearchError)
    with client:
        futures = {client.submit(_dask_task, claim, dom, s, deadline, max_rows, pure=False, priority=-s.index,
                                 key=f"proof-audit-shard-{s.index}-{os.getpid()}-{time.time_ns()}"): s for s in shards}
        pending = as_completed(list(futures))
        try:
            for fut in pending:
                if time.time() > deadline + GRACE:
                    break
                report(fut.result())
                if merge.done():
                    break
                for f, s in futures.items():
                    if not merge.needed(s) and not f.done():
                        f.cancel()
        finally:
            client.cancel([f for f in futures if not f.done()])


def tally_of(merge, shards, s):
    """(candidates checked, budget units walked, completed part, complete?, why not) of an enumeration under the settings ``s`` (verify.searching.SearchSettings).  The count
    covers the shards up to the counterexample's group (every one of them ran, whatever the
    sharding), so it is the same for any number of workers."""
    res = merge.results
    last = merge.best[1].group if merge.best is not None else None
    counted = [s for s in shards if s.index in res and (last is None or s.group <= last)]
    checked = sum(res[s.index].checked for s in counted)
    walked = sum(res[s.index].walked for s in counted)
    stops = {res[s.index].status for s in shards if s.index in res} - {"complete"}
    needed = [s for s in shards if last is None or s.group <= last]
    complete = not stops and all(s.index in res for s in needed)
    total = sum(s.datasets for s in needed)
    done = sum(s.datasets if res.get(s.index) and res[s.index].status == "complete" else
               (res[s.index].datasets if s.index in res else 0) for s in needed)
    shards_done = sum(1 for s in needed if s.index in res and res[s.index].status == "complete")
    completed = {"datasets": done, "of": total, "shards": shards_done, "shards_of": len(needed)}
    why = ""
    if not complete:
        kinds = {"timeout": f"time limit of {s.timeout:g} s reached", "memory": f"the memory budget of {s.max_memory / (1 << 30):.3g} "
                 "GiB was reached (one instance's frontier, or a block's arrays, outgrew it)", "budget": f"more than {s.max_exact} "
                 "candidates needed exact evaluation (the budget)", "candidates": f"more than {s.max_candidates} candidates to "
                 "screen (the budget)"}
        why = "; ".join(kinds[k] for k in sorted(stops)) or kinds["timeout"]
        unfinished = sorted({s.n for s in needed if s.index not in res or res[s.index].status != "complete"})
        why += (f"; completed {done:,} of {total:,} datasets ({shards_done} of {len(needed)} shards); "
                f"unfinished: datasets of {', '.join(map(str, unfinished))} point(s)")
        completed["text"] = why
    return checked, walked, completed, complete, why
