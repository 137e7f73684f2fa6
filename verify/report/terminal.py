"""What the command line shows of a search: its result in words and a progress bar over its
shards.  The verdict tables of run and the results files are verify.report.results'."""

from __future__ import annotations

__all__ = ["ShardProgress", "search_result_text", "worst_text", "check_text"]


class ShardProgress:
    """A progress bar over a search's shards (verify.report.progress); nothing with --quiet."""

    def __init__(self, quiet: bool):
        from verify.report.progress import Progress

        self.quiet, self.bar, self.started = quiet, Progress(quiet), False

    def __enter__(self):
        return None if self.quiet else self

    def __call__(self, res, shard, total):
        if not self.started:
            self.bar.phase("shards", total, "shard")
            self.started = True
        self.bar.step(f"{shard.n} points, {res.status}")

    def __exit__(self, *exc):
        self.bar.close()
        return False


def search_result_text(claim, res) -> str:
    """A search's result in words: verdict, domain, and the counterexample with its replay."""
    from verify.report.claim_text import dataset_text, run_setting, search_violation_text, separator_text

    lines = [f"{claim.id} ({claim.citation}): {res.verdict.label}  [engine {res.engine}, {res.seconds:.2f} s, "
             f"{res.checked} candidates screened]", f"  statement: {claim.statement}", f"  expr: {claim.expr}"]
    if getattr(claim, "given", None) is not None:
        lines.append(f"  given: {claim.given.source} (searched as: not (given) or (expr))")
    d = res.domain
    lines.append(f"  domain: {d['datasets']}; runs: {d['runs']}; separators: {d['separators']}")
    if res.choice:
        lines.append(f"  engine choice: {res.choice}")
    if res.counterexample:
        ce = res.counterexample
        lines.append("  dataset: " + dataset_text(ce.points, ce.labels))
        setting = run_setting(ce)
        if setting:
            lines.append(f"  run setting: {setting}")
        lines.append(f"  updates (0-based points, in order): {list(ce.updates)}")
        if ce.separator:
            lines.append(f"  separator: {separator_text(ce.separator)} (w_opt = v/|v|)")
        lines.append("  " + search_violation_text(ce, claim.when, claim.expr))
        if res.files:
            lines.append(f"  replay: {res.files['replay']}")
    if res.reason:
        lines.append(f"  {res.reason}")
    return "\n".join(lines)


def worst_text(res) -> str:
    """The worst ratio of updates to a bound a search found."""
    lines = [f"{res['claim']}: worst ratio updates / bound = {res['ratio']:.4f} ({res['updates']} updates, bound {res['bound']:.4f})",
             f"  dataset: {res.get('points')} labels {res.get('labels')} separator {res.get('separator')}",
             f"  domain: {res['domain']['datasets']}; {res['domain']['runs']}"]
    return "\n".join(lines)


def check_text(trace_path, ds, tr, ctx, claims, tallies, *, explicit: bool, embedded: bool):
    """check's report of a replayed trace: whether it is consistent (it is, when this is
    called), the variant and certificate, each claim's verdict on this one run against its
    expectation with its first violation or smallest slack, and the claims that do not apply.
    Returns (the text, how many verdicts were not the expected ones)."""
    from perceptron.declared import variant_of
    from verify.report.claim_text import run_violation_lines
    from verify.verdicts import meets, verdict_of

    out = []
    recorded = (f"a checkpoint trace: {tr.end.get('visits')} visits re-derived from the data" if tr.checkpoints
                else f"{len(tr.t)} visits recorded")
    out.append(f"{trace_path}: consistent with {ds.name} ({recorded}, {tr.end.get('updates')} updates, "
               f"variant {tr.header['variant']}, {tr.header['arithmetic']})")
    if tr.declaration is not None or getattr(ctx, "declared", False):
        src = "the declaration embedded in the trace's header" if embedded else "the declaration given"
        out.append(f"  declared variant {tr.header['variant']}: replayed against {src} "
                   f"(sha256 {variant_of(tr.header['variant']).sha256[:16]})")
    if ctx is not None and ctx.kind != "separable":
        why = ctx.sep.reason if ctx.sep is not None else (ctx.cert.method if ctx.cert is not None else "")
        out.append(f"  dataset certificate: {ctx.kind} ({why})")
    if claims and getattr(ctx, "float_note", None):
        out.append(f"  {ctx.float_note}")
    unexpected = 0
    skipped = []
    for c in claims:
        t = tallies.get(c.id)
        if t is None or t.not_applicable or (t.evaluations == 0 and not t.violation and not t.unknown):
            why = (t.not_applicable if t is not None and t.not_applicable else
                   "not evaluated on a trace (a claim of another kind: search, symbolic or corpus)" if t is None else
                   f"premise never met on this run (given {c.given.source} was false at all {t.premise_unmet} steps)"
                   if t.premise_unmet else "no evaluation on this run")
            skipped.append((c.id, why))
            continue
        v, _ = verdict_of(t)
        ok = meets(v, c.expect)
        unexpected += not ok
        line = f"  {c.id}: {v.label}, {t.evaluations} evaluations, expect {c.expect} -> {'ok' if ok else 'UNEXPECTED'}"
        out.append(line)
        if t.violation:
            out += ["      " + line for line in run_violation_lines(t.violation, c.when, c.expr)]
        elif t.min_slack is not None:
            from verify.language.scalar import exact_json

            sl = exact_json(t.min_slack)
            shown = sl["exact"] if len(sl["exact"]) <= 24 else f"~{sl['approx'] if sl['approx'] is not None else float('inf'):.6g} (exact: {'a sum of square roots' if 'sqrt' in sl['exact'] else 'a rational'} of {len(sl['exact'])} characters)"
            out.append(f"      smallest slack {shown} at {t.min_slack_at}")
        if t.unknown:
            out.append(f"      unknown: {t.unknown}")
    if explicit:
        for cid, why in skipped:
            out.append(f"  {cid}: not applicable to this run: {why}")
    elif skipped:
        out.append(f"  {len(skipped)} further claims do not apply to this run (name them with --claims or --only to see why)")
    return "\n".join(out), unexpected
