"""Candidate implementations: isolation in a worker process, call signatures (kinds), and candidate audits."""
