"""Black-box candidates: textbook DP mechanisms written as a user would, some with bugs.

Written from the textbook definitions (Dwork & Roth 2014; Warner 1965; McSherry & Talwar 2007;
Lyu, Su & Li 2017; Ghosh, Roughgarden & Sundararajan 2009), not from dpaudit's code.
Every candidate is ``fn(dataset, *, <params>, rng)``; most also have a vectorised
``fn.sample(dataset, n, *, rng, **params)`` returning n releases stacked on axis 0.
The helper functions at the bottom (``make_*``, ``*_neighbours``, ``*_distance``) are the
``[candidate]`` datasets / neighbours / distance functions of the specs.

The truth of every candidate is derived in its docstring and computed in ``truth.py``
(scipy / fractions, no dpaudit).
"""

from __future__ import annotations

import math

import numpy as np

# ---------------------------------------------------------------------------------------------
# helpers


def _vectorised(sample):
    """Attach ``sample`` as the vectorised entry point of a per-call function built from it."""

    def decorate(fn):
        fn.sample = sample
        return fn

    return decorate


def _two_sided_geometric(alpha, size, rng):
    """P(k) = (1 - alpha)/(1 + alpha) alpha^|k|: difference of two Geometric(1 - alpha) - 1."""
    p = 1.0 - alpha
    return (rng.geometric(p, size=size) - rng.geometric(p, size=size)).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# 1. Binary randomized response on a list of bits (replace_one): one noisy bit per record.


def _rr_binary_sample(dataset, n, *, epsilon, rng):
    bits = np.asarray(dataset, dtype=np.int64)
    keep = math.exp(epsilon) / (1.0 + math.exp(epsilon))
    flip = rng.random((n, bits.size)) >= keep
    return np.where(flip, 1 - bits, bits)


def rr_binary(dataset, *, epsilon, rng):
    """Warner's randomized response: each bit kept w.p. e^eps/(1+e^eps), else flipped.

    Truth: private. Replacing one record changes one bit; that coordinate's likelihood ratio is
    e^eps exactly, the others are unchanged: true epsilon = eps (0.9 in the spec).
    """
    return _rr_binary_sample(dataset, 1, epsilon=epsilon, rng=rng)[0]


rr_binary.sample = _rr_binary_sample


def rr_binary_coin_first(dataset, *, epsilon, rng):
    """Randomized response in the "toss a coin first" form, per call (no vectorised entry point).

    With probability t = (e^eps - 1)/(e^eps + 1) answer truthfully, otherwise answer a fair coin:
    P(keep) = t + (1 - t)/2 = e^eps/(1 + e^eps), the same law as rr_binary.
    Truth: private, true epsilon = eps.
    """
    t = (math.exp(epsilon) - 1.0) / (math.exp(epsilon) + 1.0)
    out = []
    for bit in dataset:
        if rng.random() < t:
            out.append(int(bit))
        else:
            out.append(int(rng.random() < 0.5))
    return np.asarray(out, dtype=np.int64)


def _rr_binary_e2eps_sample(dataset, n, *, epsilon, rng):
    bits = np.asarray(dataset, dtype=np.int64)
    keep = math.exp(2 * epsilon) / (1.0 + math.exp(2 * epsilon))  # BUG: e^{2 eps}
    flip = rng.random((n, bits.size)) >= keep
    return np.where(flip, 1 - bits, bits)


def rr_binary_e2eps(dataset, *, epsilon, rng):
    """LEAKY: keep probability e^{2eps}/(1+e^{2eps}) (a factor 2 copied from the k-ary formula).

    Likelihood ratio of a changed bit: e^{2eps}. True epsilon = 2 eps = 1.8.
    """
    return _rr_binary_e2eps_sample(dataset, 1, epsilon=epsilon, rng=rng)[0]


rr_binary_e2eps.sample = _rr_binary_e2eps_sample

# ---------------------------------------------------------------------------------------------
# 2. k-ary randomized response of one user's value (a string), local model: any two values are
#    neighbours (relation user(any_value_change)).

COLOURS = ("red", "green", "blue", "yellow")


def _krr_sample_probs(value, n, keep, rng):
    k = len(COLOURS)
    idx = COLOURS.index(value)
    keep_draw = rng.random(n) < keep
    other = rng.integers(0, k - 1, size=n)
    other = other + (other >= idx)  # uniform over the k - 1 other values
    codes = np.where(keep_draw, idx, other)
    return np.asarray(COLOURS)[codes]


