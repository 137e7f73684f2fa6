"""The house plan (../shared/DESIGN.md), checked: packages by concept, no import cycle, no import
of another module's private name, units small enough to read in one sitting."""

from __future__ import annotations

import ast
import os
from collections import defaultdict

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("perceptron", "verify")

#: Longest function (lines, decorators and docstring included) and module the house allows.
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600
#: Most modules directly under verify/ (the CLI, the API, configuration, the pytest plugin,
#: verdicts and errors; everything else lives in a package named by its concept).
MAX_TOP_LEVEL = 8


def _modules() -> dict[str, str]:
    """module name -> path, for every module of perceptron/ and verify/."""
    mods = {}
    for pkg in PACKAGES:
        for dirpath, _, files in os.walk(os.path.join(ROOT, pkg)):
            for f in files:
                if f.endswith(".py"):
                    path = os.path.join(dirpath, f)
                    name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                    mods[name.removesuffix(".__init__")] = path
    return mods


MODULES = _modules()


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _imports(name: str, path: str):
    """(target module, imported name or None) for every import in the module, at any depth."""
    tree = ast.parse(_read(path))
    is_pkg = path.endswith("__init__.py")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = name.split(".") if is_pkg else name.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for a in node.names:
                if f"{base}.{a.name}" in MODULES:
                    yield f"{base}.{a.name}", None
                else:
                    yield base, a.name


def _graph() -> dict[str, set]:
    edges = defaultdict(set)
    for name, path in MODULES.items():
        for target, _ in _imports(name, path):
            if target in MODULES and target != name:
                edges[name].add(target)
    return edges


def test_no_import_cycle():
    """No two modules of perceptron/ or verify/ import each other, directly or through others."""
    edges = _graph()
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(MODULES):
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_no_private_imports():
    """No module imports another module's underscore name (a private module may have public
    names, as attrs does: ``from perceptron._numbers import INT64_SAFE`` is fine)."""
    bad = [f"{name} imports {target}.{what}" for name, path in MODULES.items()
           for target, what in _imports(name, path)
           if what and what.startswith("_") and not what.startswith("__") and target.split(".")[0] in PACKAGES]
    assert not bad, "\n".join(bad)


def test_proof_vocabulary_stays_out_of_the_learner():
    """perceptron/ knows nothing of proofs: it never imports verify."""
    bad = [f"{name} imports {target}" for name, path in MODULES.items() if name.startswith("perceptron")
           for target, _ in _imports(name, path) if target.split(".")[0] == "verify"]
    assert not bad, "\n".join(bad)


def test_top_level_of_verify_is_small():
    """verify/ has at most MAX_TOP_LEVEL modules of its own; the rest is in packages."""
    top = sorted(f for f in os.listdir(os.path.join(ROOT, "verify")) if f.endswith(".py"))
    assert len(top) <= MAX_TOP_LEVEL, top


@pytest.mark.parametrize("pkg", ["language", "numbers", "certify", "replay", "searching", "symbolic", "corpus",
                                 "report"])
def test_packages_by_concept(pkg):
    """Each concept of the house plan is a package with a docstring saying what it holds."""
    init = os.path.join(ROOT, "verify", pkg, "__init__.py")
    assert os.path.exists(init), init
    assert ast.get_docstring(ast.parse(_read(init))), f"{init} has no docstring"


