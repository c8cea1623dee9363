"""Loading claims from TOML spec files.

Every error is a :class:`~dpaudit.errors.SpecError` naming the file, the key and the
expected form. The format (schema 1) is documented in README.md ("Writing a spec").
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from dpaudit._validation import check_json_data, check_module_callable
from dpaudit.audit.plugins import get_checker
from dpaudit.audit.spec_values import MAX_NESTING, MAX_SPEC_BYTES, _check_id, _check_values, _printable, load_pairs_file
from dpaudit.checks.budget_limits import ceiling, check_ceilings, lowered_ceilings
from dpaudit.errors import CheckerError, DpAuditError, SpecError
from dpaudit.kernel.claims import Claim, FindingPin, KnownFinding, MechanismSpec, Obligation, Source
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.interface import CandidateCall, CandidateInputs
from dpaudit.privacy.guarantees import (
    ApproxDP,
    Concentration,
    Guarantee,
    MomentsBound,
    RenyiDP,
    SensitivityBound,
    SmoothUpperBound,
)
from dpaudit.privacy.relations import parse_relation

__all__ = ["SCHEMA_VERSION", "builtin_spec_dir", "builtin_specs", "load_spec", "load_specs", "parse_spec"]

SCHEMA_VERSION = 1

_GUARANTEES: dict[str, tuple[Callable[..., Guarantee], tuple[str, ...], tuple[str, ...]]] = {
    "approx_dp": (ApproxDP, ("epsilon", "delta"), ()),
    "renyi_dp": (RenyiDP, ("orders", "epsilons"), ()),
    "moments_bound": (MomentsBound, ("lambdas", "alphas"), ()),
    "sensitivity_bound": (SensitivityBound, ("bound_name",), ("norm",)),
    "smooth_upper_bound": (SmoothUpperBound, ("beta",), ()),
    "concentration": (Concentration, ("radius", "failure_probability"), ("norm",)),
}


def builtin_spec_dir() -> Path:
    """The folder of the built-in paper specs (``specs/`` at the repository root)."""
    return Path(__file__).resolve().parents[2] / "specs"


def builtin_specs() -> list[Path]:
    """The built-in spec files, sorted by name (examples for candidates excluded)."""
    folder = builtin_spec_dir()
    if not folder.is_dir():
        raise SpecError(
            "the built-in specs folder is missing; install dpaudit from a checkout (pip install -e .)", path=str(folder)
        )
    return sorted(folder.glob("*.toml"))


class _Reader:
    """Typed access to a TOML table that reports errors with file and dotted key."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, key: str, message: str) -> SpecError:
        return SpecError(message, path=self.path, key=key)

    def table(self, data: dict[str, Any], key: str, prefix: str, *, required: bool = True) -> dict[str, Any]:
        full = f"{prefix}{key}"
        if key not in data:
            if required:
                raise self.fail(full, "missing; expected a table")
            return {}
        value = data[key]
        if not isinstance(value, dict):
            raise self.fail(full, f"expected a table, got {type(value).__name__} {value!r}")
        return value

    def string(self, data: dict[str, Any], key: str, prefix: str, *, required: bool = True) -> str | None:
        full = f"{prefix}{key}"
        if key not in data:
            if required:
                raise self.fail(full, "missing; expected a non-empty string")
            return None
        value = data[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(full, f"expected a non-empty string, got {type(value).__name__} {value!r}")
        return value

    def text(self, data: dict[str, Any], key: str, prefix: str) -> str:
        """A required non-empty string."""
        value = self.string(data, key, prefix)
        if value is None:
            raise self.fail(f"{prefix}{key}", "missing; expected a non-empty string")
        return value

    def unique(self, names: list[Any], key: str) -> None:
        """A list that names things names each once.

        Raises:
            SpecError: naming the key and the repeated name.
        """
        seen: dict[Any, int] = {}
        for index, name in enumerate(names):
            if name in seen:
                raise self.fail(f"{key}[{index}]", f"{name!r} is listed twice (also at [{seen[name]}])")
            seen[name] = index

    def no_unknown(self, data: dict[str, Any], allowed: set[str], prefix: str) -> None:
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise self.fail(f"{prefix}{unknown[0]}", f"unknown key; expected one of {sorted(allowed)}")


def _source(reader: _Reader, data: dict[str, Any], prefix: str) -> Source:
    reader.no_unknown(data, {"paper", "location", "page", "note"}, prefix)
    page = data.get("page")
    return Source(
        paper=reader.text(data, "paper", prefix),
        location=reader.text(data, "location", prefix),
        page=None if page is None else str(page),
        note=reader.string(data, "note", prefix, required=False),
    )


def _guarantee(reader: _Reader, data: dict[str, Any]) -> Guarantee:
    prefix = "claim.guarantee."
    kind = reader.text(data, "kind", prefix)
    if kind not in _GUARANTEES:
        raise reader.fail(f"{prefix}kind", f"unknown kind {kind!r}; expected one of {sorted(_GUARANTEES)}")
    factory, required, optional = _GUARANTEES[kind]
    reader.no_unknown(data, {"kind", *required, *optional}, prefix)
    for name in required:
        if name not in data:
            raise reader.fail(f"{prefix}{name}", f"missing; the {kind} guarantee needs {', '.join(required)}")
    arguments = {name: data[name] for name in (*required, *optional) if name in data}
    for name, value in arguments.items():
        if isinstance(value, bool):
            raise reader.fail(f"{prefix}{name}", f"expected a number, got the boolean {value!r}")
    try:
        return factory(**arguments)
    except DpAuditError as exc:
        name = str(exc).split("=", 1)[0].split("[", 1)[0].strip()
        key = f"{prefix}{name}" if name in arguments else f"{prefix}{kind}"
        raise reader.fail(key, str(exc)) from None


def _obligation(reader: _Reader, data: Any, index: int) -> Obligation:
    prefix = f"obligations[{index}]."
    if not isinstance(data, dict):
        raise reader.fail(f"obligations[{index}]", "expected a table ([[obligations]])")
    reader.no_unknown(data, {"id", "statement", "checker", "params", "quick", "source", "time_limit"}, prefix)
    source_table = reader.table(data, "source", prefix, required=False)
    time_limit = data.get("time_limit")
    if time_limit is not None and (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, int | float)
        or not 0 < time_limit <= ceiling("time_limit_seconds")
    ):
        raise reader.fail(
            f"{prefix}time_limit", f"got {time_limit!r}; expected seconds in (0, {ceiling('time_limit_seconds'):g}]"
        )
    return Obligation(
        id=_check_id(reader, reader.text(data, "id", prefix), f"{prefix}id"),
        statement=reader.text(data, "statement", prefix),
        checker=reader.text(data, "checker", prefix),
        params=_with_pairs_file(reader, reader.table(data, "params", prefix, required=False), f"{prefix}params."),
        source=_source(reader, source_table, f"{prefix}source.") if source_table else None,
        quick_params=_with_pairs_file(reader, reader.table(data, "quick", prefix, required=False), f"{prefix}quick."),
        time_limit=None if time_limit is None else float(time_limit),
    )


