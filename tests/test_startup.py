"""Start-up: `dpaudit --help` and `dpaudit list` import no heavy library (issue 20)."""

import json
import subprocess
import sys

HEAVY = ("scipy", "sympy", "hypothesis", "cvxpy", "matplotlib")

PROBE = """
import contextlib, io, json, sys
from dpaudit.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in {heavy})))
"""


def _loaded(*args: str) -> list[str]:
    code = PROBE.replace("{heavy}", repr(set(HEAVY)))
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_help_and_list_import_no_heavy_library():
    assert _loaded("--help") == []
    assert _loaded("list") == []


def test_a_lazy_module_imports_on_first_use():
    from dpaudit._lazy import lazy_module

    fractions = lazy_module("fractions")
    assert "lazy module 'fractions'" in repr(fractions)
    assert fractions.Fraction(1, 2) == 0.5


def test_import_dpaudit_loads_nothing_until_a_name_is_used():
    """The console script reaches the code that holds a Ctrl-C back as soon as the interpreter starts
    (dpaudit/_entry.py): ``import dpaudit`` loads no module of its own, and each public name on first use."""
    code = (
        "import sys, json, dpaudit\n"
        "before = sorted(name for name in sys.modules if name.startswith('dpaudit.'))\n"
        "names = [dpaudit.SpecError.__module__, dpaudit.errors.__name__, type(dpaudit.__version__).__name__,\n"
        "         dpaudit.check.__module__, str(sorted(set(dpaudit.__all__) - set(dir(dpaudit))))]\n"
        "try:\n    dpaudit.no_such_name\nexcept AttributeError as exc:\n    names.append(str(exc))\n"
        "print(json.dumps([before, names]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, names = json.loads(result.stdout)
    assert before == []
    assert names == [
        "dpaudit.errors",
        "dpaudit.errors",
        "str",
        "dpaudit.api",
        "[]",
        "module 'dpaudit' has no attribute 'no_such_name'",
    ]
