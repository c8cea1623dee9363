"""Puts round9/ (the candidates) and truth/ on sys.path for the truth scripts."""

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
for p in (HERE, HERE.parent):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))
