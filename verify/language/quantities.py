"""What each name of the claim language means: the quantities of a run (perceptron.expression's
RUN_QUANTITIES) and those a proof adds, which the checker computes from a certificate
(verify.certify): the separator, its bias and the margins."""

from __future__ import annotations

from perceptron.expression import RESERVED_NAMES, RUN_QUANTITIES

__all__ = ["QUANTITIES", "PROOF_QUANTITIES", "POINT_QUANTITIES", "SWEEP_QUANTITIES", "PREVIOUS_SWEEP", "TYPES", "sweep_values"]

S, V = "scalar", "vector"

#: name -> (type, meaning): what a proof adds to a run.
PROOF_QUANTITIES: dict[str, tuple[str, str]] = {
    "gamma": (S, "margin of the certified separator: min_i y_i (w_opt.x_i + b_opt)"),
    "w_opt": (V, "the certified separator, exactly unit norm"),
    "b_opt": (S, "its bias (0 for variants without one)"),
    "w_hat_opt": (V, "(w_opt, b_opt/R)"),
    "v_opt": (V, "the separator unnormalised: w_opt = v_opt/|v_opt| (integer when the search chose it)"),
    "c_opt": (S, "its bias unnormalised: b_opt = c_opt/|v_opt|"),
    "m_opt": (S, "its unnormalised margin min_i y_i (v_opt.x_i + c_opt), so gamma = m_opt/|v_opt|"),
    "gamma_lo": (S, "certified lower bound on the maximum margin of the dataset (any claim may use it soundly as a margin)"),
    "gamma_hi": (S, "certified upper bound on the maximum margin (from a dual point: no separator has a larger margin)"),
    "separable": (S, "1 if the dataset has a separability certificate, 0 if a non-separability one"),
}

#: name -> (type, meaning): what a replay counts over a whole run, per point.  Not reserved: a
#: declared variant may keep its own ``alpha`` (its claims then read that one).
POINT_QUANTITIES: dict[str, tuple[str, str]] = {
    "alpha": (S, "updates made on the point so far (the dual form's alpha_i), in a run, inside min_i ... any_i"),
}

#: name -> (type, meaning): where a visit or update stands in its sweep (the epoch: one pass over
#: the points in the cyclic and random orders; one scan for the first mistake in the first and
#: max-violation orders).  Defined at a visit or update, not under prev() (a sweep is no state).
SWEEP_QUANTITIES: dict[str, tuple[str, str]] = {
    "sweep": (S, "the current sweep (epoch), 1-based"),
    "sweep_visits": (S, "visits made so far in the current sweep, this one included"),
    "sweep_mistakes": (S, "mistakes (updates) made so far in the current sweep, this visit's included"),
}

#: name -> (type, meaning): the sweep before the current one, read at a visit or update of a
#: later sweep (a claim does not speak of the first sweep's steps, as prev() before the first
#: update).  Not a quantity the search's enumeration keeps: its verdict rests on the corpus.
PREVIOUS_SWEEP: dict[str, tuple[str, str]] = {
    "last_sweep_mistakes": (S, "mistakes (updates) made in the previous sweep (epoch), all of them"),
}

#: Every name a claim may use: name -> (type, meaning).
QUANTITIES: dict[str, tuple[str, str]] = {**RUN_QUANTITIES, **PROOF_QUANTITIES, **POINT_QUANTITIES,
                                          **SWEEP_QUANTITIES, **PREVIOUS_SWEEP}

#: name -> type, the table compile_expr checks claims against.
TYPES: dict[str, str] = {k: v[0] for k, v in QUANTITIES.items()}

assert set(PROOF_QUANTITIES) == RESERVED_NAMES, "the names perceptron reserves are the proof's"


def sweep_values(t: int, sweep: tuple) -> dict:
    """The sweep quantities at visit t, whose ``sweep`` is (its number, the visits made before
    it, the mistakes made in it up to and including visit t, the mistakes of the sweep before
    it or -1 in the first)."""
    from fractions import Fraction

    epoch, t0, m, last = sweep
    out = {"sweep": Fraction(epoch), "sweep_visits": Fraction(t - t0), "sweep_mistakes": Fraction(m)}
    if last >= 0:
        out["last_sweep_mistakes"] = Fraction(last)
    return out
