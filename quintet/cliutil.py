"""Shared command-line plumbing: one-line errors, exit status 2, rule-set options."""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn, TypeVar

from .faults import Fault, InputError
from .rules import RULE_SETS, TIEBREAKS, Rules, get_rules
from .seeds import SEED_MAX
from .text import one_line, quote

__all__ = [
    "OneLineParser", "UsageError", "TIEBREAK_HELP", "add_rules_arguments", "rules_from_args", "run_cli", "print_json",
    "number", "positive_float", "float_at_least", "float_between", "integer", "int_at_least", "int_between",
    "positive_int", "seed_int",
    "user_cache_dir", "user_data_dir", "directory_problem", "output_file", "kept_file", "extra_missing", "needs_extra",
]

EXIT_USAGE = 2
_N = TypeVar("_N", int, float)  # a bounded number: an integer or a float


class UsageError(InputError):
    """A problem with the command line or its input: reported in one line, exit 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line on stderr and exits 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {one_line(message)}\n")


_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
MAX_DIGITS = 30  # an integer option has at most this many digits (no 5,000-digit conversions)


def number(text: str) -> float:
    """argparse type: a finite number, in ASCII (``1.5``, ``-2``, ``1e-3``)."""
    if len(text) > 64 or not _NUMBER.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"not a number: {quote(text)}")
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {quote(text)}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a number > 0."""
    value = number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {quote(text)}")
    return value


def integer(text: str) -> int:
    """argparse type: an integer in ASCII digits (no other scripts' digits), at most ``MAX_DIGITS``."""
    stripped = text.strip()
    if not _INTEGER.fullmatch(stripped) or len(stripped.lstrip("+-")) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"not an integer: {quote(text)}")
    return int(stripped)


def _bounded(read: Callable[[str], _N], low: _N, high: _N | None = None) -> Callable[[str], _N]:
    """argparse type: what ``read`` (``integer``, ``number``) reads, at least ``low`` and at most
    ``high`` (None: no upper bound)."""

    def parse(text: str) -> _N:
        value = read(text)
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}: {quote(text)}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}: {quote(text)}")
        return value

    return parse


def float_at_least(low: float) -> Callable[[str], float]:
    """argparse type: a number ≥ ``low`` (``float_at_least(0)``: a tolerance, where 0 is exact)."""
    return _bounded(number, low)


def float_between(low: float, high: float) -> Callable[[str], float]:
    """argparse type: a number from ``low`` to ``high`` inclusive (``float_between(0, 1)``: a share)."""
    return _bounded(number, low, high)


def int_at_least(low: int) -> Callable[[str], int]:
    """argparse type: an integer ≥ ``low``."""
    return _bounded(integer, low)


positive_int = int_at_least(1)


def int_between(low: int, high: int) -> Callable[[str], int]:
    """argparse type: an integer from ``low`` to ``high`` inclusive."""
    return _bounded(integer, low, high)


seed_int = int_between(0, SEED_MAX)  # argparse type: a seed (quintet.seeds), checked before any work


TIEBREAK_HELP = ("equal hands of a category: kickers (default: the other cards decide), group-only "
                 "(equal fours, threes and full-house triples tie) or no-kickers (also equal pairs, "
                 "two pairs and highest cards of high card tie)")


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rule options")
    group.add_argument("--rules", default="classic", choices=sorted(RULE_SETS), help="rule set (default classic)")
    group.add_argument("--tie-points", type=number, default=None, metavar="SHARE",
                       help="share of a tied slot's points each player scores, 0..0.5 (default 0)")
    group.add_argument("--ace-low-straight", action="store_true", default=None,
                       help="A-7-8-9-10 counts as the lowest straight")
    group.add_argument("--flush-over-full-house", action="store_true", default=None,
                       help="flush ranks above full house")
    group.add_argument("--tiebreak", choices=TIEBREAKS, default=None, help=TIEBREAK_HELP)


