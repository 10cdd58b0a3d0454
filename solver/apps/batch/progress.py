"""The batch's progress display on stderr, drawn by tqdm.

    quintet-batch:  50%|#####     | 2/4 deals [01:00<01:00, 30.00s/deal, last: Kc Qh Qd Js 9d 8s 7d …]

On a terminal a tqdm bar is redrawn in place; otherwise (a log file, a pipe, CI) one such
line is printed per finished deal, formatted by tqdm the same way.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from tqdm import tqdm

__all__ = ["BatchProgress"]

BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} deals [{elapsed}<{remaining}, {rate_fmt}{postfix}]"


class BatchProgress:
    """Deals done/total, elapsed time, ETA, rate and a note on the last deal.

    ``start(total)`` begins the clock (call it when solving starts), ``update(done, note)``
    after each deal, ``close()`` at the end.  ``enabled=False`` shows nothing.
    """

    def __init__(self, *, stream: TextIO | None = None, enabled: bool = True, label: str = "quintet-batch") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.label = label
        self.total = 0
        self.done = 0
        self.started = time.perf_counter()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._bar: tqdm | None = None

    def start(self, total: int) -> None:
        self.total, self.done, self.started = total, 0, time.perf_counter()
        if self.enabled and self.tty:
            self._bar = tqdm(total=total, file=self.stream, desc=self.label, unit="deal", bar_format=BAR_FORMAT,
                             dynamic_ncols=True, mininterval=0)

    def line(self, note: str = "") -> str:
        """The progress as one line (what a non-terminal gets per deal)."""
        return tqdm.format_meter(self.done, self.total, time.perf_counter() - self.started, prefix=self.label,
                                 unit="deal", bar_format=BAR_FORMAT, postfix=note or None, ascii=True)

    def update(self, done: int, note: str = "") -> None:
        self.done = done
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.n = done
            self._bar.set_postfix_str(note, refresh=True)
        else:
            self.stream.write(self.line(note) + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
