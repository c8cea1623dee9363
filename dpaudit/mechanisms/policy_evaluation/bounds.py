"""The data-dependent noise scales of DP-LSW and DP-LSL as functions of a dataset signature.

Balle, Gomrokchi & Precup 2016 calibrate both mechanisms with a β-smooth upper bound ψ_X
of a function φ_X(k) of the signature ⟨X⟩ (⟨X⟩(s) = |X_s|, the number of trajectories
that visit s) and of the batch size m:

* DP-LSW (Algorithm 1): φ_X^w(k) = Σ_s w_s / max{|X_s| − k, 1}² (eq. (9)),
  ψ_X^w = max_{0 <= k <= K_X} e^{−kβ} φ_X^w(k) with K_X = max_s |X_s|, and
  σ_X = α R_max ‖(Γ^{1/2} Φ)^†‖ / (1 − γ) · √ψ_X^w.
* DP-LSL (Algorithm 2): c_λ = ‖Φ‖ ‖ρ‖_∞ / √(2λ),
  φ_X^λ(k) = (c_λ √(Σ_s ρ_s min{|X_s| + k, m}) + ‖ρ‖_2)² (eq. (12)),
  ψ_X^λ = max_{0 <= k <= m} e^{−kβ} φ_X^λ(k), and
  σ_X = 2α R_max ‖Φ‖ / ((1 − γ)(λ − ‖Φ‖² ‖ρ‖_∞)) · √ψ_X^λ.

Where the paper prints two versions of one formula, both are here under names:
Corollary 8 and Lemma 9 (main text; Corollary 20 and Lemma 21 of the appendix) write
``max{v_s, m}`` / ``max{v_s + k, m}`` where eq. (12) and Algorithm 2 write
``min{|X_s| + k, m}``; ``saturation="min"`` is eq. (12) (the algorithm) and
``saturation="max"`` is the printed corollary/lemma.

R_max/(1 − γ) may be replaced by a public bound F_max on every first-visit return
(Sec. 3.1, the paragraph after Algorithm 1); the σ functions take that factor as
``return_bound`` (see :func:`return_bound`).

Two forms of each formula:

* scalar functions (:func:`lsw_phi`, :func:`lsw_psi`, :func:`lsl_c_lambda`, :func:`lsl_phi`,
  :func:`lsl_psi`, :func:`lsw_sigma`, :func:`lsl_sigma`) use only arithmetic operators and
  the ``sqrt``/``exp`` callables they are given, so Fractions give exact values where the
  formula is rational (φ^w) and mpmath numbers with ``sqrt=mpmath.sqrt, exp=mpmath.exp``
  give high-precision values; they are the white-box verifier's oracle;
* vectorised float64 profiles (:func:`lsw_phi_profile`, :func:`lsl_phi_profile`,
  :func:`smooth_maximum`) used by the mechanisms, checked against the scalar forms in tests.

References:
    Balle, Gomrokchi & Precup, *Differentially Private Policy Evaluation*, ICML 2016:
    Sec. 3.1 eq. (9) and Algorithm 1; Sec. 3.2 eq. (12) and Algorithm 2; Corollary 3,
    Lemma 4, Lemma 5 (Sec. 4.1); Corollary 8, Lemma 9 (Sec. 4.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dpaudit._validation import (
    check_choice,
    check_finite_array,
    check_integer,
    check_real,
)
from dpaudit.errors import InvalidArgument

__all__ = [
    "SATURATIONS",
    "SMOOTHING_GUARD",
    "lsl_c_lambda",
    "lsl_phi",
    "lsl_phi_profile",
    "lsl_psi",
    "lsl_sigma",
    "lsw_k_max",
    "lsw_phi",
    "lsw_phi_profile",
    "lsw_psi",
    "lsw_sigma",
    "return_bound",
    "rounding_safe_beta",
    "smooth_maximum",
]

SATURATIONS = ("min", "max")
"""``"min"``: eq. (12) and Algorithm 2 (min{|X_s| + k, m}); ``"max"``: Corollary 8 / Lemma 9 as printed."""

_CHUNK_ELEMENTS = 1 << 22


def _signature(signature: Any, n_states: int | None = None) -> np.ndarray:
    values = np.asarray(signature)
    if values.ndim != 1 or values.size == 0:
        raise InvalidArgument(f"signature: expected a non-empty 1-d array of counts, got shape {values.shape}")
    if not np.issubdtype(values.dtype, np.integer):
        raise InvalidArgument(f"signature: expected integer counts |X_s|, got dtype {values.dtype}")
    if (values < 0).any():
        position = int(np.argmax(values < 0))
        raise InvalidArgument(f"signature[{position}]={int(values[position])}: expected a count >= 0")
    if n_states is not None and values.size != n_states:
        raise InvalidArgument(f"signature: expected {n_states} entries, got {values.size}")
    return values.astype(np.int64)


def return_bound(r_max: float, gamma: float, f_max: float | None = None) -> float:
    """Return the bound on first-visit returns used by σ_X: F_max if given, else R_max / (1 − γ).

    Raises:
        InvalidArgument: for R_max <= 0, γ outside [0, 1) or F_max <= 0.

    References:
        Balle et al. 2016, Sec. 2 (0 <= V^π(s) <= R_max/(1−γ)) and Sec. 3.1 (F_max).
    """
    r_max = check_real("r_max", r_max, low=0.0, low_open=True)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0, high_open=True)
    if f_max is not None:
        return check_real("f_max", f_max, low=0.0, low_open=True)
    return r_max / (1.0 - gamma)


def lsw_k_max(signature: Sequence[int]) -> int:
    """Return K_X = max_s |X_s|, the last k of ψ_X^w's maximum (Algorithm 1)."""
    return max(int(v) for v in signature)


