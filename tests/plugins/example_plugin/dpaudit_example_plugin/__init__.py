"""An example dpaudit plugin: randomized response on one bit, and a checker of its output alphabet."""
