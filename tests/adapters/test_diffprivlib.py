"""dpaudit.adapters.diffprivlib_mechanisms: diffprivlib's mechanisms audited with diffprivlib's own
parameters (specs/examples/ecosystem/diffprivlib_*.toml). Skipped without the diffprivlib extra."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from dpaudit.adapters import diffprivlib_mechanisms as adapters
from tests.adapters.conftest import SWEEP_BUDGET, SWEEP_ESCALATIONS, run_in_fresh_python

# Installed is enough: with scikit-learn 1.9, diffprivlib 0.6.6's package __init__ fails (its models) and the
# adapters load its mechanisms without it.
if importlib.util.find_spec("diffprivlib") is None:
    pytest.skip("diffprivlib is not installed (pip install 'dpaudit[diffprivlib]')", allow_module_level=True)


MODULE = "dpaudit.adapters.diffprivlib_mechanisms"


def test_the_noise_comes_from_rng_and_replays():
    def draws(seed):
        rng = np.random.default_rng(seed)
        return [adapters.laplace([0.0, 5.0], epsilon=1.0, sensitivity=1.0, rng=rng) for _ in range(3)]

    assert np.array_equal(draws(7), draws(7))
    assert not np.array_equal(draws(7), draws(8))


def test_the_adapter_is_diffprivlib_itself_on_the_same_stream():
    ours = adapters.laplace(2.0, epsilon=0.5, sensitivity=1.0, rng=np.random.default_rng(3))
    from diffprivlib.mechanisms import Laplace  # after the adapter loaded diffprivlib's mechanisms

    same_stream = np.random.RandomState(np.random.default_rng(3).bit_generator)
    mechanism = Laplace(epsilon=0.5, sensitivity=1.0, random_state=same_stream)
    assert ours == mechanism.randomise(2.0)


@pytest.mark.parametrize("name", adapters.__all__)
def test_every_adapter_is_vectorised_and_its_first_draw_is_the_per_call_release(name):
    function = getattr(adapters, name)
    value, params = {
        "binary": ("no", {"epsilon": 1.0, "value0": "no", "value1": "yes"}),
        "exponential": ([0.0, 1.0, 2.0], {"epsilon": 1.0, "sensitivity": 1.0}),
        "geometric": ([3.0], {"epsilon": 1.0}),
        "gaussian_discrete": ([3.0], {"epsilon": 1.0, "delta": 1e-5}),
        "laplace_truncated": ([3.0], {"epsilon": 1.0, "sensitivity": 1.0, "lower": 0.0, "upper": 10.0}),
        "laplace_bounded_domain": ([3.0], {"epsilon": 1.0, "sensitivity": 1.0, "lower": 0.0, "upper": 10.0}),
        "laplace_bounded_noise": ([3.0], {"epsilon": 1.0, "delta": 0.1, "sensitivity": 1.0}),
        "gaussian": ([3.0], {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0}),
        "gaussian_analytic": ([3.0], {"epsilon": 1.0, "delta": 1e-5, "sensitivity": 1.0}),
        "staircase": ([3.0], {"epsilon": 1.0, "sensitivity": 1.0}),
    }.get(name, ([3.0], {"epsilon": 1.0, "sensitivity": 1.0}))
    many = function.sample(value, 5, rng=np.random.default_rng(4), **params)
    assert len(many) == 5 and len(set(np.asarray(many).ravel().tolist())) > 1
    assert np.array_equal(many[0], function(value, rng=np.random.default_rng(4), **params))


def test_the_mechanisms_load_when_diffprivlib_package_init_fails():
    """diffprivlib 0.6.6's ``__init__`` imports its models, which fail on scikit-learn 1.9 (``DOUBLE`` removed):
    here the models cannot be imported, and the adapter still releases what diffprivlib's own Laplace does."""
    script = (
        "import sys, numpy as np\n"
        "sys.modules['diffprivlib.models'] = None\n"
        "try:\n"
        "    import diffprivlib\n"
        "except ImportError:\n"
        "    pass\n"
        "else:\n"
        "    raise AssertionError('diffprivlib imported without its models')\n"
        "from dpaudit.adapters import diffprivlib_mechanisms as adapters\n"
        "ours = adapters.laplace(2.0, epsilon=0.5, sensitivity=1.0, rng=np.random.default_rng(3))\n"
        "from diffprivlib.mechanisms import Laplace\n"
        "same_stream = np.random.RandomState(np.random.default_rng(3).bit_generator)\n"
        "assert ours == Laplace(epsilon=0.5, sensitivity=1.0, random_state=same_stream).randomise(2.0)\n"
        "assert adapters.geometric([3.0], epsilon=1.0, rng=np.random.default_rng(0)).dtype.kind == 'i'\n"
    )
    run_in_fresh_python(script)


def test_integer_mechanisms_take_whole_floats_and_refuse_fractions():
    rng = np.random.default_rng(0)
    released = adapters.geometric([3.0, 4.0], epsilon=1.0, rng=rng)
    assert released.dtype.kind == "i"
    with pytest.raises(TypeError, match="integer"):
        adapters.geometric([0.5], epsilon=1.0, rng=rng)


def test_the_categorical_mechanisms_release_their_labels():
    rng = np.random.default_rng(0)
    assert adapters.binary("no", epsilon=1.0, value0="no", value1="yes", rng=rng) in {"no", "yes"}
    assert adapters.exponential([0.0, 2.0], epsilon=1.0, sensitivity=1.0, rng=rng) in {0, 1}


def test_laplace_as_documented_is_not_violated(ecosystem_audit):
    verdict, summaries = ecosystem_audit(f"{MODULE}:laplace", "diffprivlib_laplace", SWEEP_BUDGET)
    assert verdict in ("verified", "consistent", "inconclusive"), summaries  # an error is no pass


def test_a_claim_below_the_library_epsilon_is_violated(ecosystem_audit):
    verdict, summaries = ecosystem_audit(f"{MODULE}:laplace", "diffprivlib_laplace_misstated", SWEEP_BUDGET)
    assert verdict == "violated", summaries


def test_a_gaussian_claim_below_its_exact_epsilon_is_violated(ecosystem_audit):
    verdict, summaries = ecosystem_audit(f"{MODULE}:gaussian", "diffprivlib_gaussian_misstated", SWEEP_BUDGET)
    assert verdict == "violated", summaries


@pytest.mark.slow
@pytest.mark.parametrize(
    ("function", "name"),
    [
        ("gaussian_analytic", "diffprivlib_gaussian_analytic"),
        ("geometric", "diffprivlib_geometric"),
        ("staircase", "diffprivlib_staircase"),
        ("laplace_bounded_domain", "diffprivlib_laplace_bounded_domain"),
        ("exponential", "diffprivlib_exponential"),
        ("binary", "diffprivlib_binary"),
        ("gaussian", "diffprivlib_gaussian"),
        ("gaussian_discrete", "diffprivlib_gaussian_discrete"),
        ("laplace_truncated", "diffprivlib_laplace_truncated"),
        ("laplace_bounded_noise", "diffprivlib_laplace_bounded_noise"),
    ],
)
def test_every_mechanism_as_documented_is_not_violated(ecosystem_audit, function, name):
    verdict, summaries = ecosystem_audit(f"{MODULE}:{function}", name, SWEEP_BUDGET, SWEEP_ESCALATIONS)
    assert verdict in ("verified", "consistent", "inconclusive"), summaries  # an error is no pass
