"""The papers' domains: chain, corporation investment, random MDPs, Mountain Car, HIV treatment."""

from dpaudit.rl.domains.chain import Chain
from dpaudit.rl.domains.hiv import HIV_ACTIONS, HIV_START, HIVParameters, HIVTreatment
from dpaudit.rl.domains.investment import (
    INVESTMENT_ACTIONS,
    INVESTMENT_STATES,
    STARTUP_SUCCESS,
    investment_mdp,
)
from dpaudit.rl.domains.mountain_car import MountainCar
from dpaudit.rl.domains.random_mdp import random_mdp

__all__ = [
    "HIV_ACTIONS",
    "HIV_START",
    "INVESTMENT_ACTIONS",
    "INVESTMENT_STATES",
    "STARTUP_SUCCESS",
    "Chain",
    "HIVParameters",
    "HIVTreatment",
    "MountainCar",
    "investment_mdp",
    "random_mdp",
]
