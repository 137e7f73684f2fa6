"""A warm re-run reads the last audit instead of making it again.

``run`` keys its whole result by everything it depends on: the code (a hash of the package's
own source files, so an edited checkout never reads a stale result), the claim files (their
bytes and the paths the results name), every dataset file of ``--data`` (names and bytes), the
search domain and the jobs-independent settings.  When the key matches the one stored in the
cache directory (``OUT/.cache``, or ``[tool.proof-audit] cache``), results.json is written
from the cache byte for byte, the reports are rebuilt from it as ``report`` does, and nothing
is trained or searched.  Any change of any input is a miss, and the audit runs cold.

Past a miss, each claim's verdict and evidence are re-used where nothing they depend on changed
(``claims.json``): the claim's own fields (its expression, premise, variants, assumptions,
orders, ... and the declarations of its variants, but not its line, statement or note, which
are shown from the file as it is now) and the audit's plan: the code, the datasets, the
settings and what of every claim decides which corpus runs are made (verify.corpus.runs.plan_of).
A claim's evidence counts the corpus runs it does not apply to, so the claims whose key missed
are evaluated over every run the audit's plan holds (verify.corpus.audit.audit(evaluate=...)):
the runs they are about are made, the others counted (each of these claims finds them not
applicable for their variant, as a replay would), and the corpus's description, its
certificates and second separators are the plan's, kept beside the entries (each certificate
verified exactly against its data before it is used).  Their findings are a cold run's, and
results.json is byte for byte a cold run's.  With no claim to evaluate, the corpus's
description is read back too and nothing is run.

The seals are digests, not signatures: they keep out a cache cut short, edited by mistake or
moved under another key, not a forger with the code (who could as well write the verdicts).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os

from perceptron.errors import InputError
from perceptron.outputs import output_folder, write_file

__all__ = ["run_key", "load", "store", "restore", "plan_key", "claim_key", "load_claims_cache", "store_claims_cache",
           "CACHE_FILE", "CLAIMS_FILE", "MAX_CACHE_BYTES"]

CACHE_FILE = "run.json"
CLAIMS_FILE = "claims.json"
#: Bytes of one cached run read back (results, run information and the page's plots).
MAX_CACHE_BYTES = 256 << 20


@functools.lru_cache(maxsize=1)
def _source_digest() -> str:
    """A hash of the package's own source files (perceptron/ and verify/): once a process (the
    run's key and its plan's both read it)."""
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
    st = os.stat(path)
    return _digest_of(path, st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=4096)
def _digest_of(path: str, size: int, mtime_ns: int) -> bytes:
    """A file's hash, once a process for its size and time (a --data file is keyed twice)."""
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
    for p in claim_paths:  # the path as given too: replay commands quote it
        h.update(p.encode() + b"\0" + repo_path(p).encode() + b"\0" + _file_digest(p))
    for d in data_dirs:  # the directory as given: counterexamples name its files by it
        h.update(b"\0data\0" + d.encode())
        for name in sorted(os.listdir(d)):
            full = os.path.join(d, name)
            if os.path.isfile(full):
                h.update(name.encode() + b"\0" + _file_digest(full))
    return h.hexdigest()


def plan_key(data_dirs, settings: dict, claims) -> str:
    """The key of what every claim's finding shares: code, datasets, settings and the corpus's
    plan (which runs are made: verify.corpus.runs.plan_of, with the declarations they run)."""
    from perceptron.declared import variant_of
    from verify.corpus.runs import plan_of

    decls = sorted({(v, getattr(variant_of(v), "sha256", "")) for c in claims for v in c.variants
                    if getattr(variant_of(v), "declared", False)})
    return run_key((), data_dirs, {"settings": settings, "plan": plan_of(claims), "declarations": decls,
                                   "documents": sorted({c.document for c in claims})})  # the page's figures name them


#: The fields of a claim that its finding does not depend on: they are shown as the file says now.
_DISPLAY_FIELDS = {"line", "statement", "note", "expect", "corrects", "title", "source"}


