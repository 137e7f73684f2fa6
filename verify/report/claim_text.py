"""One claim's result in words, from its results.json entry: what it covered, the setting of a
run, and why a verdict is not the one expected.  Used by the terminal table (verify.report.results),
the written reports (verify.report.artefacts) and the pytest plugin."""

from __future__ import annotations

from verify.language.violation import WHERE_KEYS, Violation

__all__ = ["coverage_text", "search_text", "scope_text", "run_setting", "failure_text", "refutation_lines",
           "corpus_refutation_lines", "run_violation_lines", "search_violation_text", "reason_line", "sides_text", "where_text",
           "dataset_text", "separator_text", "partner_text", "free_text", "search_counterexample", "WHERE_KEYS", "clipped"]


def _v(viol) -> Violation:
    """A Violation, or the record of one as results.json keeps it (checked by
    verify.report.evidence_check before a report reads it)."""
    return viol if isinstance(viol, Violation) else Violation.from_json(viol)


def where_text(viol, keys=WHERE_KEYS, sep=" = ") -> str:
    """The place of a violation: "t = 3, k = 2, point = 1" (those of ``keys`` it has)."""
    return ", ".join(f"{k}{sep}{v}" for k, v in _v(viol).place(keys))


def dataset_text(points, labels, arrow=" -> ") -> str:
    """A counterexample's dataset: "(1, 0) -> +1, (0, 1) -> -1"."""
    return ", ".join("(" + ", ".join(str(t) for t in p) + f"){arrow}{y:+d}" for p, y in zip(points, labels))


def separator_text(sep) -> str:
    """A search counterexample's separator (v, bias): "v = (1, 2)", with ", c = B" for a bias
    other than 0."""
    return f"v = {tuple(sep[0])}" + (f", c = {sep[1]}" if sep[1] != 0 else "")


def free_text(viol) -> str:
    """The free names' values a violation was found at: "a = 1, b = -2" ("" when none)."""
    return ", ".join(f"{k} = {v}" for k, v in _v(viol).free.items())


def partner_text(viol) -> str:
    """Where a pair claim's two runs part: "at update 2: points 0 against 1", "in their ends"."""
    kind, *at = _v(viol).parting()
    if kind == "update":
        return f"at update {at[0]}: points {at[1][0]} against {at[1][1]}"
    if kind == "visit":
        return f"at visit {at[0]}"
    if kind == "after update":
        return f"after update {at[0]} of both"
    return "in their ends" + (f" (updates {at[0][0]} against {at[0][1]})" if at[0] is not None else "")


def sides_text(v, expr=None) -> str:
    """Where a claim fails, in words: each side of its comparison named by its text in ``expr``
    (the claim's expression, already checked by its parser: a pair claim's partner run is then
    named too; verify.language.sides) with its value, or for A or B (A and B) each part's value;
    "" when the violation has neither.  all_i(c) is shown at the first point where c fails,
    any_i(c) at its first point.  A claim read as an implication (a top-level A or B) is
    evaluated as B where A is false: its sides are B's."""
    from verify.language.sides import side_names

    v = _v(v)
    where = ""
    if v.at_point is not None:
        quantifier, j = v.at_point
        where = (f"{quantifier} fails at point {j}: " if quantifier == "all_i" else
                 f"{quantifier} holds at no point; at point {j}: ")
    if v.sides is not None:
        names = side_names(expr, len(v.sides), implied=v.parts is None, at_point=v.at_point is not None)
        vals = [f"{n} = {x}" if n and n != x else x for n, x in zip(names, v.sides)]
        return where + vals[0] + "".join(f" {o} {s}" for o, s in zip(v.ops, vals[1:])) + "  (false)"
    if v.parts is not None:  # A or B (A and B): each part's value where the claim fails
        return where + f" {v.connective} ".join(v.parts) + "  (false)"
    return ""


