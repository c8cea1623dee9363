"""Reference implementations of the papers' mechanisms (importing registers them)."""

from dpaudit.mechanisms.dirichlet import DirichletMechanism
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.gpope import GPOPE
from dpaudit.mechanisms.registry import build_mechanism, list_mechanisms, register_mechanism

__all__ = [
    "GPOPE",
    "DirichletMechanism",
    "GaussianMechanism",
    "build_mechanism",
    "list_mechanisms",
    "register_mechanism",
]
