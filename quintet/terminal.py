"""The terminal front-end both games share: ``quintet-play`` and ``quintet poker``.

    term = Terminal.for_streams(plain=args.plain, unicode=args.unicode, history=path, words=words)
    term.show(text_or_table)              # rich output, wrapped to the terminal's width
    line = term.read("game 1> ")          # the next command line; None at the end of input
    term.remember(line)                   # an accepted command enters the history
    term.error("there is no slot 9")      # one line: 'error: …'

In a terminal (stdin and stdout, unless ``plain``): colour (unless ``NO_COLOR``), suits as
♣ ♦ ♥ ♠, output wrapped at words to the terminal's width, and prompt_toolkit input — line
editing, a history of the *accepted* commands (``remember``) with grey suggestions from those of
this deal (``fresh_suggestions`` starts a deal), completion of the command ``words`` on Tab in a
line's first word; a bracketed paste of several lines is one command per
line.  Piped: plain text that is never wrapped, lines read one by one and echoed after the
prompt, so a transcript reads as a dialogue.

The same everywhere: a line longer than ``MAX_LINE`` characters is refused with one line
(and never recorded); Ctrl-C at a line-editing prompt clears the line (on plain line input
it ends the input); Ctrl-D, the end of the input or ``quit`` ends the match; ``help``/``?``/``h``,
``rules`` and ``quit``/``q`` are the shared command words (``command_word``).  A progress
line on stderr (``status``) is ended before anything else is shown.
"""

from __future__ import annotations

import difflib
import os
import shutil
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggest, Suggestion
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, WordCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from .cards import Deck, format_card, order_cards
from .text import QUOTE_LIMIT, quote

__all__ = [
    "MAX_LINE", "SHARED_HELP", "SUIT_STYLES", "CTRL_C_HINT", "command_word", "unknown_command", "flow", "grid",
    "StatusLine", "Terminal",
]

MAX_LINE = 1000
"""Characters of one command line; a longer line is refused (and not recorded)."""

_ALIASES = {"?": "help", "h": "help", "q": "quit", "exit": "quit"}
SHARED_HELP = (
    ("help, ?, h", "this list"),
    ("rules", "the rules of the game, in a few lines"),
    ("quit, q", "end the match (so do Ctrl-D and the end of the input)"),
)
"""The command words both games share, as (usage, what it does) rows of their help."""

SUIT_STYLES = ("bold green", "bold blue", "bold red", "bold")  # a four-colour deck: ♣ ♦ ♥ ♠
CTRL_C_HINT = "(Ctrl-C: type 'quit' or press Ctrl-D to leave)"
_PLAIN_WIDTH = 100_000  # piped output is never wrapped


def command_word(word: str) -> str:
    """The command a typed first word names: lower case, the shared aliases resolved.

    >>> command_word("?"), command_word("Q"), command_word("HINT")
    ('help', 'quit', 'hint')
    """
    lowered = word.lower()
    return _ALIASES.get(lowered, lowered)


def unknown_command(word: str, words: Iterable[str]) -> str:
    """The one line for a first word that is no command, with the nearest of ``words`` when one
    is close (a typo).

    >>> unknown_command("slto", ["slot", "swap", "show"])
    "unknown command 'slto' — did you mean 'slot'? (type 'help' for the commands)"
    >>> unknown_command("xyzzy", ["slot"])
    "unknown command 'xyzzy' (type 'help' for the commands)"
    """
    near = difflib.get_close_matches(word.lower(), list(words), n=1, cutoff=0.6)
    guess = f" — did you mean {quote(near[0])}?" if near else ""
    return f"unknown command {quote(word)}{guess} (type 'help' for the commands)"


