"""The one rule deriving a claim's verdict, and the CI policies."""

import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.kernel.verdicts import Verdict, combine_verdicts, fails_policy

V = Verdict


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        ([V.PROVEN], V.PROVEN),
        ([V.PROVEN, V.VERIFIED], V.VERIFIED),
        ([V.VERIFIED, V.CONSISTENT], V.CONSISTENT),
        ([V.CONSISTENT, V.INCONCLUSIVE], V.INCONCLUSIVE),
        ([V.INCONCLUSIVE, V.ERROR], V.ERROR),
        ([V.PROVEN, V.VIOLATED, V.ERROR], V.VIOLATED),
        ([V.VIOLATED, V.VERIFIED], V.VIOLATED),
    ],
)
def test_combine(verdicts, expected):
    assert combine_verdicts(verdicts) is expected


def test_combine_needs_verdicts():
    with pytest.raises(InvalidArgument):
        combine_verdicts([])


@pytest.mark.parametrize(
    ("verdict", "violated_policy", "inconclusive_policy"),
    [
        (V.PROVEN, False, False),
        (V.VERIFIED, False, False),
        (V.CONSISTENT, False, False),
        (V.INCONCLUSIVE, False, True),
        (V.ERROR, True, True),
        (V.VIOLATED, True, True),
    ],
)
def test_policies(verdict, violated_policy, inconclusive_policy):
    assert fails_policy(verdict, "violated") is violated_policy
    assert fails_policy(verdict, "inconclusive") is inconclusive_policy


def test_unknown_policy():
    with pytest.raises(InvalidArgument):
        fails_policy(V.PROVEN, "never")
