"""Independent computations of the true epsilons and claims quoted in round7 (numpy/scipy only; no dpaudit).

Run from tests/candidates/round7:  python truth/truths.py [name ...]   (about two minutes for all).
Prints one line per quantity. The candidates' own modules are imported only to read off the mean and the noise
scale their code computes on a witness; every epsilon is computed here from the law of the release.
"""

import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from numerics import (  # noqa: E402
    beta_loss_delta,
    cell_delta,
    clipped_noise_densities,
    eps_for_delta,
    gaussian_eps,
    mixture_delta_1d,
    mixture_delta_2d,
    product_mixture_delta_2d,
    two_gaussians_eps,
)


def alpha_main(epsilon, delta):
    return 5 * math.sqrt(2 * math.log(2 / delta)) / epsilon


def beta_main(epsilon, delta, d):
    return epsilon / (4 * (d + math.log(2 / delta)))


def lemma1_worst(epsilon, delta, d):
    """eps(delta) of the worst pair Lemma 1 (main text) admits: shift = min(sigma)/alpha, variance ratio e^beta."""
    a, b = alpha_main(epsilon, delta), beta_main(epsilon, delta, d)
    s2 = math.exp(b / 2)
    return two_gaussians_eps(delta, 1.0 / a, 1.0, s2, d)


def c01():
    import lsw_every_visit as mod

    pairs = __import__("json").loads((HERE.parent / "specs" / "lsw_every_visit_pairs.json").read_text())
    params = dict(n_states=5, features="tabular", gamma=0.9, r_max=1.0, epsilon=2.0, delta=0.05)
    t1, s1 = mod.theta_and_sigma(pairs[0]["first"], **params)
    t0, s0 = mod.theta_and_sigma(pairs[0]["second"], **params)
    shift = float(np.linalg.norm(t1 - t0))
    print(f"c01 alpha={alpha_main(2.0, 0.05):.4f} beta={beta_main(2.0, 0.05, 5):.5f} sigma={s1:.4f},{s0:.4f}")
    eps = gaussian_eps(shift / s1, 0.05)
    print(f"c01 theta_1={np.round(t1, 4)} shift={shift:.4f} mu={shift / s1:.3f} eps(0.05)={eps:.2f}")
    correct = alpha_main(2.0, 0.05) * 10 * math.sqrt(5)
    print(f"c01 correct code sigma={correct:.2f} mu={shift / correct:.4f}")


def c02():
    import lsw_local_sensitivity as mod

    walk0 = [[s, 0, 0.0] for s in range(5)]
    walk1 = [[s, 0, 1.0] for s in range(5)]
    stub = [[0, 0, 0.0]]
    for m in (2, 10, 100):
        x = [walk0] + [stub] * (m - 1)
        xp = [walk0] + [stub] * (m - 2) + [walk1]
        fx, sx = mod.fit(x, 5, "tabular", 0.95, 1.0, 1.0, 0.1)
        fxp, sxp = mod.fit(xp, 5, "tabular", 0.95, 1.0, 1.0, 0.1)
        shift = float(np.linalg.norm(fx - fxp))
        eps = two_gaussians_eps(0.1, shift, sx, sxp, 5)
        print(f"c02 m={m} sigma_X={sx:.2f} sigma_X'={sxp:.2f} ratio={sx / sxp:.3f} shift={shift:.3f}", end=" ")
        print(f"eps(0.1)={eps:.3f}")
    print(f"c02 limit ratio 2, no shift: eps(0.1)={two_gaussians_eps(0.1, 0.0, 2.0, 1.0, 5):.3f}")


def c03():
    import lsl_scalar_noise as mod

    params = dict(n_states=4, features="tabular", gamma=0.9, r_max=1.0, lam=4.0, epsilon=1.5, delta=0.05)
    tx, sx = mod.lsl_estimate([[[0, 0, 1.0], [1, 0, 1.0], [2, 0, 0.0]]], **params)
    txp, sxp = mod.lsl_estimate([[[0, 0, 0.0], [1, 0, 0.0], [2, 0, 1.0]]], **params)
    print(f"c03 theta_X={np.round(tx, 4)} theta_X'={np.round(txp, 4)} sigma={sx:.2f}/{sxp:.2f}")
    print(f"c03 y0 - y3: {tx[0] - tx[3]:.6f} vs {txp[0] - txp[3]:.6f} (released exactly): eps = inf")


def c04():
    a, b = alpha_main(1.0, 0.1), beta_main(1.0, 0.1, 3)
    print(f"c04 alpha={a:.3f} beta={b:.5f} worst Lemma-1 pair d=3 eps(0.1)={lemma1_worst(1.0, 0.1, 3):.4f}")


