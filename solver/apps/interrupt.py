"""Long solves that Ctrl-C stops without stopping the program.

``run_interruptible(job)`` runs ``job(stop_event)`` in a worker thread; a Ctrl-C in the main
thread sets the event (the solvers then return the best found so far) and keeps waiting for
that answer instead of unwinding the program.  ``Background(job)`` starts such a job and lets
the program go on; its ``wait`` is the same wait.  ``children_ignore_ctrl_c()`` starts worker
processes that leave Ctrl-C to their parent.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

__all__ = ["Background", "children_ignore_ctrl_c", "run_interruptible"]

T = TypeVar("T")


class Background(Generic[T]):
    """``job(stop_event)`` running in a (daemon) thread from now on — the computer's solve while
    the player arranges.  ``wait`` waits for its result as ``run_interruptible`` does (Ctrl-C
    sets the event: the solver returns its best so far); ``stop`` sets the event."""

    def __init__(self, job: Callable[[threading.Event], T]) -> None:
        self._stop = threading.Event()
        self._done = threading.Event()
        self._box: dict[str, object] = {}
        self.started = time.monotonic()

        def target() -> None:
            try:
                self._box["result"] = job(self._stop)
            except BaseException as exc:  # re-raised in the waiting thread
                self._box["error"] = exc
            finally:
                self._done.set()

        threading.Thread(target=target, daemon=True).start()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def stop(self) -> None:
        self._stop.set()

    def wait(self, on_interrupt: Callable[[], None] | None = None) -> T:
        """The job's result; Ctrl-C sets its stop event and keeps waiting (``on_interrupt`` is
        called once, at the first).  The main thread waits on an Event, not on ``Thread.join``:
        a join interrupted by Ctrl-C can leave ``is_alive()`` wrong (CPython bug bpo-21822).
        An exception of the job is raised here."""
        while not self._done.is_set():
            try:
                self._done.wait(0.1)
            except KeyboardInterrupt:
                if not self._stop.is_set():
                    self._stop.set()
                    if on_interrupt is not None:
                        on_interrupt()
        if "error" in self._box:
            raise self._box["error"]  # type: ignore[misc]
        return self._box["result"]  # type: ignore[return-value]


def run_interruptible(job: Callable[[threading.Event], T], on_interrupt: Callable[[], None] | None = None) -> T:
    """Run ``job(stop_event)`` in a thread; Ctrl-C sets the event and waits for the result
    (``Background(job).wait``).  ``on_interrupt`` is called once, at the first Ctrl-C (e.g. to
    say what happens next).  An exception of the job is re-raised here."""
    return Background(job).wait(on_interrupt)


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
