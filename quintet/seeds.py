"""Seeds: one range, and one way to turn a seed into a deal, for every front-end.

A seed is an integer from 0 to ``SEED_MAX`` (2,147,483,647: it fits every solver library's
seed and a JavaScript number).  ``Deal.random(seed)`` deals the cards of a seed; a series of
``count`` games or deals from seed S uses the seeds S, S + 1, …, S + count − 1, so
``quintet-play --seed 7``, ``GET /api/deal?seed=7``, the page, ``quintet-tournament --seed 7``
and ``quintet-batch --random 1 --seed 7`` deal the same cards.

    >>> check_seed(7)
    7
    >>> check_seed(-1)
    Traceback (most recent call last):
      ...
    quintet.seeds.SeedError: seed must be an integer from 0 to 2147483647, got -1
    >>> list(seed_series(5, 3))
    [5, 6, 7]
"""

from __future__ import annotations

import secrets

import numpy as np

from .faults import InputError
from .text import quote

__all__ = ["SEED_MAX", "SeedError", "check_seed", "seed_series", "fresh_seed", "seed_rng"]

SEED_MAX = 2**31 - 1


class SeedError(InputError):
    """A seed outside ``0..SEED_MAX`` (or not an integer)."""


def check_seed(value: object, what: str = "seed") -> int:
    """``value`` as a seed; ``SeedError`` naming ``what`` when it is not an integer in range
    (a bool is not an integer here; a string must be plain ASCII digits)."""
    if isinstance(value, str):
        if not (value.isascii() and value.isdigit() and len(value) <= 10):
            raise SeedError(f"{what} must be an integer from 0 to {SEED_MAX}, got {quote(value)}")
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise SeedError(f"{what} must be an integer from 0 to {SEED_MAX}, got {quote(value)}")
    if not 0 <= int(value) <= SEED_MAX:
        shown = str(value) if len(str(value)) <= 20 else quote(value, 20)
        raise SeedError(f"{what} must be an integer from 0 to {SEED_MAX}, got {shown}")
    return int(value)


def seed_series(seed: int, count: int, what: str = "seed", unit: str = "deals") -> range:
    """The seeds of ``count`` games or deals (``unit``) starting at ``seed``: all must be in range."""
    first = check_seed(seed, what)
    if count > 0 and first + count - 1 > SEED_MAX:
        raise SeedError(f"{what} {first} with {count} {unit} runs past {SEED_MAX}: "
                        f"use a {what} of at most {SEED_MAX - count + 1}")
    return range(first, first + max(count, 0))


def fresh_seed(count: int = 1) -> int:
    """A random seed (from the system's entropy) whose series of ``count`` stays in range."""
    return secrets.randbelow(SEED_MAX - max(count, 1) + 2)


def seed_rng(seed: int, *stream: int) -> np.random.Generator:
    """numpy's generator for ``seed`` (checked), on an independent ``stream`` when given: the one
    random source behind deals, sampled mixes and random arrangements."""
    return np.random.default_rng([check_seed(seed), *stream] if stream else check_seed(seed))
