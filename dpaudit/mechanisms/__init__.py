"""dpaudit.mechanisms."""
