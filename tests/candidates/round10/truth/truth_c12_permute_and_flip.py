"""Truth for c12 (private): permute-and-flip over four counts in [0, 10], eps = 1, Delta = 1.

Exact output law: option r is returned when it comes at position t + 1 of the random order, the t options before
it (a set S of the others, every set of size t equally likely: |S|! (n-1-|S|)! / n!) were all rejected, and r is
accepted: P(r) = p_r sum_{S subset of others} |S|! (n-1-|S|)!/n! prod_{s in S} (1 - p_s), p_r = exp(eps (u_r - u*)/2).
Enumerated for every count vector in [0, 10]^4 (the spec's input domain) and every neighbour under the user's
relation (each count moves by -1, 0 or +1, staying in the domain): the largest log-ratio is the true epsilon.
"""

import itertools
import math

import numpy as np

EPS, DELTA_U, N, LOW, HIGH = 1.0, 1.0, 4, 0, 10


def output_law(u):
    """u: (..., N) utilities -> (..., N) probabilities."""
    p = np.exp(EPS * (u - u.max(axis=-1, keepdims=True)) / (2 * DELTA_U))
    law = np.zeros_like(p)
    for r in range(N):
        others = [s for s in range(N) if s != r]
        total = np.zeros(u.shape[:-1])
        for size in range(N):
            weight = math.factorial(size) * math.factorial(N - 1 - size) / math.factorial(N)
            for subset in itertools.combinations(others, size):
                term = np.full(u.shape[:-1], weight)
                for s in subset:
                    term = term * (1 - p[..., s])
                total = total + term
        law[..., r] = p[..., r] * total
    return law


def compute():
    values = np.arange(LOW, HIGH + 1)
    grid = np.stack(np.meshgrid(*([values] * N), indexing="ij"), axis=-1).astype(float)  # (11,)*4 + (4,)
    law = output_law(grid)
    assert np.allclose(law.sum(axis=-1), 1.0)
    log_law = np.log(law)
    best, arg = 0.0, None
    size = HIGH - LOW + 1
    for offset in itertools.product((-1, 0, 1), repeat=N):
        if not any(offset):
            continue
        src = tuple(slice(max(0, -o), size - max(0, o)) for o in offset)
        dst = tuple(slice(max(0, o), size - max(0, -o)) for o in offset)
        ratio = log_law[src] - log_law[dst]
        value = float(ratio.max())
        if value > best:
            idx = np.unravel_index(int(ratio.argmax()), ratio.shape)
            x = [int(idx[i] + src[i].start) for i in range(N)]
            best, arg = value, (x[:N], [x[i] + offset[i] for i in range(N)][:N])
    return {
        "name": "r10-c12-permute-and-flip",
        "truth": "private",
        "claim": {"epsilon": EPS, "delta": 0.0},
        "true_epsilon": best,
        "details": {"worst_pair (counts X, X'; log-ratio over all outputs)": arg},
    }


if __name__ == "__main__":
    print(compute())
