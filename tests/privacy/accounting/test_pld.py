"""Tests of the PLD accountant: enclosures of exact profiles, composition, the peer's value."""

import math

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.privacy.accounting.mixtures import GaussianMixture, OutputPair
from dpaudit.privacy.accounting.pld import compose_pairs, discretise_pair
from dpaudit.privacy.profiles import gaussian_delta

GAUSS = OutputPair(GaussianMixture.gaussian(1.0, 1.0), GaussianMixture.gaussian(0.0, 1.0), "gaussian")


def sampled(q, sigma):
    pair = OutputPair(GaussianMixture.two_point(q, 1.0, 0.0, sigma), GaussianMixture.gaussian(0.0, sigma), "sgm")
    return [pair, pair.reversed()]


@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0, 2.5, 4.37717809568])
def test_single_gaussian_delta_is_enclosed(epsilon):
    value = compose_pairs([GAUSS], 1, interval=1e-3).delta(epsilon)
    exact = float(gaussian_delta(epsilon, 1.0, 1.0).value)
    assert value.lower <= exact <= value.upper
    assert value.upper - value.lower < 1e-6


def test_composed_gaussians_match_one_gaussian():
    # 16 compositions of sigma = 4 equal one Gaussian with sigma = 1.
    pair = OutputPair(GaussianMixture.gaussian(1.0, 4.0), GaussianMixture.gaussian(0.0, 4.0))
    value = compose_pairs([pair], 16, interval=1e-3).epsilon(1e-5)
    assert value.lower <= 4.37717809568 <= value.upper
    assert value.upper - value.lower < 1e-4


def test_pessimistic_and_optimistic_keep_mass():
    upper, lower = discretise_pair(sampled(0.05, 1.0)[0], interval=1e-3)
    assert abs(upper.pmf.sum() + upper.infinity_mass - 1) < 1e-12
    assert lower.pmf.sum() <= 1 + 1e-12
    assert np.all(upper.pmf >= 0) and np.all(lower.pmf >= 0)


def test_interval_contains_or_lies_below_dp_accounting_pessimistic_value():
    pld = pytest.importorskip("dp_accounting.pld")
    import dp_accounting

    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1)), 1000
    )
    accountant = pld.PLDAccountant()
    accountant.compose(event)
    peer = accountant.get_epsilon(1e-5)
    ours = compose_pairs(sampled(0.01, 1.1), 1000, interval=1e-4).epsilon(1e-5)
    assert ours.lower <= peer
    assert (ours.upper - ours.lower) <= 0.01 * ours.upper


def test_decreasing_loss_is_reflected():
    forward = compose_pairs([GAUSS], 1, interval=1e-3).delta(0.5)
    backward = compose_pairs([OutputPair(GAUSS.first.reflected(), GAUSS.second.reflected())], 1, interval=1e-3).delta(
        0.5
    )
    assert math.isclose(forward.upper, backward.upper, rel_tol=1e-9)


def test_non_monotone_loss_is_rejected():
    wide = GaussianMixture((0.5, 0.5), (-3.0, 3.0), 1.0)
    with pytest.raises(InvalidArgument):
        discretise_pair(OutputPair(wide, GaussianMixture.gaussian(0.0, 1.0)), interval=1e-3)


@pytest.mark.parametrize("interval", [0, -0.0, math.nan, math.inf, 2.0])
def test_invalid_interval(interval):
    with pytest.raises(InvalidArgument):
        discretise_pair(GAUSS, interval=interval)


def test_invalid_steps_and_pairs():
    with pytest.raises(InvalidArgument):
        compose_pairs([], 3)
    with pytest.raises(InvalidArgument):
        compose_pairs([GAUSS], 0)


