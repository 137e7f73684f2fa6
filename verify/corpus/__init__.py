"""The audit engine: which runs the corpus makes for which claims, the pool that runs them, and
the aggregation of their tallies into evidence and findings (verify.corpus.audit)."""
