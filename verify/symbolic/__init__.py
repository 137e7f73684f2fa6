"""Symbolic checks of proof steps, for all dimensions (verify.symbolic.steps), under hard
limits."""
