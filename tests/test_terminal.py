"""The terminal layer both games share (``quintet.terminal``), without a terminal: plain input and
output, the history of accepted commands, the progress line.  In a terminal: test_play.py and
test_poker_cli.py (tmux)."""

from __future__ import annotations

import io
import os
from pathlib import Path

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from rich.text import Text

from quintet.terminal import (
    MAX_LINE,
    StatusLine,
    Terminal,
    _AcceptedFile,
    _AcceptedInMemory,
    _FirstWord,
    _SuggestSince,
    flow,
    grid,
)


def plain(stdin: str = "") -> tuple[Terminal, io.StringIO]:
    out = io.StringIO()
    return Terminal(colour=False, unicode=False, line_editing=False, out=out, stdin=io.StringIO(stdin)), out


def test_plain_input_is_echoed_after_its_prompt_and_ends_with_none():
    term, out = plain("hint\n\nquit\n")
    assert [term.read("> "), term.read("> "), term.read("> "), term.read("> ")] == ["hint", "", "quit", None]
    assert out.getvalue() == "> hint\n>\n> quit\n"  # no trailing spaces in plain text


def test_an_over_long_line_is_refused_in_one_line_and_the_next_one_read():
    term, out = plain("y" * (MAX_LINE + 1) + "\n" + "z" * MAX_LINE + "\n")
    assert term.read("> ") == "z" * MAX_LINE
    echo, error, accepted = out.getvalue().splitlines()
    assert echo.startswith("> yyy") and echo.endswith("… (1,001 characters)") and len(echo) < 120
    assert error == "error: a command has at most 1,000 characters; this line has 1,001 (ignored)"
    assert accepted == "> " + "z" * MAX_LINE


def test_ask_takes_y_or_n_and_ends_on_no_input():
    term, out = plain("maybe\n\nY\n")
    assert term.ask("Again?") is True
    assert out.getvalue().count("error: answer y or n") == 1
    assert plain("q\n")[0].ask("Again?") is False and plain("")[0].ask("Again?") is False


def test_the_history_takes_only_remembered_lines(tmp_path: Path):
    memory = _AcceptedInMemory()
    memory.append_string("frobnicate")  # what prompt_toolkit does on Enter: ignored
    for line in ("show", "show", "x" * (MAX_LINE + 1), "hint"):
        memory.remember(line)
    assert memory.get_strings() == ["show", "hint"]
    path = tmp_path / "history"
    path.write_text("\n# old\n+show\n\n# old\n+" + "x" * 9000 + "\n\n# old\n+slot 1\n+slot 2\n")  # an old file
    assert list(_AcceptedFile(str(path)).load_history_strings()) == ["show"]


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_is_ended_before_other_output(monkeypatch):
    monkeypatch.setattr("shutil.get_terminal_size", lambda *_, **__: os.terminal_size((20, 24)))
    stream = FakeTty()
    status = StatusLine(stream)
    status.update("solving: 1")
    status.update("solving: iteration 22, far too long")  # cut to 17 columns: room for an echoed ^C
    with status.cleared():  # the line is finished (rewritten: an echoed ^C is wiped) before the message
        stream.write("Ctrl-C: stopping\n")
    status.end()  # nothing open: nothing written
    assert stream.getvalue() == ("\r\x1b[Ksolving: 1" "\r\x1b[Ksolving: iteratio"
                                 "\r\x1b[Ksolving: iteratio\n" "Ctrl-C: stopping\n")
    piped = io.StringIO()
    StatusLine(piped).update("iteration 1")
    assert piped.getvalue() == "iteration 1\n"


def test_output_is_plain_when_piped_and_coloured_in_a_terminal():
    table, shown = grid("name!", "value>")
    table.add_row(Text("hearts", style="bold red"), "10")
    term, out = plain()
    term.show(shown)
    assert out.getvalue() == "  name    value\n  hearts     10\n"
    coloured = io.StringIO()
    Terminal(colour=True, unicode=True, line_editing=False, out=coloured, width=40).show(shown)
    assert "\x1b[1;31mhearts\x1b[0m" in coloured.getvalue()


def test_flow_never_splits_an_item():
    items = [Text(f"hand number {i} 10.0%") for i in range(6)]
    lines = flow(items, 45).plain.split("\n")
    assert all(len(line) <= 45 for line in lines) and len(lines) == 3
    assert " · ".join(lines) == " · ".join(item.plain for item in items)


def test_a_joker_is_written_jk_even_with_unicode_suits():
    """The Unicode joker is a box in many terminal fonts: a joker is Jk (magenta), the suits stay."""
    from quintet.cards import parse_cards
    from quintet.rules import get_rules

    deck = get_rules("draw54").deck
    term = Terminal(colour=True, unicode=True, line_editing=False, out=io.StringIO())
    jokers = parse_cards("Jk Jk", deck)
    assert [term.card(c, deck).plain for c in jokers] == ["Jk1", "Jk2"]
    assert term.card(jokers[0], deck).style == "bold magenta"
    assert term.cards(parse_cards("Ah Jk", deck), deck, "given").plain == "A♥ Jk1"


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_working_shows_a_progress_line_at_a_terminal_and_wipes_it():
    import time

    for tty in (True, False):
        term, _ = plain()
        term.status = StatusLine(_Stream(tty))
        with term.working(lambda s: f"searching, {s:.0f} s", after=0.05, every=0.05):
            deadline = time.monotonic() + (10 if tty else 0.3)  # at a terminal: until the line is drawn
            while "searching" not in term.status.stream.getvalue() and time.monotonic() < deadline:
                time.sleep(0.02)
        written = term.status.stream.getvalue()
        if tty:  # rewritten in place, then wiped: nothing of it stays on the line
            assert "searching, 0 s" in written and written.endswith("\r\x1b[K") and term.status._text == ""
        else:  # piped: no line at all
            assert written == ""


def test_tab_completes_the_first_word_only():
    words = _FirstWord(["slot", "swap", "show", "stats"])

    def completions(text: str) -> list[str]:
        return [c.text for c in words.get_completions(Document(text), CompleteEvent(completion_requested=True))]

    assert completions("sl") == ["slot"] and sorted(completions("s")) == ["show", "slot", "stats", "swap"]
    assert completions("slot 5 ") == [] and completions("slot 5 s") == []  # slots and cards follow, no command


def test_suggestions_come_from_this_deal_s_lines_only():
    term = Terminal(colour=False, unicode=False, line_editing=False)
    term._suggest.lines.append("slot 5 Ah Kh Qh Jh Th")  # a line of the deal before
    term.fresh_suggestions()
    suggest = term._suggest

    def suggestion(text: str) -> str | None:
        found = suggest.get_suggestion(Buffer(), Document(text))
        return None if found is None else found.text

    assert suggestion("slot 5") is None  # another deal's cards are never offered
    suggest.lines.append("slot 4 Ac Kc Qc Jc Tc")
    assert suggestion("slot") == " 4 Ac Kc Qc Jc Tc" and suggestion("") is None
    assert isinstance(suggest, _SuggestSince)
