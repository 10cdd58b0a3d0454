"""Exact best-response engines (the search, CP-SAT) and the local search."""
