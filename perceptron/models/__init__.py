"""The learner's models, one per kind, behind one small protocol that the run loop
(perceptron.run) drives: ``scores(idx, lo)``, ``all_scores()``, ``mistakes(s, ys)``,
``update(i, y, out, s_i, t)``, ``weights()``, ``final()``.

* primal: the built-in variants' weights (perceptron.models.primal)
* dual: one alpha per point, through a kernel (perceptron.models.dual)
* declared: a variant declared as data (perceptron.models.declared)
"""
