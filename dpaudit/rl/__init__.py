"""dpaudit.rl: finite MDPs, Markov policies, exact planning, trajectories, first-visit statistics, domains."""

from dpaudit.rl.continuous import (
    ContinuousEnvironment,
    Episode,
    UniformActionPolicy,
    sample_episode,
    sample_episodes,
)
from dpaudit.rl.domains import (
    HIVParameters,
    HIVTreatment,
    MountainCar,
    investment_mdp,
    random_mdp,
)
from dpaudit.rl.domains.chain import Chain
from dpaudit.rl.features import FourierBasis, aggregated_features, tabular_features
from dpaudit.rl.first_visit import (
    FirstVisitEstimate,
    average_first_visit_returns,
    dataset_signature,
    discounted_returns,
    exact_visit_frequencies,
    first_visit_estimate,
    first_visit_return_matrix,
    first_visit_returns,
    first_visit_times,
    visit_frequency_matrix,
    visited_states,
)
from dpaudit.rl.mdp import STOCHASTIC_ATOL, FiniteMDP, check_stochastic_rows
from dpaudit.rl.planning import (
    FiniteHorizonSolution,
    InfiniteHorizonSolution,
    backward_induction,
    bellman_residual,
    evaluate_policy,
    greedy_policy,
    policy_iteration,
    q_values,
    value_iteration,
)
from dpaudit.rl.policy import MarkovPolicy
from dpaudit.rl.sampling import (
    DEFAULT_MAX_STEPS,
    sample_trajectories,
    sample_trajectory,
)
from dpaudit.rl.trajectory import Dataset, Trajectory, TrajectoryBatch

__all__ = [
    "DEFAULT_MAX_STEPS",
    "STOCHASTIC_ATOL",
    "Chain",
    "ContinuousEnvironment",
    "Dataset",
    "Episode",
    "FiniteHorizonSolution",
    "FiniteMDP",
    "FirstVisitEstimate",
    "FourierBasis",
    "HIVParameters",
    "HIVTreatment",
    "InfiniteHorizonSolution",
    "MarkovPolicy",
    "MountainCar",
    "Trajectory",
    "TrajectoryBatch",
    "UniformActionPolicy",
    "aggregated_features",
    "average_first_visit_returns",
    "backward_induction",
    "bellman_residual",
    "check_stochastic_rows",
    "dataset_signature",
    "discounted_returns",
    "evaluate_policy",
    "exact_visit_frequencies",
    "first_visit_estimate",
    "first_visit_return_matrix",
    "first_visit_returns",
    "first_visit_times",
    "greedy_policy",
    "investment_mdp",
    "policy_iteration",
    "q_values",
    "random_mdp",
    "sample_episode",
    "sample_episodes",
    "sample_trajectories",
    "sample_trajectory",
    "tabular_features",
    "value_iteration",
    "visit_frequency_matrix",
    "visited_states",
]
