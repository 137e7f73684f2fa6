"""The search's exact arithmetic (verify.searching.radicals): values c sqrt(r) row by row,
checked against sympy; and the search deciding equalities with it instead of the replay."""

import random
import textwrap
from fractions import Fraction

import numpy as np
import pytest
import sympy

from perceptron._interval import FALSE, TRUE, UNDECIDED, UNDEFINED, ieval
from verify.language.claims import builtin_claim_files, load_claims
from verify.searching import Domain, search
from verify.searching.radicals import Radicals as R
from verify.searching.radicals import integers, scaled
from verify.verdicts import Verdict

BUILTIN = {c.id: c for f in builtin_claim_files() for c in load_claims(f).claims}


def _sym(q, j):
    """Row j of a scalar value, as a sympy number (None where undecided or undefined)."""
    if q.bad[j] or q.undef[j]:
        return None
    return sympy.Rational(int(q.n[j]), int(q.d[j])) * sympy.sqrt(int(q.r[j]))


def _random_values(rng, m):
    """Rationals and square roots of rationals, small, with zeros and negatives."""
    num = np.array([rng.randint(-6, 6) for _ in range(m)])
    den = np.array([rng.randint(1, 4) for _ in range(m)])
    q = R.div(integers(num), integers(den))
    if rng.random() < 0.5:
        q = R.sqrt(R.abs(q))
        if rng.random() < 0.5:
            q = R.neg(q)
    return q


@pytest.mark.parametrize("seed", range(8))
def test_operations_agree_with_sympy(seed):
    rng = random.Random(seed)
    m = 40 if seed < 6 else 160  # (past 64 rows a radicand's square part is found once per distinct value)
    a, b = _random_values(rng, m), _random_values(rng, m)
    ops = {"+": (R.add, lambda x, y: x + y), "-": (R.sub, lambda x, y: x - y), "*": (R.mul, lambda x, y: x * y),
           "/": (R.div, lambda x, y: x / y)}
    decided = 0
    for name, (op, ref) in ops.items():
        got = op(a, b)
        for j in range(m):
            x, y = _sym(a, j), _sym(b, j)
            if name == "/" and y == 0:
                assert got.undef[j], (name, x, y)
                continue
            v = _sym(got, j)
            if v is None:  # a sum of different square roots: undecided, never wrong
                assert name in "+-" and got.bad[j]
                continue
            decided += 1
            assert sympy.simplify(v - ref(x, y)) == 0, (name, x, y, v)
    for o in ("<", "<=", "==", "!=", ">", ">="):  # comparisons are always decided
        res = R.cmp(o, a, b)
        for j in range(m):
            want = {"<": sympy.Lt, "<=": sympy.Le, "==": sympy.Eq, "!=": sympy.Ne, ">": sympy.Gt,
                    ">=": sympy.Ge}[o](_sym(a, j), _sym(b, j))
            assert res[j] == (TRUE if bool(want) else FALSE), (o, _sym(a, j), _sym(b, j))
    assert decided > 2 * m  # most rows are decided (4 operations x m rows)


def test_square_roots_meet_and_leave_the_form():
    two_sqrt5 = R.sqrt(integers([20]))  # 2 sqrt(5): the square taken out of the radicand
    assert (int(two_sqrt5.n[0]), int(two_sqrt5.r[0])) == (2, 5)
    s = R.add(two_sqrt5, R.sqrt(integers([5])))  # 3 sqrt(5)
    assert (int(s.n[0]), int(s.d[0]), int(s.r[0]), bool(s.bad[0])) == (3, 1, 5, False)
    assert R.add(R.sqrt(integers([2])), R.sqrt(integers([3]))).bad[0]  # sqrt 2 + sqrt 3: undecided
    assert R.sqrt(R.sqrt(integers([2]))).bad[0]  # nested roots: undecided
    assert R.sqrt(integers([-1])).undef[0]
    f = R.rounded("floor", scaled([-7], 2))
    assert int(f.n[0]) == -4 and R.rounded("ceil", scaled([-7], 2)).n[0] == -3


