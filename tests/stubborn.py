"""Tasks for the worker pool's tests (importable by a spawned worker: the tests' directory is
on its path): one that stops when asked, one that never does, a toy kind that reports progress,
one that raises what it is given — each through the one contract (``worker.WorkerTask``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

Progress = Callable[[dict], None]


class Patient:
    """Runs until its stop event is set, then answers."""

    seconds = None  # no limit of its own: the tests give the pool's

    def run(self, store: Callable[[], Any], stop: threading.Event, progress: Progress) -> dict[str, object]:
        stop.wait(3600)
        return {"stopped": stop.is_set()}


class Stubborn:
    """Ignores its stop event (a solver that would not honour its limits)."""

    seconds = None

    def run(self, store: Callable[[], Any], stop: threading.Event, progress: Progress) -> dict[str, object]:
        time.sleep(3600)
        return {"stopped": False}


class Toy:
    """A toy task kind: reports ``steps`` progress records, answers their sum; its own limit."""

    seconds = 1.5

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def run(self, store: Callable[[], Any], stop: threading.Event, progress: Progress) -> dict[str, object]:
        for step in range(1, self.steps + 1):
            progress({"step": step})
        return {"sum": self.steps * (self.steps + 1) // 2}


class Raising:
    """Raises ``error`` (a bug, an input error, a fault)."""

    seconds = 5.0

    def __init__(self, error: Exception) -> None:
        self.error = error

    def run(self, store: Callable[[], Any], stop: threading.Event, progress: Progress) -> dict[str, object]:
        raise self.error
