"""``python -m solver.apps.batch`` = ``quintet-batch``."""

from solver.apps import quintet_batch

raise SystemExit(quintet_batch())
