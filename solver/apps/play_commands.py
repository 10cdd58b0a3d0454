"""The commands typed in ``quintet-play``'s game: their words and help (``COMMANDS``), one line
read as a ``Command`` (``parse_command``).  The game they drive is ``solver.play.session``'s
``GameSession``, which knows nothing of how moves are typed; ``help``, ``rules`` and ``quit`` are
the terminal layer's shared words (``quintet.terminal``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from quintet.terminal import SHARED_HELP, command_word, unknown_command
from quintet.text import quote
from solver.advisor.limits import LimitError, check_max_support
from solver.play.session import PlayError

__all__ = ["COMMANDS", "Command", "parse_command"]

COMMANDS: dict[str, tuple[str, str]] = {
    "slot": ("slot N CARDS", "put five cards in slot N (1 = 3 points … 5 = 7 points)"),
    "clear": ("clear N", "empty slot N"),
    "swap": ("swap A B", "exchange two cards between slots (one may be a card not placed), e.g. a grade's best swap"),
    "undo": ("undo", "take back the last slot, clear or swap"),
    "show": ("show", "the board: exposed cards, cards left to place, your slots"),
    "hint": ("hint [K]", "the best completion of your slots against the computer's model; 'hint 3' against "
                         "the equilibrium: a mix of at most 3 arrangements and a die roll"),
    "grade": ("grade", "value, regret and best two-card swap of your five slots"),
    "odds": ("odds", "the computer's per-slot odds: which hands it plays where"),
    "play": ("play ARRANGEMENT", "lay all five packets at once, '|'-separated, and confirm them"),
    "done": ("done", "confirm the five packets placed"),
    "review": ("review [N]", "the review of game N of this match (default: the last one finished)"),
    "stats": ("stats", "your statistics over every game recorded (this match and earlier sessions)"),
    **{usage.split(",")[0]: (usage, what) for usage, what in SHARED_HELP},
}
"""Command name → (how it is typed, what it does); ``help``, ``rules`` and ``quit`` are the
terminal layer's shared words (``quintet.terminal``), with their aliases ``?``, ``h`` and ``q``."""
_NO_ARGUMENTS = ("undo", "show", "grade", "odds", "done", "stats", "help", "rules", "quit")


@dataclass(frozen=True)
class Command:
    """One line of input: ``name`` (a key of ``COMMANDS``), a slot, the cards/arrangement text
    (the two cards of ``swap``), the K of ``hint K`` or the N of ``review N``."""

    name: str
    slot: int | None = None
    text: str = ""
    k: int | None = None

    def __str__(self) -> str:
        number = self.slot if self.k is None else self.k
        return " ".join(p for p in (self.name, "" if number is None else str(number), self.text) if p)


def parse_command(line: str, n_slots: int = 5) -> Command | None:
    """Read one command line (``None`` for a blank line); raises ``PlayError`` naming the problem."""
    words = line.split(None, 1)
    if not words:
        return None
    name = command_word(words[0])
    rest = words[1].strip() if len(words) > 1 else ""
    if name not in COMMANDS:
        raise PlayError(unknown_command(words[0], COMMANDS))
    if name in _NO_ARGUMENTS:
        if rest:
            raise PlayError(f"'{name}' takes no arguments, got {quote(rest)}")
        return Command(name)
    if name == "hint":
        if not rest:
            return Command(name)
        if not re.fullmatch(r"[0-9]+", rest):
            raise PlayError(f"'hint' takes nothing or a number K of arrangements (e.g. 'hint 3'), got {quote(rest)}")
        try:
            return Command(name, k=check_max_support(int(rest)))
        except LimitError as exc:
            raise PlayError(f"hint K: {exc}") from None
    if name == "review":
        if not rest:
            return Command(name)
        if not re.fullmatch(r"[0-9]{1,6}", rest) or int(rest) < 1:
            raise PlayError(f"'review' takes nothing or a game number (e.g. 'review 2'), got {quote(rest)}")
        return Command(name, k=int(rest))
    if name == "swap":
        pair = rest.replace(",", " ").split()
        if len(pair) != 2:
            raise PlayError(f"'swap' needs two cards, e.g. 'swap As 9c', got {quote(rest) if rest else 'none'}")
        return Command(name, text=" ".join(pair))
    if name == "play":
        if not rest:
            raise PlayError("'play' needs five packets separated by '|', e.g. 'play Ah Kh Qh Jh Th | …'")
        return Command(name, text=rest)
    usage = "'slot N CARDS', e.g. 'slot 5 Ah Kh Qh Jh Th'" if name == "slot" else "'clear N', e.g. 'clear 3'"
    slot_text, cards = (rest.split(None, 1) + [""])[:2] if rest else ("", "")
    match = re.fullmatch(r"[0-9]+", slot_text)
    if not match:
        raise PlayError(f"'{name}' needs a slot number 1-{n_slots} first: {usage}")
    slot = int(slot_text)
    if not 1 <= slot <= n_slots:
        raise PlayError(f"there is no slot {slot} (slots are 1-{n_slots})")
    cards = cards.strip()
    if name == "slot" and not cards:
        raise PlayError(f"'slot {slot}' needs five cards: {usage}")
    if name == "clear" and cards:
        raise PlayError(f"'clear' takes only a slot number: {usage}")
    return Command(name, slot, cards)