def claim_key(plan: str, claim, lemmas=()) -> str:
    """The key of one claim's finding: the plan's key, the claim's own fields (expressions by
    their text) and the declarations of its variants, and those of each claim its proof may rest
    on (``lemmas``: verify.symbolic.from_lemmas.lemmas_of)."""
    own = [_own_fields(c) for c in [claim, *lemmas]]
    return hashlib.sha256(json.dumps([plan, *own], sort_keys=True, default=str).encode()).hexdigest()


def _own_fields(claim) -> dict:
    import dataclasses

    from perceptron.declared import variant_of
    from verify.report.results import repo_path

    own = {}
    for f in dataclasses.fields(claim):
        if f.name in _DISPLAY_FIELDS:
            continue
        v = getattr(claim, f.name)
        if f.name in ("compiled", "given"):
            v = None if v is None else v.source
        elif f.name == "symbolic" and v is not None:
            v = {k: [getattr(e, "source", e) for e in items] for k, items in v.items()}
        elif f.name == "path":  # as given (replay commands quote it) and as results.json names it
            v = [v, repo_path(v)]
        own[f.name] = v
    own["declarations"] = [getattr(variant_of(v), "sha256", "") for v in claim.variants]
    return own


def _sealed(key: str, value) -> str:
    """The digest that seals a cached value to its key: an entry edited or cut short (or moved
    under another key) no longer matches it and is not read (a cache that is not one)."""
    return hashlib.sha256(json.dumps([key, value], sort_keys=True).encode()).hexdigest()


def _unsealed(got: dict) -> dict:
    """The entries of a claims.json whose seals match, and its corpus part only when sealed."""
    from verify.verdicts import Verdict

    labels = {v.label for v in Verdict}
    claims = {}
    for k, e in got["claims"].items():
        if (isinstance(e, dict) and e.get("seal") == _sealed(k, [e.get("verdict"), e.get("evidence"), e.get("tightness")])
                and e.get("verdict") in labels and isinstance(e.get("evidence"), dict)
                and (e.get("tightness") is None or isinstance(e["tightness"], dict))):
            claims[k] = e
    out = {"plan": got["plan"], "claims": claims}
    rest = [got.get("corpus"), got.get("figures"), got.get("run_info"), got.get("certificates")]
    if got.get("seal") == _sealed(got["plan"], rest) and isinstance(rest[0], dict) and isinstance(rest[2], dict):
        out.update({"corpus": rest[0], "figures": rest[1] if _figures_ok(rest[1]) else None, "run_info": rest[2],
                    "certificates": _certificates_of(rest[3])})
    return out


def _certificates_state(known: dict) -> dict:
    """The corpus's certificates and second separators (audit_dataset's ``known``) as JSON."""
    return {"certs": [[list(k), c.state()] for k, c in known["certs"].items()],
            "alts": [[list(k), None if a is None else a.state()] for k, a in known["alts"].items()],
            "cut_short": list(known["cut_short"])}


def _certificates_of(got) -> dict | None:
    """_certificates_state read back, or None for anything that is not one (they are then
    computed again)."""
    from verify.certify.certificates import Certificate

    try:
        def key(k):
            sha, bias, aug, unit = k
            if not (isinstance(sha, str) and isinstance(bias, bool) and aug in (None, "first", "last")
                    and isinstance(unit, bool)):
                raise ValueError("not a certificate's key")
            return sha, bias, aug, unit

        cut = got["cut_short"]
        if not (isinstance(cut, list) and all(isinstance(name, str) for name in cut)):
            raise ValueError("cut_short names datasets")
        return {"certs": {key(k): Certificate.from_state(st) for k, st in got["certs"]},
                "alts": {key(k): None if st is None else Certificate.from_state(st) for k, st in got["alts"]},
                "cut_short": cut}
    except (KeyError, TypeError, ValueError):
        return None


