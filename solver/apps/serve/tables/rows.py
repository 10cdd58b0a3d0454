"""A table as the tables file holds it (``store``): the table (``TableRow``), each game
(``GameRow``) and each seat's side of a game (``Side``) — plain records the service, the views
and the scheduler read; only ``store`` writes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from quintet.game import Deal
from quintet.rules import Rules, get_rules

__all__ = ["FRIEND", "TableRow", "GameRow", "Side"]

FRIEND = "friend"


@lru_cache(maxsize=4096)
def _random_deal(seed: int, rules: Rules) -> Deal:
    return Deal.random(seed, rules)


@dataclass
class Side:
    """One side of one game: its arrangement once confirmed (canonical text) and commitment."""

    arrangement: str | None = None
    salt: str | None = None
    commitment: str | None = None
    confirmed: float | None = None
    hints: list[str] = field(default_factory=list)
    record: dict[str, Any] | None = None

    @property
    def is_confirmed(self) -> bool:
        return self.arrangement is not None


@dataclass
class GameRow:
    """One game of a table: the computer's committed arrangement (computer tables), the
    equilibrium solved for it, each seat's side."""

    game: int
    computer: str | None = None
    computer_salt: str | None = None
    computer_commitment: str | None = None
    computer_description: str | None = None
    equilibrium: float | None = None
    failed: str | None = None
    ended: float | None = None
    resigned: int | None = None  # the seat that resigned the game before its show-down (None: none)
    plays: dict[int, Side] = field(default_factory=dict)

    def side(self, seat: int) -> Side:
        return self.plays.setdefault(seat, Side())


@dataclass
class TableRow:
    """A table as stored: its terms, each seat's current game, its games."""

    id: str
    opponent: str  # "friend" or the computer's specification (canonical)
    games: int
    seed: int  # game 1's seed
    rules_json: dict[str, Any]  # the rule set: {"name": …, and its options (``RULE_OPTIONS``)}
    hints: bool
    created: float
    touched: float
    seat_games: dict[int, int] = field(default_factory=dict)  # seat → its current game (counted over every match)
    game_rows: dict[int, GameRow] = field(default_factory=dict)
    matches: int = 1  # the matches started at the table (the current one is the last)
    joined: dict[int, bool] = field(default_factory=dict)  # seat → it holds its token (seat 2: invitation exchanged)
    rematch: set[int] = field(default_factory=set)  # the seats that asked for the next match
    invitation: str | None = None  # a friend's table: the code until seat 2 joins
    invitation_hash: bytes | None = None
    reused: int = 0  # exchanges of the invitation refused after seat 2 joined
    declined: bool = False  # the friend declined the invitation (it stays valid)
    results: dict[str, dict[str, Any]] = field(default_factory=dict)  # match → how it ended (``store``)
    left: set[int] = field(default_factory=set)  # the seats that left the table

    @property
    def friend(self) -> bool:
        return self.opponent == FRIEND

    @property
    def seats(self) -> list[int]:
        return [1, 2] if self.friend else [1]

    @cached_property
    def rules(self) -> Rules:
        options = {k: v for k, v in self.rules_json.items() if k != "name"}
        return get_rules(self.rules_json.get("name", "classic"), **options)

    @property
    def first_game(self) -> int:
        """The current match's first game (games are counted over every match)."""
        return (self.matches - 1) * self.games + 1

    @property
    def last_game(self) -> int:
        """The current match's last game."""
        return self.matches * self.games

    def in_match(self, game: int) -> int:
        """``game``'s number in its own match (1 … games)."""
        return (game - 1) % self.games + 1

    @property
    def ended(self) -> dict[str, Any] | None:
        """How the current match ended early (resigned, aborted), or None."""
        result = self.results.get(str(self.matches))
        return result if result is not None and result["how"] != "played" else None

    def match_over(self, seat: int) -> bool:
        """``seat`` has seen the current match's last show-down (or its resignation), or the match ended early."""
        return self.ended is not None or (self.seat_games.get(seat) == self.last_game
                                          and self.game_over(self.last_game))

    def seed_of(self, game: int) -> int:
        return self.seed + game - 1

    def deal(self, game: int) -> Deal:
        return _random_deal(self.seed_of(game), self.rules)

    def row(self, game: int) -> GameRow:
        return self.game_rows.setdefault(game, GameRow(game))

    def other_seat(self, seat: int) -> int:
        return 3 - seat

    def other_side(self, game: int, seat: int) -> Side:
        """The side across from ``seat`` in ``game``: the friend's, or the computer's."""
        row = self.row(game)
        if self.friend:
            return row.side(self.other_seat(seat))
        return Side(arrangement=row.computer, salt=row.computer_salt, commitment=row.computer_commitment,
                    confirmed=None)

    def shown_down(self, game: int) -> bool:
        """Both sides of ``game`` have confirmed."""
        row = self.game_rows.get(game)
        if row is None:
            return False
        seats = self.seats
        return all(row.side(s).is_confirmed for s in seats) and (self.friend or row.computer is not None)

    def resigned(self, game: int) -> int | None:
        """The seat that resigned ``game`` before its show-down (None: not resigned)."""
        row = self.game_rows.get(game)
        return None if row is None else row.resigned

    def game_over(self, game: int) -> bool:
        """``game`` is over: shown down, or resigned."""
        return self.shown_down(game) or self.resigned(game) is not None
