"""The public plugin facade ``dpaudit.plugin``: the example plugin imports only from it, and the
names it promises stay (the stability policy in its docstring)."""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

import dpaudit.plugin
from dpaudit.mechanisms.views import BUILTIN_VIEWS, DEPRECATED_VIEW_NAMES

EXAMPLE = Path(__file__).parent / "example_plugin"

#: The surface as published: a name may be added to dpaudit.plugin, none of these removed without a
#: DeprecationWarning first (see DEPRECATED).
PUBLISHED = {
    "AuditPairsView",
    "CandidateSignature",
    "CheckContext",
    "CheckerEntry",
    "Claim",
    "ConcentrationView",
    "DpAuditError",
    "Evidence",
    "GaussianShiftView",
    "GaussianView",
    "InputDomain",
    "InvalidArgument",
    "LaplaceView",
    "Measurement",
    "Mechanism",
    "MechanismSpec",
    "Neighbourhood",
    "Obligation",
    "OutputSpec",
    "PROBABILITY_VECTOR",
    "PerStepView",
    "PluginError",
    "PrivacyProfileView",
    "REAL_VECTOR",
    "Relation",
    "Source",
    "StatisticsView",
    "TRAJECTORIES",
    "UnknownName",
    "Verdict",
    "register_checker",
}

#: Published names on their way out: no longer in ``__all__``, still importable with a DeprecationWarning
#: for one minor release (views named by strings, replaced by the view Protocols).
DEPRECATED = {"GAUSSIAN_VIEW", "KNOWN_VIEWS"}


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


def test_the_view_protocols_are_published():
    for view in BUILTIN_VIEWS:
        assert getattr(dpaudit.plugin, view.__name__) is view
        assert view.__name__ in PUBLISHED


def test_the_deprecated_names_still_resolve_with_a_warning():
    assert not DEPRECATED & set(dpaudit.plugin.__all__)
    values = {"GAUSSIAN_VIEW": "gaussian_view", "KNOWN_VIEWS": set(DEPRECATED_VIEW_NAMES)}
    for name in sorted(DEPRECATED):
        with pytest.warns(DeprecationWarning, match=f"dpaudit.plugin.{name} is deprecated"):
            assert getattr(dpaudit.plugin, name) == values[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError):
            dpaudit.plugin.NO_SUCH_NAME