def c05():
    a = alpha_main(1.0, 1e-3)
    print(f"c05 alpha={a:.3f} correct code: worst Lemma-1 pair d=2 eps(1e-3)={lemma1_worst(1.0, 1e-3, 2):.4f}")
    for s in (1.0, 1e2, 1e4, 1e6):
        mu = s / (a * math.sqrt(s))
        print(f"c05 buggy, S={s:g}, shift=S: mu={mu:.3f} eps(1e-3)={gaussian_eps(mu, 1e-3):.3f}")


def c06():
    q, s = 0.25, 2.0  # in units of h = 2: sensitivity 2, noise std sigma = 2
    dom_p, dom_q = [(q, 2.0), (1 - q, 0.0)], [(1.0, 0.0)]
    e1 = eps_for_delta(lambda e: mixture_delta_1d(e, dom_p, dom_q, s), 1e-3, high=30)
    e2 = eps_for_delta(lambda e: mixture_delta_1d(e, dom_q, dom_p, s), 1e-3, high=30)
    print(f"c06 claim: dominating pair eps(1e-3) = {e1:.5f} (reverse order {e2:.5f})")
    best = (0.0, None)
    for c in np.linspace(-1, 1, 9):
        for xp in np.linspace(-1, 1, 9):
            pp, qq = [(q, 1.0), (1 - q, c)], [(q, xp), (1 - q, c)]
            e = eps_for_delta(lambda e, pp=pp, qq=qq: mixture_delta_1d(e, pp, qq, s, grid=40001), 1e-3, high=30)
            best = max(best, (e, (float(c), 1.0, float(xp))))
    print(f"c06 claim: collinear grid (others at c, x = h, x'), sup eps(1e-3) = {best[0]:.5f} at {best[1]}")
    others = [(0.5, 0.0), (0.0, -0.5), (-0.3, 0.3)]
    for g in ((30.0, -40.0), (300.0, -400.0), (3000.0, -4000.0)):
        p = clipped_noise_densities([*others, g], 2.0, 4.0)
        r = clipped_noise_densities([*others, (-g[0], -g[1])], 2.0, 4.0)
        eps = eps_for_delta(lambda e, p=p, r=r: max(cell_delta(e, p, r), cell_delta(e, r, p)), 1e-3, high=40)
        print(f"c06 buggy, record 4 = {g} vs its negative: eps(1e-3) = {eps:.3f}")
    # Monte Carlo sanity check of the grid law: P(angle within 0.02 rad of (3, -4)'s, on the circle)
    rng = np.random.default_rng(1)
    n = 2_000_000
    pick = rng.integers(4, size=n)
    centres = np.array([*others, (300.0, -400.0)])[pick]
    y = centres + 4.0 * rng.standard_normal((n, 2))
    y = y / np.maximum(1.0, np.linalg.norm(y, axis=1, keepdims=True) / 2.0)
    ang = np.arctan2(y[:, 1], y[:, 0])
    hit = (np.abs(ang - math.atan2(-4, 3)) < 0.02) & (np.linalg.norm(y, axis=1) > 2 - 1e-9)
    print(f"c06 Monte Carlo P_X(arc of +-0.02 rad on the circle) = {hit.mean():.4f}")


def c07():
    s = 2.0
    dom_p, dom_q = [(0.5, 2.0), (0.5, 0.0)], [(1.0, 0.0)]
    e1 = eps_for_delta(lambda e: product_mixture_delta_2d(e, dom_p, dom_q, s, grid=4001), 1e-3, high=20)
    e2 = eps_for_delta(lambda e: product_mixture_delta_2d(e, dom_q, dom_p, s, grid=4001), 1e-3, high=20)
    print(f"c07 claim: two-fold dominating pair eps(1e-3) = {e1:.5f} (reverse order {e2:.5f})")
    # buggy law on the spec's pair: theta_3 = r_{i1} - z1 - z2 - z3, z ~ N(0, 4), unless a gradient is clipped.
    # Step 2's gradient norm <= sqrt(2) (30 + |z1| + 2 |z2|) < 100 unless |z1| > 13.5 or |z2| > 13.6:
    p_clip = 2 * norm.sf(13.5 / 2) + 2 * norm.sf(13.6 / 2)
    sd = math.sqrt(12.0)
    pp, qq = [(0.5, 0.0), (0.5, 30.0)], [(0.5, 0.0), (0.5, -30.0)]
    eps = eps_for_delta(lambda e: mixture_delta_1d(e, pp, qq, sd), 1e-3 + p_clip, high=300)
    print(f"c07 buggy: P(clip) <= {p_clip:.2e}; eps(1e-3 + P(clip)) = {eps:.3f}")
    correct_sd = math.sqrt(3) * 200.0
    eps_c = eps_for_delta(lambda e: mixture_delta_1d(e, pp, qq, correct_sd), 1e-3, high=60)
    print(f"c07 correct code on the same pair (no clip in reach, sd {correct_sd:.0f}): eps(1e-3) ~ {eps_c:.4f}")