def lsw_phi(signature: Sequence[int], weights: Sequence[Any], k: int) -> Any:
    """Return φ_X^w(k) = Σ_s w_s / max{|X_s| − k, 1}² (eq. (9)); exact for Fraction weights.

    Args:
        signature: the counts |X_s| (ints).
        weights: the LSW regression weights w_s (any numbers: float, Fraction, mpf).
        k: an integer k >= 0.

    References:
        Balle et al. 2016, eq. (9); Lemma 5 (φ_k^w(v) has this form).
    """
    k = check_integer("k", k, low=0)
    if len(signature) != len(weights):
        raise InvalidArgument(f"weights: expected {len(signature)} entries, got {len(weights)}")
    total: Any = 0
    for v, w in zip(signature, weights, strict=False):
        total = total + w / max(int(v) - k, 1) ** 2
    return total


def lsw_psi(
    signature: Sequence[int], weights: Sequence[Any], beta: Any, *, exp: Callable[[Any], Any] = math.exp
) -> tuple[Any, int]:
    """Return (ψ_X^w, k*) with ψ_X^w = max_{0 <= k <= K_X} e^{−kβ} φ_X^w(k) and k* the first maximiser.

    Args:
        beta: the smoothness β of Lemma 1 (any number type ``exp`` accepts).
        exp: the exponential to use (``mpmath.exp`` for high precision).

    References:
        Balle et al. 2016, Algorithm 1 (third line) and eq. (9).
    """
    best, best_k = None, 0
    for k in range(lsw_k_max(signature) + 1):
        value = exp(-k * beta) * lsw_phi(signature, weights, k)
        if best is None or value > best:
            best, best_k = value, k
    return best, best_k


def lsw_sigma(alpha: Any, bound: Any, pinv_norm: Any, psi: Any, *, sqrt: Callable[[Any], Any] = math.sqrt) -> Any:
    """Return σ_X = α · bound · ‖(Γ^{1/2} Φ)^†‖ · √ψ_X^w, with bound = R_max/(1−γ) or F_max.

    References:
        Balle et al. 2016, Algorithm 1 (fourth line); eq. (14).
    """
    return alpha * bound * pinv_norm * sqrt(psi)


