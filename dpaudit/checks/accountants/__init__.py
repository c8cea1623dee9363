"""Checks of accounting claims: moment bounds, end-to-end (epsilon, delta) with RDP and PLD, tail bounds."""
