"""Random-number handling: normalisation, spawning, seed records."""

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.rng import (
    SeedRecord,
    normalize_rng,
    seed_sequence,
    spawn_generators,
    spawn_seed_sequences,
)


def test_normalize_rng_passes_generators_through():
    generator = np.random.default_rng(1)
    assert normalize_rng(generator) is generator


def test_same_seed_same_stream():
    assert normalize_rng(5).random() == normalize_rng(5).random()


@pytest.mark.parametrize(
    ("seed", "error"), [(-1, InvalidArgument), (1.5, InvalidType), (True, InvalidType), ("3", InvalidType)]
)
def test_bad_seeds(seed, error):
    with pytest.raises(error):
        normalize_rng(seed)


def test_random_state_is_rejected_with_advice():
    with pytest.raises(InvalidType, match="default_rng"):
        normalize_rng(np.random.RandomState(0))


def test_spawned_streams_are_reproducible_and_distinct():
    first = [g.random() for g in spawn_generators(7, 3)]
    second = [g.random() for g in spawn_generators(7, 3)]
    assert first == second
    assert len(set(first)) == 3


def test_seed_record_round_trip():
    child = spawn_seed_sequences(11, 2)[1]
    record = SeedRecord.of(child)
    assert record.to_json() == {"entropy": 11, "spawn_key": [1]}
    assert np.random.default_rng(record.sequence()).random() == np.random.default_rng(child).random()
    assert seed_sequence(record.sequence()) is not None
