"""Reference implementations of the papers' mechanisms (importing registers them)."""

from dpaudit.mechanisms.dirichlet import DirichletMechanism
from dpaudit.mechanisms.gaussian import GaussianMechanism
from dpaudit.mechanisms.gpope import GPOPE
from dpaudit.mechanisms.policy_evaluation import DPLSL, DPLSW
from dpaudit.mechanisms.registry import build_mechanism, list_mechanisms, register_mechanism
from dpaudit.mechanisms.smooth_gaussian import SmoothGaussianMechanism
from dpaudit.mechanisms.subsampled_gaussian import GpopeStep

__all__ = [
    "DPLSL",
    "DPLSW",
    "GPOPE",
    "DirichletMechanism",
    "GaussianMechanism",
    "GpopeStep",
    "SmoothGaussianMechanism",
    "build_mechanism",
    "list_mechanisms",
    "register_mechanism",
]
