"""The reader's view of a report document, shared by the HTML and Markdown renderers.

The view is built from the JSON document alone and tolerates documents written by
older versions (missing keys get neutral defaults), so re-rendering an old
``audit.json`` works. Every string in the view is still user-controlled text: the
renderers escape it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from dpaudit.kernel.evidence import named_event
from dpaudit.report.evidence_figures import POWER_ROLE
from dpaudit.report.figures import PlacedFigure
from dpaudit.report.labels import (
    VERDICT_PROMISES,
    claim_label,
    key_number,
    obligation_label,
    relation_label,
    short_number,
)
from dpaudit.report.summary import under_assumption
from dpaudit.report.values import format_value, to_float

__all__ = ["KNOWN_VERDICTS", "obligation_verdict_counts", "report_view", "verdict_class"]

KNOWN_VERDICTS = ("proven", "verified", "consistent", "inconclusive", "error", "violated")
_PAIR_KEYS = ("neighbours", "neighbors", "datasets", "distributions")


def verdict_class(verdict: Any) -> str:
    """A CSS-safe name for a verdict: the verdict itself when known, else ``unknown``."""
    return verdict if verdict in KNOWN_VERDICTS else "unknown"


def obligation_verdict_counts(document: dict[str, Any]) -> dict[str, int]:
    """How many (claim, relation, obligation) results have each verdict."""
    counts = Counter(
        str(item.get("evidence", {}).get("verdict"))
        for result in document.get("claims", [])
        for relation in result.get("relations", [])
        for item in relation.get("obligations", [])
    )
    return {verdict: counts.get(verdict, 0) for verdict in KNOWN_VERDICTS} | {
        verdict: count for verdict, count in counts.items() if verdict not in KNOWN_VERDICTS
    }


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "x"


def _pretty(value: Any) -> str:
    """Text as is; other values as JSON, on one line when short."""
    if isinstance(value, str):
        return value
    compact = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return (
        compact if len(compact) <= 100 else json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False, default=str)
    )


def _pairs(mapping: Any) -> list[tuple[str, str]]:
    if not isinstance(mapping, dict):
        return [] if mapping in (None, {}) else [("value", format_value(mapping))]
    return [(str(key), format_value(value)) for key, value in mapping.items()]


def _source_text(source: Any) -> str:
    if not isinstance(source, dict):
        return ""
    text = ", ".join(str(source[key]) for key in ("paper", "location") if source.get(key))
    if source.get("page"):
        text += f", p. {source['page']}"
    return text


def _counterexample(value: Any) -> dict[str, Any] | None:
    """Split a counterexample into the two neighbours, the distinguishing event (in the output's
    coordinates when the check recorded them, with the event as chosen) and the rest: (key, text,
    shown as a block, every digit of a float shortened in the text or "")."""
    if value in (None, {}, []):
        return None
    if not isinstance(value, dict):
        return {"pair": [], "event": None, "chosen_as": None, "other": [("witness", _pretty(value), True, "")]}
    pair: list[tuple[str, str]] = []
    other = []
    for key, inner in value.items():
        if key in _PAIR_KEYS and not pair and isinstance(inner, dict):
            pair = [(str(label), _pretty(data)) for label, data in inner.items()]
        elif key in _PAIR_KEYS and not pair and isinstance(inner, list):
            pair = [(f"{key} {index + 1}", _pretty(data)) for index, data in enumerate(inner)]
        elif key not in ("event", "event_histogram"):  # the histogram is drawn as a figure
            text = _pretty(inner)
            # a float shows 5 digits (every digit in the title); other values as they are
            short = short_number(inner)[0] if isinstance(inner, float) else ""
            other.append((str(key), short or text, "\n" in text or len(text) > 100, text if short else ""))
    event = None if value.get("event") is None else _pretty(named_event(value))
    pictured = value.get("event_histogram")
    if isinstance(pictured, dict) and pictured.get("in_output_coordinates") and pictured.get("event"):
        # the event in the output's own coordinates; the score it was chosen on follows
        return {"pair": pair, "event": str(pictured["event"]), "chosen_as": event, "other": other}
    return {"pair": pair, "event": event, "chosen_as": None, "other": other}


def _measurement(item: Any) -> dict[str, Any]:
    """One measurement's row: numbers as (short, full) texts; a power row (what the budget could
    have detected) is marked, and its margin is not coloured as a verdict."""
    if not isinstance(item, dict):
        blank = ("", "")
        return {
            "quantity": format_value(item),
            "claimed": blank,
            "measured": blank,
            "interval": blank,
            "margin": blank,
            "margin_class": "",
            "direction": "",
            "power": False,
        }
    margin = to_float(item.get("margin"))
    interval = item.get("interval")
    power = item.get("role") == POWER_ROLE
    return {
        "quantity": str(item.get("quantity", "")),
        "claimed": short_number(item.get("claimed")),
        "measured": short_number(item.get("measured")),
        "interval": short_number(interval) if interval is not None else ("", ""),
        "margin": short_number(item.get("margin")),
        "margin_class": "" if power or margin is None or margin != margin else ("pos" if margin >= 0 else "neg"),
        "direction": str(item.get("direction", "")),
        "power": power,
    }


def _assumption(certificate: Any, verdict: str) -> str:
    """The reduction a verified verdict rests on (shown as "verified under assumption")."""
    if verdict != "verified" or not isinstance(certificate, dict):
        return ""
    return str(certificate.get("assumption") or "")


def _certificate_text(certificate: Any, verdict: str) -> str:
    if verdict != "verified":
        return ""
    if not isinstance(certificate, dict) or not isinstance(certificate.get("facts"), list):
        return "none (not replayable by dpaudit recheck)"
    routes = sorted({str(fact.get("route")) for fact in certificate["facts"] if isinstance(fact, dict)})
    return f"{len(certificate['facts'])} facts ({', '.join(routes)}); dpaudit recheck replays them"


def _reproduce(document: dict[str, Any], result: dict[str, Any]) -> str:
    """The command that reruns one claim of the report with its seed and budgets."""
    path = result.get("spec_path")
    if not path:
        return ""
    quick = " --quick" if document.get("quick") else ""
    candidate = document.get("candidate")
    if isinstance(candidate, dict) and candidate.get("ref"):
        return f"dpaudit check {path} --candidate {candidate['ref']} --seed {document.get('seed')}{quick}"
    return f"dpaudit audit {path} --seed {document.get('seed')}{quick}"


def _obligation(item: dict[str, Any], anchor: str, figures: list[PlacedFigure]) -> dict[str, Any]:
    obligation = item.get("obligation", {})
    evidence = item.get("evidence", {})
    details = evidence.get("details") if isinstance(evidence.get("details"), dict) else {}
    seed = item.get("seed") or {}
    verdict = str(evidence.get("verdict", "unknown"))
    return {
        **_labelled(obligation_label(item), verdict),
        "id": str(obligation.get("id", "")),
        "anchor": anchor,
        "statement": str(obligation.get("statement", "")),
        "checker": str(obligation.get("checker", "")),
        "params": _pairs(obligation.get("params")),
        "source": _source_text(obligation.get("source")),
        "verdict": verdict,
        "verdict_class": verdict_class(verdict),
        "summary": str(evidence.get("summary", "")),
        "domain": str(evidence.get("domain", "")),
        "method": str(evidence.get("method", "")),
        "certificate": _certificate_text(evidence.get("certificate"), verdict),
        "assumption": _assumption(evidence.get("certificate"), verdict),
        "budget": _pairs(evidence.get("budget")),
        "measurements": [_measurement(m) for m in evidence.get("measurements") or []],
        "counterexample": _counterexample(evidence.get("counterexample")),
        "error": str(details.get("error", "")),
        "traceback": str(details.get("traceback", "")),
        "internal_error": bool(item.get("internal_error", False)),
        "seed": f"entropy {seed.get('entropy')}, spawn_key {format_value(seed.get('spawn_key'))}" if seed else "",
        "elapsed": _seconds(evidence.get("elapsed_seconds")),
        "figures": figures,
    }


#: Characters of a claim's source the summary table shows (the whole source is its hover text).
_SHORT_SOURCE = 80


def _shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _labelled(label: tuple[str, str], verdict: str) -> dict[str, str]:
    """The label a badge shows and its CSS class (the verdict's, or the label's own)."""
    return {"label": label[0], "badge_class": label[1] or verdict_class(verdict)}


def _legend(claims: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(label, CSS class, promise) of every label the report shows, in the order of the promises."""
    shown: dict[str, str] = {}
    for claim in claims:
        for part in (claim, *claim["relations"], *(o for r in claim["relations"] for o in r["obligations"])):
            shown.setdefault(part["label"], part["badge_class"])
    return [(label, shown[label], promise) for label, promise in VERDICT_PROMISES.items() if label in shown]