def _unique_obligations(reader: _Reader, items: list[Any]) -> tuple[Obligation, ...]:
    obligations = tuple(_obligation(reader, item, index) for index, item in enumerate(items))
    seen: dict[str, int] = {}
    for index, obligation in enumerate(obligations):
        if obligation.id in seen:
            raise reader.fail(
                f"obligations[{index}].id",
                f"{obligation.id!r} is also the id of obligations[{seen[obligation.id]}]; ids must be unique",
            )
        seen[obligation.id] = index
    return obligations


def _with_pairs_file(reader: _Reader, params: dict[str, Any], prefix: str) -> dict[str, Any]:
    """Replace ``pairs_file = "pairs.json" | "pairs.npz"`` (relative to the spec) by the ``pairs`` it holds."""
    if "pairs_file" not in params:
        return params
    if "pairs" in params:
        raise reader.fail(f"{prefix}pairs_file", "give either pairs or pairs_file, not both")
    name = params["pairs_file"]
    if not isinstance(name, str) or not name.strip():
        raise reader.fail(f"{prefix}pairs_file", "expected the path of a .json or .npz file")
    try:
        pairs = load_pairs_file(Path(reader.path).parent / name)
    except DpAuditError as exc:
        raise reader.fail(f"{prefix}pairs_file", str(exc)) from None
    return {**{key: value for key, value in params.items() if key != "pairs_file"}, "pairs": pairs}


