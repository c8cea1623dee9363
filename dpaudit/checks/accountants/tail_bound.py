"""The moments-accountant tail bound (Abadi et al. 2016, Theorem 2) on composed GPOPE steps, against
the PLD interval of the true δ(ε).

``moments_tail_bound``: at each point the claim is δ_tail = min_λ exp(N α(λ) − λε) with the exact
per-step moments α(λ); ``violated`` when the PLD lower end of δ(ε) exceeds δ_tail from the moments'
upper ends, ``verified`` when the PLD upper end is below δ_tail from their lower ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import mpmath

from dpaudit.checks.accountants.end_to_end import laws, pld_answers
from dpaudit.checks.accountants.moment_bounds import step_moment
from dpaudit.checks.accountants.tally import StepGridConfig, Tally, step_witness
from dpaudit.errors import InvalidArgument
from dpaudit.kernel.checker_config import param, param_of, parse_config
from dpaudit.kernel.checkers import CheckContext, register_checker
from dpaudit.kernel.claims import Obligation
from dpaudit.kernel.evidence import Evidence
from dpaudit.mechanisms.gpope_step import POISSON, GpopeStep
from dpaudit.privacy.accounting.conversions import moments_tail_delta
from dpaudit.privacy.accounting.values import AccountedValue

__all__ = ["TailConfig", "check_moments_tail_bound"]


@dataclass(frozen=True, kw_only=True)
class TailConfig(StepGridConfig):
    """The params of the tail-bound check: the grid of (m, sigma, N, epsilon) and the moment orders."""

    sampling: str = param_of(StepGridConfig, "sampling", default=POISSON)
    steps: tuple[int, ...] = param("composed steps N", low=1)
    epsilons: tuple[int | float, ...] = param("epsilons at which delta is bounded", low=0.0, low_open=True)
    lambdas: tuple[int | float, ...] = param("the integer moment orders lambda minimised over", low=0.0, low_open=True)
    moment_scale: float = param("multiplies the per-step moments (1: as stated)", 1.0, low=0.0, low_open=True)
    interval: float = param("the PLD grid step", 1e-4, low=1e-9, high=0.1)

    def __post_init__(self) -> None:
        super().__post_init__()
        if any(not float(lam).is_integer() for lam in self.lambdas):
            raise InvalidArgument(
                f"lambdas={[float(lam) for lam in self.lambdas]}: expected integers (exact moments at integer orders)"
            )


@register_checker(
    "moments_tail_bound",
    description="Abadi et al. Theorem 2: delta = min_lambda exp(alpha(lambda) - lambda*eps) vs the PLD interval",
    config=TailConfig,
)
def check_moments_tail_bound(obligation: Obligation, context: CheckContext) -> Evidence:
    """Decide the moments-accountant tail bound on composed GPOPE steps.

    The claim at each point: the mechanism is (ε, δ_tail)-DP with δ_tail = min_λ exp(N α(λ) - λε)
    over the listed λ, α(λ) the exact per-step moment (``moment_scale`` multiplies it; 1 = as
    stated). ``violated`` when the PLD lower end of δ(ε) exceeds δ_tail computed from the
    upper ends of the moments; ``verified`` when the PLD upper end is below δ_tail from the
    lower ends.

    References:
        Abadi et al. 2016, Theorem 2; Xie et al. 2019, Theorem 4 (B.20)–(B.21).
    """
    config = parse_config(TailConfig, obligation.params)
    sampling = config.sampling
    scale = mpmath.mpf(config.moment_scale)
    digits = config.digits
    interval = config.interval
    lambdas = [float(lam) for lam in config.lambdas]
    tally = Tally(claim_relative_error=mpmath.mpf(10) ** (5 - digits))
    for m in config.records:
        for sigma in config.noise_multipliers:
            for steps in config.steps:
                step = GpopeStep(records=m, clip_norm=1.0, noise_multiplier=sigma, steps=steps, sampling=sampling)
                moments = [step_moment(step, context.relation, lam, digits=digits) for lam in lambdas]
                factor = scale * steps
                upper = [
                    AccountedValue(v.upper * factor, 0, v.upper * factor, "upper bound", v.method, digits)
                    for v in moments
                ]
                lower = [
                    AccountedValue(v.lower * factor, 0, v.lower * factor, "upper bound", v.method, digits)
                    for v in moments
                ]
                view = step.step_pairs(context.relation)
                epsilons = tuple(float(eps) for eps in config.epsilons)
                *answers, _ = pld_answers(laws(view.pairs), steps, interval, epsilons, None)
                for eps, (measured, estimate) in zip(epsilons, answers, strict=True):
                    claim_high = moments_tail_delta(lambdas, upper, eps).value
                    claim_low = moments_tail_delta(lambdas, lower, eps).value
                    quantity = f"delta({eps:g}) at m={m}, sigma={sigma:g}, N={steps}"
                    if mpmath.mpf(measured.upper) <= claim_low or mpmath.mpf(measured.lower) > claim_high:
                        claimed = claim_low if mpmath.mpf(measured.upper) <= claim_low else claim_high
                    else:
                        claimed = claim_low

                    witness = partial(step_witness, step, view, context.relation)
                    tally.add(quantity, claimed, measured, witness, estimate, claimed_range=(claim_low, claim_high))
    return tally.evidence(
        what=f"moments tail bound (moments x{mpmath.nstr(scale, 6)})",
        domain=f"{context.relation.name}, sampling={sampling}, m in {list(config.records)}, sigma in "
        f"{list(config.noise_multipliers)}, N in {list(config.steps)}, eps in {list(config.epsilons)}",
        method=f"exact moments (MTZ 2019, mpmath {digits} digits) + tail bound; PLD interval, grid step {interval:g}",
        budget={"digits": digits, "interval": interval, "lambdas": len(lambdas)},
        details={"lambdas": lambdas, "moment_scale": float(scale)},
    )
