"""quintet-play: the game session state machine, the computer, and scripted games through stdin."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from deals import EXAMPLE, QUICK
from hypothesis import given, settings
from hypothesis import strategies as st
from programs import Ran, run_main
from tmux_pane import Pane

from quintet.cards import format_cards, parse_cards
from quintet.fingerprint import rules_fingerprint
from quintet.game import Arrangement, Deal, showdown
from quintet.seeds import seed_rng
from quintet.symmetry import canonical_exposed
from solver.advisor.advice import best_response, complete, grade
from solver.advisor.equilibrium import STORE_KIND, EquilibriumResult, solve_equilibrium
from solver.advisor.plans import plans
from solver.advisor.sparse import SparseEquilibrium
from solver.apps.play_cli import main as play_main
from solver.apps.play_commands import COMMANDS, Command, parse_command
from solver.play.computer import Computer
from solver.play.session import MIX_HINT_ROLL_STREAM, GameSession, Person, Phase, PlayError
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import ArrangementMix, OpponentError, Uniform, greedy_arrangement
from solver.storage.store import SolutionStore

ROOT = Path(__file__).resolve().parent.parent
SEED = 7  # game 1 of --seed 7: exposed As Ks Th 9s 8h 7s 7h


def session(opponent: str = "greedy", seed: int = SEED) -> GameSession:
    deal = Deal.random(seed)
    return GameSession(deal, Computer.choose(deal, opponent, seed=seed), seed=seed)


def arrangement_text(arrangement: Arrangement) -> str:
    return arrangement.format()


def env_for(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # the prompt history, never the user's
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # the games' records
    env["QUINTET_STORE"] = str(tmp_path / "store.sqlite")
    env.pop("NO_COLOR", None)
    return env


def play_process(tmp_path: Path, stdin: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """quintet-play as a process, its stdin a pipe."""
    return subprocess.run([sys.executable, "-m", "solver.apps.play_cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout, env=env_for(tmp_path))


def play(tmp_path: Path, stdin: str, *args: str) -> Ran:
    """quintet-play in this process, as ``play_process`` runs it (the same environment)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "QUINTET_STORE", "NO_COLOR"):
            patch.delenv(name, raising=False)
        for name, value in env_for(tmp_path).items():
            if name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "QUINTET_STORE"):
                patch.setenv(name, value)
        return run_main(play_main, args, stdin)


def error_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("error: ")]


def read_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# ----------------------------------------------------------------------------- commands


def test_parse_command_forms():
    assert parse_command("") is None and parse_command("   ") is None
    assert parse_command("SLOT 5 Ah Kh Qh Jh Th") == Command("slot", 5, "Ah Kh Qh Jh Th")
    assert parse_command("clear 2") == Command("clear", 2)
    assert parse_command("slot\t3\tAh Kh Qh Jh Th") == Command("slot", 3, "Ah Kh Qh Jh Th")
    assert parse_command("play a | b") == Command("play", None, "a | b")
    assert parse_command("hint 3") == Command("hint", k=3) and str(Command("hint", k=3)) == "hint 3"
    assert parse_command("hint  007 ") == Command("hint", k=7)
    assert parse_command("swap As, 9c") == Command("swap", text="As 9c") and str(Command("swap", text="As 9c")) == \
        "swap As 9c"
    assert parse_command("review") == Command("review") and parse_command("review 2") == Command("review", k=2)
    assert parse_command("STATS") == Command("stats")
    for name in ("undo", "show", "hint", "grade", "odds", "done", "help", "quit"):
        assert parse_command(f"  {name}  ") == Command(name)


@pytest.mark.parametrize("line, problem", [
    ("foo", "unknown command 'foo' \\(type"),
    ("slto 5 Ah Kh Qh Jh Th", "unknown command 'slto' — did you mean 'slot'\\?"),
    ("grdae", "did you mean 'grade'\\?"),
    ("slot", "needs a slot number"),
    ("slot x Ah", "needs a slot number"),
    ("slot 0 Ah Kh Qh Jh Th", "no slot 0"),
    ("slot 6 Ah Kh Qh Jh Th", "no slot 6"),
    ("slot 3", "needs five cards"),
    ("clear", "needs a slot number"),
    ("clear 2 Ah", "takes only a slot number"),
    ("clear 9", "no slot 9"),
    ("undo 2", "takes no arguments"),
    ("done now", "takes no arguments"),
    ("play", "needs five packets"),
    ("hint 0", "hint K: max support must be an integer from 1 to 1000, got 0"),
    ("hint 1001", "from 1 to 1000"),
    ("hint x", "'hint' takes nothing or a number K of arrangements"),
    ("hint 3 4", "a number K"),
    ("hint -2", "a number K"),
    ("swap As", "'swap' needs two cards, e.g. 'swap As 9c', got 'As'"),
    ("swap", "'swap' needs two cards"),
    ("swap As 9c 8d", "needs two cards"),
    ("review x", "'review' takes nothing or a game number"),
    ("review 0", "a game number"),
    ("stats now", "takes no arguments"),
])
def test_parse_command_errors_name_the_problem(line, problem):
    with pytest.raises(PlayError, match=problem):
        parse_command(line)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_parse_command_never_fails_otherwise(line):
    try:
        command = parse_command(line)
    except PlayError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    if command is not None:
        assert command.name in COMMANDS
        assert parse_command(str(command)) == command  # the canonical spelling reads back


# ----------------------------------------------------------------------------- the session


def test_place_clear_undo_and_their_errors():
    game = session()
    deal = game.deal
    live = parse_cards(format_cards(deal.live))
    packet = " ".join(format_cards(1 << c) for c in live[:5])
    other = " ".join(format_cards(1 << c) for c in live[5:10])
    assert game.can_place(1, packet) and not game.can_undo() and not game.can_clear(1)
    move = game.place(1, packet)
    assert move.slot == 1 and move.before == 0 and game.placed == {1: move.after}
    assert game.unplaced == deal.live & ~move.after
    with pytest.raises(PlayError, match="already in slot 1"):
        game.place(2, packet)
    with pytest.raises(PlayError, match="exposed"):
        game.place(2, format_cards(deal.exposed & -deal.exposed) + " " + " ".join(other.split()[:4]))
    with pytest.raises(PlayError, match="5 cards, got 4"):
        game.place(2, " ".join(other.split()[:4]))
    with pytest.raises(PlayError, match="duplicate card"):
        game.place(2, " ".join(other.split()[:4] + other.split()[:1]))
    with pytest.raises(PlayError, match="no slot 7"):
        game.place(7, other)
    game.place(1, other)  # replacing a slot's packet is a move too
    game.place(2, packet)
    game.clear(1)
    assert game.placed == {2: move.after}
    (undone,) = game.undo()  # the clear
    assert undone.slot == 1 and game.placed[1] == undone.after
    game.undo()  # slot 2 placed
    game.undo()  # slot 1 replaced
    assert game.placed == {1: move.after}
    game.undo()
    assert game.placed == {} and not game.can_undo()
    with pytest.raises(PlayError, match="nothing to undo"):
        game.undo()
    with pytest.raises(PlayError, match="already empty"):
        game.clear(3)


def test_hint_completes_the_placed_slots_optimally():
    game = session("uniform")
    best = game.hint()
    reference = best_response(game.deal, Uniform())
    assert best.optimal and best.expected_margin == pytest.approx(reference.expected_margin)
    # keep a worse packet in slot 5: the hint completes around it
    weak = game.deal.live
    packet = 0
    for c in parse_cards(format_cards(weak))[:5]:
        packet |= 1 << c
    game.place(5, packet)
    hinted = game.hint()
    assert hinted.arrangement.packets[4] == packet
    assert hinted.expected_margin == pytest.approx(complete(game.deal, {5: packet}, Uniform()).expected_margin)
    assert hinted.expected_margin <= best.expected_margin + 1e-9
    assert game.hints == ["hint", "hint"]


