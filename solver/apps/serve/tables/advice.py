"""A seat's advice at a table (a hint, the K-mix, a grade, the odds): checked against the table
and the seat's game, and made into the worker's task (``tasks.TableTask``)."""

from __future__ import annotations

from solver.advisor.limits import parse_slot
from solver.apps.serve.tables.errors import AdviceOff, NotNow
from solver.apps.serve.tables.rows import TableRow
from solver.apps.serve.tables.tasks import Grade, Hint, MixHint, Odds, PlayAction, SeatGame, TableTask, play_session
from solver.apps.serve.tables.views import mixes_offered, table_status
from solver.play.session import PlayError

__all__ = ["advice_task"]


def advice_task(table: TableRow, seat: int, action: PlayAction, *, slots: dict[str, str] | None = None,
                arrangement: str | None = None, max_support: int | None = None) -> tuple[TableTask, int]:
    """The worker's task for a seat's hint (``max_support``: the K-mix), grade or odds, and the
    game it is for; ``PlayError`` for a move the game refuses, ``AdviceOff`` or ``NotNow``
    when advice is not for this table or not for now."""
    game = table.seat_games[seat]
    row = table.row(game)
    if not table.hints:
        raise AdviceOff("hints, grades and odds are off at this table")
    if row.side(seat).is_confirmed:
        raise NotNow(f"you have confirmed game {game}: hints, grades and odds are for placing")
    status = table_status(table, seat, game)
    if status == "failed":
        raise NotNow(f"game {game} could not be prepared: {row.failed}")
    if status in ("resigned", "ended"):
        raise NotNow(f"game {game} is over ({status}): hints, grades and odds are for placing")
    if status == "preparing" or (table.friend and row.equilibrium is None):
        raise NotNow("the advice's model is still being prepared (the deal's equilibrium is being "
                     "solved); try again when the table says it is ready")
    deal = table.deal(game)
    session = play_session(deal, table.opponent)
    placed: list[tuple[int, str]] = []
    if max_support is not None:
        if slots:
            raise PlayError("max_support: a K-mix is of whole arrangements; send it without slots")
        if table.friend:
            raise PlayError("max_support: a K-mix mixes the arrangements of the equilibrium a computer "
                            "plays from, and a friend's table has no computer; a hint without max_support "
                            "advises against the deal's equilibrium")
        if not mixes_offered(table):
            raise PlayError(f"max_support: a K-mix mixes arrangements of the deal's equilibrium, and this "
                            f"table's computer plays {table.opponent}, not from it; a hint without "
                            "max_support completes your slots")
    elif action == "hint":
        for key, cards in (slots or {}).items():
            placed.append((parse_slot(key, deal.rules.n_slots, "slots"), cards))
        for s, cards in placed:
            session.place(s, cards)
        session.verify_hint()
    at = SeatGame(deal, table.opponent, game=game, seed=table.seed_of(game), computer=row.computer,
                  description=row.computer_description or "", equilibrium=row.equilibrium, advice=table.hints)
    if max_support is not None:
        return MixHint(at, max_support), game
    if action == "grade":
        assert arrangement is not None
        return Grade(at, session.verify_confirm(arrangement).format(deal.rules)), game
    return (Hint(at, tuple(placed)) if action == "hint" else Odds(at)), game
