"""White-box views are runtime-checkable Protocols: what counts as a view, how a Mechanism and a checker
declare theirs, and the deprecated string names (still mapped, with a DeprecationWarning)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

import pytest

import dpaudit.kernel.checkers as checkers
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue import BUILTIN_MECHANISMS
from dpaudit.mechanisms.gaussian import MECHANISM as GAUSSIAN
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.laplace import MECHANISM as LAPLACE
from dpaudit.mechanisms.views import (
    BUILTIN_VIEWS,
    DEPRECATED_VIEW_NAMES,
    AuditPairsView,
    GaussianView,
    PrivacyProfileView,
    as_view,
    is_view,
    view_names,
)


class _NotRuntimeCheckable(Protocol):
    def privacy_profile(self, epsilon: Any, *, digits: int = 60) -> Any: ...


@runtime_checkable
class _WithData(Protocol):
    bias: float


@runtime_checkable
class _PluginView(Protocol):
    """A plugin's own view."""

    def coin_bias(self) -> float: ...


@pytest.mark.parametrize("view", BUILTIN_VIEWS, ids=lambda view: view.__name__)
def test_every_builtin_view_is_a_runtime_checkable_protocol_of_one_method(view):
    assert is_view(view)
    methods = [name for name, value in vars(view).items() if callable(value) and not name.startswith("_")]
    assert len(methods) == 1
    assert DEPRECATED_VIEW_NAMES[methods[0]] is view


@pytest.mark.parametrize("value", [GaussianMechanism, _NotRuntimeCheckable, _WithData, "privacy", 3, None])
def test_what_is_not_a_view(value):
    assert not is_view(value)


def test_a_plugin_may_define_its_own_view():
    assert as_view(_PluginView, where="test") is _PluginView


@pytest.mark.parametrize("value", [GaussianMechanism, _NotRuntimeCheckable, _WithData, 3])
def test_a_non_view_is_refused_naming_who_declares_it(value):
    with pytest.raises(InvalidArgument, match=r"mechanism 'x': view=.* is not a view: expected a @runtime_checkable"):
        as_view(value, where="mechanism 'x'")


def test_an_unknown_view_name_is_refused():
    with pytest.raises(InvalidArgument, match=r"unknown view 'gaussian_views'; the views are Protocols: \['Audit"):
        as_view("gaussian_views", where="test")


def test_a_deprecated_view_name_maps_to_its_protocol_with_a_warning():
    with pytest.warns(DeprecationWarning, match="'privacy_profile' is deprecated; use the Protocol PrivacyProfileView"):
        assert as_view("privacy_profile", where="test") is PrivacyProfileView


@pytest.mark.parametrize("mechanism", BUILTIN_MECHANISMS, ids=lambda mechanism: mechanism.name)
def test_reference_classes_subclass_the_views_their_mechanism_declares(mechanism):
    """The declaration mypy checks (the reference's methods against the Protocol's signatures)."""
    reference = mechanism.factory if isinstance(mechanism.factory, type) else None
    if reference is not None:
        assert all(issubclass(reference, view) and view in reference.__mro__ for view in mechanism.views)


def test_a_mechanism_whose_reference_lacks_a_declared_view_is_refused_naming_it():
    missing = r"its reference GaussianMechanism does not implement the views \['PrivacyProfileView'\]"
    with pytest.raises(InvalidArgument, match=missing):
        replace(GAUSSIAN, views=frozenset({GaussianView, PrivacyProfileView}))


def test_a_mechanism_with_a_deprecated_view_name_gets_the_protocol():
    with pytest.warns(DeprecationWarning, match="mechanism 'laplace': the view name 'audit_pairs' is deprecated"):
        mechanism = replace(LAPLACE, views=frozenset({"audit_pairs", PrivacyProfileView}))
    assert mechanism.views == {AuditPairsView, PrivacyProfileView}
    assert mechanism.offers(AuditPairsView)


def test_a_mechanism_refuses_a_non_view():
    with pytest.raises(InvalidArgument, match=r"mechanism 'gaussian': view=.*GaussianMechanism.* is not a view"):
        replace(GAUSSIAN, views=frozenset({GaussianMechanism}))


@dataclass(frozen=True)
class _Coin:
    bias: float

    def coin_bias(self) -> float:
        return self.bias


def test_a_plugin_view_is_checked_structurally_on_a_reference_class():
    assert replace(GAUSSIAN, factory=_Coin, views=frozenset({_PluginView})).views == {_PluginView}


def test_register_checker_takes_views_and_maps_a_deprecated_name(monkeypatch):
    monkeypatch.setattr(checkers, "_REGISTRY", {})

    def check(obligation, context):
        raise AssertionError("not run")

    checkers.register_checker("typed", description="d", requires_views=(PrivacyProfileView,))(check)
    with pytest.warns(
        DeprecationWarning, match="checker 'named': the view name 'gaussian_view' is deprecated"
    ) as record:
        checkers.register_checker("named", description="d", requires_views=("gaussian_view",))(check)
    assert record[0].filename == __file__  # the warning points at the plugin's line
    assert checkers.registered_checker("typed").requires_views == {PrivacyProfileView}
    assert checkers.registered_checker("named").requires_views == {GaussianView}
    with pytest.raises(InvalidArgument, match=r"checker 'bad': view=.*GaussianMechanism.* is not a view"):
        checkers.register_checker("bad", description="d", requires_views=(GaussianMechanism,))(check)


def test_view_names_are_the_protocol_names_sorted():
    assert view_names({PrivacyProfileView, AuditPairsView}) == ["AuditPairsView", "PrivacyProfileView"]
