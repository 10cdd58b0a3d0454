"""The tables' typed requests and responses (pydantic; FastAPI's OpenAPI): ``/api/tables``.

Requests refuse unknown fields and wrong JSON types (422), as the rest of the API; cards and
arrangements are read as there (``Cards``, ``ArrangementText``), bounded in length.  A seat's
view (``TableView``) is built by one function, ``solver.apps.serve.tables.views.seat_view``: nothing
in it, nor in an event (``TableEventOut``, which carries the view), names the other side's
cards before both have confirmed.  "you" is the seat asking; "other" the computer or the
friend across.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from solver.advisor.limits import MAX_GAMES
from solver.advisor.schema import JsonModel, OddsOut, ProgressOut, ShowdownOut
from solver.apps.serve.models import (
    ArrangementText,
    Cards,
    MaxSupport,
    RulesIn,
    Seed,
    _Strict,
    integral,
)
from solver.apps.serve.tables.config import LOST_AFTER
from solver.play.computer import computer_help
from solver.problem.opponent_spec import MAX_SPEC_LENGTH

__all__ = [
    "MAX_GAMES", "TableIn", "ArrangementIn", "HintIn", "GradeIn", "JoinIn", "InvitationOut", "InvitedOut",
    "TableCreatedOut", "TableJoinedOut", "PresenceOut", "AliveOut", "RematchOut", "CommitmentsOut", "ResignIn",
    "ResignScope",
    "EndedOut", "TallyOut",
    "DealViewOut", "SideOut", "ShowdownOut", "ScoreOut", "FinishedGameOut",
    "AdviceOut", "TableView", "OddsOut", "TableEventOut", "EventKind", "TableStatus",
]

# ---------------------------------------------------------------------- requests


def _opponent(schema: dict[str, Any]) -> None:
    """The table's ``opponent``, in the words of the registry as it is when the schema is written."""
    schema["description"] = f"friend (a second seat, by a link) | the computer: {computer_help(files=False)}"


class TableIn(_Strict):
    """A new table: a match of ``games`` games against the computer or a friend."""

    opponent: str = Field(max_length=MAX_SPEC_LENGTH, examples=["greedy", "friend"], json_schema_extra=_opponent)
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


ResignScope = Literal["game", "match"]
"""What POST …/resign gives up: your current game (before its show-down; lost in every slot, the match
goes on) or the whole match."""


class ResignIn(_Strict):
    scope: ResignScope = Field(default="match", description=(
        "game: your current game, before its show-down — lost in every slot (the other side scores all of the "
        "game's points, you none; docs/rules.md) and the match goes on to its next game; match: the whole match "
        "(aborted before its first game is over, else resigned)"))
    leave: bool = Field(default=False, description=(
        "leave the table too: your friend is told (a 'left' event) and no rematch can start"))


MAX_SECRET_LENGTH = 128
"""Characters of an invitation code (the server's are 22)."""


class JoinIn(_Strict):
    invitation: str = Field(max_length=MAX_SECRET_LENGTH, description=(
        "the invitation's code: the last part of its link, /#join/TABLE/CODE"))


# ---------------------------------------------------------------------- responses


_WARNING = ("null, or why the link will not reach another machine (it names this machine's own address) and how "
            "to publish the server: show it beside the link")


class InvitationOut(JsonModel):
    """A friend's table's invitation: its link, for seat 2."""

    link: str = Field(description="{public}/#join/TABLE/CODE: the page exchanges the code for seat 2's own token "
                                  "when the friend opens it (once: a second exchange is refused, and seat 1 told)")
    warning: str | None = Field(description=_WARNING)


class InvitedOut(JsonModel):
    """The match an invitation is to, shown to the friend before they accept (``POST …/invited``:
    nothing is taken)."""

    table: str
    games: int = Field(description="games in the match")
    match: int = Field(ge=1, description="the match at the table (1: the first)")
    rules: str = Field(description="the rule set's name")
    hints: bool = Field(description="hints, grades and odds allowed (against the deal's equilibrium, for both)")


class _SeatOut(JsonModel):
    table: str = Field(description="the table's id (random, 128 bits)")
    seat: int
    token: str = Field(description="this seat's secret (shown once: its link holds it): send it as "
                                   "'Authorization: Bearer TOKEN'")
    link: str = Field(description="the seat's link, {public}/#play/TABLE/SEAT/TOKEN (the token rides in the fragment, "
                                  "which browsers never send to the server): bookmark it, open it on another device")
    warning: str | None = Field(description=_WARNING)


class TableCreatedOut(_SeatOut):
    """A new table: seat 1's token and link, and at a friend's table the invitation for seat 2
    (never seat 2's token: the friend's browser gets it by exchanging the invitation)."""

    invitation: InvitationOut | None = Field(description="a friend's table: the link to send to your friend; null "
                                                         "against the computer")


