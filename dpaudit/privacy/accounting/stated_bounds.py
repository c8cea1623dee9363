"""The accounting statements of the papers, encoded as they are written (in mpmath).

References:
    Xie, Thomas, Miklau 2019: Lemma 1 (eq. 5.5), Theorem 1 (eq. 5.1), proof of Theorem 1
    (eqs. B.31–B.33); Abadi et al. 2016, Theorem 2 (restated as Xie et al. Theorem 4).
"""

from __future__ import annotations

import mpmath

from dpaudit._validation import check_integer, check_real

__all__ = [
    "STATED_MOMENT_BOUNDS",
    "xie2019_lemma1_moment_bound",
    "xie2019_theorem1_lambda_range",
    "xie2019_theorem1_noise",
    "xie2019_theorem1_precondition",
]


def xie2019_lemma1_moment_bound(lam: float, records: int, noise_multiplier: float) -> mpmath.mpf:
    """Lemma 1: α_M(λ) <= λ(λ+1)/(2m²) · min{4(e^{1/σ²} - 1), 2 e^{1/σ²}}.

    Stated for one step M(d) = B̄_t(x_i) + h·N(0, σ² I) of GPOPE, for every λ (the
    statement puts no range on λ; the proof drops "higher-order terms since m >> 1").

    References:
        Xie et al. 2019, Lemma 1, eq. (5.5), p. 5; proof eqs. (B.13)–(B.19).
    """
    lam = mpmath.mpf(check_real("lam", lam, low=0.0, low_open=True))
    m = mpmath.mpf(check_integer("records", records, low=1))
    inverse_variance = 1 / mpmath.mpf(check_real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)) ** 2
    factor = min(4 * mpmath.expm1(inverse_variance), 2 * mpmath.exp(inverse_variance))
    return lam * (lam + 1) / (2 * m**2) * factor


STATED_MOMENT_BOUNDS = {"xie2019_lemma1": xie2019_lemma1_moment_bound}


def xie2019_theorem1_noise(epsilon: float, delta: float, steps: int, records: int, c2: float) -> float:
    """Theorem 1's noise level with equality: σ = c2 √(N log(1/δ)) / (m ε).

    Privacy improves with σ, so the smallest σ the theorem allows is its hardest case.

    References:
        Xie et al. 2019, Theorem 1, eq. (5.1); the proof sets σ by eq. (B.33), with the
        constant c2 = 2 implied by eq. (B.32): exp(-m²σ²ε²/(4N)) = δ.
    """
    eps = check_real("epsilon", epsilon, low=0.0, low_open=True)
    target = check_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
    count = check_integer("steps", steps, low=1)
    m = check_integer("records", records, low=1)
    constant = check_real("c2", c2, low=0.0, low_open=True)
    with mpmath.workdps(40):
        return float(constant * mpmath.sqrt(count * mpmath.log(1 / mpmath.mpf(target))) / (m * mpmath.mpf(eps)))


def xie2019_theorem1_lambda_range(records: int, noise_multiplier: float) -> float:
    """The range of λ the proof of Theorem 1 needs: λ <= σ² log(m/σ) (eq. B.31)."""
    m = check_integer("records", records, low=1)
    sigma = check_real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    return sigma**2 * float(mpmath.log(mpmath.mpf(m) / sigma))


def xie2019_theorem1_precondition(
    epsilon: float, steps: int, records: int, noise_multiplier: float, c1: float | None
) -> bool:
    """Whether (ε, N, m, σ) lies in Theorem 1's domain.

    With ``c1`` given: ε < c1 N / m² (the statement). With ``c1=None``: the proof's own
    condition, that the minimising λ* = m²σ²ε/(2N) of eq. (B.32) satisfies eq. (B.31),
    λ* <= σ² log(m/σ), and σ >= √(1/ln 2) as the proof assumes.
    """
    eps = check_real("epsilon", epsilon, low=0.0, low_open=True)
    count = check_integer("steps", steps, low=1)
    m = check_integer("records", records, low=1)
    sigma = check_real("noise_multiplier", noise_multiplier, low=0.0, low_open=True)
    if c1 is not None:
        return eps < check_real("c1", c1, low=0.0, low_open=True) * count / m**2
    optimum = m**2 * sigma**2 * eps / (2 * count)
    return sigma**2 >= 1 / float(mpmath.log(2)) and optimum <= xie2019_theorem1_lambda_range(m, sigma)
