"""The computer's side of a game: what it plays (``ComputerSpec``), and the arrangement it lays.

    >>> ComputerSpec.parse("greedy").format(), ComputerSpec.parse("br:uniform").format()
    ('greedy', 'br:uniform')
    >>> ComputerSpec.parse("style:me.jsonl").format()       # a model of you: its best response
    'br:style:me.jsonl'

Spellings (``quintet-play --opponent``, the tables' ``opponent``, the tournament's strategies):

* a registered model the computer plays (``OpponentKind.plays``, ``solver.problem.opponent_spec``):
  ``equilibrium`` — a sample (seeded) from the deal's certified equilibrium mix; ``greedy``;
  ``uniform`` — a uniformly random arrangement (seeded); …
* ``br:MODEL``, or any other opponent specification (``population:FILE``, ``style:FILE``, a
  mixture) — the best response to that model of the player.

The computer's **model** is the distribution its arrangement is drawn from, as the player may
know it: the equilibrium mix (not the sample drawn from it), the uniform model, or the one
arrangement a deterministic strategy (greedy, a best response) plays.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from quintet.game import Arrangement, Deal
from quintet.text import quote
from solver.advisor.advice import complete
from solver.advisor.equilibrium import EquilibriumResult
from solver.problem.opponent_spec import EQUILIBRIUM, OpponentSpec, opponent_help, opponent_kind, opponent_kinds
from solver.problem.opponents import ArrangementMix, OpponentError, OpponentModel

__all__ = ["ComputerSpec", "Computer", "EquilibriumProvider", "computer_plays", "computer_help", "played_model",
           "computer_model"]

EquilibriumProvider = Callable[[Deal, "threading.Event | None"], EquilibriumResult]
"""``provider(deal, stop_event)``: the deal's equilibrium (e.g. ``solve_equilibrium`` through
the store, with progress), stopping early with the best certified mix when the event is set
(``None``: no stop).  The computer, the tables and the tournament take it."""


def computer_plays() -> tuple[str, ...]:
    """The registered models the computer plays as such; anything else is a model of the player
    it best-responds to."""
    return tuple(k.name for k in opponent_kinds() if k.plays is not None)


def computer_help(*, files: bool = True) -> str:
    """The words for ``quintet-play --opponent`` (``files=False``: a table's, on a server)."""
    plays = "; ".join(f"{k.name} ({k.plays})" for k in opponent_kinds() if k.plays is not None)
    return f"{plays}; or a model of you it best-responds to: br:MODEL or {opponent_help(files=files)}"


def played_model(name: str, equilibrium: EquilibriumResult | None) -> OpponentModel:
    """The model of a strategy the computer plays as such (``computer_plays``): the
    ``equilibrium``'s mix (``OpponentError`` without one), or the registered model."""
    if name == EQUILIBRIUM:
        if equilibrium is None:
            raise OpponentError("the computer played the equilibrium: its model needs the deal's equilibrium")
        return equilibrium.opponent()
    model = opponent_kind(name).model
    assert model is not None, f"the computer plays {name}: its registered kind needs a model"
    return model()


@dataclass(frozen=True)
class ComputerSpec:
    """What the computer plays: ``plays`` one of ``computer_plays()``, or (``plays`` None) the best
    response to ``target``, a model of the player."""

    plays: str | None = EQUILIBRIUM
    target: OpponentSpec | None = None

    def __post_init__(self) -> None:
        if (self.plays is None) == (self.target is None) or (self.plays is not None
                                                             and self.plays not in computer_plays()):
            raise OpponentError(f"a computer plays {', '.join(computer_plays())}, or a best response to a model")

    @classmethod
    def parse(cls, text: str, *, files: bool = True) -> ComputerSpec:
        """Read ``--opponent``; ``files=False`` refuses models read from files (a server's rule)."""
        if not isinstance(text, str):
            raise OpponentError(f"the computer's opponent is text, got {quote(text)}")
        stripped = text.strip()
        if stripped in computer_plays():
            return cls(stripped)
        target = stripped[len("br:"):] if stripped.startswith("br:") else stripped
        return cls(None, OpponentSpec.parse(target, files=files))

    def format(self) -> str:
        return self.plays if self.target is None else f"br:{self.target.format()}"  # type: ignore[return-value]

    def label(self) -> str:
        """As records and headings show it: a file as its name and content hash, not its path
        (``OpponentSpec.label``)."""
        return self.plays if self.target is None else f"br:{self.target.label()}"  # type: ignore[return-value]

    @property
    def needs_equilibrium(self) -> bool:
        return self.plays == EQUILIBRIUM or (self.target is not None and self.target.needs_equilibrium)


@dataclass(frozen=True)
class Computer:
    """The computer's side of one game: what it plays, and the model it plays from."""

    spec: str  # the ``--opponent`` text as records show it (``ComputerSpec.label``: no file's path)
    arrangement: Arrangement  # laid before the player arranges; hidden until the show-down
    model: OpponentModel  # the distribution the arrangement is drawn from (see the module doc)
    description: str  # one line for people
    equilibrium: EquilibriumResult | None = None

    @classmethod
    def choose(cls, deal: Deal, spec: ComputerSpec | str, *, seed: int = 0,
               equilibrium: EquilibriumProvider | None = None, time_limit: float | None = None,
               stop_event: threading.Event | None = None, files: bool = True) -> Computer:
        """The computer for ``spec`` (module doc) on ``deal``, its random draws seeded by ``seed``.

        Raises ``OpponentError`` (one line) for a specification or file that cannot be used.
        """
        spec = ComputerSpec.parse(spec, files=files) if isinstance(spec, str) else spec
        name = spec.label()
        eq = _need(equilibrium)(deal, stop_event) if spec.needs_equilibrium else None
        if spec.plays == EQUILIBRIUM:
            assert eq is not None
            source = "from the store" if eq.from_store else f"solved in {eq.seconds:.1f} s"
            status = "" if eq.converged else " (target not reached)"
            return cls(name, eq.sample(seed), eq.opponent(),
                       f"equilibrium: a sample from its certified mix of {len(eq.mix)} arrangements "
                       f"(no arrangement gains more than {eq.exploitability:.4f} points against it{status}; "
                       f"{source})", eq)
        if spec.plays is not None:
            kind = opponent_kind(spec.plays)
            assert kind.draw is not None, f"the computer plays {kind.name}: its registered kind needs a draw"
            return cls(name, kind.draw(deal, seed), played_model(kind.name, None), f"{name}: {kind.plays}")
        assert spec.target is not None
        target = spec.target.resolve(deal, equilibrium=None if eq is None else eq.opponent(), files=files)
        sol = complete(deal, {}, target, time_limit=time_limit, stop_event=stop_event)
        proof = "proven optimal" if sol.optimal else f"best found, within {sol.gap:.4f} of optimal"
        return cls(name, sol.arrangement, _best_response_model(sol.arrangement, target.name),
                   f"the best response to {target.name} ({proof}), a model of you")

    @classmethod
    def resume(cls, deal: Deal, spec: ComputerSpec | str, arrangement: Arrangement, description: str, *,
               equilibrium: EquilibriumProvider | None = None, files: bool = True) -> Computer:
        """The computer of a game already under way: ``arrangement`` and ``description`` are what
        ``choose`` gave (a ``quintet-serve`` table keeps them), the model is rebuilt — the
        equilibrium from the provider, a best response's one arrangement with its target's name.
        Nothing is drawn again, so the arrangement stays the one committed to."""
        spec = ComputerSpec.parse(spec, files=files) if isinstance(spec, str) else spec
        arrangement.validate(deal)
        eq = _need(equilibrium)(deal, None) if spec.needs_equilibrium else None
        model = computer_model(spec.label(), arrangement, eq)
        return cls(spec.label(), arrangement, model, description, eq)


def computer_model(spec: str, arrangement: Arrangement, equilibrium: EquilibriumResult | None) -> OpponentModel:
    """The model of a computer that played ``arrangement`` as ``spec`` (a record's
    ``opponent``), read without opening any file: a model it plays as such (``played_model``),
    or a best response's one arrangement.  ``OpponentError``
    for a ``spec`` that is no computer (``friend``) or an equilibrium missing."""
    text = spec.strip() if isinstance(spec, str) else ""
    if text in computer_plays():
        return played_model(text, equilibrium)
    if text.startswith("br:") and len(text) > 3:
        return _best_response_model(arrangement, text[3:])
    raise OpponentError(f"{quote(spec)} is not a computer this program plays ({', '.join(computer_plays())}, "
                        "br:MODEL)")


def _best_response_model(arrangement: Arrangement, target: str) -> ArrangementMix:
    """A best response's model: the one arrangement it plays."""
    return ArrangementMix((arrangement,), (1.0,), name=f"best response to {target}")


def _need(provider: EquilibriumProvider | None) -> EquilibriumProvider:
    if provider is None:
        raise OpponentError("the equilibrium opponent needs an equilibrium provider")
    return provider
