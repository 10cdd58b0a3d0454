"""Quoting what a person typed in a one-line error: a short piece, never the whole input.

    >>> quote("8h 7h 9d")
    "'8h 7h 9d'"
    >>> quote("x" * 200)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (200 characters)"
    >>> one_line("first line\\nsecond line")
    'first line'

and numbers in words: ``plural(3, "game")`` is ``'3 games'``, ``signed(-0.001)`` ``'+0.00'``.
"""

from __future__ import annotations

__all__ = ["QUOTE_LIMIT", "MESSAGE_LIMIT", "quote", "one_line", "plural", "signed"]

QUOTE_LIMIT = 80
"""Characters of an input quoted in an error message; a longer input is cut, with its length."""

MESSAGE_LIMIT = 300
"""Characters of a whole one-line error message, the last guard of every front-end."""


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr`` of a string, ``str`` of anything else (a number, a list), cut to about ``limit``
    characters with the whole length said."""
    if not isinstance(value, str):
        text = str(value)
        return text if len(text) <= limit else f"{text[:limit - 1]}… ({len(text):,} characters)"
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit - 4] + '…'!r} ({len(value):,} characters)"


def one_line(message: object, limit: int = MESSAGE_LIMIT) -> str:
    """The first line of ``message``, cut to ``limit`` characters."""
    text = str(message)
    line = text.splitlines()[0] if text.strip() else text
    return line if len(line) <= limit else line[:limit - 1] + "…"


def plural(n: int, word: str) -> str:
    """``n`` and ``word``, with an s unless ``n`` is 1: '1 game', '3 games'."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def signed(x: float, digits: int = 2) -> str:
    """``+1.23`` / ``-1.23`` (``digits`` after the point, 0 to 9), and ``+0.00`` for values that
    round to zero — never ``-0.00``: the one signed formatter of every front-end.

    >>> signed(-0.00001, 4), signed(-0.92301), signed(2.5, 0)
    ('+0.0000', '-0.92', '+2')
    """
    return f"{0.0 if round(x, digits) == 0 else x:+.{digits}f}"
