"""Reproductions of the papers' experiments (figures, CSV tables and a Markdown summary per paper)."""
