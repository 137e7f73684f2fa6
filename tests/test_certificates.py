"""Certificates: exact, verified, and a tight certified interval [gamma_lo, gamma_hi] around the
maximum margin on every built-in set and every CoqPerceptron file."""

import glob
import json
import os
from fractions import Fraction

import pytest

from perceptron import BUILTIN, Params, builtin, from_rows, read_dataset
from perceptron.params import prepare_inputs
from verify.numbers import exact as X
from verify.certify.certificates import Certificate, certify, certify_points, verify

COQ = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data", "coqperceptron", "data")


def _inputs(ds, augment=None):
    Xn, D = prepare_inputs(ds, Params(augment=augment))
    return Xn, D, [int(v) for v in ds.y]


def _check_interval(cert):
    """gamma_lo <= gamma_hi exactly, and the ratio at least 0.999."""
    lo2 = X.mul(cert.gamma, cert.gamma)
    hi2 = X.mul(cert.gamma_hi, cert.gamma_hi)
    assert X.compare(lo2, hi2) <= 0
    assert X.compare(lo2, X.mul(Fraction(999, 1000) ** 2, hi2)) >= 0, cert.ratio()


@pytest.mark.parametrize("name", BUILTIN)
@pytest.mark.parametrize("bias", [False, True])
def test_certificates_verify_exactly(name, bias):
    """Every built-in set gets a separable or non-separable certificate that checks exactly;
    separable ones have |w_opt| = 1 exactly and gamma_lo/gamma_hi >= 0.999."""
    Xn, D, y = _inputs(builtin(name))
    cert = certify(Xn, D, y, bias=bias)
    assert cert.kind in ("separable", "nonseparable")
    assert verify(cert, Xn, D, y)
    if cert.kind == "separable":
        assert X.vdot(cert.w_opt, cert.w_opt) == 1
        _check_interval(cert)


def test_max_margin_known_exactly():
    """Two points (1, 0) -> +1 and (0, 1) -> -1 through the origin: the widest separator is
    (1, -1)/sqrt(2) with margin 1/sqrt(2); the interval must contain it and be tight."""
    ds = from_rows("two", [[1, 0], [0, 1]], [1, -1])
    Xn, D, y = _inputs(ds)
    cert = certify(Xn, D, y, bias=False)
    star = X.sqrt(Fraction(1, 2))
    assert X.compare(cert.gamma, star) <= 0 <= X.compare(cert.gamma_hi, star)
    assert cert.ratio() > 0.9999


def test_a_wrong_certificate_is_rejected():
    Xn, D, y = _inputs(builtin("worked-example"))
    cert = certify(Xn, D, y, bias=False)
    bad = Certificate("separable", False, v=[1, 0], c=Fraction(0), m=cert.m)
    assert not verify(bad, Xn, D, y)


def test_xor_is_not_separable_even_with_bias():
    ds = builtin("xor-2")
    Xn, D, y = _inputs(ds)
    rows = [[Fraction(int(v), D) for v in r] for r in Xn]
    cert = certify_points(rows, y, bias=True)
    assert cert.kind == "nonseparable"
    lam = cert.lam
    assert all(v >= 0 for v in lam) and any(lam)
    assert all(sum(l * yi * r[j] for l, yi, r in zip(lam, y, rows)) == 0 for j in range(2))


