"""A privacy loss distribution on a grid of losses: δ(ε), ε(δ), and its FFT self-composition.

:class:`DiscretePld` holds the P-law of the privacy loss on the grid ``(offset + i) h`` (the
discretisations of :mod:`dpaudit.privacy.accounting.pld` build it). Self-composition raises the
discrete Fourier transform to the T-th power on a window chosen by a Chernoff bound; the mass that
falls outside the window (aliased into it, or dropped) is bounded and carried as ``truncation``, and
the FFT round-off is bounded (Higham 2002, Theorem 24.2, see ``_fft_roundoff``) and carried as
``roundoff``, so a pessimistic distribution stays an upper bound after composition.

References:
    Koskela, Jälkö, Honkela 2020 (FFT accountant); Higham 2002, Ch. 24 (FFT error analysis).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit._validation import check_integer, check_real

scipy_fft = lazy_module("scipy.fft")

__all__ = ["DiscretePld"]

_UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True, eq=False)
class DiscretePld:
    """The P-law of the privacy loss on the grid ``(offset + i) * interval``, plus a mass at +∞.

    Attributes:
        interval: the grid step h.
        offset: the grid index of ``pmf[0]``.
        pmf: P-mass at each grid loss (total may be below 1: missing mass is at loss -∞).
        infinity_mass: P-mass where Q has none (loss +∞).
        pessimistic: True for an upper-bounding (dominating) PLD, False for a lower-bounding one.
        truncation: a bound on the δ error from mass outside the composition window.
        roundoff: a bound on the δ error from floating-point rounding (cells: an allowance; FFT
            composition: Higham's bound, see ``_fft_roundoff``).
        roundoff_estimate: an estimate of the same error (the inverse FFT's noise floor, seen in
            its negative entries); much smaller than the bound after many compositions, and no
            more than an estimate (results that need it are ``consistent``, not ``verified``).
    """

    interval: float
    offset: int
    pmf: np.ndarray
    infinity_mass: float
    pessimistic: bool
    truncation: float = 0.0
    roundoff: float = 0.0
    roundoff_estimate: float = 0.0

    @cached_property
    def losses(self) -> np.ndarray:
        """The grid loss of each pmf entry, non-decreasing (computed once, read-only)."""
        losses = (self.offset + np.arange(self.pmf.size)) * self.interval
        losses.flags.writeable = False
        return losses

    def _first_above(self, loss: float) -> int:
        """The index of the first grid loss > ``loss``: the entries above it are a suffix of the pmf."""
        return int(np.searchsorted(self.losses, loss, side="right"))

    @property
    def slack(self) -> float:
        """The total δ error bound (truncation plus round-off)."""
        return self.truncation + self.roundoff

    @property
    def estimated_slack(self) -> float:
        """The δ error with the round-off estimated instead of bounded."""
        return self.truncation + min(self.roundoff_estimate, self.roundoff)

    def delta(self, epsilon: float) -> float:
        """δ(ε) = Σ_{ℓ > ε} p(ℓ) (1 - e^{ε - ℓ}) + p(∞), without the slack."""
        eps = check_real("epsilon", epsilon, low=0.0)
        start = self._first_above(eps)
        value = float(np.sum(self.pmf[start:] * -np.expm1(eps - self.losses[start:]))) + self.infinity_mass
        return min(max(value, 0.0), 1.0)

    def epsilon(self, delta: float, *, slack: float = 0.0) -> float:
        """The smallest ε >= 0 with δ(ε) + slack <= delta (``inf`` if none)."""
        target = check_real("delta", delta, low=0.0, high=1.0)
        start = self._first_above(0.0)
        mass = self.pmf[start:]
        grid = self.losses[start:]
        scaled = mass * np.exp(-grid)
        suffix_mass = np.concatenate([np.cumsum(mass[::-1])[::-1], [0.0]])
        suffix_scaled = np.concatenate([np.cumsum(scaled[::-1])[::-1], [0.0]])
        base = self.infinity_mass + slack
        if base + suffix_mass[0] - suffix_scaled[0] <= target:
            return 0.0
        k = _first_reached(base, grid, suffix_mass, suffix_scaled, target)
        if k is None:
            return math.inf
        numerator = base + suffix_mass[k] - target
        if suffix_scaled[k] <= 0 or numerator <= 0:
            return float(grid[k])
        return float(min(max(math.log(numerator / suffix_scaled[k]), 0.0), grid[k]))

    def self_compose(self, times: int, *, tail_mass: float = 1e-15) -> DiscretePld:
        """The PLD of ``times`` independent copies, by FFT on a Chernoff-bounded window.

        The mass of the composed loss outside the window is at most ``2 * tail_mass``; the cyclic
        convolution aliases it into the window or past its end (where it is dropped), and it is
        counted in ``truncation``.
        """
        count = check_integer("times", times, low=1)
        tail = check_real("tail_mass", tail_mass, low=0.0, high=0.5, low_open=True)
        if count == 1:
            return self
        low, high = _chernoff_window(self.pmf, count, tail)
        # a power of two, the setting of the FFT error bound (see _fft_roundoff)
        size = 1 << (max(high - low + 1, self.pmf.size) - 1).bit_length()
        spectrum = scipy_fft.rfft(self.pmf, n=size)
        with np.errstate(divide="ignore"):
            log_magnitude = np.log(np.abs(spectrum))
        powered = _power(spectrum, log_magnitude, count)
        composed = scipy_fft.irfft(powered, n=size)
        noise = float(max(-composed.min(), 0.0))
        # the sum's index j lands at j mod size; the window keeps low..high. The entries after it hold
        # only mass from outside [low, high] (at most 2 tail, as is what aliases into the window):
        # dropping them moves delta(eps) by no more than that mass, already in ``truncation``
        start, length = low % size, high - low + 1
        window = composed[start : start + length]
        if window.size < length:
            window = np.concatenate([window, composed[: length - window.size]])
        # clipping at 0 moves no entry away from its true (non-negative) value
        window = np.clip(window, 0.0, None)
        roundoff = _fft_roundoff(self.pmf, log_magnitude, powered, count, size)
        # the estimate: the negative entries show the inverse FFT's noise floor; raising each
        # coefficient to the T-th power multiplies its relative error by about T
        estimate = size * noise + 4 * _UNIT_ROUNDOFF * (count + math.log2(size)) * float(window.sum())
        infinity = -math.expm1(count * math.log1p(-self.infinity_mass)) if self.infinity_mass < 1 else 1.0
        return DiscretePld(
            interval=self.interval,
            offset=count * self.offset + low,
            pmf=window,
            infinity_mass=infinity,
            pessimistic=self.pessimistic,
            truncation=count * self.truncation + 2 * tail,
            roundoff=count * self.roundoff + roundoff,
            roundoff_estimate=count * self.roundoff_estimate + estimate,
        )


#: Grid points per step of :func:`_first_reached`.
_SCAN_CHUNK = 1 << 15


def _first_reached(
    base: float, grid: np.ndarray, suffix_mass: np.ndarray, suffix_scaled: np.ndarray, target: float
) -> int | None:
    """The first k with δ(grid[k]) + slack = base + M_{k+1} − e^{grid[k]} S_{k+1} <= target (δ at ε = grid[k]
    uses the masses strictly above it: suffix index k + 1), scanned from the left a chunk at a time (the
    answer is usually near the start of a long grid); None when there is none."""
    for begin in range(0, grid.size, _SCAN_CHUNK):
        end = min(begin + _SCAN_CHUNK, grid.size)
        at_grid = base + suffix_mass[begin + 1 : end + 1] - np.exp(grid[begin:end]) * suffix_scaled[begin + 1 : end + 1]
        reached = np.flatnonzero(at_grid <= target)
        if reached.size:
            return begin + int(reached[0])
    return None


#: Assumed accuracy of the library's FFT twiddle factors, |w_computed - w| <= _TWIDDLE_ERROR
#: (Higham 2002, eq. 24.4: mu).
_TWIDDLE_ERROR = 4 * _UNIT_ROUNDOFF
#: exp(x) is 0 in float64 for x below about -745.13; below this, far past it, no power |z|^T is computed.
_EXP_IS_ZERO_BELOW = -800.0
#: Absolute error of a power |z|^T below the normal range (exp and the product each round
#: a subnormal result to within 2^-1075): far above both.
_UNDERFLOW = 2.0**-1070


def _power(spectrum: np.ndarray, log_magnitude: np.ndarray, count: int) -> np.ndarray:
    """z^T for each coefficient z of ``spectrum`` (``log_magnitude``: log|z|, computed once for this
    and ``_fft_roundoff``), as |z|^T e^(i T arg z) = exp(T log|z|) (cos + i sin)(T arg z).

    Real passes (numpy's real log, exp, cos and sin are vectorised; its complex log and exp are
    not): half the time of exp(T log z). Accuracy assumed, as measured against mpmath over the
    arguments met here: |z| and log|z| within 2u relative, arg z within 2u pi absolute, exp within
    2u relative, cos and sin within u absolute (u = 2^-53); ``_fft_roundoff`` bounds the result.
    """
    exponent = log_magnitude * count
    # over many steps nearly every |z|^T underflows to 0 (99.99% of them in the audit's compositions):
    # exp, the angle, cos and sin are only needed where it did not
    candidates = np.flatnonzero(exponent >= _EXP_IS_ZERO_BELOW)
    radius = np.exp(exponent[candidates])
    live = candidates[radius != 0.0]
    kept = radius[radius != 0.0]
    angle = np.angle(spectrum[live])
    angle *= count
    powered = np.zeros(spectrum.shape, dtype=np.complex128)
    powered.real[live] = kept * np.cos(angle)
    powered.imag[live] = kept * np.sin(angle)
    return powered


def _fft_roundoff(pmf: np.ndarray, log_magnitude: np.ndarray, powered: np.ndarray, count: int, size: int) -> float:
    """A bound on sum_i |p_computed_i - p_i| for p = irfft(exp(T log rfft(x))) in float64.

    Higham 2002, Theorem 24.2: a radix-2 FFT of length n = 2^t computed in floating point has
    ||y_computed - y||_2 <= c ||y||_2 with c = t eta / (1 - t eta), eta = mu + gamma_4 (sqrt 2 + mu),
    gamma_4 = 4u / (1 - 4u), mu the twiddle-factor error; one more level is counted for the real
    transform's split. With S = F x (||S||_2 = sqrt(n) ||x||_2, Parseval) and |S_k| <= sum x <= 1:

    * forward: ||E1||_2 <= c sqrt(n) ||x||_2;
    * powering, propagated: |(z + e)^T - z^T| <= T |e| (1 + |e|)^(T-1), so in l2 at most
      T (1 + ||E1||)^(T-1) ||E1||_2; computed by ``_power``: T log|z| carries at most
      T (2u |ln|z|| + 2u) + u T |ln|z|| and T arg z at most 2u pi T + u pi T, so the exponent
      of e^(T log|z| + i T arg z) is off by at most T (3u (|ln|z_k|| + pi) + 2u); exp, cos, sin
      and the products add 5u: relative error at most rho_k = T (3u (|ln|z_k|| + pi) + 2u) + 5u,
      absolute rho_k e^rho_k |z_k|^T, plus :data:`_UNDERFLOW` for a power that falls below the
      normal range (half spectrum: times sqrt 2 for the full one);
    * inverse (1/n normalised): ||p_computed - F^-1 v||_2 <= c ||v||_2 / sqrt(n), and the
      spectrum's error E2 adds ||E2||_2 / sqrt(n);
    * l1 <= sqrt(n) l2 over the n entries: sum |dp| <= ||E2||_2 + c ||v||_2.

    The bound is evaluated in float64 and doubled for that evaluation's own rounding.
    pocketfft (scipy.fft) is a mixed radix-4/radix-2 Cooley-Tukey FFT for powers of two; the
    radix-2 bound is assumed to hold for it, with the twiddle error :data:`_TWIDDLE_ERROR`.

    References:
        Higham 2002, "Accuracy and Stability of Numerical Algorithms", Sec. 24.1, Theorem 24.2.
    """
    u = _UNIT_ROUNDOFF
    levels = int(size).bit_length()  # log2(n) + 1 for the real transform
    gamma4 = 4 * u / (1 - 4 * u)
    eta = _TWIDDLE_ERROR + gamma4 * (math.sqrt(2.0) + _TWIDDLE_ERROR)
    c = levels * eta / (1 - levels * eta)
    forward = c * math.sqrt(size) * float(np.linalg.norm(pmf))
    propagated = count * math.exp((count - 1) * math.log1p(forward)) * forward
    # a zero power (|z|^T underflowed, or z = 0) contributes rho e^rho |0| + _UNDERFLOW (or 0 for z = 0): the
    # product is only formed where the power is not zero
    power_error = np.where(log_magnitude > -np.inf, _UNDERFLOW, 0.0)
    live = np.flatnonzero(powered)
    rho = count * (3 * u * (np.abs(log_magnitude[live]) + math.pi) + 2 * u) + 5 * u
    power_error[live] = rho * np.exp(rho) * np.abs(powered[live]) + _UNDERFLOW
    full = math.sqrt(2.0)
    spectrum_error = propagated + full * float(np.linalg.norm(power_error))
    return 2.0 * (spectrum_error + c * full * float(np.linalg.norm(powered)))


def _chernoff_window(pmf: np.ndarray, times: int, tail: float) -> tuple[int, int]:
    """Index range [low, high] of the ``times``-fold sum outside which each side has mass <= ``tail``.

    P(S >= mean T + v) <= exp(T K(t) - t v) for t > 0, K(t) = log Σ_i p_i e^{t (i - mean)} (the
    cumulant generating function of the centred index), so v(t) = (T K(t) + log(1/tail)) / t is an
    edge above the mean for every t > 0, and the lower edge likewise with -t. Any t gives a valid
    edge: the search for the best t (``_best_chernoff_rate``) only narrows the window.
    """
    support = np.nonzero(pmf > 0)[0]
    if support.size == 0:
        return 0, 0
    first, last = int(support[0]), int(support[-1])
    mass = pmf[first : last + 1]
    index = np.arange(first, last + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        log_p = np.log(mass)
    total = float(mass.sum())
    mean = float(np.einsum("i,i->", mass, index)) / total
    centred = index - mean
    spread = math.sqrt(max(float(np.einsum("i,i,i->", mass, centred, centred)) / total, 1e-12))
    log_inverse_tail = -math.log(tail)
    upper = mean * times + _best_chernoff_rate(log_p, centred, times, log_inverse_tail, spread)
    lower = mean * times - _best_chernoff_rate(log_p, -centred, times, log_inverse_tail, spread)
    # one index more on each side for the float64 evaluation of the edges (off by far less)
    high = int(min(math.ceil(upper) + 1, times * last))
    low = int(max(math.floor(lower) - 1, times * first))
    return low, max(high, low)


def _best_chernoff_rate(
    log_p: np.ndarray, centred: np.ndarray, times: int, log_inverse_tail: float, spread: float
) -> float:
    """The smallest edge v(t) = (T K(t) + log(1/tail)) / t found for t in [1e-4, 50] / spread.

    v'(t) = (G(t) - log(1/tail)) / t^2 with G(t) = T (t K'(t) - K(t)), and G'(t) = T t K''(t) > 0: G
    increases from 0, so v falls until G = log(1/tail) and rises after it. The search solves
    log G = log log(1/tail) in s = log t by Newton's method (d log G / ds = t^2 K'' / (t K' - K), a
    constant 2 for a Gaussian) kept inside a bracket that shrinks by bisection when a step leaves it,
    from the Gaussian guess t = sqrt(2 log(1/tail) / T) / spread; it stops when a step moves t by
    less than 1e-6 of itself. Every v(t) evaluated is a valid edge: the smallest is returned.
    """
    low, high = math.log(1e-4 / spread), math.log(50.0 / spread)
    log_rate = min(max(0.5 * math.log(2.0 * log_inverse_tail / times) - math.log(spread), low), high)
    squared = centred * centred
    smallest = math.inf
    # the sums below are einsum's loops, not BLAS dot products: a threaded BLAS on a short vector costs
    # several times more, on a loaded machine most
    for _ in range(60):
        rate = math.exp(log_rate)
        exponent = log_p + rate * centred
        top = float(np.max(exponent))
        weights = np.exp(exponent - top)
        total = float(weights.sum())
        tilted_mean = float(np.einsum("i,i->", weights, centred)) / total
        tilted_variance = float(np.einsum("i,i->", weights, squared)) / total - tilted_mean**2
        cumulant = top + math.log(total)
        smallest = min(smallest, (times * cumulant + log_inverse_tail) / rate)
        gap = rate * tilted_mean - cumulant  # G / T
        if times * gap < log_inverse_tail:
            low = log_rate
        else:
            high = log_rate
        if gap > 0 and tilted_variance > 0:
            step = math.log(times * gap / log_inverse_tail) * gap / (rate * rate * tilted_variance)
            if abs(step) < 1e-6:
                break
            log_rate -= step
        else:
            log_rate = math.nan
        if not low < log_rate < high:
            log_rate = 0.5 * (low + high)
        if high - low < 1e-6:
            break
    return smallest
