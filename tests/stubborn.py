"""Tasks for the worker pool's tests (importable by a spawned worker: the tests' directory is
on its path): one that stops when asked, one that never does."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class Patient:
    """Runs until its stop event is set, then answers."""

    seconds = None  # no limit of its own: the tests give the pool's

    def run(self, store: Callable[[], Any], stop: threading.Event, progress: Callable[[dict], None]) -> dict[str, object]:
        stop.wait(3600)
        return {"stopped": stop.is_set()}


class Stubborn:
    """Ignores its stop event (a solver that would not honour its limits)."""

    seconds = None

    def run(self, store: Callable[[], Any], stop: threading.Event, progress: Callable[[dict], None]) -> dict[str, object]:
        time.sleep(3600)
        return {"stopped": False}
