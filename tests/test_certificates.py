"""Certificates: exact, verified, and close to the maximum margin on the built-in corpus."""

from fractions import Fraction

import pytest

from perceptron import BUILTIN, Params, builtin
from perceptron.run import prepare_inputs
from verify.certificates import certify_points, verify


def _rows(ds, augment=None):
    X, D = prepare_inputs(ds, Params(augment=augment))
    return [[Fraction(int(v), D) for v in r] for r in X], [int(v) for v in ds.y]


@pytest.mark.parametrize("name", BUILTIN)
@pytest.mark.parametrize("bias", [False, True])
def test_certificates_verify_exactly(name, bias):
    """Every built-in set gets a separable or non-separable certificate that checks exactly;
    separable margins are within 1% of the numerical maximum."""
    rows, y = _rows(builtin(name))
    cert = certify_points(rows, y, bias=bias)
    assert cert.kind in ("separable", "nonseparable")
    assert verify(cert, rows, y)
    if cert.kind == "separable":
        assert sum(c * c for c in cert.w_opt) == 1
        assert cert.gamma_numeric is None or float(cert.gamma) >= 0.99 * cert.gamma_numeric


def test_xor_is_not_separable_even_with_bias():
    rows, y = _rows(builtin("xor-2"))
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
    assert out["kind"] == "separable" and out["gamma_ratio_to_numeric_max"] > 0.99
