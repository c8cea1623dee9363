"""Planted defects in dpaudit's own arithmetic, bounds and verdict logic (issue 19, point 8).

Each defect is one textual change to one source file, the kind of slip a maintainer could
make: a sign, an off-by-one, a wrong constant, a dropped term, a comparison turned around.
Every one must turn the named tests red; ``run.py`` plants each in a copy of the package and
runs them. The targets are the tests that should catch it (a fast subset of the suite).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFECTS", "Defect"]


@dataclass(frozen=True)
class Defect:
    """One planted defect: replace ``old`` (which must occur exactly once) by ``new`` in ``path``."""

    name: str
    area: str
    path: str
    old: str
    new: str
    targets: tuple[str, ...]


_PROFILES = ("tests/privacy/test_profiles.py", "tests/checks/test_gaussian_mechanism.py")
_CERTIFICATES = ("tests/checks/test_certificate_routes.py",)
_STATS = ("tests/checks/test_statistics.py", "tests/checks/test_empirical_power.py")
_EMPIRICAL = ("tests/checks/test_empirical.py", "tests/checks/test_parametric_and_atoms.py")
_ACCOUNTANTS = ("tests/privacy/accounting", "tests/checks/test_accountants.py")
_VERDICTS = ("tests/audit/test_verdicts.py", "tests/report/test_integrity.py")

DEFECTS: tuple[Defect, ...] = (
    # --- privacy arithmetic -------------------------------------------------------------------------------
    Defect(
        "gaussian-delta-sign",
        "privacy",
        "dpaudit/privacy/profiles.py",
        "mpmath.ncdf(a - b) - mpmath.exp(e) * mpmath.ncdf(-a - b)",
        "mpmath.ncdf(a - b) + mpmath.exp(e) * mpmath.ncdf(-a - b)",
        _PROFILES,
    ),
    Defect(
        "gaussian-delta-half-shift", "privacy", "dpaudit/privacy/profiles.py", "a = d / (2 * s)", "a = d / s", _PROFILES
    ),
    Defect(
        "gaussian-delta-sigma-squared",
        "privacy",
        "dpaudit/privacy/profiles.py",
        "b = e * s / d",
        "b = e * s * s / d",
        _PROFILES,
    ),
    Defect(
        "laplace-profile-factor",
        "privacy",
        "dpaudit/mechanisms/laplace.py",
        "return 1 - mpmath.exp((eps - ratio) / 2)",
        "return 1 - mpmath.exp(eps - ratio)",
        ("tests/mechanisms/test_laplace.py", *_CERTIFICATES),
    ),
    Defect(
        "laplace-profile-boundary",
        "privacy",
        "dpaudit/mechanisms/laplace.py",
        "if eps >= ratio:",
        "if eps >= ratio / 2:",
        ("tests/mechanisms/test_laplace.py",),
    ),
    Defect(
        "precise-value-error-dropped",
        "privacy",
        "dpaudit/privacy/precise_values.py",
        "error = abs(high - low) + abs(high) * mpmath.mpf(10) ** (-digits) + bound",
        "error = abs(high) * mpmath.mpf(10) ** (-digits) + bound",
        ("tests/privacy",),
    ),
    Defect(
        "precise-value-lower-inward",
        "privacy",
        "dpaudit/privacy/precise_values.py",
        "return mpmath.fsub(self.value, self.error, exact=True)",
        "return mpmath.fadd(self.value, self.error, exact=True)",
        ("tests/privacy", *_CERTIFICATES),
    ),
    Defect(
        "precise-value-upper-inward",
        "privacy",
        "dpaudit/privacy/precise_values.py",
        "return mpmath.fadd(self.value, self.error, exact=True)",
        "return mpmath.fsub(self.value, self.error, exact=True)",
        ("tests/privacy", *_CERTIFICATES),
    ),
    # --- accountants --------------------------------------------------------------------------------------
    Defect(
        "gaussian-rdp-factor",
        "accountants",
        "dpaudit/privacy/accounting/rdp.py",
        "return mpmath.mpf(a) / (2 * mpmath.mpf(s) ** 2), mpmath.mpf(0)",
        "return mpmath.mpf(a) / (mpmath.mpf(s) ** 2), mpmath.mpf(0)",
        _ACCOUNTANTS,
    ),
    Defect(
        "sampled-rdp-first-term",
        "accountants",
        "dpaudit/privacy/accounting/rdp.py",
        "            if k >= 2:",
        "            if k >= 3:",
        _ACCOUNTANTS,
    ),
    Defect(
        "sampled-rdp-exponent",
        "accountants",
        "dpaudit/privacy/accounting/rdp.py",
        "(arb(k * k - k) / two_sigma2).expm1()",
        "(arb(k * k - k) / (2 * two_sigma2)).expm1()",
        _ACCOUNTANTS,
    ),
    Defect(
        "rdp-truncation-dropped",
        "accountants",
        "dpaudit/privacy/accounting/rdp.py",
        "low, high = total.lower() - tail.upper(), total.upper() + tail.upper()",
        "low, high = total.lower(), total.upper()",
        _ACCOUNTANTS,
    ),
    Defect(
        "moment-from-rdp-order",
        "accountants",
        "dpaudit/privacy/accounting/rdp.py",
        "return rdp_at_lambda_plus_one.scaled(mpmath.mpf(factor))",
        "return rdp_at_lambda_plus_one.scaled(mpmath.mpf(factor) + 1)",
        _ACCOUNTANTS,
    ),
    Defect(
        "rdp-to-dp-order",
        "accountants",
        "dpaudit/privacy/accounting/conversions.py",
        "(mpmath.mpf(value.upper) + mpmath.log(1 / mpmath.mpf(target)) / (mpmath.mpf(order) - 1), order)",
        "(mpmath.mpf(value.upper) + mpmath.log(1 / mpmath.mpf(target)) / mpmath.mpf(order), order)",
        _ACCOUNTANTS,
    ),
    Defect(
        "tail-bound-lambda",
        "accountants",
        "dpaudit/privacy/accounting/conversions.py",
        "((mpmath.mpf(value.upper) + mpmath.log(1 / mpmath.mpf(target))) / mpmath.mpf(lam), lam)",
        "((mpmath.mpf(value.upper) + mpmath.log(1 / mpmath.mpf(target))) / (mpmath.mpf(lam) + 1), lam)",
        _ACCOUNTANTS,
    ),
    Defect(
        "pld-delta-expm1-sign",
        "accountants",
        "dpaudit/privacy/accounting/pld.py",
        "self.pmf[start:] * -np.expm1(eps - self.losses[start:])",
        "self.pmf[start:] * -np.expm1(self.losses[start:] - eps)",
        _ACCOUNTANTS,
    ),
    Defect(
        "pld-infinity-mass-dropped",
        "accountants",
        "dpaudit/privacy/accounting/pld.py",
        "value = float(np.sum(self.pmf[start:] * -np.expm1(eps - self.losses[start:]))) + self.infinity_mass",
        "value = float(np.sum(self.pmf[start:] * -np.expm1(eps - self.losses[start:])))",
        _ACCOUNTANTS,
    ),
    Defect(
        "pld-slack-dropped",
        "accountants",
        "dpaudit/privacy/accounting/pld.py",
        "upper = min(1.0, max(pld.delta(epsilon) + slack(pld) for pld in self.pessimistic))",
        "upper = min(1.0, max(pld.delta(epsilon) for pld in self.pessimistic))",
        _ACCOUNTANTS,
    ),
    # --- empirical bounds ---------------------------------------------------------------------------------
    Defect(
        "clopper-pearson-lower-alpha",
        "empirical",
        "dpaudit/checks/empirical/statistics.py",
        "return float(special.betaincinv(k, n - k + 1, a))",
        "return float(special.betaincinv(k, n - k + 1, 2 * a))",
        _STATS,
    ),
    Defect(
        "clopper-pearson-lower-shape",
        "empirical",
        "dpaudit/checks/empirical/statistics.py",
        "return float(special.betaincinv(k, n - k + 1, a))",
        "return float(special.betaincinv(k + 1, n - k, a))",
        _STATS,
    ),
    Defect(
        "clopper-pearson-upper-alpha",
        "empirical",
        "dpaudit/checks/empirical/statistics.py",
        "return 1.0 - float(special.betaincinv(n - k, k + 1, a))",
        "return 1.0 - float(special.betaincinv(n - k, k + 1, 1 - a))",
        _STATS,
    ),
    Defect(
        "epsilon-bound-ignores-delta",
        "empirical",
        "dpaudit/checks/empirical/statistics.py",
        "return float(np.log((p_lower - delta) / q_upper))",
        "return float(np.log(p_lower / q_upper))",
        _STATS,
    ),
    Defect(
        "epsilon-bound-delta-guard",
        "empirical",
        "dpaudit/checks/empirical/statistics.py",
        "    if p_lower <= delta:\n        return -math.inf\n    if q_upper <= 0.0:",
        "    if p_lower < 0:\n        return -math.inf\n    if q_upper <= 0.0:",
        _STATS,
    ),
    Defect(
        "union-bound-dropped",
        "empirical",
        "dpaudit/checks/empirical/certification.py",
        "alpha = (1.0 - budget.confidence) / max(planned_bounds, 1)",
        "alpha = 1.0 - budget.confidence",
        _EMPIRICAL,
    ),
    Defect(
        "selection-alpha-reused",
        "empirical",
        "dpaudit/checks/empirical/certification.py",
        "selection_alpha = (1.0 - budget.confidence) / (2 * planned)",
        "selection_alpha = 0.5",
        _EMPIRICAL,
    ),
    Defect(
        "empirical-violated-at-equality",
        "empirical",
        "dpaudit/checks/empirical/audit.py",
        "violated = epsilon_bound > guarantee.epsilon",
        "violated = epsilon_bound > guarantee.epsilon - 0.5",
        _EMPIRICAL,
    ),
    Defect(
        "power-ceiling-ignored",
        "empirical",
        "dpaudit/checks/empirical/audit.py",
        "if not violated and power.too_small:",
        "if not violated and power.too_small and False:",
        _STATS,
    ),
    Defect(
        "parametric-scale-interval-side",
        "empirical",
        "dpaudit/checks/empirical/parametric.py",
        "scale_upper = math.sqrt(dof * variance / stats.chi2.ppf(alpha / 2, dof))",
        "scale_upper = math.sqrt(dof * variance / stats.chi2.ppf(1 - alpha / 2, dof))",
        _EMPIRICAL,
    ),
    Defect(
        "dirichlet-interval-cut",
        "empirical",
        "dpaudit/checks/empirical/dirichlet_fit.py",
        "cut = stats.chi2.ppf(1.0 - alpha, 1) / 2.0",
        "cut = stats.chi2.ppf(1.0 - alpha, 1) / 200.0",
        _EMPIRICAL,
    ),
    # --- exact checks and verdict logic -------------------------------------------------------------------
    Defect(
        "gaussian-check-bound-doubled",
        "verdicts",
        "dpaudit/checks/profiles/gaussian_mechanism.py",
        "if exact.upper <= claimed_delta:",
        "if exact.upper <= claimed_delta * 2:",
        ("tests/checks/test_gaussian_mechanism.py",),
    ),
    Defect(
        "exact-profile-violated-side",
        "verdicts",
        "dpaudit/checks/profiles/exact_profile.py",
        "elif lower > claimed:",
        "elif upper > claimed * 2:",
        ("tests/mechanisms/test_laplace.py",),
    ),
    Defect(
        "combine-verdicts-strongest",
        "verdicts",
        "dpaudit/kernel/verdicts.py",
        "return min(items, key=lambda verdict: verdict.strength)",
        "return max(items, key=lambda verdict: verdict.strength)",
        _VERDICTS,
    ),
    Defect(
        "policy-error-passes",
        "verdicts",
        "dpaudit/kernel/verdicts.py",
        "failing = {Verdict.VIOLATED, Verdict.ERROR}",
        "failing = {Verdict.VIOLATED}",
        _VERDICTS,
    ),
    Defect(
        "known-finding-any-verdict",
        "verdicts",
        "dpaudit/audit/runner.py",
        "return self.evidence.verdict is not Verdict.VIOLATED or self.finding_changed is not None",
        "return self.finding_changed is not None",
        ("tests/audit/test_verdicts.py", "tests/audit/test_pinned_findings.py"),
    ),
    Defect(
        "pin-range-ignored",
        "verdicts",
        "dpaudit/kernel/claims.py",
        "if self.low <= value <= self.high:",
        "if True:",
        ("tests/audit/test_pinned_findings.py",),
    ),
    Defect(
        "integrity-chain-unchecked",
        "verdicts",
        "dpaudit/report/integrity.py",
        "            if stated is not derived:",
        "            if False:",
        ("tests/report/test_integrity.py",),
    ),
    # --- certificates, candidates, neighbours -------------------------------------------------------------
    Defect(
        "certificate-rounds-inward",
        "certificates",
        "dpaudit/kernel/evidence.py",
        "rounded = math.ceil(scaled) if up else math.floor(scaled)",
        "rounded = math.floor(scaled) if up else math.ceil(scaled)",
        _CERTIFICATES,
    ),
    Defect(
        "recheck-tolerates-any-value",
        "certificates",
        "dpaudit/report/recheck.py",
        "if not lo - error <= value <= hi + error:",
        "if not lo - 1 <= value <= hi + 1:",
        ("tests/report/test_recheck.py",),
    ),
    Defect(
        "recheck-ignores-the-bound",
        "certificates",
        "dpaudit/report/recheck.py",
        'if relation == "<=" and not high <= bound:',
        'if relation == "<=" and not high <= bound + 1:',
        ("tests/report/test_recheck.py",),
    ),
    Defect(
        "gaussian-route-threshold",
        "certificates",
        "dpaudit/checks/certificates/routes.py",
        "threshold = shift / 2 - epsilon * sigma**2 / shift",
        "threshold = shift / 2 - epsilon * sigma / shift",
        _CERTIFICATES,
    ),
    Defect(
        "candidate-complex-accepted",
        "candidates",
        "dpaudit/audit/candidates/worker.py",
        "if array.dtype.kind not in _REAL_KINDS:",
        'if array.dtype.kind not in _REAL_KINDS + "c":',
        ("tests/audit/test_candidates.py",),
    ),
    Defect(
        "candidate-empty-accepted",
        "candidates",
        "dpaudit/audit/candidates/worker.py",
        "if array.size == 0:",
        "if array.size < 0:",
        ("tests/audit/test_candidates.py",),
    ),
    Defect(
        "neighbour-radius-doubled",
        "candidates",
        "dpaudit/mechanisms/interface.py",
        "if not distance <= radius * (1.0 + NEIGHBOUR_TOLERANCE):",
        "if not distance <= 2 * radius:",
        ("tests/mechanisms/test_interface.py", "tests/audit/test_spec.py"),
    ),
    # --- added with the rigorous FFT bound, interval events, shrinking, Lemma 9's search, ceilings ----------
    Defect(
        "fft-bound-propagation-dropped",
        "accountants",
        "dpaudit/privacy/accounting/pld.py",
        "spectrum_error = propagated + full * float(np.linalg.norm(power_error))",
        "spectrum_error = full * float(np.linalg.norm(power_error))",
        _ACCOUNTANTS,
    ),
    Defect(
        "pld-slack-uses-the-estimate",
        "accountants",
        "dpaudit/privacy/accounting/pld.py",
        "return self.truncation + self.roundoff\n",
        "return self.truncation + min(self.roundoff, self.roundoff_estimate)\n",
        _ACCOUNTANTS,
    ),
    Defect(
        "pld-no-grid-point-above-the-losses",
        "accountants",
        "dpaudit/privacy/accounting/pld.py",
        "k_max = max(math.floor(loss[-1] / h) + 1, k_min)",
        "k_max = max(math.floor(loss[-1] / h), k_min)",
        _ACCOUNTANTS,
    ),
    Defect(
        "numerical-point-counted-verified",
        "verdicts",
        "dpaudit/checks/accountants/claims.py",
        "            self.numerical.append(quantity)\n",
        "            self.verified += 1\n",
        ("tests/checks/test_accountants.py",),
    ),
    Defect(
        "interval-events-never-scored",
        "empirical",
        "dpaudit/checks/empirical/certification.py",
        'intervals="interval" in budget.events and not isinstance(projection, AtomProjection),',
        "intervals=False,",
        _EMPIRICAL,
    ),
    Defect(
        "shrink-keeps-a-pair-that-does-not-refute",
        "empirical",
        "dpaudit/checks/empirical/shrink.py",
        "        if bound is None:\n",
        "        if bound is None and attempts < 0:\n",
        ("tests/checks/test_shrink.py",),
    ),
    Defect(
        "lemma9-search-off-by-one",
        "symbolic",
        "dpaudit/checks/symbolic/smoothness.py",
        "if phi_k_by_enumeration(inner, v, k) != m * sum(rho):",
        "if phi_k_by_enumeration(inner, v, k) > m * sum(rho) + 1:",
        ("tests/checks/test_smoothness.py",),
    ),
    Defect(
        "ceiling-comparison-reversed",
        "verdicts",
        "dpaudit/checks/budget_limits.py",
        "        if value > ceiling(name):\n",
        "        if value < ceiling(name):\n",
        ("tests/audit/test_ceilings.py",),
    ),
    Defect(
        "enumeration-ceiling-ten-times-too-high",
        "verdicts",
        "dpaudit/checks/budget_limits.py",
        '    if count > ceiling("enumeration"):\n',
        '    if count > 10 * ceiling("enumeration"):\n',
        ("tests/audit/test_ceilings.py",),
    ),
    Defect(
        "memory-limit-not-applied",
        "verdicts",
        "dpaudit/audit/memory_budget.py",
        "    previous = resource.getrlimit(resource.RLIMIT_DATA)\n    limit_memory(mib)\n",
        "    previous = resource.getrlimit(resource.RLIMIT_DATA)\n",
        ("tests/audit/test_ceilings.py",),
    ),
    Defect(
        "rerun-margin-not-compared",
        "verdicts",
        "dpaudit/report/recheck.py",
        "    if not inside:\n",
        "    if not inside and False:\n",
        ("tests/report/test_recheck_rerun.py",),
    ),
    Defect(
        "fractional-rdp-second-series-ratio",
        "accountants",
        "dpaudit/privacy/accounting/rdp.py",
        "second *= shrink_second / odds",
        "second *= shrink_second * odds",
        _ACCOUNTANTS,
    ),
    Defect(
        "event-screen-ceiling-below-the-frequency",
        "statistics",
        "dpaudit/checks/empirical/certification.py",
        "p_hat = p_counts / trials * (1 + _PLUG_IN_SLACK)",
        "p_hat = p_counts / trials * 0.99",
        ("tests/checks/test_empirical.py",),
    ),
    Defect(
        "sweep-skips-a-block-on-its-mean-not-its-extreme",
        "sensitivity",
        "dpaudit/checks/sensitivity/pair_sweep.py",
        "high_measured = measured.max(axis=-1)",
        "high_measured = measured.mean(axis=-1)",
        ("tests/checks/test_sensitivity.py",),
    ),
    Defect(
        "chernoff-window-edge-without-the-tail-term",
        "accountants",
        "dpaudit/privacy/accounting/pld.py",
        "smallest = min(smallest, (times * cumulant + log_inverse_tail) / rate)",
        "smallest = min(smallest, times * cumulant / rate)",
        ("tests/privacy/accounting/test_pld.py",),
    ),
    Defect(
        "pld-window-wraps-to-the-wrong-end",
        "accountants",
        "dpaudit/privacy/accounting/pld.py",
        "window = np.concatenate([window, composed[: length - window.size]])",
        "window = np.concatenate([window, composed[size - length + window.size :]])",
        ("tests/privacy/accounting/test_pld.py",),
    ),
    Defect(
        "sweep-block-statistics-drop-the-second-record",
        "sensitivity",
        "dpaudit/checks/sensitivity/pair_sweep.py",
        "for i in range(1, rows.shape[-1]):",
        "for i in range(2, rows.shape[-1]):",
        ("tests/checks/test_sensitivity.py",),
    ),
)
