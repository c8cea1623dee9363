"""Reference implementations of the papers' mechanisms (importing registers them)."""

from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.registry import build_mechanism, list_mechanisms, register_mechanism

__all__ = ["GaussianMechanism", "build_mechanism", "list_mechanisms", "register_mechanism"]
