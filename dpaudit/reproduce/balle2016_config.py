"""Configuration of the Balle et al. 2016 reproduction: the chain, batch sizes, feature groups,
regularisation grid and run counts (full and quick).

References:
    Balle, Gomrokchi & Precup 2016, Sec. 6.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["FULL", "QUICK", "Balle2016Config"]


@dataclass(frozen=True)
class Balle2016Config:
    """The parameters of one reproduction (defaults: the paper's Sec. 6 and our stated choices).

    Attributes:
        n_states, p, gamma: the chain (N = 40, p = 0.5, γ = 0.99).
        epsilon, delta: the DP target (0.1, 0.1).
        r_max: the reward bound R_max = 1.
        f_max: the public bound F_max on returns (1 for this chain).
        runs: independent runs (20 in the paper).
        batch_sizes: the batch sizes m of panels 1, 3 and 4.
        regularisation_grid: the λ values of panel 2 (all > ‖Φ‖²‖ρ‖_∞ = 1 for tabular features).
        regularisation_batch_sizes: the two batch sizes of panel 2.
        aggregation_groups: the group sizes of panel 4 (1 = tabular).
        constant_set: the Lemma 1 constants.
    """

    n_states: int = 40
    p: float = 0.5
    gamma: float = 0.99
    epsilon: float = 0.1
    delta: float = 0.1
    r_max: float = 1.0
    f_max: float = 1.0
    runs: int = 20
    batch_sizes: tuple[int, ...] = (10, 30, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000)
    regularisation_grid: tuple[float, ...] = (
        1.5,
        5.0,
        15.0,
        50.0,
        150.0,
        500.0,
        1.5e3,
        5e3,
        1.5e4,
        5e4,
        1.5e5,
        5e5,
        1.5e6,
    )
    regularisation_batch_sizes: tuple[int, int] = (10_000, 100_000)
    aggregation_groups: tuple[int, ...] = (1, 2, 4)
    constant_set: str = "main_text"

    @property
    def all_batch_sizes(self) -> tuple[int, ...]:
        """Every batch size any panel uses, increasing."""
        return tuple(sorted(set(self.batch_sizes) | set(self.regularisation_batch_sizes)))


FULL = Balle2016Config()


QUICK = replace(
    FULL,
    runs=5,
    batch_sizes=(10, 30, 100, 300, 1_000, 3_000, 10_000, 30_000, 100_000),
    regularisation_batch_sizes=(1_000, 10_000),
)
