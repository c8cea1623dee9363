"""The tables of a corpus run: ``corpus.json`` (a row per candidate and seed) and ``corpus.md`` (a row per
candidate: its verdicts over the seeds, and what the Monte Carlo check did on the first seed)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from dpaudit.audit.candidates.corpus import CorpusRow, epsilon_or_lowest

__all__ = ["write_corpus_tables"]


def _cell(value: float | None) -> str:
    if value is None:
        return ""
    return "inf" if math.isinf(value) else f"{value:.4g}"


def _describe(detail: dict[str, Any]) -> str:
    if not detail:
        return "no Monte Carlo check"
    text = f"{detail['pairs']}; {detail['samples_per_side']} samples per side, {detail['events_tried']} events tried"
    worst = detail.get("worst")
    if worst:
        text += (
            f"; worst: {worst['event']} on {worst['pair']} ({worst['order']}), counts {worst['p_count']} vs "
            f"{worst['q_count']} of {worst['samples']}, epsilon lower bound "
            f"{_cell(epsilon_or_lowest(worst['epsilon_lower_bound']))} at confidence {detail['confidence']}"
        )
    if detail.get("power"):
        text += f"; power: {detail['power']}"
    return text.replace("|", "/").replace("\n", " ")


def write_corpus_tables(
    rows: list[CorpusRow], out: str | Path, *, command: str, interrupted: str | None = None
) -> tuple[Path, Path]:
    """Write ``corpus.json`` and ``corpus.md`` into ``out``; return their paths. ``interrupted`` says what a run
    cut short by a signal left out (its tables hold the checks that finished)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    by_name: dict[str, list[CorpusRow]] = {}
    for row in rows:
        by_name.setdefault(row.entry.name, []).append(row)
    leaky = [runs for runs in by_name.values() if runs[0].entry.truth == "leaky"]
    private = [runs for runs in by_name.values() if runs[0].entry.truth == "private"]
    caught = sum(all(run.caught for run in runs) for runs in leaky)
    false_alarms = sum(run.caught for runs in private for run in runs)
    seeds = sorted({row.seed for row in rows})
    summary = {
        "leaky": len(leaky),
        "leaky_violated_on_every_seed": caught,
        "private": len(private),
        "false_violated": false_alarms,
        "seeds": seeds,
    }
    document = {"command": command, "summary": summary, "rows": [row.to_json() for row in rows]}
    if interrupted is not None:
        document["interrupted"] = interrupted
    json_path = folder / "corpus.json"
    json_path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    lines = [
        "# Candidate corpus: what `dpaudit check` says about code with known truth",
        "",
        f"Command: `{command}`",
        "",
        *([f"**Interrupted**: {interrupted}", ""] if interrupted is not None else []),
        f"- leaky candidates `violated` on every seed: **{caught} of {len(leaky)}**",
        f"- false `violated` on private candidates: **{false_alarms}** over {len(private)} candidates "
        f"x {len(seeds)} seed(s)",
        "",
        "| candidate | kind | truth | bug | true eps | verdicts | certified eps lower bound (max) | reason |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, runs in by_name.items():
        entry = runs[0].entry
        verdicts: dict[str, int] = {}
        for run in runs:
            verdicts[run.verdict] = verdicts.get(run.verdict, 0) + 1
        shown = ", ".join(f"{verdict} x{count}" for verdict, count in sorted(verdicts.items()))
        bounds = [run.epsilon_lower_bound for run in runs if run.epsilon_lower_bound is not None]
        reason = next((run.reason for run in runs if run.reason), "").replace("|", "\\|")
        lines.append(
            f"| {name} | {entry.kind} | {entry.truth} | {entry.bug.replace('|', '/')} | {_cell(entry.true_epsilon)} "
            f"| {shown} | {_cell(max(bounds) if bounds else None)} | {reason} |"
        )
    lines += ["", f"## What the Monte Carlo check did (seed {seeds[0] if seeds else 0})", ""]
    for name, runs in by_name.items():
        lines.append(f"- **{name}** ({runs[0].verdict}, {runs[0].elapsed_seconds:.1f} s): {_describe(runs[0].detail)}")
    markdown_path = folder / "corpus.md"
    markdown_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return json_path, markdown_path
