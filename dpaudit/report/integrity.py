"""Integrity of an audit.json: a content digest, and verdicts that follow from their evidence.

The digest is the SHA-256 of the canonical JSON without the timing fields and without the
digest itself, so an edited file (a verdict changed by hand, a number altered) no longer
matches. A digest is no signature: whoever edits the file can recompute it. The second
check therefore re-derives every verdict from what is below it (obligation verdicts ->
relation verdict -> claim verdict -> summary counts), so a report whose verdicts do not
follow from its evidence is refused even with a fresh digest. Every type is checked on the
way: a malformed file is a clear error naming the key, never a crash.
"""

from __future__ import annotations

import hashlib
from typing import Any

from dpaudit.errors import SpecError
from dpaudit.kernel.verdicts import Verdict, combine_verdicts, deciding, set_aside

__all__ = ["DIGEST_FIELD", "check_shapes", "content_digest", "verify_report"]

DIGEST_FIELD = "digest"


def content_digest(canonical_without_digest: str) -> str:
    """``sha256:<hex>`` of the canonical JSON text (timing fields and digest removed)."""
    return "sha256:" + hashlib.sha256(canonical_without_digest.encode("utf-8")).hexdigest()


def _expect(value: Any, kind: type | tuple[type, ...], key: str, path: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise SpecError(f"expected {names}, got {type(value).__name__}", path=path, key=key)
    return value


def _parts(parent: Any, field: str, key: str, path: str, empty: str) -> list[Any]:
    """The non-empty list ``parent[field]`` of a dict ``parent`` at ``key`` (a claim's relations, a relation's
    obligations); ``empty`` says what an empty list is."""
    items = _expect(_expect(parent, dict, key, path).get(field), list, f"{key}.{field}", path)
    if not items:
        raise SpecError(empty, path=path, key=f"{key}.{field}")
    return items


def _verdict(value: Any, key: str, path: str) -> Verdict:
    try:
        return Verdict(_expect(value, str, key, path))
    except ValueError:
        raise SpecError(f"unknown verdict {value!r}", path=path, key=key) from None


#: The fields of an obligation's evidence that readers of a report rely on, and the types each may have.
_EVIDENCE_FIELDS: dict[str, tuple[type, ...]] = {
    "summary": (str,),
    "measurements": (list,),
    "counterexample": (dict, type(None)),
    "details": (dict, type(None)),
    "certificate": (dict, type(None)),
    "budget": (dict, type(None)),
}


def check_shapes(document: dict[str, Any], path: str) -> None:
    """Refuse a report whose parts have another type than dpaudit writes (a claim that is not a table, a
    list of measurements that is a string ...): a clear error naming the key, before anything reads them.

    Raises:
        SpecError: naming the first malformed key.
    """
    if "seed" in document:
        _expect(document["seed"], int, "seed", path)
    if document.get("candidate") is not None:
        _expect(document["candidate"], dict, "candidate", path)
    for i, result in enumerate(_expect(document.get("claims"), list, "claims", path)):
        key = f"claims[{i}]"
        _expect(_expect(result, dict, key, path).get("claim"), dict, f"{key}.claim", path)
        for j, relation in enumerate(_parts(result, "relations", key, path, "a claim without relations")):
            where = f"{key}.relations[{j}]"
            for k, item in enumerate(_parts(relation, "obligations", where, path, "a relation without obligations")):
                at = f"{where}.obligations[{k}]"
                _expect(_expect(item, dict, at, path).get("obligation"), dict, f"{at}.obligation", path)
                if "seed" in item:
                    _expect(item["seed"], dict, f"{at}.seed", path)
                evidence = _expect(item.get("evidence"), dict, f"{at}.evidence", path)
                for field, kinds in _EVIDENCE_FIELDS.items():
                    if field in evidence:
                        _expect(evidence[field], kinds, f"{at}.evidence.{field}", path)
                for m, row in enumerate(evidence.get("measurements") or []):
                    _expect(row, dict, f"{at}.evidence.measurements[{m}]", path)


#: The checkers that set an obligation aside from its relation's verdict, and the verdict each sets aside
#: (None: any): a parametric fit no family passes is inconclusive; conformance is not privacy. A flag on another
#: checker's evidence, or on another verdict, is an edit: it counts.
SETS_ASIDE: dict[str, Verdict | None] = {
    "parametric_noise_fit": Verdict.INCONCLUSIVE,
    "gaussian_release_fit": Verdict.INCONCLUSIVE,
    "noise_multiplier_fit": Verdict.INCONCLUSIVE,
    "candidate_matches_reference": None,
}


def _set_aside_by(checker: Any, verdict: Verdict, details: dict[str, Any]) -> bool:
    """Whether a report's obligation is left out of its relation's verdict: :func:`set_aside` on its details,
    honoured only where its checker sets obligations aside (:data:`SETS_ASIDE`)."""
    if not isinstance(checker, str) or checker not in SETS_ASIDE or not set_aside(details):
        return False
    only = SETS_ASIDE[checker]
    return only is None or verdict is only


def verify_report(document: dict[str, Any], path: str, *, recomputed_digest: str | None) -> None:
    """Refuse a report whose digest or verdicts do not match its content.

    Args:
        document: the parsed audit.json.
        path: shown in errors.
        recomputed_digest: the digest of the document as read; ``None`` skips the digest check
            (a report written before digests existed).

    Raises:
        SpecError: naming the key that is malformed or does not follow.
    """
    check_shapes(document, path)
    if recomputed_digest is not None and document.get(DIGEST_FIELD) != recomputed_digest:
        raise SpecError(
            "the content does not match its digest: the file was edited after dpaudit wrote it",
            path=path,
            key=DIGEST_FIELD,
        )
    claims = _expect(document.get("claims"), list, "claims", path)
    counts: dict[str, int] = {verdict.value: 0 for verdict in Verdict}
    for i, result in enumerate(claims):
        key = f"claims[{i}]"
        relation_verdicts = []
        for j, relation in enumerate(_parts(result, "relations", key, path, "a claim without relations")):
            where = f"{key}.relations[{j}]"
            items = _parts(relation, "obligations", where, path, "a relation without obligations")
            verdicts = []
            for k, item in enumerate(items):
                evidence = _expect(
                    _expect(item, dict, f"{where}.obligations[{k}]", path).get("evidence"),
                    dict,
                    f"{where}.obligations[{k}].evidence",
                    path,
                )
                verdict = _verdict(evidence.get("verdict"), f"{where}.obligations[{k}].evidence.verdict", path)
                details = evidence.get("details")
                checker = (
                    item.get("obligation", {}).get("checker") if isinstance(item.get("obligation"), dict) else None
                )
                verdicts.append((verdict, isinstance(details, dict) and _set_aside_by(checker, verdict, details)))
            stated = _verdict(relation.get("verdict"), f"{where}.verdict", path)
            derived = combine_verdicts(verdict for verdict, _ in deciding(verdicts, lambda pair: pair[1]))
            if stated is not derived:
                raise SpecError(
                    f"verdict {stated.value!r} does not follow from its obligations (they give {derived.value!r})",
                    path=path,
                    key=f"{where}.verdict",
                )
            counts[stated.value] += 1
            relation_verdicts.append(stated)
        if "verdict" not in result:  # reports of early versions state relation verdicts only
            continue
        stated_claim = _verdict(result.get("verdict"), f"{key}.verdict", path)
        if stated_claim is not combine_verdicts(relation_verdicts):
            raise SpecError(
                f"verdict {stated_claim.value!r} does not follow from its relations", path=path, key=f"{key}.verdict"
            )
    summary = document.get("summary")
    if summary is not None and _expect(summary, dict, "summary", path) != counts:
        raise SpecError(f"summary {summary} does not match the verdicts below it ({counts})", path=path, key="summary")
