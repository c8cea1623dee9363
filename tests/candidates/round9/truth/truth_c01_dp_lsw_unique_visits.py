"""Truth for r9-c01 (dp_lsw, PRIVATE).

The candidate is Algorithm 1 of Balle et al. (2016) with the main-text constants, written another
way (np.unique first visits, lfilter returns, pinv of Gamma^{1/2} Phi, psi vectorised over k).
With rewards in [0, r_max] and F_max = r_max/(1-gamma) (no f_max in the spec), Cor. 3 gives
condition (a) of Lemma 1 for sigma_X = alpha F_max ||(Gamma^{1/2}Phi)^+|| sqrt(phi_X^w) and Lemmas 4-5
make psi_X^w a beta-smooth upper bound (condition (b)); Theorem 6: (epsilon, delta)-DP.

At the spec's (1, 0.05) with d = 5 the whole Lemma-1 class has epsilon 0 at delta = 0.05 (the main-text
alpha = 13.6 leaves the pair indistinguishable beyond delta), so the true epsilon is 0 <= 1.
(Cor. 3's proof uses returns in [0, r_max/(1-gamma)]; if a relation allowed rewards in [-r_max, r_max]
the mean gap could double, 2/alpha against sigma, and the class bound at twice the gap is 0.027,
still far below 1.) The random-pair check confirms the code meets
(a) and (b): both ratios stay <= 1.
"""

import _paths  # noqa: F401
import c01_dp_lsw_unique_visits as cand
from balle_checks import check_conditions
from lemma1 import lemma1_class_epsilon

PARAMS = dict(
    n_states=5, features="tabular", gamma=0.9, r_max=1.0, epsilon=1.0, delta=0.05, weights=[1.0, 1.0, 2.0, 2.0, 1.0]
)


def result():
    eps_class, _alpha, _beta = lemma1_class_epsilon(1.0, 0.05, 5)
    ra, rb = check_conditions(
        lambda X: cand.estimate_and_scale(X, **PARAMS), n_states=5, epsilon=1.0, delta=0.05, d=5, r_max=1.0
    )
    return {
        "name": "r9-c01-dp-lsw-unique-visits",
        "truth": "private",
        "claim": (1.0, 0.05),
        "true_epsilon_upper_bound": eps_class,
        "condition_a_ratio": ra,
        "condition_b_ratio": rb,
    }


if __name__ == "__main__":
    print(result())
