"""Monte Carlo auditing: sampling, events, confidence bounds, executors and the empirical checkers."""
