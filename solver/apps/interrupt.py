"""Long solves that Ctrl-C stops without stopping the program.

``run_interruptible(job)`` runs ``job(stop_event)`` in a worker thread; a Ctrl-C in the main
thread sets the event (the solvers then return the best found so far) and keeps waiting for
that answer instead of unwinding the program.  ``children_ignore_ctrl_c()`` starts worker
processes that leave Ctrl-C to their parent.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["children_ignore_ctrl_c", "run_interruptible"]

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


@contextmanager
def children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started in this block ignore Ctrl-C (SIGINT) from their first instruction.

    A terminal sends Ctrl-C to the whole process group; a program with worker processes
    handles it itself (it stops or kills its workers), so a worker must not die of it — with
    a traceback on the terminal, while it imports or in the middle of a task.  A spawned
    process inherits an ignored SIGINT, and Python keeps it ignored.  Only the main thread
    can change a signal's handling: in another thread this does nothing (the workers then
    ignore SIGINT once they have started).  A Ctrl-C within the block, the milliseconds a
    process takes to start, is ignored too.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
