"""The version and the default root seed, importable without loading anything else."""

__version__ = "0.1.0"

#: The root seed of an audit when none is given (the CLI, the Python API, the pytest plugin).
DEFAULT_SEED = 20161
