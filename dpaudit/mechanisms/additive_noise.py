"""What the additive-noise mechanisms on a query value share: the release f(X) + noise, for a real
vector f(X) with a stated L_p sensitivity (the Gaussian and the Laplace mechanism).

References:
    Dwork & Roth 2014, Sec. 3.3 (Laplace, l1 sensitivity) and Sec. 3.5.3 (Gaussian, l2 sensitivity).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np

from dpaudit.mechanisms.inputs import REAL_VECTOR, norm_ball
from dpaudit.mechanisms.interface import CandidateSignature, Mechanism, OutputSpec
from dpaudit.privacy.relations import ADD_REMOVE_ONE, REPLACE_ONE

__all__ = ["additive_noise_mechanism"]

#: A release: the input's vector plus noise, of the input's shape.
_RELEASE = OutputSpec("f(X) + noise: a vector of the input's length", lambda params, data: np.shape(data))


def additive_noise_mechanism(
    name: str, description: str, factory: Any, *, norm: int, views: frozenset[type], source: str
) -> Mechanism:
    """The mechanism whose reference ``factory`` (a frozen dataclass of the public params, one of them
    ``sensitivity``, the L``norm`` sensitivity of f) adds noise of the family ``name`` to f(X).

    Its inputs are real vectors under replace-one and add/remove-one, two of them neighbours when
    their L``norm`` distance is at most the sensitivity; a release has the input's shape; a candidate
    is called as ``name(value, *, <the factory's params>, rng)``.
    """
    params = ", ".join(item.name for item in fields(factory))
    return Mechanism(
        name=name,
        description=description,
        factory=factory,
        input_domain=REAL_VECTOR,
        relations=(REPLACE_ONE, ADD_REMOVE_ONE),
        neighbourhood=norm_ball(norm),
        output=_RELEASE,
        views=views,
        candidate=CandidateSignature("value", f"{name}(value, *, {params}, rng) -> ndarray"),
        source=source,
        noise_family=name,
    )
