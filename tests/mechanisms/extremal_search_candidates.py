"""Candidates for the input-search tests of DP-LSW and gpope_step: one correct, the others leaky
only on inputs the spec does not name (the returns at R_max/(1 - gamma), a rarely visited state,
diagonal gradients). The DP-LSW ones take (theta_X, sigma_X) from dpaudit's reference and have a
vectorised ``sample`` entry point, so a test audits them in seconds."""

import numpy as np


def _trajectories(dataset):
    from dpaudit.rl import Trajectory

    return tuple(
        Trajectory(tuple(int(s) for s, _, _ in x), tuple(int(a) for _, a, _ in x), tuple(float(r) for _, _, r in x))
        for x in dataset
    )


def _gaussian_candidate(view):
    """A candidate releasing theta + sigma * N(0, I) for ``(theta, sigma) = view(dataset, params)``, with a
    vectorised ``sample`` entry point."""

    def release(dataset, *, rng, **params):
        theta, sigma = view(dataset, params)
        return theta + sigma * rng.standard_normal(theta.shape)

    def sample(dataset, n, *, rng, **params):
        theta, sigma = view(dataset, params)
        return theta + sigma * rng.standard_normal((n, theta.size))

    release.sample = sample
    return release


def _lsw_release(scale):
    """A DP-LSW candidate releasing theta_X + scale(record) * sigma_X * N(0, I)."""

    def view(dataset, params):
        from dpaudit.mechanisms.policy_evaluation.private import DPLSW

        record = DPLSW(**params).intermediates(_trajectories(dataset))
        return record.theta, record.sigma * scale(record, params)

    return _gaussian_candidate(view)


#: Private: Algorithm 1 as the reference computes it.
correct_dp_lsw = _lsw_release(lambda record, params: 1.0)

#: Leaky: the noise is calibrated to R_max instead of R_max / (1 - gamma) when no F_max is given
#: (the 1/(1 - gamma) factor forgotten); only returns above R_max show it.
dp_lsw_without_discount_factor = _lsw_release(
    lambda record, params: 1.0 - params["gamma"] if params.get("f_max") is None else 1.0
)


def _full_coverage_scale(record, params):
    """sqrt(phi/psi) with phi = sum_s w_s / m^2: the local bound of a dataset in which every
    trajectory visits every state, unsmoothed."""
    from dpaudit.mechanisms.policy_evaluation.private import DPLSW

    weights = DPLSW(**params).estimator.w
    return float(np.sqrt(np.sum(weights) / record.m**2 / record.psi))


#: Leaky: sigma_X falls like 1/m, as if every trajectory visited every state (psi_X replaced by
#: sum_s w_s / m^2): close to Algorithm 1 on datasets that cover every state, far too little noise
#: where one state is visited by a single trajectory.
dp_lsw_noise_as_if_full_coverage = _lsw_release(_full_coverage_scale)


#: Leaky: sigma_X follows psi_X where sqrt(psi_X) belongs: more noise than Algorithm 1 up to about a
#: hundred covering trajectories (psi_X > 1/m there), far less past a few hundred (psi_X about 1/m^2).
dp_lsw_sigma_from_psi = _lsw_release(lambda record, params: float(np.sqrt(record.psi)))


def _every_visit_view(dataset, params):
    """Algorithm 1 on every visit: each visit of a state becomes a one-step trajectory whose reward is
    the return from that visit, so |X_s| counts visits and F_X(s) averages every visit's return."""
    from dpaudit.mechanisms.policy_evaluation.private import DPLSW

    visits = []
    for trajectory in dataset:
        future = 0.0
        for state, action, reward in reversed(trajectory):
            future = reward + params["gamma"] * future
            visits.append([[state, action, future]])
    record = DPLSW(**params).intermediates(_trajectories(visits))
    return record.theta, record.sigma


#: Leaky: every visit counts (returns at most R_max, as with F_max <= R_max). One trajectory that goes
#: round every state many times raises every |X_s| (so sigma_X falls) and outweighs all the others in
#: F_X, where Algorithm 1 counts it once (it moves F_X(s) by at most F_max / |X_s|).
every_visit_dp_lsw = _gaussian_candidate(_every_visit_view)


def _clipped_step(gradients, clip, *, records, clip_norm, noise_multiplier, rng, n=None, sampling="uniform_one"):
    values = np.asarray(gradients, dtype=float)
    clipped = clip(values, clip_norm)
    count = 1 if n is None else n
    if sampling == "poisson":
        chosen = (rng.random((count, records)) < 1.0 / records).astype(float) @ clipped
    else:
        chosen = clipped[rng.integers(0, records, size=count)]
    noisy = chosen + clip_norm * noise_multiplier * rng.standard_normal(chosen.shape)
    return noisy[0] if n is None else noisy


def _l2_clip(values, clip_norm):
    norms = np.linalg.norm(values, axis=1, keepdims=True)
    return values / np.maximum(1.0, norms / clip_norm)


def _coordinate_clip(values, clip_norm):
    return np.clip(values, -clip_norm, clip_norm)


def _gpope_step(clip):
    """A gpope_step candidate clipping with ``clip``, with a vectorised ``sample`` entry point."""

    def step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
        return _clipped_step(
            gradients,
            clip,
            records=records,
            clip_norm=clip_norm,
            noise_multiplier=noise_multiplier,
            rng=rng,
            sampling=sampling,
        )

    def sample(gradients, n, *, records, clip_norm, noise_multiplier, steps=1, sampling="uniform_one", rng):
        return _clipped_step(
            gradients,
            clip,
            records=records,
            clip_norm=clip_norm,
            noise_multiplier=noise_multiplier,
            rng=rng,
            n=n,
            sampling=sampling,
        )

    step.sample = sample
    return step


#: Private: each gradient clipped to L2 norm h, then the step's sampling and noise.
correct_gpope_step = _gpope_step(_l2_clip)

#: Leaky: clips each coordinate to [-h, h] instead of the L2 norm to h, so a diagonal gradient keeps
#: L2 norm h sqrt(d); an axis-aligned one is clipped correctly.
gpope_step_clipping_each_coordinate = _gpope_step(_coordinate_clip)