def lsl_c_lambda(phi_norm: Any, rho_inf: Any, lam: Any, *, sqrt: Callable[[Any], Any] = math.sqrt) -> Any:
    """Return c_λ = ‖Φ‖ ‖ρ‖_∞ / √(2λ) (Sec. 3.2, the sentence before eq. (12))."""
    return phi_norm * rho_inf / sqrt(2 * lam)


def lsl_phi(
    signature: Sequence[int],
    rho: Sequence[Any],
    m: int,
    c_lambda: Any,
    k: int,
    *,
    sqrt: Callable[[Any], Any] = math.sqrt,
    saturation: str = "min",
) -> Any:
    """Return φ_X^λ(k) = (c_λ √(Σ_s ρ_s sat{|X_s| + k, m}) + ‖ρ‖_2)².

    Args:
        signature: the counts |X_s| (ints, each <= m).
        rho: the regression weights ρ_s in [0, 1].
        m: the number of trajectories.
        c_lambda: c_λ of :func:`lsl_c_lambda`.
        k: an integer k >= 0.
        sqrt: the square root to use (``mpmath.sqrt`` for high precision).
        saturation: ``"min"`` (eq. (12), Algorithm 2) or ``"max"`` (Corollary 8 / Lemma 9 as printed).

    References:
        Balle et al. 2016, eq. (12); Corollary 8 and Lemma 9 (the ``"max"`` reading).
    """
    k = check_integer("k", k, low=0)
    m = check_integer("m", m, low=1)
    saturate = min if check_choice("saturation", saturation, SATURATIONS) == "min" else max
    if len(signature) != len(rho):
        raise InvalidArgument(f"rho: expected {len(signature)} entries, got {len(rho)}")
    visits: Any = 0
    squares: Any = 0
    for v, r in zip(signature, rho, strict=False):
        visits = visits + r * saturate(int(v) + k, m)
        squares = squares + r * r
    return (c_lambda * sqrt(visits) + sqrt(squares)) ** 2


def lsl_psi(
    signature: Sequence[int],
    rho: Sequence[Any],
    m: int,
    c_lambda: Any,
    beta: Any,
    *,
    sqrt: Callable[[Any], Any] = math.sqrt,
    exp: Callable[[Any], Any] = math.exp,
    saturation: str = "min",
) -> tuple[Any, int]:
    """Return (ψ_X^λ, k*) with ψ_X^λ = max_{0 <= k <= m} e^{−kβ} φ_X^λ(k) and k* the first maximiser.

    References:
        Balle et al. 2016, Algorithm 2 (third line) and eq. (12).
    """
    best, best_k = None, 0
    for k in range(check_integer("m", m, low=1) + 1):
        value = exp(-k * beta) * lsl_phi(signature, rho, m, c_lambda, k, sqrt=sqrt, saturation=saturation)
        if best is None or value > best:
            best, best_k = value, k
    return best, best_k


def lsl_sigma(
    alpha: Any,
    bound: Any,
    phi_norm: Any,
    lam: Any,
    rho_inf: Any,
    psi: Any,
    *,
    sqrt: Callable[[Any], Any] = math.sqrt,
) -> Any:
    """Return σ_X = 2α · bound · ‖Φ‖ / (λ − ‖Φ‖² ‖ρ‖_∞) · √ψ_X^λ, bound = R_max/(1−γ) or F_max.

    Raises:
        InvalidArgument: when λ <= ‖Φ‖² ‖ρ‖_∞ (the precondition of Algorithm 2 and Corollary 8).

    References:
        Balle et al. 2016, Algorithm 2 (fourth line); Corollary 8.
    """
    gap = lam - phi_norm**2 * rho_inf
    if not gap > 0:
        raise InvalidArgument(f"lam={lam}: Algorithm 2 requires lam > ||Phi||^2 ||rho||_inf = {phi_norm**2 * rho_inf}")
    return 2 * alpha * bound * phi_norm / gap * sqrt(psi)


