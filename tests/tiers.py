"""The test tiers: a helper that starts a server, a browser, tmux or a notebook asks for its
marker (``require``), so a test that needs one cannot land in the fast tier unmarked.

``NEEDS`` are what a test needs besides this process; ``HEAVY`` is a CPU-heavy independent
recheck that needs nothing else (a CP-SAT certificate, an exhaustive ranking): out of ``pytest -m
fast``; ``NEEDS`` stay in the README's ``pytest``.  ``HEAVY`` and ``TIERS`` are deselected by the
README's ``pytest`` and run by ``pytest -m "slow or fuzz or heavy"`` (CI runs every tier).  Every
other test is marked ``fast`` (tests/conftest.py)."""

from __future__ import annotations

import pytest

NEEDS = ("server", "browser", "tmux", "notebook", "subprocess")  # what a test needs besides this process
HEAVY = ("heavy",)  # CPU-heavy rechecks: deselected by the README's pytest, out of the fast tier
TIERS = ("slow", "fuzz")  # deselected by the README's pytest
NOT_FAST = (*NEEDS, *HEAVY, *TIERS)
# a test's rough cost, against 1 for a fast one: on several processes the costliest files start first
COST = {"server": 20, "browser": 20, "notebook": 20, "heavy": 20, "slow": 20, "fuzz": 5, "tmux": 10, "subprocess": 10}
current: pytest.Item | None = None  # the test being set up, run or torn down (tests/conftest.py)


def require(marker: str) -> None:
    """Fail the running test unless it carries ``marker``."""
    if current is not None and current.get_closest_marker(marker) is None:
        pytest.fail(f"{current.nodeid} needs a {marker!r} marker (see pyproject.toml's markers)", pytrace=False)