def scope_text(scope: dict) -> str:
    """The scope a "no counterexample" verdict covers, in one phrase, from its fields
    (results.json's evidence.scope): "up to 3 points in [-3, 3]^2, 10 updates, w0 in [-1, 1]^2,
    eta in {1/2, 1, 2}"."""
    dim = scope.get("dim", 2)
    n = scope.get("points", "?")
    parts = [f"up to {n} point{'' if n == 1 else 's'}" + (" of the unit circle" if scope.get("unit") else
                                                          f" in [-{scope['box']}, {scope['box']}]^{dim}" if "box" in scope else "")]
    if "max_updates" in scope:
        parts.append(f"{scope['max_updates']} updates")
    if "w0_box" in scope:
        parts.append(f"w0 in [-{scope['w0_box']}, {scope['w0_box']}]^{dim}" if scope["w0_box"] else "w0 = 0")
    if scope.get("etas"):
        parts.append("eta in {" + ", ".join(map(str, scope["etas"])) + "}")
    return ", ".join(parts)


def _deeper(search, scope: dict) -> str:
    """Why the search went no deeper than ``scope``: the next scope of the ladder, and what
    stopped it ("" when the ladder was completed, or for a search of one domain)."""
    scopes = (search or {}).get("scopes") if isinstance(search, dict) else None
    if not isinstance(scopes, list) or not scopes or not isinstance(scopes[-1], dict) or "reason" not in scopes[-1]:
        return ""
    nxt = scopes[-1]
    shown = {**{k: scope[k] for k in ("dim", "unit") if k in scope},
             **{k: nxt[k] for k in ("points", "box", "max_updates") if k in nxt and (k in scope or k != "max_updates")}}
    return (f" (the next scope, {scope_text(shown).removeprefix('up to ')}, "
            f"{'was not started' if nxt.get('verdict') == 'not started' else 'was not completed'}: "
            f"{str(nxt['reason']).removeprefix('unknown: ')}; a higher --depth searches deeper)")


def search_text(ev) -> str:
    """What the search did for a claim: its domain and result, or why it did not run ("" for
    results written before every claim said so)."""
    s = ev.get("search")
    if not isinstance(s, dict):
        return ""
    if "not searched" in s:
        return f"search: not searched ({s['not searched']})"
    dom = s.get("domain_text") or "the stated domain"
    if s.get("verdict") == "unknown":
        why = s.get("reason", "?")
        done = "limit reached" not in why  # it covered its domain, and nothing there decided the claim
        return (f"search: {'covered its domain without deciding the claim' if done else 'stopped before covering its domain'}"
                f", so the verdict rests on the corpus alone ({why}); domain: {dom}")
    return f"search: {s.get('verdict', '?')} in {dom}"


def coverage_text(c) -> str:
    """What a verdict covered, in one paragraph, and what the search did."""
    text = _coverage(c)
    search = search_text(c["evidence"])
    refuted_there = c["verdict"] == "refuted" and (c["evidence"].get("search") or {}).get("verdict") == "refuted"
    if search and not refuted_there and (c["verdict"] != "no counterexample in domain" or "not searched" in search):
        text += f". {search}"  # (a refutation by the search names its domain already)
    return text


def _coverage(c) -> str:
    """What a verdict covered: the domain of "no counterexample in domain", the corpus and the
    quantifiers varied (and the values seen) of "holds on evidence", the reason of "unknown",
    the method of "proved"."""
    ev = c["evidence"]
    v = c["verdict"]
    quant = ev.get("quantifiers") or {}

    def qtext():
        parts = []
        for q, d in quant.items():
            vals = ", ".join(d.get("values_evaluated", [])) or "none"
            one = d["range"].removeprefix("the datasets ").removeprefix("the orders ")
            if d["range"].startswith("fixed"):
                parts.append(f"{q} {d['range']}")
            elif one != d["range"] and ", " not in one:  # the claim names its one dataset or order
                parts.append(f"{q} fixed: {one} (evaluated at {vals})")
            else:
                parts.append(f"{q} {'varied' if d['varied'] else 'NOT varied'} ({d['range']}; evaluated at {vals})")
        return "; ".join(parts)

    if v == "no counterexample in domain":
        dom = ev.get("domain_text") or (ev.get("search") or {}).get("domain_text", "")
        out = f"domain searched: {dom}" if dom else "domain: (not recorded)"
        if isinstance(ev.get("scope"), dict) and "points" in ev["scope"]:
            out = f"no counterexample {scope_text(ev['scope'])}{_deeper(ev.get('search'), ev['scope'])}; {out}"
        if ev.get("evaluations"):
            out += f". Also {ev['evaluations']} corpus evaluations in {ev.get('applicable_runs', 0)} runs"
            if quant:
                out += f" ({qtext()})"
        return out
    if v == "holds on evidence":
        applied = f"; the claim applied on {ev['datasets_applied']} of its datasets" if "datasets_applied" in ev else ""
        return f"corpus: {ev.get('corpus', '?')}{applied}; {ev.get('evaluations', 0)} evaluations in {ev.get('applicable_runs', 0)} runs; " \
               f"quantifiers: {qtext() or 'none'}"
    if v == "unknown":
        out = f"unknown because: {ev.get('reason') or (ev.get('search') or {}).get('reason', '?')}"
        if quant:
            out += f"; quantifiers: {qtext()}"
        return out
    if v == "proved":
        return f"proved by: {ev.get('method', '?')}"
    if ev.get("steps"):
        return f"refuted by the symbolic check of step {ev.get('first_failing_step', '?')!r} (its counterexample re-checked exactly)"
    s = ev.get("search") if isinstance(ev.get("search"), dict) else {}
    return "refuted by a replayed counterexample" + (f" (search domain: {s['domain_text']})" if s.get("domain_text") else
                                                     " in the corpus")


