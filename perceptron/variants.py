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

__all__ = ["VARIANTS", "Variant", "ORDERS"]


@dataclass(frozen=True)
class Variant:
    name: str
    note: str  #: source note file and section
    bias: str | None  #: None, "R2" (b += eta y R^2) or "one" (b += eta y)
    tie: int | None  #: fixed value of sign(0); None means the run's --sign0 parameter
    dual: bool = False
    unit: bool = False
    pocket: bool = False
    half_form: bool = False  #: whether the 1/2 eta (y - out) x form may be chosen


VARIANTS: dict[str, Variant] = {v.name: v for v in [
    Variant("rosenblatt", "000_498759e4a63d39ab.txt, section 2 (Algorithm)", None, 0),
    Variant("novikoff", "001_4bd9d34a28090ba4.txt, Perceptron Algorithm (Primal Form)", "R2", 0),
    Variant("sign", "002_a62594a0d59ae7dd.txt, Learning Algorithm", None, None, half_form=True),
    Variant("slides", "003_42f814f55e0b3de4.txt, Perceptron training algorithm", None, 1),
    Variant("pocket", "003_42f814f55e0b3de4.txt, Pocket algorithm", None, 1, pocket=True),
    Variant("kernel", "003_42f814f55e0b3de4.txt, Kernelized perceptron", None, 0, dual=True),
    Variant("unit", "004_aaffe0f0b005f89e.txt, 7.3 Perceptron Algorithm", None, None, unit=True),
    Variant("sklearn", "scikit-learn Perceptron(shuffle=False, alpha=0, tol=None)", "one", 0),
]}

#: Which misclassified point is taken next.
ORDERS = ("first", "cyclic", "random:SEED", "max-violation")