def load_claims_cache(cache_dir: str, plan: str) -> dict:
    """{"claims": {claim key: {"verdict", "evidence", "tightness", "seal"}}, "corpus", "figures",
    "run_info", "certificates"} of the last audit with this plan, or {} (none, another plan, or
    a file that is not one: ignored and written again); an entry whose seal does not match is
    left out (its claim is evaluated again), as is a corpus part whose seal does not
    ("certificates" is None where they are not readable: they are then solved again)."""
    got = _read(os.path.join(cache_dir, CLAIMS_FILE))
    if not isinstance(got, dict) or got.get("plan") != plan or not isinstance(got.get("claims"), dict):
        return {}
    return _unsealed(got)


def _figures_ok(figures) -> bool:
    """Cached page plots: a list of [name, svg] string pairs."""
    return isinstance(figures, list) and all(isinstance(f, list) and len(f) == 2 and all(isinstance(t, str) for t in f)
                                             for f in figures)


def store_claims_cache(cache_dir: str, plan: str, entries: dict, corpus: dict, figures, run_info: dict,
                       certificates: dict) -> None:
    """claims.json: each entry sealed to its key, the corpus part (with its certificates) to the
    plan (JSON first, so that the seal is of what is read back)."""
    entries, rest = json.loads(json.dumps([entries, [corpus, figures, run_info, _certificates_state(certificates)]]))
    for k, e in entries.items():
        e["seal"] = _sealed(k, [e.get("verdict"), e.get("evidence"), e.get("tightness")])
    _write(cache_dir, CLAIMS_FILE, {"plan": plan, "claims": entries, "corpus": rest[0], "figures": rest[1],
                                    "run_info": rest[2], "certificates": rest[3], "seal": _sealed(plan, rest)})


def _write(cache_dir: str, name: str, data: dict) -> None:
    """One cache file, through a unique temporary file (writers never share one); the cache
    folder is never a link (perceptron.outputs)."""
    write_file(os.path.join(output_folder(cache_dir), name), json.dumps(data))


def load(cache_dir: str, key: str) -> dict | None:
    """The cached run for ``key``, or None (no cache, another key, or a cache file that is not
    one: it is ignored and written again, never trusted)."""
    got = _read(os.path.join(cache_dir, CACHE_FILE))
    if not isinstance(got, dict) or got.get("key") != key or not isinstance(got.get("results_text"), str) \
            or got.get("seal") != _sealed(key, [got["results_text"], got.get("run_info"), got.get("figures")]):
        return None
    from verify.report.results import validate_results

    try:
        results = json.loads(got["results_text"])
    except ValueError:
        return None
    figures = got.get("figures")
    if not isinstance(results, dict) or validate_results(results) is not None or not (figures is None or _figures_ok(figures)):
        return None
    return got


def store(cache_dir: str, key: str, results_text: str, run_info: dict, figures) -> None:
    """run.json: the run's results text, information and plots, sealed to its key (JSON first,
    so that the seal is of what is read back)."""
    run_info, figures = json.loads(json.dumps([run_info, figures]))
    _write(cache_dir, CACHE_FILE, {"key": key, "results_text": results_text, "run_info": run_info, "figures": figures,
                                   "seal": _sealed(key, [results_text, run_info, figures])})


def _read(path: str):
    """A cache file's JSON, or None where there is none or it is not one: a file that is not a
    regular file (a FIFO would block, /dev/zero never end), is over MAX_CACHE_BYTES, or is not
    JSON is ignored, never trusted, and written again."""
    from perceptron.limits import read_bytes

    try:
        return json.loads(read_bytes(path, MAX_CACHE_BYTES, "cache").decode("utf-8"))
    except (InputError, ValueError, RecursionError):
        return None


def restore(hit: dict, out_dir: str) -> tuple[str, dict, list | None]:
    """Write a cached run's results.json (its very bytes) and run_info.json into ``out_dir``;
    (the results path, the corpus information, the page's plots)."""
    from verify.report.results import replays_folder

    path = os.path.join(out_dir, "results.json")
    os.makedirs(out_dir, exist_ok=True)
    replays_folder(out_dir)
    write_file(path, hit["results_text"])
    write_file(os.path.join(out_dir, "run_info.json"),
               json.dumps({**(hit.get("run_info") or {}), "cache": "hit: nothing was run"}, indent=1, sort_keys=True) + "\n")
    figures = [tuple(f) for f in hit["figures"]] if hit.get("figures") is not None else None
    return path, json.loads(hit["results_text"])["corpus"], figures


