"""What a seat may see of its table: ``seat_view``, the one function every view and event goes
through, and the replays of the game it is built from (cached: a confirmed arrangement never
changes, so neither does its show-down).

Before both sides have confirmed, the other side's cards are not in a view (its commitment is);
the computer's arrangement stays in the tables file until the show-down.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from quintet.cards import format_cards
from quintet.game import Arrangement, Deal, Showdown
from quintet.rules import Rules
from solver.advisor.schema import ProgressOut, ShowdownOut
from solver.apps.serve.tables.models import (
    AdviceOut,
    CommitmentsOut,
    DealViewOut,
    EndedOut,
    FinishedGameOut,
    PresenceOut,
    RematchOut,
    ScoreOut,
    SideOut,
    TableStatus,
    TableView,
    TallyOut,
)
from solver.apps.serve.tables.rows import FRIEND, Side, TableRow
from solver.apps.serve.tables.tasks import play_session
from solver.play.computer import ComputerSpec
from solver.play.session import Reveal

__all__ = ["seat_view", "table_status", "mixes_offered", "presence", "played_result", "warm_up", "COMPUTER_PROVES",
           "FRIEND_PROVES"]

COMPUTER_PROVES = ("The computer's arrangement was drawn and committed before you arranged: a check that passes "
                   "proves it was not changed after you confirmed.")
FRIEND_PROVES = ("The server computed both commitments, each when its seat confirmed: a check that passes proves "
                 "the server revealed the arrangement it committed to then — on the server's word, not against it.")


# ---------------------------------------------------------------------- the game's flow, replayed


@lru_cache(maxsize=4096)
def reveals(deal: Deal, mine: str, theirs: str) -> tuple[Reveal, ...]:
    """The show-down of two confirmed arrangements, slot by slot (``GameSession.play_out``: the
    flow of ``quintet-play``'s game)."""
    return play_session(deal, FRIEND).play_out(mine, theirs)


def warm_up() -> None:
    """Replay one game and its record, so that the first real show-down does not pay for
    loading the hand evaluator."""
    deal = Deal.random(0)
    cards = format_cards(deal.live, deal.rules.deck).split()
    mine = " | ".join(" ".join(cards[5 * k:5 * k + 5]) for k in range(5))
    theirs = " | ".join(" ".join(cards[k::5]) for k in range(5))
    session = play_session(deal, FRIEND)
    session.play_out(mine, theirs)
    session.record()


@lru_cache(maxsize=8192)
def _card_lists(text: str, rules: Rules) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p) for p in Arrangement.parse(text, rules).card_lists(rules))


def _lists(text: str, deal: Deal) -> list[list[str]]:
    return [list(p) for p in _card_lists(text, deal.rules)]


@lru_cache(maxsize=4096)
def _deal_out(deal: Deal) -> tuple[list[str], list[str]]:
    """The deal's exposed and live cards as the API writes them."""
    return deal.format().split(), format_cards(deal.live, deal.rules.deck).split()


@lru_cache(maxsize=4096)
def _showdown_out(deal: Deal, mine: str, theirs: str) -> ShowdownOut:
    """The show-down's JSON, as ``quintet showdown --json``: A is ``mine``, B ``theirs``."""
    played = reveals(deal, mine, theirs)
    return Showdown(tuple(r.result for r in played), played[-1].player_points, played[-1].computer_points,
                    deal).to_model()


# ---------------------------------------------------------------------- the one view


def table_status(table: TableRow, seat: int, game: int) -> TableStatus:
    """Where ``seat``'s game ``game`` stands (see ``TableView.status``)."""
    row = table.row(game)
    if row.resigned is not None:
        return "resigned"
    if table.ended is not None and not table.shown_down(game):
        return "ended"
    if not table.friend and row.computer is None:
        return "failed" if row.failed else "preparing"
    if not row.side(seat).is_confirmed:
        return "placing"
    return "showdown" if table.other_side(game, seat).is_confirmed else "waiting"


