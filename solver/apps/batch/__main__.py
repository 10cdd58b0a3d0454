"""``python -m solver.apps.batch`` = ``quintet-batch``."""

from solver.apps.batch.cli import main

raise SystemExit(main())