def test_past_int64_the_integers_are_python_ints():
    big = integers([2**40, -(2**40)])
    p = R.mul(R.mul(big, big), big)  # 2^120
    assert p.n.dtype == object and int(p.n[0]) == 2**120 and int(p.n[1]) == -(2**120)
    assert list(R.cmp("<", p, R.mul(p, integers([2, 2])))) == [TRUE, FALSE]


def test_logic_reads_undefined_as_the_claim_evaluator_does():
    """Left to right: a false operand before a division by zero decides an 'and'."""
    env = _Env({"a": integers([0, 1, 1]), "z": integers([0, 0, 1])})
    tree = ("and", (("cmp", ("!=",), (("name", "a"), ("num", Fraction(0)))),
                    ("cmp", ("==",), (("bin", "/", ("name", "a"), ("name", "z")), ("num", Fraction(1))))))
    assert list(ieval(tree, env, 3, R)) == [FALSE, UNDEFINED, TRUE]


class _Env:
    def __init__(self, vals):
        self.vals = vals

    def get(self, name):
        return self.vals[name]


def test_equalities_are_decided_without_the_replay():
    """Identities with square roots (w_opt = v/|v|) hold on every candidate: decided by the
    exact screen, with no candidate sent to the learner's replay (max_exact=0)."""
    dom = Domain(points=2, dim=2, box=2, max_updates=4, sep_box=2)
    for cid in ("000.numerator.identity", "000.denominator.expansion", "001.lemma1.expansion", "002.assume.alpha"):
        res = search(BUILTIN[cid], dom, engine="enumerate", timeout=120, max_exact=0)
        assert res.verdict == Verdict.NO_COUNTEREXAMPLE_IN_DOMAIN, (cid, res.to_json())


def test_a_false_equality_is_refuted_and_replayed(tmp_path):
    p = tmp_path / "eq.toml"
    p.write_text(textwrap.dedent('''
        [document]
        file = "mine.md"

        [[claim]]
        id = "mine.pythagoras"
        section = "s"
        statement = "|w_{k+1}|^2 = |w_k|^2 + |x|^2 (the cross term forgotten)"
        expr = "norm2(w) == norm2(prev(w)) + norm2(x)"
        variants = ["rosenblatt"]
        when = "update"
        expect = "refuted"
    '''))
    claim = load_claims(str(p)).claims[0]
    res = search(claim, Domain(points=2, dim=2, box=2, max_updates=3), engine="enumerate", timeout=60,
                 out_dir=str(tmp_path))
    assert res.verdict == Verdict.REFUTED and res.counterexample.to_json()["violation"]


def test_interval_undecided_never_comes_from_exact_rows():
    """Undecided stays a value of its own: the screen never calls it true."""
    und = R.add(R.sqrt(integers([2])), R.sqrt(integers([3])))
    assert R.cmp("==", und, und)[0] == UNDECIDED


