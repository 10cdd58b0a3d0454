"""Commitments to a hidden arrangement: a SHA-256 shown before the show-down, checked after it.

A side lays its arrangement face down and the table shows its **commitment**, the SHA-256 of
the bytes ::

    SALT:ARRANGEMENT

— ``SALT`` 32 lowercase hexadecimal digits (128 random bits, ``secrets.token_hex(16)``), one
colon, then ``ARRANGEMENT``, the arrangement's canonical text (``Arrangement.format``): the five
packets in slot order separated by `` | `` (space, bar, space), each packet's cards as the API
writes them (two ASCII characters, rank ``A K Q J T 9 8 7…`` then suit ``s h d c``; jokers
``Jk``), highest first, separated by one space — exactly the card lists of the show-down
joined.  ASCII, no newline.  At the show-down the salt and the arrangement are revealed, and
anyone can check them with ``printf '%s' 'SALT:ARRANGEMENT' | sha256sum``.

    >>> from quintet.game import Arrangement
    >>> a = Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h")
    >>> c = commit(a, salt="00112233445566778899aabbccddeeff")
    >>> c.text[:61]
    '00112233445566778899aabbccddeeff:9s 9c 8s 8c 7c | Ks Kd Kc Js'
    >>> c.digest
    'a1b4c46f993fb65cce9a22af4b2c5665bfdb10b06771f2edd6c18b930735cf12'
    >>> check(c.digest, c.salt, a)
    True
    >>> check(c.digest, c.salt, Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | "
    ...                                            "As Ah Ad Ac Kh | Qs Qh Jh Th 9h"))
    False
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from quintet.game import Arrangement
from quintet.rules import CLASSIC, Rules

__all__ = ["SALT_HEX_DIGITS", "Commitment", "canonical_text", "commitment_of", "commit", "check"]

SALT_HEX_DIGITS = 32  # 128 bits
_SALT = re.compile(f"[0-9a-f]{{{SALT_HEX_DIGITS}}}")


def canonical_text(arrangement: Arrangement, rules: Rules = CLASSIC) -> str:
    """The arrangement's text a commitment covers (see the module doc)."""
    return arrangement.format(rules)


def commitment_of(salt: str, text: str) -> str:
    """SHA-256 (lowercase hex) of ``salt:text`` (ASCII)."""
    return hashlib.sha256(f"{salt}:{text}".encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Commitment:
    """A commitment: the salt (secret until the show-down), the committed text and its digest."""

    salt: str
    arrangement: str  # canonical text
    digest: str

    @property
    def text(self) -> str:
        """The bytes hashed, as text: ``salt:arrangement``."""
        return f"{self.salt}:{self.arrangement}"


def commit(arrangement: Arrangement, rules: Rules = CLASSIC, *, salt: str | None = None) -> Commitment:
    """Commit to ``arrangement`` with a fresh random salt (or the one given)."""
    salt = secrets.token_hex(SALT_HEX_DIGITS // 2) if salt is None else salt
    if not _SALT.fullmatch(salt):
        raise ValueError(f"a salt is {SALT_HEX_DIGITS} lowercase hexadecimal digits")
    text = canonical_text(arrangement, rules)
    return Commitment(salt, text, commitment_of(salt, text))


def check(digest: str, salt: str, arrangement: Arrangement | str, rules: Rules = CLASSIC) -> bool:
    """Does ``arrangement`` (revealed with ``salt``) match the commitment ``digest`` shown before?"""
    text = arrangement if isinstance(arrangement, str) else canonical_text(arrangement, rules)
    return hmac.compare_digest(commitment_of(salt, text), digest.lower())
