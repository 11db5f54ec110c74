"""Benchmarks that ship with turngraph (``turngraph bench ...``)."""
