"""Certificates of ``verified`` verdicts, and the independent routes that replay them."""