def lsw_phi_profile(signature: Any, weights: Any) -> np.ndarray:
    """Return the float64 array (φ_X^w(0), ..., φ_X^w(K_X)) of eq. (9), vectorised.

    References:
        Balle et al. 2016, eq. (9) and Algorithm 1.
    """
    counts = _signature(signature)
    w = check_finite_array("weights", weights, shape=(counts.size,), nonnegative=True)
    k_max = int(counts.max())
    result = np.empty(k_max + 1)
    rows = max(1, _CHUNK_ELEMENTS // counts.size)
    for start in range(0, k_max + 1, rows):
        ks = np.arange(start, min(start + rows, k_max + 1))[:, None]
        denominators = np.maximum(counts[None, :] - ks, 1).astype(np.float64) ** 2
        result[start : start + ks.shape[0]] = (w[None, :] / denominators).sum(axis=1)
    return result


def lsl_phi_profile(signature: Any, rho: Any, m: int, c_lambda: float, *, saturation: str = "min") -> np.ndarray:
    """Return the float64 array (φ_X^λ(0), ..., φ_X^λ(m)) of eq. (12), vectorised.

    References:
        Balle et al. 2016, eq. (12) and Algorithm 2; Corollary 8 / Lemma 9 for ``saturation="max"``.
    """
    counts = _signature(signature)
    weights = check_finite_array("rho", rho, shape=(counts.size,), nonnegative=True)
    m = check_integer("m", m, low=1)
    saturate = np.minimum if check_choice("saturation", saturation, SATURATIONS) == "min" else np.maximum
    c_lambda = check_real("c_lambda", c_lambda, low=0.0)
    result = np.empty(m + 1)
    rows = max(1, _CHUNK_ELEMENTS // counts.size)
    rho_norm = math.sqrt(float(np.sum(weights * weights)))
    for start in range(0, m + 1, rows):
        ks = np.arange(start, min(start + rows, m + 1))[:, None]
        visits = (weights[None, :] * saturate(counts[None, :] + ks, m)).sum(axis=1)
        result[start : start + ks.shape[0]] = (c_lambda * np.sqrt(visits) + rho_norm) ** 2
    return result


#: Relative amount by which the implementation's smoothing parameter is below β (see
#: :func:`rounding_safe_beta`).
SMOOTHING_GUARD = 1e-6


def rounding_safe_beta(beta: float) -> float:
    """The smoothing parameter the float64 implementation uses: β (1 − 10⁻⁶).

    With β itself, neighbours at which the paper's ψ meets |ln ψ_X − ln ψ_X'| = β/2 exactly
    come out of float64 (the exponentials, products and square root of σ_X) up to about
    6e-15 relative beyond Lemma 1's condition (b). Smoothing with a slightly smaller
    parameter keeps the real-valued ψ smooth with a margin of about 10⁻⁶ β/2 in ln ψ, far
    above those rounding errors and outside the exhaustive checker's 1e-9 guard band, and only
    raises ψ, by a factor below e^(k β 10⁻⁶) (more noise; condition (a) unaffected).
    """
    return beta * (1.0 - SMOOTHING_GUARD)


def smooth_maximum(phi_profile: Any, beta: float) -> tuple[float, int]:
    """Return (max_k e^{−kβ} φ(k), first maximising k) over k = 0..len(phi_profile) − 1.

    This is the discrete maximisation of Algorithms 1 and 2, which by Lemmas 4, 5 and 9
    equals the smallest β-smooth upper bound sup_{k >= 0} e^{−kβ} φ_k(⟨X⟩) of Lemma 4.

    Raises:
        InvalidArgument: for an empty or non-finite profile, or β <= 0.

    References:
        Balle et al. 2016, Algorithms 1 and 2; Lemma 4 (eq. (16)).
    """
    values = check_finite_array("phi_profile", phi_profile, ndim=1, nonnegative=True)
    if values.size == 0:
        raise InvalidArgument("phi_profile: expected at least one value φ(0)")
    beta = check_real("beta", beta, low=0.0, low_open=True)
    scaled = np.exp(-beta * np.arange(values.size)) * values
    k_star = int(np.argmax(scaled))
    return float(scaled[k_star]), k_star
