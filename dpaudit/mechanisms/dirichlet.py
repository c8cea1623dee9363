"""The Dirichlet mechanism M_D^(k)(p) ~ Dir(k·p) on the open unit simplex.

Sampling works in log space: a Gamma(a) variate with a small shape underflows to 0 in
float64 (P[G < 1e-308] is about 10^(-308 a) / Γ(a + 1)), so log G is drawn directly —
as log Gamma(a + 1) + log(U)/a for a < 1 (Marsaglia & Tsang 2000, Sec. 5, the boosting
identity G_a = G_{a+1} U^{1/a}) — and the vector is normalised with a log-sum-exp.

References:
    Gohari, Hale, Topcu 2020, Sec. II-D (the mechanism and its density);
    Gohari, Wu, Hale, Topcu, ACC 2020 (the mechanism's privacy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit._validation import check_integer, check_real
from dpaudit.errors import NumericalError
from dpaudit.mechanisms.inputs import PROBABILITY_VECTOR
from dpaudit.mechanisms.interface import CandidateSignature, Mechanism, OutputSpec
from dpaudit.mechanisms.simplex_inputs import simplex_adjacency
from dpaudit.mechanisms.views import ConcentrationView
from dpaudit.privacy.dirichlet_pair import SIMPLEX_ATOL, check_open_simplex
from dpaudit.privacy.relations import SIMPLEX_ADJACENT
from dpaudit.rng import normalize_rng

special = lazy_module("scipy.special")

__all__ = ["MECHANISM", "SIMPLEX_ATOL", "DirichletMechanism", "check_open_simplex", "log_gamma_variates"]


def log_gamma_variates(shape: np.ndarray, size: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Return log G for G ~ Gamma(shape, 1), elementwise, without underflow for small shapes.

    For a < 1, log G = log G' + log(U)/a with G' ~ Gamma(a + 1) and U ~ Uniform(0, 1).

    Args:
        shape: positive shapes, broadcast against ``size`` (trailing axes).
        size: output shape.
        rng: a numpy Generator.

    References:
        Marsaglia & Tsang 2000, "A simple method for generating gamma variables", Sec. 5.
    """
    shapes = np.broadcast_to(np.asarray(shape, dtype=np.float64), size)
    small = shapes < 1.0
    boosted = np.where(small, shapes + 1.0, shapes)
    log_g = np.log(rng.standard_gamma(boosted))
    uniform = 1.0 - rng.random(size)  # in (0, 1]: log stays finite
    with np.errstate(over="ignore", divide="ignore"):
        return np.where(small, log_g + np.log(uniform) / shapes, log_g)


@dataclass(frozen=True)
class DirichletMechanism(ConcentrationView):
    """Releases x ~ Dir(k·p) for an input p of the open simplex.

    Attributes:
        k: the concentration k > 0 (larger k: output closer to p, weaker privacy).
        eta: optional public lower bound η on input components, as the ACC 2020 privacy
            statement assumes; ``None`` accepts any point of the open simplex.

    References:
        Gohari et al. 2020, Sec. II-D, eq. of P[M_D^(k)(p) = x]; E[M(p)] = p.
    """

    k: float
    eta: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_real("k", self.k, low=0.0, low_open=True))
        if self.eta is not None:
            object.__setattr__(self, "eta", check_real("eta", self.eta, low=0.0, high=0.5, low_open=True))

    def concentration(self, data: Any) -> np.ndarray:
        """White-box view: the Dirichlet parameters k·p after the domain checks."""
        return self.k * check_open_simplex("data", data, eta=self.eta)

    def release_log(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """Return log x for x ~ Dir(k·p) (shape (n,), or (size, n)); every entry finite.

        Raises:
            InvalidArgument: for p outside the open simplex (or below eta).
            NumericalError: when a shape k p_i is so small (about 1e-306 or less) that even
                log x_i leaves the float64 range.
        """
        alpha = self.concentration(data)
        generator = normalize_rng(rng)
        count = None if size is None else check_integer("size", size, low=1)
        shape = alpha.shape if count is None else (count, alpha.size)
        log_g = log_gamma_variates(alpha, shape, generator)
        if not np.all(np.isfinite(log_g)):
            raise NumericalError(
                f"release_log: a shape k*p_i={float(alpha.min())!r} is so small that log x_i overflows float64; "
                "no float64 representation of the output exists (raise k or the smallest component)"
            )
        return log_g - special.logsumexp(log_g, axis=-1, keepdims=True)

    def release(self, data: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """Return x ~ Dir(k·p) (shape (n,), or (size, n) for ``size`` independent releases).

        Raises:
            InvalidArgument: for p outside the open simplex (or below eta).
            NumericalError: if an entry is below the float64 range (it would be a silent 0);
                use :meth:`release_log` then.
        """
        log_x = self.release_log(data, rng=rng, size=size)
        x = np.exp(log_x)
        if not np.all(x > 0.0):
            raise NumericalError(
                f"release: {int(np.count_nonzero(x == 0.0))} output entries underflow float64 "
                f"(smallest log entry {float(log_x.min()):.4g}); use release_log for the exact log-coordinates"
            )
        return x


MECHANISM = Mechanism(
    name="dirichlet",
    description="Dirichlet mechanism Dir(k p) on the open simplex (Gohari et al.)",
    factory=DirichletMechanism,
    input_domain=PROBABILITY_VECTOR,
    relations=(SIMPLEX_ADJACENT,),
    neighbourhood=simplex_adjacency(),
    output=OutputSpec("a point of the open simplex of the input's length", lambda params, data: np.shape(data)),
    views=frozenset({ConcentrationView}),
    candidate=CandidateSignature("p", "dirichlet(p, *, k, eta=None, rng) -> ndarray"),
    source="Gohari et al. 2020, Sec. II-D",
    noise_family="dirichlet",
)
