"""Neighbouring inputs made by the user's own functions, for the kinds without a reference.

A spec's ``[candidate]`` table may name a dataset generator (``rng -> dataset``, or a Hypothesis
strategy: its examples are drawn under a seed from the audit's), a neighbour
function (``dataset -> [dataset, ...]``) and a distance function (``(dataset, dataset) ->
float``; neighbours when at most 1), each ``module:function``
(:class:`~dpaudit.mechanisms.interface.CandidateInputs`). They are the user's code, so they run
in the candidate's isolated worker and what they return is read as JSON and validated like
any input. Before the checks run, :func:`user_pairs` makes the pairs of every relation of the
claim: each generated dataset (and the first input of each pair the spec gives) with its
neighbours — the neighbour function's (its first ``per_input``), or, for lists of records under
``replace_one`` and ``add_remove_one``, dpaudit's own, the first ``per_input`` of each relation
(under ``replace_one`` the first record replaced by each other record the generated inputs hold;
under ``add_remove_one`` the first record duplicated, the last removed, and each other record
added; the input's own records first, then the other inputs'; a record added covers its removal
too, as each pair is audited in both orders). Every pair, the spec's too, is checked to be
neighbouring: by the kind's own rule and by the user's distance function when there is one.
A pair that is not is a spec error (exit 2), never audited.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from dpaudit.audit.candidates.kinds import CandidateMechanism
from dpaudit.errors import CandidateError, CandidateLoadError, DpAuditError, SpecError
from dpaudit.kernel.claims import Claim
from dpaudit.mechanisms.interface import NEIGHBOUR_TOLERANCE
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, USER, Relation

log = logging.getLogger("dpaudit")

__all__ = ["USER_INPUTS_SPAWN_KEY", "check_user_pairs", "refuse_equal_inputs", "user_pairs"]

#: The spawn key under the audit's seed of the generator calls (never shared with a check's stream).
USER_INPUTS_SPAWN_KEY = 0x05E2


Pair = tuple[Any, Any, str]


def _call(
    mechanism: CandidateMechanism,
    ref: str,
    args: list[Any],
    entropy: int | None,
    role: str,
    draw: dict[str, int] | None = None,
) -> Any:
    try:
        return mechanism.call_input_function(ref, args, entropy, draw)
    except CandidateError as exc:
        raise CandidateLoadError(f"the {role} {ref} failed: {exc}") from None


def _generated(claim: Claim, mechanism: CandidateMechanism, seed: int) -> list[Any]:
    inputs = claim.candidate_inputs
    if inputs.datasets is None:
        return []
    datasets = []
    for index in range(inputs.count):
        sequence = np.random.SeedSequence(seed, spawn_key=(USER_INPUTS_SPAWN_KEY, index))
        entropy = int(sequence.generate_state(2, np.uint64)[0] >> np.uint64(1))
        shared = int(np.random.SeedSequence(seed, spawn_key=(USER_INPUTS_SPAWN_KEY,)).generate_state(1)[0])
        draw = {"seed": shared, "index": index, "count": inputs.count}
        plain = _call(mechanism, inputs.datasets, [], entropy, "dataset generator", draw)
        if not inputs.admits(plain):
            raise SpecError(f"the dataset generator {inputs.datasets} made an input outside [candidate] inputs")
        try:
            datasets.append(mechanism.kind.input_domain.from_plain(plain))
        except DpAuditError as exc:
            raise SpecError(
                f"the dataset generator {inputs.datasets} made an input dpaudit cannot read: {exc}"
            ) from None
    return datasets


def _other_records(dataset: list[Any], index: int, inputs: list[Any]) -> Iterator[tuple[Any, str]]:
    """Each record the generated inputs hold that differs from the first of ``dataset`` (input ``index``),
    once, with where it was found: the input's own records first, then those of the inputs after it (lazily:
    the caller keeps the first few)."""
    seen = [dataset[0]]
    for shift in range(len(inputs)):
        other = (index + shift) % len(inputs)
        for position, record in enumerate(inputs[other] if isinstance(inputs[other], list) else []):
            if record not in seen:
                seen.append(record)
                yield record, f"record {position} of dataset {other}"


def _own_neighbours(index: int, inputs: list[Any], relation: Relation) -> Iterator[tuple[Any, str]]:
    """dpaudit's neighbours of the list of records ``inputs[index]`` (the user gave no neighbour function),
    lazily."""
    dataset = inputs[index]
    if not isinstance(dataset, list) or not dataset:
        return
    if relation.kind == REPLACE_ONE:
        for record, where in _other_records(dataset, index, inputs):
            yield [record, *dataset[1:]], f"record 0 replaced by {where}"
    elif relation.kind == ADD_REMOVE_ONE:
        yield [*dataset, dataset[0]], "record 0 duplicated"
        if len(dataset) > 1:
            yield dataset[:-1], "the last record removed"
        for record, where in _other_records(dataset, index, inputs):
            yield [*dataset, record], f"{where} added"


def user_pairs(claim: Claim, mechanism: CandidateMechanism, given: list[Pair], seed: int) -> dict[str, list[Pair]]:
    """The pairs the user's functions make, by relation name (see the module docstring).

    Args:
        claim: the claim (its relations, its ``candidate_inputs``).
        mechanism: the started candidate (its worker runs the user's functions).
        given: the spec's pairs (their first inputs get neighbours too).
        seed: the audit's seed (the generator's calls are seeded from it).

    Raises:
        CandidateLoadError: when a user function fails or returns what is not JSON data.
        SpecError: when the functions make inputs that cannot be read or pairs that are not neighbours,
            or a ``user`` relation has neither pairs nor a neighbour function.
    """
    inputs = claim.candidate_inputs
    datasets = _generated(claim, mechanism, seed)
    bases = [(data, f"dataset {index}") for index, data in enumerate(datasets)]
    if inputs.neighbours is not None:
        bases += [(first, f"the first input of '{label}'") for first, _, label in given]
    domain = mechanism.kind.input_domain
    made: list[Pair] = []
    for position, (data, name) in enumerate(bases):
        if inputs.neighbours is not None:
            returned = _call(mechanism, inputs.neighbours, [domain.to_plain(data)], None, "neighbour function")
            if not isinstance(returned, list):
                raise SpecError(
                    f"the neighbour function {inputs.neighbours} returned {type(returned).__name__}; "
                    "expected a list of neighbouring inputs"
                )
            neighbours = [(value, f"neighbour {index}") for index, value in enumerate(returned)][: inputs.per_input]
            if len(returned) > inputs.per_input:
                log.warning(
                    "the neighbour function %s gave %d neighbours of %s; the first %d are audited (the others only "
                    "if [candidate] neighbours_per_dataset, at most 64, is raised, or as pairs of the spec)",
                    inputs.neighbours,
                    len(returned),
                    name,
                    inputs.per_input,
                )
        else:  # each relation its own: the first relation's would otherwise crowd out the second's
            neighbours = [
                item
                for relation in claim.relations
                for item in itertools.islice(_own_neighbours(position, datasets, relation), inputs.per_input)
            ]
        for value, text in neighbours:
            if not inputs.admits(value):
                raise SpecError(f"{name}, {text}: a neighbour outside [candidate] inputs")
            try:
                made.append((data, domain.from_plain(value), f"{name}, {text}"))
            except DpAuditError as exc:
                raise SpecError(f"{inputs.neighbours}: {name}, {text}: {exc}") from None
    pairs = _by_relation(claim, mechanism, made)
    for relation in claim.relations:
        if not pairs[relation.name] and not given and relation.kind == USER:
            raise SpecError(
                f"relation {relation.name}: give pairs in the obligations' params or name a neighbour function "
                "(and a dataset generator) in the [candidate] table"
            )
        check_user_pairs(claim, mechanism, pairs[relation.name], relation)
    return pairs


def refuse_equal_inputs(pairs: list[Pair], domain: Any) -> None:
    """Refuse a pair whose two inputs are equal: no release can tell them apart, so it shows no leak, and a
    spec (or a neighbour function) that gives only such pairs would make any candidate pass.

    Raises:
        SpecError: naming the pair.
    """
    for first, second, label in pairs:
        if json.dumps(domain.to_plain(first), sort_keys=True) == json.dumps(domain.to_plain(second), sort_keys=True):
            raise SpecError(
                f"pair '{label}': its two inputs are equal, so it can show no leak; give neighbours that differ"
            )


def _by_relation(claim: Claim, mechanism: CandidateMechanism, made: list[Pair]) -> dict[str, list[Pair]]:
    """The made pairs that are neighbours under each relation of the claim (by the kind's rule; a
    ``user`` relation takes them all). A pair that is a neighbour under none, or of equal inputs, is a
    spec error."""
    refuse_equal_inputs(made, mechanism.kind.input_domain)
    pairs: dict[str, list[Pair]] = {relation.name: [] for relation in claim.relations}
    for first, second, label in made:
        reasons = []
        for relation in claim.relations:
            try:
                mechanism.kind.check_neighbours(first, second, relation, claim.mechanism.params)
            except DpAuditError as exc:
                reasons.append(str(exc))
                continue
            pairs[relation.name].append((first, second, label))
        if len(reasons) == len(claim.relations):
            raise SpecError(f"pair '{label}' is not neighbouring under any relation of the claim: {'; '.join(reasons)}")
    return pairs


def check_user_pairs(claim: Claim, mechanism: CandidateMechanism, pairs: list[Pair], relation: Relation) -> None:
    """Check that every pair is neighbouring under ``relation``: by the kind's rule, and by the user's
    distance function (at most 1, with the relative slack of decimal inputs) when the spec names one.

    Raises:
        SpecError: naming the pair and the distance.
        CandidateLoadError: when the distance function fails.
    """
    distance = claim.candidate_inputs.distance
    domain = mechanism.kind.input_domain
    for first, second, label in pairs:
        try:
            mechanism.kind.check_neighbours(first, second, relation, claim.mechanism.params)
        except DpAuditError as exc:
            raise SpecError(f"pair '{label}': {exc}") from None
        if distance is None:
            continue
        value = _call(mechanism, distance, [domain.to_plain(first), domain.to_plain(second)], None, "distance function")
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise SpecError(
                f"the distance function {distance} returned {value!r} for pair '{label}'; expected a number"
            )
        if not value <= 1.0 + NEIGHBOUR_TOLERANCE:
            raise SpecError(
                f"pair '{label}' is not neighbouring under {relation.name}: {distance} says distance {value:.6g} > 1"
            )