def test_a_conditional_is_screened_by_both_arithmetics():
    """``a if c else b`` takes the branch its condition picks, row by row, in the interval and
    the exact screens (it was undecided in both: every candidate went to the learner's replay);
    a division by zero in the branch not taken leaves the row defined, as in the claim
    evaluator; an undecided interval condition gives the hull of both branches."""
    from perceptron._interval import Intervals, point
    from verify.language.expr import compile_expr

    tree = compile_expr("(a / z if z != 0 else a) >= 1", {"a": "scalar", "z": "scalar"}).tree
    a, z = [2, 0, 3, 1], [1, 0, 0, 2]
    exact = ieval(tree, _Env({"a": integers(a), "z": integers(z)}), 4, R)
    assert list(exact) == [TRUE, FALSE, TRUE, FALSE]
    screened = ieval(tree, _Env({"a": point(a), "z": point(z)}), 4, Intervals)
    assert list(screened) == [TRUE, FALSE, TRUE, FALSE]
    # a condition the intervals cannot decide: the value lies between the two branches
    c = np.array([UNDECIDED, TRUE])
    lo, hi = Intervals.choose(c, point([1.0, 5.0]), point([3.0, 7.0]))
    assert list(lo) == [1.0, 5.0] and list(hi) == [3.0, 5.0]
    vec = R.choose(np.array([TRUE, FALSE, UNDECIDED]), R.stack([integers([1, 2, 3]), integers([4, 5, 6])]),
                   R.stack([integers([7, 8, 9]), integers([0, 0, 0])]))
    assert [list(map(int, vec.n[:, 0])), list(vec.bad[:, 1])] == [[1, 8, 9], [False, False, True]]


@pytest.mark.parametrize("seed", range(4))
def test_distinct_rows_give_ieval_row_for_row(seed):
    """The screens compute a claim's arithmetic once per distinct row of the values it reads
    (perceptron._interval.ieval_distinct): the answer is ieval's, row for row, in the interval,
    watched-interval (with the rows it doubts) and exact arithmetics, on rows that repeat and
    rows that divide by zero or take the root of a negative number."""
    from perceptron._interval import Intervals, WatchedIntervals, ieval_distinct, point
    from verify.language.expr import compile_expr

    rng = np.random.default_rng(seed)
    names = {"a": "scalar", "z": "scalar", "v": "vector"}
    trees = [compile_expr(s, names).tree for s in (
        "a / z >= 1 or sqrt(z) < a", "norm2(v + a*v) <= a*a*z", "(a / z if z != 0 else a) == 2 and dot(v, v) > z",
        "not (a == z) and a != 0")]
    m = 400
    a = rng.integers(-3, 4, m)
    z = rng.integers(-2, 3, m)
    v = rng.integers(-2, 3, (m, 2))
    for tree in trees:
        exact_env = _Env({"a": integers(a), "z": integers(z), "v": integers(v)})
        assert list(ieval_distinct(tree, exact_env, m, R)) == list(ieval(tree, exact_env, m, R))
        fenv = _Env({"a": point(a), "z": point(z), "v": point(v.astype(float))})
        assert list(ieval_distinct(tree, fenv, m, Intervals)) == list(ieval(tree, fenv, m, Intervals))
        w1, w2 = WatchedIntervals(m), WatchedIntervals(m)
        assert list(ieval_distinct(tree, fenv, m, w1)) == list(ieval(tree, fenv, m, w2))
        assert (w1.doubt == w2.doubt).all()
    # rows that repeat (at most 2 * 2 * 4 distinct of 400): the distinct path is taken, not the fallback
    a, z, v = a % 2, z % 2, v % 2
    calls = []
    real = R.take
    try:
        R.take = staticmethod(lambda q, rows: calls.append(len(rows)) or real(q, rows))
        env = _Env({"a": integers(a), "z": integers(z), "v": integers(v)})
        assert list(ieval_distinct(trees[1], env, m, R)) == list(ieval(trees[1], env, m, R))
    finally:
        R.take = staticmethod(real)
    assert calls and max(calls) <= 16


def test_many_distinct_radicands_in_one_batch():
    """A batch of more distinct radicands than the distinct-value threshold: each root is n sqrt(r) with
    n^2 r the value and r free of the small primes' squares (the square parts found once per value)."""
    import math

    q = R.sqrt(integers(np.arange(1, 2000)))
    for j in range(1999):
        n, d, r = int(q.n[j]), int(q.d[j]), int(q.r[j])
        assert d == 1 and n * n * r == j + 1 and all(r % (p * p) for p in (2, 3, 5, 7, 11, 13)), (j + 1, n, r)
        assert math.isqrt(r) ** 2 != r or r == 1