def rules_from_args(args: argparse.Namespace) -> Rules:
    options = {
        name: getattr(args, name)
        for name in ("tie_points", "ace_low_straight", "flush_over_full_house", "tiebreak")
        if getattr(args, name) is not None
    }
    return get_rules(args.rules, **options)


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/quintet`` (an absolute ``XDG_CACHE_HOME``), else ``~/.cache/quintet``."""
    cache = os.environ.get("XDG_CACHE_HOME")
    # The XDG spec says a relative value is invalid and must be ignored.
    base = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"
    return base / "quintet"


def user_data_dir() -> Path:
    """``$XDG_DATA_HOME/quintet`` (an absolute ``XDG_DATA_HOME``), else ``~/.local/share/quintet``:
    where the games keep their records between sessions."""
    data = os.environ.get("XDG_DATA_HOME")
    base = Path(data) if data and Path(data).is_absolute() else Path.home() / ".local" / "share"
    return base / "quintet"


PATH_LIMIT = 200  # characters of a path quoted in a message


def directory_problem(path: str | os.PathLike[str]) -> str | None:
    """Why no file can be made at ``path`` because of its directory (missing, or not a
    directory), in a few words; None when the directory is there.  The one check of every
    path option that names a file to write (``--record``, ``--history``, ``--store``): a
    missing directory is refused, never made."""
    parent = Path(path).expanduser().parent
    if not parent.exists():
        return f"directory {quote(str(parent), PATH_LIMIT)} does not exist"
    if not parent.is_dir():
        return f"{quote(str(parent), PATH_LIMIT)} is not a directory"
    return None


def output_file(text: str, option: str) -> Path:
    """A file option to append to (``--record FILE``): its directory must exist and the file be
    writable — checked now, by opening it for appending (an existing file is not changed);
    ``UsageError`` naming the option and the problem otherwise."""
    path = Path(text).expanduser()
    problem = directory_problem(path)
    if problem is None and path.is_dir():
        problem = "is a directory"
    if problem is None:
        try:
            with open(path, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            problem = f"cannot be written ({exc.strerror or exc})"
    if problem is not None:
        raise UsageError(f"{option} {quote(text, PATH_LIMIT)}: {problem}")
    return path


def kept_file(text: str | None, default: str, option: str) -> Path:
    """Where a game keeps what was played, between sessions: the option's FILE (``text``, checked
    by ``output_file``), else ``default`` in the user data directory (made if missing: it is
    ours); ``UsageError`` when neither can be written."""
    if text is not None:
        return output_file(text, option)
    path = user_data_dir() / default
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot make the directory {str(path.parent)!r} ({exc.strerror or exc}): give {option} "
                         "FILE, or keep nothing") from None
    return output_file(str(path), option)


def print_json(obj: object) -> None:
    """One JSON object on stdout: a dict, or a response model (``quintet.schema``, ``solver.advisor.schema``)."""
    dump = getattr(obj, "model_dump", None)
    if dump is not None:
        obj = dump(mode="json")
    json.dump(obj, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def extra_missing(exc: ModuleNotFoundError) -> bool:
    """Whether the missing module is another distribution's (an extra not installed), not this project's."""
    return (exc.name or "quintet").partition(".")[0] not in ("quintet", "solver")


@contextmanager
def needs_extra(prog: str, extra: str) -> Iterator[None]:
    """Around the imports of what pyproject.toml's extra ``extra`` brings: one of them missing is one line
    naming the install command on stderr, and exit 2."""
    try:
        yield
    except ModuleNotFoundError as exc:
        if not extra_missing(exc):
            raise
        print(f"{prog} needs the {extra} extra: pip install 'quintet-solver[{extra}]'", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


def run_cli(prog: str, body: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None) -> int:
    """Run ``body``; the user's mistakes (``InputError``: ``UsageError`` too), a file that cannot
    be used (``OSError``) and faults (``Fault``) become one line on stderr and exit 2, Ctrl-C exit
    130.  Anything else — a bare ``ValueError`` too — is a bug and surfaces with its traceback.

    Run as the process's own command (``argv`` None), everything the command made is then frozen
    out of the garbage collector (``gc.freeze``): the interpreter's final collections at exit
    skip it, a good part of every run's teardown (numba's loaded kernels make many objects;
    ``benchmarks/bench_startup.py`` measures the teardown).  Nothing is lost: files and the store
    are closed by then, and ``atexit`` hooks still run.
    """
    try:
        return body(argv)
    except BrokenPipeError:  # pragma: no cover - e.g. piped into `head`
        return 0
    except (InputError, OSError, Fault) as exc:  # a fault here: a file the user named (--store)
        message = one_line(exc) if str(exc).strip() else type(exc).__name__
        print(f"{prog}: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    finally:
        if argv is None:
            gc.freeze()
