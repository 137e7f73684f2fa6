"""Hypothesis strategies shared by the tests."""

from fractions import Fraction

from hypothesis import strategies as st

from perceptron import from_rows


@st.composite
def separable_datasets(draw, max_n=7, max_d=3, box=4):
    """Small integer datasets labelled by an integer hyperplane through the origin (so they are
    separable without a bias), with both labels present when possible."""
    d = draw(st.integers(1, max_d))
    n = draw(st.integers(1, max_n))
    w = draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d).filter(any))
    pts = draw(st.lists(st.lists(st.integers(-box, box), min_size=d, max_size=d)
                        .filter(lambda p: sum(a * c for a, c in zip(w, p)) != 0),
                        min_size=n, max_size=n))
    labels = [1 if sum(a * c for a, c in zip(w, p)) > 0 else -1 for p in pts]
    return from_rows("hyp", pts, labels)


etas = st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(3, 4), Fraction(2)])
orders = st.sampled_from(["first", "cyclic", "random:0", "random:7", "max-violation"])