def _krr_sample(value, n, *, epsilon, rng):
    k = len(COLOURS)
    keep = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
    return _krr_sample_probs(value, n, keep, rng)


def krr(value, *, epsilon, rng):
    """k-ary randomized response (k = 4): report the true value w.p. e^eps/(e^eps + k - 1), each other
    value w.p. 1/(e^eps + k - 1). Truth: private; likelihood ratio e^eps exactly: true epsilon = eps.
    """
    return str(_krr_sample(value, 1, epsilon=epsilon, rng=rng)[0])


krr.sample = _krr_sample


def _krr_e2eps_sample(value, n, *, epsilon, rng):
    k = len(COLOURS)
    keep = math.exp(2 * epsilon) / (math.exp(2 * epsilon) + k - 1)  # BUG
    return _krr_sample_probs(value, n, keep, rng)


def krr_e2eps(value, *, epsilon, rng):
    """LEAKY: k-ary RR with e^{2 eps} in place of e^eps. Ratio e^{2eps}: true epsilon = 2 eps = 1.8."""
    return str(_krr_e2eps_sample(value, 1, epsilon=epsilon, rng=rng)[0])


krr_e2eps.sample = _krr_e2eps_sample


def _krr_binary_formula_sample(value, n, *, epsilon, rng):
    keep = math.exp(epsilon) / (1.0 + math.exp(epsilon))  # BUG: the binary formula for k = 4
    return _krr_sample_probs(value, n, keep, rng)


def krr_binary_formula(value, *, epsilon, rng):
    """LEAKY: k-ary RR with the binary keep probability e^eps/(1+e^eps), the rest shared by k - 1 = 3.

    P(report x | x) / P(report x | y) = [e^eps/(1+e^eps)] / [1/(3 (1+e^eps))] = 3 e^eps:
    true epsilon = eps + ln 3 = 1.99861.
    """
    return str(_krr_binary_formula_sample(value, 1, epsilon=epsilon, rng=rng)[0])


krr_binary_formula.sample = _krr_binary_formula_sample


def any_value_distance(a, b):
    """user(any_value_change): local DP, any two values are neighbours (distance 0 or 1)."""
    return 0.0 if a == b else 1.0


# ---------------------------------------------------------------------------------------------
# 3. Exponential mechanism: elect one of three candidates from a list of votes (replace_one);
#    utility u(X, c) = number of votes for c, sensitivity 1.

NAMES = ("alice", "bob", "carol")


def _vote_counts(votes):
    return np.array([sum(1 for v in votes if v == name) for name in NAMES], dtype=float)


def _em_sample(votes, n, *, epsilon, rng, factor):
    u = _vote_counts(votes)
    logits = factor * epsilon * u
    w = np.exp(logits - logits.max())
    p = w / w.sum()
    codes = rng.choice(len(NAMES), size=n, p=p)
    return np.asarray(NAMES)[codes]


def _em_half_sample(votes, n, *, epsilon, rng):
    return _em_sample(votes, n, epsilon=epsilon, rng=rng, factor=0.5)


def em_votes(votes, *, epsilon, rng):
    """Exponential mechanism: P(c) proportional to exp(eps u(c) / 2), u = vote count (Delta u = 1).

    Truth: private. Replacing a vote moves one count down and one up by 1; the ratio of P(c) is at
    most e^{eps/2} Z'/Z <= e^eps (McSherry & Talwar 2007). The sup e^eps is approached (not attained)
    when c is far behind a leader that gains the vote: true epsilon = eps (sup over the domain).
    """
    return str(_em_half_sample(votes, 1, epsilon=epsilon, rng=rng)[0])


em_votes.sample = _em_half_sample


def em_gumbel_trick(votes, *, epsilon, rng):
    """The exponential mechanism by the Gumbel-max trick: argmax_c eps u(c)/2 + Gumbel(0, 1), per call.

    argmax of logits plus iid standard Gumbel noise samples softmax(logits): the same law as em_votes.
    Truth: private, true epsilon = eps (sup, not attained).
    """
    u = _vote_counts(votes)
    g = rng.gumbel(0.0, 1.0, size=u.size)
    return NAMES[int(np.argmax(epsilon * u / 2.0 + g))]


def _em_full_sample(votes, n, *, epsilon, rng):
    return _em_sample(votes, n, epsilon=epsilon, rng=rng, factor=1.0)


