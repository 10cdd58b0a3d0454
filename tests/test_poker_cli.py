"""``quintet poker`` as a person uses it: unattended with a history file, at the terminal through
stdin, and once inside tmux (send-keys, capture-pane)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from programs import run_main
from tmux_pane import Pane

from quintet.cards import parse_cards
from quintet.cli import main
from quintet.draw.game import Action, ActionKind, IllegalActionError, Phase, State, Terms, replay
from quintet.draw.play import EndOfMatch, Screen, TerminalPlayer, help_text, rules_text
from quintet.draw.policy import exchange_policy
from quintet.draw.stats import poker_stats, read_history
from quintet.evaluator import describe
from quintet.rules import get_rules
from quintet.terminal import Terminal


def env() -> dict[str, str]:
    """The tests' environment (read when a program starts: the session's own XDG_DATA_HOME)."""
    return dict(os.environ, PYTHONIOENCODING="utf-8")


def quintet(*args: str, stdin: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "quintet.cli", *args], input=stdin, capture_output=True,
                          text=True, encoding="utf-8", env=env(), timeout=timeout)


# ------------------------------------------------------------------- unattended -----------


@pytest.mark.subprocess
def test_bots_only_history_is_complete_replayable_and_reproducible(tmp_path: Path):
    files = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    outputs = []
    for path in files:
        proc = quintet("poker", "--rules", "draw52", "--players", "4", "--bots-only", "--hands", "200",
                       "--seed", "7", "--history", str(path))
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        outputs.append(proc.stdout)
    assert files[0].read_text() == files[1].read_text()  # same seed, same match
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    assert "Match over" in outputs[0] and f"{len(lines)} hands in" in outputs[0]
    assert 1 <= len(lines) <= 200
    stacks = {seat: 100 for seat in range(4)}
    for number, line in enumerate(lines, 1):
        assert line["hand"] == number and line["rules"] == "draw52"
        assert {"seats", "pot", "showdown", "winners", "actions"} <= set(line)
        for seat in line["seats"]:
            assert {"seat", "cards", "folded", "stack_before", "stack_after"} <= set(seat)
            assert len(seat["cards"]) == 5 and all(len(c) == 2 and c.isascii() for c in seat["cards"])
            assert seat["stack_before"] == stacks[seat["seat"]] and seat["stack_after"] >= 0
            stacks[seat["seat"]] = seat["stack_after"]
        assert sum(stacks.values()) == 400  # chips conserved from hand to hand
        assert line["winners"] and all(not s["folded"] for s in line["seats"] if s["seat"] in line["winners"])
        again = replay(line)
        assert [again.stacks[s["seat"]] for s in line["seats"]] == [s["stack_after"] for s in line["seats"]]
        assert isinstance(line["sitting_out"], list)
    assert any(line["showdown"] for line in lines) and any(not line["showdown"] for line in lines)
    assert lines[0]["sitting_out"] == []  # always written, empty while everybody can pay the ante
    # a broke player leaves: hands after that have fewer seats
    if len(lines) < 200:
        assert sum(1 for s in stacks.values() if s > 0) == 1


def test_replay_takes_a_history_line_as_written(tmp_path: Path):
    # the documented use: quintet.draw.game.replay(line), line a JSON line of the --history file
    path = tmp_path / "h.jsonl"
    assert main(["poker", "--bots-only", "--players", "3", "--hands", "5", "--seed", "4", "--history", str(path),
                 "--rules", "draw36-joker-11", "--joker-card", "6h", "--tiebreak", "no-kickers"]) == 0
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        assert record["rule_options"] == {"joker_card": "6h", "tiebreak": "no-kickers"}
        for given in (line, line.encode(), record):
            state = replay(given)
            assert state.rules == get_rules("draw36-joker-11", joker_card="6h", tiebreak="no-kickers")
            assert state.history()["actions"] == record["actions"]
    for bad, message in [("not json", "not a JSON line"), ("[1, 2]", "JSON object"), ("{}", "no 'rules'")]:
        with pytest.raises(ValueError, match=message):
            replay(bad)


def test_bots_only_match_ends_when_one_player_has_every_chip(tmp_path: Path):
    path = tmp_path / "h.jsonl"
    assert main(["poker", "--bots-only", "--players", "3", "--bots", "advisor,random,random", "--chips", "8",
                 "--hands", "500", "--seed", "1", "--history", str(path), "--rules", "draw36-joker"]) == 0
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    final = {s["seat"]: s["stack_after"] for s in lines[-1]["seats"]}
    assert len(lines) < 500 and sorted(final.values())[-1] == 24
    assert [len(line["seats"]) for line in lines] == sorted((len(line["seats"]) for line in lines), reverse=True)
    assert [s["player"] for s in lines[0]["seats"]] == ["advisor", "random", "random"]


def test_raising_demand_ends_is_a_term_of_the_table(tmp_path: Path):
    # the earlier reading: a demand above the stake in circle 1 ends the betting; every bot demand obeys the terms
    for flag, expected in (((), False), (("--raising-demand-ends",), True)):
        path = tmp_path / f"h{len(flag)}.jsonl"
        assert main(["poker", "--bots-only", "--players", "3", "--bots", "random", "--hands", "150", "--seed", "4",
                     "--chips", "1000", "--no-betting-before-exchange", "--history", str(path), *flag]) == 0
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        assert all(line["terms"]["raising_demand_ends"] is expected for line in lines)
        early = [a for line in lines for a in line["actions"]
                 if a["action"] == "demand" and a["circle"] == 1 and a["amount"] > line["terms"]["stake"]]
        assert bool(early) is expected  # random bots try every legal demand
        assert all(demands_follow_the_circle_rule(line) for line in lines) is not expected
        for line in lines[:40]:
            assert replay(line).history()["actions"] == line["actions"]


# ------------------------------------------------------------------- the CFR bot --------------


def test_cfr_bot_heads_up_against_the_advisor(tmp_path: Path, capsys):
    path = tmp_path / "h.jsonl"
    assert main(["poker", "--players", "2", "--bots", "cfr,advisor", "--bots-only", "--hands", "40", "--seed", "2",
                 "--chips", "1000", "--history", str(path)]) == 0
    out = capsys.readouterr().out
    assert "bot1 (cfr), bot2 (advisor)" in out and "cfr: heads-up, an equilibrium of a card abstraction" in out
    standings = out.split("Match over")[1].splitlines()[1:]
    assert all("95% [" in line for line in standings)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 40 and [s["player"] for s in lines[0]["seats"]] == ["cfr", "advisor"]
    for line in lines[:10]:
        assert replay(line).history()["actions"] == line["actions"]


@pytest.mark.slow
def test_cfr_bot_beats_the_advisor_heads_up_with_an_interval_above_zero(capsys):
    """The shipped strategy wins against the advisor bot: 3,000 seeded hands, deep stacks (about 10 CPU-s)."""
    assert main(["poker", "--players", "2", "--bots", "cfr,advisor", "--bots-only", "--hands", "3000",
                 "--chips", "100000", "--seed", "7", "--no-history"]) == 0
    standings = capsys.readouterr().out.split("Match over")[1].splitlines()[1:3]
    cfr = standings[0].split()
    assert cfr[0] == "bot1"
    low, high = (float(x.strip("[],")) for x in cfr[-2:])
    assert 0 < low < high, standings


def test_cfr_bots_at_a_table_of_four_play_as_the_advisor_and_solve_nothing(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("QUINTET_CFR_DIR", str(tmp_path / "cfr"))
    assert main(["poker", "--players", "4", "--bots", "cfr", "--bots-only", "--hands", "10", "--seed", "1",
                 "--circles", "2"]) == 0  # terms with no strategy stored
    assert "in a hand dealt to three or more it plays as the advisor" in capsys.readouterr().out
    assert not (tmp_path / "cfr").exists()


@pytest.mark.slow  # a strategy solved from scratch: half a minute (CI runs the slow tier)
def test_heads_up_cfr_under_other_terms_is_solved_once_with_a_progress_bar(tmp_path: Path, monkeypatch, capsys):
    from quintet.draw.cfr import strategy as solved

    monkeypatch.setenv("QUINTET_CFR_DIR", str(tmp_path / "cfr"))
    monkeypatch.setattr(solved, "ITERATIONS", 3)
    monkeypatch.setattr(solved, "_LOADED", {})
    argv = ["poker", "--players", "2", "--bots", "cfr,random", "--bots-only", "--hands", "5", "--seed", "1",
            "--circles", "1", "--limit", "2", "--no-betting-before-exchange"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "Solving the heads-up strategy of these rules and terms, once" in captured.out
    assert "CFR+" in captured.err  # the progress bar
    [stored] = (tmp_path / "cfr").glob("draw36-joker-11-*.npz")
    assert json.loads(np.load(stored)["header"].tobytes())["iterations"] == 3
    monkeypatch.setattr(solved, "_LOADED", {})
    assert main(argv) == 0
    assert "Solving" not in capsys.readouterr().out  # stored: found, not solved again


def test_hint_heads_up_shows_the_strategy_and_why():
    from quintet.draw.cfr.strategy import strategy_for

    rules = get_rules("draw36-joker-11")
    strategy = strategy_for(rules, Terms(), build=False)
    state = State(rules, Terms(), [100, 100], dealer=1, seed=9)
    state.post_ante()
    state.post_ante()
    out = io.StringIO()
    player = TerminalPlayer(Screen(rules, ["you", "bot1"], Terminal(colour=False, unicode=False, line_editing=False,
                                                                       out=out)), rules, 0, state.terms,
                            strategy=strategy)
    assert player.parse("hint", state) is None
    text = out.getvalue()
    assert text.index("The strategy: computing…") < text.index("The heads-up strategy (class ")
    assert "worth counted from now" in text and "fold  " in text and "+0.00 chips" in text
    assert "pot odds" not in text and "Why: " in text and "Your equity against his range: " in text
    for _ in range(6):
        state.call()
    player.parse("hint", state)  # the exchange: what each draw draws to, and its worth
    text = out.getvalue()
    assert "Each exchange (the final hand's exact mean percentile" in text and "stand pat" in text
    assert "draw 5" in text and text.count(" chips\n") == 12  # six moves before, six draws at the exchange
    state.exchange()
    state.exchange()
    player.parse("hint", state)
    assert out.getvalue().count("worth counted from now") == 3


@pytest.mark.parametrize("argv, message", [
    (["--players", "7"], "2 to 6 players"),
    (["--players", "1"], "at least 2"),
    (["--limit", "0"], "at least 1"),
    (["--stake", "5", "--limit", "2"], "below the stake"),
    (["--rules", "classic"], "invalid choice"),
    (["--bots", "shark"], "unknown bot 'shark'"),
    (["--bots", "random,advisor"], "names 2 bots but there are 4 bot seats"),
    (["--players", "6", "--rules", "draw32"], "at most 5 players"),
    (["--bluff", "2"], "between 0 and 1"),
    (["--players", "2", "--bots", "cfr", "--limit", "7"], "--bots cfr: the heads-up game of these terms is too big"),
    (["--hands", "zero"], "not an integer"),
    (["--colour"], "unrecognized arguments"),
    (["--history", "/no/such/dir/h.jsonl"], "--history '/no/such/dir/h.jsonl': directory '/no/such/dir' does not "
                                             "exist"),
    (["--history", "/"], "--history '/': is a directory"),
])
def test_bad_options_are_one_line_exit_2(argv, message, capsys):
    try:
        status = main(["poker", "--bots-only", "--hands", "1", *argv])
    except SystemExit as exc:  # argparse
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.subprocess
def test_bad_option_as_a_process():
    proc = quintet("poker", "--bots-only", "--players", "9")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == ["quintet: error: draw poker is for 2 to 6 players, got 9"]


# ------------------------------------------------------------------- the person's commands ---


def person_state(**terms) -> tuple[State, TerminalPlayer, io.StringIO]:
    rules = get_rules("draw52")
    order = parse_cards("Ah Kh 9h 5h 2c 7c 7d Qs Td 8c", rules.deck)
    state = State(rules, Terms(**terms), [100, 100], dealer=1, deck=order + [c for c in rules.deck.cards()
                                                                             if c not in order])
    state.post_ante()
    state.post_ante()
    out = io.StringIO()
    term = Terminal(colour=False, unicode=False, line_editing=False, out=out)
    return state, TerminalPlayer(Screen(rules, ["you", "bot1"], term), rules, 0, state.terms), out


@pytest.mark.parametrize("line, message", [
    ("foo", "unknown command 'foo'"),
    ("rasie 3", "unknown command 'rasie' — did you mean 'raise'\\?"),
    ("raise", "raise needs one amount"),
    ("raise x", "not a whole number of chips: 'x'"),
    ("call now", "call takes no argument"),
    ("demand 1 2", "at most one amount"),
    ("exchange 2c", "no exchange now"),
])
def test_bad_lines_are_explained(line, message):
    state, player, _ = person_state()
    with pytest.raises(ValueError, match=message):
        player.parse(line, state)


def test_an_empty_line_just_prompts_again():
    state, player, out = person_state()
    assert player.parse("", state) is None and player.parse("   ", state) is None
    lines = iter(["", "  ", "call"])
    prompts = []
    player.read = lambda prompt: prompts.append(prompt) or next(lines)
    assert player.act(state) == Action(ActionKind.CALL)
    assert prompts == ["> "] * 3 and "error" not in out.getvalue()


def test_illegal_moves_are_refused_by_the_rules_and_the_prompt_comes_back():
    state, player, out = person_state()
    lines = iter(["raise 99", "demand 2", "exchange 1", "fold please", "raise 3"])
    player.read = lambda prompt: next(lines)
    action = player.act(state)
    assert action == Action(ActionKind.RAISE, 3)
    errors = [line for line in out.getvalue().splitlines() if line.startswith("error:")]
    assert errors == [
        "error: the limit is 5 a turn: 99 is above it",
        "error: no show-down demand before the exchange: the show-down is demanded in the betting after the exchange",
        "error: no exchange now: it is the betting before the exchange",
        "error: fold takes no argument, got 'please'",
    ]


def test_a_demand_refused_by_the_circle_rule_says_why():
    state, player, out = person_state(betting_before_exchange=False)
    state.exchange()
    state.exchange()
    state.raise_to(2)  # you raise in the first circle after the exchange
    state.call()
    assert state.circle == 2 and state.actor == 0
    lines = iter(["demand 5", "call"])
    player.read = lambda prompt: next(lines)
    assert player.act(state) == Action(ActionKind.CALL)
    text = out.getvalue()
    assert "Your move: fold | call 2 | raise 3-5 | (a raise in circle 1: demand in circle 3) | hint" in text
    assert ("error: no show-down demand in circle 2 of 3: the stakes were raised in the first circle after the "
            "exchange, so the cards are shown only after all 3 circles (demand in circle 3)") in text


def test_exchange_by_name_or_position():
    state, player, _ = person_state(betting_before_exchange=False)
    assert state.phase is Phase.EXCHANGE and state.actor == 0
    shown = player.screen.hand(state.hands[0])  # positions 1-5 follow the shown order
    assert player.screen.cards(state.hands[0]).plain == "Ah Kh 9h 5h 2c"
    assert player.parse("exchange 5", state) == Action(ActionKind.EXCHANGE, cards=(shown[4],))
    assert player.parse("x 2c", state) == Action(ActionKind.EXCHANGE, cards=tuple(parse_cards("2c", state.rules.deck)))
    assert player.parse("stand", state) == Action(ActionKind.EXCHANGE)
    for bad, message in [("exchange", "^exchange needs the cards to discard .*; to keep all five, type stand$"),
                         ("x", "exchange needs the cards"),
                         ("exchange 6", "not 1-5"), ("exchange 1 1", "twice"), ("exchange 1 2c", "either all"),
                         ("exchange Zz", "unknown"), ("exchange 7c", "do not hold 7c"),
                         ("exchange 2c 2c", "duplicate")]:
        with pytest.raises(ValueError, match=message):
            player.parse(bad, state)
    with pytest.raises(EndOfMatch):
        player.parse("quit", state)


def test_messages_are_english_and_agree_with_the_subject():
    state, player, out = person_state(betting_before_exchange=False)
    screen = player.screen
    state.exchange(parse_cards("9h 5h 2c", state.rules.deck))
    screen.record(state, state.records[-1], reveal=0)
    state.exchange()
    screen.record(state, state.records[-1], reveal=0)
    screen.record(state, state.demand_show_down(), reveal=0)
    screen.record(state, state.fold(), reveal=0)
    lines = out.getvalue().splitlines()
    hand = screen.cards(state.hands[0])
    assert lines[0].startswith("you exchange 3 cards: 9h 5h 2c -> ")
    assert lines[1] == f"Your cards now: {hand} ({describe(state.hands[0], state.rules)})"
    assert lines[2] == "bot1 stands pat"
    assert lines[3] == "you stake 1 and demand the show-down · pot 3"
    assert lines[4] == "bot1 folds"  # the hand is over: no pot
    state, player, out = person_state(betting_before_exchange=False)
    state.exchange()
    state.exchange()
    state.call()
    player.screen.record(state, state.demand_show_down(1), reveal=0)
    assert out.getvalue() == "bot1 stakes 1 and demands the show-down · pot 4\n"
    help_out = io.StringIO()
    Terminal(colour=False, unicode=False, line_editing=False, out=help_out).show(help_text())
    assert all(ord(c) < 0x400 or ord(c) > 0x4FF for c in help_out.getvalue())  # no Cyrillic in the help either


def test_hint_gives_the_exact_exchange_and_the_equity():
    state, player, out = person_state(betting_before_exchange=False)
    assert player.parse("hint", state) is None
    lines = out.getvalue().splitlines()
    hand = player.screen.hand(state.hands[0])
    policy = exchange_policy(state.rules)
    expected = policy.expected(hand)
    assert lines[1].startswith("Advisor's exchange")
    for line, keep in zip(lines[2:5], policy.ranked(hand)[:3], strict=True):
        kept = player.screen.cards([c for i, c in enumerate(hand) if keep >> i & 1], "given")
        assert f"(keep {kept})" in line and line.endswith(f"{100 * float(expected[keep]):6.2f}%")
    assert lines[2].lstrip().startswith("exchange 9h 5h 2c (keep Ah Kh)")  # the pair draw beats the flush draw
    assert lines[5].startswith("Chance of the best hand at the show-down: ")
    assert lines[5].endswith("% against the 1 player still in (an even share: 50.0%) — the advisor bot's estimate "
                             "if everybody exchanges as it would, all staying to the end; ties count half.")


def test_a_call_that_leaves_too_little_for_the_stake_is_warned_of():
    state, player, out = person_state()
    state.stacks[0] = 2  # the stake is 1: a call leaves 1, enough
    player.show_turn(state)
    assert "Careful" not in out.getvalue()
    state.call()  # you call 1
    state.raise_to(2)  # bot1 raises to 2; your turn again, holding 1 + 2
    state.stacks[0] = 3
    assert state.actor == 0
    player.show_turn(state)
    assert ("Careful: a call leaves you 1 chip, less than the stake of 2: no credit, so if the betting goes on you "
            "can only fold.") in out.getvalue()


def test_rules_say_what_the_joker_colour_and_straight_colour_are():
    out = io.StringIO()
    term = Terminal(colour=False, unicode=True, line_editing=False, out=out)
    term.show(rules_text(get_rules("draw36-joker-11"), Terms()))
    text = out.getvalue()
    assert ("colour: five cards of one colour, red (♦ ♥) or black (♣ ♠), not all of one suit; it ranks above full "
            "house") in " ".join(text.split())
    assert "straight colour: a straight in one colour, not all of one suit" in text
    assert "Joker      the 6s is the joker: it stands for any card you like" in text
    assert "five of a kind: four of a rank and a joker" in text
    out.truncate(0)
    term.show(rules_text(get_rules("draw52"), Terms()))
    assert "Joker" not in out.getvalue() and "colour" not in out.getvalue()
    out.truncate(0)
    term.show(rules_text(get_rules("draw54-11"), Terms()))
    assert "the jokers are wild: each stands for any card" in " ".join(out.getvalue().split())


def test_the_seed_is_random_and_printed_unless_given(tmp_path: Path):
    seeds = []
    for _ in range(2):
        ran = run_main(main, ["poker", "--bots-only", "--hands", "1", "--players", "2"])
        assert ran.returncode == 0, ran.stderr
        seeds.append(int(ran.stdout.split("; seed ")[1].split(".")[0]))
    assert seeds[0] != seeds[1]  # two draws of 2^31 seeds
    fixed = [run_main(main, ["poker", "--bots-only", "--hands", "3", "--players", "2", "--seed", str(seeds[0])])
             for _ in range(2)]
    assert f"; seed {seeds[0]}." in fixed[0].stdout
    assert fixed[0].stdout.split(" hands in ")[0] == fixed[1].stdout.split(" hands in ")[0]  # one seed, one match
    bad = run_main(main, ["poker", "--bots-only", "--seed", "-1"])
    assert bad.returncode == 2 and "--seed must be an integer from 0 to 2147483647, got -1" in bad.stderr


def test_hands_are_recorded_and_the_statistics_come_from_them(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    ran = run_main(main, ["poker", "--players", "2", "--seed", "3", "--hands", "4"], "fold\n" * 40 + "stats\n")
    assert ran.returncode == 0, ran.stderr
    path = tmp_path / "data" / "quintet" / "poker-hands.jsonl"  # by default, in the user data directory
    lines = read_history(path)
    assert len(lines) == 4 and all(s["player"] in ("person", "advisor") for line in lines for s in line["seats"])
    stats = poker_stats(lines)
    nets = [s["stack_after"] - s["stack_before"] for line in lines for s in line["seats"] if s["player"] == "person"]
    assert stats.hands == 4 and stats.net == sum(nets) and stats.chips.mean == pytest.approx(sum(nets) / 4)
    assert sum(o.hands for o in stats.outcomes) == 4 and sum(o.chips for o in stats.outcomes) == stats.net
    assert f"Your record: 4 hands recorded, chips {stats.net:+d}" in ran.stdout
    again = run_main(main, ["poker", "--stats"])
    assert again.returncode == 0 and again.stdout.startswith(f"Your hands ({path}): 4 hands — won {stats.won}")
    assert "How they ended (where the chips go):" in again.stdout
    run_main(main, ["poker", "--players", "2", "--seed", "4", "--hands", "1", "--no-history"], "fold\n" * 10)
    assert len(read_history(path)) == 4  # --no-history: nothing kept
    bad = run_main(main, ["poker", "--history", str(path), "--no-history"])
    assert bad.returncode == 2 and "cannot be combined" in bad.stderr
    (tmp_path / "junk.jsonl").write_text("{}\n")
    junk = run_main(main, ["poker", "--stats", "--history", str(tmp_path / "junk.jsonl")])
    assert junk.returncode == 2 and "line 1: not a hand's history" in junk.stderr


def test_illegal_action_error_is_a_value_error_with_a_sentence():
    state, _, _ = person_state()
    with pytest.raises(IllegalActionError) as info:
        state.raise_to(1)
    assert isinstance(info.value, ValueError) and str(info.value).endswith("current stake 1: 1")


# ------------------------------------------------------------------- through stdin -----------


ROBUST = "call\nstand\n" * 60  # whatever the turn, one of the two is legal (the other is explained)


def test_the_history_keeps_no_folded_bots_hand(tmp_path: Path):
    # the table never shows a folded bot's cards to the person, and neither does the person's history
    path = tmp_path / "h.jsonl"
    ran = run_main(main, ["poker", "--players", "4", "--bots", "random", "--seed", "5", "--hands", "3",
                          "--history", str(path)], ROBUST)
    assert ran.returncode == 0, ran.stderr
    seats = [s for line in read_history(path) for s in line["seats"]]
    folded = [s for s in seats if s["player"] == "random" and s["folded"]]
    assert folded and all("cards" not in s for s in folded)
    assert all(len(s["cards"]) == 5 for s in seats if s not in folded)


@pytest.mark.subprocess
def test_terminal_game_through_stdin(tmp_path: Path):
    path = tmp_path / "h.jsonl"
    bad = "foo\nraise 99\nraise x\n\nhint\n"
    proc = quintet("poker", "--players", "3", "--seed", "3", "--hands", "3", "--history", str(path),
                   stdin=bad + "call\nexchange 5\n" * 60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and "Traceback" not in proc.stdout
    out = proc.stdout
    assert out.count("error: unknown command 'foo'") == 1
    assert "error: the limit is 5 a turn: 99 is above it" in out
    assert "error: not a whole number of chips: 'x'" in out
    # each command echoed after its prompt, as quintet-play does; the empty line: just the prompt again
    assert "\n> foo\nerror: unknown command 'foo'" in out and "\n> raise 99\nerror: the limit" in out
    assert "\n>\n> hint\nYour hand: " in out and "empty" not in out
    assert "(пас)" not in out and "Your cards now: " in out  # the new hand after your exchange, named
    assert "Chance of the best hand at the show-down: " in out
    assert "Your move: fold | call 1 | raise 2-5 | hint" in out and "Your move: exchange CARDS" in out
    assert "Match over: 3 hands played." in out and len(path.read_text().splitlines()) == 3
    assert "Show-down:" in out or "the pot of" in out


def demands_follow_the_circle_rule(line: dict) -> bool:
    """Every demand of the hand came in circle 1 before any raise in it, at the current stake (a demand above it
    is a raise, and waits), or in the last circle."""
    terms = line["terms"]
    circles, raised, stake = terms["circles"], False, terms["stake"]
    for action in line["actions"]:
        if action["action"] == "raise" and action["phase"] == "betting after the exchange" and action["circle"] == 1:
            raised = True
        if action["action"] == "demand":
            if action["circle"] == 1 and circles > 1 and (raised or action["amount"] != stake):
                return False
            if 1 < action["circle"] < circles:
                return False
        if action["action"] in ("call", "raise") and action["phase"] != "paying to see":
            stake = action["amount"]
    return True


@pytest.mark.subprocess
def test_the_reported_hand_no_longer_demands_in_the_second_circle(tmp_path: Path):
    # bot1 raised in the first circle after the exchange, then demanded the show-down in the second
    path = tmp_path / "h.jsonl"
    proc = quintet("poker", "--players", "2", "--bots", "random", "--seed", "3", "--hands", "1",
                   "--no-betting-before-exchange", "--history", str(path),
                   stdin="call\ncall\ncall\nstand\nraise 2\ncall\ncall\ncall\nquit\n")
    assert proc.returncode == 0 and proc.stderr == ""
    assert "(a raise in circle 1: demand in circle 3)" in proc.stdout
    assert ("show-down demands in circle 1 after the exchange at the current stake until somebody raises, and in "
            "circle 3;") in proc.stdout
    line = json.loads(path.read_text())
    assert line["terms"]["demand_any_turn"] is False and demands_follow_the_circle_rule(line)


@pytest.mark.subprocess
def test_bots_only_demands_follow_the_circle_rule_unless_any_turn(tmp_path: Path):
    lines = {}
    for flag in ((), ("--demand-any-turn",)):
        path = tmp_path / f"h{len(flag)}.jsonl"
        proc = quintet("poker", "--bots-only", "--bots", "random", "--players", "3", "--hands", "300", "--seed", "2",
                       "--no-betting-before-exchange", "--history", str(path), *flag)
        assert proc.returncode == 0, proc.stderr
        lines[flag] = [json.loads(line) for line in path.read_text().splitlines()]
    assert all(demands_follow_the_circle_rule(line) for line in lines[()])
    assert not all(demands_follow_the_circle_rule(line) for line in lines[("--demand-any-turn",)])
    assert all(line["terms"]["demand_any_turn"] for line in lines[("--demand-any-turn",)])
    assert "show-down demands on any turn after the exchange;" in proc.stdout  # the last run: --demand-any-turn
    for line in lines[("--demand-any-turn",)][:50]:
        again = replay(line)
        assert [again.stacks[s["seat"]] for s in line["seats"]] == [s["stack_after"] for s in line["seats"]]


@pytest.mark.subprocess
def test_end_of_input_ends_the_match_cleanly():
    proc = quintet("poker", "--players", "2", "--seed", "3", stdin="foo\n")
    assert proc.returncode == 0 and proc.stderr == ""
    assert "Match ended by you" in proc.stdout and "Match over: 0 hands played." in proc.stdout


@pytest.mark.subprocess
def test_person_out_of_chips_ends_the_match():
    # two chips, ante 1, stakes of 1: folding every hand loses one chip a hand
    proc = quintet("poker", "--players", "2", "--seed", "5", "--chips", "2", "--bots", "random", stdin="fold\n" * 10)
    assert proc.returncode == 0 and proc.stderr == ""
    out = proc.stdout
    assert "Your move: fold | (no credit: you cannot pay 1) | hint" in out  # no credit after the last ante
    assert "You have too few chips for the ante and leave the table." in out
    assert "Match over: fewer than two players can pay the ante." in out


@pytest.mark.subprocess
def test_rules_and_the_shared_words_when_piped():
    proc = quintet("poker", "--players", "2", "--seed", "3", stdin="rules\n?\nh\nstacks\nq\n")
    assert proc.returncode == 0 and proc.stderr == ""
    out = proc.stdout
    assert ("\n> rules\nFive-card draw poker: draw36-joker-11 (36 cards, the six of spades (6s) plays as the "
            "joker):\n  Ante ") in out
    for row in ("Betting    3 circles of betting before the exchange and after it.", "Exchange   once,",
                "Show-down  if nobody raises in the first circle", "Hands      strongest first: five of a kind,"):
        assert row in out
    assert out.count("Commands (one per line):") == 2 and "\n> stacks\nStacks: you " in out
    assert "\n> q\n\nMatch ended by you" in out and "Match over: 0 hands played." in out


@pytest.mark.subprocess
def test_an_over_long_line_is_refused_in_one_line_when_piped():
    proc = quintet("poker", "--players", "2", "--seed", "3", stdin="x" * 9000 + "\nquit\n")
    assert proc.returncode == 0 and proc.stderr == ""
    errors = [line for line in proc.stdout.splitlines() if line.startswith("error:")]
    assert errors == ["error: a command has at most 1,000 characters; this line has 9,000 (ignored)"]
    assert max(map(len, proc.stdout.splitlines())) < 300 and "Match over:" in proc.stdout


@pytest.mark.subprocess
def test_ctrl_c_on_piped_input_ends_the_match_with_the_standings():
    proc = subprocess.Popen([sys.executable, "-m", "quintet.cli", "poker", "--players", "2", "--seed", "3"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            encoding="utf-8", env=env())
    assert proc.stdout is not None
    for line in proc.stdout:  # the program waits for the person's first move
        if line.startswith("Your move:"):
            break
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and err == "", err
    assert "Match ended by you" in out and "Match over: 0 hands played." in out and "  you " in out


# ------------------------------------------------------------------- inside tmux -------------


def poker_pane(tmp_path: Path, *args: str, width: int = 100, height: int = 50) -> Pane:
    return Pane(tmp_path, [sys.executable, "-m", "quintet.cli", "poker", *args], width=width, height=height,
                env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data"),
                     "PYTHONIOENCODING": "utf-8"})


@pytest.mark.tmux
def test_terminal_game_inside_tmux(tmp_path: Path):
    """Colour and ♣ ♦ ♥ ♠ by default, line editing (cal ← → l is call), one error line for a bad
    move, Ctrl-C clears the line, Ctrl-D ends the match with the standings."""
    history = tmp_path / "h.jsonl"
    with poker_pane(tmp_path, "--players", "3", "--seed", "3", "--hands", "2", "--history", str(history)) as pane:
        text = pane.wait_for("Your move:")
        assert "Five-card draw poker" in text and any(suit in text for suit in "♣♦♥♠")
        assert "\x1b[1m\x1b[31m" in pane.screen(colours=True)  # a red heart or diamond... in bold
        pane.type("cal")
        pane.keys("Left", "Right")
        pane.type("l")
        pane.keys("Enter")
        text = pane.wait_for("you call 1")
        assert "unknown command" not in text and "error" not in text
        pane.wait_for("Your move:", after=1)
        pane.enter("raise banana")
        pane.wait_for("error: not a whole number of chips: 'banana'")
        pane.enter("hint")
        pane.wait_for("Chance of the best hand at the show-down: ")
        pane.type("fol")
        pane.keys("C-c")  # clears the line; the game goes on
        pane.wait_for("(Ctrl-C: type 'quit' or press Ctrl-D to leave)")
        deadline = time.monotonic() + 10  # the prompt comes back, empty
        while pane.prompt_line() != ">" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert pane.prompt_line() == ">"
        pane.keys("C-d")
        text = pane.wait_for("EXIT=")
        assert "Match ended by you (an unfinished hand does not count)." in text and "EXIT=0" in text
        assert "Match over: 1 hand played." in text and "  you " in text and "Traceback" not in text
        assert len(history.read_text().splitlines()) == 1


@pytest.mark.tmux
@pytest.mark.parametrize("size", [(80, 30), (120, 40)])
def test_out_of_chips_offers_another_match_in_tmux(tmp_path: Path, size):
    """Two chips, ante 1: folding loses the match; the program offers another, from the next seed,
    with fresh stacks; the statistics of both are kept."""
    width, height = size
    with poker_pane(tmp_path, "--players", "2", "--seed", "5", "--chips", "2", "--bots", "random",
                    width=width, height=height) as pane:
        for _ in range(2):
            pane.wait_for("Your move:", after=_)
            pane.enter("fold")
        pane.wait_for("Play again: a new match, seed 6? [y/n]")
        shown = pane.screen()
        assert "You are out of chips." in shown or "You have too few chips" in shown
        assert "Your record: 2 hands recorded, chips -2 (-1.00 a hand)." in pane.screen(joined=True)
        pane.enter("y")
        pane.wait_for("seed 6.")  # the new match's first line (wrapped at the width: its words may part)
        pane.wait_for("Your move:", after=2)
        pane.enter("stats")
        pane.wait_for("How they ended (where the chips go):")
        pane.enter("quit")
        text = pane.wait_for("EXIT=")
        assert "EXIT=0" in text and "Traceback" not in text
        for line in pane.screen(joined=True).split("\n"):
            assert len(line.rstrip()) <= width, line


@pytest.mark.tmux
def test_plain_in_tmux(tmp_path: Path):
    with poker_pane(tmp_path, "--players", "2", "--seed", "3", "--plain") as pane:
        text = pane.wait_for("Your move:")
        assert not any(suit in text for suit in "♣♦♥♠") and "\x1b[" not in pane.screen(colours=True)
        pane.keys("C-d")
        text = pane.wait_for("EXIT=")
        assert "Match over: " in text and "EXIT=0" in text
