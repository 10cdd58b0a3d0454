"""Heads-up draw poker by counterfactual regret minimisation (docs/draw-poker.md, "The CFR strategy").

* ``tree`` — the game interface: a two-player zero-sum game as a public tree over private types;
* ``solve`` — CFR+, external-sampling MCCFR, exact best response and exploitability over any such tree
  (``kernels``: their numba walks);
* ``toys`` — Kuhn and Leduc poker, the games with known answers that check the solvers.
"""