def em_factor_eps(votes, *, epsilon, rng):
    """LEAKY: exp(eps u(c)) (the factor 1/2 dropped, "the utility has sensitivity 1").

    Same argument with eps' = 2 eps: ratio up to e^{2 eps}; true epsilon = 2 eps = 1.8 (sup). On two
    candidates with counts d apart the ratio of the trailing one is (1 + e^{eps(d+2)})/(1 + e^{eps d}).
    """
    return str(_em_full_sample(votes, 1, epsilon=epsilon, rng=rng)[0])


em_factor_eps.sample = _em_full_sample


def make_votes(rng):
    """Ten votes with skewed preferences (a public poll of a small club)."""
    pref = rng.dirichlet([2.0, 1.0, 1.0])
    codes = rng.choice(3, size=10, p=pref)
    return [NAMES[c] for c in codes]


# ---------------------------------------------------------------------------------------------
# 4. Report noisy max over four counts (relation user(one_count_moves_by_one)); the release is
#    the name of the winning region.

REGIONS = ("north", "south", "east", "west")


def _rnm(counts, n, rng, noise):
    c = np.asarray(counts, dtype=float)
    z = c[None, :] + noise((n, c.size))
    return np.asarray(REGIONS)[np.argmax(z, axis=1)]


def _rnm_laplace_sample(counts, n, *, epsilon, rng):
    return _rnm(counts, n, rng, lambda shape: rng.laplace(0.0, 1.0 / epsilon, size=shape))


def rnm_laplace(counts, *, epsilon, rng):
    """Report noisy max with Laplace(1/eps) noise (Dwork & Roth 2014, Claim 3.9).

    Truth: private. When count i moves up by one, P(i wins) grows by at most e^eps (shift the noise
    of i by 1) and the others' win probabilities shrink; sup ratio e^{eps}, approached when i is far
    behind. True epsilon = eps = 0.9 (sup, not attained).
    """
    return str(_rnm_laplace_sample(counts, 1, epsilon=epsilon, rng=rng)[0])


rnm_laplace.sample = _rnm_laplace_sample


def _rnm_gumbel_sample(counts, n, *, epsilon, rng):
    return _rnm(counts, n, rng, lambda shape: rng.gumbel(0.0, 1.0 / epsilon, size=shape))


def rnm_gumbel(counts, *, epsilon, rng):
    """Report noisy max with Gumbel(1/eps) noise = the exponential mechanism with weights exp(eps c_i).

    Truth: private under one-count-moves-by-one: only w_i changes, by e^{eps}; P'(i)/P(i) =
    e^eps Z/Z' <= e^eps and P'(j)/P(j) = Z/Z' >= e^{-eps}. True epsilon = eps = 0.9 (sup).
    """
    return str(_rnm_gumbel_sample(counts, 1, epsilon=epsilon, rng=rng)[0])


rnm_gumbel.sample = _rnm_gumbel_sample


def _rnm_gumbel_half_sample(counts, n, *, epsilon, rng):
    return _rnm(counts, n, rng, lambda shape: rng.gumbel(0.0, 0.5 / epsilon, size=shape))  # BUG


def rnm_gumbel_half_scale(counts, *, epsilon, rng):
    """LEAKY: Gumbel(0.5/eps) noise: the exponential mechanism with weights exp(2 eps c_i).

    True epsilon = 2 eps = 1.8 (sup); on close counts the ratio is e^{2eps} Z/Z' (truth.py).
    """
    return str(_rnm_gumbel_half_sample(counts, 1, epsilon=epsilon, rng=rng)[0])


rnm_gumbel_half_scale.sample = _rnm_gumbel_half_sample


def _rnm_laplace_half_sample(counts, n, *, epsilon, rng):
    return _rnm(counts, n, rng, lambda shape: rng.laplace(0.0, 0.5 / epsilon, size=shape))  # BUG


def rnm_laplace_half_scale(counts, *, epsilon, rng):
    """LEAKY: Laplace(0.5/eps) noise. Same argument with scale b = 0.5/eps: true epsilon = 1/b = 1.8 (sup)."""
    return str(_rnm_laplace_half_sample(counts, 1, epsilon=epsilon, rng=rng)[0])


rnm_laplace_half_scale.sample = _rnm_laplace_half_sample


def make_counts(rng):
    """Four regional counts close to each other (a close race is where a winner is sensitive)."""
    return [int(x) for x in 20 + rng.integers(0, 4, size=4)]


def count_neighbours(counts):
    """Every count moved by +1 or -1, one at a time."""
    out = []
    for i in range(len(counts)):
        for step in (1, -1):
            other = list(counts)
            other[i] = other[i] + step
            out.append(other)
    return out


