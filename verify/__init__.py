"""proof-audit's Python API: audit claim files, check one claim on one dataset, search for a
counterexample.  Everything else in the package is internal.

    import verify
    findings = verify.audit(["notes/claims_lec5.toml"])          # the whole audit, as `run`
    f = verify.check("lec5.bound", "data/points.csv", claims=["notes/claims_lec5.toml"])
    print(f.verdict.label, f.evidence)
    r = verify.search("lec5.bound", claims=["notes/claims_lec5.toml"], points=3, box=2)
    print(r.verdict.label, r.counterexample)

The engines behind these functions live in packages named by concept (verify.corpus,
verify.searching, verify.replay, ...); this module only re-exports.
"""

from ._api import audit, check, load_claims, search
from .verdicts import Finding, Verdict

__all__ = ["audit", "check", "search", "load_claims", "Verdict", "Finding"]