def _seconds(value: Any) -> str:
    number = to_float(value)
    return "" if number is None else f"{number:.3g} s"


def _time(value: Any) -> str:
    number = to_float(value)
    if number is None:
        return ""
    return datetime.fromtimestamp(number, tz=UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _label_counts(parts: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    """How many of ``parts`` (relations or obligations of the view) show each label, with its CSS
    class, in the legend's order."""
    counts = Counter(part["label"] for part in parts)
    classes = {part["label"]: part["badge_class"] for part in parts}
    order = [*VERDICT_PROMISES, *sorted(set(counts) - set(VERDICT_PROMISES))]
    return [(label, counts[label], classes[label]) for label in order if counts.get(label)]


def _relation(
    relation: dict[str, Any], anchor: str, obligations: list[dict[str, Any]], figures: list[PlacedFigure]
) -> dict[str, Any]:
    """The view of one (claim, relation): its label, key number, known findings and obligations."""
    verdict = str(relation.get("verdict", "unknown"))
    return {
        **_labelled(relation_label(relation), verdict),
        "key": key_number(relation),
        "name": str(relation.get("relation", "")),
        "anchor": anchor,
        "verdict": verdict,
        "verdict_class": verdict_class(verdict),
        "known_findings": sorted(
            {str(item.get("known_finding")) for item in relation.get("obligations", []) if item.get("known_finding")}
        ),
        "only_known_findings": bool(relation.get("only_known_findings")),
        "under_assumption": under_assumption(relation),
        "obligations": obligations,
        "figures": figures,
    }


def _header(document: dict[str, Any], claims: list[dict[str, Any]]) -> dict[str, Any]:
    """The report's header: run, seed, budgets, the counts of each label shown and the legend."""
    tool = document.get("tool") or {}
    relations = [relation for claim in claims for relation in claim["relations"]]
    obligations = [item for relation in relations for item in relation["obligations"]]
    summary = document.get("summary") or {}
    return {
        "version": str(tool.get("version", "")),
        "run": str(document.get("digest") or ""),
        "schema_version": str(document.get("schema_version", "")),
        "seed": format_value(document.get("seed")),
        "budgets": "quick" if document.get("quick") else "full",
        "interrupted": str(document.get("interrupted") or ""),
        "summary": _label_counts(relations)
        or [(str(key), value, verdict_class(key)) for key, value in summary.items() if to_float(value)],
        "legend": _legend(claims),
        "obligation_summary": [(label, count) for label, count, _ in _label_counts(obligations)],
    }


def report_view(document: dict[str, Any], figures: list[PlacedFigure]) -> dict[str, Any]:
    """The nested view of ``document`` that the HTML template and the Markdown renderer walk.

    Args:
        document: a report document (``audit.json``), of this or an older version.
        figures: the drawn figures, from :func:`dpaudit.report.figures.collect_figures`.

    Returns:
        A dict with ``header``, ``columns`` (relation names), ``grid`` (one row per claim),
        ``claims`` (each with its relations, obligations, figures) and ``provenance``.
    """
    placed: dict[tuple[int, int, int | None], list[PlacedFigure]] = {}
    for figure in figures:
        placed.setdefault((figure.claim, figure.relation, figure.obligation), []).append(figure)
    columns: list[str] = []
    claims = []
    for c, result in enumerate(document.get("claims", [])):
        claim = result.get("claim", {})
        claim_id = str(claim.get("id", f"claim {c + 1}"))
        anchor = f"claim-{c + 1}-{_slug(claim_id)}"
        relations = []
        for r, relation in enumerate(result.get("relations", [])):
            name = str(relation.get("relation", ""))
            if name not in columns:
                columns.append(name)
            relation_anchor = f"{anchor}-r{r + 1}"
            obligations = [
                _obligation(item, f"{relation_anchor}-o{o + 1}", placed.get((c, r, o), []))
                for o, item in enumerate(relation.get("obligations", []))
            ]
            relations.append(_relation(relation, relation_anchor, obligations, placed.get((c, r, None), [])))
        mechanism = claim.get("mechanism", {})
        verdict = str(result.get("verdict", "unknown"))
        claims.append(
            {
                **_labelled(claim_label(result), verdict),
                "id": claim_id,
                "anchor": anchor,
                "title": str(claim.get("title", "")),
                "verdict": verdict,
                "verdict_class": verdict_class(verdict),
                "source": _source_text(claim.get("source")),
                "source_short": _shortened(_source_text(claim.get("source")), _SHORT_SOURCE),
                "source_note": str((claim.get("source") or {}).get("note") or ""),
                "mechanism": str(mechanism.get("name", "")),
                "mechanism_params": _pairs(mechanism.get("params")),
                "guarantee": _pairs(claim.get("guarantee")),
                "parameters": _pairs(claim.get("parameters")),
                "spec_path": str(result.get("spec_path") or ""),
                "reproduce": _reproduce(document, result),
                "relations": relations,
                "by_relation": {relation["name"]: relation for relation in relations},
            }
        )
    tool = document.get("tool") or {}
    return {
        "header": _header(document, claims),
        "columns": columns,
        "filter_verdicts": [
            v
            for v in ("violated", "error", "inconclusive", "consistent", "verified", "proven")
            if any(claim["verdict"] == v for claim in claims)
        ],
        "claims": claims,
        "provenance": {
            "command": str(document.get("command") or ""),
            "seed": format_value(document.get("seed")),
            "started_at": _time(document.get("started_at")),
            "elapsed": _seconds(document.get("elapsed_seconds")),
            "environment": _pairs(document.get("environment")),
            "tool": f"{tool.get('name', 'dpaudit')} {tool.get('version', '')}".strip(),
            "schema_version": str(document.get("schema_version", "")),
        },
    }