def test_swap_moves_two_cards_between_slots_as_one_step():
    game = session("greedy")
    mine = best_response(game.deal, "greedy").arrangement
    for s, packet in enumerate(mine.packets, start=1):
        game.place(s, packet)
    a, b = (format_cards(p & -p) for p in (mine.packets[0], mine.packets[3]))  # a card of slot 1, one of slot 4
    assert game.can_swap(a, b) and not game.can_swap(a, a)
    moves = game.swap(a, b)
    assert [m.slot for m in moves] == [1, 4]
    assert game.slots[0] == mine.packets[0] ^ parse_mask(a) ^ parse_mask(b)
    assert game.slots[3] == mine.packets[3] ^ parse_mask(a) ^ parse_mask(b)
    g = game.grade()  # the grade's best swap is one 'swap' away
    if g.best_swap is not None:
        game.swap(g.best_swap.card_a, g.best_swap.card_b)
        assert Arrangement(tuple(game.slots)) == g.best_swap.arrangement
        game.undo()
    undone = game.undo()  # one step: both slots back
    assert [m.slot for m in undone] == [1, 4] and tuple(game.slots) == mine.packets
    # one placed card and one not placed: the other takes its place
    game.clear(5)
    loose = format_cards(mine.packets[4] & -mine.packets[4])
    (move,) = game.swap(a, loose)
    assert move.slot == 1 and game.slots[0] == mine.packets[0] ^ parse_mask(a) ^ parse_mask(loose)
    second = format_cards(mine.packets[4] & ~(mine.packets[4] & -mine.packets[4]))[:2]
    assert not any(p & (parse_mask(a) | parse_mask(second)) for p in game.slots)  # both not placed
    for x, y, problem in [(a, second, "neither"), (a, "Zz", "unknown"), (a, a, "twice"),
                          (format_cards(game.deal.exposed & -game.deal.exposed), a, "exposed"),
                          (b, format_cards(game.slots[3] & ~parse_mask(b))[:2], "both in slot 4")]:
        with pytest.raises(PlayError, match=problem):
            game.swap(x, y)


def parse_mask(card: str) -> int:
    (c,) = parse_cards(card)
    return 1 << c


def test_placing_waits_while_a_hint_is_computed(monkeypatch):
    import solver.play.session

    game = session("uniform")
    packet = " ".join(format_cards(game.deal.live).split()[:5])
    game.place(2, packet)
    seen = []

    def spying_complete(*args, **kwargs):
        seen.append((game.phase, game.can_place(1, packet), game.can_undo()))
        with pytest.raises(PlayError, match="a hint is being computed"):
            game.clear(1)
        return complete(*args, **kwargs)

    monkeypatch.setattr(solver.play.session, "complete", spying_complete)
    game.hint()
    assert seen == [(Phase.HINTING, False, False)] and game.phase is Phase.PLACING
    assert game.can_undo() and game.can_clear(2)


def test_grade_odds_and_phase_rules():
    game = session("greedy")
    with pytest.raises(PlayError, match="slots 1, 2, 3, 4, 5 are still empty"):
        game.grade()
    with pytest.raises(PlayError, match="still empty"):
        game.confirm()
    greedy = greedy_arrangement(DealTables.build(game.deal))
    odds = game.odds()
    assert all(len(slot) == 1 and slot[0].probability == pytest.approx(1.0) for slot in odds.slots)  # greedy is pure
    for s, packet in enumerate(greedy.packets, start=1):
        game.place(s, packet)
    full = game.hint()  # all five filled: the best arrangement, nothing kept
    assert full.arrangement == best_response(game.deal, game.computer.model).arrangement
    g = game.grade()
    assert g.given.expected_margin == pytest.approx(0.0)  # the mirror of greedy ties every slot
    assert g.regret == pytest.approx(grade(game.deal, greedy, game.computer.model).regret)
    assert game.hints == ["odds", "hint", "grade"]
    laid = game.confirm()
    assert laid == greedy and game.phase is Phase.SHOWDOWN
    for action in (lambda: game.place(1, greedy.packets[0]), game.undo, game.hint, lambda: game.clear(1)):
        with pytest.raises(PlayError, match="show-down is under way"):
            action()
    with pytest.raises(PlayError, match="still placing"):
        session().reveal()


def test_show_down_slot_by_slot_and_record():
    game = session("uniform")
    tables = DealTables.build(game.deal)
    mine = best_response(game.deal, Uniform(), tables=tables).arrangement
    with pytest.raises(PlayError, match="illegal arrangement"):
        game.confirm(Arrangement(mine.packets[:4] + mine.packets[:1]))
    assert not game.can_confirm() and game.can_confirm(mine) and game.arrangement is None
    game.confirm(mine.format())
    assert game.arrangement == mine and not game.can_confirm(mine)
    expected = showdown(mine, game.computer.arrangement, game.deal)
    totals = []
    while game.phase is Phase.SHOWDOWN:
        r = game.reveal()
        totals.append((r.player_points, r.computer_points))
    assert len(totals) == 5 and game.phase is Phase.OVER
    assert totals[-1] == (expected.points_a, expected.points_b)
    assert [t[0] for t in totals] == list(np.cumsum([s.points_a for s in expected.slots]))
    d = game.record().to_dict()
    assert d["points"] == {"player": expected.points_a, "computer": expected.points_b}
    assert d["player"] == mine.card_lists() and d["seed"] == SEED and d["regret"] == pytest.approx(0, abs=1e-9)
    with pytest.raises(PlayError, match="game is over"):
        game.reveal()


def test_the_computer_sides():
    deal = Deal.random(3)
    tables = DealTables.build(deal)
    assert Computer.choose(deal, "greedy").arrangement == greedy_arrangement(tables)
    a = Computer.choose(deal, "uniform", seed=1).arrangement
    a.validate(deal)
    assert a == Computer.choose(deal, "uniform", seed=1).arrangement  # seeded
    assert a != Computer.choose(deal, "uniform", seed=2).arrangement
    br = Computer.choose(deal, "br:uniform")
    assert br.arrangement == best_response(deal, "uniform", tables=tables).arrangement
    assert Computer.choose(deal, "uniform:0.5,greedy:0.5").arrangement == \
        best_response(deal, "uniform:0.5,greedy:0.5", tables=tables).arrangement
    with pytest.raises(OpponentError, match="unknown opponent"):
        Computer.choose(deal, "bogus")
    with pytest.raises(OpponentError, match="equilibrium provider"):
        Computer.choose(deal, "equilibrium")


def test_against_a_person_the_other_packets_are_faced_after_the_confirm():
    deal = Deal.random(SEED)
    tables = DealTables.build(deal)
    mine = best_response(deal, Uniform(), tables=tables).arrangement
    theirs = greedy_arrangement(tables)
    game = GameSession(deal, Person(), seed=SEED)
    assert not game.advice and not game.regret_known and game._tables is None  # nothing built without advice
    with pytest.raises(PlayError, match="no advice"):
        game.hint()
    game.confirm(mine)
    assert game.phase is Phase.WAITING and game.other is None
    for action in (game.reveal, lambda: game.confirm(mine)):
        with pytest.raises(PlayError, match="the other side has not shown"):
            action()
    with pytest.raises(PlayError, match="the other side's arrangement: illegal"):
        game.face(Arrangement(theirs.packets[:4] + theirs.packets[:1]))
    game.face(theirs.format())
    assert game.phase is Phase.SHOWDOWN and game.other == theirs
    while game.phase is Phase.SHOWDOWN:
        game.reveal()
    assert game._tables is None
    record = game.record().to_dict()
    expected = showdown(mine, theirs, deal)
    assert record["opponent"] == "friend" and record["regret"] is None
    assert record["computer"] == theirs.card_lists() and record["points"]["player"] == expected.points_a
    with pytest.raises(PlayError, match="no regret"):
        game.regret()
    # a person with a model to give advice against (a table gives the deal's equilibrium)
    advised = GameSession(deal, Person(model=Uniform()))
    assert advised.advice and advised.hint().expected_margin == pytest.approx(
        best_response(deal, Uniform(), tables=tables).expected_margin)


