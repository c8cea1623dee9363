"""Truth labels and true epsilons of the user_kinds corpus, computed without dpaudit.

    python truth.py        # prints one line per candidate (a few seconds)

Tools: closed forms (module docstrings), exact enumeration, scipy quadrature (report-noisy-max
with Laplace noise, the sparse vector technique), and the exact Gaussian profile
delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu), mu = Delta/sigma (Balle & Wang 2018,
Thm 8), solved for eps at the claim's delta with scipy (brentq). No dpaudit import.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import integrate, optimize, stats

DELTA = 1e-5
Z = math.sqrt(2.0 * math.log(1.25 / DELTA))  # classical calibration: sigma = Delta Z / eps


def gaussian_delta(eps, mu):
    return stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)


def gaussian_eps(mu, delta=DELTA):
    """The exact epsilon of the Gaussian mechanism with Delta/sigma = mu at delta."""
    if gaussian_delta(0.0, mu) <= delta:
        return 0.0
    return optimize.brentq(lambda e: gaussian_delta(e, mu) - delta, 0.0, 200.0, xtol=1e-12)


# --------------------------------------------------------------------------------- black box


def em_domain_max(eps_per_vote, votes=10, options=3):
    """max over replace-one neighbours of `votes` votes of |ln P(c|X)/P(c|X')| for weights exp(k u)."""
    best = 0.0
    comps = [c for c in itertools.product(range(votes + 1), repeat=options) if sum(c) == votes]
    for c in comps:
        u = np.array(c, float)
        for i, j in itertools.permutations(range(options), 2):
            if u[i] == 0:
                continue
            v = u.copy()
            v[i] -= 1
            v[j] += 1
            p = np.exp(eps_per_vote * u - (eps_per_vote * u).max())
            p /= p.sum()
            q = np.exp(eps_per_vote * v - (eps_per_vote * v).max())
            q /= q.sum()
            best = max(best, float(np.max(np.abs(np.log(p) - np.log(q)))))
    return best


def rnm_laplace_probs(counts, b):
    c = np.asarray(counts, float)
    out = []
    for i in range(c.size):

        def f(x, i=i):
            return stats.laplace.pdf(x - c[i], scale=b) * np.prod(
                [stats.laplace.cdf(x - c[j], scale=b) for j in range(c.size) if j != i]
            )

        pts = sorted(set(c.tolist()))
        edges = [-np.inf, *pts, np.inf]
        val = sum(integrate.quad(f, lo, hi, limit=200)[0] for lo, hi in itertools.pairwise(edges))
        out.append(val)
    return np.array(out)


def rnm_gumbel_probs(counts, b):
    u = np.asarray(counts, float) / b
    p = np.exp(u - u.max())
    return p / p.sum()


def max_log_ratio(p, q):
    return float(np.max(np.abs(np.log(p) - np.log(q))))


def rnm_domain_max(prob_fn, b):
    """Largest log-ratio over the spec's datasets kind: 4 counts in 20..23, one count +-1."""
    best = 0.0
    seen = set()
    for c in itertools.product(range(20, 24), repeat=4):
        key = tuple(sorted(c))  # symmetric in the regions
        if key in seen:
            continue
        seen.add(key)
        p = prob_fn(key, b)
        for i in range(4):
            d = list(key)
            d[i] += 1
            best = max(best, max_log_ratio(p, prob_fn(tuple(d), b)))
    return best


def svt_pattern_probs(q, eps_rho_scale, nu_scale, threshold, cutoff):
    """Exact law of the SVT output patterns by quadrature over rho (nu_scale = 0: no query noise)."""
    q = np.asarray(q, float)
    m = q.size
    patterns = []
    if cutoff:
        for k in range(m):
            patterns.append(tuple([0] * k + [1] + [-1] * (m - k - 1)))
        patterns.append(tuple([0] * m))
    else:
        patterns = list(itertools.product((0, 1), repeat=m))
    out = {}
    for pat in patterns:

        def f(r, pat=pat):
            val = stats.laplace.pdf(r, scale=eps_rho_scale)
            for qi, o in zip(q, pat, strict=False):
                if o == -1:
                    continue
                above = stats.laplace.sf(threshold + r - qi, scale=nu_scale)
                val *= above if o == 1 else 1.0 - above
            return val

        pts = sorted({qi - threshold for qi in q})
        edges = [-60.0, *pts, 60.0]
        out[pat] = sum(integrate.quad(f, lo, hi, limit=200)[0] for lo, hi in itertools.pairwise(edges))
    return out


def svt_max_log_ratio(q1, q2, **kw):
    p1 = svt_pattern_probs(q1, **kw)
    p2 = svt_pattern_probs(q2, **kw)
    return max(abs(math.log(p1[k] / p2[k])) for k in p1 if p1[k] > 1e-300 and p2[k] > 1e-300)


# --------------------------------------------------------------------------------- RL


def b_k(k, gamma=0.9):
    return (1 - gamma**k) / (1 - gamma)


def main():
    eps = 0.9
    rows = []
    # randomized response
    rows += [
        ("rr-binary", "private", eps),
        ("rr-binary-coin-first", "private", eps),
        ("rr-binary-e2eps", "leaky", 2 * eps),
    ]
    rows += [
        ("krr", "private", eps),
        ("krr-e2eps", "leaky", 2 * eps),
        ("krr-binary-formula", "leaky", eps + math.log(3)),
    ]
    # exponential mechanism: sup over the domain (any number of votes) = eps / 2 eps; and on 10 votes
    em_ok, em_bad = em_domain_max(eps / 2), em_domain_max(eps)
    rows += [
        ("em-votes", "private", eps, f"10-vote datasets: {em_ok:.4f}"),
        ("em-gumbel-trick", "private", eps, f"10-vote datasets: {em_ok:.4f}"),
        ("em-factor-eps", "leaky", 2 * eps, f"10-vote datasets: {em_bad:.4f}"),
    ]
    # report noisy max: sup = 1/b (count far behind); on the spec's pair and the datasets' range
    pair = ((21, 20, 20, 18), (21, 20, 20, 19))
    for name, fn, b, truth in (
        ("rnm-laplace", rnm_laplace_probs, 1 / eps, "private"),
        ("rnm-gumbel", rnm_gumbel_probs, 1 / eps, "private"),
        ("rnm-gumbel-half-scale", rnm_gumbel_probs, 0.5 / eps, "leaky"),
        ("rnm-laplace-half-scale", rnm_laplace_probs, 0.5 / eps, "leaky"),
    ):
        on_pair = max_log_ratio(fn(pair[0], b), fn(pair[1], b))
        dom = rnm_domain_max(fn, b)
        rows.append((name, truth, 1 / b, f"spec pair: {on_pair:.4f}; counts in 20..23: {dom:.4f}"))
    # histogram, noisy count
    rows += [
        ("hist-laplace", "private", eps),
        ("hist-geometric", "private", eps),
        ("hist-laplace-sens1", "leaky", 2 * eps),
    ]
    b = 0.5 / eps
    centre = math.log((1 - math.exp(-0.5 / b)) / (math.exp(-0.5 / b) * (1 - math.exp(-1 / b)) / 2))
    rows += [
        ("count-geometric", "private", eps),
        ("count-rounded-laplace-small", "leaky", 1 / b, f"tails e^(1/b); centre only {centre:.4f}"),
        ("count-one-sided-geometric", "leaky", math.inf),
    ]
    # sparse vector, on the spec's pair
    q1, q2 = [5] * 8, [6, 4, 6, 4, 6, 4, 6, 4]
    alg1 = svt_max_log_ratio(q1, q2, eps_rho_scale=2 / eps, nu_scale=4 / eps, threshold=5.0, cutoff=True)
    alg6 = svt_max_log_ratio(q1, q2, eps_rho_scale=2 / eps, nu_scale=2 / eps, threshold=5.0, cutoff=False)
    rows += [
        ("svt-alg1", "private", eps, f"upper bound (Lyu et al. Thm 2); spec pair: {alg1:.4f}"),
        ("svt-no-query-noise", "leaky", math.inf),
        ("svt-no-cutoff", "leaky", alg6, "lower bound: spec pair (grows with the number of queries)"),
    ]
    rows += [("opendp-sum", "private", 10 / 11), ("opendp-sum-no-clamp", "leaky", math.inf)]

    # RL
    d_mc = math.sqrt(b_k(40) ** 2 + b_k(39) ** 2 + b_k(38) ** 2 + b_k(37) ** 2)  # times 1/m
    mu_mc = d_mc / 20.0 / Z * 1.0  # assumed Delta = sqrt(4) * 10 / m, eps = 1
    rows.append(("rl-mc-gaussian", "private", gaussian_eps(mu_mc), f"mu = {mu_mc:.4f}"))
    d_visits = math.sqrt((b_k(40) / 5) ** 2 + b_k(39) ** 2 + b_k(38) ** 2 + b_k(37) ** 2)
    mu_visits = d_visits / 4.0 / Z
    rows.append(
        (
            "rl-mc-avg-over-visits",
            "leaky",
            gaussian_eps(mu_visits),
            f"lower bound (pair in the docstring), mu = {mu_visits:.4f}; sup <= eps at mu = {2 * b_k(40) / 4 / Z:.4f}: "
            f"{gaussian_eps(2 * b_k(40) / 4 / Z):.4f}",
        )
    )
    mu_ns = d_mc / 2.0 / Z
    rows.append(("rl-mc-noise-not-scaled-by-bound", "leaky", gaussian_eps(mu_ns), f"mu = {mu_ns:.4f}"))
    rows += [
        ("rl-qtable-clipped", "private", eps),
        ("rl-qtable-no-length-clip", "leaky", 8 * eps, "a 40-step trajectory with rewards 1 vs 0: 3.6"),
    ]
    a_norm = 1 / math.sqrt(2)
    sigma_lsw = a_norm * 2 * 10 / 400 * Z
    d_lsw = math.sqrt(2) * b_k(40) / 400
    rows.append(("rl-lsw-global", "private", gaussian_eps(d_lsw / sigma_lsw), "upper bound (box of returns)"))
    d_lsw_pair = b_k(40) / 2 / 400 + b_k(39) / 2 / 400  # all-ones trajectory through 0 then 1, vs zeros
    rows.append(
        (
            "rl-lsw-variance-for-std",
            "leaky",
            gaussian_eps(d_lsw / sigma_lsw**2),
            f"sup; one all-ones trajectory through states 0, 1 vs zeros: {gaussian_eps(d_lsw_pair / sigma_lsw**2):.4f}",
        )
    )
    rows += [
        ("rl-policy-counts", "private", eps),
        ("rl-policy-counts-ignores-length", "leaky", 40 * eps),
        ("rl-greedy-policy", "private", eps, "upper bound (RNM with Laplace(2B/eps_s), composition)"),
    ]
    mu_pg = 1 / Z
    rows.append(("rl-pg-step", "private", gaussian_eps(mu_pg), f"mu = {mu_pg:.4f}"))
    rows.append(("rl-pg-clip-after-average", "leaky", gaussian_eps(5 * mu_pg), f"mu = {5 * mu_pg:.4f}"))

    for row in rows:
        name, truth, e = row[:3]
        note = row[3] if len(row) > 3 else ""
        print(f"{name:36s} {truth:8s} {e:10.6f}  {note}")


if __name__ == "__main__":
    main()
