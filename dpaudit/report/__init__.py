"""dpaudit.report."""