def mixes_offered(table: TableRow) -> bool:
    """Whether a seat may ask a K-mix (quintet-play's 'hint K'): the computer plays from the deal's
    equilibrium (a friend's table has no computer)."""
    return not table.friend and ComputerSpec.parse(table.opponent, files=False).needs_equilibrium


def _confirmed_first(mine: Side, theirs: Side) -> Literal["you", "other"]:
    """Whose commitment came first: the computer's at the start of the game, else the earlier confirm's."""
    return "other" if theirs.confirmed is None or (mine.confirmed or 0.0) > theirs.confirmed else "you"


def presence(table: TableRow, seat: int, streams: dict[int, int], lost: frozenset[int] = frozenset()) -> PresenceOut:
    """Who is at the table, for ``seat``: the other side joined, connected (``streams``: open
    event streams per seat; ``lost``: the seats whose streams are open but silent), confirmed in
    ``seat``'s game; ``seat``'s own streams."""
    game = table.seat_games.get(seat, table.first_game)
    here = streams.get(seat, 0)
    if not table.friend:
        ready = table.row(game).computer is not None
        return PresenceOut(joined=ready, connected=ready, lost=False, confirmed=ready, here=here, left=False)
    other = table.other_seat(seat)
    gone = other in lost
    return PresenceOut(joined=table.joined.get(other, False), connected=streams.get(other, 0) > 0 and not gone,
                       lost=gone, confirmed=table.other_side(game, seat).is_confirmed, here=here,
                       left=other in table.left)


def played_result(table: TableRow) -> dict[str, Any]:
    """The current match's result once its last game is shown down: the seat with more points
    (the computer is seat 2), 0 when drawn."""
    games = _finished(table, 1, table.last_game)
    you, other = sum(g.you for g in games), sum(g.other for g in games)
    return {"how": "played", "winner": 1 if you > other else 2 if other > you else 0, "by": None}


def _tally(table: TableRow, seat: int) -> TallyOut:
    winners = [r["winner"] for r in table.results.values()]
    return TallyOut(you=winners.count(seat), other=winners.count(2 if seat == 1 else 1), drawn=winners.count(0),
                    aborted=winners.count(None))


def _ended(table: TableRow, seat: int) -> EndedOut | None:
    ended = table.ended
    return None if ended is None else EndedOut(how=ended["how"], by="you" if ended["by"] == seat else "other")


def _who(seat: int | None, mine: int) -> Literal["you", "other"] | None:
    return None if seat is None else "you" if seat == mine else "other"


def _finished(table: TableRow, seat: int, game: int) -> list[FinishedGameOut]:
    """The current match's games up to ``game`` that are over (shown down or resigned), from
    ``seat``'s side (numbered in the match).  A resigned game is lost in every slot: the other
    side scores all of the game's points (``Rules.game_points``), the resigner none."""
    finished = []
    for g in range(table.first_game, min(game, table.last_game) + 1):
        if not table.game_over(g):
            continue
        g_deal = table.deal(g)
        g_mine, g_other = table.row(g).side(seat), table.other_side(g, seat)
        resigned = _who(table.resigned(g), seat)
        if resigned is not None:
            won = float(g_deal.rules.game_points)
            you, other = (0.0, won) if resigned == "you" else (won, 0.0)
        else:
            assert g_mine.arrangement is not None and g_other.arrangement is not None
            last = reveals(g_deal, g_mine.arrangement, g_other.arrangement)[-1]
            you, other = last.player_points, last.computer_points
        record = g_mine.record
        finished.append(FinishedGameOut(
            game=table.in_match(g), seed=table.seed_of(g), exposed=_deal_out(g_deal)[0], you=you, other=other,
            regret=None if record is None else record.get("regret"),
            record="ready" if record is not None else "computing", resigned=resigned))
    return finished


