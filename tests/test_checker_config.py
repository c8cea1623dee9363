"""A checker's params as one frozen config dataclass (dpaudit.kernel.checker_config): parsing, errors,
defaults, the docs table and the quick caps derived from the fields; register_checker with a config,
and with the hand-written validate and parameters a plugin may still pass."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import pytest

from dpaudit.checks.budget_limits import Ceiling, lowered_ceilings
from dpaudit.errors import CheckerError, InvalidArgument, InvalidType
from dpaudit.kernel.checker_config import (
    CheckerConfig,
    config_parameters,
    config_quick_caps,
    param,
    param_of,
    parse_config,
)
from dpaudit.kernel.checkers import register_checker, registered_checker
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.privacy.guarantees import ApproxDP
from dpaudit.privacy.relations import replace_one


@dataclass(frozen=True, kw_only=True)
class CoinConfig(CheckerConfig):
    """A config using every kind of field the parser knows."""

    side: str = param("the side counted", choices=("heads", "tails"))
    samples: int | Literal["auto"] = param("draws", 1000, low=10, high=Ceiling("samples"), quick_cap=100)
    confidence: float = param("of the bound", 0.95, low=0.5, high=1.0, high_open=True)
    bias: Fraction = param("the coin's bias", "1/2", low=0.0, high=1.0)
    scale: int | float = param("a factor, echoed as written", 1, low=0.0, low_open=True)
    seeds: tuple[int, ...] = param("seeds", (1, 2), low=0)
    modes: tuple[str, ...] = param("modes", ("fast",), choices=("fast", "slow"))
    fair: bool = param("whether the coin is fair", True)
    limit: int | None = param("an optional cap", None, low=1)
    table: Any = param("a nested table, checked elsewhere", None)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.fair and self.bias == Fraction(1, 2):
            raise InvalidArgument("fair=false: give the bias")


def test_absent_keys_take_the_defaults_normalised():
    config = parse_config(CoinConfig, {"side": "heads"})
    assert (config.samples, config.confidence, config.bias, config.scale) == (1000, 0.95, Fraction(1, 2), 1)
    assert (config.seeds, config.modes, config.fair, config.limit, config.table) == (
        (1, 2),
        ("fast",),
        True,
        None,
        None,
    )


def test_given_values_are_checked_and_normalised():
    config = parse_config(
        CoinConfig,
        {"side": "tails", "samples": "auto", "bias": "1/3", "scale": 2, "seeds": [3], "modes": "slow", "limit": 5},
    )
    assert (config.side, config.samples, config.bias, config.seeds, config.modes) == (
        "tails",
        "auto",
        Fraction(1, 3),
        (3,),
        ("slow",),
    )
    assert type(config.scale) is int and parse_config(CoinConfig, {"side": "heads", "scale": 2.5}).scale == 2.5
    assert parse_config(CoinConfig, {"side": "heads", "confidence": 0.99}).confidence == 0.99


def test_an_unknown_key_is_refused_naming_every_accepted_one():
    with pytest.raises(InvalidArgument) as refused:
        parse_config(CoinConfig, {"side": "heads", "colour": 1, "flavour": 2})
    assert str(refused.value) == (
        "unknown params ['colour', 'flavour']: expected some of side, samples, confidence, bias, scale, seeds, modes, "
        "fair, limit, table"
    )


def test_a_missing_required_key_is_named_with_its_meaning():
    with pytest.raises(InvalidArgument, match=r"missing params \['side'\]: required \(side: the side counted\)"):
        parse_config(CoinConfig, {})


@pytest.mark.parametrize(
    ("params", "error", "message"),
    [
        ({"side": "edge"}, InvalidArgument, "side='edge': expected one of 'heads', 'tails'"),
        ({"samples": 9}, InvalidArgument, r"samples=9: expected an integer in \[10, "),
        ({"samples": 1.0e3}, InvalidType, "samples=1000.0: expected an integer, got float, or one of 'auto'"),
        ({"samples": "many"}, InvalidType, "samples='many': expected an integer, got str, or one of 'auto'"),
        ({"confidence": 1.0}, InvalidArgument, "confidence=1.0: expected a real number >= 0.5 and < 1"),
        ({"confidence": float("nan")}, InvalidArgument, "confidence=nan"),
        ({"bias": "2/1"}, InvalidArgument, "bias=2.0: expected a real number >= 0 and <= 1"),
        ({"bias": "half"}, InvalidArgument, "bias='half': expected a rational such as '99/100'"),
        ({"scale": 0}, InvalidArgument, "scale=0"),
        ({"scale": True}, InvalidType, "scale=True: expected a real number, got bool"),
        ({"seeds": []}, InvalidArgument, r"seeds=\[\]: expected a non-empty list of int >= 0"),
        ({"seeds": 3}, InvalidArgument, "seeds=3: expected a non-empty list"),
        ({"seeds": [1, -1]}, InvalidArgument, r"seeds\[1\]=-1: expected an integer in \[0, inf\]"),
        ({"modes": ["fast", "warp"]}, InvalidArgument, r"modes\[1\]='warp': expected one of 'fast', 'slow'"),
        ({"fair": 1}, InvalidType, "fair=1: expected true or false"),
        ({"limit": 0}, InvalidArgument, "limit=0"),
        ({"fair": False}, InvalidArgument, "fair=false: give the bias"),
    ],
)
def test_bad_values_are_refused_echoing_name_and_value(params, error, message):
    with pytest.raises(error, match=message):
        parse_config(CoinConfig, {"side": "heads", **params})


def test_a_ceiling_bound_is_read_when_the_params_are_checked():
    assert parse_config(CoinConfig, {"side": "heads", "samples": 10**6}).samples == 10**6
    with lowered_ceilings({"samples": 1e5}), pytest.raises(InvalidArgument, match=r"samples=1000000: .*100000\]"):
        parse_config(CoinConfig, {"side": "heads", "samples": 10**6})


def test_the_docs_table_and_the_quick_caps_follow_from_the_fields():
    table = config_parameters(CoinConfig)
    assert list(table) == ["side", "samples", "confidence", "bias", "scale", "seeds", "modes", "fair", "limit", "table"]
    assert table["side"] == "heads | tails, required: the side counted"
    assert table["samples"] == "int in [10, the samples ceiling] or auto, default 1000: draws"
    assert table["confidence"] == "float in [0.5, 1), default 0.95: of the bound"
    assert table["bias"] == "rational in [0, 1], default 1/2: the coin's bias"
    assert table["scale"] == "number > 0, default 1: a factor, echoed as written"
    assert table["seeds"] == "list of int >= 0, default 1, 2: seeds"
    assert table["modes"] == "list of fast | slow, default fast: modes"
    assert table["fair"] == "bool, default true: whether the coin is fair"
    assert table["limit"] == "int >= 1, optional: an optional cap"
    assert table["table"] == "optional: a nested table, checked elsewhere"
    assert config_quick_caps(CoinConfig) == {"samples": 100}


@dataclass(frozen=True)
class _Base(CheckerConfig):
    digits: int = param("precision", 60, low=50, high=100)


@dataclass(frozen=True)
class _Derived(_Base):
    grid: int = param("grid points", 8, low=2)
    digits: int = param_of(_Base, "digits", default=70, quick_cap=50)


def test_a_subclass_lists_its_own_params_first_and_reuses_a_rule_with_param_of():
    assert list(config_parameters(_Derived)) == ["grid", "digits"]
    assert config_parameters(_Derived)["digits"] == "int in [50, 100], default 70: precision"
    assert parse_config(_Derived, {}).digits == 70
    with pytest.raises(InvalidArgument, match="digits=101"):
        parse_config(_Derived, {"digits": 101})
    assert config_quick_caps(_Derived) == {"digits": 50}


def test_a_field_declared_without_param_is_a_programming_error():
    @dataclass(frozen=True)
    class Undocumented(CheckerConfig):
        samples: int = 10

    with pytest.raises(CheckerError, match=r"Undocumented.samples: declare the field with param"):
        parse_config(Undocumented, {})


def _claim(epsilon: float = 1.0) -> Claim:
    return Claim(
        id="coin",
        title="a coin",
        mechanism=MechanismSpec("gaussian", {"sigma": 1.0, "sensitivity": 1.0}),
        guarantee=ApproxDP(epsilon, 1e-5),
        relations=(replace_one(),),
        source=Source("a paper", "Theorem 1"),
        obligations=(Obligation(id="draws", statement="the coin", checker="test_config_registered"),),
    )


@dataclass(frozen=True, kw_only=True)
class _ClaimAware(CheckerConfig):
    samples: int = param("draws", 100, low=1)

    def check_claim(self, claim: Claim) -> None:
        if claim.guarantee.epsilon > 2:
            raise InvalidArgument(f"claim {claim.id!r}: epsilon above 2")


def _noop(obligation: Any, context: Any) -> Any:
    raise AssertionError("not run")


def test_register_checker_derives_the_validator_docs_and_caps_from_the_config():
    seen = []
    register_checker(
        "test_config_registered",
        description="a checker declared by its config",
        config=_ClaimAware,
        validate=lambda params, claim: seen.append(dict(params)),
    )(_noop)
    entry = registered_checker("test_config_registered")
    assert entry.config is _ClaimAware and entry.parameters == {"samples": "int >= 1, default 100: draws"}
    assert entry.validate is not None
    entry.validate({"samples": 5}, _claim())
    assert seen == [{"samples": 5}]  # the checker's own validator runs after the config's checks
    with pytest.raises(InvalidArgument, match="unknown params"):
        entry.validate({"sample": 5}, _claim())
    with pytest.raises(InvalidArgument, match="epsilon above 2"):
        entry.validate({}, _claim(epsilon=3.0))
    assert seen == [{"samples": 5}]


def test_a_plugin_may_still_register_a_hand_written_validator_and_parameters():
    def validate(params: dict[str, Any], claim: Claim) -> None:
        if set(params) - {"samples"}:
            raise InvalidArgument("expected only samples")

    register_checker(
        "test_config_legacy",
        description="a checker with a hand-written validator",
        validate=validate,
        quick_caps={"samples": 10},
        parameters={"samples": "int: draws"},
    )(_noop)
    entry = registered_checker("test_config_legacy")
    assert entry.config is None and entry.validate is validate
    assert entry.parameters == {"samples": "int: draws"} and entry.quick_caps == {"samples": 10}