class TableJoinedOut(_SeatOut):
    """Seat 2 of a friend's table, for the browser that exchanged the invitation."""


class DealViewOut(JsonModel):
    seed: int = Field(description="the game's seed: quintet-play --seed SEED deals these cards")
    rules: str
    exposed: list[str]
    live: list[str] = Field(description="the 25 cards both sides arrange")


class SideOut(JsonModel):
    """One side of the current game, as the seat asking may see it."""

    confirmed: bool = Field(description="laid face down (the computer: from the start of the game)")
    commitment: str | None = Field(description="SHA-256 (hex) of 'SALT:ARRANGEMENT', shown once confirmed")
    arrangement: list[list[str]] | None = Field(description="the five packets: your own once confirmed, the "
                                                            "other side's only at the show-down")
    salt: str | None = Field(description="the commitment's salt: your own once confirmed, the other side's only "
                                         "at the show-down")


class ScoreOut(JsonModel):
    you: float
    other: float


class FinishedGameOut(JsonModel):
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
    resigned: Literal["you", "other"] | None = Field(description=(
        "who resigned the game before its show-down (it is lost in every slot), null: shown down"))


class AdviceOut(JsonModel):
    on: bool = Field(description="hints, grades and odds allowed at this table")
    against: str | None = Field(description="what the advice refers to: the computer's model, or at a friend's "
                                             "table the deal's equilibrium")
    ready: bool = Field(description="the advice's model is ready for this game")
    mixes: bool = Field(description=(
        "a hint with max_support K (the K-mix of the deal's equilibrium) is offered: hints are on and the "
        "computer plays from the equilibrium"))


class PresenceOut(JsonModel):
    """Who is at the table: the other side (``joined``, ``connected``, ``confirmed``) and this seat."""

    joined: bool = Field(description="the other seat is taken (seat 2: your friend exchanged the invitation); the "
                                     "computer: once it is ready")
    connected: bool = Field(description="the other seat has the table open now (an event stream whose page answers "
                                        "its heartbeats); the computer: once it is ready")
    lost: bool = Field(description=(
        "the other seat's connection is lost: its event stream is open but its page has not answered the server's "
        f"heartbeats ({LOST_AFTER:g} of them: a network gone silent, a closed lid); its page reconnects by itself "
        "when it can"))
    confirmed: bool = Field(description="the other side has confirmed your current game")
    here: int = Field(ge=0, description="open event streams of YOUR seat (2 or more: the seat is open on two "
                                        "devices or tabs)")
    left: bool = Field(description="the other seat has left the table (POST …/resign with leave): no rematch")


class AliveOut(JsonModel):
    """The answer to a heartbeat (POST …/alive): the stream's pace, as its events say it."""

    heartbeat: float = Field(gt=0, description="seconds between two heartbeats on a table's event stream")
    silence: float = Field(gt=0, description=(
        f"seconds ({LOST_AFTER:g} heartbeats) after which a seat not heard from has lost its connection"))


class RematchOut(JsonModel):
    you: bool = Field(description="you asked for a rematch (POST …/rematch)")
    other: bool = Field(description="your friend asked for a rematch (against the computer: always false, a "
                                    "rematch starts at once)")


class EndedOut(JsonModel):
    """How the current match ended before its last show-down."""

    how: Literal["resigned", "aborted"] = Field(description=(
        "resigned: a side gave the match up (the other wins it); aborted: ended before its first show-down, no result"))
    by: Literal["you", "other"] = Field(description="who resigned or aborted")


class TallyOut(JsonModel):
    """The matches at this table that have ended, from your side."""

    you: int = Field(ge=0, description="matches you won")
    other: int = Field(ge=0, description="matches the other side won")
    drawn: int = Field(ge=0)
    aborted: int = Field(ge=0)


class CommitmentsOut(JsonModel):
    by: Literal["computer", "server"] = Field(description=(
        "computer: the server drew and committed the computer's arrangement before you arranged; server: at a "
        "friend's table the server computes each seat's commitment when it confirms"))
    proves: str = Field(description="what a check that passes proves, in one sentence to show beside it")


TableStatus = Literal["preparing", "placing", "waiting", "showdown", "resigned", "failed", "ended"]


