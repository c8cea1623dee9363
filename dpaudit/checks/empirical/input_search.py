"""Input search for the black-box checks: neighbouring pairs the spec did not name.

A leak often sits on inputs nobody wrote down: a branch that skips the noise above some
magnitude, rounding that jumps at half-integers, an empty bin released exactly, a dataset
size past a threshold. The mechanism's neighbourhood proposes pairs around the audited ones
(:attr:`~dpaudit.mechanisms.interface.Neighbourhood.explore`); each is checked to be a
neighbouring pair under the relation and to be accepted by the reference (so a candidate is
never judged outside the claim's domain); a searched input the candidate itself refuses (it
raises, e.g. on a dimension its model does not have) is left out and counted, never an error
of the audit. A searched input on which the candidate hits a limit (it hangs past its time, dies, runs
out of memory) stops the search there: the pairs found before it are audited, and the check that
searched says where it stopped: ``empirical_epsilon_lower_bound`` is then ``error`` unless it
certifies a violation on the pairs it did audit, and the parametric fits, which report no partial
search, are ``error`` (:func:`searched_pairs_whole`). Bad output on a searched input is an error of the
check, as on the spec's pairs: an output that cannot be audited may itself be the leak.

The pilot phase of the certification then ranks every pair on its own draws and only the most
promising go on: choosing pairs on data independent of the certification keeps the certified
bound sound (see :mod:`dpaudit.checks.empirical.certification`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from dpaudit.checks.empirical.sampling import NeighbourPair
from dpaudit.errors import CandidateLimitReached, CandidateRaised, DpAuditError
from dpaudit.kernel.checkers import CheckContext
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism

__all__ = ["SEARCH_MODES", "Search", "screened_pairs", "search_enabled", "searched_pairs", "searched_pairs_whole"]

SEARCH_MODES = ("auto", "on", "off")

#: The most pairs the search adds.
MAX_SEARCHED_PAIRS = 64

#: Pilot draws per side for a searched pair (the spec's pairs get the budget's full pilot):
#: enough to see an atom, a skipped noise branch or a scale off by a factor.
SEARCH_PILOT = 1000


#: Pilot draws per side of a screened pair (:attr:`~dpaudit.mechanisms.interface.Neighbourhood.screen`),
#: and its draws per side in each later phase: a leak that only datasets of hundreds of trajectories show
#: (a noise scale that shrinks as 1/m² where 1/m belongs) is seen on this pilot at many times the claim.
SCREEN_PILOT = 200
SCREENED_DRAWS = 2000

#: The most screened pairs the search adds.
MAX_SCREENED_PAIRS = 8


class Search(NamedTuple):
    """The pairs a search admitted, how many more the candidate refused (it raised on one side), and where the
    search stopped because the candidate hit a limit on a searched input (its label and the limit), if it did."""

    pairs: list[NeighbourPair]
    refused: int = 0
    stopped: str | None = None


def search_enabled(mode: str, context: CheckContext) -> bool:
    """Whether the ``search`` param ``mode`` (one of :data:`SEARCH_MODES`) searches: ``auto`` when a
    candidate is audited, ``on`` always."""
    return mode == "on" or (mode == "auto" and context.candidate is not None)


def searched_pairs(audited: list[NeighbourPair], context: CheckContext) -> Search:
    """Pairs around ``audited`` that are neighbours under the relation and inside the reference's domain."""
    kind = get_mechanism(context.claim.mechanism.name)
    explore = kind.neighbourhood.explore
    if explore is None:
        return Search([])
    plain = [(kind.input_domain.to_plain(pair.first), kind.input_domain.to_plain(pair.second)) for pair in audited]
    proposed = explore(plain, context.claim.mechanism.params, context.relation)
    sizes = {size for first, second in plain if (size := _sizes(first, second)) and size[0] != size[1]}
    return _admitted(
        proposed, {repr(pair) for pair in plain}, context, MAX_SEARCHED_PAIRS, SEARCH_PILOT, None, vouched=sizes
    )


def _sizes(first: Any, second: Any) -> tuple[int, int] | None:
    """The record counts of a pair of datasets (lists), else None."""
    return (len(first), len(second)) if isinstance(first, list) and isinstance(second, list) else None