def test_mass_at_infinite_loss_counts_in_delta_at_every_epsilon():
    """delta(eps) = sum_{l > eps} p(l) (1 - e^(eps - l)) + p(inf): an atom only one side can produce
    (loss +inf) adds its whole mass at every epsilon, and composition keeps it."""
    from dpaudit.privacy.accounting.discrete_pld import DiscretePld

    pld = DiscretePld(interval=0.5, offset=-1, pmf=np.array([0.3, 0.3, 0.3]), infinity_mass=0.1, pessimistic=True)
    for epsilon in (0.0, 0.4, 5.0, 50.0):
        expected = sum(
            p * (1 - math.exp(epsilon - loss)) for p, loss in zip(pld.pmf, pld.losses, strict=True) if loss > epsilon
        )
        assert pld.delta(epsilon) == pytest.approx(expected + 0.1, abs=1e-15)
    twice = pld.self_compose(2)
    assert twice.delta(50.0) == pytest.approx(1 - 0.9**2, rel=1e-9)


@pytest.mark.parametrize(
    ("records", "steps", "sigma", "sampling"),
    [(3000, 2819, 1.2011224087864498, "uniform_one"), (300, 3000, 0.65, "poisson")],
)
def test_a_loss_bounded_above_leaves_no_mass_at_infinity(records, steps, sigma, sampling):
    """The reverse order of a sampled pair has loss below -ln(1 - q); with no grid point above it the top
    cell's leftover went to +inf and the upper end of epsilon(1e-5) was inf at the default grid step."""
    from dpaudit.mechanisms.accountant import SubsampledGaussianAccountant

    point = {"records": records, "noise_multiplier": sigma, "steps": steps, "delta": 1e-5}
    coarse = SubsampledGaussianAccountant(sampling=sampling).certified_epsilon(point)
    fine = SubsampledGaussianAccountant(sampling=sampling, interval=2e-5).certified_epsilon(point)
    assert math.isfinite(coarse.upper)
    assert max(coarse.lower, fine.lower) <= min(coarse.upper, fine.upper)  # both enclose the true epsilon
    assert fine.upper - fine.lower < 0.01 * fine.lower


def test_fft_roundoff_bound_contains_the_error_against_exact_convolution():
    """Higham's bound (discrete_pld._fft_roundoff) against the T-fold convolution in exact rationals."""
    from fractions import Fraction

    from dpaudit.privacy.accounting.discrete_pld import DiscretePld

    rng = np.random.default_rng(5)
    pmf = rng.random(9)
    pmf /= pmf.sum() * 1.001
    steps = 7
    exact = [Fraction(1)]
    for _ in range(steps):
        out = [Fraction(0)] * (len(exact) + pmf.size - 1)
        for i, a in enumerate(exact):
            for j, b in enumerate(pmf):
                out[i + j] += a * Fraction(float(b))
        exact = out
    composed = DiscretePld(1.0, 0, pmf, 0.0, True).self_compose(steps, tail_mass=1e-300)
    got = np.zeros(len(exact))
    start = composed.offset
    for k, value in enumerate(composed.pmf):
        if 0 <= start + k < len(exact):
            got[start + k] = value
    error = sum(abs(Fraction(float(g)) - e) for g, e in zip(got, exact, strict=True))
    assert 0 < float(error) <= composed.roundoff < 1e-12  # a bound, and not a vacuous one
    assert composed.roundoff_estimate <= composed.roundoff


