"""The pytest plugin gates a suite on dpaudit claims."""

pytest_plugins = ["pytester"]


def test_spec_option_passes_and_fails(pytester, write_gaussian_spec):
    good = write_gaussian_spec(name="good.toml")
    result = pytester.runpytest_subprocess("--dpaudit", str(good))
    result.assert_outcomes(passed=1)
    bad = write_gaussian_spec(epsilon="4.30", name="bad.toml")
    result = pytester.runpytest_subprocess("--dpaudit", str(bad))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*gaussian under replace_one: violated*"])


def test_marker_and_fixture(pytester, write_gaussian_spec):
    good = write_gaussian_spec(name="good.toml")
    bad = write_gaussian_spec(epsilon="4.30", name="bad.toml")
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.dpaudit({str(good)!r})
        def test_good(dpaudit_report):
            assert dpaudit_report.claims[0].verdict.value == "verified"

        @pytest.mark.dpaudit({str(bad)!r})
        def test_bad(dpaudit_report):
            pass
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1, errors=0, failed=1)
