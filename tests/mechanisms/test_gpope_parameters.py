"""gpope takes what a user's GPOPE has: (epsilon, delta) calibrated by the paper's eq. (5.1), and m = records."""

from __future__ import annotations

import math

import pytest

from dpaudit.audit.spec import builtin_spec_dir, load_spec
from dpaudit.cli import main
from dpaudit.errors import InvalidArgument, InvalidType, SpecError
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.gpope import GPOPE, paper_noise_multiplier
from dpaudit.privacy.relations import add_remove_one, replace_one

EXAMPLE = builtin_spec_dir() / "examples" / "gpope_candidate.toml"
KIND = get_mechanism("gpope")


def _table(rewards: list[float]) -> dict:
    m = len(rewards)
    return {
        "phi": [[1.0]] * m,
        "phi_next": [[0.0]] * m,
        "rewards": rewards,
        "rho": [1.0] * m,
        "offsets": list(range(m + 1)),
        "gamma": 0.9,
    }


def test_epsilon_and_delta_give_the_papers_noise_multiplier():
    reference = GPOPE(epsilon=0.1, delta=1e-5, records=1000, iterations=20000)
    expected = 2 * math.sqrt(20000 * math.log(1e5)) / (1000 * 0.1)  # eq. (5.1) with c2 = 2, (B.32)
    assert reference.sigma == pytest.approx(expected) == paper_noise_multiplier(0.1, 1e-5, 1000, 20000)
    doubled = GPOPE(epsilon=0.1, delta=1e-5, records=1000, iterations=20000, calibration="paper_b26")
    assert doubled.sigma == pytest.approx(2 * expected)  # c2 = 4, from (B.26)
    assert reference.per_step_view()["sampling_probability"] == 1e-3
    assert reference.per_step_view()["noise_multiplier"] == reference.sigma


def test_the_existing_parameters_keep_working():
    assert GPOPE().sigma == 1.0
    assert GPOPE(noise_multiplier=0.0).sigma == 0.0
    assert GPOPE(clip_norm=0.5, noise_multiplier=2.0).per_step_view(100)["noise_std"] == 1.0


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"epsilon": 0.1, "records": 10}, "needs both; give delta too"),
        ({"delta": 1e-5, "records": 10}, "needs both; give epsilon too"),
        ({"epsilon": 0.1, "delta": 1e-5}, "without records"),
        ({"epsilon": 0.1, "delta": 1e-5, "records": 10, "noise_multiplier": 1.0}, "give either noise_multiplier"),
        ({"epsilon": 0.0, "delta": 1e-5, "records": 10}, "epsilon=0.0"),
        ({"epsilon": 0.1, "delta": 1.0, "records": 10}, "delta=1.0"),
        ({"records": 0}, "records=0"),
        ({"calibration": "abadi"}, "calibration='abadi'"),
    ],
)
def test_bad_calibration_parameters(kwargs, fragment):
    with pytest.raises(InvalidArgument, match=fragment.replace("(", r"\(")):
        GPOPE(**kwargs)


def test_records_must_be_an_integer():
    with pytest.raises(InvalidType, match=r"records=2\.5: expected an integer"):
        GPOPE(records=2.5)


def test_a_spec_with_epsilon_and_delta_builds_the_calibrated_reference(tmp_path):
    text = EXAMPLE.read_text().replace(
        "noise_multiplier = 2.0, iterations = 2,", "epsilon = 4.0, delta = 1e-3, iterations = 2,"
    )
    path = tmp_path / "spec.toml"
    path.write_text(text)
    claim = load_spec(path)
    reference = build_mechanism("gpope", claim.mechanism.params)
    assert reference.sigma == paper_noise_multiplier(4.0, 1e-3, 2, 2)
    assert (reference.epsilon, reference.delta, reference.records) == (4.0, 1e-3, 2)


def test_records_bounds_the_datasets_the_claim_is_about():
    two, three = _table([0.0, 1.0]), _table([0.0, 1.0, 2.0])
    params = {"records": 2}
    assert KIND.check_neighbours(two, _table([0.0, -1.0]), replace_one(), params) == 1.0
    assert KIND.check_neighbours(two, _table([0.0]), add_remove_one(), params) == 1.0
    with pytest.raises(InvalidArgument, match=r"3 and 3 trajectories, records=2: under replace_one"):
        KIND.check_neighbours(three, _table([0.0, 1.0, -2.0]), replace_one(), params)
    with pytest.raises(InvalidArgument, match=r"3 and 2 trajectories, records=2: under add_remove_one"):
        KIND.check_neighbours(three, two, add_remove_one(), params)
    reference = build_mechanism("gpope", {"records": 2, "iterations": 2})
    assert KIND.release(reference, two, rng=0).shape == (1,)
    with pytest.raises(InvalidArgument, match="3 trajectories, records=2"):
        KIND.release(reference, three, rng=0)


def test_a_pair_of_another_size_stops_the_spec_with_exit_2(tmp_path, caplog):
    text = EXAMPLE.read_text()
    three = "phi = [[1.0], [1.0], [1.0]], phi_next = [[0.0], [0.0], [0.0]]"
    text = text.replace("phi = [[1.0], [1.0]], phi_next = [[0.0], [0.0]]", three)
    text = text.replace("rho = [1.0, 1.0], offsets = [0, 1, 2]", "rho = [1.0, 1.0, 1.0], offsets = [0, 1, 2, 3]")
    text = text.replace("rewards = [0.0, 1000.0]", "rewards = [0.0, 1000.0, 0.0]")
    text = text.replace("rewards = [0.0, -1000.0]", "rewards = [0.0, -1000.0, 0.0]")
    text = text.replace("rewards = [0.0, 0.0]", "rewards = [0.0, 0.0, 0.0]")
    path = tmp_path / "spec.toml"
    path.write_text(text)
    with pytest.raises(
        SpecError, match=r"pairs\[0\]': pair \(trajectory 2: reward 1000 vs -1000\): .*records=2: under replace_one"
    ):
        load_spec(path)
    assert main(["audit", str(path), "--quiet", "--out", str(tmp_path / "out")]) == 2
    assert "records=2" in caplog.text
    path.write_text(text.replace(", records = 2 }", ", records = 3 }"))
    assert load_spec(path).mechanism.params["records"] == 3
