"""Candidates with a planted bug, for the checker contract suite (tests/checks/test_checker_contract.py)."""


def understated_accountant(point, *, sampling, relation, interval, rng):
    """States epsilon = 0.5 at every point: below the certified true epsilon 0.89512 of the contract case's point."""
    return 0.5
