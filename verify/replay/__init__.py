"""Replay: a trace recomputed from its dataset, every record checked against the variant's rule,
claims evaluated wherever they apply.

* dispatch: ``replay()``, which claims apply to a run, dataset claims
* blocks: the exact replay of a complete trace in whole-array integer arithmetic (the fast path)
* declared: the replay of a declared variant's trace
* pairs: claims that compare two runs
"""
