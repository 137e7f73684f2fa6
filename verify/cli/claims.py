"""claims lint, claims at and draft: claim files checked, a symbolic claim at values, a note drafted."""

from __future__ import annotations


from verify.cli.options import claim_named


def cmd_lint(args) -> int:
    from verify.language.lint import lint

    drafts: list = []
    notes: list = []
    problems = lint(args.files, drafts, notes)
    for p in problems:
        print(p)
    for n in notes:
        print(n)
    for d in drafts:
        print(f"{d.path}:{d.line}:1: draft {d.id}: not evaluated until finished ({d.untranslated})")
    if not problems:
        from verify.language.explain import explain_files

        for line in unsearched(args.files) + (explain_files(args.files) if args.explain else []):
            print(line)
        extra = f"; {len(drafts)} draft claim(s), listed above, are not evaluated" if drafts else ""
        print(f"{len(args.files)} claim file(s): no problems{extra}")
    return 2 if problems else 0


def unsearched(paths) -> list:
    """A note for each claim the audit's search will not cover, with the reason (its verdict then
    rests on the corpus alone, or on its own method: symbolic and closed claims are checked otherwise)."""
    from verify.language.claims import load_claims
    from verify.searching import SearchError
    from verify.searching.domain import check_searchable, claim_variant

    notes = []
    for p in paths:
        for c in load_claims(p).claims:
            if c.when in ("symbolic", "once", "pair") or c.compiled is None:
                continue
            try:
                check_searchable(c)
                claim_variant(c, None)
            except SearchError as e:
                notes.append(f"{c.path}:{c.line}:1: note: {c.id}: not searched ({e}); its verdict rests on the corpus")
    return notes


def cmd_draft(args) -> int:
    from verify.notes.draft import cmd_draft

    return cmd_draft(args)


def cmd_at(args) -> int:
    from verify.symbolic.at import cmd_at

    return cmd_at(claim_named(args), args.values)