def test_certify_cli(capsys):
    from verify.cli import main

    assert main(["certify", "--data", "builtin:xor-2", "--variant", "novikoff"]) == 0
    assert "nonseparable" in capsys.readouterr().out
    assert main(["certify", "--data", "builtin:worked-example", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "separable" and out["gamma_lo_over_gamma_hi"] >= 0.999
    assert out["gamma_lo_float"] <= out["gamma_hi_float"]


def _coq_files():
    return sorted(p for p in glob.glob(os.path.join(COQ, "*")) if os.path.basename(p) != "input_description")


@pytest.mark.skipif(not os.path.isdir(COQ), reason="../shared/data/coqperceptron is not present in this checkout")
@pytest.mark.parametrize("path", _coq_files(), ids=os.path.basename)
@pytest.mark.parametrize("bias", [False, True])
def test_coqperceptron_margins_are_tight(path, bias):
    """gamma_lo/gamma_hi >= 0.999 on every CoqPerceptron file (as the audit runs it: augmented
    by 1 first, through the origin; and with a bias on the raw inputs)."""
    ds = read_dataset(path)
    Xn, D, y = _inputs(ds, augment=None if bias else "first")
    cert = certify(Xn, D, y, bias=bias)
    assert cert.kind == "separable"
    assert verify(cert, Xn, D, y)
    _check_interval(cert)


def test_certify_prints_the_separator_it_verified(capsys):
    """The exactly unit-norm rational separator is printed as its rationals (int() printed
    zeros), and the JSON gives gamma_lo as p/q, not a Python repr."""
    import json

    from verify.cli import main

    assert main(["certify", "--data", "builtin:worked-example"]) == 0
    out = capsys.readouterr().out
    assert "(exactly unit-norm rationals)" in out and "v = (0, 0)" not in out
    assert main(["certify", "--data", "builtin:worked-example", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert "Fraction" not in got["gamma_lo"] and "/" in got["gamma_lo"]
    assert got["v_opt"] == [v.strip() for v in out.split("w_opt = v = (")[1].split(")")[0].split(",")]


from hypothesis import given, settings as _settings, strategies as _st  # noqa: E402


@_settings(max_examples=200, deadline=None)
@given(_st.data())
def test_int_matvec_is_exact(data):
    """The limb-split int64 matrix-vector product equals Python integer arithmetic, for any
    integer vector (hundreds of bits) and int64 matrices up to 2^61."""
    import numpy as np

    from verify.certify.qp import int_matvec

    m, n = data.draw(_st.integers(0, 5)), data.draw(_st.integers(0, 6))
    big = data.draw(_st.sampled_from([1, 250, 2**40, 2**61]))
    M = np.array(data.draw(_st.lists(_st.lists(_st.integers(-big, big), min_size=n, max_size=n), min_size=m, max_size=m)),
                 dtype=np.int64).reshape(m, n)
    v = data.draw(_st.lists(_st.integers(-2**300, 2**300), min_size=n, max_size=n))
    assert int_matvec(M, v) == [sum(int(a) * b for a, b in zip(row, v)) for row in M.tolist()]


@pytest.mark.parametrize("name, variant", [("separable-d3-bias", "novikoff"), ("unit-d3-g1_5", "unit"),
                                           ("separable-d2-g1_5", "rosenblatt"), ("xor-2", "rosenblatt")])
def test_a_certificate_is_kept_exactly(name, variant):
    """state() / from_state(): every exact field back (v, c, m, the surd gamma_hi, the unit form,
    Gordan's lambda), so a warm re-run's cached certificate is the one computed; the second
    separator too; anything that is not a state is refused with ValueError."""
    from verify.certify.certificates import alternative_separator
    from verify.replay.dispatch import RunContext

    ctx = RunContext(builtin(name), Params(variant=variant))
    for cert in (ctx.cert, alternative_separator(ctx.cert, ctx.Xn, ctx.D, ctx.y)):
        if cert is None:
            continue
        back = Certificate.from_state(json.loads(json.dumps(cert.state())))
        assert back.state() == cert.state() and back.to_json() == cert.to_json()
        assert (back.v, back.c, back.m, back.lam, back.unit, back.kind) == (cert.v, cert.c, cert.m, cert.lam, cert.unit, cert.kind)
        if cert.gamma_hi is not None:
            assert repr(back.gamma_hi) == repr(cert.gamma_hi) and back.ratio() == cert.ratio()
    assert ctx.cert.kind == ("nonseparable" if name == "xor-2" else "separable")
    for bad in ({}, {**ctx.cert.state(), "kind": "maybe"}, {**ctx.cert.state(), "m": 3},
                {**ctx.cert.state(), "gamma_hi": [[2, "1/0"]]}):
        with pytest.raises(ValueError):
            Certificate.from_state(bad)