def one_count_distance(a, b):
    """user(one_count_moves_by_one): at most one count differs; distance = |difference| (2 if several)."""
    diff = [abs(x - y) for x, y in zip(a, b, strict=False)]
    if len(a) != len(b) or sum(d > 0 for d in diff) > 1:
        return 2.0
    return float(max(diff, default=0))


# ---------------------------------------------------------------------------------------------
# 5. A DP histogram of age bands (replace_one).

BANDS = ("0-17", "18-34", "35-64", "65+")


def _histogram(records):
    return np.array([sum(1 for r in records if r == b) for b in BANDS], dtype=float)


def _hist_laplace_sample(records, n, *, epsilon, rng):
    h = _histogram(records)
    return h[None, :] + rng.laplace(0.0, 2.0 / epsilon, size=(n, h.size))


def hist_laplace(records, *, epsilon, rng):
    """Laplace histogram with scale 2/eps: replacing one record moves two bins by one (L1 sensitivity 2).

    Truth: private, true epsilon = 2/(2/eps) = eps = 0.9 (attained whenever the record changes bin).
    """
    return _hist_laplace_sample(records, 1, epsilon=epsilon, rng=rng)[0]


hist_laplace.sample = _hist_laplace_sample


def _hist_geometric_sample(records, n, *, epsilon, rng):
    h = _histogram(records).astype(np.int64)
    return h[None, :] + _two_sided_geometric(math.exp(-epsilon / 2.0), (n, h.size), rng)


def hist_geometric(records, *, epsilon, rng):
    """Integer histogram with two-sided geometric noise, alpha = e^{-eps/2} per bin (Ghosh et al. 2009).

    Per bin the ratio of a shift by one is alpha^{-1} = e^{eps/2}; two bins move: true epsilon = eps.
    """
    return _hist_geometric_sample(records, 1, epsilon=epsilon, rng=rng)[0]


hist_geometric.sample = _hist_geometric_sample


def _hist_laplace_sens1_sample(records, n, *, epsilon, rng):
    h = _histogram(records)
    return h[None, :] + rng.laplace(0.0, 1.0 / epsilon, size=(n, h.size))  # BUG: sensitivity 1


def hist_laplace_sens1(records, *, epsilon, rng):
    """LEAKY: Laplace(1/eps) per bin ("one person is one count"), but replace-one moves two bins.

    L1 sensitivity 2 at scale 1/eps: true epsilon = 2 eps = 1.8.
    """
    return _hist_laplace_sens1_sample(records, 1, epsilon=epsilon, rng=rng)[0]


hist_laplace_sens1.sample = _hist_laplace_sens1_sample


def make_ages(rng):
    """Twenty survey respondents' age bands."""
    codes = rng.choice(4, size=20, p=[0.2, 0.3, 0.35, 0.15])
    return [BANDS[c] for c in codes]


# ---------------------------------------------------------------------------------------------
# 6. A noisy count released as an integer (add_remove_one): how many records are True.


def count_geometric(records, *, epsilon, rng):
    """Two-sided geometric mechanism, alpha = e^{-eps}, per call (no vectorised entry point).

    P(k) proportional to alpha^{|k - c|}; the count has sensitivity 1: ratio at most alpha^{-1} = e^eps,
    attained: true epsilon = eps = 0.9.
    """
    c = int(sum(bool(r) for r in records))
    p = 1.0 - math.exp(-epsilon)
    return c + int(rng.geometric(p)) - int(rng.geometric(p))


def _count_rounded_laplace_small_sample(records, n, *, epsilon, rng):
    c = float(sum(bool(r) for r in records))
    return np.rint(c + rng.laplace(0.0, 0.5 / epsilon, size=n)).astype(np.int64)  # BUG: 0.5/eps


def count_rounded_laplace_small(records, *, epsilon, rng):
    """LEAKY: round(c + Laplace(0.5/eps)) ("rounding is post-processing", but the scale is halved).

    With b = 0.5/eps: P(Y = c + j) = e^{-(j - 1/2)/b}(1 - e^{-1/b})/2 for j >= 1, so in the tails the
    ratio between c and c + 1 is e^{1/b} = e^{2 eps}: true epsilon = 1.8 (exact sup; the centre gives
    only ln[(1 - e^{-1/(2b)}) / (e^{-1/(2b)}(1 - e^{-1/b})/2)] = 1.252).
    """
    return int(_count_rounded_laplace_small_sample(records, 1, epsilon=epsilon, rng=rng)[0])


