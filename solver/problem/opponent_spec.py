"""The opponent specification: the one parser and writer of the text every front-end takes.

    SPEC  := TERM ("," TERM)*          (at most MAX_TERMS terms, MAX_SPEC_LENGTH characters)
    TERM  := NAME [":" SOURCE] [":" WEIGHT]
    NAME  := uniform | greedy | equilibrium | population | style

* ``uniform``, ``greedy``, ``equilibrium`` take no source; ``population`` and ``style`` take
  a file (``population:FILE``, ``style:FILE``) where files may be read — the command line —
  or, without one, the data given beside the specification (the HTTP API's ``population``
  and ``style`` fields).  A server never reads a file a client names (``files=False``).
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

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quintet.game import Deal
from quintet.text import quote

from ..storage.records import RecordError
from .opponents import ArrangementMix, Greedy, Mixture, OpponentError, OpponentModel, Uniform, load_population
from .style import StyleModel, load_style

__all__ = ["MODEL_NAMES", "MAX_SPEC_LENGTH", "MAX_TERMS", "OpponentTerm", "OpponentSpec", "OPPONENT_HELP",
           "parse_opponent", "check_usable"]

MODEL_NAMES = ("uniform", "greedy", "equilibrium", "population", "style")
_SOURCED = ("population", "style")
MAX_SPEC_LENGTH = 1000  # characters
MAX_TERMS = 16

OPPONENT_HELP = (
    "uniform | greedy | population:FILE (JSON/CSV of arrangements, optional weights) | "
    "style:FILE (a style learned from game records, JSON lines) | a mixture such as uniform:0.3,greedy:0.7 "
    "(equilibrium may be one of its terms)"
)
_NAMES_HELP = "use uniform, greedy, equilibrium, population, style, or a mixture such as uniform:0.3,greedy:0.7"
_DATA_FIELD = {"population": "the arrangements in the field 'population'", "style": "the records in the field 'style'"}
"""Where a term without a file takes its data from, over the HTTP API (and the Python API's arguments)."""


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
    """One model of a specification: ``name`` (``MODEL_NAMES``), a file ``source`` (population and
    style only; None: the data given with the request), a ``weight`` (None: unweighted, 1)."""

    name: str
    source: str | None = None
    weight: float | None = None

    def __post_init__(self) -> None:
        if self.name not in MODEL_NAMES:
            raise OpponentError(f"unknown opponent {quote(self.name, 40)} ({_NAMES_HELP})")
        if self.source is not None and (self.name not in _SOURCED or not self.source or "," in self.source):
            raise OpponentError(f"opponent {quote(self.name)} takes no file {quote(self.source)}"
                                if self.name not in _SOURCED else f"bad file name {quote(self.source)}")
        if self.weight is not None and not (math.isfinite(self.weight) and self.weight > 0):
            raise OpponentError(f"the weight of {quote(self.name)} must be a positive number, got {self.weight:g}")

    @classmethod
    def parse(cls, text: str) -> OpponentTerm:
        name, sep, rest = text.strip().partition(":")
        name = name.strip()
        if name not in MODEL_NAMES:
            raise OpponentError(f"unknown opponent {quote(name, 40)} ({_NAMES_HELP})")
        if not sep:
            return cls(name)
        rest = rest.strip()
        weight = _weight(rest)
        if weight is not None:
            return cls(name, None, weight)
        if name not in _SOURCED:
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

    def __str__(self) -> str:
        return self.format()

    def refuse_files(self) -> None:
        """Raise ``OpponentError`` if any term names a file (the same words whatever the file)."""
        for t in self.terms:
            if t.source is not None:
                raise OpponentError(f"opponent {quote(t.name)} names a file: a server reads no files; "
                                    f"send {_DATA_FIELD[t.name]}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.terms)

    @property
    def is_equilibrium(self) -> bool:
        """Exactly the one model ``equilibrium``: the answer is the equilibrium itself."""
        return len(self.terms) == 1 and self.terms[0].name == "equilibrium"

    @property
    def needs_equilibrium(self) -> bool:
        return "equilibrium" in self.names

    def needs_data(self, name: str) -> bool:
        """Does a ``population``/``style`` term take its data from beside the specification?"""
        return any(t.name == name and t.source is None for t in self.terms)

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(t.source for t in self.terms if t.source is not None)

    def resolve(self, deal: Deal, *, equilibrium: OpponentModel | None = None,
                population: ArrangementMix | None = None, style: StyleModel | None = None,
                files: bool = True, extra: Mapping[str, OpponentModel] | None = None) -> OpponentModel:
        """The model for ``deal``.  ``equilibrium``, ``population`` and ``style`` are the models
        of terms without a file; ``files=False`` refuses file terms again (no file is opened);
        ``extra`` replaces named models (a stand-in equilibrium while checking a request)."""
        if not files:
            self.refuse_files()
        given: dict[str, OpponentModel | None] = {"equilibrium": equilibrium, "population": population,
                                                  "style": style, **(extra or {})}
        models: list[OpponentModel] = []
        for t in self.terms:
            if t.name == "uniform":
                models.append(Uniform())
            elif t.name == "greedy":
                models.append(Greedy())
            elif t.source is not None and t.name == "population":
                models.append(load_population(t.source, deal))
            elif t.source is not None:
                try:
                    models.append(load_style(t.source, deal.rules))
                except RecordError as exc:
                    raise OpponentError(str(exc)) from None
            else:
                model = given.get(t.name)
                if model is None:
                    raise OpponentError(f"opponent {quote(t.name)} needs " + (
                        "the deal's equilibrium" if t.name == "equilibrium" else _DATA_FIELD[t.name]
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
