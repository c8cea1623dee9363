"""Balle et al. 2016's policy evaluation: first-visit statistics, LSW/LSL, DP-LSW/DP-LSL, their
smooth-sensitivity bounds, utility, and the white-box search for their least private pairs."""