def test_play_out_is_the_confirm_face_and_reveals_of_a_game():
    deal = Deal.random(SEED)
    tables = DealTables.build(deal)
    mine = best_response(deal, Uniform(), tables=tables).arrangement
    theirs = greedy_arrangement(tables)
    # against a person: their packets are needed, checked before anything changes
    game = GameSession(deal, Person(), seed=SEED)
    assert game.can_play_out(mine, theirs) and not game.can_play_out(mine)
    with pytest.raises(PlayError, match="not known yet"):
        game.play_out(mine)
    with pytest.raises(PlayError, match="the other side's arrangement: illegal"):
        game.play_out(mine, Arrangement(theirs.packets[:4] + theirs.packets[:1]))
    assert game.phase is Phase.PLACING and game.arrangement is None  # refused: nothing laid
    reveals = game.play_out(mine.format(), theirs.format())
    expected = showdown(mine, theirs, deal)
    assert game.phase is Phase.OVER and [r.result for r in reveals] == list(expected.slots)
    assert (reveals[-1].player_points, reveals[-1].computer_points) == (expected.points_a, expected.points_b)
    assert [r.player_points for r in reveals] == list(np.cumsum([s.points_a for s in expected.slots]))
    # against the computer: its packets are laid already, another arrangement is refused
    against = session("greedy")
    with pytest.raises(PlayError, match="laid already"):
        against.play_out(mine, theirs)
    with pytest.raises(PlayError, match="still empty"):
        against.play_out()
    against.place(1, mine.packets[0])
    assert not against.can_play_out()
    shown = against.play_out(mine)
    assert shown[-1].player_points == showdown(mine, against.computer.arrangement, against.deal).points_a
    with pytest.raises(PlayError, match="game is over"):
        against.play_out(mine)


def test_a_computer_resumed_keeps_its_arrangement_and_model():
    deal = Deal.random(3)
    for spec in ("greedy", "uniform", "br:uniform"):
        chosen = Computer.choose(deal, spec, seed=5)
        again = Computer.resume(deal, spec, chosen.arrangement, chosen.description)
        assert again == chosen
    drawn = Computer.choose(deal, "uniform", seed=5).arrangement
    other = Computer.resume(deal, "uniform", Computer.choose(deal, "uniform", seed=6).arrangement, "")
    assert other.arrangement != drawn  # nothing is drawn again: the arrangement given is kept
    with pytest.raises(OpponentError, match="equilibrium provider"):
        Computer.resume(deal, "equilibrium", drawn, "")


def prefilled_store(path: Path) -> tuple[Deal, EquilibriumResult]:
    """A store holding a (made-up, certified-looking) equilibrium mix for a canonical deal."""
    deal = Deal.from_exposed(EXAMPLE)
    canonical, _ = canonical_exposed(deal.exposed)
    cdeal = Deal(canonical, deal.rules)
    tables = DealTables.build(cdeal)
    mix = (greedy_arrangement(tables), best_response(cdeal, "uniform", tables=tables).arrangement)
    result = EquilibriumResult(deal=cdeal, mix=((0.75, mix[0]), (0.25, mix[1])), exploitability=0.01,
                               proven=True, converged=True, epsilon=0.05, iterations=1, seconds=0.0)
    with SolutionStore(path) as store:
        store.put(rules_fingerprint(cdeal.rules), STORE_KIND, canonical, result.to_record(), 0.01)
    return cdeal, result


def test_equilibrium_computer_plays_a_sample_of_the_stored_mix(tmp_path):
    cdeal, result = prefilled_store(tmp_path / "s.sqlite")

    def provider(deal, stop):
        with SolutionStore(tmp_path / "s.sqlite") as store:
            return solve_equilibrium(deal, epsilon=0.05, store=store, stop_event=stop)

    mix = [a for _, a in result.mix]
    seen = set()
    for seed in range(8):
        computer = Computer.choose(cdeal, "equilibrium", seed=seed, equilibrium=provider)
        assert computer.arrangement in mix and "from the store" in computer.description
        assert isinstance(computer.model, ArrangementMix) and computer.model.name == "equilibrium"
        seen.add(computer.arrangement)
    assert len(seen) == 2  # both arrangements of the mix get played


def test_a_seed_replays_the_game_in_the_terminal_on_the_page_and_from_its_record_across_a_refinement(tmp_path):
    """The computer's draw is fixed by the seed and the deal's kept mix (``played_equilibrium``):
    the terminal (in-process), the tables' task (the page, which draws with a secret seed: here
    given the terminal's) and a replay from the record draw the same arrangement, before and after
    the store's equilibrium is refined."""
    import threading

    from solver.advisor.equilibrium import played_equilibrium
    from solver.apps.serve.tables.tasks import Choose, SeatGame
    from solver.storage.records import GameRecord

    path = tmp_path / "store.sqlite"  # the terminal's $QUINTET_STORE (``env_for``)
    cdeal, first = prefilled_store(path)  # "solved at ε 0.05": the equilibrium the store holds
    refined = replace(first, mix=((0.25, first.mix[0][1]), (0.75, first.mix[1][1])), exploitability=0.0, epsilon=0.0)
    seed = next(s for s in range(100) if first.sample(s) != refined.sample(s))  # a seed the two mixes draw apart

    def provider(deal, stop):
        with SolutionStore(path) as store:
            return played_equilibrium(deal, store=store, stop_event=stop)

    def page() -> Arrangement:
        with SolutionStore(path) as store:
            answer = Choose(SeatGame(cdeal, "equilibrium", seed=seed, equilibrium=0.01), seed).run(
                lambda: store, threading.Event(), lambda _: None)
        return Arrangement.parse(str(answer["arrangement"]), cdeal.rules)

    def terminal(record: Path) -> dict:
        ran = play(tmp_path, f"play {arrangement_text(greedy_arrangement(DealTables.build(cdeal)))}\n",
                   "--exposed", cdeal.format(), "--seed", str(seed), "--record", str(record))
        assert ran.returncode == 0, ran.stderr
        return read_records(record)[-1]

    drawn = first.sample(seed)
    assert page() == drawn
    d = terminal(tmp_path / "games.jsonl")
    assert Arrangement.parse(d["computer"]) == drawn and d["mix"] == provider(cdeal, None).mix_hash
    with SolutionStore(path) as store:  # quintet-solve --epsilon 0 refines the store's equilibrium
        store.put(rules_fingerprint(cdeal.rules), STORE_KIND, canonical_exposed(cdeal.exposed)[0],
                  refined.to_record(), 0.0)
        assert solve_equilibrium(cdeal, epsilon=0, store=store).mix == refined.mix
    assert page() == drawn and Arrangement.parse(terminal(tmp_path / "again.jsonl")["computer"]) == drawn
    record = GameRecord.from_dict(d, cdeal.rules)  # a replay from the record: its seed, its mix
    replayed = Computer.choose(record.deal, record.opponent, seed=record.seed, equilibrium=provider)
    assert replayed.arrangement == record.computer and replayed.equilibrium.mix_hash == record.mix


# ----------------------------------------------------------------------------- through stdin


