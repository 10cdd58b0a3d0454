"""Deal tables: the live cards of a deal and every packet (5-card subset) of them, ranked.

``DealTables.build(deal)`` runs the core's batch kernel once: 53,130 packets for a Quintet
deal, each with its mask, strength key and dense rank class 0..R−1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from quintet.evaluator import PacketTable, rank_packets
from quintet.game import Arrangement, Deal
from quintet.rules import Rules

__all__ = ["DealTables"]


@dataclass(frozen=True)
class DealTables:
    deal: Deal
    packets: PacketTable
    _lookup: list[np.ndarray] = field(default_factory=list, repr=False, compare=False)  # [order, sorted masks]

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

    def index_of(self, packet_mask: int) -> int:
        """Index in the packet table of a 5-card subset of the live cards (a binary search in
        the masks sorted once: a few ms to prepare, where a dict of all packets took ~50 ms)."""
        if not self._lookup:
            order = np.argsort(self.packets.masks, kind="stable")
            self._lookup.extend((order, self.packets.masks[order]))
        order, ordered = self._lookup
        mask = int(packet_mask)
        if 0 <= mask <= np.iinfo(ordered.dtype).max:
            i = int(np.searchsorted(ordered, mask))
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
