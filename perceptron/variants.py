"""The algorithms of the five notes, as parameters of one run loop.

Every variant predicts with a score s (w.x, w.x + b, or a kernel sum), decides a mistake by
comparing ``sign(s)`` with the label, where ``sign(0)`` is a per-variant rule, and updates.

===========  =====  ==========================================================  ================
variant      note   mistake iff                                                 update
===========  =====  ==========================================================  ================
rosenblatt   000    y w.x <= 0                                                  w += eta y x
novikoff     001    y (w.x + b) <= 0                                            w += eta y x, b += eta y R^2
sign         002    sign(w.x) != y, sign(0) = param (0, +1, -1)                 eta y x, or 1/2 eta (y - out) x
slides       003    (w.x >= 0 and y = -1) or (w.x < 0 and y = +1)               w += eta y x
pocket       003    as slides; keeps the w with the longest run of correct      w += eta y x
                    classifications (optionally with Gallant's ratchet)
kernel       003    y sum_j a_j y_j k(x_j, x) <= 0                              a_i += 1
unit         004    y != sign(w.x) on unit-norm inputs, sign(0) = param         w += eta y x
sklearn      --     y (w.x + b) <= 0                                            w += eta y x, b += eta y
===========  =====  ==========================================================  ================

"y w.x <= 0" is "out != y" with ``sign(0) = 0`` (a score of 0 is a mistake for either label),
so one rule, ``out = sign(s)`` with ``sign(0) = tie``, covers all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["VARIANTS", "Variant", "ORDERS", "BIAS_R2", "BIAS_ONE", "DEFAULT_VARIANT"]

#: A variant's own bias rule: b += eta y R^2 (001's Novikoff) or b += eta y (scikit-learn's).
BIAS_R2, BIAS_ONE = "R2", "one"


@dataclass(frozen=True)
class Variant:
    """A built-in algorithm and every fact about it the rest of the package asks (a declared
    variant, perceptron.declared.Declaration, answers the same questions)."""

    name: str
    note: str  #: source note file and section
    bias: str | None  #: None, BIAS_R2 (b += eta y R^2) or BIAS_ONE (b += eta y)
    tie: int | None  #: fixed value of sign(0); None means the run's --sign0 parameter
    dual: bool = False
    unit: bool = False
    pocket: bool = False
    half_form: bool = False  #: whether the 1/2 eta (y - out) x form may be chosen
    eta_max: int | None = None  #: the note's own bound on eta (003: "eta in (0, 1]"), else any eta > 0
    patience: bool = False  #: whether a run may stop once w is unchanged for --patience visits
    order: str | None = None  #: the one visit order the algorithm has (scikit-learn's: data order)
    defines: tuple = ()  #: quantities only this variant's runs define
    declared = False

    @property
    def eta_text(self) -> str | None:
        """The variant's own range of eta, as a verdict says it, when its note bounds it."""
        return None if self.eta_max is None else f"(0, {self.eta_max}]"

    @property
    def scales(self) -> bool:
        """Whether its run from w0 = 0, b0 = 0 with rate eta is eta times its run with eta = 1, with
        the same mistakes: each update adds eta times a term of the data and of sign(score) (which a
        positive scale keeps), and the pocket keeps weights the run held; not the dual form, whose
        alpha counts updates (verify.searching.scaling)."""
        return not self.dual

    @property
    def flips(self) -> bool:
        """Whether its run on the data with every label negated, from -w0 and -b0 and with sign(0)
        negated, is its run negated (w, b, the scores and the outputs change sign; the same mistakes
        on the same points): each update adds eta y times a term of the data, and a mistake is
        sign(score) != y.  Not where sign(0) is fixed at +1 (003's slides and pocket: a zero score
        is correct for +1 only, and no run has sign(0) = -1 to pair it with)
        (verify.searching.orbits.flip_symmetric)."""
        return self.tie in (None, 0)

    def bias_scale(self, r2, one):
        """What eta y multiplies in the variant's own bias update: r2() under b += eta y R^2, one
        under b += eta y, None when it has none (each caller gives both in its own arithmetic;
        r2 is a function, called only when needed, since R^2 costs a pass over the data)."""
        return r2() if self.bias == BIAS_R2 else one if self.bias == BIAS_ONE else None

    def profiles(self) -> list[dict]:
        """The settings of a run a claim may fix (sign(0), the update form): one run of each
        covers them."""
        ties = [{"sign0": s0} for s0 in (0, 1)] if self.tie is None else [{}]
        return [{**t, "form": f} for t in ties for f in ("yx", "half")] if self.half_form else ties


_POCKET_ENDS = ("w_pocket", "pocket_errors", "min_visited_errors")

VARIANTS: dict[str, Variant] = {v.name: v for v in [
    Variant("rosenblatt", "000_498759e4a63d39ab.txt, section 2 (Algorithm)", None, 0),
    Variant("novikoff", "001_4bd9d34a28090ba4.txt, Perceptron Algorithm (Primal Form)", BIAS_R2, 0),
    Variant("sign", "002_a62594a0d59ae7dd.txt, Learning Algorithm", None, None, half_form=True),
    Variant("slides", "003_42f814f55e0b3de4.txt, Perceptron training algorithm", None, 1, eta_max=1, patience=True),
    Variant("pocket", "003_42f814f55e0b3de4.txt, Pocket algorithm", None, 1, pocket=True, eta_max=1, patience=True,
            defines=_POCKET_ENDS),
    Variant("kernel", "003_42f814f55e0b3de4.txt, Kernelized perceptron", None, 0, dual=True,
            defines=("kernel_degree", "kernel_offset")),
    Variant("unit", "004_aaffe0f0b005f89e.txt, 7.3 Perceptron Algorithm", None, None, unit=True),
    Variant("sklearn", "scikit-learn Perceptron(shuffle=False, alpha=0, tol=None)", BIAS_ONE, 0, order="cyclic"),
]}

#: The algorithm a run or a search is of when none is named (000's, the first note's).
DEFAULT_VARIANT = "rosenblatt"

#: Which misclassified point is taken next.
ORDERS = ("first", "cyclic", "random:SEED", "max-violation")