def _check_pairs(reader: _Reader, claim: Claim, obligation: Obligation, index: int) -> None:
    """Every user-given pair must be neighbours under every relation the claim is audited under."""
    mechanism = get_mechanism(claim.mechanism.name)
    for key, params in (("params", obligation.params), ("quick", obligation.for_run(quick=True).params)):
        pairs = params.get("pairs")
        if not isinstance(pairs, list):
            continue
        for number, pair in enumerate(pairs):
            where = f"obligations[{index}].{key}.pairs[{number}]"
            if not isinstance(pair, dict) or not {"first", "second"} <= set(pair):
                raise reader.fail(where, "expected a table with first, second (and optional label)")
            label = f" ({pair['label']})" if isinstance(pair.get("label"), str) else ""
            for side in ("first", "second"):
                if not claim.candidate_inputs.admits(pair[side]):
                    raise reader.fail(where, f"pair{label}: its {side} input is outside [candidate] inputs")
            try:
                first = mechanism.input_domain.from_plain(pair["first"])
                second = mechanism.input_domain.from_plain(pair["second"])
                for relation in claim.relations:
                    mechanism.check_neighbours(first, second, relation, claim.mechanism.params)
            except DpAuditError as exc:
                raise reader.fail(where, f"pair{label}: {exc}") from None


def parse_spec(data: dict[str, Any], path: str) -> Claim:
    """Build a :class:`Claim` from a parsed TOML mapping; ``path`` is used in errors.

    Raises:
        SpecError: naming the file, the key and the expected form.
    """
    reader = _Reader(path)
    reader.no_unknown(data, {"schema", "claim", "obligations", "candidate", "ceilings"}, "")
    schema = data.get("schema")
    if isinstance(schema, int) and not isinstance(schema, bool) and schema > SCHEMA_VERSION:
        raise reader.fail(
            "schema", f"schema = {schema} is newer than this dpaudit reads ({SCHEMA_VERSION}); upgrade dpaudit"
        )
    if schema != SCHEMA_VERSION or not isinstance(schema, int) or isinstance(schema, bool):
        raise reader.fail("schema", f"got {schema!r}; expected schema = {SCHEMA_VERSION}")
    _check_values(reader, data)
    try:
        ceilings = check_ceilings(reader.table(data, "ceilings", "", required=False))
    except DpAuditError as exc:
        raise reader.fail("ceilings", str(exc)) from None
    with lowered_ceilings(ceilings):
        claim = _parse_claim(reader, data)
    if "memory_mib" not in ceilings:
        return claim
    limited = tuple(replace(item, memory_limit=ceilings["memory_mib"]) for item in claim.obligations)
    return replace(claim, obligations=limited)


