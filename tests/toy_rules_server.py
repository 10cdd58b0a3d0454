"""``quintet-serve`` with a toy rule set registered: ``toy-points``, the classic game whose slots
score 2, 3, 5, 8 and 13 points (31 in all, above the classic 25).  Registered as
docs/contributing.md says a rule set is: one entry in ``quintet.rules.RULE_SETS``, before the
solver is imported.  Run as a script (``python tests/toy_rules_server.py ARGS``, quintet-serve's
arguments): its spawned workers run it again, as ``__mp_main__``, and register the same rule set."""

from __future__ import annotations

import sys
from dataclasses import replace

from quintet.rules import CLASSIC, RULE_SETS

TOY = replace(CLASSIC, name="toy-points", weights=(2, 3, 5, 8, 13))

if __name__ in ("__main__", "__mp_main__"):  # the server and its workers; a test importing TOY registers nothing
    RULE_SETS[TOY.name] = TOY
if __name__ == "__main__":
    from solver.apps.serve.cli import main

    sys.exit(main())
