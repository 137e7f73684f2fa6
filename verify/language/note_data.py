"""The note's own data in its claim file: ``[[dataset]]`` tables (perceptron.toml_data) that the
claims of the file name in ``datasets``.  Lint reads each table exactly as the corpus will, and
checks every name a claim gives: a built-in dataset, a table of the file, or a file of a
``--data`` folder (a name with its extension, checked when ``run`` knows the folders)."""

from __future__ import annotations

from perceptron.errors import InputError
from perceptron.generators import BUILTIN
from perceptron.datasets import read_dataset
from perceptron.toml_data import dataset_tables

__all__ = ["file_datasets", "check_names", "no_dataset"]


def no_dataset(name: str, have) -> str:
    """The problem of a dataset name that is not among ``have``: the near names, then all."""
    import difflib

    have = sorted(set(have))
    near = difflib.get_close_matches(name, have, 3)
    return (f"no dataset {name!r}" + (f" (did you mean {', '.join(map(repr, near))}?)" if near else "")
            + f"; the datasets are: {', '.join(have)}")


def file_datasets(path: str, data: dict, text: str, problem) -> list[str]:
    """The names of the file's [[dataset]] tables, each read (a problem at its line otherwise)."""
    if "dataset" not in data:
        return []
    try:
        tables = dataset_tables(path, data, text)
    except InputError as e:
        problem(e.line or 1, 1, e.message)
        return []
    for name, line, _ in tables:
        if name in BUILTIN:
            problem(line, 1, f"dataset {name!r} is the name of a built-in dataset; choose another")
            continue
        try:
            read_dataset(f"{path}#{name}")
        except InputError as e:
            problem(e.line or line, 1, e.message if e.path == path else str(e))
    return [name for name, _, _ in tables]


def check_names(claim, local: list[str], where, problem) -> None:
    """Each dataset the claim names exists: built-in, a table of its file, or a file name with
    its extension (a --data file, checked by run); otherwise a problem listing the names."""
    for name in claim.get("datasets") or ():
        if not isinstance(name, str) or name in BUILTIN or name in local or "." in name:
            continue
        problem(*where("datasets"), no_dataset(name, set(BUILTIN) | set(local))
                + " (and the files of --data folders, named with their extension: points.csv)")