def _parse_claim(reader: _Reader, data: dict[str, Any]) -> Claim:
    """The claim of a spec whose schema and values were checked (see :func:`parse_spec`)."""
    claim = reader.table(data, "claim", "")
    reader.no_unknown(
        claim,
        {"id", "title", "relations", "source", "mechanism", "guarantee", "parameters", "known_findings"},
        "claim.",
    )
    relations_raw = claim.get("relations")
    if not isinstance(relations_raw, list) or not relations_raw:
        raise reader.fail(
            "claim.relations", f"got {relations_raw!r}; expected a non-empty list such as ['replace_one']"
        )
    relations = []
    for index, text in enumerate(relations_raw):
        try:
            relations.append(parse_relation(text))
        except DpAuditError as exc:
            raise reader.fail(f"claim.relations[{index}]", str(exc)) from None
    reader.unique([relation.name for relation in relations], "claim.relations")
    mechanism_table = reader.table(claim, "mechanism", "claim.")
    reader.no_unknown(mechanism_table, {"name", "params"}, "claim.mechanism.")
    mechanism = MechanismSpec(
        name=reader.text(mechanism_table, "name", "claim.mechanism."),
        params=reader.table(mechanism_table, "params", "claim.mechanism.", required=False),
    )
    try:
        build_mechanism(mechanism.name, mechanism.params)
    except DpAuditError as exc:
        raise reader.fail("claim.mechanism", str(exc)) from None
    obligations_raw = data.get("obligations")
    if not isinstance(obligations_raw, list) or not obligations_raw:
        raise reader.fail("obligations", "missing; expected at least one [[obligations]] table")
    try:
        result = Claim(
            id=_check_id(reader, reader.text(claim, "id", "claim."), "claim.id"),
            title=reader.text(claim, "title", "claim."),
            mechanism=mechanism,
            guarantee=_guarantee(reader, reader.table(claim, "guarantee", "claim.")),
            relations=tuple(relations),
            source=_source(reader, reader.table(claim, "source", "claim."), "claim.source."),
            obligations=_unique_obligations(reader, obligations_raw),
            parameters=reader.table(claim, "parameters", "claim.", required=False),
            known_findings=_known_findings(reader, claim),
            candidate_call=_candidate_call(reader, data, mechanism.params),
            candidate_inputs=_candidate_inputs(reader, data),
        )
    except SpecError:
        raise
    except DpAuditError as exc:
        raise reader.fail("obligations", str(exc)) from None
    for index, obligation in enumerate(result.obligations):
        if result.candidate_call.randomness == "external" and obligation.checker == "randomness_contract":
            raise reader.fail(
                f"obligations[{index}].checker",
                "randomness_contract checks that the noise comes from the rng, but [candidate] randomness = "
                "'external' declares it does not (a cryptographic RNG by design): remove one of the two",
            )
        _validate_obligation(reader, result, obligation, index)
        _check_pairs(reader, result, obligation, index)
    return result


#: Keys of the ``[candidate]`` table: the calling convention and the user's input functions.
_CALL_KEYS = {"args", "keywords", "rename", "params", "randomness"}
_INPUT_KEYS = {"datasets", "neighbours", "distance", "datasets_count", "neighbours_per_dataset", "inputs"}


def _candidate_call(reader: _Reader, data: dict[str, Any], params: dict[str, Any]) -> CandidateCall:
    """The optional ``[candidate]`` table: how a candidate is called (see :class:`CandidateCall`)."""
    table = reader.table(data, "candidate", "", required=False)
    reader.no_unknown(table, _CALL_KEYS | _INPUT_KEYS, "candidate.")
    names: dict[str, tuple[str, ...] | None] = {}
    for key in ("args", "keywords"):
        value = table.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise reader.fail(f"candidate.{key}", f"got {value!r}; expected a list of names such as ['input', 'rng']")
        reader.unique(value or [], f"candidate.{key}")
        names[key] = None if value is None else tuple(value)
    rename = table.get("rename", {})
    if not isinstance(rename, dict) or not all(isinstance(v, str) for v in rename.values()):
        raise reader.fail("candidate.rename", f"got {rename!r}; expected a table such as {{ sigma = 'scale' }}")
    own = table.get("params")
    if own is not None and (not isinstance(own, dict) or not all(isinstance(k, str) and k.isidentifier() for k in own)):
        raise reader.fail(
            "candidate.params", f"got {own!r}; expected a table of keyword arguments such as {{ epsilon = 0.5 }}"
        )
    if own is not None:
        try:
            own = check_json_data(own, "candidate.params")
        except DpAuditError as exc:
            raise reader.fail("candidate.params", str(exc)) from None
    args = names["args"]
    randomness = table.get("randomness", "rng")
    if not isinstance(randomness, str):
        raise reader.fail("candidate.randomness", f"got {randomness!r}; expected 'rng' or 'external'")
    call = CandidateCall(
        args=("input",) if args is None else args,
        keywords=names["keywords"],
        rename=dict(rename),
        params=own,
        randomness=randomness,
    )
    try:
        call.check(list(call.call_params(params)))
    except DpAuditError as exc:
        raise reader.fail("candidate", str(exc)) from None
    return call