class TableView(JsonModel):
    """A seat's view of its table (``seat_view``)."""

    table: str
    revision: int = Field(ge=0, description=(
        "larger in every view the server builds than in the ones before (microseconds of its clock): a client "
        "keeps the view with the largest, so a late response never overwrites a newer event"))
    seat: int
    opponent: str = Field(description="friend, or the computer's model (quintet-play --opponent)")
    description: str = Field(description="the other side in words (the computer: what it plays)")
    games: int = Field(description="games in a match")
    game: int = Field(description="your current game in the match (1-based)")
    match: int = Field(ge=1, description="the match at this table (a rematch starts the next: its games deal the "
                                         "seeds after the last match's)")
    other_game: int | None = Field(description="at a friend's table: the game your friend is at")
    status: TableStatus = Field(description=(
        "preparing: the computer is drawing its arrangement (an equilibrium is being solved); placing: arrange "
        "and confirm; waiting: you confirmed, the other side has not; showdown: both confirmed; resigned: a side "
        "resigned this game before its show-down (see resigned); failed: the "
        "game could not be prepared (see error); ended: the match ended before this game's show-down (see ended)"))
    over: bool = Field(description="the match is over (the last game's show-down is there, or it ended early)")
    ended: EndedOut | None = Field(description="the match ended early: resigned or aborted (null: it did not)")
    resigned: Literal["you", "other"] | None = Field(description=(
        "who resigned your current game before its show-down (POST …/resign with scope game): it is lost in every "
        "slot; null: it was not"))
    tally: TallyOut = Field(description="the matches at this table that have ended (a score across rematches)")
    can_next: bool = Field(description="POST …/next moves you to the next game")
    deal: DealViewOut
    you: SideOut
    other: SideOut
    showdown: ShowdownOut | None = Field(description=(
        "once both have confirmed: slot by slot, as quintet showdown --json (A is you, B the other side)"))
    confirmed_first: Literal["you", "other"] | None = Field(description=(
        "once both have confirmed: whose commitment came first (the computer's when the game starts, else the "
        "first to confirm) — it was shown to the other side before that side confirmed"))
    score: ScoreOut = Field(description="the match: points over the games shown down")
    finished: list[FinishedGameOut] = Field(description="the games shown down, in order")
    advice: AdviceOut
    preparing: ProgressOut | None = Field(description="the equilibrium's solve in progress (iteration, certified "
                                                      "exploitability so far)")
    error: str | None = Field(description="why the game could not be prepared")
    presence: PresenceOut
    rematch: RematchOut = Field(description="once the match is over: who asked for the next (POST …/rematch)")
    invitation_reused: int = Field(ge=0, description=(
        "seat 1 of a friend's table: how many times the invitation was presented again after your friend joined "
        "(and refused) — someone else has its link"))
    commitments: CommitmentsOut = Field(description="what the commitment check at the show-down proves")
    declined: bool = Field(description=(
        "seat 1 of a friend's table: your friend declined the invitation (POST …/decline) and has not joined; "
        "the invitation stays valid"))


EventKind = Literal["view", "preparing", "ready", "failed", "confirmed", "reveal", "next", "record", "presence",
                    "joined", "declined", "invitation_reused", "rematch", "match", "resigned", "game_resigned",
                    "aborted", "left",
                    "heartbeat", "expired", "shutdown"]


class TableEventOut(JsonModel):
    """One server-sent event of a table's stream: ``event: KIND`` and this as its ``data``."""

    event: EventKind = Field(description=(
        "view: the state on connecting; preparing: the equilibrium's progress; ready: the game is prepared "
        "(the computer's commitment, or the advice's equilibrium); failed; confirmed: a side confirmed (the "
        "other's commitment is in the view); reveal: both confirmed, the show-down is in the view; next: a seat "
        "moved to its next game; record: a game's record and regret are written; presence: the view's presence "
        "changed (the other seat joined, opened or closed the table, confirmed; this seat opened it elsewhere); "
        "joined: your friend exchanged the invitation; declined: your friend declined it; invitation_reused: "
        "someone presented the invitation again after your friend joined (refused: someone else has its link); "
        "rematch: a seat asked for a rematch; match: the next match started (both seats keep their links); "
        "resigned: a side resigned the match; game_resigned: a side resigned a game (the event's game; the "
        "match goes on); aborted: a side ended it before its first show-down; left: your "
        "friend left the table; heartbeat: sent every `heartbeat` seconds, answered by POST …/alive (a seat "
        "that does not answer has lost its connection, for the other; a page that hears nothing for 2.5 heartbeats "
        "has lost the server); expired: the table is gone; shutdown: the server is stopping (the last event; "
        "reconnect)"))
    game: int | None = Field(description="the game the event is about (in its match)")
    seat: int | None = Field(description="the seat that acted (confirmed, next)")
    view: TableView | None = Field(description="your view after the event (none for heartbeat, expired and shutdown)")
    heartbeat: float | None = Field(default=None, description=(
        "on the first event (view) and every heartbeat: the seconds between two heartbeats on this stream"))
    silence: float | None = Field(default=None, description=(
        f"with heartbeat: the seconds ({LOST_AFTER:g} heartbeats) after which a silent side has lost its connection "
        "(a page that hears nothing from the server for as long reconnects)"))
