"""pytest plugin: ``pytest --proof-audit [PATH]`` audits claim files as test items, one per claim.

PATH is a claim file or a directory (its ``claims_*.toml`` files); with no PATH, the ``claims``
of ``[tool.proof-audit]`` in pyproject.toml, else every ``claims_*.toml`` under the rootdir.
Claim files are collected by ``pytest_collect_file`` (added to the run's arguments when they
lie outside them), one item per claim located at the claim's line in its TOML file, so
``--co``, ``-k``, ``--lf`` and the counts behave as for any test.  An item passes when the
claim's verdict is what the file expects; a failure shows the verdict, the counterexample, what
was covered and the replay command, and the short summary one line of it.

Work: the audit of a claim runs only the corpus runs that claim needs.  In one process the
selected claims of a file are audited together, once (so ``-k`` audits only what it selects);
under pytest-xdist each worker audits only the claims it is given, one at a time, so no worker
repeats another's work.  Registered through the ``pytest11`` entry point.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from verify.report.claim_text import coverage_text, failure_text, reason_line

_FILES = pytest.StashKey[frozenset]()
#: Directories not searched for claim files (besides hidden ones and virtual environments).
_SKIP_DIRS = ("node_modules", "__pycache__", "venv", "env", "build", "dist", "site-packages")


def pytest_addoption(parser):
    group = parser.getgroup("proof-audit")
    group.addoption("--proof-audit", action="append", nargs="?", const="", default=None, metavar="PATH",
                    help="audit claim files as tests: a file, or the claims_*.toml under a directory; no PATH: "
                         "[tool.proof-audit] claims in pyproject.toml, else the claims_*.toml under the rootdir")


def _claim_files(config) -> list[str]:
    out = []
    for p in config.getoption("proof_audit") or []:
        if not p:
            from perceptron.errors import InputError

            from .config import load_config

            try:
                cfg = load_config(str(config.rootpath))
            except InputError as e:  # one line, not pytest's INTERNALERROR traceback
                raise pytest.UsageError(str(e)) from None
            if cfg.claims:
                out += cfg.claims
                continue
            p = str(config.rootpath)
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS
                                 and not os.path.exists(os.path.join(root, d, "pyvenv.cfg")))
                out += [os.path.join(root, f) for f in sorted(files) if f.startswith("claims_") and f.endswith(".toml")]
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise pytest.UsageError(f"--proof-audit {p}: no such claim file or directory")
    if not out:
        return []
    from .config import MAX_PATHS

    files = sorted(set(os.path.abspath(p) for p in out))
    if len(files) > MAX_PATHS:
        raise pytest.UsageError(f"--proof-audit: {len(files)} claim files; the limit is {MAX_PATHS} (verify.config.MAX_PATHS)")
    return files


def pytest_configure(config):
    files = _claim_files(config)
    config.stash[_FILES] = frozenset(files)
    if not files:
        return
    # collect them even when the run's arguments do not reach them (pytest tests/ --proof-audit notes/)
    covered = [Path(a.split("::")[0]).absolute() for a in config.args]
    for f in files:
        fp = Path(f)
        if not any(fp == c or c in fp.parents for c in covered):
            config.args.append(f)


def pytest_collect_file(file_path, parent):
    files = parent.config.stash.get(_FILES, frozenset())
    if str(file_path.absolute()) in files:
        return ClaimFile.from_parent(parent, path=file_path)
    return None


class ClaimFile(pytest.File):
    """A claim file: its claims are the items; a file that does not load is one collection
    error with its FILE:LINE:COL line."""

    _results: dict | None = None

    def collect(self):
        from verify.language.claims import load_claims

        for c in load_claims(str(self.path)).claims:
            yield ClaimItem.from_parent(self, name=c.id, claim=c)

    def repr_failure(self, excinfo):
        from perceptron.datasets import InputError
        from verify.language.claims import ClaimError

        if isinstance(excinfo.value, (ClaimError, InputError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def results_for(self, item) -> dict:
        """The result (results.json form) of the item's claim, auditing it first if needed:
        together with the other selected claims of this file in one process, alone under xdist."""
        if self._results is None:
            self._results = {}
        if item.claim.id not in self._results:
            worker = hasattr(self.config, "workerinput")
            mine = [item] if worker else [it for it in self.session.items if isinstance(it, ClaimItem)
                                          and it.parent is self and it.claim.id not in self._results]
            self._results.update(_audit(str(self.path), {it.claim.id: it.claim for it in mine},
                                        jobs=1 if worker else None, cache=getattr(self.config, "cache", None)))
        return self._results[item.claim.id]


def _audit(path: str, claims: dict, jobs, cache=None) -> dict:
    """Audit the given claims (id -> Claim) of one file, with [tool.proof-audit]'s data, depth and
    domain; with pytest's ``cache``, each claim's finding is read back where nothing it depends
    on changed (as run does: verify.corpus.cache.audit_reusing), in a directory of the cache per
    claim file and selection (the corpus's plan depends on the claims selected; under xdist each
    worker's claim has its own)."""
    import hashlib

    from perceptron.errors import InputError
    from verify.corpus.audit import audit
    from verify.corpus.cache import audit_reusing
    from verify.report.results import results_dict

    from .config import load_config, search_domain

    cfg = load_config(os.path.dirname(path))
    domain = None
    if cfg.search:
        from verify.corpus.searches import AUDIT_DOMAIN

        domain = search_domain(cfg, AUDIT_DOMAIN)
    kw = dict(quiet=True, only=list(claims), jobs=jobs, data_dirs=cfg.data, domain=domain, depth=cfg.depth)
    if cache is None:
        findings, corpus, _ = audit([path], **kw)
    else:
        which = json.dumps([os.path.abspath(path), sorted(claims)])
        where = str(cache.mkdir("proof-audit-" + hashlib.sha256(which.encode()).hexdigest()[:16]))
        if os.path.islink(os.path.dirname(where)):  # the folder itself is checked where it is written
            raise InputError(os.path.dirname(where), "is a symbolic link where pytest's cache folder should be; "
                                                     "refusing to write through it")
        findings, corpus, _ = audit_reusing([path], list(claims.values()), where, {"domain": domain, "depth": cfg.depth},
                                            figures=False, **kw)
    data = json.loads(json.dumps(results_dict(findings, claims, corpus, out=cfg.out or "reports")))
    return {c["id"]: c for c in data["claims"]}


class ClaimFailure(AssertionError):
    def __init__(self, text: str, reason: str):
        super().__init__(text)
        self.text, self.reason = text, reason


class ClaimItem(pytest.Item):
    def __init__(self, *, claim, **kw):
        super().__init__(**kw)
        self.claim = claim

    def runtest(self):
        c = self.parent.results_for(self)
        covered = coverage_text(c)
        self.user_properties.append(("verdict", c["verdict"]))
        self.user_properties.append(("covered", covered))
        if not c["as_expected"]:
            raise ClaimFailure(failure_text(c), reason_line(c))

    def repr_failure(self, excinfo):
        from perceptron.errors import InputError

        if isinstance(excinfo.value, InputError):  # a bad pyproject.toml or dataset: its one line
            return str(excinfo.value)
        if isinstance(excinfo.value, ClaimFailure):
            from _pytest._code.code import (
                ReprEntryNative,
                ReprExceptionInfo,
                ReprFileLocation,
                ReprTraceback,
            )

            e = excinfo.value
            where = f"{self.path}:{self.claim.line}: claim {self.claim.id} ({self.claim.citation})\n"
            lines = [where] + [ln + "\n" for ln in e.text.splitlines()]
            # a structured report, so the short summary (and pytest-xdist) carry the one-line reason
            return ReprExceptionInfo(ReprTraceback([ReprEntryNative(lines)], None, "native"),
                                     ReprFileLocation(str(self.path), self.claim.line, e.reason))
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.claim.line - 1, f"claim {self.claim.id}"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Every audited claim's verdict and what it covered (the domain searched, the corpus and
    the quantifiers varied), so a pass says what it rests on."""
    lines = []
    for key in ("passed", "failed"):
        for rep in terminalreporter.stats.get(key, []):
            props = dict(getattr(rep, "user_properties", ()) or ())
            if rep.when == "call" and "verdict" in props:
                lines.append(f"{rep.nodeid.split('::')[-1]}: {props['verdict']} -- covered: {props['covered']}")
    if lines:
        terminalreporter.section("proof-audit verdicts")
        for ln in sorted(lines):
            terminalreporter.write_line(ln)
