"""The exact privacy profile of the Dirichlet mechanism on one pair of inputs of the simplex.

For inputs differing in two coordinates, the privacy loss depends on the output only through
one Beta-distributed coordinate, so delta(epsilon) is a difference of two regularised
incomplete Beta functions, evaluated in mpmath at two precisions.

References:
    Gohari et al. 2020, Sec. II-D (the mechanism and its density), Def. 2 (b-adjacency).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpaudit._lazy import lazy_module
from dpaudit._validation import check_finite_array, check_integer, check_real
from dpaudit.errors import InvalidArgument, NumericalError
from dpaudit.privacy.precise_values import PreciseValue, two_precisions

special, stats = lazy_module("scipy.special"), lazy_module("scipy.stats")

__all__ = [
    "DEFAULT_DIGITS",
    "SIMPLEX_ATOL",
    "BetaPair",
    "beta_pair_delta",
    "beta_pair_delta_float64",
    "beta_pair_loss_tails",
    "check_open_simplex",
    "dirichlet_pair",
    "dirichlet_pair_delta_quadrature",
    "privacy_loss_samples",
]


DEFAULT_DIGITS = 60


SIMPLEX_ATOL = 1e-12


def check_open_simplex(name: str, value: Any, *, eta: float | None = None, atol: float = SIMPLEX_ATOL) -> np.ndarray:
    """Return ``value`` as a vector of the open simplex Δ°(n), n >= 2 (every entry > 0, sum 1).

    Args:
        name: the argument's name, echoed in errors.
        value: the candidate vector.
        eta: an optional public lower bound; every entry must then be >= eta.
        atol: tolerance on the sum.

    Raises:
        InvalidArgument: naming the offending entry (zero, negative, below eta, non-finite)
            or the sum.

    References:
        Gohari et al. 2020, Sec. II-D (inputs p ∈ Δ°(n)).
    """
    vector = check_finite_array(name, value, ndim=1)
    if vector.size < 2:
        raise InvalidArgument(f"{name}: expected at least 2 entries, got shape {vector.shape}")
    bad = np.flatnonzero(vector <= 0.0)
    if bad.size:
        index = int(bad[0])
        raise InvalidArgument(
            f"{name}[{index}]={float(vector[index])!r}: expected every entry > 0 (the Dirichlet mechanism "
            "takes points of the open simplex; privatise rows on their support if zeros are structural)"
        )
    total = float(vector.sum())
    if abs(total - 1.0) > atol:
        raise InvalidArgument(f"{name}: entries sum to {total!r}, expected 1 within {atol:g}")
    if eta is not None:
        low = np.flatnonzero(vector < eta)
        if low.size:
            index = int(low[0])
            raise InvalidArgument(f"{name}[{index}]={float(vector[index])!r}: below the public lower bound eta={eta!r}")
    return vector


@dataclass(frozen=True)
class BetaPair:
    """The one-dimensional reduction of a b-adjacent Dirichlet pair.

    Attributes:
        a_p, b_p: Beta parameters (k p_i, k p_j) of U = x_i / (x_i + x_j) under p.
        a_q, b_q: the same under q; a_p + b_p == a_q + b_q.
    """

    a_p: float
    b_p: float
    a_q: float
    b_q: float

    def __post_init__(self) -> None:
        for name in ("a_p", "b_p", "a_q", "b_q"):
            object.__setattr__(self, name, check_real(name, getattr(self, name), low=0.0, low_open=True))
        total_p, total_q = self.a_p + self.b_p, self.a_q + self.b_q
        if abs(total_p - total_q) > 1e-12 * max(total_p, total_q):
            raise InvalidArgument(
                f"a_p + b_p = {total_p!r} but a_q + b_q = {total_q!r}: a b-adjacent pair keeps the pair's mass"
            )

    @property
    def shift(self) -> float:
        """k·d = a_q − a_p (positive: q moves mass into coordinate i)."""
        return self.a_q - self.a_p


def dirichlet_pair(p: np.ndarray, q: np.ndarray, k: float, *, atol: float = 1e-12) -> tuple[BetaPair, tuple[int, int]]:
    """Return the Beta reduction of the pair (p, q) and the two coordinates (i, j) where they differ.

    Raises:
        InvalidArgument: unless p and q lie in the open simplex and differ in exactly two
            coordinates with opposite, equal changes.

    References:
        Gohari et al. 2020, Def. 1.
    """
    k = check_real("k", k, low=0.0, low_open=True)
    p = check_open_simplex("p", p)
    q = check_open_simplex("q", q)
    if p.shape != q.shape:
        raise InvalidArgument(f"p and q: shapes differ, {p.shape} vs {q.shape}")
    differ = np.flatnonzero(p != q)
    if differ.size != 2:
        raise InvalidArgument(f"p and q: differ in {differ.size} coordinates {differ.tolist()}, expected exactly 2")
    i, j = (int(differ[0]), int(differ[1]))
    if abs((q[i] - p[i]) + (q[j] - p[j])) > atol:
        raise InvalidArgument(f"p and q: changes {q[i] - p[i]!r} and {q[j] - p[j]!r} do not cancel")
    return BetaPair(k * p[i], k * p[j], k * q[i], k * q[j]), (i, j)


def _two_precisions(compute: Callable[[], mpmath.mpf], digits: int) -> PreciseValue:
    try:
        return two_precisions(compute, digits)
    except ValueError as exc:  # mpmath's hypergeometric series did not converge
        raise NumericalError(f"incomplete beta function did not converge: {exc}") from exc


def _log_beta(a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b)


def _loss_side(epsilon: mpmath.mpf, pair: BetaPair) -> tuple[mpmath.mpf, mpmath.mpf, bool]:
    """(u*, 1 − u*, upper): the event {loss > ε} is {U > u*} (``upper``) or {U < u*}; both ends computed
    from the threshold's logit directly (1 − u* taken as a difference lost its digits once u* was within
    10^-digits of 1, and the two precisions then disagreed: an error instead of a verdict)."""
    a_p, b_p, a_q, b_q = (mpmath.mpf(v) for v in (pair.a_p, pair.b_p, pair.a_q, pair.b_q))
    constant = _log_beta(a_q, b_q) - _log_beta(a_p, b_p)
    slope = a_p - a_q  # loss = constant + slope * logit(U)
    logit = (epsilon - constant) / slope
    return 1 / (1 + mpmath.exp(-logit)), 1 / (1 + mpmath.exp(logit)), slope > 0


def _below(a: float, b: float, u: mpmath.mpf, rest: mpmath.mpf) -> mpmath.mpf:
    """P(U < u) for U ~ Beta(a, b), ``rest`` = 1 − u: near 1 as 1 − P(1 − U < rest), so neither end of the
    integral lies within rounding of 1."""
    if u <= rest:
        return mpmath.betainc(a, b, 0, u, regularized=True)
    return 1 - mpmath.betainc(b, a, 0, rest, regularized=True)


def beta_pair_loss_tails(epsilon: float, pair: BetaPair) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Return (P_p[loss > ε], P_q[loss > ε]) at the current mpmath precision."""
    eps = mpmath.mpf(epsilon)
    if pair.a_p == pair.a_q:
        return mpmath.mpf(0), mpmath.mpf(0)
    u, rest, upper = _loss_side(eps, pair)
    if upper:  # P(U > u*) = P(1 − U < 1 − u*), 1 − U ~ Beta(b, a)
        return _below(pair.b_p, pair.a_p, rest, u), _below(pair.b_q, pair.a_q, rest, u)
    return _below(pair.a_p, pair.b_p, u, rest), _below(pair.a_q, pair.b_q, u, rest)


