"""Heads-up draw poker by counterfactual regret minimisation (docs/draw-poker.md, "The CFR strategy").

The algorithms, apart from any game:

* ``tree`` — the game interface: a two-player zero-sum game as a public tree over private types;
* ``solve`` — CFR+, external-sampling MCCFR, exact best response and exploitability over any such tree
  (``kernels``: their numba walks);
* ``toys`` — Kuhn and Leduc poker, the games with known answers that check the solvers.

The game:

* ``classes`` — the card abstraction: classes of hands before and after the exchange, exact transitions;
* ``betting`` — the abstract game: the exact betting of ``quintet.draw.game`` over those classes;
* ``strategy`` — the solved strategy: trained by CFR+, stored, shipped (``data/``), looked up;
* ``bot`` — the CFR bot at a real table, and its advice (``quintet poker``'s ``hint``);
* ``lbr`` — a local best response in the real game (a lower bound on the real exploitability);
* ``aivat`` — control variates of the CFR bot's decisions after the exchange, for matches at a real table.
"""
