"""Symbolic (sympy) checks of the papers' smoothness lemmas."""
