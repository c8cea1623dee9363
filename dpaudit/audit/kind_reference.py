"""docs/kinds/index.md, generated from the mechanism catalogue: one section per candidate kind with
its signature, input, relations, output, the reference's parameters and defaults, its white-box
views and the checks every candidate audit of it adds.

Regenerate with ``python -m dpaudit.audit.kind_reference`` (a test fails until then).
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

from dpaudit.audit.candidates.kinds import candidate_kinds
from dpaudit.mechanisms.interface import Mechanism
from dpaudit.mechanisms.views import view_names

__all__ = ["KINDS_PATH", "kind_reference"]

KINDS_PATH = Path(__file__).resolve().parents[2] / "docs" / "kinds" / "index.md"

_HEADER = """# Candidate kinds: one section each

Generated from the mechanism catalogue by `python -m dpaudit.audit.kind_reference`; a test keeps it
in step with the code. docs/candidates.md says how a candidate is called and audited; the kinds
without a reference have pages of their own: [black_box](black_box.md), [rl_algorithm](rl_algorithm.md).
Every candidate audit adds, whatever the spec names: dpaudit's own black-box audit
(`empirical_epsilon_lower_bound` with the input search, every event family, escalation and
confirmation), the randomness contract (unless `[candidate] randomness = "external"`), and, for a
kind with a noise family, a parametric fit of that family (docs/candidates.md).
"""


def _described(factory: object) -> dict[str, str]:
    """Each parameter's text in the ``Attributes:`` or ``Args:`` section of the docstrings of
    ``factory`` and its base classes (Google style: ``name: text`` or ``a, b: text``, continued on
    lines indented further), on one line, with the reST roles shown as code."""
    described: dict[str, str] = {}
    for owner in getattr(factory, "__mro__", (factory,)):
        section, current, indent = False, list[str](), 0
        for line in (inspect.getdoc(owner) or "").splitlines():
            stripped, depth = line.strip(), len(line) - len(line.lstrip())
            if stripped in ("Attributes:", "Args:"):
                section, current = True, []
            elif not stripped or depth == 0:
                section, current = False, []
            elif section and current and depth > indent:
                for name in current:
                    described[name] += " " + stripped
            elif section:
                names, _, text = stripped.partition(":")
                current = [name.strip() for name in names.split(",")]
                if not all(name.isidentifier() for name in current) or any(name in described for name in current):
                    current = []
                indent = depth
                described.update({name: _as_for(owner, name, text.strip()) for name in current})
    return {name: re.sub(r":\w+:`~?([^`]+)`|``([^`]+)``", r"`\1\2`", text) for name, text in described.items()}


def _as_for(owner: object, name: str, text: str) -> str:
    """``text``, or where it reads "as for :class:`Other`", Other's own description of ``name``."""
    other = re.fullmatch(r"as for :class:`~?(\w+)`\.?", text)
    module = sys.modules.get(getattr(owner, "__module__", ""))
    found = getattr(module, other.group(1), None) if other else None
    return _described(found).get(name, text) if found is not None and found is not owner else text


def _parameters(mechanism: Mechanism) -> str:
    try:
        signature = inspect.signature(mechanism.factory)
    except (TypeError, ValueError):
        return "see the kind's page"
    described = _described(mechanism.factory)
    shown = []
    for name, parameter in signature.parameters.items():
        if parameter.kind in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL):
            return "any (recorded in the report)"
        text = (
            f"`{name}` (required)"
            if parameter.default is inspect.Parameter.empty
            else f"`{name}` = `{parameter.default!r}`"
        )
        shown.append(f"\n  - {text}" + (f": {described[name]}" if described.get(name) else ""))
    return "".join(shown) or " none"


def kind_reference() -> str:
    """The text of docs/kinds/index.md."""
    lines = [_HEADER]
    for mechanism in candidate_kinds():
        if mechanism.candidate is None:  # candidate_kinds() has only kinds with a signature
            continue
        lines += [
            f"\n## `{mechanism.name}`\n",
            f"{mechanism.description} ({mechanism.source}).\n",
            f"- **your callable**: `{mechanism.candidate.text}`",
            f"- **input**: {mechanism.input_domain.description}",
            f"- **relations**: {', '.join(f'`{name}`' for name in mechanism.relations)}: "
            f"{mechanism.neighbourhood.description}",
            f"- **one release**: {mechanism.output.description}",
            "- **reference parameters** (`[claim.mechanism] params`):"
            + (_parameters(mechanism) if mechanism.has_reference else " no reference: " + _parameters(mechanism)),
            f"- **white-box views**: {', '.join(view_names(mechanism.views)) or 'none'}; **noise family** (implied "
            f"parametric fit): {mechanism.noise_family or 'none'}; **randomised**: "
            f"{'yes' if mechanism.randomised else 'no (its answer is deterministic)'}",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    KINDS_PATH.write_text(kind_reference(), encoding="utf-8")
    print(f"wrote {KINDS_PATH}")