count_rounded_laplace_small.sample = _count_rounded_laplace_small_sample


def _count_one_sided_sample(records, n, *, epsilon, rng):
    c = int(sum(bool(r) for r in records))
    return c + (rng.geometric(1.0 - math.exp(-epsilon), size=n) - 1).astype(np.int64)  # BUG: one-sided


def count_one_sided_geometric(records, *, epsilon, rng):
    """LEAKY: c + Geometric noise >= 0 ("counts cannot be negative"): Y >= c always.

    P(Y = c | c) = 1 - e^{-eps} = 0.593 while P(Y = c | c + 1) = 0: true epsilon = inf.
    """
    return int(_count_one_sided_sample(records, 1, epsilon=epsilon, rng=rng)[0])


count_one_sided_geometric.sample = _count_one_sided_sample


def make_flu_records(rng):
    """Fifteen patients, True when they had the flu."""
    return [bool(x) for x in rng.random(15) < 0.4]


# ---------------------------------------------------------------------------------------------
# 7. Sparse vector / AboveThreshold over 8 queries of sensitivity 1
#    (relation user(answers_move_by_at_most_one): every answer may move by up to 1, in any
#    direction). Release: 1 (above), 0 (below), -1 (not answered: stopped).


def svt_alg1(answers, *, epsilon, threshold, rng):
    """Lyu, Su & Li 2017, Alg. 1 with c = 1 (= Dwork & Roth's AboveThreshold), per call.

    rho ~ Lap(2/eps) once; nu_i ~ Lap(4/eps); answer 1 at the first q_i + nu_i >= T + rho, then stop.
    Truth: private, epsilon <= eps = 0.9 (Lyu et al. Thm 2); truth.py computes the exact output law
    by quadrature on the spec's pairs (largest log-ratio below eps).
    """
    rho = rng.laplace(0.0, 2.0 / epsilon)
    out = []
    stopped = False
    for q in answers:
        if stopped:
            out.append(-1)
            continue
        nu = rng.laplace(0.0, 4.0 / epsilon)
        if q + nu >= threshold + rho:
            out.append(1)
            stopped = True
        else:
            out.append(0)
    return np.asarray(out, dtype=np.int64)


def _svt_vectorised(answers, n, rng, threshold, rho_scale, nu_scale, cutoff):
    q = np.asarray(answers, dtype=float)
    rho = rng.laplace(0.0, rho_scale, size=(n, 1))
    nu = rng.laplace(0.0, nu_scale, size=(n, q.size)) if nu_scale > 0 else np.zeros((n, q.size))
    above = (q[None, :] + nu >= threshold + rho).astype(np.int64)
    if not cutoff:
        return above
    seen = np.cumsum(above, axis=1)
    out = above.copy()
    out[(seen - above) >= 1] = -1  # after the first 1: not answered
    return out


def _svt_no_query_noise_sample(answers, n, *, epsilon, threshold, rng):
    return _svt_vectorised(answers, n, rng, threshold, 2.0 / epsilon, 0.0, True)


def svt_no_query_noise(answers, *, epsilon, threshold, rng):
    """LEAKY (Lyu et al. Alg. 5, Stoddard et al. 2014): noisy threshold, no noise on the queries.

    On q = (..., 5, 4, ...) vs q' = (..., 4, 5, ...) (T = 5): the output (0, 1) at those two queries
    needs q_i < T + rho <= q_j, possible for one and impossible for the other: true epsilon = inf.
    """
    return _svt_no_query_noise_sample(answers, 1, epsilon=epsilon, threshold=threshold, rng=rng)[0]


svt_no_query_noise.sample = _svt_no_query_noise_sample


def _svt_no_cutoff_sample(answers, n, *, epsilon, threshold, rng):
    return _svt_vectorised(answers, n, rng, threshold, 2.0 / epsilon, 2.0 / epsilon, False)


def svt_no_cutoff(answers, *, epsilon, threshold, rng):
    """LEAKY (Lyu et al. Alg. 6, Chen et al. 2015): rho ~ Lap(2/eps), nu_i ~ Lap(2/eps), and every query
    answered (no cutoff). Each answered query leaks up to eps/2 given rho; with 8 queries moving in
    opposite directions the loss adds up: true epsilon >= the value truth.py computes by quadrature
    on the spec's pairs (about 1.8-2.6, grows without bound with the number of queries).
    """
    return _svt_no_cutoff_sample(answers, 1, epsilon=epsilon, threshold=threshold, rng=rng)[0]


