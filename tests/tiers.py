"""The test tiers: a helper that starts a server, a browser, tmux or a notebook asks for its
marker (``require``), so a test that needs one cannot land in the fast tier unmarked."""

from __future__ import annotations

import pytest

NEEDS = ("server", "browser", "tmux", "notebook", "subprocess")  # what a test needs besides this process
TIERS = ("slow", "fuzz")  # deselected by the README's pytest
current: pytest.Item | None = None  # the test being set up, run or torn down (tests/conftest.py)


def require(marker: str) -> None:
    """Fail the running test unless it carries ``marker``."""
    if current is not None and current.get_closest_marker(marker) is None:
        pytest.fail(f"{current.nodeid} needs a {marker!r} marker (see pyproject.toml's markers)", pytrace=False)
