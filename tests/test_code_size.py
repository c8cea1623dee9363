"""The house rules on size (docs/ARCHITECTURE.md, "Size"): no module of dpaudit above 450 lines, no
function above 80 (from its ``def`` to its last line). The allow-lists name what is still too big;
they only shrink: a file or function that fits is taken off, and nothing new goes on."""

from __future__ import annotations

import ast
from pathlib import Path

import dpaudit

PACKAGE = Path(dpaudit.__file__).resolve().parent
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 80

#: Modules above the limit, each to be split by responsibility (issue 39): none left.
LONG_MODULES: set[str] = set()

#: Functions above the limit, as "module path:function name" (issue 39): none left.
LONG_FUNCTIONS: set[str] = set()


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def long_modules() -> set[str]:
    """The modules of dpaudit above :data:`MAX_MODULE_LINES` lines."""
    return {_name(path) for path in _modules() if len(path.read_text().splitlines()) > MAX_MODULE_LINES}


def long_functions(path: Path) -> set[str]:
    """The functions (and methods) of ``path`` above :data:`MAX_FUNCTION_LINES` lines."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        is_function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if is_function and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
            found.add(f"{_name(path)}:{node.name}")
    return found


def test_no_module_grows_past_the_limit():
    assert not long_modules() - LONG_MODULES, sorted(long_modules() - LONG_MODULES)


def test_the_module_allow_list_only_names_modules_still_too_long():
    fitting = LONG_MODULES - long_modules()
    assert not fitting, f"fits now, take it off the list: {sorted(fitting)}"


def test_no_function_grows_past_the_limit():
    found = set().union(*(long_functions(path) for path in _modules()))
    assert not found - LONG_FUNCTIONS, sorted(found - LONG_FUNCTIONS)
    assert not LONG_FUNCTIONS - found, f"fits now, take it off the list: {sorted(LONG_FUNCTIONS - found)}"


def test_the_function_check_sees_a_long_function(tmp_path, monkeypatch):
    monkeypatch.setitem(globals(), "PACKAGE", tmp_path)
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "long.py").write_text(f"def long():\n{body}\n\n\ndef short():\n    return 1\n")
    assert long_functions(tmp_path / "long.py") == {"long.py:long"}