@pytest.mark.subprocess
def test_full_game_from_play_and_its_record(tmp_path):
    """A game from one `play`; the record's points recomputed by `quintet showdown`."""
    deal = Deal.random(SEED)
    mine = best_response(deal, "uniform").arrangement
    record = tmp_path / "games.jsonl"
    proc = play_process(tmp_path, f"hint\nplay {arrangement_text(mine)}\n", "--seed", str(SEED),
                        "--opponent", "uniform", "--record", str(record))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr and not error_lines(proc.stdout)
    assert "Show-down:" in proc.stdout and "Match over after 1 game" in proc.stdout
    (d,) = read_records(record)
    for key in ("exposed", "player", "computer", "points", "slots", "hints", "seed", "time", "regret", "opponent"):
        assert key in d
    assert d["hints"] == ["hint"] and d["seed"] == SEED and d["opponent"] == "uniform"
    assert Arrangement.parse(d["player"]) == mine
    assert [s["points"] for s in d["slots"]] == [3, 4, 5, 6, 7]
    check = subprocess.run(
        [sys.executable, "-m", "quintet.cli", "showdown", "--exposed", " ".join(d["exposed"]),
         "--a", " | ".join(" ".join(p) for p in d["player"]), "--b", " | ".join(" ".join(p) for p in d["computer"]),
         "--json"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert check.returncode == 0, check.stderr
    recomputed = json.loads(check.stdout)
    assert d["points"] == {"player": recomputed["points_a"], "computer": recomputed["points_b"]}
    assert [s["winner"] for s in d["slots"]] == [
        {"A": "player", "B": "computer", None: None}[s["winner"]] for s in recomputed["slots"]]
    assert f"Game 1: you {d['points']['player']:g}, computer {d['points']['computer']:g}" in proc.stdout


def test_game_built_slot_by_slot_with_undo_and_clear(tmp_path):
    deal = Deal.random(SEED)
    packets = [format_cards(p) for p in best_response(deal, "greedy").arrangement.packets]
    script = "\n".join([
        f"slot 1 {packets[4]}",  # the wrong slot: taken back
        "undo",
        f"slot 1 {packets[0]}", f"slot 2 {packets[1]}", f"slot 3 {packets[2]}",
        "clear 3", "undo",  # slot 3 back
        f"slot 4 {packets[3]}", "clear 4", f"slot 4 {packets[3]}",
        "show", "odds", "hint",
        f"slot 5 {packets[4]}", "grade", "done",
    ]) + "\n"
    record = tmp_path / "games.jsonl"
    proc = play(tmp_path, script, "--seed", str(SEED), "--opponent", "greedy", "--record", str(record))
    assert proc.returncode == 0, proc.stderr
    assert not error_lines(proc.stdout), proc.stdout
    (d,) = read_records(record)
    assert [" ".join(p) for p in d["player"]] == [format_cards(m) for m in parse_packets(packets)]
    assert d["hints"] == ["odds", "hint", "grade"]
    assert d["regret"] == pytest.approx(0.0, abs=1e-9)  # the best response to greedy, so no regret
    assert "Undone: slot 1 is empty again." in proc.stdout
    assert f"Undone: slot 3 holds {packets[2]} again." in proc.stdout
    assert "regret 0.00" in proc.stdout and "you win by" in proc.stdout


def parse_packets(packets: list[str]) -> list[int]:
    return list(Arrangement.parse(" | ".join(packets)).packets)


def test_no_hints_refuses_the_advice_and_records_none(tmp_path):
    mine = best_response(Deal.random(SEED), "greedy").arrangement
    record = tmp_path / "games.jsonl"
    ran = play(tmp_path, f"hint\ngrade\nodds\nplay {arrangement_text(mine)}\n", "--seed", str(SEED), "--opponent",
               "greedy", "--no-hints", "--record", str(record))
    assert ran.returncode == 0, ran.stderr
    assert error_lines(ran.stdout) == [f"error: '{name}': hints, grades and odds are off in this match (--no-hints)"
                                       for name in ("hint", "grade", "odds")]
    assert read_records(record)[0]["hints"] == []


def test_every_bad_command_gets_one_line_and_the_prompt_again(tmp_path):
    deal = Deal.random(SEED)
    exposed = format_cards(deal.exposed).split()
    mine = best_response(deal, "greedy").arrangement
    live = format_cards(deal.live).split()
    bad = [
        ("frobnicate", "unknown command 'frobnicate'"),
        ("slot", "needs a slot number"),
        ("slot 9 " + " ".join(live[:5]), "no slot 9"),
        ("slot 1 " + " ".join(live[:4]), "a packet has 5 cards, got 4"),
        ("slot 1 " + " ".join(live[:6]), "a packet has 5 cards, got 6"),
        ("slot 1 Zz " + " ".join(live[:4]), "unknown suit"),
        ("slot 1 2h " + " ".join(live[:4]), "not in the 32-card deck"),
        ("slot 1 " + " ".join(live[:4] + live[:1]), "duplicate card"),
        ("slot 1 " + " ".join(exposed[:1] + live[:4]), "exposed"),
        ("clear 2", "already empty"),
        ("clear x", "needs a slot number"),
        ("undo", "nothing to undo"),
        ("undo please", "takes no arguments"),
        ("grade", "still empty"),
        ("done", "still empty"),
        ("play", "needs five packets"),
        ("play " + " ".join(live[:5]), "5 packets"),
        ("play " + arrangement_text(Arrangement(mine.packets[:4] + mine.packets[:1])), "duplicated"),
        ("hint 0", "hint K: max support must be an integer from 1 to 1000, got 0"),
        ("hint x", "'hint' takes nothing or a number K of arrangements (e.g. 'hint 3'), got 'x'"),
        ("hint 2", "'hint K' mixes K arrangements against the equilibrium"),  # the computer plays greedy
        ("slot 1 " + " ".join(live[:5]), None),  # legal: then a clash with it
        ("slot 2 " + " ".join(live[:5]), "already in slot 1"),
    ]
    script = "\n".join(line for line, _ in bad) + f"\nplay {arrangement_text(mine)}\n"
    proc = play(tmp_path, script, "--seed", str(SEED), "--opponent", "greedy")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    errors = error_lines(proc.stdout)
    expected = [problem for _, problem in bad if problem]
    assert len(errors) == len(expected), "\n".join(errors)
    for line, problem in zip(errors, expected, strict=True):
        assert problem in line
    lines = proc.stdout.splitlines()
    for i, line in enumerate(lines):  # each error is followed by the prompt
        if line.startswith("error: "):
            assert lines[i + 1].startswith("game 1 ("), lines[i + 1]
    assert "Match over after 1 game" in proc.stdout


def test_end_of_input_keeps_the_finished_games(tmp_path):
    record = tmp_path / "games.jsonl"
    first = best_response(Deal.random(SEED), "greedy").arrangement
    proc = play(tmp_path, f"play {arrangement_text(first)}\nslot 1 ", "--seed", str(SEED), "--games", "3",
                "--opponent", "greedy", "--record", str(record))
    assert proc.returncode == 0, proc.stderr
    assert "Game 2 was not finished; it is not recorded." in proc.stdout
    assert len(read_records(record)) == 1 and "Match over after 1 game" in proc.stdout
    quit_early = play(tmp_path, "quit\n", "--seed", "1", "--opponent", "greedy")
    assert quit_early.returncode == 0 and "Game 1 was not finished" in quit_early.stdout
    assert "Match over" not in quit_early.stdout


def test_twenty_game_match_against_greedy_runs_unattended(tmp_path):
    seed = 100
    lines = [f"play {arrangement_text(best_response(Deal.random(seed + k), 'greedy').arrangement)}"
             for k in range(20)]
    record = tmp_path / "match.jsonl"
    proc = play(tmp_path, "\n".join(lines) + "\n", "--seed", str(seed), "--games", "20", "--opponent", "greedy",
                "--record", str(record))
    assert proc.returncode == 0, proc.stderr
    records = read_records(record)
    assert [r["game"] for r in records] == list(range(1, 21))
    assert [r["seed"] for r in records] == list(range(seed, seed + 20))
    you = sum(r["points"]["player"] for r in records)
    them = sum(r["points"]["computer"] for r in records)
    assert you > them  # a best response to greedy never loses to it
    assert all(r["points"]["player"] >= r["points"]["computer"] for r in records)
    assert f"Match over after 20 games: you {you:g}, computer {them:g}" in proc.stdout


def test_equilibrium_opponent_from_the_store(tmp_path):
    cdeal, result = prefilled_store(tmp_path / "s.sqlite")
    mine = best_response(cdeal, result.opponent()).arrangement
    record = tmp_path / "games.jsonl"
    proc = play(tmp_path, f"odds\nplay {arrangement_text(mine)}\n", "--exposed", cdeal.format(), "--seed", "3",
                "--store", str(tmp_path / "s.sqlite"), "--record", str(record))
    assert proc.returncode == 0, proc.stderr
    assert "from the store" in proc.stdout and "mix of 2 arrangements" in proc.stdout
    assert "(its model: equilibrium)" in proc.stdout and "75.0%" in proc.stdout
    (d,) = read_records(record)
    assert Arrangement.parse(d["computer"]) in [a for _, a in result.mix]
    assert d["opponent"] == "equilibrium"


def test_hint_k_and_the_equilibrium_s_plans_through_stdin(tmp_path, monkeypatch):
    """Against the equilibrium, 'odds' shows its plans and 'hint K' the K-mix found from the same
    equilibrium in-process, with the die roll of the game's seed; against greedy, no plans."""
    exposed, seed = "Kc Qh Qd Js 9d 8s 7d", 3  # its equilibrium solves in seconds
    hinted: list[SparseEquilibrium] = []  # the K-mixes the game found (kept, not searched for again)
    mix_hint = GameSession.mix_hint
    monkeypatch.setattr(GameSession, "mix_hint", lambda game, k, stop_event=None, progress=None: hinted.append(
        mix_hint(game, k, stop_event, progress)) or hinted[-1])
    proc = play(tmp_path, "odds\nhint 2\nhint 0\nhint\n", "--exposed", exposed, "--seed", str(seed), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    deal = Deal.from_exposed(exposed)
    with SolutionStore(tmp_path / "store.sqlite") as store:  # the equilibrium the game solved and stored
        eq = solve_equilibrium(deal, epsilon=0.05, store=store)
    assert eq.from_store
    found = plans(eq.mix, deal.rules)
    assert f"Its plans (hand category per slot): {len(eq.mix)} arrangements in {len(found)} plans" in proc.stdout
    rows = [line.split() for line in proc.stdout.splitlines()]
    for plan in found[:5]:  # the five most likely, one row each: share, count, a category per slot
        assert [f"{100 * plan.probability:.1f}%", str(plan.arrangements), *" ".join(plan.labels).split()] in rows
    (sp,) = hinted  # 'hint 0' is refused before any search
    assert sp.max_support == 2 and sp.deal == deal  # from the stored equilibrium, the one the computer plays:
    assert (sp.equilibrium_exploitability, sp.equilibrium_support) == (eq.exploitability, len(eq.mix))
    assert 1 <= len(sp.mix) <= 2
    roll = sp.roll(seed, MIX_HINT_ROLL_STREAM)  # not the computer's draw: the seed's first number
    assert roll.value != float(seed_rng(seed).random())
    assert "Hint: a mix of at most 2 arrangements against the equilibrium — " in proc.stdout
    assert ("best found (not proven the best)" in proc.stdout) == (not sp.optimal and sp.method != "equilibrium")
    for i, (p, _) in enumerate(sp.mix, start=1):
        assert f"  {i}  {100 * p:.1f}%  " in proc.stdout
    assert (f"Die roll (seed {seed}, the hints' stream): {roll.value:.4f} falls in arrangement "
            f"{roll.index + 1}'s share "
            f"[{roll.low:.4f}, {roll.high:.4f}): play it.") in proc.stdout
    assert f"To play it: play {sp.mix[roll.index][1].format()}" in proc.stdout
    assert (f"Exploitability {sp.exploitability:.4f} (certified: no arrangement gains more against the mix); "
            f"the full equilibrium {eq.exploitability:.4f} with {len(eq.mix)} arrangements.") in proc.stdout
    assert error_lines(proc.stdout) == ["error: hint K: max support must be an integer from 1 to 1000, got 0"]
    assert "Hint against the computer's model (equilibrium)" in proc.stdout  # 'hint' alone: the completion
    game = session("greedy")
    assert game.odds().plans == () and game.equilibrium is None
    with pytest.raises(PlayError, match="against the equilibrium"):
        game.mix_hint(2)


@pytest.mark.parametrize("args, problem", [
    (["--exposed", "Ah Kh"], "expected 7 exposed cards"),
    (["--opponent", "bogus"], "unknown opponent 'bogus'"),
    (["--opponent", "style:/no/such/file.jsonl"], "not found"),
    (["--games", "0"], "games must be an integer from 1 to 100, got 0"),
    (["--record", "/no/such/dir/games.jsonl"], "--record '/no/such/dir/games.jsonl': directory '/no/such/dir' does "
                                               "not exist"),
    (["--record", "/etc/passwd/games.jsonl"], "'/etc/passwd' is not a directory"),
    (["--record", "/"], "--record '/': is a directory"),
    (["--store", "/no/such/dir/s.sqlite"], "--store '/no/such/dir/s.sqlite': directory '/no/such/dir' does not exist"),
    (["--store", "/etc/passwd/s.sqlite"], "'/etc/passwd' is not a directory"),
    (["--store", "x.sqlite", "--no-store"], "cannot be combined"),
    (["--frobnicate"], "unrecognized arguments"),
])
def test_bad_command_lines_are_one_line_exit_2(tmp_path, args, problem):
    proc = play(tmp_path, "", "--seed", "1", *args)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and problem in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.subprocess
def test_ctrl_c_stops_the_computer_s_solve_not_the_game(tmp_path):
    """SIGINT during an on-the-spot equilibrium solve: the best mix so far is played."""
    deal = Deal.from_exposed(EXAMPLE)
    mine = best_response(deal, "uniform").arrangement
    record = tmp_path / "games.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver.apps.play_cli", "--exposed", EXAMPLE, "--no-store", "--epsilon", "1e-9",
         "--seed", "1", "--record", str(record)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env=env_for(tmp_path))
    assert proc.stderr is not None and proc.stdin is not None
    for line in proc.stderr:  # progress lines: the solve is under way
        if "iteration 2," in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(f"play {arrangement_text(mine)}\n", timeout=300)
    assert proc.returncode == 0, err
    assert "Traceback" not in out + err
    assert "Ctrl-C: stopping the computer's solve" in out
    assert "equilibrium: a sample from its certified mix" in out and "target not reached" in out
    (d,) = read_records(record)
    assert Arrangement.parse(d["player"]) == mine


def test_rules_help_and_quit_words_and_a_clear_end_when_piped(tmp_path):
    mine = best_response(Deal.random(SEED), "greedy").arrangement
    proc = play(tmp_path, f"rules\n?\nh\nHELP\nplay {arrangement_text(mine)}\n", "--seed", str(SEED),
                "--opponent", "greedy")
    assert proc.returncode == 0 and not error_lines(proc.stdout), proc.stdout
    out = proc.stdout
    assert "\ngame 1 (0/5 placed)> rules\nQuintet (classic, 32 cards" in out
    for part in ("The deal   7 of the 32 cards are dealt face up", "Arranging  each player splits them into 5 packets",
                 "Show-down  slot by slot", "Hands      strongest first: straight flush, four of a kind"):
        assert part in out
    assert out.count("Commands (one per line):") == 3 and "  help, ?, h        this list" in out
    assert "Play another match?" not in out  # piped input: no question, the summary is the end
    last = out.rstrip().splitlines()
    assert last[-2].startswith("Regret: ") and "Match over after 1 game:" in out
    records = Path(env_for(tmp_path)["XDG_DATA_HOME"]) / "quintet" / "games.jsonl"  # recorded by default
    assert last[-1] == (f"Your record ({records}): 1 game recorded: won 1, lost 0, drawn 0; mean regret 0.00 "
                        "against greedy. ('quintet-play stats' for more.)")
    assert len(read_records(records)) == 1
    quit_early = play(tmp_path, "Q\n", "--seed", str(SEED), "--opponent", "greedy")
    assert quit_early.returncode == 0 and "Game 1 was not finished" in quit_early.stdout


def test_an_over_long_line_is_refused_in_one_line_when_piped(tmp_path):
    proc = play(tmp_path, "slot 1 " + "Ah " * 3000 + "\nshow\nquit\n", "--seed", str(SEED), "--opponent", "greedy")
    assert proc.returncode == 0
    assert error_lines(proc.stdout) == ["error: a command has at most 1,000 characters; this line has 9,007 (ignored)"]
    assert max(map(len, proc.stdout.splitlines())) < 200  # the echo is cut too
    assert "game 1 (0/5 placed)> show\nThe board" in proc.stdout


def test_the_store_is_checked_before_the_banner_and_made_only_when_needed(tmp_path):
    unused = tmp_path / "s.sqlite"
    for opponent in ("greedy", "uniform", "br:uniform"):
        proc = play(tmp_path, "quit\n", "--seed", "1", "--opponent", opponent, "--store", str(unused))
        assert proc.returncode == 0, proc.stderr
    assert not unused.exists()
    missing = tmp_path / "nonexistent" / "dir" / "s.sqlite"
    for opponent in ("equilibrium", "greedy"):  # a missing directory: refused, even when unused
        proc = play(tmp_path, "quit\n", "--seed", "1", "--opponent", opponent, "--store", str(missing))
        assert proc.returncode == 2 and proc.stdout == "", proc.stdout[:300]
        assert proc.stderr == f"quintet-play: error: --store '{missing}': directory '{missing.parent}' does not exist\n"
    assert not (tmp_path / "nonexistent").exists()
    not_a_store = tmp_path / "notes.sqlite"
    not_a_store.write_text("my notes\n")
    proc = play(tmp_path, "quit\n", "--seed", "1", "--store", str(not_a_store))
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout[:300]
    assert "is not a SQLite database" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not_a_store.read_text() == "my notes\n"


# ----------------------------------------------------------------------------- in a real terminal


def play_pane(tmp_path: Path, *args: str, width: int = 80, height: int = 50) -> Pane:
    """quintet-play in a tmux pane ``width`` columns wide (a cache and store of the test's own)."""
    env = env_for(tmp_path)
    return Pane(tmp_path, [sys.executable, "-m", "solver.apps.play_cli", *args], width=width, height=height,
                cwd=ROOT, env={k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "QUINTET_STORE")})


def fits(pane: Pane, width: int) -> None:
    """Every line the program wrote fits ``width`` columns (the 'play …' line to copy is left whole)."""
    for line in pane.screen(joined=True).split("\n"):
        assert len(line.rstrip()) <= width or line.startswith("To play it: play "), line


@pytest.mark.tmux
def test_a_game_inside_tmux(tmp_path):
    """Coloured Unicode suits, Ctrl-C clears the line, the history recalls, a game completes, and
    after the match the program offers another one: y plays it, quit ends it."""
    mine = best_response(Deal.random(SEED), "greedy").arrangement
    record = tmp_path / "games.jsonl"
    with play_pane(tmp_path, "--seed", str(SEED), "--opponent", "greedy", "--record", str(record),
                   width=150) as pane:
        shown = pane.wait_for("game 1 (0/5 placed)>")
        assert "Your slots:" in shown and "slot 5 (7 pts)" in shown
        for suit in ("♠ spades", "♥ hearts", "♦ diamonds", "♣ clubs"):
            assert suit in shown
        assert "\x1b[" in pane.screen(colours=True) and "31m" in pane.screen(colours=True)  # hearts in red
        pane.type("slo")
        pane.keys("C-c")  # at the prompt: clears the line, the game goes on
        pane.wait_for("(Ctrl-C: type 'quit' or press Ctrl-D to leave)")
        pane.enter(f"slot 1 {format_cards(mine.packets[0])}")
        pane.wait_for("game 1 (1/5 placed)>")
        pane.enter("undo")
        pane.wait_for("Undone: slot 1 is empty again.")
        pane.keys("Up", "Up", "Enter")  # the history brings back 'slot 1 …'
        pane.wait_for("game 1 (1/5 placed)>")
        pane.enter(f"play {arrangement_text(mine)}")
        shown = pane.wait_for("Enter: the match's summary · review · stats · quit>")  # the show-down is read first
        assert "Show-down:" in shown and "Match over" not in shown
        pane.keys("Enter")
        shown = pane.wait_for("Play another match? [y/n]")
        assert "Show-down:" in shown and "Match over after 1 game" in shown and "EXIT" not in shown
        pane.enter("y")
        shown = pane.wait_for(f"Quintet against the computer: 1 game, seed {SEED + 1}.")
        pane.wait_for("game 1 (0/5 placed)>", after=1)
        pane.enter("quit")
        shown = pane.wait_for("EXIT=")
        assert "Game 1 was not finished; it is not recorded." in shown and "EXIT=0" in shown
        assert "Traceback" not in shown and shown.count("Play another match?") == 1
        (d,) = read_records(record)
        assert Arrangement.parse(d["player"]) == mine


def _block(lines: list[str], first: str, end: str) -> list[str]:
    """The lines after the last line starting with ``first`` up to the next one starting with ``end``."""
    start = max(i for i, line in enumerate(lines) if line.startswith(first))
    stop = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(end))
    return lines[start + 1:stop]


