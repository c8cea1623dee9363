"""``dpaudit explain CLAIM`` and ``dpaudit init KIND``: what a claim rests on, and a starter candidate.

``explain`` prints a claim's statement, source and relations, and for every obligation the
paper statement behind it and how it is checked (the checker's description and whether it
audits candidates). ``init`` writes a starter candidate module and spec for a kind, from the
kind's Mechanism (signature) and its example spec under ``specs/examples/``.
"""

from __future__ import annotations

from pathlib import Path

from dpaudit.audit.candidates.audit import candidate_obligations
from dpaudit.audit.candidates.kinds import candidate_kind_for
from dpaudit.audit.plugins import get_checker
from dpaudit.audit.spec import builtin_spec_dir, builtin_specs, load_spec
from dpaudit.errors import DpAuditError, InvalidArgument
from dpaudit.kernel.claims import Claim

__all__ = ["explain_claim", "find_claim", "write_starter"]


def find_claim(name: str) -> tuple[Claim, Path]:
    """The claim with id ``name`` among the built-in specs, or the spec at path ``name``.

    Raises:
        InvalidArgument: listing the built-in claim ids when none matches.
    """
    path = Path(name)
    if path.suffix == ".toml" and path.exists():
        return load_spec(path), path
    candidates = [*builtin_specs(), *sorted((builtin_spec_dir() / "examples").glob("*.toml"))]
    known = []
    for spec in candidates:
        claim = load_spec(spec)
        if claim.id == name:
            return claim, spec
        known.append(claim.id)
    raise InvalidArgument(f"claim={name!r}: no built-in claim has this id; known: {', '.join(sorted(known))}")


def explain_claim(claim: Claim, path: Path) -> str:
    """A plain-text explanation of ``claim``: what it states, where, and how each obligation is checked."""
    source = claim.source
    lines = [
        f"{claim.id}: {claim.title}",
        f"  spec: {path}",
        f"  source: {source.paper}, {source.location}" + (f", p. {source.page}" if source.page else ""),
        f"  mechanism: {claim.mechanism.name} {dict(claim.mechanism.params)}",
        f"  guarantee: {claim.guarantee.to_json()}",
        f"  audited under: {', '.join(relation.name for relation in claim.relations)}",
    ]
    if source.note:
        lines.append(f"  note: {source.note}")
    lines.append("")
    lines.append(f"  {len(claim.obligations)} obligation(s):")
    for obligation in claim.obligations:
        entry = get_checker(obligation.checker)
        lines.append(f"  - {obligation.id}")
        lines.append(f"      statement: {obligation.statement}")
        if obligation.source is not None:
            lines.append(f"      from: {obligation.source.paper}, {obligation.source.location}")
        box = "black box (also runs on candidates)" if entry.audits_candidates else "white box (needs the reference)"
        lines.append(f"      checked by: {entry.name} — {entry.description} [{box}]")
        if obligation.params:
            lines.append(
                f"      budget: {dict(obligation.params)}"
                + (f"; --quick: {dict(obligation.quick_params)}" if obligation.quick_params else "")
            )
    for finding in claim.known_findings:
        lines.append(f"  known finding under {finding.relation} ({', '.join(finding.obligations)}): {finding.finding}")
    return "\n".join(lines + _under_check(claim, path))


