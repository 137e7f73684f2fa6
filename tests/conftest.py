import os

import pytest

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
COQ_DATA = os.path.join(SHARED, "data", "coqperceptron")


@pytest.fixture
def coq_dir():
    if not os.path.isdir(COQ_DATA):
        pytest.skip(f"CoqPerceptron data not found at {COQ_DATA}")
    return COQ_DATA


@pytest.fixture(autouse=True)
def _declared_variants_stay_in_their_test():
    """The registry of declared variants is per process: what one test declares (a claim file's
    [variants] table) is gone before the next, so that tests pass in any order and on any
    xdist worker (a module may still register its own for all its tests: see test_declared)."""
    from perceptron import declared

    saved, origin = dict(declared._REGISTRY), dict(declared._ORIGIN)
    yield
    declared._REGISTRY.clear()
    declared._REGISTRY.update(saved)
    declared._ORIGIN.clear()
    declared._ORIGIN.update(origin)
