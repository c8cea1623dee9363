"""White-box sensitivity checks: exhaustive exact sweeps over neighbouring pairs and counterexample search."""