def test_fft_roundoff_bound_is_higham_by_hand_for_a_point_mass():
    """x = (1): every coefficient is 1, so each term of the bound has a closed form (Higham 2002,
    Thm 24.2 with t = log2 n + 1, mu = 4u; the power's error rho = T (3u pi + 2u) + 5u)."""
    from dpaudit.privacy.accounting.discrete_pld import DiscretePld, _fft_roundoff

    u, n, steps = 2.0**-53, 64, 1000
    pmf = np.zeros(n)
    pmf[0] = 1.0
    spectrum = np.fft.rfft(pmf)
    gamma4 = 4 * u / (1 - 4 * u)
    eta = 4 * u + gamma4 * (math.sqrt(2) + 4 * u)
    c = 7 * eta / (1 - 7 * eta)
    forward = c * math.sqrt(n)
    propagated = steps * (1 + forward) ** (steps - 1) * forward
    rho = steps * (3 * u * math.pi + 2 * u) + 5 * u
    half = n // 2 + 1
    power = math.sqrt(2) * rho * math.exp(rho) * math.sqrt(half)
    expected = 2 * (propagated + power + c * math.sqrt(2) * math.sqrt(half))
    assert _fft_roundoff(pmf, np.log(np.abs(spectrum)), spectrum, steps, n) == pytest.approx(expected, rel=1e-9, abs=0)
    composed = DiscretePld(1.0, 0, pmf[:2], 0.0, True).self_compose(steps)
    assert composed.slack == composed.truncation + composed.roundoff  # the rigorous bound, not the estimate
    assert composed.estimated_slack <= composed.slack


@pytest.mark.parametrize("steps", [7, 10**5, 10**6])
def test_each_powered_coefficient_is_within_the_bound_of_fft_roundoff(steps):
    """discrete_pld._power's error on each coefficient, against z^T in mpmath from the same float z, stays
    within _fft_roundoff's term rho e^rho |z^T| + 2^-1070, rho = T (3u (|ln|z|| + pi) + 2u) + 5u
    (at T = 10^6 most powers underflow: the absolute term covers them)."""
    import mpmath

    from dpaudit.privacy.accounting.discrete_pld import _power

    u = 2.0**-53
    rng = np.random.default_rng(11)
    pmf = rng.random(40) ** 4
    pmf /= pmf.sum()
    spectrum = np.fft.rfft(pmf, n=64)
    powered = _power(spectrum, np.log(np.abs(spectrum)), steps)
    with mpmath.workdps(60):
        for z, got in zip(spectrum, powered, strict=True):
            exact = mpmath.mpc(z.real, z.imag) ** steps
            rho = steps * (3 * u * (abs(math.log(abs(z))) + math.pi) + 2 * u) + 5 * u
            error = abs(mpmath.mpc(got.real, got.imag) - exact)
            assert error <= rho * math.exp(rho) * abs(got) + 2.0**-1070


@pytest.mark.parametrize(("steps", "tail"), [(3, 1e-9), (60, 1e-6), (400, 1e-12)])
def test_chernoff_window_holds_all_but_tail_mass_and_is_not_much_wider_than_needed(steps, tail):
    """discrete_pld._chernoff_window against the exact T-fold convolution of a skewed pmf (a heavy right tail,
    like a subsampled mechanism's loss): each side outside [low, high] has mass <= tail, and the
    window is at most twice as wide as the exact [tail, 1 - tail] quantile range."""
    from dpaudit.privacy.accounting.discrete_pld import _chernoff_window

    pmf = np.zeros(200)
    pmf[5:25] = np.exp(-0.5 * ((np.arange(5, 25) - 12) / 3.0) ** 2)
    pmf[25:] = 1e-6 * np.exp(-np.arange(175) / 40.0)
    pmf /= pmf.sum()
    exact = np.array([1.0])
    for _ in range(steps):
        exact = np.convolve(exact, pmf)
    low, high = _chernoff_window(pmf, steps, tail)
    assert exact[:low].sum() <= tail
    assert exact[high + 1 :].sum() <= tail
    cumulative = np.cumsum(exact)
    needed = int(np.searchsorted(cumulative, 1 - tail)) - int(np.searchsorted(cumulative, tail))
    assert high - low + 1 <= 2 * needed + 2


def test_mixture_log_density_is_the_log_of_the_density_and_minus_infinity_far_out():
    """GaussianMixture.log_density (a log-sum-exp written out): against the density summed directly, and
    -inf at x = +-inf."""
    from scipy.stats import norm

    from dpaudit.privacy.accounting.mixtures import GaussianMixture

    mixture = GaussianMixture((0.3, 0.7, 0.0), (-1.0, 2.0, 5.0), 0.8)
    x = np.array([-3.0, -1.0, 0.5, 2.0, 4.0, 30.0])
    direct = 0.3 * norm.pdf(x, -1.0, 0.8) + 0.7 * norm.pdf(x, 2.0, 0.8)
    assert mixture.log_density(x) == pytest.approx(np.log(direct), rel=1e-12)
    assert list(mixture.log_density(np.array([-np.inf, np.inf]))) == [-np.inf, -np.inf]


