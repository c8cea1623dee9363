"""A checker's params declared once, as one frozen dataclass: types, defaults, bounds, docs.

A checker states what an obligation's ``params`` table may hold as a :class:`CheckerConfig`
subclass whose fields are made by :func:`param`::

    @dataclass(frozen=True)
    class CoinConfig(CheckerConfig):
        samples: int = param("draws per side", 1000, low=10, high=10**6, quick_cap=100)
        confidence: float = param("of the bound", 0.95, low=0.5, high=1.0, high_open=True)

From those fields follow: :func:`parse_config` (an unknown key is refused naming every accepted
one, a missing required one is named, each value is checked against its type and bounds with the
helpers of :mod:`dpaudit._validation`, an absent key takes the field's default), the spec loader's
check and the ``--quick`` caps (``register_checker(config=...)``), and the table of
docs/checkers.md (:func:`config_parameters`).

The field types understood: ``bool``, ``int``, ``float``, ``str``, :class:`fractions.Fraction`
(a number or a string such as ``"1/32"``), ``Literal[...]``, ``tuple[T, ...]`` of those (a
non-empty TOML list; a lone string stands for a list of one), a union with ``Literal`` (e.g.
``int | Literal["auto"]``), ``int | float`` (a number kept as written: an int stays an int, for
checkers that report the value as the spec gives it), ``X | None`` (``None`` as the default means "absent"), and ``Any``
(passed through unchecked: a nested table a claim-dependent check reads, see
:meth:`CheckerConfig.check_claim`). Annotations are resolved at run time, so the names they use
must be imported outside ``if TYPE_CHECKING``. A config with a required field below a base's
defaulted ones is declared ``@dataclass(frozen=True, kw_only=True)`` (:func:`parse_config` passes
every param by name).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Union

from dpaudit._validation import check_choice, check_integer, check_rational, check_real
from dpaudit.errors import CheckerError, InvalidArgument, InvalidType

if TYPE_CHECKING:
    from dpaudit.kernel.claims import Claim

__all__ = [
    "CheckerConfig",
    "ParamRule",
    "check_fields",
    "config_parameters",
    "config_quick_caps",
    "param",
    "param_of",
    "parse_config",
]

#: A bound is a number, or a callable read each time a value is checked (a ceiling a spec may lower);
#: a callable bound's ``str`` names it in the docs.
Bound = float | Callable[[], float]

_RULE = "dpaudit.param"


@dataclass(frozen=True)
class ParamRule:
    """What one param may hold beyond its type, and what the docs say of it.

    Attributes:
        doc: its meaning, one phrase (docs/checkers.md).
        low, high: bounds of a number (of each element of a list); ``None``: unbounded.
        low_open, high_open: whether the bound itself is excluded.
        choices: the values a string (or each string of a list) may take.
        quick_cap: the cap ``--quick`` puts on it when the obligation has no ``quick`` table.
        default_text: how the docs state the default when the field's own default says less
            (e.g. ``None`` standing for "2 for a candidate, 0 otherwise").
    """

    doc: str
    low: float | None = None
    high: Bound | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[Any, ...] | None = None
    quick_cap: int | None = None
    default_text: str | None = None


def param(
    doc: str,
    default: Any = dataclasses.MISSING,
    *,
    low: float | None = None,
    high: Bound | None = None,
    low_open: bool = False,
    high_open: bool = False,
    choices: tuple[Any, ...] | None = None,
    quick_cap: int | None = None,
    default_text: str | None = None,
) -> Any:
    """A config field: its default (none: the param is required) and its :class:`ParamRule`."""
    rule = ParamRule(doc, low, high, low_open, high_open, choices, quick_cap, default_text)
    return dataclasses.field(default=default, metadata={_RULE: rule})


def param_of(owner: type, name: str, **changes: Any) -> Any:
    """A config field with the rule of field ``name`` of the dataclass ``owner`` (its doc, bounds),
    ``changes`` applied (``default``, ``quick_cap``, ...): a param declared once and read by two records."""
    source = next(item for item in dataclasses.fields(owner) if item.name == name)
    rule = dataclasses.replace(source.metadata[_RULE], **{k: v for k, v in changes.items() if k != "default"})
    default = changes.get("default", source.default)
    return dataclasses.field(default=default, metadata={_RULE: rule})


@dataclass(frozen=True)
class CheckerConfig:
    """The params of a checker: subclass it as a frozen dataclass whose fields are :func:`param`\\ s.

    Building one checks and normalises every field (:func:`check_fields`); a subclass adds
    cross-field checks in its own ``__post_init__`` (calling this one first) and checks that
    need the claim in :meth:`check_claim`.
    """

    def __post_init__(self) -> None:
        check_fields(self)

    def check_claim(self, claim: Claim) -> None:
        """Checks of these params that need the claim (its guarantee, its mechanism's inputs); none here.

        Raises:
            InvalidArgument: when the params do not fit the claim.
        """


C = TypeVar("C", bound=CheckerConfig)


def parse_config(config: type[C], params: Mapping[str, Any]) -> C:
    """The obligation's ``params`` as ``config``: every key known, every required one given, each
    value checked against its field's type and rule; absent keys take the defaults.

    Raises:
        InvalidArgument: naming an unknown key with every accepted one, a missing required key,
            or a value of the wrong type or out of bounds (echoing ``name=value``).
    """
    fields = _rules(config)
    unknown = sorted(set(params) - set(fields))
    if unknown:
        raise InvalidArgument(f"unknown params {unknown}: expected some of {', '.join(fields)}")
    required = [name for name, (item, _, _) in fields.items() if _required(item) and name not in params]
    if required:
        named = "; ".join(f"{name}: {fields[name][2].doc}" for name in required)
        raise InvalidArgument(f"missing params {required}: required ({named})")
    return config(**params)


def check_fields(record: Any) -> None:
    """Check every :func:`param` field of the dataclass instance ``record`` against its type and rule,
    and store the normalised value (an int as a float for a ``float`` field, a list as a tuple).

    Raises:
        InvalidArgument, InvalidType: echoing ``name=value`` and what was expected.
    """
    for name, (_, hint, rule) in _rules(type(record)).items():
        object.__setattr__(record, name, _checked(name, getattr(record, name), hint, rule))


def config_parameters(config: type) -> dict[str, str]:
    """Each param of ``config`` with its type, bounds, default and meaning, for docs/checkers.md."""
    table = {}
    for name, (item, hint, rule) in _rules(config).items():
        kind = _type_text(hint, rule)
        if rule.default_text is not None:
            default = f"default {rule.default_text}"
        elif _required(item):
            default = "required"
        elif item.default is None:
            default = "optional"
        else:
            default = f"default {_value_text(item.default)}"
        table[name] = f"{kind}{', ' if kind else ''}{default}: {rule.doc}"
    return table


def config_quick_caps(config: type) -> dict[str, int]:
    """The ``--quick`` caps the fields of ``config`` declare."""
    return {name: rule.quick_cap for name, (_, _, rule) in _rules(config).items() if rule.quick_cap is not None}


_Rules = dict[str, tuple[dataclasses.Field[Any], Any, ParamRule]]
_RULES: dict[type, _Rules] = {}


def _rules(config: type) -> _Rules:
    """:func:`_read_rules` of ``config``, read once per class."""
    if config not in _RULES:
        _RULES[config] = _read_rules(config)
    return _RULES[config]


def _read_rules(config: type) -> _Rules:
    """Each init field of the dataclass ``config``, the class's own first, then those of each base in
    method resolution order: the field, its resolved type and its rule.

    Raises:
        CheckerError: for a field declared without :func:`param` (no doc, no rule).
    """
    hints = typing.get_type_hints(config)
    fields = {item.name: item for item in dataclasses.fields(config) if item.init}
    declared = [name for klass in config.__mro__ for name in vars(klass).get("__annotations__", {})]
    rules = {}
    for name in dict.fromkeys(name for name in declared if name in fields):
        item = fields[name]
        rule = item.metadata.get(_RULE)
        if not isinstance(rule, ParamRule):
            raise CheckerError(f"{config.__name__}.{item.name}: declare the field with param(doc, default, ...)")
        rules[item.name] = (item, hints[item.name], rule)
    return rules


def _required(item: dataclasses.Field[Any]) -> bool:
    return item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING


def _checked(name: str, value: Any, hint: Any, rule: ParamRule) -> Any:
    """``value`` checked against the type ``hint`` and ``rule``, normalised."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return value
    if origin is Literal:
        return check_choice(name, value, args)
    if origin in (Union, types.UnionType):
        return _union(name, value, args, rule)
    if origin is tuple:
        return _sequence(name, value, args[0], rule)
    return _scalar(name, value, hint, rule)


def _union(name: str, value: Any, args: tuple[Any, ...], rule: ParamRule) -> Any:
    if value is None and type(None) in args:
        return None
    words = tuple(word for arg in args if typing.get_origin(arg) is Literal for word in typing.get_args(arg))
    if isinstance(value, str) and value in words:
        return value
    others = [arg for arg in args if arg is not type(None) and typing.get_origin(arg) is not Literal]
    if set(others) == {int, float}:
        checked = check_real(name, value, **_bounds(rule))
        return value if isinstance(value, int) else checked  # a number as written: an int stays an int
    (other,) = others
    try:
        return _checked(name, value, other, rule)
    except (InvalidArgument, InvalidType) as exc:
        if not words:
            raise
        raise type(exc)(f"{exc}, or one of {', '.join(repr(word) for word in words)}") from None


def _sequence(name: str, value: Any, element: Any, rule: ParamRule) -> tuple[Any, ...]:
    if isinstance(value, str) and (element is str or typing.get_origin(element) is Literal):
        value = (value,)
    if not isinstance(value, (list, tuple)) or not value:
        what = _type_text(element, rule) or f"values ({rule.doc})"
        raise InvalidArgument(f"{name}={value!r}: expected a non-empty list of {what}")
    return tuple(_checked(f"{name}[{index}]", item, element, rule) for index, item in enumerate(value))


def _bounds(rule: ParamRule) -> dict[str, Any]:
    """The rule's bounds as :func:`~dpaudit._validation.check_real` takes them (a callable bound read now)."""
    high = rule.high() if callable(rule.high) else rule.high
    return {"low": rule.low, "high": high, "low_open": rule.low_open, "high_open": rule.high_open}


def _scalar(name: str, value: Any, hint: Any, rule: ParamRule) -> Any:
    bounds = _bounds(rule)
    if hint is bool:
        if not isinstance(value, bool):
            raise InvalidType(f"{name}={value!r}: expected true or false")
        return value
    if hint is int:
        if rule.low_open or rule.high_open:
            raise CheckerError(f"{name}: an int param takes closed bounds")
        low, high = bounds["low"], bounds["high"]
        return check_integer(
            name, value, low=None if low is None else int(low), high=None if high is None else int(high)
        )
    if hint is float:
        return check_real(name, value, **bounds)
    if hint is Fraction:
        return check_rational(name, value, **bounds)
    if hint is str:
        if rule.choices is not None:
            return check_choice(name, value, rule.choices)
        if not isinstance(value, str):
            raise InvalidType(f"{name}={value!r}: expected a string, got {type(value).__name__}")
        return value
    raise CheckerError(f"{name}: params of type {hint!r} are not supported (see dpaudit.kernel.checker_config)")


def _type_text(hint: Any, rule: ParamRule) -> str:
    """The type of a param as the docs state it, with its bounds or choices."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return ""
    if origin is Literal or (hint is str and rule.choices is not None):
        return " | ".join(str(word) for word in (args if origin is Literal else rule.choices or ()))
    if origin in (Union, types.UnionType):
        options = [arg for arg in args if arg is not type(None)]
        if set(options) == {int, float}:
            return "number" + _bounds_text(rule)
        return " or ".join(_type_text(arg, rule) for arg in options)
    if origin is tuple:
        return f"list of {_type_text(args[0], rule) or 'values'}"
    name = {bool: "bool", int: "int", float: "float", str: "string", Fraction: "rational"}.get(hint, str(hint))
    return name + _bounds_text(rule) if hint in (int, float, Fraction) else name


def _bounds_text(rule: ParamRule) -> str:
    low = None if rule.low is None else _value_text(rule.low)
    high = None if rule.high is None else _value_text(rule.high)
    if low is not None and high is not None:
        return f" in {'(' if rule.low_open else '['}{low}, {high}{')' if rule.high_open else ']'}"
    if low is not None:
        return f" {'>' if rule.low_open else '>='} {low}"
    if high is not None:
        return f" {'<' if rule.high_open else '<='} {high}"
    return ""


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ", ".join(_value_text(item) for item in value)
    return str(value)
