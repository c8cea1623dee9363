"""docs/checkers.md, generated from the checker registry (dpaudit's own checkers, not a plugin's or
a test's): every checker's description, whether it audits candidates, the views it needs, the
parameters it reads (derived from its config dataclass: :mod:`dpaudit.kernel.checker_config`) and
the budgets ``--quick`` caps.

Regenerate with ``python -m dpaudit.audit.checker_reference`` (a test fails until then).
"""

from __future__ import annotations

from pathlib import Path

from dpaudit.audit.plugins import list_checkers
from dpaudit.mechanisms.views import view_names

__all__ = ["REFERENCE_PATH", "checker_reference"]

REFERENCE_PATH = Path(__file__).resolve().parents[2] / "docs" / "checkers.md"

_HEADER = """# Checkers: what each one reads

Generated from the checker registry by `python -m dpaudit.audit.checker_reference`; a test keeps it in
step with the code. A spec names a checker per obligation (`checker = "..."`, its `params`, and an
optional `quick` table for `--quick`).

**`--quick` without a `quick` table.** An obligation without its own `quick` table runs under
`--quick` with its checker's quick caps below: each listed budget is capped at the value (and set to
it when the spec leaves it out), so a spec written without a `quick` table is still quick. A
`samples = "auto"` is left alone.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def checker_reference() -> str:
    """The text of docs/checkers.md."""
    lines = [_HEADER]
    lines.append("| checker | audits candidates | needs views | `--quick` caps (no quick table) |")
    lines.append("|---|---|---|---|")
    entries = [entry for entry in list_checkers() if entry.function.__module__.startswith("dpaudit.")]
    for entry in entries:
        caps = ", ".join(f"{key} <= {value}" for key, value in sorted(entry.quick_caps.items())) or "none"
        views = ", ".join(view_names(entry.requires_views)) or "none"
        lines.append(f"| `{entry.name}` | {'yes' if entry.audits_candidates else 'no'} | {views} | {caps} |")
    for entry in entries:
        lines.append(f"\n## `{entry.name}`\n\n{entry.description}.")
        if entry.parameters:
            lines.append("\n| param | type, default, meaning |\n|---|---|")
            lines += [f"| `{name}` | {_cell(text)} |" for name, text in entry.parameters.items()]
        else:
            lines.append(
                "\nIts params are checked when the spec loads (an unknown key is exit 2, naming the accepted ones)."
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    REFERENCE_PATH.write_text(checker_reference(), encoding="utf-8")
    print(f"wrote {REFERENCE_PATH}")