def run_setting(ce) -> str:
    """The run setting of a search Counterexample where it differs from eta = 1, w0 = 0,
    sign(0) = 0, the eta y x form, the linear kernel and a run to its end, with a declared
    variant's parameters ("" when it does not)."""
    from perceptron._numbers import format_rational as fr

    p = ce.params
    out = [f"eta = {fr(p.eta)}"] if p.eta != 1 else []
    if p.w0:
        out.append("w0 = (" + ", ".join(map(fr, p.w0)) + ")" + (f", b0 = {fr(p.b0)}" if p.b0 is not None else ""))
    if p.sign0:
        out.append(f"sign(0) = {p.sign0}")
    if p.form != "yx":
        out.append(f"update form {p.form}")
    if p.kernel != "linear":
        out.append(f"kernel {p.kernel} (x.z + {fr(p.offset)})^{p.degree}" if p.kernel == "poly" else f"kernel {p.kernel}")
    if p.declared:
        out.append(", ".join(f"{k} = {fr(v)}" for k, v in p.declared))
    if ce.cut:
        out.append(f"cut at {p.max_updates} updates (stopped by budget)")
    if (ce.summary or {}).get("stop") == "max_epochs":  # a run that ends by its epochs (a declared stop)
        out.append(f"{p.max_epochs} epochs")
    return ", ".join(out)


def search_counterexample(ev):
    """The search Counterexample of a claim's evidence (results.json's, checked by
    verify.report.evidence_check), else None."""
    from verify.replay.counterexample import Counterexample

    s = (ev.get("counterexample") or {}).get("search")
    return Counterexample.from_json(s) if isinstance(s, dict) else None


def failure_text(c) -> str:
    """The explanation shown for a claim whose verdict is not what the file expects."""
    lines = [f"{c['id']} ({c['citation']}): verdict {c['verdict']}, expected {c['expect']}",
             f"statement: {c['statement']}"]
    if c.get("expr"):
        lines.append(f"expr: {c['expr']}")
    return "\n".join(lines + refutation_lines(c) + ["covered: " + coverage_text(c)])


