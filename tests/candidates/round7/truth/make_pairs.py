"""Writes specs/lsw_every_visit_pairs.json: one 1000-step trajectory cycling through the states 0..4, every reward 1
(first) or 0 (second). Run from tests/candidates/round7: python truth/make_pairs.py"""

import json
from pathlib import Path

STEPS = 1000


def cycling(reward):
    return [[t % 5, 0, reward] for t in range(STEPS)]


def main():
    pairs = [{"first": [cycling(1.0)], "second": [cycling(0.0)], "label": "one 1000-step cycle, rewards 1 vs 0"}]
    out = Path(__file__).resolve().parent.parent / "specs" / "lsw_every_visit_pairs.json"
    out.write_text(json.dumps(pairs, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