def _candidate_inputs(reader: _Reader, data: dict[str, Any]) -> CandidateInputs:
    """The user's input functions of the ``[candidate]`` table (see :class:`CandidateInputs`)."""
    table = reader.table(data, "candidate", "", required=False)
    functions: dict[str, str | None] = {}
    for key in ("datasets", "neighbours", "distance"):
        value = table.get(key)
        if value is not None:
            try:
                check_module_callable(f"candidate.{key}", value)
            except DpAuditError as exc:
                raise reader.fail(f"candidate.{key}", str(exc)) from None
        functions[key] = value
    counts = {}
    for key, field_name, high in (("datasets_count", "count", 64), ("neighbours_per_dataset", "per_input", 64)):
        value = table.get(key, getattr(CandidateInputs, field_name))
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= high:
            raise reader.fail(f"candidate.{key}", f"got {value!r}; expected an integer from 1 to {high}")
        counts[field_name] = value
    if table.get("datasets_count") is not None and functions["datasets"] is None:
        raise reader.fail("candidate.datasets_count", "given without candidate.datasets (the generator it counts)")
    return CandidateInputs(
        datasets=functions["datasets"],
        neighbours=functions["neighbours"],
        distance=functions["distance"],
        count=counts["count"],
        per_input=counts["per_input"],
        **_input_domain(reader, table.get("inputs")),
    )


def _input_domain(reader: _Reader, table: Any) -> dict[str, Any]:
    """The ``[candidate] inputs`` table: ``integer``, ``low``, ``high`` (see :class:`CandidateInputs`)."""
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise reader.fail("candidate.inputs", f"got {table!r}; expected a table such as {{ integer = true, low = 0 }}")
    reader.no_unknown(table, {"integer", "low", "high"}, "candidate.inputs.")
    integer = table.get("integer", False)
    if not isinstance(integer, bool):
        raise reader.fail("candidate.inputs.integer", f"got {integer!r}; expected true or false")
    bounds: dict[str, float | None] = {}
    for key in ("low", "high"):
        value = table.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value != value):
            raise reader.fail(f"candidate.inputs.{key}", f"got {value!r}; expected a number")
        bounds[key] = None if value is None else float(value)
    if bounds["low"] is not None and bounds["high"] is not None and not bounds["low"] <= bounds["high"]:
        raise reader.fail("candidate.inputs", f"low = {bounds['low']!r} is above high = {bounds['high']!r}")
    return {"integer": integer, **bounds}


def _known_findings(reader: _Reader, claim: dict[str, Any]) -> tuple[KnownFinding, ...]:
    items = claim.get("known_findings", [])
    if not isinstance(items, list):
        raise reader.fail("claim.known_findings", "expected an array of tables ([[claim.known_findings]])")
    findings = []
    listed: set[tuple[str, str]] = set()
    for index, item in enumerate(items):
        prefix = f"claim.known_findings[{index}]."
        if not isinstance(item, dict):
            raise reader.fail(f"claim.known_findings[{index}]", "expected a table with relation, obligations, finding")
        reader.no_unknown(item, {"relation", "obligations", "finding", "pin"}, prefix)
        try:
            relation = parse_relation(reader.text(item, "relation", prefix)).name
        except SpecError:
            raise
        except DpAuditError as exc:
            raise reader.fail(f"{prefix}relation", str(exc)) from None
        obligations = item.get("obligations")
        if not isinstance(obligations, list) or not obligations or not all(isinstance(o, str) for o in obligations):
            raise reader.fail(
                f"{prefix}obligations", f"got {obligations!r}; expected a non-empty list of obligation ids"
            )
        reader.unique(obligations, f"{prefix}obligations")
        for obligation in obligations:
            if (relation, obligation) in listed:
                raise reader.fail(f"{prefix}obligations", f"{obligation!r} under {relation} is already a known finding")
            listed.add((relation, obligation))
        finding = reader.text(item, "finding", prefix)
        pin = _pin(reader, reader.table(item, "pin", prefix), f"{prefix}pin.")
        findings.append(KnownFinding(relation, tuple(obligations), finding, pin))
    return tuple(findings)