def audit_reusing(claim_paths, claims, cache_dir: str, settings: dict, figures=True, **audit_kw):
    """audit() of the claim files, re-using each claim's finding from the last audit with the
    same plan where its key matches (claims.json); the claims whose key missed are evaluated over
    every run of the plan (made, or counted where they are not about it).  Returns (findings, corpus, run_info) as audit does, run_info saying
    how many findings were read back; stores the new entries.  ``figures``: whether the page's
    plots are wanted (rendered once, kept with the plan)."""
    want_figures = figures
    from verify.corpus.audit import audit
    from verify.symbolic.from_lemmas import lemma_graph, lemmas_of
    from verify.verdicts import Finding, Verdict

    plan = plan_key(audit_kw.get("data_dirs", ()), settings, claims)
    got = load_claims_cache(cache_dir, plan)
    graph = lemma_graph(claims)
    keys = {c.id: claim_key(plan, c, lemmas_of(c.id, graph)) for c in claims}
    entries = got.get("claims", {})
    todo = {c.id for c in claims if keys[c.id] not in entries}
    # the plan's corpus is kept unless a replay failed or a dataset's audit was cut short (make every run)
    kept = "corpus" in got and not got["corpus"].get("inconsistent_traces") and got.get("certificates") is not None \
        and not got["certificates"]["cut_short"]
    if todo or not kept:
        # the claims whose key missed; with the plan's corpus kept, on the runs they are about only
        # (the others counted); the page's figures depend on the plan alone (the corpus's plots,
        # the documents' names)
        figures = got.get("figures") if kept else None
        certificates = dict(got.get("certificates") or {}) if kept else {}
        findings, corpus, run_info = audit(claim_paths, evaluate=todo, figures=figures is None and want_figures,
                                           corpus=not kept, claims=claims, solved=certificates, **audit_kw)
        figures = run_info.get("figures", figures)
        if kept:
            corpus = {**got["corpus"], "tightness": corpus.get("tightness")}
    else:  # every finding read back, and the corpus's description (nothing is run)
        findings, corpus, run_info = [], got["corpus"], dict(got.get("run_info") or {})
        figures, certificates = got.get("figures"), got["certificates"]
    if figures is None and want_figures:  # rendered here once (a pool renders them beside the searches), kept
        from verify.report.figures import figures_of

        figures = figures_of(corpus.get("plots") or {}, sorted({c.document for c in claims}))
    fresh = {f.claim_id: f for f in findings}
    tight = {t["claim"]: t for t in corpus.get("tightness") or []}
    by_label = {v.label: v for v in Verdict}
    out, tightness, store = [], [], {}
    for c in claims:
        if c.id in fresh:
            f, t = fresh[c.id], tight.get(c.id)
        else:
            e = entries[keys[c.id]]
            f = Finding(c.id, c.citation, c.statement, by_label[e["verdict"]], c.expect, e["evidence"], c.path, c.line)
            t = e.get("tightness")
        out.append(f)
        if t is not None:
            tightness.append(t)
        store[keys[c.id]] = {"verdict": f.verdict.label, "evidence": f.evidence, "tightness": t}
    corpus = {**corpus, "tightness": tightness}
    run_info = {**{k: v for k, v in run_info.items() if k != "figures"},
                "cache": f"{len(claims) - len(todo)} of {len(claims)} claims' findings read back "
                         f"({len(todo)} evaluated)"}
    store_claims_cache(cache_dir, plan, store, {k: v for k, v in corpus.items() if k != "tightness"}, figures,
                       run_info, certificates)
    if figures is not None:
        run_info["figures"] = [tuple(f) for f in figures]
    return out, corpus, run_info