def test_units_are_short_enough_to_read():
    """No function longer than MAX_FUNCTION_LINES and no module longer than MAX_MODULE_LINES
    (issue 35 brought the last 14 functions and 9 modules that were longer within them)."""
    long = []
    for name, path in MODULES.items():
        text = _read(path)
        if text.count("\n") > MAX_MODULE_LINES:
            long.append(f"module {name}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if node.end_lineno - first + 1 > MAX_FUNCTION_LINES:
                    long.append(f"function {name}.{node.name}: {node.end_lineno - first + 1} lines")
    assert not long, "\n".join(long)


def test_each_record_check_is_written_once():
    """Every replay reads a trace's records through verify.replay.records: the messages of the
    record checks appear in that one module."""
    for message in ("update count after this visit should be", "epoch should be", "has label",
                    "the rule requires an update here", "the trace records weights after this visit"):
        where = [name for name, path in MODULES.items() if message in _read(path)]
        assert where == ["verify.replay.records"], (message, where)


def test_the_reference_lists_every_quantity():
    """The documentation's reference page of quantities (docs/reference/quantities.md, generated
    by docs/generate_reference.py) has a row for every name a claim may use."""
    from verify.language.quantities import QUANTITIES

    reference = _read(os.path.join(ROOT, "docs", "reference", "quantities.md"))
    missing = [name for name in QUANTITIES if f"| `{name}` |" not in reference]
    assert not missing, missing


#: What train and check of a separable dataset must not import (each costs 0.1 to 0.5 s of
#: start-up; they are imported where a program needs them: the Gordan LP, the searches, plots).
_HEAVY = ("scipy", "sympy", "z3", "matplotlib", "hypothesis", "dask")


def test_train_and_check_import_no_solver_they_do_not_need(tmp_path):
    """train and check start light: on separable data neither imports scipy, sympy, z3,
    matplotlib, Hypothesis or Dask (check imports clarabel, its certificate's QP); on
    non-separable data check imports scipy and sympy for its Gordan certificate, and only then."""
    import subprocess
    import sys

    probe = ("import runpy, sys\nsys.argv = ['proof-audit'] + sys.argv[1:]\ntry:\n"
             "    runpy.run_module('verify', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
             f"print(sorted(m for m in {_HEAVY + ('clarabel',)!r} if m in sys.modules))")

    def imported(*args):
        r = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert r.returncode == 0, r.stderr
        return set(ast.literal_eval(r.stdout.strip().splitlines()[-1]))

    for name, heavy in (("separable-d2-g1_5", set()), ("xor-2", {"scipy", "sympy"})):
        trace = str(tmp_path / f"{name}.npz")
        assert imported("train", "--data", f"builtin:{name}", "--trace", trace) == set()
        assert imported("check", "--data", f"builtin:{name}", "--trace", trace) == heavy | {"clarabel"}


def test_replay_commands_and_refutation_text_are_each_written_once():
    """A refutation's replay command is written by verify.replay.commands alone (a run's options
    by Params.argv), and its text (the place of a violation, its sides, its dataset, its
    separator, where a pair of runs parts, the lines check, the terminal, the reports and the
    pytest plugin show) by verify.report.claim_text alone; the sides are named from the claim's
    expression by the claim language (verify.language.sides), never by the reports."""
    import re

    command = re.compile(r'f?"proof-audit (train|check|search|claims at) ')
    where = [name for name, path in MODULES.items() if command.search(_read(path))]
    assert where == ["verify.replay.commands"], where
    for pattern in (r"\{y:\+d\}", r"points \{at\[1\]\[0\]\} against", r"\(viol\)\.free\.items\(\)",
                    r"for k, v in _v\(viol\)\.place\(keys\)", r'\["--max-epochs", ', r"first violation at \{", r"partner run \(\{viol",
                    r"\"counterexample: \{", r"counterexample on \{", r"violated \{", r"counterexample \(search\): "):
        where = sorted(name for name, path in MODULES.items() if re.search(pattern, _read(path)))
        assert len(where) == 1 and where[0] in ("verify.report.claim_text", "perceptron.params"), (pattern, where)
    where = sorted(name for name, path in MODULES.items() if name.startswith("verify") and "get_source_segment(" in _read(path))
    assert where == ["verify.language.sides"], where
    assert not [name for name, path in MODULES.items() if name.startswith("verify.report") and "import ast" in _read(path)]
    # the audit's findings reach the terminal's text as they are (no conversion there and back)
    assert not [name for name in ("verify.report.results", "verify.report.claim_text", "verify.report.terminal")
                if "json.loads(" in _read(MODULES[name])]


def _constants(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def test_each_assumption_is_spelled_in_one_module():
    """An assumption is an object (verify.language.assumptions) that knows what it fixes, how it
    narrows a search and whether a run meets it: its name is written there alone.  Names that are
    also another concept's (a certificate's kind "separable", the quantity "converged", the run
    setting "ratchet") may appear elsewhere, but never tested against a claim's assume list."""
    from verify.language.assumptions import ASSUMPTIONS

    shared = {"separable", "nonseparable", "converged", "ratchet"}
    bad = []
    for name, path in MODULES.items():
        if name == "verify.language.assumptions":
            continue
        tree = ast.parse(_read(path))
        bad += [f"{name}:{c.lineno} spells {c.value!r}" for c in _constants(tree)
                if c.value in ASSUMPTIONS and c.value not in shared]
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) \
                    and isinstance(node.left, ast.Constant) and node.left.value in ASSUMPTIONS \
                    and any("assume" in ast.unparse(c) for c in node.comparators):
                bad.append(f"{name}:{node.lineno} tests {node.left.value!r} against an assume list")
    assert not bad, "\n".join(bad)


def test_variant_facts_are_stated_once():
    """What a variant is (its eta range, bias rule, settings, the quantities it defines) is
    perceptron.variants' alone: no other module restates a list or table of built-in variants."""
    from perceptron.variants import VARIANTS

    bad = []
    for name, path in MODULES.items():
        if name == "perceptron.variants":
            continue
        for node in ast.walk(ast.parse(_read(path))):
            elts = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else []
            named = {e.value for e in elts if isinstance(e, ast.Constant) and e.value in VARIANTS}
            if len(named) >= 2:
                bad.append(f"{name}:{node.lineno} lists the variants {sorted(named)}")
    assert not bad, "\n".join(bad)


def test_a_violation_is_read_through_its_type():
    """Where and how a claim fails is a Violation (verify.language.violation): its record's keys
    are read there alone; the corpus, the reports and the search ask the type."""
    import re

    reads = re.compile(r'viol\w*\[["\']|violation\[["\']|\bce\.get\(["\'](free|partner|run|data|sides|end)["\']|'
                       r'\["(first_difference_at_update|first_difference_at_visit|points_updated|fails_at_point)"\]')
    bad = [name for name, path in MODULES.items() if name != "verify.language.violation" and reads.search(_read(path))]
    assert not bad, bad
