"""Reference implementations of the papers' mechanisms, each described by one
:class:`~dpaudit.mechanisms.interface.Mechanism`; :mod:`dpaudit.mechanisms.catalogue` lists them."""
