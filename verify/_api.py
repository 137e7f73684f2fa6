"""The functions of proof-audit's Python API (re-exported by ``verify``).  Each imports its
engine on first call: pytest loads the package as a plugin, and nothing heavy is imported then."""

from __future__ import annotations

__all__ = ["audit", "check", "search", "load_claims"]


def load_claims(path: str, **kwargs):
    """The claims of one claim file (verify.language.claims.load_claims)."""
    from verify.language.claims import load_claims as load

    return load(path, **kwargs)


def _claim(claim_id: str, claims) -> object:
    from verify.language.claims import builtin_claim_files, load_claims

    for path in claims or builtin_claim_files():
        for c in load_claims(path).claims:
            if c.id == claim_id:
                return c
    raise KeyError(f"no claim {claim_id!r} in {', '.join(claims) if claims else 'the built-in claim files'}")


def audit(claim_files=None, *, data_dirs=(), only=None, jobs=None, out="reports", depth=None) -> list:
    """Audit the claims of ``claim_files`` (default: the built-in audits of the five notes) over
    the corpus (plus the dataset files of ``data_dirs``), as ``proof-audit run`` does; ``only``
    restricts it to some claim ids; ``depth`` (1 to 4, default 2) is how deep each claim is
    searched, as ``run --depth``.  One Finding per claim, in claim-file order; a refutation's
    replay command writes its files under ``out`` (as ``run --out`` names it)."""
    from verify.corpus.audit import audit as run_audit
    from verify.corpus.evidence import finding_with_out
    from verify.language.claims import builtin_claim_files

    findings, _, _ = run_audit(list(claim_files or builtin_claim_files()), data_dirs=data_dirs, quiet=True,
                                         jobs=jobs, only=only, depth=depth)
    return [finding_with_out(f, out) for f in findings]


def check(claim_id: str, data, *, claims=None, out="reports"):
    """The verdict of one claim on one dataset: every corpus run of the claim's variants on
    ``data`` (a path, ``builtin:NAME`` or a perceptron.Dataset), replayed, the claim evaluated
    wherever it applies.  The Finding's evidence says what was covered: one dataset is a
    quantifier held fixed, so a claim about every dataset is "unknown" there (the evidence never
    varied the dataset) unless refuted; only a claim naming its datasets can hold on evidence.
    A refutation's replay command writes its files under ``out``."""
    from perceptron import Dataset, load
    from verify.corpus.audit import audit_dataset
    from verify.corpus.evidence import Evidence, finding_of, finding_with_out
    from verify.corpus.runs import needs_of

    c = _claim(claim_id, claims)
    ds = data if isinstance(data, Dataset) else load(str(data))
    if c.when == "once":
        ev = Evidence()
        ev.evaluate_once(c)
        return finding_of(c, ev, "no dataset (evaluated once)", {})
    part = audit_dataset([c], ds.name, ds, False, needs_of([c]))
    return finding_with_out(finding_of(c, part["agg"][c.id], f"1 dataset ({ds.name}), {part['runs']} runs", {}), out)


def search(claim_id: str, *, claims=None, engine: str = "auto", timeout: float = 60.0, jobs: int = 1,
           scheduler: str | None = None, max_memory_gib: float = 4.0, **domain):
    """Search small integer datasets for a counterexample to one claim; ``domain`` sets the
    fields of verify.searching.Domain (points, dim, box, max_updates, order, sep_box, ...);
    ``jobs`` worker processes or the Dask ``scheduler`` at that address run the shards, under a
    memory budget of ``max_memory_gib`` and the hard ``timeout``.  The result has ``verdict``
    (refuted with a replayed ``counterexample``, no counterexample in the stated ``domain``, or
    unknown with the part ``completed``) and ``to_json()``.  The counterexample is a
    verify.replay.counterexample.Counterexample: ``points``, ``labels``, ``updates`` (the points
    updated on, in order), ``params`` (the run, perceptron.Params: ``params.argv()`` are its train
    options), ``separator``, ``violation`` and ``to_json()``."""
    from verify.searching import Domain
    from verify.searching import search as run_search

    c = _claim(claim_id, claims)
    return run_search(c, Domain(**domain), engine=engine, timeout=timeout, jobs=jobs, scheduler=scheduler,
                      max_memory=int(max_memory_gib * (1 << 30)))