def beta_pair_delta(epsilon: float, pair: BetaPair, *, digits: int = DEFAULT_DIGITS) -> PreciseValue:
    """The exact δ(ε) = sup_E P[M(p) ∈ E] − e^ε P[M(q) ∈ E] of one ordered Dirichlet pair.

    Args:
        epsilon: ε >= 0.
        pair: the Beta reduction of (p, q) (see :func:`dirichlet_pair`); inputs are taken
            as exact binary floats.
        digits: working precision (>= 50); the value is computed at ``digits`` and
            ``digits + 20`` and the difference reported as its error.

    Returns:
        δ(ε) with an absolute error bound.

    References:
        Gohari et al. 2020, Sec. II-D and Def. 1; the reduction in this module's docstring.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    digits = check_integer("digits", digits, low=50)

    def compute() -> mpmath.mpf:
        tail_p, tail_q = beta_pair_loss_tails(eps, pair)
        return tail_p - mpmath.exp(eps) * tail_q

    return _two_precisions(compute, digits)


#: |logit| past which the loss threshold u* (or 1 − u*) is below the smallest float64: the tail is then taken
#: from I_t(a, b) = t^a / (a B(a, b)) (1 + O(t)) in logs (the leading term; t < e^-700 leaves O(t) far below any
#: float64 digit). Without it u* underflowed to 0 and the tail to 0, though with a small shape a the tail of a
#: threshold of e^-800 is e^(-800 a), 0.45 for a = 0.001: a grid search ranked the worst pair last.
_UNDERFLOW_LOGIT = 700.0


def _small_tail(log_t: float, a: float, b: float) -> float:
    """I_t(a, b) for log t < −:data:`_UNDERFLOW_LOGIT` (the leading term of its series, in logs)."""
    return math.exp(a * log_t - math.log(a) - float(special.betaln(a, b)))


def _below_float64(a: float, b: float, logit: float) -> float:
    """P(U < u) for U ~ Beta(a, b) and u = expit(``logit``), in float64: the end nearer 0 taken directly
    (expit rounds to 1 from a logit of 37 on), and past :data:`_UNDERFLOW_LOGIT` from the series' leading term."""
    if logit < -_UNDERFLOW_LOGIT:
        return _small_tail(logit, a, b)
    if logit > _UNDERFLOW_LOGIT:
        return 1.0 - _small_tail(-logit, b, a)
    if logit <= 0:
        return float(special.betainc(a, b, special.expit(logit)))
    return float(special.betaincc(b, a, special.expit(-logit)))  # 1 − P(1 − U < 1 − u), 1 − U ~ Beta(b, a)


