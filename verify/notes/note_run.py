"""A note's own run outside an iteration table: the data it writes out, the rule its algorithm
states, and what it says the run did.

The data: verify.notes.written_data reads it as the note prints it.

The rule.  What the note's algorithm says is read, never guessed: 0/1 labels are the rule
w += eta (t - o) x; a bias updated (``b ← b + η (t − o)``) or added in the prediction
(``w·x + b > 0``) is the run's added coordinate; the prediction at a score of 0 is read from
``> 0`` (o is 0, or -1) or ``≥ 0`` (o is 1), and a mistake ``y w·x ≤ 0`` is one at a tie.  What the
note leaves open (most often the tie) stays open: every rule the note may mean is run, and a
fact the rules disagree on is a draft that names what the note does not say.

The facts.  Sentences from the data to the next heading (at most FACT_LINES lines after it)
that say what the run did: its final weights and bias (``the run stops with w = (1, 1)``,
``final weights w = [0.5, 0.5], b = 0``, ``w ≈ [0.6, 0.6]``: each coordinate within half a unit
of the last printed digit), its number of updates, of epochs, that it converged.  A hedged
count ("at most 3 mistakes") is a bound, a sentence about another learning rate is about
another run, and both are left to the drafter's statements."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from fractions import Fraction

from verify.notes.worked_example import RULES, numbers_of
from verify.notes.written_data import TUPLE, NoteData, note_data

__all__ = ["one_runs_value", "unread_scores", "names_a_point", "heading", "section_of", "note_rules", "bias_update", "run_facts", "fact_expr",
           "data_claims", "FACT_LINES"]

#: Lines after a note's data (to the next heading) read for what its run did.
FACT_LINES = 40


_HEADING = re.compile(r"\s{0,3}(#{1,6})\s+(.*)|\s*\\(?:sub){0,2}section\*?\{([^{}\n]{0,200})\}")


def heading(line: str) -> str | None:
    """The heading a line is, Markdown (``## Worked example``) or LaTeX (``\\section{...}``), or None."""
    m = _HEADING.match(line[:400])
    return None if m is None else (m.group(2) if m.group(1) else m.group(3)).strip()[:200]


def section_of(text: str):
    """``of(line)``: the heading the 1-based ``line`` of ``text`` is under ("(no section)" before any)."""
    heads = [(j + 1, h) for j, ln in enumerate(text.split("\n")) if (h := heading(ln)) is not None]
    return lambda line: next((h for at, h in reversed(heads) if at < line), "(no section)")




@dataclass(frozen=True)
class Rule:
    variant: str
    sign0: int
    form: str
    words: str
    bias: bool  #: the run has a bias (the added coordinate of its weights)
    place: str  #: where the bias is: "last" or "first"


_BIAS = re.compile(r"\bb\s*+(?:←|:=|\\leftarrow|\\gets|\+=)|\bb\s*+=\s*+b\s*+\+|(?:·|\\cdot|\bx|\))\s*+\+\s*+b\b")
_TIE_GT = re.compile(r"(?:=|is)\s*+\+?1\s*+(?:\$|\\\))?\s*+,?\s*+(?:if|when|whenever)\b(?:\([^()\n]{0,40}\)|[^,;\n]){0,80}?"
                     r"(>(?!=)|≥|>=|\\geq?\b|\\ge\b)\s*+0", re.I)  # "ŷ = 1 if dot(w, x) + b > 0", "\( o = 1 \) if"
_SIGN0 = re.compile(r"\bsign\s*+\(\s*+0\s*+\)\s*+(?:=|:=|is)\s*+\$?\s*+([+−-]?\s*+1|0)(?![\d.])")
_MISTAKE_LE = re.compile(r"\by\w{0,3}\s*+(?:\(|·|\\cdot|\*)?(?:\\[,;!]|[^,;\n]){0,40}?(≤|<=|\\leq?\b)\s*+0")
_FIRST = re.compile(r"\bx\s*+(?:_\{?0\}?|₀)\s*+=\s*+1\b|\bw\s*+(?:_\{?0\}?|₀)\s+is\s+the\s+bias|"
                    r"[(\[]\s*+1\s*+,\s*+x\s*+(?:_\{?1\}?|₁)", re.I)  # x̃ = (1, x_1, x_2)
#: The note puts the bias's 1 last: x̃ = (x_1, x_2, 1), w = (w_1, w_2, b).
_LAST = re.compile(r"[(\[]\s*+x\s*+(?:_\{?1\}?|₁)\s*+,[^()\[\]\n]{0,60}?,\s*+1\s*+[)\]]|"
                   r"[(\[]\s*+w\s*+(?:_\{?1\}?|₁)\s*+,[^()\[\]\n]{0,60}?,\s*+b\s*+[)\]]")


_SUBSCRIPTED = r"(?:_\{?[^}\s$]{1,6}\}?|[ₖₜᵢ₊₀₁₂₃]{1,4})?"
_BIAS_UPDATE = re.compile(r"(?<![A-Za-z\\_])b\s*+" + _SUBSCRIPTED + r"\s*+(?:←|:=|\\leftarrow|\\gets|\+=|=)\s*+(?:b\s*+"
                          + _SUBSCRIPTED + r"\s*+\+\s*+)?([^\n;$]{1,60})")


def bias_update(text: str) -> tuple:
    """(the built-in variant whose bias update the note's algorithm writes, the update as
    written): ``b ← b + η y`` is sklearn's (b += eta y), ``b ← b + η y R²`` novikoff's; another
    update (``b ← b + η (t − o)``) is none of them: (None, its text).  (None, None) when the note
    writes no update of b."""
    for m in _BIAS_UPDATE.finditer(text[:200_000]):
        inc = m.group(1).strip()
        if not re.search(r"(?<![A-Za-z\\])y(?![A-Za-z])|yᵢ|ŷ|(?<![A-Za-z\\])t\s*[−-]|error", inc):
            continue  # not an update by the label ("b = 0", "b = −0.1")
        if re.search(r"ŷ|\\hat|[−-]\s*(o|out|ŷ|\\hat)\b|\(t|error|\by\s*[−-]", inc):
            return None, m.group().strip()
        return ("novikoff" if re.search(r"R\s*(²|\^\s*\{?2|\*\*\s*2)|R2", inc) else "sklearn"), m.group().strip()
    return None, None


def note_rules(text: str, zero_one: bool) -> tuple:
    """(the rules the note's algorithm may mean, what was read in words): each a Rule; more than
    one when the note leaves the tie open."""
    head = text[:200_000]
    bias = bool(_BIAS.search(head))
    place = "first" if _FIRST.search(head) else "last"
    read = []
    ties = {0, 1, -1}  # rosenblatt (a tie is a mistake), sign(0) = +1, sign(0) = -1
    if m := _SIGN0.search(head):  # "sign(0) = +1", "with sign(0) := −1"
        v = int(m.group(1).replace("−", "-").replace(" ", ""))
        ties = {v} if v else {0}
        read.append(f"the output at a score of 0 (sign(0) = {v})")
    elif m := _TIE_GT.search(head):
        ties = {-1} if m.group(1) == ">" else {1}
        read.append(f"the output at a score of 0 ({'o = 0 or -1: w.x > 0' if m.group(1) == '>' else 'o = 1: w.x >= 0'})")
    elif not zero_one and _MISTAKE_LE.search(head):
        ties = {0}
        read.append("a mistake at a score of 0 (y w.x <= 0)")
    if bias:
        read.append(f"a bias, the {place} coordinate of the weights")
    rules = [Rule(v, s0, form, words, bias, place) for v, s0, form, words in RULES
             if (form == "half") == zero_one and (0 if v == "rosenblatt" else s0) in ties]
    return rules, read


_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
          "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8}
_NUM = r"(\d{1,4}|" + "|".join(_WORDS) + r")"
_COUNT = re.compile(r"\b" + _NUM + r"\s+(?:mistakes?|updates?|errors?|corrections?)\b", re.I)
_EPOCHS = re.compile(r"\b(?:(?:after|in|within)\s+(?:the\s+)?" + _NUM + r"(?:st|nd|rd|th)?\s+(?:pass(?:es)?|epochs?|sweeps?)"
                     r"|" + r"(\d{1,4})\s+(?:epochs?|passes|sweeps))\b", re.I)
_CONVERGED = re.compile(r"\b(has converged|converges|converged|stops|halts|terminates)\b", re.I)
_HEDGED = re.compile(r"(at most|at least|more than|fewer than|less than|up to|no more than|not|never|n't|if|would|"
                     r"could|suppose|always|guaranteed|will|must|can|to)\s+\S*\s*$", re.I)  # a bound, a hope, a rule: not what it did
_AT_END = re.compile(r"\b(stops?|stopped|final|finally|converge[sd]?|ends?|ended|terminates|halts|after training|"
                     r"learn(?:s|ed|t)|result(?:ing)?|no (?:more )?mistakes|in the end)\b", re.I)
_WEIGHTS = re.compile(r"(?:\bweights?(?: vector)?|\\mathbf\{w\}|\\vec\{w\}|𝐰|(?<![A-Za-z\\_])w)(?:\s*+[₀-₉]*)\s*+"
                      r"(?:\$\s*+)?(=|≈|\\approx|is|are|becomes|of)\s*+\$?\s*+" + TUPLE)
_BIAS_VALUE = re.compile(r"(?<![A-Za-z\\_])b\s*+(=|≈|\\approx)\s*+\$?\s*+([+−-]?\d+(?:\.\d+)?(?:/\d+)?)(?![\d/]|\.\d)")
_OTHER_RUN = re.compile(r"\b(?:smaller|larger|bigger|higher|lower|different|another|other)\s+(?:\$?\\eta|η|learning rates?|"
                        r"rates?|step sizes?|starts?|initial weights)\b|\bwould have\b|\bhad (?:we|it|you)\b", re.I)
_OTHER_RATE = re.compile(r"(?:η|\\eta|learning rate|step size)\s*+(?:=|of|is)\s*+\$?\s*+([0-9]+(?:\.[0-9]+)?(?:/[0-9]+)?)")


@dataclass(frozen=True)
class Fact:
    line: int
    sentence: str
    quantity: str  #: "w", "mistakes", "epochs", "converged"
    value: tuple  #: the printed numbers (w, then b when printed), or (n,)
    approx: bool = False  #: printed with ≈: each coordinate within half a unit of its last digit
    digits: tuple = ()  #: decimals printed of each coordinate (for approx)
    with_b: bool = False  #: the sentence prints the bias too (the last value)
    visit: int | None = None  #: a step of the run: the weights after this visit (None: the run's end)


_EPOCH_MARK = re.compile(r"\b(?:epoch|pass|sweep)\s+(\d{1,3})\b", re.I)
_NO_CHANGE = re.compile(r"\b(?:no (?:change|update|mistake)s?|unchanged|stays? the same|correct(?:ly classified)?)\b", re.I)
_ANY_TUPLE = re.compile(TUPLE)
#: A point named by its index, as the note's listing names it: x₁, x_1, x_{2}, \mathbf{x}_3.
_NAMED = re.compile(r"(?<![A-Za-z\\])(?:\\mathbf\{x\}|\\vec\{x\}|\\boldsymbol\{x\}|x)(?:_\{?(\d{1,3})\}?|([₀-₉]{1,3}))(?![\d₀-₉])")
_SUBSCRIPT = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def run_steps(text: str, data: NoteData, stop: int | None = None, last: int | None = None) -> list:
    """The steps of the run the note works by hand after its data, in the lines ``window`` gives
    (its data's section and the next; the data of another run, at line ``stop``, ends them;
    ``last``: the end of the data printed again, when it is): a line or sentence that names one
    of the data's points (as a vector, or by its name in the listing: ``x₂``) and the weights
    after it (``(0,1): ... w = [0, 0.5], b = 0.5``) or says they did not change (``no change``)
    is the state after that point's visit in the current epoch (``Epoch 2: ...`` sets it; the
    first is 1).  Read while the visits grow; "no change" keeps the weights the note printed
    last (w0 at first).  A step whose point is printed twice in the data is not read."""
    lines = text.split("\n")
    n = len(data.points)
    epoch, last_visit, out = 1, 0, []
    for j in window(lines, data.end + 1, last or data.end, 2, stop):
        for sentence in re.split(r"(?<=[.;!?])\s+", lines[j][:2000]):
            if m := _EPOCH_MARK.search(sentence):
                epoch = int(m.group(1))
            point = next((v for t in _ANY_TUPLE.finditer(sentence)
                          if not re.search(r"[wb]\s*(=|≈|\\approx)\s*\$?\s*$", sentence[max(0, t.start() - 8):t.start()])
                          and (v := numbers_of(t.group(1))) is not None), None)
            named = _NAMED.search(sentence) if point is None and data.first is not None else None
            if named:  # "x₁ gives w·x = 0": the point the note named x_1
                at = int((named.group(1) or named.group(2)).translate(_SUBSCRIPT)) - data.first
                point = data.points[at] if 0 <= at < n else None
            if point is None or data.points.count(tuple(point)) != 1:
                continue
            visit = (epoch - 1) * n + data.points.index(tuple(point)) + 1
            w = list(_WEIGHTS.finditer(sentence))[-1:]
            if visit <= last_visit:
                return out  # not the order the drafter reads
            if w and (fact := _printed_weights(j + 1, sentence.strip(), w[0], visit)) is not None:
                out.append(fact)
            elif _NO_CHANGE.search(sentence):
                out.append(Fact(j + 1, sentence.strip(), "w", (), False, (), False, visit))  # the last printed
            else:
                continue
            last_visit = visit
    return out


def _decimals(cell: str) -> tuple:
    return tuple(len(p.split(".")[1]) if "." in p else 0 for p in re.split(r"[,;]", cell))


def window(lines: list, first: int, last: int, sections: int, stop: int | None = None):
    """The 0-based indices of the lines read for a run whose data (or table) is at lines
    ``first`` to ``last`` (1-based): from ``first`` on, at most FACT_LINES past ``last``, through
    ``sections`` sections (1: to the next heading; 2: the data's section and the one after it,
    where a note often works its example), and before line ``stop`` (another run's data)."""
    headings = 0
    for j in range(first - 1, min(len(lines), last + FACT_LINES, (stop or 1 << 30) - 1)):
        if j >= last and heading(lines[j]) is not None:
            headings += 1
            if headings >= sections:
                return
            continue  # a heading names a section; it says nothing of the run
        yield j


def run_facts(text: str, first: int, last: int, eta: Fraction | None, sections: int = 1,
              stop: int | None = None) -> list:
    """The Facts the note states about the run on data at lines ``first`` to ``last``: in its
    sentences of the lines ``window`` gives."""
    lines = text.split("\n")
    out = []
    for j in window(lines, first, last, sections, stop):
        for sentence in re.split(r"(?<=[.;!?])\s+", lines[j][:2000]):
            out.extend(_sentence_facts(j + 1, sentence.strip(), eta))
    return out


def _sentence_facts(line: int, sentence: str, eta) -> list:
    rate = _OTHER_RATE.search(sentence)
    if rate and (eta is None or Fraction(rate.group(1)) != eta) or _OTHER_RUN.search(sentence):
        return []  # about a run with another learning rate or start ("a smaller η would have made ...")
    out = []
    for pattern, name in ((_COUNT, "mistakes"), (_EPOCHS, "epochs")):
        for c in pattern.finditer(sentence):
            if not _HEDGED.search(sentence[:c.start()]):
                value = (c.group(1) or c.group(2)).lower()
                out.append(Fact(line, sentence, name, (Fraction(_WORDS.get(value, value)),)))
    conv = _CONVERGED.search(sentence)
    if conv and not _HEDGED.search(sentence[:conv.start()]):
        out.append(Fact(line, sentence, "converged", (Fraction(1),)))
    if _AT_END.search(sentence) or out:  # "3 updates, 3 epochs, weights = (300, 1, 1)": the run's summary
        for w in list(_WEIGHTS.finditer(sentence))[-1:]:  # the last weights said: the ones the run ends with
            if not _HEDGED.search(sentence[:w.start()]) and (fact := _printed_weights(line, sentence, w)) is not None:
                out.append(fact)
    return out


def _printed_weights(line: int, sentence: str, w, visit=None):
    """The Fact of weights printed in ``sentence`` (``w``: their _WEIGHTS match), with the bias
    printed after them ("w = [0.5, 0.5], b = 0"), or None when they are not numbers."""
    vals = numbers_of(w.group(2))
    if vals is None:
        return None
    b = _BIAS_VALUE.search(sentence, w.end())
    bval = numbers_of(b.group(2)) if b else None
    approx = w.group(1) in ("≈", "\\approx") or bool(b and b.group(1) != "=")
    digits = _decimals(w.group(2).replace(" ", "")) + (_decimals(b.group(2)) if bval else ())
    return Fact(line, sentence, "w", tuple(vals) + (tuple(bval) if bval else ()), approx, digits, bool(bval), visit)


def _run_params(rule: Rule, eta, w0, b0, d: int):
    """The learner's Params of the note's run under ``rule``, as the audit makes it from the
    claim's ``run = {...}`` (verify.language.setting), and that ``run`` table."""
    from perceptron._numbers import format_rational as fr
    from verify.corpus.runs import CORPUS_MAX_EPOCHS
    from verify.language.setting import Setting

    run = {"eta": fr(eta), "w0": [fr(v) for v in w0], "augment": rule.place if rule.bias else "none"}
    if rule.bias:
        run["b0"] = fr(b0)
    if rule.variant == "sign":
        run.update(sign0=rule.sign0, form=rule.form)
    setting = Setting(eta=eta, w0=tuple(w0), b0=b0 if rule.bias else None, sign0=run.get("sign0"), form=run.get("form"),
                      augment=run["augment"])
    return setting.params_for(rule.variant, "cyclic", d, CORPUS_MAX_EPOCHS), run


def _placed(fact: Fact, rule: Rule, d: int):
    """(size of the run's weights, [(coordinate, printed value, decimals printed), ...]) of a
    weights fact on the run of ``rule`` on data of ``d`` features, or None when its numbers do
    not fit: all the run's weights (with the bias printed last, wherever the run keeps it), or
    the d weights without the bias."""
    size = d + 1 if rule.bias else d
    digits = list(fact.digits) + [0] * (len(fact.value) - len(fact.digits))
    printed = list(zip(fact.value, digits))
    first = rule.bias and rule.place == "first"
    if len(printed) == size:
        # b printed last ("w = [..], b = .."): the run's coordinate 0 when it keeps the bias first
        at = [j + 1 for j in range(d)] + [0] if first and fact.with_b else list(range(size))
    elif len(printed) == d:
        at = [j + 1 for j in range(d)] if first else list(range(d))
    else:
        return None
    return size, [(j, v, dig) for j, (v, dig) in zip(at, printed)]


def _epochs_read(n: Fraction) -> tuple:
    """The learner's counts of epochs a note's "after N epochs" may mean, read either way notes
    count: N with the clean pass that shows the run converged (the learner's count), or N epochs of
    updates, whose weights then classify every point ("after one epoch every point is classified
    correctly": the learner counts 2).  A run that needed more epochs (or fewer) still refutes it."""
    return n, n + 1


def _expr(fact: Fact, rule: Rule, d: int) -> str | None:
    """The claim's expression of a fact on the run of ``rule`` on data of ``d`` features, or None
    when its numbers do not fit the run's weights."""
    from perceptron._numbers import format_rational as fr

    if fact.quantity == "epochs":
        lo, hi = _epochs_read(fact.value[0])
        return f"epochs >= {fr(lo)} and epochs <= {fr(hi)}"
    if fact.quantity != "w":
        return f"{fact.quantity} == {fr(fact.value[0])}"
    placed = _placed(fact, rule, d)
    if placed is None:
        return None
    size, coords = placed
    if len(coords) == size and not fact.approx:
        return "w == vec(" + ", ".join(fr(v) for _, v, _ in sorted(coords)) + ")"
    parts = []
    for j, v, dig in coords:
        unit = "vec(" + ", ".join("1" if c == j else "0" for c in range(size)) + ")"
        parts.append(f"abs(dot(w, {unit}) - {fr(v)}) <= {fr(Fraction(1, 2 * 10 ** dig))}" if fact.approx
                     else f"dot(w, {unit}) == {fr(v)}")
    return " and ".join(parts)


def fact_expr(fact: Fact, params, d: int) -> str | None:
    """The claim's expression of a fact on a run of ``params`` (a worked example's table's run)."""
    return _expr(fact, Rule(params.variant, params.sign0, params.form, "", params.augment is not None,
                            params.augment or "last"), d)


def _holds(fact: Fact, rule: Rule, run, d: int):
    """Whether the fact holds of a run (its Result and its weights after each visit); None when
    the run did not end by itself (a fact of its end), or has no such visit (a step)."""
    result, states = run
    if fact.visit is None and not result.converged:
        return None
    if fact.quantity == "epochs":
        lo, hi = _epochs_read(fact.value[0])
        return lo <= result.epochs <= hi
    if fact.quantity != "w":
        have = {"mistakes": result.updates, "converged": 1}[fact.quantity]
        return Fraction(have) == fact.value[0]
    if fact.visit is not None and fact.visit > len(states):
        return None
    placed = _placed(fact, rule, d)
    w = [Fraction(v) for v in (result.w if fact.visit is None else states[fact.visit - 1])]
    if placed is None or placed[0] != len(w):
        return None
    tol = (lambda dig: Fraction(1, 2 * 10 ** dig)) if fact.approx else (lambda dig: 0)
    return all(abs(w[j] - v) <= tol(dig) for j, v, dig in placed[1])


def _states(ds, params):
    """(Result, the weights after each visit) of the learner's run: the weights of every visit
    come from its trace (the run of a worked example is a few epochs of a few points)."""
    from perceptron import MemoryTrace, train

    rec = MemoryTrace()
    result = train(ds, params, rec)
    tr = rec.trace
    w0 = [Fraction(v) for v in (params.w0 if params.w0 is not None else [0] * ds.X.shape[1])]
    states, u = [], 0
    for mistake in tr.mistake:
        u += int(mistake)
        states.append([Fraction(v) for v in tr.weights_after(u - 1)[0]] if u else w0)
    return result, states


def _with_last_printed(steps: list, start: tuple, bias: bool) -> list:
    """The steps with each "no change" given the weights the note printed last (``start``, w0
    and b0, before the first)."""
    out, last = [], (start, bias)
    for f in steps:
        if not f.value:
            f = Fact(f.line, f.sentence, "w", last[0], False, (), last[1], f.visit)
        out.append(f)
        last = (f.value, f.with_b)
    return out


@dataclass
class _NoteRun:
    """The note's run on one listing of its data: the rules it may mean, each run."""
    name: str
    d: int
    eta: Fraction
    w0: tuple
    b0: Fraction
    read: list  #: what the note says of its rule, in words
    steps: list  #: the Facts of its steps worked by hand
    facts: list  #: the Facts of what it did
    runs: list  #: (Rule, its run = {...} table, (Result, weights after each visit)), one a rule
    lines: set  #: the 1-based lines read as being about this run


def _note_run(text: str, data: NoteData, setting: tuple, stop, last: int):
    """The run on ``data`` (the listing, printed again up to line ``last``), read in the lines
    ``window`` gives before ``stop``; None when the note gives no rule or the learner cannot run."""
    from perceptron import ParamError, from_rows

    eta, w0, b0 = setting
    eta = eta if eta is not None and eta > 0 else Fraction(1)
    d = len(data.points[0])
    w0 = w0 if w0 is not None and len(w0) == d else tuple(Fraction(0) for _ in range(d))
    b0 = b0 if b0 is not None else Fraction(0)
    rules, read = note_rules(text, 0 in data.labels)
    steps = run_steps(text, data, stop, last)
    facts = run_facts(text, data.line, last, eta, 2, stop)
    if any(len(f.value) == d + 1 or f.with_b for f in steps + facts if f.quantity == "w") and rules \
            and not rules[0].bias:  # the note prints a bias: its run has one
        rules = [Rule(r.variant, r.sign0, r.form, r.words, True, r.place) for r in rules]
        read.append("a bias, printed with the weights")
    if rules and rules[0].bias and not _FIRST.search(text[:200_000]) and not _LAST.search(text[:200_000]) and any(
            f.quantity == "w" and len(f.value) == d + 1 and not f.with_b for f in steps + facts):
        # d + 1 weights printed, and the note does not say where its bias is: first and last both run
        rules = rules + [Rule(r.variant, r.sign0, r.form, r.words, True, "first") for r in rules]
    if not rules:
        return None
    steps = _with_last_printed(steps, tuple(w0) + ((b0,) if rules[0].bias else ()), rules[0].bias)
    ds = from_rows("note", [list(p) for p in data.points], [1 if v == 1 else -1 for v in data.labels])
    runs = []
    for rule in rules:
        params, run = _run_params(rule, eta, w0, b0, d)
        try:
            runs.append((rule, run, _states(ds, params)))
        except ParamError:
            continue
    lines = {j + 1 for j in window(text.split("\n"), data.line, last, 2, stop)}
    return _NoteRun(f"data-{data.line}", d, eta, w0, b0, read, steps, facts, runs, lines) if runs else None


def data_claims(text: str, unique, tabled=(), values=()) -> tuple:
    """([[dataset]] tables, claims) of the note's data written out, the steps it works by hand
    and the facts it states about its run: each a claim on the run of the note's rule, or a
    draft naming what the note leaves open when the rules it may mean disagree on it.
    ``unique(id)`` makes a claim id unique; data that a worked example's table already gives
    (``tabled``: its [[dataset]] tables) is that table's run, not another.  ``values``: claims
    read as a value of one run (``k != 1 or w == vec(2, 0)``, their expr and when), each a
    claim on the run whose lines it is in, when every rule the note may mean makes the same
    updates; the same data printed again (a table repeated each iteration) is the same run."""
    from perceptron._numbers import format_rational as fr
    from verify.notes.worked_example import stated_setting

    datasets, claims = [], []
    under = section_of(text)
    listed = note_data(text)
    keys = [(d.points, d.labels, stated_setting(text, d.line)) for d in listed]
    for at, data in enumerate(listed):
        if at and keys[at] == keys[at - 1]:
            continue  # printed again: the run of the listing before
        later = [b for b in range(at + 1, len(listed)) if keys[b] != keys[at]]
        stop, last = (listed[later[0]].line, listed[later[0] - 1].end) if later else (None, listed[-1].end)
        if any(t["points"] == [[fr(v) for v in p] for p in data.points] and t["labels"] == list(data.labels)
               for t in tabled):
            continue
        run = _note_run(text, data, keys[at][2], stop, last)
        new = [] if run is None else _fact_claims(run, unique, under) + _value_claims(
            run, [v for v in values if v[0]["line"] in run.lines])
        if not new:
            continue
        datasets.append({"name": run.name, "points": [[fr(v) for v in p] for p in data.points],
                         "labels": list(data.labels)})
        rule, setting, _ = run.runs[0]
        review = [f"the note's run on {data.source}, in the order written (cyclic): {rule.words}, eta = {fr(run.eta)}, "
                  f"w0 = ({', '.join(map(fr, run.w0))})" + (f", b0 = {fr(run.b0)}" if rule.bias else "")
                  + (f"; read from the note: {'; '.join(run.read)}" if run.read else "")
                  + (f"; the note leaves the tie or the bias's place open: {len(run.runs)} rules run, and each claim is "
                     "one they agree on" if len(run.runs) > 1 else "")]
        for c in new:
            if not c.get("draft"):
                c.update(variants=[rule.variant], datasets=[run.name], orders=["cyclic"], run=setting, expect="holds",
                         review=review if not any(o.get("datasets") == [run.name] for o in claims) else [])
            claims.append(c)
    return datasets, claims


#: Why a claim on the note's run is a draft when the rules the note may mean disagree.
_OPEN_RULE = ("true under one rule it may mean and false under another: the note does not say its output at a "
              "score of 0 (give run = { sign0 = 1 } or -1, and variants = [\"sign\"]) or, when it prints the bias with "
              "the weights, where the bias is (run = { augment = \"first\" } or \"last\")")


def _fact_claims(run: _NoteRun, unique, under) -> list:
    """A claim (its expression, time and note) or a draft per step and fact of ``run``."""
    rule, _, (_, states) = run.runs[0]
    out = []
    for fact in run.steps + run.facts:
        head = {"id": unique(f"{run.name.replace('-', '')}.L{fact.line}"), "line": fact.line, "anchor": f"L{fact.line}",
                "section": under(fact.line), "statement": fact.sentence[:600]}
        expr = _expr(fact, rule, run.d)
        if expr is None:
            out.append({**head, "draft": True, "untranslated": "weights of the note's run whose size is not the "
                        f"run's ({run.d} features{' and a bias' if rule.bias else ''}): not read"})
            continue
        if len({_holds(fact, r, st, run.d) for r, _, st in run.runs} - {None}) > 1:
            out.append({**head, "draft": True, "untranslated": "what the note's run did, on its data: " + _OPEN_RULE})
            continue
        when, given, where = "end", None, "at the run's end"
        if fact.visit is not None and fact.visit != len(states):  # the weights after the visit: at the next one
            when, given, where = "visit", f"t == {fact.visit + 1}", f"after visit {fact.visit} (at the next visit)"
        out.append({**head, "expr": expr, "when": when, **({"given": given} if given else {}),
                    "note": f"what the note says its run did, on its data, {where}"})
    return out


#: A value at one step of the run: "k != 1 or (w == vec(2, 0))" (the note's w_2).
_AT_STEP = re.compile(r"k != \d+ or \(")


def _value_claims(run: _NoteRun, values) -> list:
    """The statements read as a value at one step of one run (``values``: (claim, expr, when)) in
    the run's lines and not read as its steps or facts, each a claim on it when every rule makes the same updates (the same weights after
    each visit), else a draft that says what the note leaves open."""
    same = len({tuple(tuple(w) for w in st[1]) for _, _, st in run.runs}) == 1
    read = {f.line for f in run.steps + run.facts}
    out = []
    for c, expr, when in values:
        if c["line"] in read or not _AT_STEP.match(expr):
            continue  # read as a step or fact of the run already; or not a value at one step (its start, in words)
        keep = {k: c[k] for k in ("id", "line", "anchor", "section", "statement")}
        out.append({**keep, "expr": expr, "when": when, "note": "a value of the note's own run, on its data"} if same
                   else {**keep, "draft": True, "untranslated": "a value of the note's run, on its data: " + _OPEN_RULE})
    return out


#: A score the note works out in words ("x₂ scores 2", "the score is \\( -1 \\)", "net = 0.5").
_SCORE_VALUE = re.compile(r"\b(?:scores?|net)\b(?:\s+(?:is|was|of|equals))?\s*[:=]?\s*(?:\\\(|\$)?\s*([−-]?\s*\d+(?:[./]\d+)?)")


def unread_scores(claims: list, unique) -> list:
    """A draft at each line whose claims check its sentence but not the score it works out there
    (what no claim reads is never shown green: the line is grey until the score is transcribed)."""
    out, seen = [], set()
    for c in claims:
        m = _SCORE_VALUE.search(c["statement"]) if not c.get("draft") and "score" not in c.get("expr", "") else None
        if m and c["line"] not in seen:
            seen.add(c["line"])
            out.append({**{k: c[k] for k in ("line", "anchor", "section", "statement")}, "id": unique(f"{c['id']}.score"),
                        "draft": True, "untranslated": f"the score the note works out there ({m.group(0).strip()}): not "
                        "read; transcribe it (when = \"visit\", given = \"t == ...\", expr = \"score == ...\")"})
    return out


def names_a_point(sentence: str) -> bool:
    """Whether a sentence names one of the note's listed points by its number ("x₁ gives
    w·x = 0", "for x_3 the score is ..."): what it says is of that point's visit in the note's
    own run, not of every run's visits."""
    return _NAMED.search(sentence) is not None


def one_runs_value(expr: str) -> bool:
    """Whether ``expr`` equates a quantity of the run (or of its data) with plain numbers ("b ==
    -0.1", "w == vec(0.6, 0.6)", "mistakes == 3", "norm2(w) == 5/4", "R2/gamma**2 == 10"): a
    statement about one run, which every other run refutes.  A value such as 0 or 1 of an
    expression ("norm2(w_opt) == 1") may be every run's, and is not one run's."""
    node = _parsed(expr)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2 \
            and isinstance(node.values[0], ast.Compare) and isinstance(node.values[0].ops[0], ast.NotEq):
        node = node.values[1]  # "k != 1 or (w == vec(2, 0))": the value at one step of one run
    if not (isinstance(node, ast.Compare) and all(isinstance(op, ast.Eq) for op in node.ops)):
        return False
    sides = [node.left, *node.comparators]  # "w == vec(0, 0) + (-1)*vec(-2, 0) == vec(2, 0)": a chain too
    named = [n for n in sides if not _numbers(n)]
    closed = [n for n in sides if _numbers(n)]
    if len(named) != 1 or not closed:
        return False
    # "w == vec(2, 0)", "mistakes == 3"; or a quantity of them at a value not every run has: "norm2(w) == 5/4"
    return isinstance(named[0], ast.Name) or not all(_trivial(n) for n in closed)


def _parsed(expr: str):
    try:
        return ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None


def _numbers(n) -> bool:
    """A number, or vec(...), sqrt(...) of numbers, or arithmetic of them."""
    if isinstance(n, ast.Call):
        return getattr(n.func, "id", "") in ("vec", "sqrt", "abs") and all(_numbers(a) for a in n.args)
    if isinstance(n, ast.BinOp):
        return _numbers(n.left) and _numbers(n.right)
    if isinstance(n, ast.UnaryOp):
        return _numbers(n.operand)
    return isinstance(n, ast.Constant)


def _trivial(n) -> bool:
    """0, 1 or -1: a value every run may have ("norm2(w_opt) == 1", "dot(w0, w_opt) == 0")."""
    n = n.operand if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) else n
    return isinstance(n, ast.Constant) and n.value in (0, 1)
