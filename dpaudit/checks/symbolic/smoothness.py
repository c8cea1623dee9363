"""The smooth-upper-bound lemmas of Balle et al. 2016: symbolic (sympy) and exhaustive exact checks.

* Lemma 5 (main text; Lemma 5 of the supplement / Lemma 18 of the appendix):
  φ^w_k(v) := max_{‖v'−v‖∞ ≤ k} φ^w(v') equals Σ_s w_s / max{v_s − k, 1}², and equals Σ_s w_s
  for every k >= ‖v‖∞ − 1.
* Lemma 9 (main text; supplement Lemma 8 / appendix Lemma 21): φ^λ_k(v) equals
  (c_λ √(Σ_s ρ_s sat{v_s + k, m}) + ‖ρ‖₂)², and equals (c_λ √m √(Σ_s ρ_s) + ‖ρ‖₂)² for every
  k >= m − min_s v_s. The text prints sat = max (in φ^λ and in the lemma); eq. (12) and
  Algorithm 2 use sat = min. Both readings are encoded and checked separately.
* Lemma 4 (Nissim et al. 2007): ψ(v) = sup_{k >= 0} e^{−kβ} φ_k(v) is a β-smooth upper bound
  of φ: ψ >= φ and ψ(v) <= e^β ψ(v') whenever ‖v − v'‖∞ <= 1.

The closed forms are separable (a sum over states of w_s g(v'_s), or an increasing function
of such a sum), so each lemma reduces to a statement about one coordinate: the extreme
of a monotone function over the integer interval {v + l : |l| <= k, v + l >= 0}. sympy
proves the monotonicity (Max(a + t, c, a) = Max(a + t, c) for t >= 0, and the same for Min)
and the identity of the extreme with the closed form; a statement sympy cannot reduce is
verified exhaustively on a stated integer box in exact rationals, and a false statement
gets a concrete counterexample.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

from dpaudit._validation import check_choice, check_integer
from dpaudit.checks.budget_limits import check_enumeration
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import CheckerConfig, param, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence, Measurement
from dpaudit.kernel.verdicts import Verdict

__all__ = [
    "READINGS",
    "SymbolicResult",
    "check_lemma4_box",
    "lemma5_symbolic",
    "lemma9_symbolic",
    "lsl_phi_k_closed_form",
    "lsw_phi_k_closed_form",
    "phi_k_by_enumeration",
]

READINGS = ("max", "min")
"""Readings of the saturation in φ^λ: ``max`` as printed in Corollary 8 / Lemma 9, ``min`` as in eq. (12)."""


@dataclass(frozen=True)
class SymbolicResult:
    """The outcome of a symbolic check.

    Attributes:
        verdict: PROVEN, VERIFIED or VIOLATED.
        statement: the statement, as the paper writes it.
        location: where it stands in the paper.
        steps: the reductions sympy performed (each must come out as stated).
        counterexample: a concrete failing instance, when the statement is false.
        box: the integer box of an exhaustive verification, when one was needed.
    """

    verdict: Verdict
    statement: str
    location: str
    steps: tuple[str, ...]
    counterexample: dict[str, Any] | None = None
    box: str | None = None
    cases: int = 0
    details: dict[str, Any] = field(default_factory=dict)


def _monotone(saturate: type) -> tuple[bool, str]:
    """sympy: u ↦ saturate(u, c) is non-decreasing, i.e. saturate(u + t, c) >= saturate(u, c) for t >= 0.

    For Max this is Max(u + t, c, u) == Max(u + t, c); for Min it is Min(u + t, c, u) == Min(u, c);
    sympy must reduce the left side to the right one using t >= 0.
    """
    import sympy as sp  # imported on first use: sympy takes half a second to import

    u = sp.Symbol("u", integer=True)
    t = sp.Symbol("t", integer=True, nonnegative=True)
    c = sp.Symbol("c", integer=True, positive=True)
    larger, smaller = saturate(u + t, c), saturate(u, c)
    target = larger if saturate is sp.Max else smaller
    holds = saturate(u + t, c, u) == target
    return bool(holds), f"{saturate.__name__}(u + t, c, u) == {target} for t >= 0: {holds}"


def lemma5_symbolic() -> SymbolicResult:
    """Prove Lemma 5 with sympy for symbolic v_s, k in N (per coordinate; the sum is separable).

    The term w_s / max{v'_s, 1}² is non-increasing in v'_s, so the max over the ball takes
    the least feasible v'_s = max{v_s − k, 0}; sympy reduces max{max{v − k, 0}, 1} − max{v − k, 1}
    to 0, and max{v − (v − 1 + j), 1} to 1 for j >= 0 (the "furthermore" part).

    References:
        Balle et al. 2016, Lemma 5 (p. 5); supplement Lemma 5 (proof by the same reduction).
    """
    import sympy as sp  # imported on first use: sympy takes half a second to import

    v = sp.Symbol("v", integer=True, nonnegative=True)
    k = sp.Symbol("k", integer=True, nonnegative=True)
    j = sp.Symbol("j", integer=True, nonnegative=True)
    monotone, monotone_text = _monotone(sp.Max)
    identity = sp.simplify(sp.Max(sp.Max(v - k, 0), 1) - sp.Max(v - k, 1))
    tail = sp.simplify(sp.Max(v - (v - 1 + j), 1))
    steps = (
        monotone_text + " (so max{u,1} is non-decreasing and 1/max{u,1}^2 non-increasing in u)",
        f"least feasible v' = max(v - k, 0); Max(Max(v - k, 0), 1) - Max(v - k, 1) -> {identity}",
        f"k = v - 1 + j, j >= 0: Max(v - k, 1) -> {tail}",
    )
    proven = monotone and identity == 0 and tail == 1
    return SymbolicResult(
        Verdict.PROVEN if proven else Verdict.INCONCLUSIVE,
        "phi^w_k(v) = sum_s w_s / max{v_s - k, 1}^2 for every v in N^S, and = sum_s w_s for k >= ||v||_inf - 1",
        "Balle et al. 2016, Lemma 5 (Sec. 4.1, p. 5); supplementary Lemma 5",
        steps,
    )


def lemma9_symbolic(reading: str) -> SymbolicResult:
    """Check Lemma 9 with sympy under a saturation reading (``max`` as printed, ``min`` as eq. (12)).

    φ^λ is an increasing function of Σ_s ρ_s sat{v'_s, m} (c_λ, ρ >= 0), and sat{·, m} is
    non-decreasing, so the max over the ball takes v'_s = v_s + k: the closed form follows
    for both readings. The "furthermore" part substitutes k = m − v_s + j (j >= 0): sat{m + j, m}
    must reduce to m. Under ``max`` it reduces to m + j; a counterexample is then searched for
    (:func:`_lemma9_counterexample`): the first found is S = 1, ρ = 1, m = 1, v = (1), k = 1,
    c_λ = 1, φ^λ_1(v) = (√2 + 1)² ≠ (1 + 1)² = 4.

    References:
        Balle et al. 2016, Lemma 9 (Sec. 4.2, p. 5), eq. (12); supplement Lemma 8.
    """
    import sympy as sp  # imported on first use: sympy takes half a second to import

    check_choice("reading", reading, READINGS)
    saturate = sp.Max if reading == "max" else sp.Min
    v = sp.Symbol("v", integer=True, nonnegative=True)
    j = sp.Symbol("j", integer=True, nonnegative=True)
    m = sp.Symbol("m", integer=True, positive=True)
    monotone, monotone_text = _monotone(saturate)
    tail = sp.simplify(saturate(v + (m - v + j), m))
    steps = (
        monotone_text + " (so phi^lambda is non-decreasing in every v'_s; the max over the ball is at v + k)",
        f"closed form: sat{{v_s + k, m}} with sat = {saturate.__name__}",
        f"k = m - v + j, j >= 0: {saturate.__name__}(v + k, m) -> {tail} (the lemma needs m)",
    )
    statement = (
        f"phi^lambda_k(v) = (c sqrt(sum_s rho_s {reading}{{v_s + k, m}}) + ||rho||_2)^2, and for k >= m - min_s v_s "
        "it equals (c sqrt(m) sqrt(sum_s rho_s) + ||rho||_2)^2"
    )
    location = "Balle et al. 2016, Lemma 9 (Sec. 4.2, p. 5); supplementary Lemma 8" + (
        " (as printed)" if reading == "max" else " (with min as in eq. (12) and Algorithm 2)"
    )
    if not monotone:
        return SymbolicResult(Verdict.INCONCLUSIVE, statement, location, steps)
    if sp.simplify(tail - m) == 0:
        return SymbolicResult(Verdict.PROVEN, statement, location, steps)
    found, searched = _lemma9_counterexample(max if reading == "max" else min)
    if found is None:
        return SymbolicResult(
            Verdict.INCONCLUSIVE, statement, location, (*steps, f"no counterexample in {searched} configurations")
        )
    rho, m_value, v_value, k_value = found
    c_lambda = 1
    rho_norm = sp.sqrt(sum(r * r for r in rho))
    inner = sum(
        r * (max if reading == "max" else min)(vs + k_value, m_value) for r, vs in zip(rho, v_value, strict=True)
    )
    phi_k = (c_lambda * sp.sqrt(inner) + rho_norm) ** 2
    claimed = (c_lambda * sp.sqrt(m_value) * sp.sqrt(sum(rho)) + rho_norm) ** 2
    counterexample = {
        "S": len(rho),
        "rho": list(rho),
        "m": m_value,
        "v": list(v_value),
        "k": k_value,
        "c_lambda": c_lambda,
        "phi_k_by_definition": str(sp.nsimplify(sp.expand(phi_k))),
        "claimed_value": str(sp.nsimplify(sp.expand(claimed))),
        "difference": str(sp.N(phi_k - claimed, 20)),
        "search": f"first of {searched} configurations in order (S <= 2, m <= 3, rho in {{1, 2}}^S, "
        "k = m - min v .. m + 2, v in {0..m}^S), phi_k by enumerating the ball of Lemma 4",
    }
    return SymbolicResult(Verdict.VIOLATED, statement, location, steps, counterexample)


def _lemma9_counterexample(
    saturate: Callable[[int, int], int],
) -> tuple[tuple[tuple[int, ...], int, tuple[int, ...], int] | None, int]:
    """The first small configuration (rho, m, v, k) with k >= m - min v where phi^lambda_k(v), by its
    definition (the max of phi^lambda over the ball of radius k around v, Lemma 4), differs from the
    "furthermore" closed form of Lemma 9; and how many configurations were tried.

    phi^lambda = (c sqrt(X) + ||rho||)^2 is strictly increasing in X = sum_s rho_s sat{v'_s, m}, so the
    exact rational comparison of X with m sum_s rho_s decides it."""
    searched = 0
    for n_states in (1, 2):
        for m in (1, 2, 3):
            for rho in itertools.product((1, 2), repeat=n_states):
                for k in range(0, m + 3):
                    for v in itertools.product(range(m + 1), repeat=n_states):
                        if k < m - min(v):
                            continue
                        searched += 1

                        def inner(point: tuple[int, ...], rho: tuple[int, ...] = rho, m: int = m) -> Fraction:
                            return Fraction(sum(r * saturate(p, m) for r, p in zip(rho, point, strict=True)))

                        if phi_k_by_enumeration(inner, v, k) != m * sum(rho):
                            return (rho, m, v, k), searched
    return None, searched


def _mpf(value: Any) -> mpmath.mpf:
    if isinstance(value, Fraction):
        return mpmath.mpf(value.numerator) / value.denominator
    return mpmath.mpf(value)


def lsw_phi_k_closed_form(v: Sequence[int], weights: Sequence[Fraction], k: int) -> Fraction:
    """Σ_s w_s / max{v_s − k, 1}² (Balle et al. 2016, Lemma 5), exact."""
    return sum((Fraction(w) / max(vs - k, 1) ** 2 for vs, w in zip(v, weights, strict=False)), Fraction(0))


def lsl_phi_k_closed_form(v: Sequence[int], rho: Sequence[Fraction], m: int, k: int, reading: str) -> Fraction:
    """The inner sum Σ_s ρ_s sat{v_s + k, m} of Lemma 9 (φ^λ_k is increasing in it), exact."""
    saturate = max if reading == "max" else min
    return sum((Fraction(r) * saturate(vs + k, m) for vs, r in zip(v, rho, strict=False)), Fraction(0))


def phi_k_by_enumeration(phi: Callable[[tuple[int, ...]], Fraction], v: Sequence[int], k: int) -> Fraction:
    """max φ(v') over v' in N^S with ‖v' − v‖∞ <= k, by enumeration (the definition in Lemma 4)."""
    ranges = [range(max(vs - k, 0), vs + k + 1) for vs in v]
    return max(phi(tuple(point)) for point in itertools.product(*ranges))


def check_lemma4_box(
    phi_k: Callable[[tuple[int, ...], int], Fraction],
    beta: Any,
    *,
    n_states: int,
    v_max: int,
    k_max: int,
    value: Callable[[tuple[int, ...], int], Any] | None = None,
) -> SymbolicResult:
    """Verify ψ(v) = max_k e^{−kβ} φ_k(v) is β-smooth and >= φ on the box {0..v_max}^S, exactly.

    For each pair v, v' in the box with ‖v − v'‖∞ <= 1 the rational certificate
    φ_k(v) <= φ_{k+1}(v') for all k <= k_max (with φ constant beyond k_max) implies
    ψ(v) <= e^β ψ(v'). When the certificate fails at some pair, ψ(v) and e^β ψ(v') are
    compared in mpmath at 60 digits and a strict excess is reported as a counterexample.

    Args:
        phi_k: φ_k(v) as an exact rational (or an exact monotone proxy such as the inner sum of φ^λ).
        beta: β > 0 (its exact binary value).
        n_states: S of the box.
        v_max: the box bound.
        k_max: the k beyond which φ_k is constant (e.g. v_max + 1 for φ^w, m for φ^λ).
        value: φ_k(v) itself for the mpmath fallback, when ``phi_k`` is a monotone proxy
            (default: ``phi_k``).

    References:
        Balle et al. 2016, Lemma 4 (eq. (16)); Nissim, Raskhodnikova, Smith 2007, Lemma 2.3.
    """
    check_integer("n_states", n_states, low=1, high=4)
    check_integer("v_max", v_max, low=0, high=12)
    box = list(itertools.product(range(v_max + 1), repeat=n_states))
    phi_k = functools.cache(phi_k)  # each φ_k(v) is compared at up to 3^S pairs: computed once
    exact_value = value if value is not None else (lambda point, k: _mpf(phi_k(point, k)))
    cases = 0
    with mpmath.workdps(60):
        b = _mpf(beta)
        for v in box:
            for step in itertools.product((-1, 0, 1), repeat=n_states):
                other = tuple(a + s for a, s in zip(v, step, strict=False))
                if min(other) < 0 or max(other) > v_max:
                    continue
                cases += 1
                if all(phi_k(v, k) <= phi_k(other, min(k + 1, k_max)) for k in range(k_max + 1)):
                    continue
                psi_v = max(mpmath.exp(-k * b) * exact_value(v, k) for k in range(k_max + 1))
                psi_o = max(mpmath.exp(-k * b) * exact_value(other, k) for k in range(k_max + 1))
                if psi_v > mpmath.exp(b) * psi_o * (1 + mpmath.mpf(10) ** -45):
                    return SymbolicResult(
                        Verdict.VIOLATED,
                        "psi(v) <= e^beta psi(v') for ||v - v'||_inf <= 1",
                        "Balle et al. 2016, Lemma 4 (eq. (16))",
                        ("rational certificate phi_k(v) <= phi_{k+1}(v') failed; mpmath comparison at 60 digits",),
                        {
                            "v": list(v),
                            "v_prime": list(other),
                            "ln_ratio": mpmath.nstr(mpmath.log(psi_v / psi_o), 12),
                            "beta": mpmath.nstr(b, 12),
                        },
                        box=f"{{0..{v_max}}}^{n_states}",
                        cases=cases,
                    )
    return SymbolicResult(
        Verdict.VERIFIED,
        "psi(v) = sup_k e^{-k beta} phi_k(v) >= phi(v) and psi(v) <= e^beta psi(v') for ||v - v'||_inf <= 1",
        "Balle et al. 2016, Lemma 4 (eq. (16))",
        ("k = 0 term gives psi >= phi", "rational certificate phi_k(v) <= phi_{k+1}(v') at every pair of the box"),
        box=f"{{0..{v_max}}}^{n_states}",
        cases=cases,
    )


def _evidence(result: SymbolicResult) -> Evidence:
    domain = (
        "symbolic: every v in N^S, k in N (per coordinate; the sums are separable)"
        if result.box is None
        else f"every pair v, v' in the integer box {result.box} with ||v - v'||_inf <= 1 ({result.cases} pairs)"
    )
    method = (
        "sympy reduction to a tautology"
        if result.box is None
        else "exhaustive, exact rationals (mpmath 60 digits on fallback)"
    )
    summary = f"{result.location}: {result.verdict.value}"
    if result.counterexample is not None:
        summary += f"; counterexample {result.counterexample}"
    budget = {"pairs": result.cases} if result.box is not None else {}
    measurements = [Measurement("steps", None, len(result.steps))]
    if result.counterexample is not None and "difference" in result.counterexample:
        excess = result.counterexample["difference"]
        measurements.append(
            Measurement(
                "excess of phi_k by definition over the stated closed form at the counterexample",
                0,
                excess,
                f"-{excess}",
                "exact (sympy), shown to 20 digits",
            )
        )
    return Evidence(
        result.verdict,
        summary,
        domain,
        method,
        tuple(measurements),
        budget,
        result.counterexample,
        {"steps": list(result.steps), "statement": result.statement},
    )


@dataclass(frozen=True)
class ClosedFormConfig(CheckerConfig):
    """The params of the symbolic check: which lemma's closed form, and for Lemma 9 which reading."""

    lemma: str = param(
        "the closed form proven: Lemma 5 (phi_k of LSW) or Lemma 9 (phi_k of LSL)", choices=("lemma5", "lemma9")
    )
    reading: str | None = param("the reading of Lemma 9's min/max (required for lemma9)", None, choices=READINGS)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.lemma == "lemma9" and self.reading is None:
            raise InvalidArgument(f"reading: required for lemma='lemma9'; expected one of {', '.join(READINGS)}")


@register_checker(
    "balle_symbolic_closed_form",
    description="Balle et al. 2016 Lemma 5 / Lemma 9 closed forms of phi_k, proven with sympy (both readings of "
    "Lemma 9)",
    config=ClosedFormConfig,
)
def check_symbolic_closed_form(obligation: Obligation, context: CheckContext) -> Evidence:
    """Prove (or refute with a counterexample) the closed form of φ_k of Lemma 5 or Lemma 9.

    References:
        Balle et al. 2016, Lemma 5, Lemma 9, eq. (12).
    """
    config = parse_config(ClosedFormConfig, obligation.params)
    if config.lemma == "lemma5":
        return _evidence(lemma5_symbolic())
    return _evidence(lemma9_symbolic(config.reading or ""))  # set for lemma9 (ClosedFormConfig.__post_init__)


@dataclass(frozen=True, kw_only=True)
class Lemma4Config(CheckerConfig):
    """The params of Lemma 4's check: the function and the integer box it is verified on."""

    function: str = param(
        "the bound checked: psi^w (Lemma 5 closed form) or psi^lambda (Lemma 9)", choices=("phi_w", "phi_lambda")
    )
    reading: str = param("the reading of Lemma 9's min/max (phi_lambda)", "min", choices=READINGS)
    n_states: int = param("states of the box", 3, low=1, high=4)
    v_max: int = param("the largest visit count of the box {0..v_max}^n_states", 5, low=0, high=12)
    m: int = param("the dataset size of phi_lambda", 5, low=1)
    beta: Fraction = param("the smoothness parameter", "1/32", low=0.0, low_open=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        k_max = self.v_max + 1 if self.function == "phi_w" else self.m
        check_enumeration(
            f"Lemma 4's box {{0..{self.v_max}}}^{self.n_states} with its neighbours and k = 0..{k_max}",
            (self.v_max + 1) ** self.n_states * 3**self.n_states * (k_max + 1),
        )


@register_checker(
    "balle_lemma4_smoothness",
    description="Balle et al. 2016 Lemma 4: psi_k-based bound is beta-smooth, exhaustive on an integer box (exact)",
    config=Lemma4Config,
)
def check_lemma4_smoothness(obligation: Obligation, context: CheckContext) -> Evidence:
    """Verify Lemma 4 for ψ^w (Lemma 5 closed form) or ψ^λ (Lemma 9 closed form) on an integer box.

    Unit weights (w = ρ = 1) are used: the per-pair certificate is a sum over states of
    coordinate inequalities, so it holds for every non-negative weight vector when it
    holds coordinate-wise, which the box with S >= 1 covers.

    References:
        Balle et al. 2016, Lemma 4, Lemma 5, Lemma 9.
    """
    config = parse_config(Lemma4Config, obligation.params)
    n_states, v_max, beta = config.n_states, config.v_max, config.beta
    ones = [Fraction(1)] * n_states
    if config.function == "phi_w":
        result = check_lemma4_box(
            lambda v, k: lsw_phi_k_closed_form(v, ones, k), beta, n_states=n_states, v_max=v_max, k_max=v_max + 1
        )
    else:
        m, reading = config.m, config.reading

        def phi_lambda(v: tuple[int, ...], k: int) -> Any:
            inner = lsl_phi_k_closed_form(v, ones, m, k, reading)
            return (mpmath.sqrt(mpmath.mpf(inner.numerator) / inner.denominator) + mpmath.sqrt(n_states)) ** 2

        result = check_lemma4_box(
            lambda v, k: lsl_phi_k_closed_form(v, ones, m, k, reading),
            beta,
            n_states=n_states,
            v_max=v_max,
            k_max=m + v_max,
            value=phi_lambda,
        )
    return _evidence(result)
