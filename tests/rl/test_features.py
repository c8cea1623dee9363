"""Tests of dpaudit.rl.features."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument, InvalidType
from dpaudit.rl.features import FourierBasis, aggregated_features, tabular_features


def test_tabular_and_aggregated() -> None:
    assert np.array_equal(tabular_features(3), np.eye(3))
    phi = aggregated_features(5, 2)
    assert phi.shape == (5, 3)
    assert phi.argmax(axis=1).tolist() == [0, 0, 1, 1, 2] and (phi.sum(axis=1) == 1).all()
    assert np.array_equal(aggregated_features(4, 1), np.eye(4))
    assert aggregated_features(40).shape == (40, 20)


@pytest.mark.parametrize("call", [lambda: tabular_features(0), lambda: aggregated_features(4, 0)])
def test_invalid_sizes(call) -> None:
    with pytest.raises(InvalidArgument):
        call()


def test_fourier_basis_values() -> None:
    basis = FourierBasis(5, [-1.2, -0.07], [0.5, 0.07])
    assert basis.n_features == 36
    features = basis(np.array([[-1.2, -0.07], [0.5, 0.07], [-0.35, 0.0]]))
    assert features.shape == (3, 36)
    assert np.allclose(features[0], 1.0)
    assert np.allclose(features[1], np.cos(np.pi * basis.coefficients.sum(axis=1)))
    c = basis.coefficients
    assert np.allclose(features[2], np.cos(np.pi * (c[:, 0] * 0.5 + c[:, 1] * 0.5)))
    assert np.allclose(basis([2.0, 1.0]), basis([0.5, 0.07]))
    assert FourierBasis(0, [0.0], [1.0])([0.3]).tolist() == [1.0]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((-1, [0.0], [1.0]), InvalidArgument),
        ((2, [0.0], [0.0]), InvalidArgument),
        ((2, [0.0, 0.0], [1.0]), InvalidArgument),
        ((2, [math.nan], [1.0]), InvalidArgument),
        ((2, [], []), InvalidArgument),
        ((2.0, [0.0], [1.0]), InvalidType),
    ],
)
def test_invalid_fourier(args: tuple, error: type) -> None:
    with pytest.raises(error):
        FourierBasis(*args)


def test_fourier_rejects_bad_observations() -> None:
    basis = FourierBasis(1, [0.0, 0.0], [1.0, 1.0])
    with pytest.raises(InvalidArgument, match="last axis"):
        basis([0.5])
    with pytest.raises(InvalidArgument, match="nan"):
        basis([0.5, math.nan])
