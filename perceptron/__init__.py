"""Reference perceptrons of the five notes: datasets, one run loop, exact update logs.

Knows nothing of proofs; ``verify`` replays what this package writes.
"""

from .datasets import Dataset, from_rows, read_dataset
from .errors import InputError
from .generators import BUILTIN, builtin
from .params import ParamError, Params
from .run import Result, train
from .trace import MemoryTrace, Trace
from .trace_writers import open_writer
from .trace_reader import read_trace
from .variants import VARIANTS

__all__ = ["Dataset", "read_dataset", "from_rows", "InputError", "BUILTIN", "builtin", "ParamError",
           "Params", "Result", "train", "MemoryTrace", "Trace", "open_writer", "read_trace", "VARIANTS",
           "load"]


def load(spec: str, fmt: str | None = None, label_set: str | None = None, options=None) -> Dataset:
    """A dataset from a path or ``builtin:NAME``; ``options``: a perceptron.labels.ReadOptions."""
    if spec.startswith("builtin:"):
        try:
            return builtin(spec.split(":", 1)[1])
        except KeyError as e:
            raise InputError(spec, e.args[0]) from None
    return read_dataset(spec, fmt, label_set=label_set, options=options)
