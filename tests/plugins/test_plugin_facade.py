"""The public plugin facade ``dpaudit.plugin``: the example plugin imports only from it, and the
names it promises stay (the stability policy in its docstring)."""

from __future__ import annotations

import ast
from pathlib import Path

import dpaudit.plugin

EXAMPLE = Path(__file__).parent / "example_plugin"

#: The surface as first published: a name may be added to dpaudit.plugin, none of these removed.
PUBLISHED = {
    "CandidateSignature",
    "CheckContext",
    "CheckerEntry",
    "Claim",
    "DpAuditError",
    "Evidence",
    "GAUSSIAN_VIEW",
    "InputDomain",
    "InvalidArgument",
    "KNOWN_VIEWS",
    "Measurement",
    "Mechanism",
    "MechanismSpec",
    "Neighbourhood",
    "Obligation",
    "OutputSpec",
    "PROBABILITY_VECTOR",
    "PluginError",
    "REAL_VECTOR",
    "Relation",
    "Source",
    "TRAJECTORIES",
    "UnknownName",
    "Verdict",
    "register_checker",
}


def _dpaudit_imports(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names if node.module == "dpaudit")
    return {module for module in modules if module == "dpaudit" or module.startswith("dpaudit.")}


def test_the_example_plugin_imports_only_the_facade():
    files = sorted(EXAMPLE.rglob("*.py"))
    assert len(files) >= 3
    imported = {path.name: _dpaudit_imports(path) for path in files}
    assert {module for modules in imported.values() for module in modules} == {"dpaudit.plugin"}, imported


def test_the_import_check_sees_an_internal_import(tmp_path):
    plugin = tmp_path / "checks.py"
    plugin.write_text("from dpaudit.kernel.checkers import register_checker\nimport dpaudit.plugin\n")
    assert _dpaudit_imports(plugin) == {"dpaudit.kernel.checkers", "dpaudit.plugin"}
    plugin.write_text("from dpaudit import errors\n")
    assert _dpaudit_imports(plugin) == {"dpaudit", "dpaudit.errors"}


def test_the_published_names_stay_and_resolve():
    missing = PUBLISHED - set(dpaudit.plugin.__all__)
    assert not missing, f"published plugin names removed: {sorted(missing)}"
    for name in dpaudit.plugin.__all__:
        assert getattr(dpaudit.plugin, name) is not None, name
