"""The fuzz suite: named hostile inputs and Hypothesis mutations (see test_hostile.py)."""
