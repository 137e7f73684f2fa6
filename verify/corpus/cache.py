"""A warm re-run reads the last audit instead of making it again.

``run`` keys its whole result by everything it depends on: the code (a hash of the package's
own source files, so an edited checkout never reads a stale result), the claim files (their
bytes and the paths the results name), every dataset file of ``--data`` (names and bytes), the
search domain and the jobs-independent settings.  When the key matches the one stored in the
cache directory (``OUT/.cache``, or ``[tool.proof-audit] cache``), results.json is written
from the cache byte for byte, the reports are rebuilt from it as ``report`` does, and nothing
is trained or searched.  Any change of any input is a miss, and the audit runs cold.
Partial re-use (re-evaluating only an edited claim) is not done: a claim's evidence counts the
corpus runs it does not apply to, which depend on every other claim of the audit.
"""

from __future__ import annotations

import hashlib
import json
import os

from perceptron.errors import InputError

__all__ = ["run_key", "load", "store", "restore", "CACHE_FILE", "MAX_CACHE_BYTES"]

CACHE_FILE = "run.json"
#: Bytes of one cached run read back (results, run information and the page's plots).
MAX_CACHE_BYTES = 256 << 20


def _source_digest() -> str:
    """A hash of the package's own source files (perceptron/ and verify/)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    h = hashlib.sha256()
    for pkg in ("perceptron", "verify"):
        for dirpath, dirnames, files in sorted(os.walk(os.path.join(root, pkg))):
            dirnames.sort()
            for f in sorted(files):
                if f.endswith((".py", ".toml")):
                    p = os.path.join(dirpath, f)
                    h.update(os.path.relpath(p, root).encode())
                    with open(p, "rb") as fh:
                        h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def _file_digest(path: str) -> bytes:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.digest()


def run_key(claim_paths, data_dirs, settings: dict) -> str:
    """The key of one audit: code, claim files, datasets and settings."""
    from verify.report.results import package_version, repo_path

    h = hashlib.sha256()
    h.update(json.dumps({"version": package_version(), "source": _source_digest(), "settings": settings},
                        sort_keys=True, default=str).encode())
    for p in claim_paths:
        h.update(repo_path(p).encode() + b"\0" + _file_digest(p))
    for d in data_dirs:
        for name in sorted(os.listdir(d)):
            full = os.path.join(d, name)
            if os.path.isfile(full):
                h.update(name.encode() + b"\0" + _file_digest(full))
    return h.hexdigest()


def load(cache_dir: str, key: str) -> dict | None:
    """The cached run for ``key``, or None (no cache, another key, or a cache file that is not
    one: it is ignored and written again, never trusted)."""
    path = os.path.join(cache_dir, CACHE_FILE)
    try:
        if os.path.getsize(path) > MAX_CACHE_BYTES:
            return None
        with open(path, encoding="utf-8") as fh:
            got = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(got, dict) or got.get("key") != key or not isinstance(got.get("results_text"), str):
        return None
    from verify.report.results import validate_results

    try:
        results = json.loads(got["results_text"])
    except ValueError:
        return None
    figures = got.get("figures")
    if not isinstance(results, dict) or validate_results(results) is not None or not (
            figures is None or isinstance(figures, list) and all(
                isinstance(f, list) and len(f) == 2 and all(isinstance(t, str) for t in f) for f in figures)):
        return None
    return got


def store(cache_dir: str, key: str, results_text: str, run_info: dict, figures) -> None:
    try:
        os.makedirs(cache_dir, exist_ok=True)
        tmp = os.path.join(cache_dir, CACHE_FILE + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"key": key, "results_text": results_text, "run_info": run_info, "figures": figures}, fh)
        os.replace(tmp, os.path.join(cache_dir, CACHE_FILE))
    except OSError as e:
        raise InputError(cache_dir, f"cannot write the cache: {e.strerror or e}") from None


def restore(hit: dict, out_dir: str) -> tuple[str, dict, list | None]:
    """Write a cached run's results.json (its very bytes) and run_info.json into ``out_dir``;
    (the results path, the corpus information, the page's plots)."""
    path = os.path.join(out_dir, "results.json")
    os.makedirs(out_dir, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(hit["results_text"])
    with open(os.path.join(out_dir, "run_info.json"), "w", encoding="utf-8") as fh:
        json.dump({**(hit.get("run_info") or {}), "cache": "hit: nothing was run"}, fh, indent=1, sort_keys=True)
        fh.write("\n")
    figures = [tuple(f) for f in hit["figures"]] if hit.get("figures") is not None else None
    return path, json.loads(hit["results_text"])["corpus"], figures
