"""Faults: what goes wrong on the program's side, never in what it was given — a store or tables
file that cannot be used (damaged, locked, another program's), a worker process that died, an
engine that broke its contract.

The errors come in two kinds, each with one base:

* the client's mistakes derive from ``InputError`` (``CardError``, ``ArrangementError``,
  ``LimitError``, ``RequestError`` …): a command line answers them with one line and exit
  status 2, the HTTP API with 400 (422 for a malformed request). ``InputError`` is a
  ``ValueError`` so that callers may catch either, but a bare ``ValueError`` (a bug in numpy, an
  ``int()`` the code forgot to check) is *not* the client's mistake: a server answers it 500;
* faults derive from ``Fault``: the HTTP API answers them 5xx with one line — never 400, which
  would blame the client — and logs them; a command line, where the user named the file
  (``--store``), with one line and exit status 2.

``Fault.public`` is the message without the machine's paths: what a server may tell a client.

    >>> fault = Fault("solution store '/srv/q/s.sqlite': database is locked",
    ...               public="the solution store: database is locked")
    >>> isinstance(fault, ValueError), fault.public
    (False, 'the solution store: database is locked')
    >>> isinstance(InputError("slot 6: slots are 1 to 5"), ValueError)
    True
"""

from __future__ import annotations

__all__ = ["Fault", "InputError"]


class Fault(Exception):
    """A fault of the program's own state or parts (not of its input); ``public``: the message
    as a server tells its clients (no path of its machine; default: the message itself)."""

    def __init__(self, message: str, *, public: str | None = None) -> None:
        super().__init__(message)
        self.public = message if public is None else public


class InputError(ValueError):
    """A mistake in what the program was given (a card, an arrangement, a request, a limit):
    the one base every front-end answers as the client's fault (exit 2, HTTP 400/422)."""
