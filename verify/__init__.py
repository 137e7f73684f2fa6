"""proof-audit's Python API: audit claim files, check one claim on one dataset, search for a
counterexample.  Everything else in the package is internal.

    import verify
    findings = verify.audit(["notes/claims_lec5.toml"])          # the whole audit, as `run`
    f = verify.check("lec5.bound", "data/points.csv", claims=["notes/claims_lec5.toml"])
    print(f.verdict.label, f.evidence)
    r = verify.search("lec5.bound", claims=["notes/claims_lec5.toml"], points=3, box=2)
    print(r.verdict.label, r.counterexample)

The modules ``verify.audit`` and ``verify.search`` are internal; their names in this package are
the functions below (``from verify.audit import ...`` still reaches the modules, and
``importlib.import_module("verify.audit")`` returns the module).
"""

from __future__ import annotations

import importlib
import sys
import types

__all__ = ["audit", "check", "search", "load_claims", "Verdict", "Finding"]

#: The API's functions whose names are also internal modules.
_SHADOWED = ("audit", "search")


class _Package(types.ModuleType):
    """Keeps ``verify.audit`` and ``verify.search`` the API's functions: importing the internal
    modules of those names (which Python records on the package) leaves them in sys.modules only.
    Nothing heavy is imported until a function is called (pytest loads this package as a plugin)."""

    def __setattr__(self, name, value):
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name):  # Verdict, Finding, load_claims on first use
    if name in ("Verdict", "Finding"):
        from . import verdicts

        return getattr(verdicts, name)
    if name == "load_claims":
        from .claims import load_claims

        return load_claims
    raise AttributeError(f"module 'verify' has no attribute {name!r}")


def _claim(claim_id: str, claims) -> object:
    from .claims import builtin_claim_files, load_claims

    for path in claims or builtin_claim_files():
        for c in load_claims(path).claims:
            if c.id == claim_id:
                return c
    raise KeyError(f"no claim {claim_id!r} in {', '.join(claims) if claims else 'the built-in claim files'}")


def audit(claim_files=None, *, data_dirs=(), only=None, jobs=None) -> list:
    """Audit the claims of ``claim_files`` (default: the built-in audits of the five notes) over
    the corpus (plus the dataset files of ``data_dirs``), as ``proof-audit run`` does; ``only``
    restricts it to some claim ids.  One Finding per claim, in claim-file order."""
    from .audit import audit as run_audit
    from .claims import builtin_claim_files

    findings, _, _ = run_audit(list(claim_files or builtin_claim_files()), data_dirs=data_dirs, quiet=True,
                                         jobs=jobs, only=only)
    return findings


def check(claim_id: str, data, *, claims=None):
    """The verdict of one claim on one dataset: every corpus run of the claim's variants on
    ``data`` (a path, ``builtin:NAME`` or a perceptron.Dataset), replayed, the claim evaluated
    wherever it applies.  The Finding's evidence says what was covered: one dataset is a
    quantifier held fixed, so a claim about every dataset is "unknown" there (the evidence never
    varied the dataset) unless refuted; only a claim naming its datasets can hold on evidence."""
    from perceptron import Dataset, load

    A = importlib.import_module("verify.audit")  # the module (verify.audit is the function above)
    c = _claim(claim_id, claims)
    ds = data if isinstance(data, Dataset) else load(str(data))
    if c.when == "once":
        from .evaluation import ClaimTally, _Env, _eval_claim

        tally = ClaimTally()
        _eval_claim(c, _Env(None, {}), tally, {"once": True})
        agg = A._new_agg([c])
        A._merge(agg[c.id], tally, None, None, None)
        return A._finding(c, agg[c.id], "no dataset (evaluated once)", {})
    part = A._audit_dataset([c], ds.name, ds, False, A._needs([c]))
    return A._finding(c, part["agg"][c.id], f"1 dataset ({ds.name}), {part['runs']} runs", {})


def search(claim_id: str, *, claims=None, engine: str = "auto", timeout: float = 60.0, jobs: int = 1,
           scheduler: str | None = None, max_memory_gib: float = 4.0, **domain):
    """Search small integer datasets for a counterexample to one claim; ``domain`` sets the
    fields of verify.search.Domain (points, dim, box, max_updates, order, sep_box, ...);
    ``jobs`` worker processes or the Dask ``scheduler`` at that address run the shards, under a
    memory budget of ``max_memory_gib`` and the hard ``timeout``.  The result has ``verdict``
    (refuted with a replayed ``counterexample``, no counterexample in the stated ``domain``, or
    unknown with the part ``completed``) and ``to_json()``."""
    from .search import Domain, search as run_search

    c = _claim(claim_id, claims)
    return run_search(c, Domain(**domain), engine=engine, timeout=timeout, jobs=jobs, scheduler=scheduler,
                      max_memory=int(max_memory_gib * (1 << 30)))

