"""The Mechanism interface: one object that says what a mechanism is.

Every mechanism dpaudit knows, built in or from a plugin, is described by one
:class:`Mechanism`: how to build its reference implementation from public parameters,
its input domain (how inputs are converted to and from the plain values a candidate or a
spec uses, and a default input), the neighbouring relations it is audited under with the
distance that decides whether two inputs are neighbours, its output, a vectorised
``sample(params, data, n, rng)``, the white-box views the reference offers (Protocols of
:mod:`dpaudit.mechanisms.views`), and the call signature of a candidate implementing it.
Candidate kinds, input conversion, which checkers apply and report labels are derived from
this object.

A reference implementation is a frozen dataclass of public parameters with
``release(data, *, rng, size=None)``; ``size`` asks for ``size`` independent releases
stacked along a new first axis (vectorised sampling).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.views import as_view, view_names
from dpaudit.privacy.relations import Relation

__all__ = [
    "NEIGHBOUR_TOLERANCE",
    "RANDOMNESS_SOURCES",
    "CandidateCall",
    "CandidateInputs",
    "CandidateSignature",
    "InputDomain",
    "Mechanism",
    "Neighbourhood",
    "OutputSpec",
    "ReleaseAdapter",
]

#: Relative slack when comparing a distance with the radius: decimals written in a spec are
#: rounded to binary, so 0.3 - 0.2 + 0.8 - 0.7 exceeds 0.2 by a few units in the last place.
NEIGHBOUR_TOLERANCE = 1e-9

#: Where a candidate's noise comes from (``[candidate] randomness``).
RANDOMNESS_SOURCES = ("rng", "seed", "external")


#: ``(reference, data, rng, size) -> releases``: how a reference whose ``release`` takes its input apart
#: releases on one plain input (see :attr:`Mechanism.release_adapter`).
ReleaseAdapter = Callable[[Any, Any, np.random.Generator, int | None], Any]


@dataclass(frozen=True)
class InputDomain:
    """The inputs of a mechanism.

    Attributes:
        name: a short name (``real_vector``, ``trajectories``, ...).
        description: what one input is, in words (shown in docs and reports).
        to_plain: reference input -> plain Python values (lists, numbers) as a candidate
            receives them and a spec or a JSON file writes them.
        from_plain: plain values -> reference input; raises InvalidArgument on a bad value.
    """

    name: str
    description: str
    to_plain: Callable[[Any], Any]
    from_plain: Callable[[Any], Any]


ExplorePairs = Callable[[Sequence[tuple[Any, Any]], Mapping[str, Any], Relation], list[tuple[Any, Any, str]]]
"""``(pairs, params, relation) -> [(first, second, label), ...]``: a neighbourhood's ``explore``."""

ScreenPairs = Callable[[Mapping[str, Any], Relation], list[tuple[Any, Any, str]]]
"""``(params, relation) -> [(first, second, label), ...]``: a neighbourhood's ``screen``."""


@dataclass(frozen=True)
class Neighbourhood:
    """When two inputs are neighbours under a relation.

    Attributes:
        description: the rule in words, e.g. ``"||x - x'||_2 <= sensitivity"``.
        distance: ``(first, second, relation, params) -> distance`` in the rule's unit (``inf``
            when one step of the relation does not join them).
        radius: ``(params, relation) -> the largest distance of neighbours``.
        explore: ``(pairs, params, relation) -> [(first, second, label), ...]``: more pairs
            (plain values) around the given plain pairs, for the input search of the black-box
            checks (other magnitudes, sizes, domain edges); ``None`` when the kind has none.
            What it returns is checked with ``distance`` before use.
        screen: ``(params, relation) -> [(first, second, label), ...]``: pairs whose calls cost
            hundreds of ordinary ones (datasets of hundreds of trajectories), screened on a small
            pilot and sampled further only when it alone exceeds the claim; ``None`` when none.
    """

    description: str
    distance: Callable[[Any, Any, Relation, Mapping[str, Any]], float]
    radius: Callable[[Mapping[str, Any], Relation], float]
    explore: ExplorePairs | None = None
    screen: ScreenPairs | None = None


@dataclass(frozen=True)
class OutputSpec:
    """The output of one release: a finite real array.

    Attributes:
        description: the output in words, e.g. ``"theta, a vector of length d"``.
        shape: ``(params, data) -> expected shape``, or ``None`` when the reference's shape is the rule.
    """

    description: str
    shape: Callable[[Mapping[str, Any], Any], tuple[int, ...]] | None = None


