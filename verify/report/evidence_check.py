"""The parts of a results.json that ``proof-audit report`` reads beyond its claims' list, checked
before any report is written: each claim's evidence (its counterexample, search, quantifiers,
proof steps, smallest slack), the claim's optional fields, and the corpus's tightness table and
plot data.  A results.json is read back from disk and may have been edited by hand: every key
a report reads is checked for its type here, so a missing key or a wrong type is one line
naming results.json and the claim, never a KeyError in the middle of writing the pages.

Keys not named here are not read by any report and are let through (later versions may add
some).  A spec is a type (or tuple of types: ``int`` never matches a bool), a dict (its keys;
those starting with ``*`` are required), ``[spec]`` (a list of such items), ``{None: spec}``
(an object of any keys whose values match), or a function returning a problem or None.
"""

from __future__ import annotations

import json
import os
import re

from perceptron.errors import InputError

__all__ = ["validate_evidence", "validate_report_input", "read_results", "MAX_COORDINATE_CHARS"]

#: Characters of a counterexample's coordinate drawn in a figure (a rational P/Q): the search's
#: boxes are at most 1000, and a number much longer would overflow a float.
MAX_COORDINATE_CHARS = 40

_NUM = (int, float)
_RATIONAL = re.compile(r"-?[0-9]{1,%d}(/[1-9][0-9]{0,%d})?" % (MAX_COORDINATE_CHARS, MAX_COORDINATE_CHARS))


def _coordinate(v, where) -> str | None:
    if type(v) is int and abs(v) < 10 ** MAX_COORDINATE_CHARS:
        return None
    if type(v) is str and _RATIONAL.fullmatch(v):
        return None
    return f"{where} must be an integer or a rational P/Q of at most {MAX_COORDINATE_CHARS} digits"


def _optional(spec):
    """``spec`` or null."""
    def check(v, where):
        return None if v is None else _problem(v, spec, where)
    return check


def _strings(least: int):
    """A list of at least ``least`` strings."""
    def check(v, where):
        if type(v) is list and len(v) >= least and all(type(s) is str for s in v):
            return None
        return f"{where} must be a list of {'at least ' + str(least) + ' ' if least else ''}strings"
    return check


_STR_LIST = [str]
_VIOLATION = {"sides": _strings(1), "ops": _STR_LIST, "parts": _STR_LIST, "connective": str}
_SEPARATOR = {"*v": [int], "*b": _coordinate}
_PARAMS = {"*eta": str, "w0": _optional(_STR_LIST), "b0": _optional(str), "sign0": int, "form": str, "ratchet": bool,
           "max_updates": int, "max_epochs": int, "declared": {None: str}, "kernel": str, "degree": int, "offset": str}
_SEARCH_CE = {"*points": [[_coordinate]], "*labels": [int], "*updates": [int], "*violation": _VIOLATION,
              "*variant": str, "*order": str, "separator": _optional(_SEPARATOR), "*params": _PARAMS,
              "summary": _optional({None: object}), "found_by": str}
_QUANTIFIER = {"*range": str, "varied": bool, "values_evaluated": _STR_LIST}
_EVIDENCE = {
    "counterexample": _optional({**_VIOLATION, "search": _SEARCH_CE, "free": {None: object}}),
    "search": _optional({"reason": str, "domain_text": str,
                         "scopes": [{"points": int, "box": int, "max_updates": int, "candidates": int, "verdict": str,
                                     "reason": str}]}),
    "scope": _optional({"points": int, "dim": int, "box": int, "max_updates": int, "w0_box": int, "sep_box": int,
                        "etas": [(str, int)], "order": str, "unit": bool}),
    "premise": _optional({}),
    "quantifiers": _optional({None: _QUANTIFIER}),
    "steps": [{"*step": str, "*verdict": str, "*method": str, "detail": str}],
    "hypotheses": _STR_LIST,
    "min_slack": _optional({"*exact": str, "*approx": _optional(_NUM)}),
}
_CLAIM_EXTRA = {"expr": _optional(str), "corrects": str, "note": str}
_TIGHTNESS = {"*worst_ratio": _NUM, "*bound_value": _NUM}


def _rows(width: int):
    def check(rows, where):
        if type(rows) is not list or not all(type(r) is list and len(r) >= width and all(type(x) in _NUM for x in r)
                                             for r in rows):
            return f"{where} must be a list of rows of at least {width} numbers"
        return None
    return check


_PLOTS = {"series": [{"*rows": _rows(7)}],
          "other": [{"*rows": _rows(5), "*title": str, "*columns": _strings(5)}],
          "bounds": [{"*bound": _NUM, "*mistakes": _NUM}]}


