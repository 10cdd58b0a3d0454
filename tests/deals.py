"""The test deals, each declared once (seven exposed cards of the classic 32-card deck)."""

EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"
"""The rule book's example deal (the README's): a best response takes about a second."""

QUICK = "Kc Qh Qd Js 9d 8s 7d"
"""The quick deal: its exact equilibrium takes about a second, CP-SAT's recheck of it far longer."""
