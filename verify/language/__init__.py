"""The claim language: expressions (parsed by perceptron.expression, evaluated exactly by
verify.language.expr), claim files (verify.language.claims), quantifiers and free names, the
scalar evaluator (verify.language.scalar: the oracle) and the column evaluator
(verify.language.columns: whole traces at once)."""
