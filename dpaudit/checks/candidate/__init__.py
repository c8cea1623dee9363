"""Black-box checks that compare a candidate's outputs with the reference (conformance)."""
