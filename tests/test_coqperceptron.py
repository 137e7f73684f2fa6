"""The CoqPerceptron benchmark: our exact cyclic Rosenblatt run reproduces its C++ GMP weights."""

import glob
import os

import pytest

from perceptron import Params, read_dataset, train
from perceptron._numbers import parse_rational

from .conftest import COQ_DATA


def _weight_files():
    return sorted(glob.glob(os.path.join(COQ_DATA, "output", "*.cpp_weights")))


@pytest.mark.parametrize("wfile", _weight_files() or ["missing"], ids=lambda p: os.path.basename(p))
def test_reproduces_recorded_weights(wfile, coq_dir):
    """--variant rosenblatt --augment first --exact --order cyclic gives the recorded weights."""
    name = os.path.basename(wfile).replace(".cpp_weights", ".dat")
    ds = read_dataset(os.path.join(coq_dir, "data", name))
    res = train(ds, Params(variant="rosenblatt", augment="first", order="cyclic", arithmetic="exact"))
    with open(wfile) as fh:
        ref = [parse_rational(line) for line in fh if line.strip()]
    assert res.converged
    assert len(ref) == ds.d + 1
    assert res.w == ref


def test_all_weight_files_found(coq_dir):
    """The benchmark ships eleven weight files; the parametrisation above saw them all."""
    assert len(_weight_files()) == 11
