"""dpaudit.checks."""