def _float64_tails(epsilon: float, pair: BetaPair) -> tuple[float, float]:
    """(P_p[loss > ε], P_q[loss > ε]) in float64 (scipy); the loss exceeds ε on U > u* (slope > 0) or on
    U < u*, with logit(u*) = (ε − constant) / slope; U > u* is 1 − U < 1 − u*, 1 − U ~ Beta(b, a)."""
    if pair.a_p == pair.a_q:
        return 0.0, 0.0
    constant = special.betaln(pair.a_q, pair.b_q) - special.betaln(pair.a_p, pair.b_p)
    slope = pair.a_p - pair.a_q
    logit = float((epsilon - constant) / slope)
    if slope > 0:
        return _below_float64(pair.b_p, pair.a_p, -logit), _below_float64(pair.b_q, pair.a_q, -logit)
    return _below_float64(pair.a_p, pair.b_p, logit), _below_float64(pair.a_q, pair.b_q, logit)


def beta_pair_delta_float64(epsilon: float, pair: BetaPair) -> float:
    """A float64 evaluation of :func:`beta_pair_delta` (scipy), for grid searches; not a verdict."""
    tail_p, tail_q = _float64_tails(epsilon, pair)
    return tail_p - math.exp(epsilon) * tail_q


def dirichlet_pair_delta_quadrature(epsilon: float, p: np.ndarray, q: np.ndarray, k: float) -> float:
    """δ(ε) by direct numerical integration of (f_p − e^ε f_q)_+ over the simplex (n = 2 or 3).

    An oracle independent of the Beta reduction: it integrates the full Dirichlet densities
    (scipy quadrature, float64, absolute accuracy about 1e-9 for shapes >= 1).

    Raises:
        InvalidArgument: for n outside {2, 3}.
    """
    from scipy import integrate

    alpha_p, alpha_q = k * np.asarray(p, dtype=float), k * np.asarray(q, dtype=float)
    n = alpha_p.size
    log_norm_p = special.gammaln(alpha_p.sum()) - special.gammaln(alpha_p).sum()
    log_norm_q = special.gammaln(alpha_q.sum()) - special.gammaln(alpha_q).sum()
    scale = math.exp(epsilon)

    def excess(point: np.ndarray) -> float:
        if np.any(point <= 0.0):
            return 0.0
        logs = np.log(point)
        f_p = math.exp(log_norm_p + float(np.dot(alpha_p - 1.0, logs)))
        f_q = math.exp(log_norm_q + float(np.dot(alpha_q - 1.0, logs)))
        return max(f_p - scale * f_q, 0.0)

    if n == 2:
        value, _ = integrate.quad(
            lambda x: excess(np.array([x, 1.0 - x])), 0.0, 1.0, limit=400, epsabs=1e-12, epsrel=1e-10
        )
        return float(value)
    if n == 3:
        value, _ = integrate.dblquad(
            lambda y, x: excess(np.array([x, y, 1.0 - x - y])),
            0.0,
            1.0,
            0.0,
            lambda x: 1.0 - x,
            epsabs=1e-11,
            epsrel=1e-9,
        )
        return float(value)
    raise InvalidArgument(f"p: n={n}; quadrature is implemented on the 2- and 3-simplex only")


def privacy_loss_samples(pair: BetaPair, size: int, *, rng: np.random.Generator) -> np.ndarray:
    """Samples of the privacy loss of the pair under p, drawn from the 1-D Beta law (float64).

    Used to compare the reduction with losses computed from full Dirichlet draws.
    """
    u = stats.beta.rvs(pair.a_p, pair.b_p, size=size, random_state=rng)
    constant = special.betaln(pair.a_q, pair.b_q) - special.betaln(pair.a_p, pair.b_p)
    return constant + (pair.a_p - pair.a_q) * special.logit(u)
