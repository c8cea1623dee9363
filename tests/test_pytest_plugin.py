"""The pytest plugin gates a suite on dpaudit claims."""

import pytest

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


def test_a_marker_option_it_does_not_know_fails_the_test_naming_it(pytester, write_gaussian_spec):
    """A misspelt or unsupported keyword was ignored: the test ran without the limit it asked for."""
    good = write_gaussian_spec(name="good.toml")
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.dpaudit({str(good)!r}, time_limt=30)
        def test_misspelt(dpaudit_report):
            pass

        @pytest.mark.dpaudit({str(good)!r}, timeout=5)
        def test_a_check_option_without_a_candidate(dpaudit_report):
            pass
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*unknown option(s)*time_limt*", "*timeout*apply to a candidate's check only*"])


# The example spec at a tenth of its budgets: these tests are about how the plugin runs the user's code and
# reports, not the power of the statistics.
LAPLACE_SPEC = __import__("pathlib").Path(__file__).parent / "specs" / "laplace_candidate_small.toml"


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_the_fixture_audits_the_users_own_function_by_value(pytester):
    pytester.makepyfile(
        f"""
        import numpy as np

        def laplace(value, *, scale, sensitivity, rng):
            value = np.asarray(value, dtype=float)
            return value + rng.laplace(0.0, scale, value.shape)

        def leaky_laplace(value, *, scale, sensitivity, rng):
            value = np.asarray(value, dtype=float)
            return value + rng.laplace(0.0, scale / 3, value.shape)

        def test_correct(dpaudit_check):
            report = dpaudit_check(laplace, {str(LAPLACE_SPEC)!r}, quick=True)
            assert report.claims[0].verdict.value == "consistent"

        def test_leaky(dpaudit_check):
            dpaudit_check(leaky_laplace, {str(LAPLACE_SPEC)!r}, quick=True)
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*laplace-candidate under replace_one: violated*", "*certified epsilon lower bound*exceeds the claimed 1*"]
    )
    result.stdout.fnmatch_lines(["*replay: dpaudit.check(leaky_laplace*"])


@pytest.mark.slow  # a whole candidate audit end to end: the main CI job runs it, not the floors one
def test_the_marker_and_the_option_audit_a_named_candidate(pytester):
    pytester.makepyfile(
        mech="""
        import numpy as np

        def leaky(value, *, scale, sensitivity, rng):
            value = np.asarray(value, dtype=float)
            return value + rng.laplace(0.0, scale / 3, value.shape)
        """
    )
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.dpaudit({str(LAPLACE_SPEC)!r}, candidate="mech:leaky", quick=True)
        def test_marked(dpaudit_report):
            pass
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*dpaudit claims failed*", "*empirical-privacy: violated*"])
    result = pytester.runpytest_subprocess(
        "--dpaudit", str(LAPLACE_SPEC), "--dpaudit-candidate", "mech:leaky", "--dpaudit-quick"
    )
    result.assert_outcomes(failed=2)  # the marked test and the spec's one (claim, relation) item
    result.stdout.fnmatch_lines(["*replay: dpaudit check*--candidate mech:leaky*"])


def test_a_candidate_the_option_cannot_load_fails_with_its_reason_not_dpaudits_traceback(pytester):
    result = pytester.runpytest_subprocess("--dpaudit", str(LAPLACE_SPEC), "--dpaudit-candidate", "nowhere:mech")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*dpaudit could not audit*CandidateLoadError*no module named 'nowhere'*"])
    assert "Traceback" not in result.stdout.str() and "dpaudit/audit/" not in result.stdout.str()
