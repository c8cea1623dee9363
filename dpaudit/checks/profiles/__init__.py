"""Exact privacy profiles: Gaussian, smooth-sensitivity Gaussian (Lemma 1), Dirichlet, and any
mechanism with a privacy_profile view."""