def _pin(reader: _Reader, table: dict[str, Any], prefix: str, *, nested: bool = False) -> FindingPin:
    """``pin = { quantity = "start of a measurement's quantity", measured = [low, high] }``, with an
    optional ``quick = { quantity = ..., measured = [...] }`` for --quick budgets."""
    reader.no_unknown(table, {"quantity", "measured"} if nested else {"quantity", "measured", "quick"}, prefix)
    quick = (
        None
        if nested or "quick" not in table
        else _pin(reader, reader.table(table, "quick", prefix), f"{prefix}quick.", nested=True)
    )
    bounds = table.get("measured")
    if (
        not isinstance(bounds, list)
        or len(bounds) != 2
        or not all(isinstance(b, int | float) and not isinstance(b, bool) for b in bounds)
    ):
        raise reader.fail(f"{prefix}measured", f"got {bounds!r}; expected [low, high], the interval the size stays in")
    try:
        return FindingPin(reader.text(table, "quantity", prefix), float(bounds[0]), float(bounds[1]), quick)
    except DpAuditError as exc:
        raise reader.fail(f"{prefix}measured", str(exc)) from None


def _validate_obligation(reader: _Reader, claim: Claim, obligation: Obligation, index: int) -> None:
    try:
        entry = get_checker(obligation.checker)
    except CheckerError as exc:
        raise reader.fail(f"obligations[{index}].checker", str(exc)) from None
    missing = sorted(entry.requires_views - get_mechanism(claim.mechanism.name).views)
    if missing:
        raise reader.fail(
            f"obligations[{index}].checker",
            f"checker {entry.name!r} needs the white-box views {missing}, which mechanism "
            f"{claim.mechanism.name!r} does not offer",
        )
    if entry.validate is None:
        return
    for key, params in (("params", obligation.params), ("quick", obligation.for_run(quick=True).params)):
        try:
            entry.validate(params, claim)
        except DpAuditError as exc:
            raise reader.fail(f"obligations[{index}].{key}", str(exc)) from None


def load_spec(path: str | Path) -> Claim:
    """Read and parse one spec file.

    Raises:
        SpecError: for unreadable files, TOML syntax errors and malformed content.
    """
    location = str(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise SpecError("no such file; expected the path of a .toml spec", path=location) from None
    except IsADirectoryError:
        raise SpecError("a folder; expected the path of a .toml spec", path=location) from None
    except OSError as exc:
        raise SpecError(f"cannot read the file ({exc.strerror})", path=location) from None
    if len(raw) > MAX_SPEC_BYTES:
        raise SpecError(f"larger than {MAX_SPEC_BYTES >> 20} MiB; a spec is a small TOML file", path=location)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"not UTF-8 text (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})", path=location
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"not valid TOML: {_printable(str(exc))}", path=location) from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise SpecError(f"a value cannot be read: {_printable(str(exc))}", path=location) from None
    except RecursionError:
        raise SpecError(
            f"nested deeper than Python can parse; expected at most {MAX_NESTING} levels", path=location
        ) from None
    try:
        return parse_spec(data, location)
    except DpAuditError:
        raise
    except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError) as exc:
        # A value a checker's validator cannot even look at (e.g. 1e308 where it squares it).
        raise SpecError(
            f"a value cannot be checked ({type(exc).__name__}: {_printable(str(exc))})", path=location
        ) from None


def load_specs(paths: list[Path]) -> list[tuple[Claim, Path]]:
    """Load several specs, refusing the same file twice and two claims with one id.

    Raises:
        SpecError: naming the repeated file or id.
    """
    loaded: list[tuple[Claim, Path]] = []
    files: dict[Path, Path] = {}
    ids: dict[str, Path] = {}
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in files:
            raise SpecError(f"given twice (also as {files[resolved]})", path=str(path))
        files[resolved] = Path(path)
        claim = load_spec(path)
        if claim.id in ids:
            raise SpecError(f"claim id {claim.id!r} is also the id of {ids[claim.id]}", path=str(path), key="claim.id")
        ids[claim.id] = Path(path)
        loaded.append((claim, Path(path)))
    return loaded
