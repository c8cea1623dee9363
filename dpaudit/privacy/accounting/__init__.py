"""Accountants with controlled precision: RDP, moments accountant, PLD and conversions."""
