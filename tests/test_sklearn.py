"""--variant sklearn equals scikit-learn's Perceptron bit for bit on dense data."""

import warnings
from fractions import Fraction

import numpy as np
import pytest

from perceptron import Params, train
from perceptron.datasets import Dataset

sklearn = pytest.importorskip("sklearn.linear_model")


@pytest.mark.parametrize("seed", range(24))
def test_matches_sklearn_exactly(seed):
    """coef_ and intercept_ are equal as floats (not approximately) after E epochs."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(10, 150)), int(rng.integers(1, 25))
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10)
    w = rng.normal(size=d)
    noise = rng.normal(scale=0.5, size=n) if seed % 2 else 0
    y = np.where(X @ w + noise > 0, 1, -1)
    y[0] = -y[1] if (y == y[0]).all() else y[0]
    eta = float(rng.choice([1.0, 0.1, 0.37]))
    epochs = int(rng.integers(1, 25))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning on non-separable draws
        clf = sklearn.Perceptron(shuffle=False, tol=None, alpha=0, eta0=eta, max_iter=epochs).fit(X, y)
    ds = Dataset(name="rand", y=y.astype(np.int8), X_float=X)
    res = train(ds, Params(variant="sklearn", arithmetic="float", eta=Fraction(eta), max_epochs=epochs))
    assert np.array_equal(np.array(res.w), clf.coef_[0])
    assert res.b == clf.intercept_[0]