@pytest.mark.tmux
@pytest.mark.parametrize("width", [80, 130])
def test_columns_align_and_lines_fit_the_terminal_in_tmux(tmp_path, width):
    """A packet with 10s keeps the columns after it in place; nothing is wrapped mid-word by the
    terminal (only the 'play …' line to copy is left whole); the odds are wrapped between hands
    at 80 columns and use the width at 130."""
    with play_pane(tmp_path, "--seed", str(SEED), "--opponent", "uniform", width=width) as pane:
        pane.wait_for("game 1 (0/5 placed)>")
        pane.enter("slot 1 Ts Td Tc 8s 8d")  # 10♠ 10♦ 10♣ 8♠ 8♦: 17 columns
        pane.enter("slot 2 Ah Kh Qh Jh 9h")  # A♥ K♥ Q♥ J♥ 9♥: 14 columns
        pane.wait_for("game 1 (2/5 placed)>")
        pane.enter("hint")
        pane.wait_for("To play it:")
        pane.enter("odds")
        pane.wait_for("game 1 (2/5 placed)>", after=2)
        lines = pane.lines()
        ten, flush = _block(lines, "Your slots:", "game 1")[:2]
        column = ten.index("full house, tens over eights")
        assert flush.index("flush, ace high") == column and ten[column - 2:column] == "  ", (ten, flush)
        hint = _block(lines, "  slot  cards", "Expected margin")
        header = next(line for line in lines if line.startswith("  slot  cards"))
        hand, win = header.index("hand"), header.index("win") + len("win")
        rows = [row for row in hint if row[2].isdigit()]
        assert len(rows) == 5
        for row in rows:  # every row's hand name and odds under their headers
            assert row[hand - 2:hand] == "  " and row[hand] != " " and row[win - 1] == "%", (header, row)
        assert len(hint) == 5  # one line a slot, even at 80 columns
        odds = _block(lines, "The computer's odds per slot", "game 1")
        assert all(line.endswith("%") for line in odds)  # no hand cut from its odds
        assert len(odds) == (5 if width == 130 else 10) and odds[0].count(" · ") == (3 if width == 130 else 1)
        for line in pane.screen(joined=True).split("\n"):  # what the program wrote, before the terminal wrapped it
            assert len(line.rstrip()) <= width or line.startswith("To play it: play "), line


