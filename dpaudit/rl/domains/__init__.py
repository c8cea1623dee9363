"""The papers' domains: chain, corporation investment, random MDPs, Mountain Car, HIV treatment."""

from dpaudit.rl.domains.chain import Chain

__all__ = ["Chain"]
