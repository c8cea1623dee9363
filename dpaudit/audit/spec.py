"""Loading claims from TOML spec files.

Every error is a :class:`~dpaudit.errors.SpecError` naming the file, the key and the
expected form. The format (schema 1) is documented in README.md ("Writing a spec").
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from dpaudit.audit.plugins import get_checker
from dpaudit.audit.spec_candidate import candidate_call, candidate_inputs
from dpaudit.audit.spec_findings import known_findings
from dpaudit.audit.spec_reader import SpecReader
from dpaudit.audit.spec_values import (
    MAX_NESTING,
    MAX_SPEC_BYTES,
    _check_id,
    _check_values,
    _printable,
    load_pairs_file,
    syntax_hint,
)
from dpaudit.checks.budget_limits import ceiling, check_ceilings, lowered_ceilings
from dpaudit.errors import DpAuditError, SpecError, UnknownName
from dpaudit.kernel.claims import Claim, MechanismSpec, Obligation, Source
from dpaudit.mechanisms.catalogue import build_mechanism, get_mechanism
from dpaudit.mechanisms.views import view_names
from dpaudit.privacy.guarantees import (
    AccountedEpsilon,
    ApproxDP,
    Concentration,
    Guarantee,
    MomentsBound,
    RenyiDP,
    SensitivityBound,
    SmoothUpperBound,
    ZeroConcentratedDP,
)
from dpaudit.privacy.relations import parse_relation

__all__ = ["SCHEMA_VERSION", "builtin_spec_dir", "builtin_specs", "load_spec", "load_specs", "parse_spec"]

SCHEMA_VERSION = 1

_GUARANTEES: dict[str, tuple[Callable[..., Guarantee], tuple[str, ...], tuple[str, ...]]] = {
    "approx_dp": (ApproxDP, ("epsilon", "delta"), ()),
    "zcdp": (ZeroConcentratedDP, ("rho", "delta"), ()),
    "renyi_dp": (RenyiDP, ("orders", "epsilons"), ("delta",)),
    "moments_bound": (MomentsBound, ("lambdas", "alphas"), ()),
    "sensitivity_bound": (SensitivityBound, ("bound_name",), ("norm",)),
    "smooth_upper_bound": (SmoothUpperBound, ("beta",), ()),
    "concentration": (Concentration, ("radius", "failure_probability"), ("norm",)),
}


#: The guarantees whose ``delta`` may be a list: the grid of δ at which the claim is audited.
_DELTA_GRID_KINDS = ("zcdp", "renyi_dp")


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


def _source(reader: SpecReader, data: dict[str, Any], prefix: str) -> Source:
    reader.no_unknown(data, {"paper", "location", "page", "note"}, prefix)
    page = data.get("page")
    return Source(
        paper=reader.text(data, "paper", prefix),
        location=reader.text(data, "location", prefix),
        page=None if page is None else str(page),
        note=reader.string(data, "note", prefix, required=False),
    )


def _guarantee(reader: SpecReader, data: dict[str, Any]) -> Guarantee:
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
    if kind in _DELTA_GRID_KINDS and isinstance(arguments.get("delta"), list):
        grid = arguments["delta"]
        if not grid:
            raise reader.fail(f"{prefix}delta", "got []; expected a number or a non-empty list of numbers")
        arguments.update(delta=grid[0], deltas=tuple(grid))
    try:
        return factory(**arguments)
    except DpAuditError as exc:
        name = str(exc).split("=", 1)[0].split("[", 1)[0].strip().removesuffix("s" if "deltas" in arguments else "")
        key = f"{prefix}{name}" if name in arguments else f"{prefix}{kind}"
        raise reader.fail(key, str(exc)) from None


log = logging.getLogger("dpaudit")

#: The kind whose claim is the accountant's own answers (:class:`AccountedEpsilon`), not a guarantee table.
_ACCOUNTANT = "accountant"


def _claim_guarantee(reader: SpecReader, claim: dict[str, Any], mechanism: str) -> Guarantee:
    """``[claim.guarantee]``; for the ``accountant`` kind none (or ``kind = "accountant"``): its statement is
    that every ε it reports bounds the true one, and a table of other numbers would not be checked."""
    table = reader.table(claim, "guarantee", "claim.", required=mechanism != _ACCOUNTANT)
    if mechanism != _ACCOUNTANT:
        if table.get("kind") == _ACCOUNTANT:
            raise reader.fail(
                "claim.guarantee.kind", f"'accountant' is the statement of the accountant kind, not of {mechanism!r}"
            )
        return _guarantee(reader, table)
    if table and table.get("kind") != _ACCOUNTANT:
        _guarantee(reader, table)  # still a valid table: a spec written before the kind needed none
        log.warning(
            "%s: [claim.guarantee] %r is not what an accountant's audit checks (its claim is the epsilon it "
            "reports at each point, against dpaudit's certified interval); it is ignored: remove it",
            reader.path,
            table,
        )
    elif table and set(table) != {"kind"}:
        raise reader.fail("claim.guarantee", f"got {table!r}: kind = 'accountant' takes no other key")
    return AccountedEpsilon()


def _obligation(reader: SpecReader, data: Any, index: int) -> Obligation:
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


def _unique_obligations(reader: SpecReader, items: list[Any]) -> tuple[Obligation, ...]:
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


def _with_pairs_file(reader: SpecReader, params: dict[str, Any], prefix: str) -> dict[str, Any]:
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


def _check_pairs(reader: SpecReader, claim: Claim, obligation: Obligation, index: int) -> None:
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
    reader = SpecReader(path)
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
    if "memory_mib" in ceilings:
        limited = tuple(replace(item, memory_limit=ceilings["memory_mib"]) for item in claim.obligations)
        claim = replace(claim, obligations=limited)
    return claim.at_each_delta()


def _parse_claim(reader: SpecReader, data: dict[str, Any]) -> Claim:
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
        audited_under = get_mechanism(mechanism.name).relations
    except DpAuditError as exc:
        raise reader.fail("claim.mechanism", str(exc)) from None
    for index, relation in enumerate(relations):  # also when no pair is given: none would be checked against it
        if relation.kind not in audited_under:
            raise reader.fail(
                f"claim.relations[{index}]",
                f"{relation.name!r}: mechanism {mechanism.name!r} is audited under {list(audited_under)}",
            )
    obligations_raw = data.get("obligations")
    if not isinstance(obligations_raw, list) or not obligations_raw:
        raise reader.fail("obligations", "missing; expected at least one [[obligations]] table")
    try:
        result = Claim(
            id=_check_id(reader, reader.text(claim, "id", "claim."), "claim.id"),
            title=reader.text(claim, "title", "claim."),
            mechanism=mechanism,
            guarantee=_claim_guarantee(reader, claim, mechanism.name),
            relations=tuple(relations),
            source=_source(reader, reader.table(claim, "source", "claim."), "claim.source."),
            obligations=_unique_obligations(reader, obligations_raw),
            parameters=reader.table(claim, "parameters", "claim.", required=False),
            known_findings=known_findings(reader, claim),
            candidate_call=candidate_call(reader, data, mechanism.params),
            candidate_inputs=candidate_inputs(reader, data),
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


def _validate_obligation(reader: SpecReader, claim: Claim, obligation: Obligation, index: int) -> None:
    try:
        entry = get_checker(obligation.checker)
    except UnknownName as exc:
        raise reader.fail(f"obligations[{index}].checker", str(exc)) from None
    missing = view_names(entry.requires_views - get_mechanism(claim.mechanism.name).views)
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
        text = raw.decode("utf-8-sig")  # a byte-order mark (as some editors write one) is not part of the TOML
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"not UTF-8 text (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})", path=location
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        hint = syntax_hint(text, exc)
        raise SpecError(f"not valid TOML: {_printable(str(exc))}{hint}", path=location) from None
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
