"""The runner layer: spec loading, the audit runner, checker loading (plugins), candidates and mutants."""
