"""pytest plugin: ``pytest --proof-audit PATH`` audits claim files as test items, one per claim.

PATH is a claim file or a directory (its ``claims_*.toml`` files); ``--proof-audit`` with no
PATH searches the rootdir.  Each claim passes when its verdict is what the file expects; a
failure shows the counterexample (or the failing proof step).  Registered through the
``pytest11`` entry point, so a course repository's existing pytest run audits its notes.
"""

from __future__ import annotations

import json
import os

import pytest

from .artefacts import _failure_text, coverage_text

_VERDICTS: list = []  # (claim id, verdict, what it covered) of every claim item run, for the summary


def pytest_addoption(parser):
    group = parser.getgroup("proof-audit")
    group.addoption("--proof-audit", action="append", nargs="?", const="", default=None, metavar="PATH",
                    help="audit claim files (a file, or the claims_*.toml under a directory; no PATH: the rootdir)")


def _claim_files(config) -> list[str]:
    out = []
    for p in config.getoption("proof_audit") or []:
        p = p or str(config.rootpath)
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                out += [os.path.join(root, f) for f in sorted(files) if f.startswith("claims_") and f.endswith(".toml")]
        else:
            out.append(p)
    return sorted(set(os.path.abspath(p) for p in out))


def pytest_collection_modifyitems(session, config, items):
    for path in _claim_files(config):
        node = ClaimFileNode.from_parent(session, path=__import__("pathlib").Path(path))
        items.extend(node.collect())


class ClaimFileNode(pytest.File):
    _results = None

    def collect(self):
        from .claims import ClaimError, load_claims

        try:
            cf = load_claims(str(self.path))
        except ClaimError as e:
            yield ClaimItem.from_parent(self, name="lint", claim_id=None, error=str(e))
            return
        for c in cf.claims:
            yield ClaimItem.from_parent(self, name=c.id, claim_id=c.id, error=None)

    def results(self) -> dict:
        if self._results is None:
            from .audit import audit
            from .claims import load_claims
            from .report import results_dict

            findings, corpus, _ = audit([str(self.path)], quiet=True)
            by_id = {c.id: c for c in load_claims(str(self.path)).claims}
            data = results_dict(findings, by_id, corpus)
            self._results = {c["id"]: c for c in json.loads(json.dumps(data))["claims"]}
        return self._results


class ClaimFailure(AssertionError):
    pass


class ClaimItem(pytest.Item):
    def __init__(self, *, claim_id, error, **kw):
        super().__init__(**kw)
        self.claim_id, self.error = claim_id, error

    def runtest(self):
        if self.error:
            raise ClaimFailure(self.error)
        c = self.parent.results()[self.claim_id]
        self.user_properties.append(("verdict", c["verdict"]))
        self.user_properties.append(("covered", coverage_text(c)))
        _VERDICTS.append((self.claim_id, c["verdict"], coverage_text(c)))
        if not c["as_expected"]:
            raise ClaimFailure(_failure_text(c))

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ClaimFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"claim {self.claim_id}"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Every audited claim's verdict and what it covered (the domain searched, the corpus and
    the quantifiers varied), so a pass says what it rests on."""
    if not _VERDICTS:
        return
    terminalreporter.section("proof-audit verdicts")
    for cid, verdict, covered in _VERDICTS:
        terminalreporter.write_line(f"{cid}: {verdict} -- covered: {covered}")
