"""Candidates with a planted bug, for the checker contract suite (tests/checks/test_checker_contract.py)."""


def understated_accountant(point, *, sampling, relation, interval, rng):
    """States epsilon = 0.5 at every point: below the true epsilon of the spec's first point (about 1.3)."""
    return 0.5
