import os

import pytest

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
COQ_DATA = os.path.join(SHARED, "data", "coqperceptron")


@pytest.fixture
def coq_dir():
    if not os.path.isdir(COQ_DATA):
        pytest.skip(f"CoqPerceptron data not found at {COQ_DATA}")
    return COQ_DATA
