"""Game records: one JSON line per game played (``quintet-play --record FILE``).

A record (``GameRecord.to_dict``) holds::

    {"game": 1, "seed": 7, "time": "2025-05-01T12:00:00Z", "rules": "<rules fingerprint>",
     "opponent": "greedy",
     "exposed": ["Qc", "Jc", "Ts", "9d", "8h", "7s", "7h"],
     "player":   [["Th", "Td", "Tc", "7d", "7c"], …],      five packets, slot order
     "computer": [["As", "Ah", "Ad", "Ac", "9c"], …],
     "points": {"player": 18.0, "computer": 7.0},
     "slots": [{"slot": 1, "points": 3, "winner": "player" | "computer" | null,
                "player": {"cards": […], "hand": "full house, tens over sevens", "category": "full_house"},
                "computer": {"cards": […], "hand": "…", "category": "…"}}, …],
     "hints": ["hint", "grade"],                         advice commands used, in order
     "regret": 1.25,                                     vs the best response to the computer's model
     "slot_regret": [0.0, 0.5, …],                       per slot: the best response's expected margin minus yours
     "mix": "3f0c…"}                                     the equilibrium mix drawn from (its hash), or null

A game **resigned** before its show-down (docs/rules.md; ``resigned_record``) has
``"resigned": "player" | "computer"`` (who resigned), no ``slots``, the resigner's arrangement
null and the other's only if it had confirmed, every slot's points to the other side, no regret.
The readers below skip it (there is no show-down to replay, review or fit a style to).

Cards are two-character ASCII.  ``read_player_games`` reads what a style model needs from
such a file — each line's ``exposed`` and ``player``, validated against the rules — so
hand-written lines with just those two fields are records too.  ``GameRecord.from_dict`` reads
a whole record back (``read_records`` a file of them, ``records_from_json`` decoded JSON): the
show-down is played again from the two arrangements, and a record whose points disagree with
it is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from quintet.cards import CardError, format_cards
from quintet.evaluator import HandValue
from quintet.faults import InputError
from quintet.fingerprint import rules_fingerprint
from quintet.game import Arrangement, ArrangementError, Deal, Showdown, showdown
from quintet.jsonlines import read_json_lines
from quintet.rules import Rules
from quintet.text import quote

__all__ = [
    "RecordError", "GameRecord", "append_record", "resigned_record", "is_resigned",
    "read_player_games", "player_games_from_json", "read_records",
    "records_from_json",
]


class RecordError(InputError):
    """A records file that cannot be read (missing, not JSON lines, an illegal arrangement)."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game, from the player's side (the show-down's A is the player)."""

    game: int  # 1-based number within the match
    seed: int  # the game's seed: ``quintet-play --seed SEED`` deals this game again
    time: str  # ISO 8601 UTC, when the game ended
    opponent: str  # the computer's ``--opponent``
    deal: Deal
    player: Arrangement
    computer: Arrangement
    showdown: Showdown
    hints: tuple[str, ...]  # advice commands used, in order
    regret: float | None  # the best response's value minus the player's, vs the computer's model
    slot_regret: tuple[float, ...] | None = None  # per slot, the regret made there (``Grade.slot_regrets``)
    mix: str | None = None  # the content hash of the equilibrium mix the computer drew from (``played_equilibrium``)

    def to_dict(self) -> dict[str, object]:
        rules = self.deal.rules
        winner = {"A": "player", "B": "computer", None: None}

        def hand(h: HandValue) -> dict[str, object]:
            return {"cards": format_cards(h.mask, rules.deck).split(), "hand": h.description,
                    "category": h.category.slug}

        return {
            "game": self.game,
            "seed": self.seed,
            "time": self.time,
            "rules": rules_fingerprint(rules),
            "opponent": self.opponent,
            "exposed": format_cards(self.deal.exposed, rules.deck).split(),
            "player": self.player.card_lists(rules),
            "computer": self.computer.card_lists(rules),
            "points": {"player": self.showdown.points_a, "computer": self.showdown.points_b},
            "slots": [
                {"slot": s.slot, "points": s.weight, "winner": winner[s.winner], "player": hand(s.hand_a),
                 "computer": hand(s.hand_b)}
                for s in self.showdown.slots
            ],
            "hints": list(self.hints),
            "regret": self.regret,
            "slot_regret": None if self.slot_regret is None else list(self.slot_regret),
            "mix": self.mix,
        }

    @classmethod
    def from_dict(cls, entry: object, rules: Rules) -> GameRecord:
        """The record ``to_dict`` wrote (read back under ``rules``); ``RecordError`` naming the
        field for anything else.  The show-down is played again from the arrangements: points
        that disagree with it are refused."""
        if not isinstance(entry, dict):
            raise RecordError("expected a JSON object (a game record)")
        if is_resigned(entry):
            raise RecordError(f"game {quote(entry.get('game'))} was resigned before its show-down: "
                              "there is no show-down to read")
        deal, player = _player_game(entry, rules, rules_fingerprint(rules))
        for key in ("game", "seed", "time", "opponent", "computer", "points"):
            if key not in entry:
                raise RecordError(f"no '{key}' field")
        game, seed = entry["game"], entry["seed"]
        for key, value in (("game", game), ("seed", seed)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise RecordError(f"'{key}' must be a whole number, got {quote(value)}")
        for key in ("time", "opponent"):
            if not isinstance(entry[key], str) or len(entry[key]) > 500:
                raise RecordError(f"'{key}' must be a short string, got {quote(entry[key])}")
        try:
            computer = Arrangement.parse(_cards(entry["computer"], "computer"), rules)
            result = showdown(player, computer, deal)
        except (ArrangementError, CardError) as exc:
            raise RecordError(f"'computer': {exc}") from None
        points = entry["points"]
        if not isinstance(points, dict) or points.get("player") != result.points_a \
                or points.get("computer") != result.points_b:
            raise RecordError(f"'points' {quote(points)} are not the show-down's "
                              f"({result.points_a:g} : {result.points_b:g})")
        hints = entry.get("hints", [])
        if not isinstance(hints, list) or not all(isinstance(h, str) and len(h) <= 40 for h in hints) \
                or len(hints) > 1000:
            raise RecordError("'hints' must be a list of advice commands")
        regret = entry.get("regret")
        if regret is not None and (isinstance(regret, bool) or not isinstance(regret, (int, float))
                                   or not 0 <= regret < 1e6):
            raise RecordError(f"'regret' must be null or a number of points, got {quote(regret)}")
        slot_regret = entry.get("slot_regret")
        if slot_regret is not None and not (isinstance(slot_regret, list) and len(slot_regret) == len(result.slots)
                                            and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                    and abs(x) < 1e6 for x in slot_regret)):
            raise RecordError(f"'slot_regret' must be null or a number of points per slot, got {quote(slot_regret)}")
        mix = entry.get("mix")
        if mix is not None and not (isinstance(mix, str) and len(mix) == 16
                                    and all(c in "0123456789abcdef" for c in mix)):
            raise RecordError(f"'mix' must be null or a mix's hash (16 hex digits), got {quote(mix)}")
        return cls(game=game, seed=seed, time=entry["time"], opponent=entry["opponent"], deal=deal, player=player,
                   computer=computer, showdown=result, hints=tuple(hints),
                   regret=None if regret is None else float(regret),
                   slot_regret=None if slot_regret is None else tuple(float(x) for x in slot_regret), mix=mix)


