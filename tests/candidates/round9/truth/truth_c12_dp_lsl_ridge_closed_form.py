"""Truth for r9-c12 (dp_lsl, PRIVATE).

The candidate is Algorithm 2 of Balle et al. (2016) (tabular features, rho = 1, main-text
constants, the min of eq. (12)) in closed form per state, under its own parameter names (the spec
renames them). Cor. 8 gives condition (a) of Lemma 1 (lambda = 4 > ||Phi||^2 ||rho||_inf = 1) and
Lemma 9 (with min{|X_s| + k, m}) + Lemma 4 condition (b) under replace-one (m fixed); Theorem 10.
At the spec's (1, 0.1), d = 5, the Lemma-1 class has epsilon 0 at delta = 0.1: true epsilon 0 <= 1.
Under add/remove-one condition (b) fails (psi depends on m; dpaudit's known finding), so the spec
names replace_one only. The random-pair check confirms (a) and (b) on the code (condition (b) is met
with equality up to float64 round-off, ratio 1 + 5e-14, at pairs where psi is at its smoothing
boundary; dpaudit lists this float overshoot as a known finding of the reference too; it is
immaterial, the class bound being 0). A gap doubled by negative rewards still gives 0 at delta 0.1.
"""

import _paths  # noqa: F401
import c12_dp_lsl_ridge_closed_form as cand
from balle_checks import check_conditions
from lemma1 import lemma1_class_epsilon

KW = dict(num_states=5, discount=0.9, reward_bound=1.0, ridge=4.0, eps=1.0, dlt=0.1, value_bound=None)


def result():
    eps_class, _alpha, _beta = lemma1_class_epsilon(1.0, 0.1, 5)
    ra, rb = check_conditions(
        lambda X: cand._release_parameters(X, **KW), n_states=5, epsilon=1.0, delta=0.1, d=5, r_max=1.0
    )
    return {
        "name": "r9-c12-dp-lsl-ridge-closed-form",
        "truth": "private",
        "claim": (1.0, 0.1),
        "true_epsilon_upper_bound": eps_class,
        "condition_a_ratio": ra,
        "condition_b_ratio": rb,
    }


if __name__ == "__main__":
    print(result())
