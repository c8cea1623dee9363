"""dpaudit.rl."""
