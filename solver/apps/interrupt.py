"""Long solves that Ctrl-C stops without stopping the program.

``run_interruptible(job)`` runs ``job(stop_event)`` in a worker thread; a Ctrl-C in the main
thread sets the event (the solvers then return the best found so far) and keeps waiting for
that answer instead of unwinding the program.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["run_interruptible"]

T = TypeVar("T")


def run_interruptible(job: Callable[[threading.Event], T], on_interrupt: Callable[[], None] | None = None) -> T:
    """Run ``job(stop_event)`` in a thread; Ctrl-C sets the event and waits for the result.

    ``on_interrupt`` is called once, at the first Ctrl-C (e.g. to say what happens next).
    The main thread waits on an Event, not on ``Thread.join``: a join interrupted by Ctrl-C
    can leave ``is_alive()`` wrong (CPython bug bpo-21822).
    An exception of the job is re-raised here.
    """
    stop = threading.Event()
    done = threading.Event()
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["result"] = job(stop)
        except BaseException as exc:  # re-raised in the main thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, daemon=True).start()
    while not done.is_set():
        try:
            done.wait(0.1)
        except KeyboardInterrupt:
            if not stop.is_set():
                stop.set()
                if on_interrupt is not None:
                    on_interrupt()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]
