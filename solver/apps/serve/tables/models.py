"""The tables' typed requests and responses (pydantic; FastAPI's OpenAPI): ``/api/tables``.

Requests refuse unknown fields and wrong JSON types (422), as the rest of the API; cards and
arrangements are read as there (``Cards``, ``ArrangementText``), bounded in length.  A seat's
view (``TableView``) is built by one function, ``solver.apps.serve.tables.views.seat_view``: nothing
in it, nor in an event (``TableEventOut``, which carries the view), names the other side's
cards before both have confirmed.  "you" is the seat asking; "other" the computer or the
friend across.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from solver.advisor.limits import MAX_GAMES
from solver.advisor.schema import OddsOut, ProgressOut, ShowdownOut
from solver.apps.serve.models import (
    ArrangementText,
    Cards,
    MaxSupport,
    RulesIn,
    Seed,
    integral,
)
from solver.problem.opponent_spec import MAX_SPEC_LENGTH

__all__ = [
    "MAX_GAMES", "TableIn", "ArrangementIn", "HintIn", "GradeIn", "SeatOut", "TableCreatedOut",
    "DealViewOut", "SideOut", "ShowdownOut", "ScoreOut", "FinishedGameOut",
    "AdviceOut", "TableView", "OddsOut", "TableEventOut", "EventKind", "TableStatus",
]

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------------- requests


class TableIn(_Strict):
    """A new table: a match of ``games`` games against the computer or a friend."""

    opponent: str = Field(max_length=MAX_SPEC_LENGTH, description=(
        "friend (a second seat, by a link) | a computer model as quintet-play --opponent: equilibrium, greedy, "
        "uniform, br:MODEL or a model of you it best-responds to (no files)"), examples=["greedy", "friend"])
    games: Annotated[int, Field(ge=1, le=MAX_GAMES), BeforeValidator(integral)] = Field(
        default=1, description="games in the match")
    seed: Seed | None = Field(default=None, description=(
        "seed of game 1 (game k deals seed + k − 1, as quintet-play --seed); default: a fresh one, shown"))
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")
    hints: bool | None = Field(default=None, description=(
        "hints, grades and odds allowed (default: on against the computer, off with a friend; a friend's "
        "table gives them against the deal's equilibrium, and both seats are told)"))


class ArrangementIn(_Strict):
    arrangement: ArrangementText = Field(description="your five packets in slot order: final once confirmed")


class HintIn(_Strict):
    slots: dict[str, Cards] = Field(default_factory=dict, max_length=5, description=(
        "slot (\"1\"..\"5\") → packet: the slots you have placed; the hint completes the others "
        "(none: the best arrangement)"))
    max_support: MaxSupport | None = Field(default=None, description=(
        "K: instead, the least exploitable mix of at most K whole arrangements found (quintet-play's 'hint K'; "
        "the answer is a SparseOut, its die roll the game's), at a table whose computer plays from the deal's "
        "equilibrium; not with slots"))


class GradeIn(_Strict):
    arrangement: ArrangementText = Field(description="five packets to grade (not confirmed)")


# ---------------------------------------------------------------------- responses


class SeatOut(_Out):
    seat: int
    token: str = Field(description="the seat's secret (shown once): send it as 'Authorization: Bearer TOKEN'")
    url: str = Field(description="the seat's link: the page at /#play/TABLE/SEAT/TOKEN (the token rides in the "
                                 "fragment, which browsers never send to the server)")


class TableCreatedOut(_Out):
    table: str = Field(description="the table's id (random, 128 bits)")
    seats: list[SeatOut] = Field(description="seat 1 (yours) and, at a friend's table, seat 2 (send its link)")


class DealViewOut(_Out):
    seed: int = Field(description="the game's seed: quintet-play --seed SEED deals these cards")
    rules: str
    exposed: list[str]
    live: list[str] = Field(description="the 25 cards both sides arrange")


class SideOut(_Out):
    """One side of the current game, as the seat asking may see it."""

    confirmed: bool = Field(description="laid face down (the computer: from the start of the game)")
    commitment: str | None = Field(description="SHA-256 (hex) of 'SALT:ARRANGEMENT', shown once confirmed")
    arrangement: list[list[str]] | None = Field(description="the five packets: your own once confirmed, the "
                                                            "other side's only at the show-down")
    salt: str | None = Field(description="the commitment's salt: your own once confirmed, the other side's only "
                                         "at the show-down")


class ScoreOut(_Out):
    you: float
    other: float


class FinishedGameOut(_Out):
    game: int
    seed: int
    exposed: list[str]
    you: float
    other: float
    regret: float | None = Field(description="your regret against the computer's model (expected points of "
                                             "margin the best response would have won more); null: not known "
                                             "(a friend) or still being computed")
    record: Literal["ready", "computing"] = Field(description="the game's record (GET …/records): written, or "
                                                              "its regret still being computed")


class AdviceOut(_Out):
    on: bool = Field(description="hints, grades and odds allowed at this table")
    against: str | None = Field(description="what the advice refers to: the computer's model, or at a friend's "
                                             "table the deal's equilibrium")
    ready: bool = Field(description="the advice's model is ready for this game")
    mixes: bool = Field(description=(
        "a hint with max_support K (the K-mix of the deal's equilibrium) is offered: hints are on and the "
        "computer plays from the equilibrium"))


TableStatus = Literal["preparing", "placing", "waiting", "showdown", "failed"]


class TableView(_Out):
    """A seat's view of its table (``seat_view``)."""

    table: str
    revision: int = Field(ge=0, description=(
        "larger in every view the server builds than in the ones before (microseconds of its clock): a client "
        "keeps the view with the largest, so a late response never overwrites a newer event"))
    seat: int
    opponent: str = Field(description="friend, or the computer's model (quintet-play --opponent)")
    description: str = Field(description="the other side in words (the computer: what it plays)")
    games: int
    game: int = Field(description="your current game (1-based)")
    other_game: int | None = Field(description="at a friend's table: the game your friend is at")
    status: TableStatus = Field(description=(
        "preparing: the computer is drawing its arrangement (an equilibrium is being solved); placing: arrange "
        "and confirm; waiting: you confirmed, the other side has not; showdown: both confirmed; failed: the "
        "game could not be prepared (see error)"))
    over: bool = Field(description="the match is over (the last game's show-down is there)")
    can_next: bool = Field(description="POST …/next moves you to the next game")
    deal: DealViewOut
    you: SideOut
    other: SideOut
    showdown: ShowdownOut | None = Field(description=(
        "once both have confirmed: slot by slot, as quintet showdown --json (A is you, B the other side)"))
    score: ScoreOut = Field(description="the match: points over the games shown down")
    finished: list[FinishedGameOut] = Field(description="the games shown down, in order")
    advice: AdviceOut
    preparing: ProgressOut | None = Field(description="the equilibrium's solve in progress (iteration, certified "
                                                      "exploitability so far)")
    error: str | None = Field(description="why the game could not be prepared")


EventKind = Literal["view", "preparing", "ready", "failed", "confirmed", "reveal", "next", "record", "expired",
                    "shutdown"]


class TableEventOut(_Out):
    """One server-sent event of a table's stream: ``event: KIND`` and this as its ``data``."""

    event: EventKind = Field(description=(
        "view: the state on connecting; preparing: the equilibrium's progress; ready: the game is prepared "
        "(the computer's commitment, or the advice's equilibrium); failed; confirmed: a side confirmed (the "
        "other's commitment is in the view); reveal: both confirmed, the show-down is in the view; next: a seat "
        "moved to its next game; record: a game's record and regret are written; expired: the table is gone; "
        "shutdown: the server is stopping (the last event; reconnect)"))
    game: int | None = Field(description="the game the event is about")
    seat: int | None = Field(description="the seat that acted (confirmed, next)")
    view: TableView | None = Field(description="your view after the event (none for expired and shutdown)")
