"""Mutants of one GPOPE step (Xie et al. 2019, Algorithm 1 steps 2, 5, 6): clipping and noise bugs."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit._validation import check_finite_array, check_integer
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.gpope_step import UNIFORM_ONE, GpopeStep
from dpaudit.rng import normalize_rng

__all__ = [
    "GpopeStepClipAfterNoise",
    "GpopeStepComplementSampling",
    "GpopeStepLinfClip",
    "GpopeStepMissingClip",
    "GpopeStepNoiseNotScaledByClip",
]


def _clip_rows(values: np.ndarray, bound: float, order: Any = 2) -> np.ndarray:
    norms = np.linalg.norm(values, ord=order, axis=-1, keepdims=True)
    return values / np.maximum(1.0, norms / bound)


class _GpopeStepVariant(GpopeStep):
    """GPOPE's step with hooks for one slip each; with no override it equals the reference.

    :meth:`release` consumes the generator exactly like :meth:`GpopeStep.release`, so the
    unmodified hooks give identical draws (checked in the tests).
    """

    def clip_gradients(self, values: np.ndarray) -> np.ndarray:
        """Step 5: clip each record's gradient to ℓ2 norm h."""
        return _clip_rows(values, self.clip_norm)

    def selection_probability(self) -> float:
        """The probability with which ``poisson`` sampling keeps each record."""
        return self.sampling_probability

    def noise_scale(self) -> float:
        """The noise standard deviation per coordinate (h·σ)."""
        return self.noise_std

    def after_noise(self, noisy: np.ndarray) -> np.ndarray:
        """What happens to the noisy gradient (nothing)."""
        return noisy

    def release(self, gradients: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        values = check_finite_array("gradients", gradients, ndim=2)
        if values.shape[0] != self.records:
            raise InvalidArgument(f"gradients: expected {self.records} rows (one per record), got {values.shape[0]}")
        clipped = self.clip_gradients(values)
        generator = normalize_rng(rng)
        count = 1 if size is None else check_integer("size", size, low=1)
        if self.sampling == UNIFORM_ONE:
            chosen = clipped[generator.integers(0, self.records, size=count)]
        else:
            mask = generator.random((count, self.records)) < self.selection_probability()
            chosen = mask.astype(np.float64) @ clipped
        noisy = self.after_noise(chosen + self.noise_scale() * generator.standard_normal(chosen.shape))
        return noisy[0] if size is None else noisy


class GpopeStepMissingClip(_GpopeStepVariant):
    """GPOPE step without the clipping of step 5 (the clamp is missing).

    An unclipped gradient has unbounded norm, so one record moves the output mean by
    an arbitrary amount while the noise stays h·σ.

    Breaks: the per-step sensitivity 2h behind Lemma 1 and every (ε, δ) of Theorem 1
    (Xie, Thomas & Miklau 2019, Algorithm 1 step 5; Appendix B.1).
    """

    def clip_gradients(self, values: np.ndarray) -> np.ndarray:
        return values


class GpopeStepClipAfterNoise(_GpopeStepVariant):
    """GPOPE step that adds the noise first and clips the noisy gradient afterwards.

    Clipping after noise bounds the output, not the sensitivity: a large gradient
    survives as the *direction* of the clipped output (noise cannot hide it when the
    gradient dwarfs h·σ), and clipping is post-processing of an unbounded-sensitivity
    release.

    Breaks: the per-step sensitivity 2h (Xie et al. 2019, Algorithm 1, steps 5-6 in that order).
    """

    def clip_gradients(self, values: np.ndarray) -> np.ndarray:
        return values

    def after_noise(self, noisy: np.ndarray) -> np.ndarray:
        return _clip_rows(noisy, self.clip_norm)


class GpopeStepLinfClip(_GpopeStepVariant):
    """GPOPE step that clips each gradient to ℓ∞ norm h instead of ℓ2 norm h (wrong norm).

    An ℓ∞-clipped vector in R^n has ℓ2 norm up to h√n, so the ℓ2 sensitivity the noise
    h·σ was calibrated for (2h) grows to 2h√n.

    Breaks: the per-step sensitivity behind Lemma 1 (Xie et al. 2019, Algorithm 1 step 5, ℓ2 clipping).
    """

    def clip_gradients(self, values: np.ndarray) -> np.ndarray:
        return _clip_rows(values, self.clip_norm, order=np.inf)


class GpopeStepComplementSampling(_GpopeStepVariant):
    """Poisson-sampled GPOPE step that keeps each record with probability 1 − 1/m instead of 1/m.

    The comparison flipped (``random() > q``): privacy amplification by sampling assumes
    the differing record is used with probability q = 1/m; at 1 − q it is almost always
    used. (In ``uniform_one`` mode the slip has no effect; it is audited under ``poisson``.)

    Breaks: the sampling probability q = 1/m of Lemma 1's mixture (Xie et al. 2019, eqs. (B.6)-(B.9)).
    """

    def selection_probability(self) -> float:
        return 1.0 - self.sampling_probability


class GpopeStepNoiseNotScaledByClip(_GpopeStepVariant):
    """GPOPE step that adds N(0, σ² I) instead of h·N(0, σ² I): the noise ignores the clip norm.

    The noise must scale with the sensitivity (a multiple of h); with h = 2 the noise is
    half of what the accountant assumes.

    Breaks: step 6 of Algorithm 1 (h ζ with ζ ~ N(0, σ² I)) and Lemma 1's calibration (Xie et al. 2019).
    """

    def noise_scale(self) -> float:
        return self.noise_multiplier