def _under_check(claim: Claim, path: Path) -> list[str]:
    """What ``dpaudit check`` runs on a candidate beyond the spec's black-box obligations, or why it refuses."""
    if not any(get_checker(obligation.checker).audits_candidates for obligation in claim.obligations):
        return ["", "  dpaudit check: refused (no obligation of this spec runs on a candidate)"]
    try:
        checked = candidate_obligations(claim, str(path))
    except DpAuditError as exc:
        return ["", f"  dpaudit check: refused: {exc}"]
    stated = {obligation.id for obligation in claim.obligations}
    added = [obligation for obligation in checked.obligations if obligation.id not in stated]
    left_out = [o.id for o in claim.obligations if not get_checker(o.checker).audits_candidates]
    lines = ["", f"  dpaudit check on a candidate also runs {len(added)} check(s) of its own:"]
    for obligation in added:
        full, quick = obligation.params.get("samples"), obligation.for_run(quick=True).params.get("samples")
        budget = "its default budget" if full is None else f"{full} draws per side (--quick: {quick})"
        lines.append(f"  - {obligation.id}: {obligation.checker}, {budget}")
    if left_out:
        lines.append(f"  and leaves out the white-box obligation(s) {', '.join(left_out)} (they read the reference)")
    return lines


_MODULE = '''"""Starter candidate for the {kind} mechanism: replace the body with your implementation.

Audit it with:  dpaudit check {spec} --candidate {module}:{kind}
"""

import numpy as np


def {kind}({argument}, *, {keywords}rng):
    """{signature}

    {argument}: {input}
    Use only ``rng`` (a numpy Generator) for randomness. Return one release: {output}.
    """
    raise NotImplementedError("write your {kind} implementation here")
'''


#: The example spec a kind's starter copies when it is not ``<kind>_candidate.toml``.
_EXAMPLES = {"black_box": "black_box_randomized_response.toml", "rl_algorithm": "rl_mc_values.toml"}


def write_starter(kind: str, out: Path) -> tuple[Path, Path]:
    """Write ``<kind>_candidate.py`` and ``<kind>_candidate.toml`` into ``out``; return their paths.

    Raises:
        InvalidArgument: for an unknown kind, a kind without an example spec yet, or files that exist.
    """
    mechanism = candidate_kind_for(kind)
    if mechanism.candidate is None:
        raise InvalidArgument(f"kind={kind!r}: candidates cannot implement it")
    example = builtin_spec_dir() / "examples" / _EXAMPLES.get(kind, f"{kind}_candidate.toml")
    if not example.exists():
        raise InvalidArgument(f"kind={kind!r}: no example spec yet (see docs/candidates.md to write one)")
    out.mkdir(parents=True, exist_ok=True)
    module_path, spec_path = out / f"{kind}_candidate.py", out / f"{kind}_candidate.toml"
    for path in (module_path, spec_path):
        if path.exists():
            raise InvalidArgument(f"{path} exists; dpaudit init does not overwrite files")
    claim = load_spec(example)
    own = claim.candidate_call.params  # the candidate's own parameters ([candidate] params), else the mechanism's
    keywords = "".join(f"{name}, " for name in sorted(claim.mechanism.params if own is None else own))
    module_path.write_text(
        _MODULE.format(
            kind=kind,
            spec=spec_path.name,
            module=module_path.stem,
            argument=mechanism.candidate.first_argument,
            keywords=keywords,
            signature=mechanism.candidate.text,
            input=mechanism.input_domain.description,
            output=mechanism.output.description,
        ),
        encoding="utf-8",
    )
    spec_path.write_text(_starter_spec(example, kind, spec_path.name, module_path.stem), encoding="utf-8")
    return module_path, spec_path


def _starter_spec(example: Path, kind: str, spec: str, module: str) -> str:
    """The example spec with its opening comments (which name the example's own files) replaced by the command
    that audits the starter just written."""
    lines = example.read_text(encoding="utf-8").splitlines()
    first_table = next(index for index, line in enumerate(lines) if line.startswith("["))
    kept = [line for line in lines[:first_table] if not line.startswith("#")]
    while kept and not kept[-1].strip():
        kept.pop()
    header = [
        f"# Written by dpaudit init {kind} from specs/examples/{example.name}. Audit your implementation with",
        f"#   dpaudit check {spec} --candidate {module}:{kind}",
        f"# run from this folder, once the body of {kind}() in {module}.py is yours.",
    ]
    return "\n".join([*kept, "", *header, "", *lines[first_table:]]) + "\n"