def seat_view(table: TableRow, seat: int, progress: dict[str, Any] | None = None, revision: int = 0,
              streams: dict[int, int] | None = None, lost: frozenset[int] = frozenset()) -> TableView:
    """What ``seat`` may see of ``table``: the one function every view and event goes through.

    The other side's arrangement and salt are in it only once both have confirmed (the
    show-down); before, only whether it confirmed and its commitment.  ``progress``: the
    equilibrium solve's progress while the game is being prepared; ``revision``: the view's
    stamp (``TableService`` gives each view a larger one than the last); ``streams``: the open
    event streams per seat, ``lost``: the seats among them not heard from (``presence``)."""
    game = table.seat_games.get(seat, table.first_game)
    row = table.row(game)
    deal = table.deal(game)
    mine = row.side(seat)
    other = table.other_side(game, seat)
    resigned = _who(row.resigned, seat)
    both = mine.is_confirmed and other.is_confirmed and resigned is None
    over = both or resigned is not None  # the game is over: shown down, or resigned
    shown = both or resigned == "you"  # the other side's arrangement (if laid) is no secret any more
    status = table_status(table, seat, game)
    you = SideOut(confirmed=mine.is_confirmed, commitment=mine.commitment,
                  arrangement=_lists(mine.arrangement, deal) if mine.arrangement else None, salt=mine.salt)
    theirs = SideOut(confirmed=other.is_confirmed, commitment=other.commitment if other.is_confirmed else None,
                     arrangement=_lists(other.arrangement, deal) if shown and other.arrangement else None,
                     salt=other.salt if shown else None)
    finished = _finished(table, seat, game)
    if table.friend:
        certified = "" if row.equilibrium is None else f" (certified within {row.equilibrium:.4g} points)"
        against = f"the deal's equilibrium{certified}" if table.hints else None  # its own certificate's ε
        ready = row.equilibrium is not None
        description = "a friend"
    else:
        against = f"the computer's model ({table.opponent})" if table.hints else None
        ready = row.computer is not None
        description = row.computer_description or table.opponent  # what it plays, before it has drawn
    other_game = table.seat_games.get(table.other_seat(seat)) if table.friend else None
    return TableView(
        table=table.id, revision=revision, seat=seat, opponent=table.opponent, description=description,
        games=table.games, game=table.in_match(game), match=table.matches,
        other_game=None if other_game is None else table.in_match(other_game),
        status=status, over=table.ended is not None or (over and game >= table.last_game),
        can_next=table.ended is None and over and game < table.last_game,
        ended=_ended(table, seat), resigned=resigned, tally=_tally(table, seat),
        deal=DealViewOut(seed=table.seed_of(game), rules=deal.rules.name, exposed=_deal_out(deal)[0],
                         live=_deal_out(deal)[1]),
        you=you, other=theirs,
        showdown=_showdown_out(deal, mine.arrangement, other.arrangement)
        if both and mine.arrangement and other.arrangement else None,
        confirmed_first=_confirmed_first(mine, other) if both else None,
        score=ScoreOut(you=sum(f.you for f in finished), other=sum(f.other for f in finished)),
        finished=finished,
        advice=AdviceOut(on=table.hints, against=against, ready=table.hints and ready,
                         mixes=table.hints and mixes_offered(table)),
        preparing=ProgressOut.model_validate(progress)
        if progress and (status == "preparing" or (table.friend and table.hints and not ready)) else None,
        error=row.failed,
        presence=presence(table, seat, streams or {}, lost),
        rematch=RematchOut(you=seat in table.rematch, other=table.friend and table.other_seat(seat) in table.rematch),
        invitation_reused=table.reused if table.friend and seat == 1 else 0,
        declined=table.declined and seat == 1 and not table.joined.get(2, True),
        commitments=CommitmentsOut(by="server", proves=FRIEND_PROVES) if table.friend
        else CommitmentsOut(by="computer", proves=COMPUTER_PROVES),
    )