@pytest.mark.tmux
def test_show_down_colours_each_slot_s_winner_in_tmux(tmp_path):
    """Green for you, red for the computer, dim for a tie, and the same in words; after the match,
    n ends the program."""
    mine = best_response(Deal.random(SEED), "greedy").arrangement  # wins slots 1-3, loses 4, ties 5
    with play_pane(tmp_path, "--seed", str(SEED), "--opponent", "greedy") as pane:
        pane.wait_for("game 1 (0/5 placed)>")
        pane.enter(f"play {arrangement_text(mine)}")
        pane.wait_for("Enter: the match's summary")
        pane.keys("Enter")
        pane.wait_for("Play another match? [y/n]")
        coloured = pane.screen(colours=True)
        for verdict, colour in [("slot 1 (3 pts): \x1b[1m\x1b[32myou win 3", "green"),
                                ("slot 4 (6 pts): \x1b[1m\x1b[31mthe computer wins 6", "red"),
                                ("slot 5 (7 pts): \x1b[2mtie, nobody scores", "dim")]:
            assert verdict in coloured, (colour, coloured[coloured.find("Show-down"):][:2000])
        lines = pane.lines()
        you = next(i for i, line in enumerate(lines) if line.startswith("  slot 1 (3 pts): you win 3 — you 3 : 0"))
        assert lines[you + 1].startswith("    you       ") and lines[you + 2].startswith("    computer  ")
        pane.enter("n")
        shown = pane.wait_for("EXIT=")
        assert "EXIT=0" in shown and "Traceback" not in shown


