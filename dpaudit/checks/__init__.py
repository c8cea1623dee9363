"""The auditor's checkers. Importing this package registers every built-in checker."""

from dpaudit.checks import accountants  # noqa: F401
from dpaudit.checks import candidate_checks  # noqa: F401
from dpaudit.checks import dirichlet  # noqa: F401
from dpaudit.checks import empirical  # noqa: F401
from dpaudit.checks import gaussian_mechanism  # noqa: F401
from dpaudit.checks import privacy_loss_check  # noqa: F401
from dpaudit.checks import profiles  # noqa: F401
from dpaudit.checks import search  # noqa: F401
from dpaudit.checks import sensitivity  # noqa: F401
from dpaudit.checks import smoothness  # noqa: F401
