"""The audit kernel: claims, obligations, verdicts, evidence, and the checker protocol and registry."""
