"""The auditor's checkers, one subpackage per method: white-box sensitivity, symbolic, exact
profiles, accountants, empirical (Monte Carlo), candidate conformance. Importing a checker
module registers its checkers in the kernel; :mod:`dpaudit.audit.plugins` lists the built-in ones."""
