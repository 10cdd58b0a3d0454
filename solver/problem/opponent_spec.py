"""The opponent models' registry, and the one parser and writer of the text every front-end takes.

A model is registered once (``register_opponent``, an ``OpponentKind``: its name, a label and a
help line, how it is built, whether it reads a file, whether the computer plays it at a table,
how a tournament names it); the command lines' help, the HTTP schema, ``GET /api/opponents``
(the page's menus), the computer, the puzzles and the tournament read the registry.

    SPEC  := TERM ("," TERM)*          (at most MAX_TERMS terms, MAX_SPEC_LENGTH characters)
    TERM  := NAME [":" SOURCE] [":" WEIGHT]
    NAME  := a registered model: uniform | greedy | equilibrium | population | style | …

* a model with a ``load`` (``population``, ``style``) takes a file (``population:FILE``) where
  files may be read — the command line — or, without one, the data given beside the
  specification (the HTTP API's ``population`` and ``style`` fields).  A server never reads a
  file a client names (``files=False``).  The others take no source.
* ``WEIGHT`` is a positive finite number; weights are relative (a mixture is normalized).
  A file whose name is a number is written ``./NAME``; a file name cannot hold a comma.

``OpponentSpec.parse(text).format()`` is the canonical spelling (parse ∘ format is the
identity on specifications), and ``resolve(deal, …)`` builds the model:

    >>> spec = OpponentSpec.parse("uniform:0.3, greedy:0.7")
    >>> spec.format(), spec.needs_equilibrium
    ('uniform:0.3,greedy:0.7', False)
    >>> OpponentSpec.parse("style:me.jsonl", files=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    solver.problem.opponents.OpponentError: opponent 'style' names a file: a server reads no files; ...
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from quintet.game import Arrangement, Deal
from quintet.text import quote

from ..storage.records import RecordError
from .deal_tables import DealTables
from .opponents import (
    ArrangementMix,
    Greedy,
    Mixture,
    OpponentError,
    OpponentModel,
    Uniform,
    greedy_arrangement,
    load_population,
    random_arrangement,
)
from .style import StyleModel, load_style

__all__ = ["EQUILIBRIUM", "MAX_SPEC_LENGTH", "MAX_TERMS", "MIXTURE_HELP", "OpponentKind", "register_opponent",
           "opponent_kinds", "opponent_kind", "opponent_help", "OpponentTerm", "OpponentSpec", "parse_opponent",
           "check_usable"]

EQUILIBRIUM = "equilibrium"
"""The model every caller gives itself (the deal's certified equilibrium mix, solved or stored)."""
MAX_SPEC_LENGTH = 1000  # characters
MAX_TERMS = 16
MIXTURE_HELP = "a mixture such as uniform:0.3,greedy:0.7 (weights are relative; equilibrium may be one of its terms)"


@dataclass(frozen=True)
class OpponentKind:
    """One opponent model, as every front-end shows and builds it.

    ``model()`` builds it (the same on every deal); without it, a ``load(file, deal)`` reads it
    from ``NAME:FILE``, or a term without a file takes ``data`` (the words naming the request's
    field that holds it), or — ``equilibrium`` — the caller gives it.  ``plays``: the computer
    plays it at a table (what it does, one line; ``draw(deal, seed)`` its arrangement), else
    the computer best-responds to it (``br:NAME``).  ``tournament``: the strategies naming it
    in a default round robin (``NAME`` and/or ``br:NAME``)."""

    name: str
    label: str  # a few words for a menu
    help: str  # one line: what the model is
    model: Callable[[], OpponentModel] | None = None
    load: Callable[[str, Deal], OpponentModel] | None = None
    data: str | None = None
    plays: str | None = None
    draw: Callable[[Deal, int], Arrangement] | None = None
    tournament: tuple[str, ...] = ()

    @property
    def standalone(self) -> bool:
        """Needs no file and no data: a puzzle's opponent, a menu's choice on the page."""
        return self.load is None and self.data is None


_KINDS: dict[str, OpponentKind] = {}


def register_opponent(kind: OpponentKind) -> None:
    """Add a model to the registry (``ValueError`` for a name taken or one that cannot be spelled)."""
    if kind.name in _KINDS or not kind.name.isidentifier():
        raise ValueError(f"cannot register the opponent {quote(kind.name)}: taken, or not a plain name")
    _KINDS[kind.name] = kind


def opponent_kinds() -> tuple[OpponentKind, ...]:
    """Every registered model, in the order registered."""
    return tuple(_KINDS.values())


def opponent_kind(name: str) -> OpponentKind:
    """The model called ``name``; ``OpponentError`` (naming the models) for an unknown one."""
    try:
        return _KINDS[name]
    except KeyError:
        raise OpponentError(f"unknown opponent {quote(name, 40)} (use {', '.join(_KINDS)}, "
                            "or a mixture such as uniform:0.3,greedy:0.7)") from None


def opponent_help(*, files: bool = True) -> str:
    """The words for an opponent specification: every model, then the mixture; ``files=False``:
    as a server takes it (a model with a file takes its data from the request instead)."""
    return " | ".join([*(f"{k.name}{':FILE' if k.load and files else ''} ({k.help}"
                         f"{'; ' + k.data if k.data and not files else ''})" for k in _KINDS.values()), MIXTURE_HELP])


def _style(path: str, deal: Deal) -> StyleModel:
    try:
        return load_style(path, deal.rules)
    except RecordError as exc:
        raise OpponentError(str(exc)) from None


for _kind in (
    OpponentKind(EQUILIBRIUM, "equilibrium (certified)", "the deal's certified equilibrium mix, which no "
                 "arrangement beats by more than its exploitability ε",
                 plays="a sample from the deal's certified equilibrium mix", tournament=(EQUILIBRIUM,)),
    OpponentKind("uniform", "uniform random", "a uniformly random arrangement", model=Uniform,
                 plays="a random arrangement", draw=random_arrangement, tournament=("uniform", "br:uniform")),
    OpponentKind("greedy", "greedy", "the strongest hand left, again and again, laid weakest in slot 1",
                 model=Greedy, plays="the strongest hand left, again and again, weakest in slot 1",
                 draw=lambda deal, seed: greedy_arrangement(DealTables.build(deal)),
                 tournament=("greedy", "br:greedy")),
    OpponentKind("population", "population", "observed arrangements, JSON or CSV, optional weights",
                 load=load_population, data="the arrangements in the field 'population'"),
    OpponentKind("style", "style", "a style learned from game records, JSON lines", load=_style,
                 data="the records in the field 'style'"),
):
    register_opponent(_kind)


def _weight(text: str) -> float | None:
    """The number ``text`` spells (ASCII digits, sign, point, exponent), None when it is none."""
    if not text or not text.isascii() or not all(c in "0123456789.+-eE" for c in text):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _source(text: str) -> str:
    """A file name as read: ``./`` dropped before a name that reads as a number (``format``
    writes such a name so, to keep it from being read as a weight; it is the same file)."""
    return text[2:] if text.startswith("./") and _weight(text[2:]) is not None else text


def _format_weight(weight: float) -> str:
    return repr(weight) if not weight.is_integer() else str(int(weight)) if abs(weight) < 1e15 else repr(weight)


@dataclass(frozen=True)
class OpponentTerm:
    """One model of a specification: ``name`` (registered), a file ``source`` (a model with a
    ``load`` only; None: the data given with the request), a ``weight`` (None: unweighted, 1)."""

    name: str
    source: str | None = None
    weight: float | None = None

    def __post_init__(self) -> None:
        sourced = opponent_kind(self.name).load is not None
        if self.source is not None and (not sourced or not self.source or "," in self.source):
            raise OpponentError(f"opponent {quote(self.name)} takes no file {quote(self.source)}"
                                if not sourced else f"bad file name {quote(self.source)}")
        if self.weight is not None and not (math.isfinite(self.weight) and self.weight > 0):
            raise OpponentError(f"the weight of {quote(self.name)} must be a positive number, got {self.weight:g}")

    @classmethod
    def parse(cls, text: str) -> OpponentTerm:
        name, sep, rest = text.strip().partition(":")
        name = name.strip()
        sourced = opponent_kind(name).load is not None
        if not sep:
            return cls(name)
        rest = rest.strip()
        weight = _weight(rest)
        if weight is not None:
            return cls(name, None, weight)
        if not sourced:
            raise OpponentError(f"the weight of {quote(name)} must be a positive number, got {quote(rest)}")
        source, sep, last = rest.rpartition(":")
        weight = _weight(last) if sep else None
        if weight is not None:
            return cls(name, _source(source.strip()) or None, weight)
        if not rest:
            raise OpponentError(f"opponent {quote(name + ':')} needs a file name after ':'")
        return cls(name, _source(rest))

    def format(self) -> str:
        parts = [self.name]
        if self.source is not None:
            source = self.source
            if _weight(source) is not None or (":" in source and _weight(source.rpartition(":")[2]) is not None):
                source = "./" + source if not source.startswith(("./", "/")) else source
            parts.append(source)
        if self.weight is not None:
            parts.append(_format_weight(self.weight))
        return ":".join(parts)

    def label(self) -> str:
        """The term as records and headings show it: a file as its name and the first 8 hex digits
        of its content's SHA-256 (``style:games.jsonl@3f0c12ab``), never its path (a local detail)."""
        if self.source is None:
            return self.format()
        try:
            digest = "@" + hashlib.sha256(Path(self.source).expanduser().read_bytes()).hexdigest()[:8]
        except OSError:
            digest = ""
        return replace(self, source=Path(self.source).name + digest).format()


@dataclass(frozen=True)
class OpponentSpec:
    """A parsed opponent specification (module doc): one or more weighted terms."""

    terms: tuple[OpponentTerm, ...]

    def __post_init__(self) -> None:
        if not self.terms:
            raise OpponentError("empty opponent specification")
        if len(self.terms) > MAX_TERMS:
            raise OpponentError(f"an opponent mixture has at most {MAX_TERMS} terms, got {len(self.terms)}")

    @classmethod
    def parse(cls, text: str, *, files: bool = True) -> OpponentSpec:
        """Read a specification; ``files=False`` refuses every file source (a server's rule)."""
        if not isinstance(text, str):
            raise OpponentError(f"an opponent specification is text, got {quote(text)}")
        if len(text) > MAX_SPEC_LENGTH:
            raise OpponentError(f"opponent specification is too long ({len(text):,} characters; "
                                f"at most {MAX_SPEC_LENGTH:,})")
        parts = text.split(",")
        if not text.strip() or any(not p.strip() for p in parts):
            raise OpponentError(f"empty opponent specification {quote(text)}" if not text.strip()
                                else f"empty term in opponent specification {quote(text)}")
        if len(parts) > MAX_TERMS:
            raise OpponentError(f"an opponent mixture has at most {MAX_TERMS} terms, got {len(parts)}")
        spec = cls(tuple(OpponentTerm.parse(p) for p in parts))
        if not files:
            spec.refuse_files()
        return spec

    def format(self) -> str:
        return ",".join(t.format() for t in self.terms)

    def label(self) -> str:
        """The specification as records and headings show it (``OpponentTerm.label``: no path)."""
        return ",".join(t.label() for t in self.terms)

    def __str__(self) -> str:
        return self.format()

    def refuse_files(self) -> None:
        """Raise ``OpponentError`` if any term names a file (the same words whatever the file)."""
        for t in self.terms:
            if t.source is not None:
                raise OpponentError(f"opponent {quote(t.name)} names a file: a server reads no files; "
                                    f"send {opponent_kind(t.name).data}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.terms)

    @property
    def is_equilibrium(self) -> bool:
        """Exactly the one model ``equilibrium``: the answer is the equilibrium itself."""
        return len(self.terms) == 1 and self.terms[0].name == EQUILIBRIUM

    @property
    def needs_equilibrium(self) -> bool:
        return EQUILIBRIUM in self.names

    def needs_data(self, name: str) -> bool:
        """Does a term ``name`` (``population``, ``style``) take its data from beside the specification?"""
        return any(t.name == name and t.source is None for t in self.terms)

    def resolve(self, deal: Deal, *, equilibrium: OpponentModel | None = None,
                population: ArrangementMix | None = None, style: StyleModel | None = None,
                files: bool = True, extra: Mapping[str, OpponentModel] | None = None) -> OpponentModel:
        """The model for ``deal``.  ``equilibrium``, ``population`` and ``style`` are the models
        of terms without a file; ``files=False`` refuses file terms again (no file is opened);
        ``extra`` replaces named models (a stand-in equilibrium while checking a request)."""
        if not files:
            self.refuse_files()
        given: dict[str, OpponentModel | None] = {EQUILIBRIUM: equilibrium, "population": population,
                                                  "style": style, **(extra or {})}
        models: list[OpponentModel] = []
        for t in self.terms:
            kind = opponent_kind(t.name)
            model = (kind.model() if kind.model is not None else given.get(t.name) if t.source is None
                     else kind.load(t.source, deal) if kind.load is not None else None)
            if model is None:
                raise OpponentError(f"opponent {quote(t.name)} needs " + (
                    "the deal's equilibrium" if kind.data is None else kind.data
                    + (" (or a file, on the command line)" if files else "")))
            models.append(model)
        if len(models) == 1:
            return models[0]
        return Mixture(tuple(models), tuple(1.0 if t.weight is None else t.weight for t in self.terms))


def parse_opponent(spec: str, deal: Deal, extra: Mapping[str, OpponentModel] | None = None, *,
                   files: bool = True) -> OpponentModel:
    """``OpponentSpec.parse(spec).resolve(deal)``: the model a specification names for ``deal``;
    ``extra`` gives the models of terms without a file (``equilibrium``, ``population``, ``style``)."""
    return OpponentSpec.parse(spec, files=files).resolve(deal, files=files, extra=extra)


def check_usable(spec: OpponentSpec, deal: Deal, **data: Any) -> None:
    """Refuse now, in one line, a model ``spec`` cannot make for ``deal`` (a file that cannot be
    read, data missing): ``resolve`` with ``data``, the equilibrium (not solved yet) stood in by uniform."""
    spec.resolve(deal, extra={"equilibrium": Uniform()}, **data)
