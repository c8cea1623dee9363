"""Adapters that make a DP library's own mechanisms dpaudit candidates (docs/adapters.md).

One module per library, each a renaming at most: a function per mechanism that takes the
library's own parameters (epsilon, delta, sensitivity, bounds, scale ...) and ``rng``, builds
the library's mechanism and releases through it. Nothing here computes a noise scale.

- :mod:`dpaudit.adapters.diffprivlib_mechanisms`: IBM's diffprivlib (seeded from ``rng``).
- :mod:`dpaudit.adapters.opendp_mechanisms`: OpenDP measurements (a cryptographic RNG:
  ``[candidate] randomness = "external"``).
- :mod:`dpaudit.adapters.python_dp_mechanisms`: Google's python-dp, ``pydp`` (a cryptographic
  RNG: ``randomness = "external"``).
- :mod:`dpaudit.adapters.dp_accounting`, :mod:`dpaudit.adapters.prv_accountant`,
  :mod:`dpaudit.adapters.opacus`: the libraries' privacy accountants as candidates of the ``accountant``
  kind (Opacus's loaded without torch).
- :mod:`dpaudit.adapters.relations`: distance functions for the ``user(...)`` relations of the
  adapters' black-box specs.

The libraries are optional extras (``pip install 'dpaudit[ecosystem]'``, or one of
``dpaudit[diffprivlib]``, ``dpaudit[opendp]``, ``dpaudit[python-dp]``, ``dpaudit[dp-accounting]``,
``dpaudit[prv-accountant]``; Opacus by ``pip install --no-deps opacus``); each is imported the first
time an adapter of its module is called, never when dpaudit is imported.
"""

from __future__ import annotations

__all__: list[str] = []