def is_resigned(entry: object) -> bool:
    """Whether a decoded record is of a game resigned before its show-down (``resigned_record``)."""
    return isinstance(entry, dict) and entry.get("resigned") is not None


def resigned_record(*, game: int, seed: int, time: str, opponent: str, deal: Deal, player: Arrangement | None,
                    computer: Arrangement | None, by: str, hints: tuple[str, ...] = ()) -> dict[str, object]:
    """The record of a game resigned before its show-down, from the player's side: ``by`` is
    ``"player"`` or ``"computer"`` (the side that resigned); the resigner's arrangement is
    left out, the other's given only if it had confirmed; the other side scores every slot's
    points (``Rules.game_points``), the resigner none."""
    rules = deal.rules
    lists = {side: None if arr is None or side == by else arr.card_lists(rules)
             for side, arr in (("player", player), ("computer", computer))}
    won = rules.game_points
    return {"game": game, "seed": seed, "time": time, "rules": rules_fingerprint(rules), "opponent": opponent,
            "exposed": format_cards(deal.exposed, rules.deck).split(), "resigned": by, **lists,
            "points": {"player": 0.0 if by == "player" else float(won), "computer": 0.0 if by == "computer"
                       else float(won)},
            "slots": [], "hints": list(hints), "regret": None, "slot_regret": None, "mix": None}


def append_record(path: str | Path, record: GameRecord) -> None:
    """Append ``record`` as one JSON line (written and flushed at once)."""
    line = json.dumps(record.to_dict(), ensure_ascii=True, separators=(", ", ": "))
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def _cards(value: object, what: str) -> str | list[str]:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, (str, list)) for v in value):
        return [v if isinstance(v, str) else " ".join(str(c) for c in v) for v in value]
    raise RecordError(f"'{what}' must be a string or a list")


