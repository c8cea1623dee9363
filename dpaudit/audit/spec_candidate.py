"""A spec's ``[candidate]`` table: how the user's function is called (arguments, renames, its own
parameters, its randomness) and the inputs it is audited on (the user's input functions, the
input domain)."""

from __future__ import annotations

from typing import Any

from dpaudit._validation import check_json_data, check_module_callable
from dpaudit.audit.spec_reader import SpecReader
from dpaudit.errors import DpAuditError
from dpaudit.mechanisms.interface import CandidateCall, CandidateInputs

__all__ = ["candidate_call", "candidate_inputs"]


#: Keys of the ``[candidate]`` table: the calling convention and the user's input functions.
_CALL_KEYS = {"args", "keywords", "rename", "params", "randomness"}


_INPUT_KEYS = {"datasets", "neighbours", "distance", "datasets_count", "neighbours_per_dataset", "inputs"}


def candidate_call(reader: SpecReader, data: dict[str, Any], params: dict[str, Any]) -> CandidateCall:
    """The optional ``[candidate]`` table: how a candidate is called (see :class:`CandidateCall`)."""
    table = reader.table(data, "candidate", "", required=False)
    reader.no_unknown(table, _CALL_KEYS | _INPUT_KEYS, "candidate.")
    names: dict[str, tuple[str, ...] | None] = {}
    for key in ("args", "keywords"):
        value = table.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise reader.fail(f"candidate.{key}", f"got {value!r}; expected a list of names such as ['input', 'rng']")
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
        raise reader.fail("candidate.randomness", f"got {randomness!r}; expected 'rng', 'seed' or 'external'")
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


def candidate_inputs(reader: SpecReader, data: dict[str, Any]) -> CandidateInputs:
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


def _input_domain(reader: SpecReader, table: Any) -> dict[str, Any]:
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
