"""``[tool.proof-audit]`` in a course repository's pyproject.toml: where its claim files and
datasets are, and the search domain of its audit.

    [tool.proof-audit]
    claims = ["notes/claims_*.toml"]   # files or globs, relative to pyproject.toml
    data = ["data"]                    # directories of dataset files the audit adds to the corpus
    out = "proof-audit-report"         # proof-audit run --out
    jobs = 2                           # proof-audit run --jobs, proof-audit search --jobs
    scheduler = "tcp://10.0.0.5:8786"  # proof-audit search --scheduler (a Dask cluster)
    depth = 3                          # proof-audit run --depth: how deep each claim is searched
    cache = ".proof-audit-cache"       # where run keeps its last result (default: OUT/.cache)

    [tool.proof-audit.search]          # the domain each claim is searched in by `run`,
    points = 2                         # and the defaults of `proof-audit search`
    dim = 2
    box = 2
    max-updates = 4
    sep-box = 3
    timeout = 60

The nearest pyproject.toml from the working directory upwards is used (as ruff and black do);
command-line options win over it.  Every value is type-checked; a wrong one is one line naming
the file and key (exit 2).  Paths are relative to the file's directory.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field

from perceptron.datasets import InputError

__all__ = ["Config", "load_config", "find_pyproject", "find_upwards", "search_domain", "check_jobs", "MAX_JOBS"]

#: Bounds of [tool.proof-audit.search] (the same as the search command's options).
SEARCH_KEYS = {"points": int, "dim": int, "box": int, "max-updates": int, "sep-box": int, "timeout": (int, float)}
#: Most claim files (or data directories) the globs of one configuration may name: each file is
#: bounded (verify.language.claims), and an audit of more than this many is a glob gone wrong ("**").
MAX_PATHS = 500
_KEYS = {"claims": list, "data": list, "out": str, "jobs": int, "scheduler": str, "search": dict, "cache": str,
         "depth": int}
#: Most worker processes run and search start (the same bound for the command line, this file
#: and the Python API).
MAX_JOBS = 64


def check_jobs(jobs, what: str = "--jobs") -> None:
    """A number of worker processes within MAX_JOBS (None: the default)."""
    if jobs is not None and (type(jobs) is not int or not 1 <= jobs <= MAX_JOBS):
        from perceptron.errors import OptionError

        raise OptionError(f"{what} {jobs}: choose 1 to {MAX_JOBS} worker processes")


@dataclass
class Config:
    path: str | None = None  # the pyproject.toml it came from
    claims: list = field(default_factory=list)  # claim files (globs expanded, sorted)
    data: list = field(default_factory=list)  # dataset directories
    out: str | None = None
    jobs: int | None = None
    scheduler: str | None = None  # address of a Dask scheduler for proof-audit search
    search: dict = field(default_factory=dict)  # points, dim, box, max_updates, sep_box, timeout
    cache: str | None = None  # where run keeps its last result (default: OUT/.cache)
    depth: int | None = None  # how deep run searches each claim (verify.searching.scopes.DEPTHS)


def find_upwards(start: str, name: str) -> str | None:
    """The nearest directory from ``start`` upwards that holds ``name`` (a file or directory)."""
    d = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(d, name)):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def find_pyproject(start: str | None = None) -> str | None:
    d = find_upwards(start or os.getcwd(), "pyproject.toml")
    return None if d is None else os.path.join(d, "pyproject.toml")


def load_config(start: str | None = None, path: str | None = None) -> Config:
    """The [tool.proof-audit] table of ``path`` (default: the nearest pyproject.toml), or an
    empty Config when there is none."""
    path = path or find_pyproject(start)
    if path is None:
        return Config()
    from perceptron.limits import MAX_CLAIM_BYTES, parse_toml, read_bytes

    try:
        text = read_bytes(path, MAX_CLAIM_BYTES, "pyproject.toml").decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, "not UTF-8 text") from None
    data = parse_toml(path, text)
    table = data.get("tool", {}).get("proof-audit") if isinstance(data.get("tool"), dict) else None
    if table is None:
        return Config(path=path)
    where = "[tool.proof-audit]"
    if not isinstance(table, dict):
        raise InputError(path, f"{where} must be a table")
    for k, v in table.items():
        if k not in _KEYS:
            raise InputError(path, f"{where}: unknown key {k!r}; known: {', '.join(sorted(_KEYS))}")
        if not isinstance(v, _KEYS[k]) or isinstance(v, bool):
            raise InputError(path, f"{where}: {k} must be a {_KEYS[k].__name__}")
    if "jobs" in table and not 1 <= table["jobs"] <= MAX_JOBS:
        raise InputError(path, f"{where}: jobs = {table['jobs']}: choose 1 to {MAX_JOBS} worker processes")
    if "depth" in table and not 1 <= table["depth"] <= 4:
        raise InputError(path, f"{where}: depth = {table['depth']}: choose 1 to 4 (verify.searching.scopes.DEPTHS)")
    base = os.path.dirname(os.path.abspath(path))
    cfg = Config(path=path, out=_rel(base, table["out"]) if "out" in table else None, jobs=table.get("jobs"),
                 depth=table.get("depth"), scheduler=table.get("scheduler"), cache=_rel(base, table["cache"]) if "cache" in table else None)
    for k in ("claims", "data"):
        for item in table.get(k, []):
            if not isinstance(item, str) or not item:
                raise InputError(path, f"{where}: {k} must be a list of paths")
            full = os.path.join(base, item)
            hits = sorted(glob.glob(full)) if glob.has_magic(item) else [full]
            if not hits:
                raise InputError(path, f"{where}: {k}: nothing matches {item!r}")
            for h in hits:  # checked here, so every user of the configuration (run, pytest) sees it
                if not (os.path.isfile(h) if k == "claims" else os.path.isdir(h)):
                    raise InputError(path, f"{where}: {k}: {h} is not a {'file' if k == 'claims' else 'directory'}")
            getattr(cfg, k).extend(os.path.normpath(h) for h in hits)
            if len(getattr(cfg, k)) > MAX_PATHS:
                raise InputError(path, f"{where}: {k} names more than {MAX_PATHS} paths (verify.config.MAX_PATHS)")
    if cfg.scheduler is not None:
        _check_scheduler(path, cfg.scheduler)
    for k, v in table.get("search", {}).items():
        if k not in SEARCH_KEYS:
            raise InputError(path, f"{where[:-1]}.search]: unknown key {k!r}; known: {', '.join(SEARCH_KEYS)}")
        if not isinstance(v, SEARCH_KEYS[k]) or isinstance(v, bool):
            raise InputError(path, f"{where[:-1]}.search]: {k} must be a number")
        _check_search_value(path, k, v)
        cfg.search[k.replace("-", "_")] = v
    _check_grids(path, cfg.search)
    return cfg


def _check_scheduler(path: str, address: str) -> None:
    """The scheduler's address, checked as --scheduler's is, the error naming the file and key."""
    from perceptron.errors import OptionError
    from verify.searching.scheduler import check_address

    try:
        check_address(address, "[tool.proof-audit] scheduler =")
    except OptionError as e:
        raise InputError(path, e.message) from None


def _check_grids(path: str, search: dict) -> None:
    """The grids of points and separators the table's own box, sep-box and dim make, within
    the search's MAX_GRID (a value combined with a command-line option is checked there)."""
    from verify.searching.domain import MAX_GRID

    for box in ("box", "sep_box"):
        if box in search and "dim" in search and (2 * search[box] + 1) ** search["dim"] > MAX_GRID:
            raise InputError(path, f"[tool.proof-audit.search]: {box.replace('_', '-')} = {search[box]} dim = "
                                   f"{search['dim']}: a grid of {(2 * search[box] + 1) ** search['dim']} exceeds "
                                   f"{MAX_GRID} (verify.searching.domain.MAX_GRID)")


