"""``python -m solver.apps.batch`` = ``quintet-batch``."""

from solver.apps import batch

raise SystemExit(batch())
