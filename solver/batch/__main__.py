"""``python -m solver.batch`` = ``quintet-batch``."""

from .cli import main

raise SystemExit(main())