@pytest.mark.parametrize(("steps", "tail"), [(20, 1e-6), (200, 1e-6), (200, 1e-300)])
def test_a_window_that_wraps_round_the_cyclic_sum_is_read_in_order(steps, tail):
    """The Chernoff window starts at low mod n; when it runs past n it continues at 0. Against the direct
    T-fold convolution, its l1 error stays within the aliased tail mass and the round-off bound."""
    from dpaudit.privacy.accounting.discrete_pld import DiscretePld

    rng = np.random.default_rng(3)
    pmf = rng.random(40)
    pmf /= pmf.sum()
    single = DiscretePld(0.1, -7, pmf, 0.0, True)
    composed = single.self_compose(steps, tail_mass=tail)
    exact = np.array([1.0])
    for _ in range(steps):
        exact = np.convolve(exact, pmf)
    low = composed.offset - steps * single.offset
    size = 1 << (max(composed.pmf.size, pmf.size) - 1).bit_length()
    error = float(np.abs(composed.pmf - exact[low : low + composed.pmf.size]).sum())
    assert error <= composed.truncation + composed.roundoff
    assert composed.losses.flags.writeable is False
    for epsilon in (0.0, 0.3, 2.0):
        above = composed.losses > epsilon
        direct = float(np.sum(composed.pmf[above] * -np.expm1(epsilon - composed.losses[above])))
        assert composed.delta(epsilon) == min(max(direct, 0.0), 1.0)
    if tail > 1e-300:
        assert low % size + composed.pmf.size > size  # the case this test is for


def _epsilon_by_the_whole_grid(pld, delta, slack=0.0):
    """ε(δ) as DiscretePld.epsilon computes it, with δ evaluated at every positive grid point at once."""
    positive = pld.losses > 0
    mass, grid = pld.pmf[positive], pld.losses[positive]
    suffix_mass = np.concatenate([np.cumsum(mass[::-1])[::-1], [0.0]])
    suffix_scaled = np.concatenate([np.cumsum((mass * np.exp(-grid))[::-1])[::-1], [0.0]])
    base = pld.infinity_mass + slack
    if base + suffix_mass[0] - suffix_scaled[0] <= delta:
        return 0.0
    reached = np.nonzero(base + suffix_mass[1:] - np.exp(grid) * suffix_scaled[1:] <= delta)[0]
    if reached.size == 0:
        return math.inf
    k = int(reached[0])
    numerator = base + suffix_mass[k] - delta
    if suffix_scaled[k] <= 0 or numerator <= 0:
        return float(grid[k])
    return float(min(max(math.log(numerator / suffix_scaled[k]), 0.0), grid[k]))


@pytest.mark.parametrize("delta", [0.5, 1e-3, 1e-9, 1e-14, 0.0])
def test_epsilon_scans_the_grid_in_chunks_to_the_same_point(delta):
    """The scan stops at the first grid point within the target, in whichever chunk it lies."""
    from dpaudit.privacy.accounting.discrete_pld import DiscretePld

    losses = np.arange(-20_000, 150_000) * 1e-4
    pmf = np.exp(-0.5 * ((losses - 2.0) / 1.5) ** 2)
    pmf /= pmf.sum()
    pld = DiscretePld(1e-4, -20_000, pmf, 1e-15, True)
    for slack in (0.0, 1e-12):
        assert pld.epsilon(delta, slack=slack) == _epsilon_by_the_whole_grid(pld, delta, slack)
    assert pld.epsilon(1e-5) > 3.3  # past the first chunk of 32768 grid points
