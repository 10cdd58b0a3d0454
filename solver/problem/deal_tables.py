"""Deal tables: the live cards of a deal and every packet (5-card subset) of them, ranked.

``DealTables.build(deal)`` runs the core's batch kernel once: 53,130 packets for a Quintet
deal, each with its mask, strength key and dense rank class 0..R−1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from quintet.evaluator import PacketTable, rank_packets
from quintet.game import Arrangement, Deal
from quintet.rules import Rules

__all__ = ["DealTables"]

T = TypeVar("T")


@dataclass(frozen=True)
class DealTables:
    deal: Deal
    packets: PacketTable
    _derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(cls, deal: Deal) -> DealTables:
        return cls(deal, rank_packets(deal.live, deal.rules))

    @property
    def rules(self) -> Rules:
        return self.deal.rules

    @property
    def masks(self) -> np.ndarray:
        return self.packets.masks

    @property
    def classes(self) -> np.ndarray:
        return self.packets.classes

    @property
    def n_classes(self) -> int:
        return self.packets.n_classes

    @property
    def n_slots(self) -> int:
        return self.deal.rules.n_slots

    def derived(self, key: str, build: Callable[[DealTables], T]) -> T:
        """``build(self)``, computed once per tables object (engines cache their lookups here)."""
        if key not in self._derived:
            self._derived[key] = build(self)
        return self._derived[key]

    def index_of(self, packet_mask: int) -> int:
        """Index in the packet table of a 5-card subset of the live cards (a binary search in
        the masks sorted once: a few ms to prepare, where a dict of all packets took ~50 ms)."""
        order, ordered = self.derived("masks in order", _masks_in_order)
        mask = int(packet_mask)
        if 0 <= mask <= np.iinfo(ordered.dtype).max:
            i = int(np.searchsorted(ordered, np.array(mask, dtype=ordered.dtype)))  # exact: no float cast
            if i < len(ordered) and int(ordered[i]) == mask:
                return int(order[i])
        raise ValueError(f"{mask:#x} is not a packet of this deal")

    def arrangement_classes(self, arrangement: Arrangement) -> np.ndarray:
        """Rank class of each slot's packet (int32[n_slots]); the arrangement must be legal."""
        return np.array(
            [self.packets.classes[self.index_of(p)] for p in arrangement.packets], dtype=np.int32
        )

    def arrangement_of(self, packet_indices: tuple[int, ...] | list[int]) -> Arrangement:
        return Arrangement(tuple(int(self.packets.masks[i]) for i in packet_indices))


def _masks_in_order(tables: DealTables) -> tuple[np.ndarray, np.ndarray]:
    """(order, masks[order]): the packet masks sorted, for binary searches."""
    order = np.argsort(tables.packets.masks, kind="stable")
    return order, tables.packets.masks[order]