def grid(*columns: str, indent: int = 2) -> tuple[Table, Padding]:
    """A borderless table (two spaces between columns, bold headers) and the same indented.

    A column name ending in ``>`` is right-aligned, in ``!`` never wrapped; other columns wrap
    at words when the terminal is narrow.  Add rows to the table, show the padding.
    """
    table = Table(box=None, pad_edge=False, padding=(0, 1), show_header=any(c.strip("<>!") for c in columns),
                  header_style="bold", show_edge=False)
    for column in columns:
        name = column.rstrip(">!")
        table.add_column(name, justify="right" if column.endswith(">") else "left",
                         no_wrap=column.endswith((">", "!")))
    return table, Padding(table, (0, 0, 0, indent), expand=False)


def flow(items: Iterable[Text], width: int, separator: str = " · ") -> Text:
    """``items`` joined by ``separator``, with a line break instead where the next item would
    pass ``width`` cells: an item is never split across lines.

    >>> print(flow([Text("pair of jacks 10.5%"), Text("high card, ace 7.2%")], 30).plain)
    pair of jacks 10.5%
    high card, ace 7.2%
    """
    out = Text()
    used = 0
    for item in items:
        if used and used + len(separator) + item.cell_len > width:
            out.append("\n")
            used = 0
        elif used:
            out.append(separator)
            used += len(separator)
        out.append_text(item)
        used += item.cell_len
    return out


