"""The worked example of 000 (section 3), reproduced exactly."""

from fractions import Fraction

from perceptron import MemoryTrace, Params, builtin, train

#: y_i w_k.x_i for the four points, the five tables of 000 section 3 (iterations 1-5).
TABLES = [
    [0, 0, 0, 0],
    [4, 0, -4, 4],
    [4, 4, 0, 8],
    [0, 8, 8, 8],
    [4, 8, 4, 12],
]


def test_four_updates_to_2_4():
    """order first: exactly 4 updates, w = (2, 4), converged."""
    res = train(builtin("worked-example"), Params(order="first"))
    assert res.updates == 4 and res.converged
    assert res.w == [Fraction(2), Fraction(4)]


def test_iteration_tables_match_the_note():
    """y_i w_k.x_i for w_1 = 0 and each w after an update equals the five tables."""
    ds = builtin("worked-example")
    rec = MemoryTrace()
    train(ds, Params(order="first"), rec)
    tr = rec.trace
    ws = [[Fraction(0), Fraction(0)]] + [tr.weights_after(u)[0] for u in range(len(tr.upd_t))]
    xs = ds.fractions()
    got = [[int(y) * sum(a * c for a, c in zip(w, x)) for x, y in zip(xs, ds.y)] for w in ws]
    assert got == TABLES


def test_update_sequence_is_the_notes():
    """The points taken are x1, x2, x3, x1 (0-based 0, 1, 2, 0), as in iterations 2-5."""
    rec = MemoryTrace()
    train(builtin("worked-example"), Params(order="first"), rec)
    tr = rec.trace
    assert list(tr.i[tr.mistake]) == [0, 1, 2, 0]
    assert list(tr.i) == [0, 0, 1, 0, 1, 2, 0, 0, 1, 2, 3]