svt_no_cutoff.sample = _svt_no_cutoff_sample


def make_answers(rng):
    """Eight query answers around the threshold 5."""
    return [int(x) for x in rng.integers(3, 8, size=8)]


def answer_neighbours(answers):
    """Answers moved by one: all up, all down, alternating, first half up and second half down (both ways)."""
    m = len(answers)
    patterns = [
        [1] * m,
        [-1] * m,
        [1 if i % 2 == 0 else -1 for i in range(m)],
        [-1 if i % 2 == 0 else 1 for i in range(m)],
        [1 if i < m // 2 else -1 for i in range(m)],
        [-1 if i < m // 2 else 1 for i in range(m)],
    ]
    return [[a + s for a, s in zip(answers, p, strict=False)] for p in patterns]


def linf_distance(a, b):
    """user(answers_move_by_at_most_one): the largest change of one answer."""
    if len(a) != len(b):
        return math.inf
    return float(max(abs(x - y) for x, y in zip(a, b, strict=False)))


# ---------------------------------------------------------------------------------------------
# 8. An OpenDP-style measurement in numpy: make_clamp >> make_sum >> make_laplace, the library's
#    own arguments (bounds, scale); relation add_remove_one (OpenDP's SymmetricDistance).


class Transformation:
    def __init__(self, function, stability):
        self.function = function
        self.stability = stability  # d_in -> d_out

    def __rshift__(self, other):
        if isinstance(other, Transformation):
            return Transformation(
                lambda x: other.function(self.function(x)), lambda d: other.stability(self.stability(d))
            )
        return Measurement(
            lambda x, rng: other.function(self.function(x), rng), lambda d: other.privacy_map(self.stability(d))
        )


class Measurement:
    def __init__(self, function, privacy_map):
        self.function = function
        self.privacy_map = privacy_map

    def __call__(self, x, rng):
        return self.function(x, rng)


def make_clamp(bounds):
    lo, hi = bounds
    return Transformation(lambda x: np.clip(np.asarray(x, dtype=float), lo, hi), lambda d: d)


def make_identity():
    return Transformation(lambda x: np.asarray(x, dtype=float), lambda d: d)


def make_sum(bounds):
    lo, hi = bounds
    return Transformation(lambda x: float(np.sum(x)), lambda d: d * max(abs(lo), abs(hi)))


def make_laplace(scale):
    class _Laplace:
        def function(self, x, rng, n=None):
            return x + rng.laplace(0.0, scale, size=n)

        def privacy_map(self, d):
            return d / scale

    return _Laplace()


def opendp_sum(incomes, *, bounds, scale, rng):
    """make_clamp(bounds) >> make_sum(bounds) >> make_laplace(scale), as an OpenDP user chains them.

    Under add/remove one record the clamped sum moves by at most max(|lo|, |hi|) = 10: Laplace(11)
    gives true epsilon = 10/11 = 0.90909.
    """
    meas = make_clamp(bounds) >> make_sum(bounds) >> make_laplace(scale)
    return float(meas(incomes, rng))


def _opendp_sum_sample(incomes, n, *, bounds, scale, rng):
    total = (make_clamp(bounds) >> make_sum(bounds)).function(incomes)
    return make_laplace(scale).function(total, rng, n=n)


opendp_sum.sample = _opendp_sum_sample


def opendp_sum_no_clamp(incomes, *, bounds, scale, rng):
    """LEAKY: the chain without make_clamp (the sum's stability map still says max(|lo|, |hi|)).

    A record of any size moves the sum by itself: unbounded sensitivity, true epsilon = inf (on a pair
    removing a record of value v, v/11).
    """
    meas = make_identity() >> make_sum(bounds) >> make_laplace(scale)
    return float(meas(incomes, rng))


def _opendp_sum_no_clamp_sample(incomes, n, *, bounds, scale, rng):
    total = (make_identity() >> make_sum(bounds)).function(incomes)
    return make_laplace(scale).function(total, rng, n=n)


opendp_sum_no_clamp.sample = _opendp_sum_no_clamp_sample


def make_incomes(rng):
    """Twelve monthly incomes in thousands (log-normal: a few exceed the clamping bound 10)."""
    return [round(float(x), 2) for x in np.exp(rng.normal(1.5, 1.0, size=12))]


def make_bits(rng):
    """Three respondents' yes/no answers."""
    return [int(x) for x in rng.integers(0, 2, size=3)]
