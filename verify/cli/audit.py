"""run (the main job: the audit) and report (the reports again from results.json)."""

from __future__ import annotations

import json
import os
import sys

from perceptron import InputError
from verify.config import check_jobs, check_out_dir, search_domain
from verify.cli.options import claim_paths, config_of


def cmd_run(args) -> int:
    from verify.corpus.audit import audit
    from verify.corpus.cache import audit_reusing, load, restore, run_key, store
    from verify.language.claims import claims_of, load_claims, with_notes_dir
    from verify.report.results import (
        findings_of,
        print_table,
        print_tightness,
        repo_path,
        use_colour,
        write_results,
    )

    cfg = config_of()
    paths = claim_paths(args)
    files = [load_claims(p) for p in paths]
    claims = claims_of(files)
    drafts = [d for f in files for d in f.drafts]
    if args.notes:
        if not os.path.isdir(args.notes):
            raise InputError(args.notes, "not a directory of notes (--notes)")
        claims, drafts = with_notes_dir(claims, args.notes), with_notes_dir(drafts, args.notes)
    from verify.notes.annotate import check_note_places

    check_note_places(list(claims) + list(drafts), args.notes)
    data = args.data or cfg.data
    for d in data:
        if not os.path.isdir(d):
            raise InputError(d, "not a directory of datasets")
    out_label = "--out" if args.out or not cfg.out else f"{cfg.path}: [tool.proof-audit] out ="
    args.out = args.out or cfg.out or "reports"
    args.jobs = args.jobs if args.jobs is not None else cfg.jobs
    check_jobs(args.jobs)
    args.scheduler = args.scheduler or cfg.scheduler
    check_out_dir(args.out, out_label, marker="results.json")
    from verify.corpus.searches import AUDIT_DOMAIN

    domain = search_domain(cfg, AUDIT_DOMAIN) if cfg.search else None  # one domain as given, or the growing scopes
    cache_dir = cfg.cache or os.path.join(args.out, ".cache")
    depth = args.depth or cfg.depth
    settings = {"domain": domain, "notes": args.notes, "out": args.out, "depth": depth}  # what the result depends on
    key = None if args.no_cache else run_key(paths, data, settings)
    hit = key and load(cache_dir, key)
    by_id = {c.id: c for c in claims}
    if hit:  # nothing changed: the last result, byte for byte, and the reports rebuilt from it
        path, corpus, figures = restore(hit, args.out)
    else:
        kw = dict(data_dirs=data, quiet=args.quiet, jobs=args.jobs, domain=domain, depth=depth,
                  colour=use_colour(args.color, sys.stderr), scheduler=args.scheduler)
        findings, corpus, run_info = audit(paths, claims=claims, **kw) if args.no_cache else \
            audit_reusing(paths, claims, cache_dir, settings, **kw)
        figures = run_info.pop("figures", None)  # rendered by a worker during the search
        path = write_results(args.out, findings, by_id, corpus, run_info, drafts)
        if key:
            with open(path, encoding="utf-8") as fh:
                store(cache_dir, key, fh.read(), run_info, figures)
    from verify.report.artefacts import write_artefacts

    with open(path, encoding="utf-8") as fh:
        results = json.load(fh)
    write_artefacts(args.out, results, figures=figures, notes_dir=args.notes,
                    claim_files={repo_path(p): p for p in paths})
    findings = findings_of(results)  # the table from the file, so a cached run prints what a cold one does
    if not args.quiet or any(not f.as_expected for f in findings):
        print_table(findings, by_id, verbose=args.verbose, colour=use_colour(args.color, sys.stdout))
        print_tightness(corpus.get("tightness"))
    unexpected = [f for f in findings if not f.as_expected]
    bad_traces = corpus["inconsistent_traces"]
    cached = " (from the cache: nothing changed)" if hit else ""
    if not findings and drafts:
        print(f"\nno claims to evaluate: the claim files hold only drafts ({len(drafts)}), listed below. Results: {path}")
    else:
        print(f"\n{len(findings)} claims over {len(corpus['datasets'])} datasets, {corpus['runs']} runs: "
              f"{len(findings) - len(unexpected)} as expected, {len(unexpected)} unexpected. Results: {path}{cached}")
    for b in bad_traces:
        print(f"INCONSISTENT TRACE: {b}")
    if drafts:
        _print_drafts(drafts)
    return 1 if unexpected or bad_traces else 0


def _print_drafts(drafts):
    """The draft claims not evaluated, the first ten with their reasons."""
    from verify.report.claim_text import clipped

    print(f"{len(drafts)} draft claim(s) not evaluated (draft = true): "
          + ", ".join(f"{d.id} ({clipped(d.untranslated, 60)})" for d in drafts[:10]) + (" ..." if len(drafts) > 10 else ""))


def cmd_report(args) -> int:
    from verify.report.artefacts import write_artefacts
    from verify.report.evidence_check import read_results

    results = read_results(os.path.join(args.out, "results.json"))
    if args.notes and not os.path.isdir(args.notes):
        raise InputError(args.notes, "not a directory of notes (--notes)")
    for p in write_artefacts(args.out, results, github=args.github, notes_dir=args.notes):
        print(p)
    return 0 if all(c["as_expected"] for c in results["claims"]) else 1