def _check_search_value(path: str, key: str, value) -> None:
    """One value of [tool.proof-audit.search] within the search's limits, the error naming the
    file and key (not the command-line option it stands for)."""
    import math

    from verify.searching.domain import LIMITS, MAX_SECONDS

    name = key.replace("-", "_")
    if name in LIMITS and not LIMITS[name][0] <= value <= LIMITS[name][1]:
        raise InputError(path, f"[tool.proof-audit.search]: {key} = {value}: choose {LIMITS[name][0]} to "
                               f"{LIMITS[name][1]} (verify.searching.domain.LIMITS)")
    if name == "timeout" and not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise InputError(path, f"[tool.proof-audit.search]: timeout = {value}: choose a number of seconds in "
                               f"(0, {MAX_SECONDS:.0f}]")


def search_domain(cfg: Config, base):
    """``base`` (a verify.searching.Domain) with [tool.proof-audit.search] applied, checked against
    the search's limits (an error names pyproject.toml and the table)."""
    from dataclasses import replace

    from verify.searching.domain import SearchError, check_limits

    dom = replace(base, **{k: v for k, v in cfg.search.items() if k != "timeout"})
    try:
        check_limits(dom, cfg.search.get("timeout", 60.0))
    except SearchError as e:  # a combination (box and dim): named by the keys of the table
        import re

        raise InputError(cfg.path, "[tool.proof-audit.search]: " + re.sub(r"--([a-z-]+) ", r"\1 = ", str(e))) from None
    return dom


def _rel(base: str, p: str) -> str:
    return os.path.normpath(os.path.join(base, p))


def check_out_dir(path: str, option: str, marker: str | None) -> None:
    """An output directory must be creatable and writable, and either new, empty, or one this
    tool wrote before (holding ``marker``): never /, never a file, never someone's folder."""
    from perceptron.errors import OptionError

    real = os.path.realpath(path)
    if real == os.path.realpath(os.sep) or real == os.path.realpath(os.path.expanduser("~")):
        raise OptionError(f"{option} {path}: refusing to write into {real}; name a directory for the results")
    if os.path.exists(path) and not os.path.isdir(path):
        raise OptionError(f"{option} {path}: exists and is not a directory")
    if os.path.isdir(path):
        entries = os.listdir(path)
        if entries and marker is not None and marker not in entries:
            raise OptionError(f"{option} {path}: a non-empty directory without a previous {marker}; "
                             "name a new or empty directory")
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".proof-audit-write-test")
        with open(probe, "w") as fh:
            fh.write("")
        os.remove(probe)
    except OSError as e:
        raise OptionError(f"{option} {path}: cannot write there: {e.strerror or e}") from None