@dataclass(frozen=True)
class CandidateSignature:
    """How a candidate implementing the mechanism is called.

    Attributes:
        first_argument: the name of the input argument (``value``, ``dataset``, ...).
        text: the documented signature, e.g. ``"gaussian(value, *, sigma, sensitivity, rng) -> ndarray"``.
    """

    first_argument: str
    text: str


@dataclass(frozen=True)
class CandidateCall:
    """How a spec's ``[candidate]`` table says to call a user's function.

    By default a candidate is called ``fn(input, **params, rng=rng)``: the input by
    position, every public parameter of the claim's mechanism and ``rng`` by keyword. A
    spec may instead list the positional arguments (``args = ["input", "rng"]``), the
    keyword arguments (``keywords = ["sigma"]``; by default every parameter and ``rng``
    not in ``args``) and the names the function uses for them (``rename = { sigma =
    "scale" }``). Each name is ``"input"``, ``"rng"`` or a parameter of the mechanism;
    the input must be positional and the generator must be passed. A vectorised
    ``sample`` entry point gets the sample count right after the input.

    ``params`` (the spec's ``[candidate] params``) are the candidate's own parameters, as its
    author wrote the function (``epsilon``, ``delta``, a library's constructor arguments): the
    candidate is then called with them instead of the reference's, and the claim keeps the
    (ε, δ) it is judged against and the reference's parameters. dpaudit never needs the
    candidate's calibration formula.

    Attributes:
        args: the positional arguments, in order.
        keywords: the keyword arguments, or ``None`` for every name not in ``args``.
        rename: keyword name -> the name the candidate's parameter has.
        params: the candidate's own parameters, or ``None`` for the mechanism's.
        randomness: ``rng`` (the noise comes from the generator it is given: checked by the
            randomness contract), ``seed`` (the ``rng`` argument is an integer seed in [0, 2^32), a new
            one per call, for code that seeds its own generator: ``random.Random(seed)``,
            ``np.random.default_rng(seed)``; checked by the contract too) or ``external`` (a
            cryptographic or library RNG by design, as
            OpenDP's and python-dp's: the contract is not checked, and the audit is reproducible
            in distribution only, not bit for bit).
    """

    args: tuple[str, ...] = ("input",)
    keywords: tuple[str, ...] | None = None
    rename: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, Any] | None = None
    randomness: str = "rng"

    def call_params(self, mechanism_params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters the candidate is called with: its own when the spec gives them, else the mechanism's."""
        return dict(mechanism_params if self.params is None else self.params)

    def check(self, params: Sequence[str]) -> None:
        """Check the call against the mechanism's parameter names.

        Raises:
            InvalidArgument: naming the entry that is unknown, repeated or missing.
        """
        if self.randomness not in RANDOMNESS_SOURCES:
            raise InvalidArgument(f"randomness={self.randomness!r}: expected one of {list(RANDOMNESS_SOURCES)}")
        known = {"input", "rng", *params}
        keywords = self.keyword_names(params)
        listed = [*self.args, *keywords]
        for name in listed:
            if name not in known:
                raise InvalidArgument(
                    f"{name!r} is not 'input', 'rng' or a parameter the candidate is called with {sorted(params)}"
                )
        repeated = sorted({name for name in listed if listed.count(name) > 1})
        if repeated:
            raise InvalidArgument(f"{repeated} passed more than once")
        if "input" not in self.args:
            raise InvalidArgument("args must list 'input' (the input is passed by position)")
        if "rng" not in listed:
            raise InvalidArgument("the generator must be passed: list 'rng' in args or keywords")
        for name, renamed in self.rename.items():
            if name not in keywords:
                raise InvalidArgument(f"rename: {name!r} is not passed by keyword")
            if not renamed.isidentifier():
                raise InvalidArgument(f"rename: {renamed!r} is not a Python identifier")
        final = [self.rename.get(name, name) for name in keywords]
        if len(set(final)) != len(final):
            raise InvalidArgument(f"rename: two keywords would have the same name in {final}")

    def keyword_names(self, params: Sequence[str]) -> tuple[str, ...]:
        """The names passed by keyword (before renaming)."""
        if self.keywords is not None:
            return self.keywords
        return tuple(name for name in (*sorted(params), "rng") if name not in self.args)

    def to_json(self, params: Sequence[str]) -> dict[str, Any]:
        """The call as plain data for the candidate worker."""
        call = {"args": list(self.args), "keywords": list(self.keyword_names(params)), "rename": dict(self.rename)}
        return {**call, "seed": True} if self.randomness == "seed" else call


@dataclass(frozen=True)
class CandidateInputs:
    """The user's own functions that make inputs for a candidate audit (the spec's ``[candidate]``
    table), each named ``module:function`` and run in the candidate's isolated worker.

    Attributes:
        datasets: ``rng -> dataset``: a generator of inputs (called ``count`` times with seeded generators).
        neighbours: ``dataset -> [dataset, ...]``: the neighbours of an input under the claim's relation.
        distance: ``(dataset, dataset) -> float``: a pair is neighbouring when it is at most 1.
        count: how many inputs ``datasets`` makes.
        per_input: how many neighbours of each input are kept (the first ones ``neighbours`` returns).
        integer, low, high: the declared input domain (``[candidate] inputs = { integer = true,
            low = 0, high = 10 }``): every number of an input is an integer / at least ``low`` / at
            most ``high``. The spec's pairs must be inside it and the input search stays inside it
            (a mechanism on counts is never fed 0.5, one on [0, 10] never 10^6).
    """

    datasets: str | None = None
    neighbours: str | None = None
    distance: str | None = None
    count: int = 4
    per_input: int = 8
    integer: bool = False
    low: float | None = None
    high: float | None = None

    def admits(self, plain: Any) -> bool:
        """Whether every number in a plain input is in the declared input domain (integers when
        ``integer``, within [``low``, ``high``]): the input search stays inside it."""
        if isinstance(plain, bool):
            return True
        if isinstance(plain, int | float):
            if self.integer and not float(plain).is_integer():
                return False
            return (self.low is None or plain >= self.low) and (self.high is None or plain <= self.high)
        if isinstance(plain, list | tuple):
            return all(self.admits(item) for item in plain)
        if isinstance(plain, dict):
            return all(self.admits(item) for item in plain.values())
        return True

    def clamped(self, plain: Any) -> Any:
        """``plain`` with every number moved into [``low``, ``high``]: a proposed input past the declared
        bounds becomes the domain's edge (the search's huge record becomes a record of ``high`` s). An
        integer domain's inputs are left as they are (the search proposes no scaled count)."""
        if isinstance(plain, bool) or self.integer:
            return plain
        if isinstance(plain, int | float):
            low = plain if self.low is None else max(plain, self.low)
            return low if self.high is None else min(low, self.high)
        if isinstance(plain, list | tuple):
            return type(plain)(self.clamped(item) for item in plain)
        if isinstance(plain, dict):
            return {key: self.clamped(item) for key, item in plain.items()}
        return plain

    @property
    def functions(self) -> dict[str, str]:
        """The functions given, by role."""
        named = {"datasets": self.datasets, "neighbours": self.neighbours, "distance": self.distance}
        return {role: ref for role, ref in named.items() if ref is not None}


@dataclass(frozen=True)
class Mechanism:
    """What a mechanism is: the one object candidate kinds, inputs, checks and reports derive from.

    Attributes:
        name: the name specs use (``[claim.mechanism] name``).
        description: one line, for ``dpaudit list`` and reports.
        factory: builds the reference implementation from the public parameters (keywords).
        input_domain: its inputs.
        relations: the relation kinds it is audited under (``replace_one``, ...).
        neighbourhood: when two inputs are neighbours.
        output: what one release is.
        views: the white-box views the reference offers: Protocol classes of :mod:`dpaudit.mechanisms.views`
            (or a plugin's own runtime-checkable Protocols). A factory that is a class must implement
            them (checked here); a reference class declares them by subclassing them, so mypy checks its
            methods against the Protocols'.
        candidate: the candidate signature, or ``None`` when candidates cannot implement it.
        source: where the mechanism is defined (paper, section).
        release_adapter: ``(reference, data, rng, size) -> releases`` for a reference whose
            ``release`` does not take the input as one argument; ``None`` calls ``release(data, ...)``.
            A module-level function: it travels to worker processes by reference (pickle).
        noise_family: the family of the output law a parametric audit fits (``gaussian``,
            ``laplace``, ``dirichlet``; ``gaussian_release`` for a release that is Gaussian given
            the input with a covariance that depends on it), or ``None`` when no family describes it.
        randomised: whether a release is random (an accountant's answer is not): the randomness
            contract of a candidate is checked only then.
        has_reference: whether dpaudit holds a reference implementation; the generic kinds
            (``black_box``, ``rl_algorithm``) audit candidates only, and their factory builds a
            record of the public parameters whose ``release`` refuses to run.
        categorical_outputs: whether a candidate may release categories (strings) as well as
            numbers (they travel as codes; see :mod:`dpaudit.audit.candidates.worker`).
    """

    name: str
    description: str
    factory: Callable[..., Any]
    input_domain: InputDomain
    relations: tuple[str, ...]
    neighbourhood: Neighbourhood
    output: OutputSpec
    views: frozenset[type] = field(default_factory=frozenset)
    candidate: CandidateSignature | None = None
    source: str = ""
    release_adapter: ReleaseAdapter | None = None
    noise_family: str | None = None
    randomised: bool = True
    has_reference: bool = True
    categorical_outputs: bool = False

    def __post_init__(self) -> None:
        where = f"mechanism {self.name!r}"
        views = frozenset(as_view(view, where=where, stacklevel=4) for view in self.views)
        object.__setattr__(self, "views", views)
        if isinstance(self.factory, type):
            missing = [view for view in views if not issubclass(self.factory, view)]
            if missing:
                raise InvalidArgument(
                    f"{where}: its reference {self.factory.__name__} does not implement the views "
                    f"{view_names(missing)} it declares"
                )

    def build(self, params: Mapping[str, Any]) -> Any:
        """The reference implementation for ``params``.

        Raises:
            InvalidArgument: for parameters the factory rejects.
        """
        try:
            return self.factory(**dict(params))
        except TypeError as exc:
            names = self.parameter_names()
            raise InvalidArgument(
                f"mechanism {self.name!r}: bad parameters {sorted(params)}: {exc}"
                + (f"; it takes {names}" if names else "")
                + ". A candidate called with other parameters (epsilon, a library's own arguments) gets them from "
                "the spec's [candidate] params table (docs/candidates.md)"
            ) from exc

    def parameter_names(self) -> list[str]:
        """The public parameters the reference takes, by name (as its factory's signature says)."""
        try:
            signature = inspect.signature(self.factory)
        except (TypeError, ValueError):
            return []
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        return [name for name, parameter in signature.parameters.items() if parameter.kind in kinds]

    def release(self, reference: Any, data: Any, *, rng: np.random.Generator, size: int | None = None) -> Any:
        """One release of ``reference`` on ``data`` (``size`` of them stacked along axis 0)."""
        if self.release_adapter is not None:
            return self.release_adapter(reference, data, rng, size)
        return reference.release(data, rng=rng, size=size)

    def sample(self, params: Mapping[str, Any], data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` independent releases of the reference on ``data``, stacked along axis 0."""
        return np.asarray(self.release(self.build(params), data, rng=rng, size=n))

    def offers(self, view: type) -> bool:
        """Whether the reference offers the white-box view ``view`` (a Protocol of :mod:`dpaudit.mechanisms.views`)."""
        return view in self.views

    def require_view(self, view: type) -> None:
        """Fail closed unless the reference offers the white-box view ``view``.

        Raises:
            InvalidArgument: naming the mechanism and the view.
        """
        if view not in self.views:
            raise InvalidArgument(
                f"mechanism={self.name!r} does not offer the white-box views {view_names([view])} this checker reads"
            )

    def check_neighbours(self, first: Any, second: Any, relation: Relation, params: Mapping[str, Any]) -> float:
        """The distance of two inputs (the larger of both orders: a relation is symmetric), after
        checking they are neighbours under ``relation`` (within a relative
        :data:`NEIGHBOUR_TOLERANCE` of the radius).

        Raises:
            InvalidArgument: naming the relation, the distance and the radius when they are not.
        """
        if relation.kind not in self.relations:
            raise InvalidArgument(
                f"relation={relation.name!r}: mechanism {self.name!r} is audited under {list(self.relations)}"
            )
        # a relation is symmetric: the pair must be neighbouring read in both orders
        distance = max(
            float(self.neighbourhood.distance(first, second, relation, params)),
            float(self.neighbourhood.distance(second, first, relation, params)),
        )
        radius = float(self.neighbourhood.radius(params, relation))
        if not distance <= radius * (1.0 + NEIGHBOUR_TOLERANCE):
            shapes = tuple(getattr(side, "shape", None) for side in (first, second))
            differ = (
                f" (the two inputs have different shapes {shapes[0]} and {shapes[1]})" if shapes[0] != shapes[1] else ""
            )
            raise InvalidArgument(
                f"the inputs are not neighbours under {relation.name}: distance {distance:.6g} > {radius:.6g} "
                f"({self.neighbourhood.description}){differ}"
            )
        return distance

    def label(self, params: Mapping[str, Any]) -> str:
        """A short label for reports, e.g. ``gaussian(sigma=1, sensitivity=1)``."""
        shown = ", ".join(f"{key}={value!r}" for key, value in sorted(params.items()) if not isinstance(value, list))
        return f"{self.name}({shown})"
