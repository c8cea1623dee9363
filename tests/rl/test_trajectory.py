"""Tests of dpaudit.rl.trajectory."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.rl.trajectory import Trajectory, TrajectoryBatch


def test_trajectory_normalises_and_is_hashable() -> None:
    x = Trajectory([0, np.int64(1)], (0, 0), [np.float64(0.5), Fraction(1, 3)], next_state=np.int64(2))
    assert x.states == (0, 1) and type(x.rewards[0]) is float and x.next_state == 2
    assert len(x) == 2 and hash(x) == hash(Trajectory((0, 1), (0, 0), (0.5, Fraction(1, 3)), 2))
    assert not x.is_exact and Trajectory((0,), (0,), (Fraction(1, 2),)).is_exact


@pytest.mark.parametrize(
    ("args", "error", "pattern"),
    [
        (((), (), ()), InvalidArgument, "at least one"),
        (((0, 1), (0,), (0.0, 0.0)), InvalidArgument, "equal lengths"),
        (((0, -1), (0, 0), (0.0, 0.0)), InvalidArgument, r"states\[1\]=-1"),
        (((0, 1.0), (0, 0), (0.0, 0.0)), InvalidType, r"states\[1\]"),
        (((0,), (True,), (0.0,)), InvalidType, r"actions\[0\]"),
        (((0,), (0,), (math.nan,)), InvalidArgument, r"rewards\[0\]=nan"),
        (((0,), (0,), (math.inf,)), InvalidArgument, r"rewards\[0\]=inf"),
        (((0,), (0,), ("1",)), InvalidType, r"rewards\[0\]"),
    ],
)
def test_invalid_trajectories(args: tuple, error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        Trajectory(*args)


def test_batch_round_trip() -> None:
    data = (
        Trajectory((0, 1, 1), (0, 1, 0), (1.0, 2.0, 3.0), 2),
        Trajectory((2,), (1,), (5e-324,), None, True),
        Trajectory((1, 0), (0, 0), (0.0, -1.0), 0),
    )
    batch = TrajectoryBatch.from_trajectories(data, 3)
    assert batch.max_length == 3 and batch.lengths.tolist() == [3, 1, 2]
    assert batch.trajectory_index[batch.step(1)].tolist() == [0, 2]
    assert batch.to_dataset() == data
    with pytest.raises(InvalidArgument, match="contains state 2"):
        TrajectoryBatch.from_trajectories(data, 2)
    with pytest.raises(InvalidArgument, match="at least one"):
        TrajectoryBatch.from_trajectories((), 2)
