"""dpaudit.audit."""