class StatusLine:
    """A progress line on stderr: rewritten in place when stderr is a terminal (cut to leave
    room for an echoed ``^C``), one line per update otherwise.  ``cleared()`` ends it before
    other output, so nothing is glued onto it; updates may come from another thread."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self._text = ""  # the line on the screen, not yet ended
        self._lock = threading.Lock()

    def update(self, text: str) -> None:
        with self._lock:
            if self.tty:
                self._text = text[:max(1, shutil.get_terminal_size().columns - 3)]
                self.stream.write("\r\x1b[K" + self._text)
            else:
                self.stream.write(text + "\n")
            self.stream.flush()

    def end(self) -> None:
        """Finish the line: the last update stays on the screen (anything echoed after it, such
        as ``^C``, is wiped) and the cursor goes to the next line."""
        with self._lock:
            self._end()

    def clear(self) -> None:
        """Wipe the line (at a terminal): nothing of it stays on the screen."""
        with self._lock:
            if self._text:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self._text = ""

    def _end(self) -> None:
        if self._text:
            self.stream.write("\r\x1b[K" + self._text + "\n")
            self.stream.flush()
            self._text = ""

    @contextmanager
    def cleared(self) -> Iterator[None]:
        """End the line, and keep updates out while the caller prints."""
        with self._lock:
            self._end()
            yield


class _Accepted(History):
    """A history that only ``remember`` adds to (prompt_toolkit's own append on Enter is
    ignored, so a rejected line is never recalled); lines over ``MAX_LINE`` never load."""

    def append_string(self, string: str) -> None:
        pass

    def remember(self, string: str) -> None:
        strings = self.get_strings()
        if string and len(string) <= MAX_LINE and (not strings or strings[-1] != string):
            History.append_string(self, string)

    def load_history_strings(self) -> Iterable[str]:
        return [s for s in super().load_history_strings() if len(s) <= MAX_LINE and "\n" not in s]


class _FirstWord(Completer):
    """Tab completes the command ``words`` in a line's first word only (after it come numbers
    and cards, never a command)."""

    def __init__(self, words: Sequence[str]) -> None:
        self._words = WordCompleter(list(words))

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        if " " not in document.text_before_cursor.lstrip():
            yield from self._words.get_completions(document, complete_event)


class _SuggestSince(AutoSuggest):
    """Grey suggestions from the lines accepted since ``Terminal.fresh_suggestions`` (this
    deal's: another deal's cards are not this one's), the latest first."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def get_suggestion(self, buffer: Buffer, document: Document) -> Suggestion | None:
        text = document.text.rsplit("\n", 1)[-1]
        if text.strip():
            for line in reversed(self.lines):
                if line.startswith(text) and line != text:
                    return Suggestion(line[len(text):])
        return None


class _AcceptedInMemory(_Accepted, InMemoryHistory):
    pass


class _AcceptedFile(_Accepted, FileHistory):
    pass


def _history(path: Path | None) -> _Accepted:
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
            return _AcceptedFile(str(path))
        except OSError:
            pass  # a read-only home: a history for this session only
    return _AcceptedInMemory()


class Terminal:
    """Where a game is shown and its commands are read (see the module doc).

    ``colour``: rich styles; ``unicode``: suits as ♣ ♦ ♥ ♠; ``line_editing``: prompt_toolkit
    input with ``history`` (a file, or None: this session only) and completion of ``words``;
    otherwise lines come from ``stdin``, echoed after the prompt unless ``stdin`` is a terminal
    (``--plain`` at a terminal: the prompt, then what the terminal echoes).  ``width``: None wraps
    to the terminal's width, a number to that many columns; output goes to ``out``.
    """

    def __init__(self, *, colour: bool, unicode: bool, line_editing: bool, history: Path | None = None,
                 words: Sequence[str] = (), width: int | None = _PLAIN_WIDTH, out: TextIO | None = None,
                 stdin: TextIO | None = None) -> None:
        self.colour = colour
        self.unicode = unicode
        self.line_editing = line_editing
        self.out = out or sys.stdout
        self.stdin = stdin or sys.stdin
        self.status = StatusLine()
        self.console = Console(file=self.out, width=width, highlight=False, soft_wrap=False, emoji=False,
                               markup=False, force_terminal=colour or None, no_color=not colour,
                               color_system="auto" if colour else None)
        self._queued: deque[str] = deque()  # lines of a paste still to run
        self._draft = ""  # the unfinished last line of a paste: the next prompt's text
        self._history: _Accepted | None = None
        self._suggest = _SuggestSince()
        self._session: PromptSession[str] | None = None
        if line_editing:
            self._history = _history(history)
            self._session = PromptSession(history=self._history, auto_suggest=self._suggest,
                                          completer=_FirstWord(words), complete_while_typing=False,
                                          key_bindings=self._paste_bindings())

    @classmethod
    def for_streams(cls, *, plain: bool, unicode: bool, history: Path | None = None,
                    words: Sequence[str] = ()) -> Terminal:
        """Colour, Unicode suits and wrapping when stdout is a terminal, line editing when stdin
        is one too — unless ``plain``; ``unicode`` asks for the suits in plain text too."""
        out_tty = sys.stdout.isatty() and not plain
        in_tty = sys.stdin.isatty() and out_tty
        return cls(colour=out_tty and "NO_COLOR" not in os.environ, unicode=unicode or out_tty,
                   line_editing=in_tty, history=history, words=words, width=None if out_tty else _PLAIN_WIDTH)

    @property
    def width(self) -> int:
        """Columns to lay the output out in (very many when piped: nothing wraps)."""
        return self.console.width

    # -------------------------------------------------------------- output

    def show(self, renderable: RenderableType = "") -> None:
        """Print text (a ``str`` is not parsed for markup) or a rich table, ending any progress line
        first.  Text wraps at words; a ``Text(…, no_wrap=True, overflow="ignore")`` is left whole
        for the terminal to fold (a command to copy)."""
        with self.status.cleared():
            with self.console.capture() as captured:
                self.console.print(renderable, crop=False)
            text = captured.get()
            if not self.colour:  # no padding to the width in plain text
                text = "\n".join(line.rstrip() for line in text.split("\n"))
            self.out.write(text)
            self.out.flush()

    def error(self, message: str) -> None:
        self.show(Text("error: " + message, style="bold red"))

    def card(self, card: int, deck: Deck) -> Text:
        """One card, coloured by suit; a joker is ``Jk`` in magenta (its Unicode sign is a box
        in many terminal fonts)."""
        if deck.is_joker(card):
            return Text(format_card(card, deck), style="bold magenta")
        return Text(format_card(card, deck, unicode=self.unicode), style=SUIT_STYLES[deck.suit_of(card)])

    def cards(self, cards: int | Iterable[int], deck: Deck, order: str = "group") -> Text:
        """Cards separated by spaces, in ``order`` (``quintet.cards.order_cards``; ``given``: as given)."""
        return Text(" ").join(self.card(c, deck) for c in order_cards(cards, deck, order))

    @contextmanager
    def working(self, describe: Callable[[float], str], *, after: float = 0.5, every: float = 0.5) -> Iterator[None]:
        """While the block runs, a progress line on stderr — ``describe(seconds so far)``,
        rewritten every ``every`` seconds from ``after`` seconds on — wiped at the end.  Only
        when stderr is a terminal: piped, the block runs without one."""
        if not self.status.tty:
            yield
            return
        done = threading.Event()
        start = time.monotonic()

        def tick() -> None:
            wait = after
            while not done.wait(wait):
                self.status.update(describe(time.monotonic() - start))
                wait = every

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            yield
        finally:
            done.set()
            ticker.join()
            self.status.clear()

    # -------------------------------------------------------------- input

    def read(self, prompt: str, *, toolbar: Callable[[], str] | None = None) -> str | None:
        """The next command line, or None at the end of input.  A line over ``MAX_LINE`` is
        refused with one line and the prompt comes again; Ctrl-C at a line-editing prompt clears
        the line, on plain line input it ends the input.  ``toolbar``: a line under a
        line-editing prompt, redrawn twice a second (what runs in the background)."""
        while True:
            try:
                line = self._next_line(prompt, toolbar)
            except KeyboardInterrupt:
                if not self.line_editing:
                    return None
                self.show(Text(CTRL_C_HINT, style="dim"))
                continue
            if line is None or len(line) <= MAX_LINE:
                return line
            self.error(f"a command has at most {MAX_LINE:,} characters; this line has {len(line):,} (ignored)")

    def remember(self, line: str) -> None:
        """Record an accepted command in the history (Up recalls it) and for the suggestions."""
        if self._history is not None:
            self._history.remember(line.strip())
            self._suggest.lines.append(line.strip())

    def fresh_suggestions(self) -> None:
        """A new deal: suggestions come from the lines accepted from now on (Up still recalls
        every line of the history)."""
        self._suggest.lines.clear()

    def ask(self, question: str) -> bool:
        """A yes/no question; False for no, quit or the end of input."""
        while True:
            line = self.read(f"{question} [y/n] ")
            if line is None:
                return False
            answer = command_word(line.strip())
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no", "quit"):
                return False
            if answer:
                self.error("answer y or n")

    def _next_line(self, prompt: str, toolbar: Callable[[], str] | None = None) -> str | None:
        if self._queued:
            line = self._queued.popleft()
            self._echo(prompt, line)
            return line
        if self._session is not None:
            draft, self._draft = self._draft, ""
            self._session.bottom_toolbar = toolbar  # per call: prompt() keeps a toolbar it was given once
            self._session.refresh_interval = 0.5 if toolbar else 0
            try:
                return str(self._session.prompt(prompt, default=draft))
            except EOFError:
                return None
        typed = self.stdin.isatty()  # a terminal echoes what is typed: show the prompt first
        if typed:
            self.out.write(prompt)
            self.out.flush()
        line = self.stdin.readline()
        if not line:
            if typed:
                self.out.write("\n")
            return None
        line = line.rstrip("\r\n")
        if not typed:
            self._echo(prompt, line)
        return line

    def _echo(self, prompt: str, line: str) -> None:
        shown = line if len(line) <= MAX_LINE else f"{line[:QUOTE_LIMIT]}… ({len(line):,} characters)"
        self.show(Text(prompt + shown))

    def _paste_bindings(self) -> KeyBindings:
        """A bracketed paste of several lines: the first is entered, the others queued as
        commands, an unfinished last line waits at the next prompt."""
        bindings = KeyBindings()

        @bindings.add(Keys.BracketedPaste)
        def _paste(event: KeyPressEvent) -> None:
            first, *rest = event.data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            event.current_buffer.insert_text(first)
            if rest:
                self._queued.extend(rest[:-1])
                self._draft = rest[-1]
                event.current_buffer.validate_and_handle()

        return bindings
