"""Shared by the DP-LSW and DP-LSL candidates: first-visit Monte Carlo returns (Balle et al. 2016, Sec. 2)."""

import numpy as np


def first_visit_returns(dataset, n_states, gamma, low, high):
    """Per state: how many trajectories visit it, and the sum of their first-visit returns, each return
    clipped to [low, high]."""
    visits, totals = np.zeros(n_states), np.zeros(n_states)
    for trajectory in dataset:
        rewards = np.array([float(step[2]) for step in trajectory])
        returns = np.zeros(len(rewards))
        running = 0.0
        for t in range(len(rewards) - 1, -1, -1):
            running = rewards[t] + gamma * running
            returns[t] = running
        first = {}
        for t, step in enumerate(trajectory):
            first.setdefault(int(step[0]), t)
        for state, t in first.items():
            visits[state] += 1
            totals[state] += min(max(returns[t], low), high)
    return visits, totals