@pytest.mark.tmux
def test_a_paste_of_two_lines_is_two_commands_in_tmux(tmp_path):
    packets = [format_cards(p) for p in best_response(Deal.random(SEED), "greedy").arrangement.packets]
    with play_pane(tmp_path, "--seed", str(SEED), "--opponent", "greedy") as pane:
        pane.wait_for("game 1 (0/5 placed)>")
        pane.paste(f"slot 1 {packets[0]}\nslot 2 {packets[1]}\n")  # bracketed: the program asked for it
        pane.wait_for("game 1 (2/5 placed)>")
        pane.paste(f"slot 3 {packets[2]}\nslot 4 {packets[3]}")  # the last line unfinished: it waits for Enter
        pane.wait_for("game 1 (3/5 placed)>")
        time.sleep(0.5)
        assert pane.prompt_line() == f"game 1 (3/5 placed)> slot 4 {packets[3]}"
        pane.keys("Enter")
        shown = pane.wait_for("game 1 (4/5 placed)>")
        assert "error" not in shown and f"game 1 (1/5 placed)> slot 2 {packets[1]}" in shown  # shown as run


@pytest.mark.tmux
def test_tab_after_a_slot_offers_no_command_and_another_deal_suggests_nothing_in_tmux(tmp_path):
    """Tab completes the first word only (after 'slot 5 ' come cards); a line of game 1 is not
    suggested in game 2 (its cards are another deal's), a line of game 2 is."""
    mine = best_response(Deal.random(SEED), "greedy").arrangement
    with play_pane(tmp_path, "--seed", str(SEED), "--games", "2", "--opponent", "greedy") as pane:
        prompt = "game 1 (0/5 placed)> "
        pane.wait_for(prompt.rstrip())
        pane.type("slot 5 ")
        pane.keys("Tab")
        time.sleep(0.5)
        assert pane.prompt_line() == prompt + "slot 5"  # nothing completed ('stats', 'show', 'swap' are words)
        pane.keys("C-u")
        pane.type("gr")
        pane.keys("Tab")
        time.sleep(0.5)
        assert pane.prompt_line() == prompt + "grade"  # the first word is completed
        pane.keys("C-u")
        pane.enter(f"slot 5 {format_cards(mine.packets[4])}")
        pane.wait_for("game 1 (1/5 placed)>")
        pane.enter(f"play {arrangement_text(mine)}")
        pane.wait_for("Enter: game 2")
        pane.keys("Enter")
        prompt = "game 2 (0/5 placed)> "
        pane.wait_for(prompt.rstrip())
        pane.type("slot 5")
        time.sleep(0.5)
        assert pane.prompt_line() == prompt + "slot 5"  # no grey suggestion from game 1's deal
        pane.keys("C-u")
        pane.enter("show")
        pane.wait_for("The board")
        time.sleep(1)  # the prompt again, after the board
        pane.type("sh")
        time.sleep(0.5)
        assert pane.prompt_line() == prompt + "show"  # this deal's line is suggested


@pytest.mark.tmux
def test_the_history_holds_only_accepted_lines_in_tmux(tmp_path):
    """A 9,000-character line is refused in one line and never suggested; rejected commands are
    not recalled by Up, accepted ones are."""
    with play_pane(tmp_path, "--seed", str(SEED), "--opponent", "greedy") as pane:
        prompt = "game 1 (0/5 placed)> "
        pane.wait_for(prompt.rstrip())
        pane.enter("x" * 9000)
        pane.wait_for("9,000")
        for line in ("frobnicate", "show", "undo"):  # rejected, accepted, rejected (nothing to undo)
            pane.enter(line)
        pane.wait_for("error: nothing to undo")
        pane.keys("Up")
        time.sleep(0.5)
        assert pane.prompt_line() == prompt + "show"
        pane.keys("Up")  # nothing older
        time.sleep(0.5)
        assert pane.prompt_line() == prompt + "show"
        pane.keys("C-u")
        for typed in ("x", "fro", "sh"):  # no grey suggestion from a refused or rejected line; 'show' is suggested
            pane.type(typed)
            time.sleep(0.5)
            assert pane.prompt_line() == prompt + ("show" if typed == "sh" else typed), typed
            pane.keys("C-u")
        refusal = "error: a command has at most 1,000 characters; this line has 9,000 (ignored)"
        assert pane.screen(joined=True).count(refusal) == 1  # one line
        history = Path(env_for(tmp_path)["XDG_CACHE_HOME"]) / "quintet" / "play-history"
        assert [line for line in history.read_text().splitlines() if line.startswith("+")] == ["+show"]