def c08():
    k, eta, t, delta = 6.0, 0.15, 0.1, 0.01

    def eps_of(pi, pj, tt):
        a1, b1, a2, b2 = k * pi, k * pj, k * (pi - tt), k * (pj + tt)
        return eps_for_delta(
            lambda e: max(beta_loss_delta(e, a1, b1, a2, b2, 40001), beta_loss_delta(e, a2, b2, a1, b1, 40001)),
            delta,
            high=30,
        )

    best = (0.0, None)
    for total in np.linspace(2 * eta + t, 1.0, 15):
        for pi in np.linspace(eta + t, total - eta, 12):
            best = max(best, (eps_of(pi, total - pi, t), (round(float(pi), 4), round(float(total - pi), 4))))
    print(f"c08 grid sup eps(0.01) = {best[0]:.4f} at (p_i, p_j) = {best[1]} (t = 0.1)")
    for tt in (0.05, 0.08, 0.1):
        print(f"c08 (eta + t, eta) -> (eta, eta + t), t = {tt}: eps(0.01) = {eps_of(eta + tt, eta, tt):.4f}")
    print(f"c08 two-state pair (0.6, 0.4) -> (0.5, 0.5): eps(0.01) = {eps_of(0.6, 0.4, 0.1):.4f}")
    a1, b1, a2, b2 = 6 * 0.25, 6 * 0.15, 6 * 0.15, 6 * 0.25
    fine = eps_for_delta(lambda e: max(beta_loss_delta(e, a1, b1, a2, b2), beta_loss_delta(e, a2, b2, a1, b1)), delta)
    print(f"c08 sup point, fine grid: eps(0.01) = {fine:.5f}")


def c09():
    q, s = 0.2, 1.5
    for xp in (-1.0, 0.0):
        pp, qq = [(q, 1.0), (1 - q, 0.0)], [(q, xp), (1 - q, 0.0)]
        eps = eps_for_delta(lambda e, pp=pp, qq=qq: mixture_delta_1d(e, pp, qq, s), 1e-4, high=30)
        print(f"c09 x = h, x' = {xp} h: eps(1e-4) = {eps:.5f}")
    for angle in (120, 150, 180):
        a = math.radians(angle)
        pp = [(q, (1.0, 0.0)), (1 - q, (0.0, 0.0))]
        qq = [(q, (math.cos(a), math.sin(a))), (1 - q, (0.0, 0.0))]
        eps = eps_for_delta(lambda e, pp=pp, qq=qq: mixture_delta_2d(e, pp, qq, s, grid=1201), 1e-4, high=30)
        print(f"c09 angle {angle}: eps(1e-4) = {eps:.4f}")


def c10():
    import mc_values_return_bound as mod

    walk = [[min(t // 8, 4), 0, 1.0] for t in range(40)]
    zero = [[s, a, 0.0] for s, a, _ in walk]
    rest = [[[0, 0, 0.0], [1, 0, 0.0]]] * 9
    vx, sx = mod._mean_and_sigma([*rest, walk], 1.0, 1e-5, 0.9, 5, 1.0)
    vxp, _ = mod._mean_and_sigma([*rest, zero], 1.0, 1e-5, 0.9, 5, 1.0)
    shift = float(np.linalg.norm(vx - vxp))
    print(f"c10 witness: first-visit returns {np.round((vx - vxp) * 10, 3)}", end=" ")
    print(f"shift*m={shift * 10:.3f}, sigma*m={sx * 10:.3f}")
    print(f"c10 witness mu={shift / sx:.4f} eps(1e-5)={gaussian_eps(shift / sx, 1e-5):.3f}")
    mu_sup = 10 * math.sqrt(5) / (sx * 10)
    print(f"c10 sup (returns -> 10 in every state): mu={mu_sup:.4f} eps(1e-5)={gaussian_eps(mu_sup, 1e-5):.3f}")
    print(f"c10 correct code: mu = {shift / (sx * 10):.4f} on the witness (<= 1/4.845 over all pairs)")


def c11():
    h, r_env, r_clip, eps = 10, 4.0, 1.0, 1.0
    scale = 2 * h * r_clip / eps
    print(f"c11 scale={scale}, sup L1 shift={2 * h * r_env} -> eps={2 * h * r_env / scale}", end="; ")
    print(f"same steps 4 vs 0: {h * r_env / scale}")


def c12():
    g_max, m, eps = 5.0, 10, 0.5
    print(f"c12 sensitivity {g_max / m}, scale {g_max / (m * eps)}: eps = {g_max / m / (g_max / (m * eps))}")


ALL = {
    "c01": c01,
    "c02": c02,
    "c03": c03,
    "c04": c04,
    "c05": c05,
    "c06": c06,
    "c07": c07,
    "c08": c08,
    "c09": c09,
    "c10": c10,
    "c11": c11,
    "c12": c12,
}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(ALL):
        start = time.time()
        ALL[name]()
        print(f"  ({name}: {time.time() - start:.1f} s)")