def searched_pairs_whole(audited: list[NeighbourPair], context: CheckContext) -> list[NeighbourPair]:
    """The pairs of :func:`searched_pairs`, for a check that reports no partial search: when the candidate hit a
    limit on a searched input, :class:`~dpaudit.errors.CandidateLimitReached` naming it (the check is ``error``).

    Raises:
        CandidateLimitReached: when the search stopped at a searched input.
    """
    search = searched_pairs(audited, context)
    if search.stopped is not None:
        raise CandidateLimitReached(f"the input search stopped at {search.stopped}")
    return search.pairs


def screened_pairs(audited: list[NeighbourPair], context: CheckContext) -> Search:
    """The kind's screened pairs (:attr:`~dpaudit.mechanisms.interface.Neighbourhood.screen`) that are
    neighbours under the relation and inside the reference's domain, each with a pilot of
    :data:`SCREEN_PILOT` draws per side and at most :data:`SCREENED_DRAWS` in each later phase."""
    kind = get_mechanism(context.claim.mechanism.name)
    screen = kind.neighbourhood.screen
    if screen is None:
        return Search([])
    plain = [(kind.input_domain.to_plain(pair.first), kind.input_domain.to_plain(pair.second)) for pair in audited]
    proposed = screen(context.claim.mechanism.params, context.relation)
    return _admitted(
        proposed, {repr(pair) for pair in plain}, context, MAX_SCREENED_PAIRS, SCREEN_PILOT, SCREENED_DRAWS
    )


def _admitted(
    proposed: list[tuple[Any, Any, str]],
    seen: set[str],
    context: CheckContext,
    most: int,
    pilot_cap: int,
    draws_cap: int | None,
    vouched: set[tuple[int, int]] | None = None,
) -> Search:
    """Up to ``most`` of the ``proposed`` plain pairs not in ``seen``, inside the spec's input domain,
    neighbours under the relation, accepted by the reference and by the candidate (one call on each
    side, on a fixed seed), as :class:`NeighbourPair` s; and how many the candidate refused. A pair with
    the unequal record counts of one the spec gave (``vouched``) needs no reference's acceptance: the spec
    audits datasets of those sizes (an add/remove pair of a kind whose reference takes one size only)."""
    kind = get_mechanism(context.claim.mechanism.name)
    params = context.claim.mechanism.params
    reference = build_mechanism(context.claim.mechanism.name, params) if kind.has_reference else None
    found: list[NeighbourPair] = []
    refused = 0
    rng = np.random.default_rng(0)
    domain = context.claim.candidate_inputs
    accepted: dict[str, bool] = {}
    for first, second, label in proposed:
        if len(found) >= most or repr((first, second)) in seen:
            continue
        if not (domain.admits(first) and domain.admits(second)):
            # past the declared bounds: proposed at the domain's edge instead (an unclipped mechanism on
            # [0, 1] leaks at a record of ones); what still falls outside (integers) is never proposed
            first, second = domain.clamped(first), domain.clamped(second)
            if first == second or not (domain.admits(first) and domain.admits(second)):
                continue
            label += ", clamped to the declared input domain"
        seen.add(repr((first, second)))
        try:
            kind.check_neighbours(first, second, context.relation, params)
            pair = NeighbourPair(
                kind.input_domain.from_plain(first), kind.input_domain.from_plain(second), label, pilot_cap, draws_cap
            )
            for data in (pair.first, pair.second):
                if reference is not None and _sizes(first, second) not in (vouched or set()):
                    kind.release(reference, data, rng=rng)
        except (DpAuditError, ValueError, TypeError):
            continue  # outside the claim's domain: never judge a candidate there
        try:
            accepts = context.candidate is None or all(
                _candidate_accepts(context.candidate, plain, data, accepted)
                for plain, data in ((first, pair.first), (second, pair.second))
            )
        except CandidateLimitReached as exc:  # one wait is enough: the search stops, the pairs found so far stay
            return Search(found, refused, f"{label}: {str(exc).splitlines()[0]}")
        if not accepts:
            refused += 1
            continue
        found.append(pair)
    return Search(found, refused)


def _candidate_accepts(candidate: Any, plain: Any, data: Any, accepted: dict[str, bool]) -> bool:
    """Whether the candidate releases on ``data`` without raising (one call, seed 0; remembered by input).
    A limit (a timeout, a crash, memory) or bad output is not a refusal: the error propagates."""
    key = repr(plain)
    if key not in accepted:
        try:
            candidate.release(data, rng=np.random.default_rng(0), size=1)
            accepted[key] = True
        except (CandidateRaised, ValueError, TypeError):  # the candidate's own raise, in a worker or in process
            accepted[key] = False
    return accepted[key]
