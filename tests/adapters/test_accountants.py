"""dpaudit.adapters.dp_accounting, .prv_accountant and .opacus: the libraries' accountants audited with
their own parameters (specs/examples/ecosystem/{dp_accounting,prv_accountant,opacus}_*.toml). Each test
is skipped without its library (dp-accounting, prv-accountant; Opacus installed with --no-deps)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.accountant import SubsampledGaussianAccountant
from tests.adapters.conftest import run_in_fresh_python

#: issue 36's point: Opacus's GDP accountant reports 1.618 where the true epsilon is 2.854519
ISSUE_POINT = {"records": 10, "noise_multiplier": 1.0, "steps": 10, "delta": 1e-5}


def _library(name: str) -> None:
    pytest.importorskip(name)


def _opacus() -> None:
    import importlib.util

    if importlib.util.find_spec("opacus") is None:
        pytest.skip("Opacus is not installed (pip install --no-deps 'opacus>=1.5')")


@pytest.mark.parametrize(
    ("library", "candidate", "documented", "misstated"),
    [
        ("dp_accounting", "dp_accounting:rdp", "dp_accounting_rdp", None),
        ("dp_accounting", "dp_accounting:rdp", "dp_accounting_rdp_curve", None),
        ("dp_accounting", "dp_accounting:pld", "dp_accounting_pld", "dp_accounting_pld_misstated"),
        ("prv_accountant", "prv_accountant:prv", "prv_accountant_prv", "prv_accountant_lower_misstated"),
        ("opacus", "opacus:rdp", "opacus_rdp", None),
        ("opacus", "opacus:rdp", "opacus_rdp_curve", None),
        ("opacus", "opacus:prv", "opacus_prv", "opacus_prv_misstated"),
    ],
)
@pytest.mark.slow  # a whole audit end to end: the main CI job runs it, not the floors one
def test_documented_configurations_hold_and_misstated_ones_are_violated(
    ecosystem_audit, library, candidate, documented, misstated
):
    if library == "opacus":
        _opacus()
    else:
        _library(library)
    verdict, summaries = ecosystem_audit(f"dpaudit.adapters.{candidate}", documented)
    assert verdict in {"verified", "consistent"}, summaries
    if misstated is not None:
        verdict, summaries = ecosystem_audit(f"dpaudit.adapters.{candidate}", misstated)
        assert verdict == "violated", summaries


def test_opacus_gdp_understates_epsilon_against_the_certified_interval(ecosystem_audit):
    """The known finding of issue 36, reproduced without torch: at every point of the spec Opacus's GDP
    accountant states an epsilon below dpaudit's certified lower end of the true one."""
    _opacus()
    from dpaudit.adapters import opacus

    stated = opacus.gdp(ISSUE_POINT, rng=np.random.default_rng(0))
    certified = SubsampledGaussianAccountant(relation="add_remove_one").certified_epsilon(ISSUE_POINT)
    assert 1.6177 < stated < 1.6178
    assert 2.85451 < float(certified.lower) <= float(certified.upper) < 2.85453
    verdict, summaries = ecosystem_audit("dpaudit.adapters.opacus:gdp", "opacus_gdp")
    assert verdict == "violated" and "2 of 2 points understate epsilon" in summaries["certified-epsilon"], summaries


def test_opacus_accountants_load_without_torch_and_leave_no_placeholder():
    _opacus()
    script = (
        "import sys, numpy as np\n"
        "from dpaudit.adapters import opacus\n"
        f"point = {ISSUE_POINT!r}\n"
        "values = [f(point, rng=np.random.default_rng(0)) for f in (opacus.rdp, opacus.prv, opacus.gdp)]\n"
        "assert 'torch' not in sys.modules and 'opacus' not in sys.modules, sorted(sys.modules)\n"
        "assert 'opacus.optimizers' not in sys.modules\n"
        "print(values)\n"
    )
    printed = run_in_fresh_python(script)
    rdp, prv, gdp = (float(value) for value in printed.strip().strip("[]").split(","))
    assert gdp < 2.8545 < prv < 2.87 < rdp < 3.45


def test_the_adapters_pass_the_libraries_own_parameters():
    _library("dp_accounting")
    import dp_accounting as library

    from dpaudit.adapters import dp_accounting

    rng = np.random.default_rng(0)
    coarse = dp_accounting.pld(ISSUE_POINT, rng=rng, value_discretization_interval=1e-2)
    fine = dp_accounting.pld(ISSUE_POINT, rng=rng, value_discretization_interval=1e-4)
    assert fine < coarse  # a pessimistic PLD loosens with its grid
    assert dp_accounting.rdp(ISSUE_POINT, rng=rng, orders=[2.0]) > dp_accounting.rdp(ISSUE_POINT, rng=rng)
    step = library.PoissonSampledDpEvent(0.1, library.GaussianDpEvent(1.0))  # ISSUE_POINT's step, q = 1/10
    event = library.SelfComposedDpEvent(step, ISSUE_POINT["steps"])
    if library.pld.PLDAccountant(library.NeighboringRelation.REPLACE_ONE).supports(event):
        replace_one = dp_accounting.pld(ISSUE_POINT, rng=rng, neighboring_relation="REPLACE_ONE")
        assert replace_one > fine
    else:  # dp-accounting < 0.5 has no replace-one PLD of Poisson sampling: its own error, nothing approximated
        with pytest.raises(library.UnsupportedEventError, match="REPLACE_ONE"):
            dp_accounting.pld(ISSUE_POINT, rng=rng, neighboring_relation="REPLACE_ONE")
    with pytest.raises(InvalidArgument, match="REPLACE_ONE"):  # the members named, not a raw KeyError
        dp_accounting.pld(ISSUE_POINT, rng=rng, neighboring_relation="SWAP")


def test_an_accountant_without_an_rdp_curve_refuses_an_rdp_point():
    _library("dp_accounting")
    from dpaudit.adapters import dp_accounting
    from dpaudit.errors import InvalidArgument

    rdp_point = {"records": 100, "noise_multiplier": 1.0, "steps": 100, "order": 2.0}
    rng = np.random.default_rng(0)
    assert 0.0171813 < dp_accounting.rdp(rdp_point, rng=rng) < 0.0171814
    with pytest.raises(InvalidArgument, match="not the RDP at an order"):
        dp_accounting.pld(rdp_point, rng=rng)


def test_prv_accountant_returns_the_bound_it_is_asked_for():
    _library("prv_accountant")
    from dpaudit.adapters import prv_accountant
    from dpaudit.errors import InvalidArgument

    rng = np.random.default_rng(0)
    values = [
        prv_accountant.prv(ISSUE_POINT, rng=rng, eps_error=0.1, delta_error=1e-10, bound=bound)
        for bound in prv_accountant.BOUNDS
    ]
    assert values == sorted(values) and values[0] < 2.8545 < values[2]
    with pytest.raises(InvalidArgument, match="bound"):
        prv_accountant.prv(ISSUE_POINT, rng=rng, eps_error=0.1, delta_error=1e-10, bound="middle")
