"""The advisor: best responses, grades, equilibria, safe exploitation, rechecks, requests."""
