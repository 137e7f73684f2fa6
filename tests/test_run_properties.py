"""Property tests: the block-evaluated, integer-scaled run loop records exactly what the
update rule gives, visit by visit, against a naive one-visit-at-a-time reference."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perceptron import MemoryTrace, Params, train

from .reference import naive_run
from .strategies import etas, orders, separable_datasets

PRIMAL = ["rosenblatt", "novikoff", "sign", "slides", "pocket", "unit", "sklearn"]


def _params(variant, order, eta, arithmetic="exact", **kw):
    if variant == "sklearn":
        order = "cyclic"
    if variant in ("slides", "pocket"):
        eta = min(eta, Fraction(1))
    return Params(variant=variant, order=order, eta=eta, arithmetic=arithmetic, max_epochs=60, **kw)


def _compare(ds, params):
    rec = MemoryTrace()
    res = train(ds, params, rec)
    tr = rec.trace
    visits, updates, final = naive_run(ds, params)
    assert len(tr.t) == len(visits) == res.visits
    assert list(tr.t) == list(range(1, len(visits) + 1))
    for j, (epoch, i, s, mistake, k) in enumerate(visits):
        assert (tr.epoch[j], tr.i[j], bool(tr.mistake[j]), tr.k[j]) == (epoch, i, mistake, k), j
        assert tr.score_value(j) == s, j
        assert tr.y[j] == ds.y[i]
    assert list(tr.upd_t) == [u[0] for u in updates]
    for u, (_, w, b) in enumerate(updates):
        got_w, got_b = tr.weights_after(u)
        assert got_w == w
        if b is not None:
            assert got_b == b
    if params.variant == "pocket":
        assert res.w_pocket == final["pocket"]
    return res


@settings(max_examples=60, deadline=None)
@given(ds=separable_datasets(), variant=st.sampled_from(PRIMAL + ["kernel"]), order=orders, eta=etas)
def test_trace_is_the_update_rule(ds, variant, order, eta):
    """Every recorded score, mistake flag, count and weight equals the naive rule's."""
    if variant == "unit" and any(sum(int(v) ** 2 for v in row) != round(sum(int(v) ** 2 for v in row) ** 0.5) ** 2 for row in ds.X_num):
        variant = "sign"  # exact unit-norm scaling needs rational norms; covered below
    _compare(ds, _params(variant, order, eta))


@settings(max_examples=30, deadline=None)
@given(ds=separable_datasets(), order=orders, sign0=st.sampled_from([-1, 0, 1]), form=st.sampled_from(["yx", "half"]))
def test_sign_variant_ties_and_forms(ds, order, sign0, form):
    """The sign variant for each value of sign(0) and both update forms."""
    _compare(ds, _params("sign", order, Fraction(1, 2), sign0=sign0, form=form))


@settings(max_examples=30, deadline=None)
@given(ds=separable_datasets(), order=orders, degree=st.integers(1, 3))
def test_polynomial_kernel(ds, order, degree):
    """The kernel variant with a polynomial kernel, exactly."""
    _compare(ds, _params("kernel", order, Fraction(1), kernel="poly", degree=degree, offset=Fraction(1, 2)))


@settings(max_examples=40, deadline=None)
@given(ds=separable_datasets(), variant=st.sampled_from(["rosenblatt", "novikoff", "sign", "slides", "sklearn", "kernel"]), order=orders)
def test_float_agrees_with_exact_on_small_integers(ds, variant, order):
    """With eta = 1 and small integer data every float operation is exact: same trace."""
    ex, fl = MemoryTrace(), MemoryTrace()
    r1 = train(ds, _params(variant, order, Fraction(1)), ex)
    r2 = train(ds, _params(variant, order, Fraction(1), arithmetic="float"), fl)
    a, b = ex.trace, fl.trace
    assert (r1.updates, r1.epochs, r1.visits, r1.converged) == (r2.updates, r2.epochs, r2.visits, r2.converged)
    assert np.array_equal(a.i, b.i) and np.array_equal(a.mistake, b.mistake)
    assert [a.score_value(j) for j in range(len(a.t))] == [Fraction(b.score_value(j)) for j in range(len(b.t))]
    if r1.w is not None:
        assert [Fraction(v) for v in r2.w] == r1.w


@settings(max_examples=25, deadline=None)
@given(ds=separable_datasets(max_n=5, max_d=2), order=orders)
def test_pocket_ratchet_and_patience(ds, order):
    """Pocket with the ratchet, and the slides variant stopping on an unchanged w."""
    if order != "cyclic":
        order = "cyclic"
    res = _compare(ds, _params("pocket", order, Fraction(1), ratchet=False))
    assert res.w_pocket is not None
    rec = MemoryTrace()
    r = train(ds, Params(variant="slides", patience=2, max_epochs=50), rec)
    assert r.visits <= 2 + ds.n * 50
    if r.stop == "unchanged":
        assert not rec.trace.mistake[-2:].any()


def test_unit_variant_exact_on_rational_unit_data():
    """004's variant runs exactly on unit-norm rational data, and agrees with the reference."""
    from perceptron.generators import unit_sphere_points

    ds = unit_sphere_points(12, 3, Fraction(1, 5), seed=3)
    for order in ("first", "cyclic", "random:1", "max-violation"):
        res = _compare(ds, _params("unit", order, Fraction(1)))
        assert res.converged


def test_non_separable_stops_on_budget():
    """XOR never converges: the run stops on the epoch budget and says so."""
    from perceptron import builtin

    for order in ("first", "cyclic", "random:3", "max-violation"):
        res = train(builtin("xor-2"), Params(order=order, augment="last", max_epochs=40))
        assert not res.converged and res.stop in ("max_epochs", "max_updates")
    res = train(builtin("xor-2"), Params(augment="last", max_updates=7))
    assert res.updates == 7 and res.stop == "max_updates"
