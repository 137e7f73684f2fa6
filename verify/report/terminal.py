"""What the command line shows of a search: its result in words and a progress bar over its
shards.  The verdict tables of run and the results files are verify.report.results'."""

from __future__ import annotations

__all__ = ["ShardProgress", "search_result_text", "worst_text"]


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
    from verify.report.claim_text import dataset_text, run_setting, separator_text, sides_text, where_text

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
        viol = ce.violation
        where = where_text(viol, ("t", "k", "point"))
        where = f"at {where}" if where else ("at the end of the run" if claim.when == "end" else "for the dataset")
        lines.append(f"  violated {where}: " + (sides_text(viol, claim.expr) or "false"))
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