def _type_name(spec) -> str:
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false", dict: "an object",
             list: "a list"}
    if isinstance(spec, tuple):
        return "a number" if set(spec) == set(_NUM) else " or ".join(names.get(t, t.__name__) for t in spec)
    return names.get(spec, spec.__name__)


def _problem(v, spec, where: str) -> str | None:
    """The first way ``v`` departs from ``spec`` (as ``where`` plus what is wrong), or None."""
    if spec is object:
        return None
    if isinstance(spec, (type, tuple)):
        types = spec if isinstance(spec, tuple) else (spec,)
        ok = type(v) in types or (float in types and type(v) is int)
        return None if ok else f"{where} must be {_type_name(spec)}"
    if isinstance(spec, list):
        if type(v) is not list:
            return f"{where} must be a list"
        return next((p for j, x in enumerate(v) if (p := _problem(x, spec[0], f"{where}[{j}]"))), None)
    if isinstance(spec, dict):
        if type(v) is not dict:
            return f"{where} must be an object"
        if None in spec:
            return next((p for k, x in v.items() if (p := _problem(x, spec[None], f"{where}.{k}"))), None)
        for key, sub in spec.items():
            name = key.lstrip("*")
            if name not in v:
                if key.startswith("*"):
                    return f"{where}.{name} is missing"
                continue
            p = _problem(v[name], sub, f"{where}.{name}")
            if p:
                return p
        return None
    return spec(v, where)


def _figure_problem(ce: dict) -> str | None:
    """What the counterexample's figure reads: points of one dimension, and a separator of at
    least two coordinates, not both zero, when they are two-dimensional."""
    pts = ce["points"]
    if not pts or any(len(p) != len(pts[0]) for p in pts):
        return "points must be a non-empty list of points of one dimension"
    sep = ce.get("separator")
    if sep and len(pts[0]) == 2 and (len(sep["v"]) < 2 or sep["v"][0] == sep["v"][1] == 0):
        return "separator.v must have two coordinates, not both zero, for two-dimensional points"
    return None


def validate_evidence(claim: dict, where: str) -> str | None:
    """The first way one claim's evidence (and its optional fields) departs from what the
    reports read, or None.  ``claim`` has passed verify.report.results.validate_results."""
    p = _problem(claim, _CLAIM_EXTRA, where) or _problem(claim["evidence"], _EVIDENCE, f"{where}.evidence")
    if p:
        return p
    ev = claim["evidence"]
    for q, d in (ev.get("quantifiers") or {}).items():
        if not d["range"].startswith("fixed") and "varied" not in d:
            return f"{where}.evidence.quantifiers.{q}.varied is missing"
    s = (ev.get("counterexample") or {}).get("search")
    if s is not None:
        p = _figure_problem(s)
        if p:
            return f"{where}.evidence.counterexample.search.{p}"
        from verify.replay.counterexample import Counterexample

        try:  # what the reports read of it, read as they read it
            Counterexample.from_json(s)
        except (KeyError, TypeError, ValueError, ArithmeticError) as e:
            return f"{where}.evidence.counterexample.search is not a counterexample: {type(e).__name__}: {str(e)[:80]}"
    return None


def validate_report_input(results: dict) -> str | None:
    """Everything ``report`` reads from a results.json: the claims as
    verify.report.results.validate_results checks them, then each claim's evidence (named by its
    index and id), the corpus's tightness table and plot data."""
    from verify.report.results import validate_results

    problem = validate_results(results)
    if problem:
        return problem
    for j, c in enumerate(results["claims"]):
        problem = validate_evidence(c, f"claims[{j}] (claim {c['id'][:80]!r})")
        if problem:
            return problem
    corpus = results["corpus"]
    return _problem(corpus, {"tightness": _optional([_TIGHTNESS]), "plots": _optional(_PLOTS)}, "corpus")


def read_results(path: str) -> dict:
    """A results.json that ``report`` rebuilds the reports from, read within MAX_RESULTS_BYTES
    and validated in full (its schema, then every claim's evidence): one InputError otherwise."""
    from perceptron.limits import read_bytes
    from verify.report.results import MAX_RESULTS_BYTES

    if not os.path.lexists(path):
        raise InputError(path, "no such file (run proof-audit run first)")
    try:
        results = json.loads(read_bytes(path, MAX_RESULTS_BYTES, "results").decode("utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(path, f"not JSON: {e.msg}", e.lineno, e.colno) from None
    except (UnicodeDecodeError, RecursionError):
        raise InputError(path, "not JSON: not UTF-8 text, or nested too deeply") from None
    if not isinstance(results, dict) or results.get("schema") != "proof-audit/results" or results.get("version") != 1:
        raise InputError(path, "not a proof-audit results file (schema proof-audit/results, version 1)")
    problem = validate_report_input(results)
    if problem:
        raise InputError(path, f"not a complete results file: {problem}")
    return results