@pytest.mark.tmux
def test_the_deal_is_shown_while_the_computer_solves_and_ctrl_c_stops_the_wait_in_tmux(tmp_path):
    """The computer's equilibrium is solved in the background: the deal is shown at once, a line
    under the prompt says how far the solve is, slots can be placed meanwhile; a command that
    needs the computer waits for it (the progress on stderr), Ctrl-C then stops the solve — the
    progress line is ended first and no ^C is left."""
    with play_pane(tmp_path, "--exposed", EXAMPLE, "--no-store", "--epsilon", "1e-9", "--seed", "1",
                   height=30) as pane:
        shown = pane.wait_for("The computer's equilibrium solve: iteration ")
        assert "game 1 (0/5 placed)>" in shown and "Exposed (out of play):" in shown
        assert "The computer is choosing its packets (solving the deal's equilibrium)" in shown
        pane.enter("slot 1 Ah Kh Qh Jh Th")  # placing does not wait
        pane.wait_for("game 1 (1/5 placed)>")
        pane.enter("odds")  # the computer's model: wait for it
        pane.wait_for("Waiting for the computer to lay its packets")
        pane.wait_for("quintet-play: equilibrium solve: iteration ")
        pane.keys("C-c")
        shown = pane.wait_for("The computer's odds per slot")
        lines = pane.lines()
        assert any(line.startswith("Ctrl-C: stopping the computer's solve; using the best found so far")
                   for line in lines), "\n".join(lines)
        assert "The computer has laid its packets: it plays equilibrium: a sample from its" in pane.screen(joined=True)
        assert not any("iteration" in line and "Ctrl-C" in line for line in lines)
        assert not any(line.strip() in ("C", "^C") for line in lines)  # the echoed ^C is wiped with the line
        assert "The computer's equilibrium solve" not in pane.screen().split("game 1 (1/5 placed)> odds")[-1]
        pane.enter("quit")
        assert "EXIT=0" in pane.wait_for("EXIT=")


SPOILT = "Ks Kh Ts 9s 8s | 7s 7h 7c Jh Td | Ah Ad As Tc 9c | Qs Jc 8c 9h Th | Jd 8d 8h 9s 7d"


@pytest.mark.tmux
@pytest.mark.parametrize("size", [(80, 30), (120, 40)])
def test_grade_swap_hint_and_hint_k_at_80_and_120_columns_in_tmux(tmp_path, size):
    """The grade's best swap in coloured cards with the command that makes it; 'swap' makes it;
    'hint' with five slots filled is the best arrangement; 'hint 2' never splits a packet."""
    width, height = size
    deal = Deal.from_exposed(QUICK)
    tables = DealTables.build(deal)
    mine = greedy_arrangement(tables)
    with play_pane(tmp_path, "--exposed", QUICK, "--seed", "3", width=width, height=height) as pane:
        pane.wait_for("game 1 (0/5 placed)>")
        for s, packet in enumerate(mine.packets, start=1):
            pane.enter(f"slot {s} {format_cards(packet)}")
        pane.wait_for("game 1 (5/5 placed)>")
        pane.enter("grade")
        pane.wait_for("regret ")
        prompt = "game 1 (5/5 placed)>"
        pane.wait_for(prompt, after=1)
        joined = pane.screen(joined=True)
        swap = next((line for line in joined.split("\n") if line.startswith("To make it: swap ")), None)
        if swap is not None:  # a two-card swap improves it: the line above names it in coloured cards
            assert "Best two-card swap: " in joined and " ↔ " in joined and "<->" not in joined
            assert "\x1b[" in pane.screen(colours=True).split("Best two-card swap: ")[-1].split("\n")[0]
            pane.enter(swap.removeprefix("To make it: "))
            pane.wait_for("Swapped: slot ")
            pane.wait_for(prompt, after=2)
        pane.enter("hint")
        pane.wait_for("Your five slots are full: the best arrangement ('grade' rates yours).")
        pane.wait_for(prompt, after=2 + (swap is not None))
        pane.enter("hint 2")
        pane.wait_for("Die roll (seed 3")
        pane.wait_for(prompt, after=3 + (swap is not None))
        fits(pane, width)
        block = pane.screen(joined=True).split("Hint: a mix of at most 2")[-1].split("Die roll")[0]
        rows = [line for line in block.split("\n") if line.strip().startswith(("slot ", "1 ", "2 "))]
        assert len(rows) == (5 if width == 80 else 2), block  # 80: a column per arrangement; 120: a row each
        pane.enter("quit")
        assert "EXIT=0" in pane.wait_for("EXIT=")


@pytest.mark.tmux
@pytest.mark.parametrize("size", [(80, 30), (120, 40)])
def test_after_a_game_review_and_stats_then_the_next_game_in_tmux(tmp_path, size):
    """After the show-down the program waits: 'review' reviews the game (slots and why, the regret
    against the model and against the equilibrium), 'stats' the statistics of every game recorded,
    Enter the next game."""
    width, height = size
    deal = Deal.from_exposed(QUICK)
    mine = best_response(deal, "uniform").arrangement
    with play_pane(tmp_path, "--exposed", QUICK, "--seed", "3", "--games", "2", "--opponent", "greedy",
                   width=width, height=height) as pane:
        pane.wait_for("game 1 (0/5 placed)>")
        pane.enter(f"play {arrangement_text(mine)}")
        shown = pane.wait_for("Enter: game 2 · review · stats · quit>")
        assert shown.count("Show-down:") == 1 and "Game 2 of 2" not in shown
        pane.enter("review")
        shown = pane.wait_for("Against the equilibrium (certified exploitability")
        pane.wait_for("Enter: game 2 · review · stats · quit>", after=1)
        joined = pane.screen(joined=True)
        assert "Review of game 1 (seed 3, against greedy" in joined
        assert "Against the computer's model (greedy): your expected margin" in joined
        for s in range(1, 6):
            assert f"slot {s} ({s + 2} pts):" in joined.split("Review of game 1")[-1]
        assert any(w in joined for w in (" beats ", "equal hands"))
        pane.enter("stats")
        pane.wait_for("Per slot (the mean regret made there a game")
        pane.wait_for("Enter: game 2 · review · stats · quit>", after=2)
        pane.enter("frobnicate")
        pane.wait_for("error: 'frobnicate': press Enter for game 2, or type review, stats or quit")
        pane.keys("Enter")
        pane.wait_for("game 2 (0/5 placed)>")
        fits(pane, width)
        pane.enter("review 1")  # an earlier game of the match, from the game's prompt
        pane.wait_for("Against the equilibrium (certified exploitability", after=1)
        pane.enter("quit")
        shown = pane.wait_for("EXIT=")
        assert "Game 2 was not finished; it is not recorded." in shown and "EXIT=0" in shown
        records = Path(env_for(tmp_path)["XDG_DATA_HOME"]) / "quintet" / "games.jsonl"
        assert len(read_records(records)) == 1
        assert "Traceback" not in shown


@pytest.mark.tmux
def test_a_puzzle_in_tmux(tmp_path):
    from test_review import store_with

    store_with(Path(env_for(tmp_path)["QUINTET_STORE"]), [3])
    with SolutionStore(Path(env_for(tmp_path)["QUINTET_STORE"])) as store:
        from solver.play.puzzle import pick_puzzle
        puzzle = pick_puzzle(store, Deal.random(3).rules, 1)
    best = puzzle.solve().arrangement
    env = env_for(tmp_path)
    with Pane(tmp_path, [sys.executable, "-m", "solver.apps.play_cli", "puzzle", "--from", "store", "--seed", "1",
                          "--count", "2"],
              width=80, height=30, cwd=ROOT, env={k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME",
                                                                       "QUINTET_STORE")}) as pane:
        pane.wait_for("puzzle 1 (0/5 placed)>")
        pane.enter("hint")
        pane.wait_for("error: no 'hint' in a puzzle")
        pane.enter(f"play {arrangement_text(best)}")
        pane.wait_for("Solved ★★★: no arrangement does better")
        pane.wait_for("puzzle 2 (0/5 placed)>")
        pane.enter("answer")
        shown = pane.wait_for("Puzzles: 2, solved 1, 1 given up; stars 3 of 6")
        assert "The best arrangement: expected margin" in shown
        fits(pane, 80)
        assert "EXIT=0" in pane.wait_for("EXIT=")
