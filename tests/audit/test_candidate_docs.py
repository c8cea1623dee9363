"""docs/candidates.md lists every candidate kind with the signature its mechanism defines."""

from pathlib import Path

from dpaudit.audit.candidates.kinds import candidate_kinds

DOC = (Path(__file__).parents[2] / "docs" / "candidates.md").read_text(encoding="utf-8")


def test_every_kind_and_signature_is_documented():
    for kind in candidate_kinds():
        assert kind.candidate is not None
        assert f"| `{kind.name}` | `{kind.candidate.text.replace('|', chr(92) + '|')}` |" in DOC, kind.name