def refutation_lines(c) -> list[str]:
    """Why a claim's verdict is what it is, line by line: where its premise holds, its
    counterexample and the sides it violates, the command that replays it, the proof steps not
    proved, the reason, the free names' values and the partner run ``c`` (a results.json claim
    entry, or one of the audit's findings: its evidence is read as is, never converted)."""
    ev = c["evidence"]
    lines = []
    if (c["evidence"].get("premise") or {}).get("given"):  # where the claim applies: the failure is there
        lines.append(f"given: {c['evidence']['premise']['given']}")
    ce = ev.get("counterexample")
    if ce:
        if "search" in ce:
            s = search_counterexample(ev)
            setting = run_setting(s)
            lines.append(f"counterexample (search): points {dataset_text(s.points, s.labels)}; updates {list(s.updates)}"
                         + (f"; separator {separator_text(s.separator)}" if s.separator else "")
                         + (f"; {setting}" if setting else ""))
            if sides_text(s.violation):
                lines.append("sides: " + sides_text(s.violation, c.get("expr")))
        else:
            lines.append(f"counterexample: {where_text(ce, ('data', 'run') + WHERE_KEYS)}")
            if sides_text(ce):
                lines.append("sides: " + sides_text(ce, c.get("expr")))
    if ev.get("replay"):
        lines.append(f"replay: {ev['replay']}")
    for st in ev.get("steps", []):
        if st["verdict"] != "proved":
            lines.append(f"step {st['step']!r}: {st['verdict']} ({st.get('detail', st['method'])})")
    if ev.get("reason"):
        lines.append(f"reason: {ev['reason']}")
    if ce and "search" not in ce and free_text(ce):
        lines.append("free names: " + free_text(ce))
    if ce and "search" not in ce and _v(ce).partner:
        lines.append(f"partner run: {_v(ce).partner}")
    return lines


def corpus_refutation_lines(ev, expr) -> list[str]:
    """A corpus run's violation as the terminal shows it: the run and where, the free names'
    values, the partner run, the sides and the replay command."""
    ce = _v(ev["counterexample"])
    where = where_text(ce)
    lines = [f"counterexample: {ce.data} {ce.run or ''}" + (f" at {where}" if where else "")]
    if ce.free:
        lines.append("free names: " + free_text(ce))
    if ce.partner:
        lines.append(f"partner run: {ce.partner}")
    if sides_text(ce, expr):
        lines.append("sides: " + sides_text(ce, expr))
    if ev.get("replay"):
        lines.append(f"replay: {ev['replay']}")
    return lines


def run_violation_lines(viol, when, expr) -> list[str]:
    """The first violation on one run, as check shows it: where (and the free names' values),
    for a pair claim the partner run and where the two part, and the sides."""
    viol = _v(viol)
    where = where_text(viol, ("t", "k", "point"))
    if viol.at_end:
        where = f"the end of the run ({where})" if where else "the end of the run"
    free = free_text(viol)
    lines = [f"first violation at {where or ('the pair of runs' if when == 'pair' else 'the dataset')}"
             + (f" ({free})" if free else "")]
    if viol.partner is not None:  # a pair claim: the partner run, and where the two part
        c_at = f" at c = {viol.factor}" if viol.factor is not None else ""
        lines.append(f"partner run ({viol.partner}){c_at} parts from this one {partner_text(viol)}")
    if sides_text(viol, expr):
        lines.append(f"sides: {sides_text(viol, expr)}")
    return lines


def search_violation_text(ce, when, expr) -> str:
    """Where a search's counterexample violates the claim, and its sides."""
    where = where_text(ce.violation, ("t", "k", "point"))
    where = f"at {where}" if where else ("at the end of the run" if when == "end" else "for the dataset")
    return f"violated {where}: " + (sides_text(ce.violation, expr) or "false")


def reason_line(c) -> str:
    """One line: the verdict against the expectation, and its first piece of evidence."""
    ev = c["evidence"]
    head = f"{c['verdict']}, expected {c['expect']}"
    ce = ev.get("counterexample")
    if ce and "search" in ce:
        s = search_counterexample(ev)
        return f"{head}: counterexample {dataset_text(s.points, s.labels, arrow='->')}, {list(s.updates)} updates"
    if ce:
        return f"{head}: counterexample on {where_text(ce, ('data', 't', 'k'), sep=' ')}"
    for st in ev.get("steps", []):
        if st["verdict"] != "proved":
            return f"{head}: step {st['step']!r} {st['verdict']}"
    if ev.get("reason"):
        return f"{head}: {ev['reason']}"
    return f"{head}; covered: {coverage_text(c)}"


# ----------------------------------------------------------------------------- Markdown


def clipped(text: str, n: int) -> str:
    """``text`` within ``n`` characters, an ellipsis marking where it was cut (a reason cut mid-way
    read as a broken expression: 'vec(1, )'), at a space when one is near the end (not mid-word:
    'more than 1.0 x th')."""
    if len(text) <= n:
        return text
    cut = text[:n - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space >= n * 4 // 5 else cut).rstrip(" ;,") + "…"
