"""One step of GPOPE: draw a record, clip its gradient to norm h, add h·N(0, σ² I).

This is the per-step mechanism of Xie et al. 2019, Algorithm 1 (steps 2, 5, 6) as a
mechanism of its own, with the white-box view the accountants consume: for a
neighbouring relation, the ordered pairs of per-step output laws (one-dimensional
Gaussian mixtures along the direction in which the two gradients differ).

Two sampling schemes are encoded, because the paper's text admits both:

* ``uniform_one`` — Algorithm 1, step 2: "Randomly choose a trajectory" — each step
  draws one of the m records uniformly (independently across steps) and releases its
  clipped gradient plus noise. Every output is *some* record's clipped gradient, so
  under both relations two outputs differ by up to 2h (two gradients of norm <= h).
* ``poisson`` — the model of the proof of Lemma 1 (eqs. B.6–B.9): with probability
  q = 1/m the neighbour's record contributes a gradient at distance h (``B̄(x_m) = e1``
  against ``Σ B̄ = 0``), otherwise the output is noise around the common value. This is
  Poisson sampling with rate 1/m of a clipped sum: the released vector is the sum of
  the clipped gradients of the sampled records plus noise.

References:
    Xie, Thomas, Miklau 2019, Algorithm 1, Lemma 1 and its proof (Appendix B.1);
    Balle, Barthe, Gaboardi 2018, Theorem 2 (advanced joint convexity) and Sec. 5;
    Zhu, Dong, Wang 2022, Sec. 5 (dominating pairs of subsampled mechanisms);
    Mironov, Talwar, Zhang 2019, Sec. 3 (one-dimensional reduction).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpaudit._validation import (
    check_choice,
    check_finite_array,
    check_integer,
    check_real,
)
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.inputs import GRADIENT_RECORDS, explore_records, one_record
from dpaudit.mechanisms.interface import CandidateSignature, Mechanism, OutputSpec
from dpaudit.privacy.accounting.mixtures import GaussianMixture, OutputPair
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE, Relation
from dpaudit.rng import normalize_rng

__all__ = ["MECHANISM", "SAMPLING_SCHEMES", "SEARCH_CLIP_MULTIPLE", "GpopeStep", "StepPairs"]

UNIFORM_ONE = "uniform_one"
POISSON = "poisson"
SAMPLING_SCHEMES = (UNIFORM_ONE, POISSON)


@dataclass(frozen=True)
class StepPairs:
    """The per-step output laws under one relation, as the accountants need them.

    Attributes:
        pairs: ordered pairs (P, Q) = (law under d, law under d'); the mechanism's δ(ε)
            (or RDP) is the maximum over them after composition.
        dominating: True when composing these pairs bounds every neighbouring pair of the
            mechanism (they are a worst case); False when they are only one valid instance
            (a lower-bound witness).
        sensitivity: the L2 distance between the two gradient values that differ, in the
            units of the output (a multiple of the clip norm h).
        sampling_probability: the probability q that the differing record is used in a step.
        note: why these pairs are the worst case (or only an instance), with references.
    """

    pairs: tuple[OutputPair, ...]
    dominating: bool
    sensitivity: float
    sampling_probability: float
    note: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form used in evidence and counterexamples."""
        return {
            "pairs": [pair.to_json() for pair in self.pairs],
            "dominating": self.dominating,
            "sensitivity": self.sensitivity,
            "sampling_probability": self.sampling_probability,
            "note": self.note,
        }


@dataclass(frozen=True)
class GpopeStep:
    """The per-step mechanism of GPOPE with its public parameters.

    Attributes:
        records: m, the number of trajectories in the dataset (m >= 2).
        clip_norm: h > 0, the L2 clipping bound of a per-record gradient.
        noise_multiplier: σ > 0; the noise is h·N(0, σ² I).
        steps: N (or T), the number of iterations the claim composes; one release is always one step
            (the claim's ε is for N steps, each at its worst pair).
        sampling: ``uniform_one`` (Algorithm 1) or ``poisson`` (the proof's model).

    References:
        Xie et al. 2019, Algorithm 1 and Appendix B.1.
    """

    records: int
    clip_norm: float
    noise_multiplier: float
    steps: int = 1
    sampling: str = UNIFORM_ONE

    def __post_init__(self) -> None:
        object.__setattr__(self, "records", check_integer("records", self.records, low=2))
        object.__setattr__(self, "clip_norm", check_real("clip_norm", self.clip_norm, low=0.0, low_open=True))
        object.__setattr__(
            self, "noise_multiplier", check_real("noise_multiplier", self.noise_multiplier, low=0.0, low_open=True)
        )
        object.__setattr__(self, "steps", check_integer("steps", self.steps, low=1))
        check_choice("sampling", self.sampling, SAMPLING_SCHEMES)

    @property
    def sampling_probability(self) -> float:
        """q = 1/m: the chance that a given record is used in one step."""
        return 1.0 / self.records

    @property
    def noise_std(self) -> float:
        """The standard deviation h·σ of each output coordinate's noise."""
        return self.clip_norm * self.noise_multiplier

    def release(self, gradients: Any, *, rng: Any, size: int | None = None) -> np.ndarray:
        """One step on per-record gradients (an (m, d) array): clip, sample, add noise.

        Args:
            gradients: the m per-record gradients B_i, one row each (m must equal ``records``).
            rng: the random generator (keyword-only).
            size: with ``size``, a batch of independent releases (rows).

        Returns:
            ``uniform_one``: B̄_I + h N(0, σ² I) with I uniform on the records;
            ``poisson``: Σ_{i sampled} B̄_i + h N(0, σ² I), each record sampled with probability 1/m.
        """
        values = check_finite_array("gradients", gradients, ndim=2)
        if values.shape[0] != self.records:
            raise InvalidArgument(f"gradients: expected {self.records} rows (one per record), got {values.shape[0]}")
        norms = np.linalg.norm(values, axis=1, keepdims=True)
        clipped = values / np.maximum(1.0, norms / self.clip_norm)
        generator = normalize_rng(rng)
        count = 1 if size is None else check_integer("size", size, low=1)
        if self.sampling == UNIFORM_ONE:
            chosen = clipped[generator.integers(0, self.records, size=count)]
        else:
            mask = generator.random((count, self.records)) < self.sampling_probability
            chosen = mask.astype(np.float64) @ clipped
        noisy = chosen + self.noise_std * generator.standard_normal(chosen.shape)
        return noisy[0] if size is None else noisy

    def step_pairs(self, relation: Relation) -> StepPairs:
        """White-box view: the per-step output laws for a neighbouring pair under ``relation``.

        ``uniform_one`` (both relations): P = (1-q) N(0, (hσ)²) + q N(2h, (hσ)²), Q = N(0, (hσ)²),
        both orders. Under add/remove, d = d' ∪ {x}: M(d) = (1-q) M(d') + q N(B̄(x)), and by
        joint convexity the worst M(d') is a single Gaussian at distance 2h. Under replace-one,
        advanced joint convexity bounds every instance by q·H_ε(N(2h) ‖ N(0)) at ε' = log(1 +
        q(e^ε - 1)), which this pair attains (all other records share the replaced gradient).

        ``poisson`` add/remove (the proof's pair, B.6–B.9): P = (1-q) N(0) + q N(h), Q = N(0),
        both orders; exact worst case (Poisson-subsampled Gaussian). ``poisson`` replace-one:
        P = (1-q) N(0) + q N(h), Q = (1-q) N(0) + q N(-h): the record's slot carries
        gradients h apart on each side of the common sum (worst case, Zhu et al. 2022).

        Raises:
            InvalidArgument: for a relation other than replace_one and add_remove_one.
        """
        if relation.kind not in (REPLACE_ONE, ADD_REMOVE_ONE):
            raise InvalidArgument(
                f"relation={relation.name!r}: GPOPE's step is defined for replace_one and add_remove_one"
            )
        q = self.sampling_probability
        h = self.clip_norm
        std = self.noise_std
        null = GaussianMixture.gaussian(0.0, std)
        if self.sampling == UNIFORM_ONE:
            mixed = GaussianMixture.two_point(q, 2 * h, 0.0, std)
            if relation.kind == ADD_REMOVE_ONE:
                label = "add_remove_one, uniform_one: d' has every gradient at 0, d adds a record at 2h e1"
                note = "exact worst case by joint convexity (Balle et al. 2018, Sec. 5)"
            else:
                label = "replace_one, uniform_one: m-1 records at 0; the replaced record moves from 2h e1 to 0"
                note = (
                    "dominating for eps >= 0 by advanced joint convexity (Balle et al. 2018, Thm 2); "
                    "both orders composed"
                )
            pair = OutputPair(mixed, null, label)
            return StepPairs((pair, pair.reversed()), True, 2 * h, q, note)
        mixed = GaussianMixture.two_point(q, h, 0.0, std)
        if relation.kind == ADD_REMOVE_ONE:
            pair = OutputPair(
                mixed, null, "add_remove_one, poisson: the added record's clipped gradient is h e1 (eq. B.9)"
            )
            note = "exact worst case of the Poisson-subsampled Gaussian (Mironov, Talwar, Zhang 2019)"
            return StepPairs((pair, pair.reversed()), True, h, q, note)
        other = GaussianMixture.two_point(q, -h, 0.0, std)
        pair = OutputPair(mixed, other, "replace_one, poisson: the record's gradient h e1 replaced by -h e1")
        note = "worst case of Poisson subsampling under substitution (Zhu, Dong, Wang 2022); symmetric pair"
        return StepPairs((pair,), True, 2 * h, q, note)

    def step_witness_pair(self, relation: Relation) -> OutputPair:
        """A concrete neighbouring pair of per-step laws with a closed-form Rényi divergence.

        It is the first pair of :meth:`step_pairs` except for ``poisson`` under replace-one,
        where the replaced record's gradient goes from h e1 to 0 (a valid instance with the
        add/remove pair's law). Used for rigorous lower bounds.
        """
        if self.sampling == POISSON and relation.kind == REPLACE_ONE:
            std = self.noise_std
            return OutputPair(
                GaussianMixture.two_point(self.sampling_probability, self.clip_norm, 0.0, std),
                GaussianMixture.gaussian(0.0, std),
                "replace_one, poisson: the record's gradient h e1 replaced by 0",
            )
        return self.step_pairs(relation).pairs[0]


#: How far beyond the clip norm h the input search puts the differing record (every coordinate of
#: the diagonal one, the length of the axis-aligned one): far enough that any clipping bites.
SEARCH_CLIP_MULTIPLE = 10.0


def _searched_records(dim: int, h: float) -> list[tuple[str, list[float]]]:
    """Differing records, most telling first: diagonal and along e_1, beyond the clip norm, then on it.

    A diagonal record with every coordinate beyond h is clipped to L2 norm h by the algorithm, but
    to norm h√d by code that clips each coordinate to h; an axis-aligned one cannot tell the two apart."""
    beyond, on = SEARCH_CLIP_MULTIPLE * h, h / math.sqrt(dim)
    records = [
        (f"a diagonal gradient, every coordinate {beyond:g} (beyond the clip norm h = {h:g})", [beyond] * dim),
        (f"a gradient along e_1 of length {beyond:g} (beyond h = {h:g})", [beyond] + [0.0] * (dim - 1)),
        (f"a diagonal gradient of L2 norm h = {h:g}", [on] * dim),
        (f"a gradient along e_1 of length h = {h:g}", [h] + [0.0] * (dim - 1)),
    ]
    return [item for item in records if dim > 1 or "diagonal" not in item[0]]


def _clipping_pairs(pairs: Sequence[Any], params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """Gradient tables of ``records`` rows where the last record differs (``replace_one``): it is
    diagonal or axis-aligned, beyond the clip norm or on it (:func:`_searched_records`), and is
    replaced by its opposite or by 0; the other records are 0, or at norm h along the record's
    direction or against it (then X' holds m equal records under the opposite: the worst case of
    ``uniform_one``). One table per gradient dimension of the given pairs (2 without any).

    ``add_remove_one`` gets none: the step is defined on exactly ``records`` rows, and adding or
    removing one changes that count, so no such pair is inside the reference's domain."""
    records, h = params.get("records"), params.get("clip_norm")
    if relation.kind != REPLACE_ONE or not isinstance(records, int) or isinstance(records, bool) or records < 2:
        return []
    if not isinstance(h, int | float) or isinstance(h, bool) or not math.isfinite(h) or h <= 0:
        return []
    dims = sorted(
        {len(row) for pair in pairs for table in pair if isinstance(table, list) for row in table if row}
    ) or [2]
    found: list[tuple[Any, Any, str]] = []
    for dim in dims:
        for name, record in _searched_records(dim, float(h)):
            unit = np.asarray(record) / np.linalg.norm(record)
            others = (
                ("the other records 0", [0.0] * dim),
                ("the other records at norm h against it", [float(v) for v in -h * unit]),
                ("the other records at norm h along it", [float(v) for v in h * unit]),
            )
            for others_name, other in others:
                common = [other] * (records - 1)
                for partner_name, partner in (("its opposite", [-v for v in record]), ("0", [0.0] * dim)):
                    found.append(
                        (
                            [*common, record],
                            [*common, partner],
                            f"search: {records} records, {others_name}; the last one {name} vs {partner_name}",
                        )
                    )
    return found


def _explore(pairs: Sequence[Any], params: Mapping[str, Any], relation: Relation) -> list[tuple[Any, Any, str]]:
    """Tables that stress the clipping (:func:`_clipping_pairs`), then the given pairs explored as datasets,
    keeping only tables of ``records`` rows, or of a given pair's sizes (an add/remove pair with its added
    record at the boundary): padded or one-record tables are outside the step's domain."""
    records = params.get("records")
    sizes = {
        (len(first), len(second)) for first, second in pairs if isinstance(first, list) and isinstance(second, list)
    }
    given = [
        (first, second, label)
        for first, second, label in explore_records(pairs, params, relation)
        if not isinstance(records, int) or len(first) == len(second) == records or (len(first), len(second)) in sizes
    ]
    return _clipping_pairs(pairs, params, relation) + given


MECHANISM = Mechanism(
    name="gpope_step",
    description="one GPOPE step: sample a record (uniform_one or poisson), clip to norm h, add h*N(0, sigma^2 I)",
    factory=GpopeStep,
    input_domain=GRADIENT_RECORDS,
    relations=(REPLACE_ONE, ADD_REMOVE_ONE),
    neighbourhood=one_record(explore=_explore),
    output=OutputSpec(
        "the noisy clipped gradient: a vector of length d", lambda params, data: (int(np.shape(data)[1]),)
    ),
    candidate=CandidateSignature(
        "gradients",
        "gpope_step(gradients, *, records, clip_norm, noise_multiplier, steps=1, sampling='uniform_one', rng) "
        "-> ndarray",
    ),
    source="Xie et al. 2019, Algorithm 1 (one iteration)",
)
