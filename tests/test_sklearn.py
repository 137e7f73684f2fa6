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


# --------------------------------------------------------------------------- the float32 screen

from fractions import Fraction as _F  # noqa: E402

from hypothesis import given as _given, settings as _settings, strategies as _st  # noqa: E402


@_settings(max_examples=150, deadline=None)
@_given(_st.data())
def test_the_float32_screen_keeps_every_decision_exact(data):
    """Scores through the float32 screen have the exact sign of x.w + b (x the exact data, w and
    b the float weights as binary rationals), near zero, across magnitudes, with ties."""
    import numpy as np

    from perceptron import Params, from_rows
    from perceptron.models.primal import Primal, float_exact_signs
    from perceptron.params import exact_inputs, prepare_inputs

    d = data.draw(_st.integers(1, 6))
    n = data.draw(_st.integers(1, 30))
    scale = data.draw(_st.sampled_from([1e-30, 1e-3, 1.0, 1e3, 1e30]))
    mags = _st.floats(-4, 4, allow_nan=False, allow_infinity=False)
    rows = [[_F(data.draw(mags)) * _F(scale) for _ in range(d)] for _ in range(n)]
    if data.draw(_st.booleans()) and n > 1:
        rows[1] = list(rows[0])  # a repeated point
    ds = from_rows("screen", rows, [1 if j % 2 else -1 for j in range(n)])
    params = Params(variant=data.draw(_st.sampled_from(["rosenblatt", "novikoff"])), arithmetic="float")
    X, D = prepare_inputs(ds, params)
    m = Primal(ds, params, X, D)
    if m.X32 is None:
        return
    w = np.array([data.draw(_st.floats(-4, 4, allow_nan=False)) for _ in range(X.shape[1])])
    if data.draw(_st.booleans()):  # weights orthogonal to a point: its exact score is 0
        w = np.array(X[0][::-1] * np.array([1, -1] * X.shape[1])[:X.shape[1]]) if X.shape[1] == 2 else w
    m.W = w
    if m.has_bias:
        m.B = float(data.draw(_st.sampled_from([0.0, 1e-20, -2.5])))
    s = m.scores(np.arange(n), lo=0)
    Xn, Dn = exact_inputs(ds, params)
    b = m.B if m.has_bias else 0.0
    exact = float_exact_signs(Xn, Dn, m.W, b)
    assert [int(np.sign(v)) for v in s] == exact
    # and every score lies within the bound the screen states (the replay checks recorded scores with it)
    bound = m.screen_bound(slice(0, n)) + 4 * 2.0**-53 * np.abs(s)
    wq = [_F(float(v)) for v in m.W]
    for j in range(n):
        if Xn.shape[1] != len(wq):
            break
        value = sum(_F(int(a), Dn) * c for a, c in zip(Xn[j], wq)) + _F(b)
        assert abs(_F(float(s[j])) - value) <= _F(float(bound[j])), (j, s[j], value, bound[j])


def test_the_float32_screen_catches_cancellation():
    """x = (1e8, 1, -1e8, -1/2), w = (1, 1, 1, 1): x.w = 1/2, but a float32 sum loses the 1 next
    to 1e8 and gets -1/2.  The screen's bound (about 1e-5 |x| |w|) sends it to float64."""
    import numpy as np

    from perceptron import Params, from_rows
    from perceptron.models.primal import Primal
    from perceptron.params import prepare_inputs

    rows = [[10**8, 1, -10**8, _F(-1, 2)], [10**8, 1, -10**8, _F(1, 2)], [1, 2, 3, 4]]
    ds = from_rows("cancel", rows, [1, 1, -1])
    params = Params(variant="rosenblatt", arithmetic="float")
    X, D = prepare_inputs(ds, params)
    m = Primal(ds, params, X, D)
    assert m.X32 is not None
    m.W = np.ones(4)
    s32 = (m.X32 @ m.W.astype(np.float32))[:2]
    s = m.scores(np.arange(3), lo=0)
    assert list(np.sign(s[:2])) == [1.0, 1.0] and s[0] == 0.5 and s[1] == 1.5
    assert s32[0] != 0.5  # float32 alone gets it wrong (the screen does not trust it)