def _player_game(entry: object, rules: Rules, fingerprint: str) -> tuple[Deal, Arrangement]:
    if not isinstance(entry, dict):
        raise RecordError("expected a JSON object with 'exposed' and 'player'")
    for key in ("exposed", "player"):
        if key not in entry:
            raise RecordError(f"no '{key}' field")
    if "rules" in entry and entry["rules"] != fingerprint:
        raise RecordError(f"played under other rules ({quote(entry['rules'])}), not {fingerprint!r}")
    exposed = _cards(entry["exposed"], "exposed")
    try:
        deal = Deal.from_exposed(exposed, rules)
        arrangement = Arrangement.parse(_cards(entry["player"], "player"), rules)
        arrangement.validate(deal)
    except (ArrangementError, CardError) as exc:
        raise RecordError(str(exc)) from None
    return deal, arrangement


def read_player_games(path: str | Path, rules: Rules) -> list[tuple[Deal, Arrangement]]:
    """Each record's deal and the player's arrangement, validated; blank lines and resigned games are skipped.

    Raises ``RecordError`` naming the file and line for a missing file, a line that is not a
    JSON object with ``exposed`` and ``player``, an illegal arrangement, other rules, or a
    file without records.
    """
    fingerprint = rules_fingerprint(rules)
    games = []
    for number, entry in read_json_lines(path, RecordError, "records file"):
        if is_resigned(entry):
            continue
        try:
            games.append(_player_game(entry, rules, fingerprint))
        except RecordError as exc:
            raise RecordError(f"{path}: line {number}: {exc}") from None
    if not games:
        raise RecordError(f"{path}: no records")
    return games


def player_games_from_json(entries: object, rules: Rules, *, where: str = "style",
                           limit: int | None = None) -> list[tuple[Deal, Arrangement]]:
    """Each record's deal and the player's arrangement from already-decoded JSON (a list of
    objects with ``exposed`` and ``player``, as a records file holds them line by line);
    ``RecordError`` naming ``where`` and the record's number.  At most ``limit`` records."""
    if not isinstance(entries, list) or not entries:
        raise RecordError(f"{where}: expected a non-empty list of game records (objects with 'exposed' and 'player')")
    if limit is not None and len(entries) > limit:
        raise RecordError(f"{where}: at most {limit:,} records, got {len(entries):,}")
    fingerprint = rules_fingerprint(rules)
    games = []
    for number, entry in enumerate(entries, start=1):
        if is_resigned(entry):
            continue
        try:
            games.append(_player_game(entry, rules, fingerprint))
        except RecordError as exc:
            raise RecordError(f"{where}: record {number}: {exc}") from None
    if not games:
        raise RecordError(f"{where}: every game among the records was resigned: none has a show-down")
    return games


def read_records(path: str | Path, rules: Rules, *, skip_other_rules: bool = False) -> list[GameRecord]:
    """The whole records of a file (``GameRecord.from_dict`` line by line; blank lines are
    skipped); ``RecordError`` naming the file and the line, or a missing file.
    Resigned games are skipped.  ``skip_other_rules``: records of other rules are left out (the games' own records file
    holds every rule set played), not refused."""
    fingerprint = rules_fingerprint(rules)
    records = []
    for number, entry in read_json_lines(path, RecordError, "records file"):
        if is_resigned(entry) or (skip_other_rules and isinstance(entry, dict)
                                  and entry.get("rules", fingerprint) != fingerprint):
            continue
        try:
            records.append(GameRecord.from_dict(entry, rules))
        except RecordError as exc:
            raise RecordError(f"{path}: line {number}: {exc}") from None
    return records


def records_from_json(entries: object, rules: Rules, *, where: str = "records",
                      limit: int | None = None) -> list[GameRecord]:
    """Whole records from decoded JSON (a list of ``to_dict`` objects); ``RecordError`` naming
    ``where`` and the record's number.  At most ``limit`` records."""
    if not isinstance(entries, list):
        raise RecordError(f"{where}: expected a list of game records")
    if limit is not None and len(entries) > limit:
        raise RecordError(f"{where}: at most {limit:,} records, got {len(entries):,}")
    records = []
    for number, entry in enumerate(entries, start=1):
        if is_resigned(entry):
            continue
        try:
            records.append(GameRecord.from_dict(entry, rules))
        except RecordError as exc:
            raise RecordError(f"{where}: record {number}: {exc}") from None
    return records
