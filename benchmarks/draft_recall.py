"""Recall of `proof-audit draft` on the five notes, against their hand-written claim files.

For each built-in claim that transcribes a displayed relation (its line holds $$...$$), the
draft has a match when it has a claim at the same line whose expression is equivalent: the
drafted expression, audited with the built-in claim's variants, assumptions and time, gets the
same verdict and the same number of evaluations on the corpus as the built-in one.

    python benchmarks/draft_recall.py [--seeds ../shared/seeds]

Prints the recall per note and overall, and every miss with its reason; then each seed drafted and
audited as drafted (no edit, no substitution): how many drafted claims get the verdict of the
built-in claim at their line and time, and each that does not.

Then the notes under benchmarks/notes/, written in the styles public notes use (Unicode math in
code blocks, \\( \\) delimiters, an iteration table, LaTeX theorems), each with an answer key
(NOTE.toml: every statement's line and whether it is true), are drafted and audited with no
edit, as a casual user would: each statement's colour (red: a claim at its line refuted; green:
one holds, is proved or has no counterexample, none refuted; grey: a draft, an unknown or no
claim there -- the colour the annotated page shows, from badges.json) is compared with its truth.  Printed per note: statements read (a claim at the line),
statements with the colour of the truth, false statements green and true statements red.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
CLAIMS = os.path.join(HERE, "..", "verify", "claims")


def _toml(v):
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return json.dumps(v)


def _claim(fields):
    return "[[claim]]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in fields.items()) + "\n"


def _draft(note, tmp):
    """(the path of the draft of ``note`` written in ``tmp``, its claims)."""
    draft_path = os.path.join(tmp, "draft.toml")
    subprocess.run([sys.executable, "-m", "verify", "draft", note, "--out", draft_path], check=True, capture_output=True)
    with open(draft_path, "rb") as fh:
        return draft_path, tomllib.load(fh)["claim"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default=os.path.join(HERE, "..", "..", "shared", "seeds"))
    args = ap.parse_args()
    total_hit = total = 0
    for f in sorted(os.listdir(CLAIMS)):
        with open(os.path.join(CLAIMS, f), "rb") as fh:
            data = tomllib.load(fh)
        note = os.path.join(args.seeds, data["document"]["file"])
        with open(note, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        with tempfile.TemporaryDirectory() as tmp:
            draft_path, drafted = _draft(note, tmp)
            targets = [c for c in data["claim"] if "$$" in lines[c["line"] - 1] and c.get("expr") and not c.get("corrects")]
            body = f'[document]\nfile = "{data["document"]["file"]}"\n\n'
            pairs, misses = {}, []
            for c in targets:
                keep = {k: c[k] for k in ("variants", "assume", "when", "orders", "datasets", "separator") if k in c}
                body += _claim({"id": c["id"], "section": "s", "statement": "s", "expr": c["expr"], **keep,
                                "expect": "holds"})
                cands = [d for d in drafted if d["line"] == c["line"] and d.get("expr")]
                if not cands:
                    why = [d.get("untranslated", "") for d in drafted if d["line"] == c["line"]]
                    misses.append((c["id"], "no reading at its line" + (f": {why[0]}" if why and why[0] else "")))
                for j, d in enumerate(cands):
                    if d["when"] != c["when"]:
                        continue
                    pid = f"{c['id']}.draft{j}"
                    pairs.setdefault(c["id"], []).append(pid)
                    body += _claim({"id": pid, "section": "s", "statement": "s", "expr": d["expr"], **keep,
                                    "expect": "holds"})
            path = os.path.join(tmp, "pairs.toml")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(body)
            out = os.path.join(tmp, "out")
            subprocess.run([sys.executable, "-m", "verify", "run", "--claims", path, "--out", out, "--quiet"],
                           capture_output=True)
            with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
                res = {c["id"]: c for c in json.load(fh)["claims"]}
            hit = 0
            for c in targets:
                ref = res[c["id"]]
                same = [p for p in pairs.get(c["id"], []) if res[p]["verdict"] == ref["verdict"]
                        and res[p]["evidence"].get("evaluations") == ref["evidence"].get("evaluations")]
                if same:
                    hit += 1
                elif c["id"] in pairs:
                    p = pairs[c["id"]][0]
                    misses.append((c["id"], f"not equivalent: {res[p]['verdict']} against {ref['verdict']}"))
                elif not any(m[0] == c["id"] for m in misses):
                    misses.append((c["id"], "read at another time (when) than the claim's"))
        total += len(targets)
        total_hit += hit
        print(f"{data['document']['file']}: {hit}/{len(targets)} = {hit / max(1, len(targets)):.0%}")
        for cid, why in misses:
            print(f"  miss {cid}: {why}")
    print(f"overall: {total_hit}/{total} = {total_hit / max(1, total):.0%}")
    seed_verdicts(args.seeds)
    public_style_notes()


def _link(expr):
    """A claim's relation as text with no spaces, the run's count named k: a drafted link and the
    hand-written claim of the same relation (``k == (2*R/gamma)**2`` and ``mistakes == ...``) match."""
    return re.sub(r"\bmistakes\b", "k", expr or "").replace(" ", "") or None


def seed_verdicts(seeds):
    """Each seed drafted and audited as drafted, with no edit: every drafted claim gets the verdict
    in reports/ of the built-in claim of the same relation at its line (``_link``), or else of the
    built-in claims at its line evaluated at the same time on the same runs (the note's own
    data, or every run: a sentence about the worked example and a theorem on one line are two
    statements).  A drafted claim refuted where the hand-written one holds is a true statement
    shown red."""
    with open(os.path.join(HERE, "..", "reports", "results.json"), encoding="utf-8") as fh:
        built = {c["id"]: c["verdict"] for c in json.load(fh)["claims"]}
    same = differ = 0
    for f in sorted(os.listdir(CLAIMS)):
        with open(os.path.join(CLAIMS, f), "rb") as fh:
            data = tomllib.load(fh)
        hand, twins = {}, {}
        for c in data["claim"]:
            hand.setdefault((c.get("line"), c.get("when"), bool(c.get("datasets"))), set()).add(built.get(c["id"]))
            twins.setdefault((c.get("line"), _link(c.get("expr"))), set()).add(built.get(c["id"]))
        with tempfile.TemporaryDirectory() as tmp:
            draft_path, drafted = _draft(os.path.join(seeds, data["document"]["file"]), tmp)
            out = os.path.join(tmp, "out")
            r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", draft_path, "--notes", seeds, "--out",
                                out, "--quiet"], capture_output=True, text=True)
            if r.returncode not in (0, 1):
                print(f"{data['document']['file']}: the run of its draft failed: {r.stderr.strip()[:300]}")
                continue
            with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
                got = {c["id"]: c["verdict"] for c in json.load(fh)["claims"]}
        for d in drafted:
            want = twins.get((d.get("line"), _link(d.get("expr")))) or hand.get((d.get("line"), d.get("when"), bool(d.get("datasets"))))
            if d["id"] not in got or not want:
                continue
            if got[d["id"]] in want:
                same += 1
            else:
                differ += 1
                print(f"  differs {d['id']}: {got[d['id']]} against {' / '.join(sorted(map(str, want)))} ({d.get('expr')})")
    print(f"seed notes as drafted: {same} drafted claims with the built-in claim's verdict, {differ} with another")


#: The page's statement colours (verify.notes.annotate): green and red.
GREEN = ("holds", "proved", "searched")
RED = ("false", "known")


def public_style_notes(folder=os.path.join(HERE, "notes")):
    """Draft, audit and score every note of ``folder`` against its answer key."""
    totals = [0, 0, 0, 0, 0]  # statements, read, right colour, false green, true red
    for key in sorted(f for f in os.listdir(folder) if f.endswith(".toml")):
        with open(os.path.join(folder, key), "rb") as fh:
            answers = tomllib.load(fh)["statement"]
        note = next(os.path.join(folder, key[:-5] + ext) for ext in (".md", ".tex")
                    if os.path.exists(os.path.join(folder, key[:-5] + ext)))
        with tempfile.TemporaryDirectory() as tmp:
            draft_path, drafted = _draft(note, tmp)
            out = os.path.join(tmp, "out")
            r = subprocess.run([sys.executable, "-m", "verify", "run", "--claims", draft_path, "--notes", folder,
                                "--out", out, "--quiet"], capture_output=True, text=True)
            if r.returncode not in (0, 1):
                print(f"{os.path.basename(note)}: the run failed: {r.stderr.strip()[:300]}")
                continue
            with open(os.path.join(out, "badges.json"), encoding="utf-8") as fh:
                page = {m["line"]: m["verdict"] for b in json.load(fh).values() for m in b["statements"].values()}
        read = right = false_green = true_red = 0
        lines = []
        for a in answers:  # the colour the page shows the statement's line in
            shown = page.get(a["line"], "unchecked")
            read += any(d["line"] == a["line"] and not d.get("draft") for d in drafted)
            colour = "red" if shown in RED else "green" if shown in GREEN else "grey"
            truth = a["truth"] == "true"
            ok = colour == ("green" if truth else "red")
            right += ok
            false_green += colour == "green" and not truth
            true_red += colour == "red" and truth
            lines.append(f"  line {a['line']}: {a['truth']:5} {colour:5} {'ok' if ok else '--'}  {a['what']}")
        n = len(answers)
        print(f"{os.path.basename(note)}: {n} statements, {read} read, {right} with the colour of the truth "
              f"({right / max(1, n):.0%}), {false_green} false green, {true_red} true red")
        print("\n".join(lines))
        for j, v in enumerate((n, read, right, false_green, true_red)):
            totals[j] += v
    n, read, right, fg, tr = totals
    print(f"public-style notes: {n} statements, {read} read, {right} with the colour of the truth "
          f"({right / max(1, n):.0%}), {fg} false green, {tr} true red")


if __name__ == "__main__":
    if sys.argv[1:] == ["--public-only"]:
        public_style_notes()
    else:
        main()
