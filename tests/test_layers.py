"""Layers: the classic Quintet path never loads the draw-poker code; quintet/ never imports solver/.

Each check runs in a fresh interpreter, so that what other tests imported cannot hide an import.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

CLASSIC_GAME = """
    import quintet.evaluator as ev
    from quintet.game import Arrangement, Deal, showdown
    from quintet.rules import get_rules

    deal = Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc")
    assert ev.rank_packets(deal.live).n_classes == 749
    for rules in (get_rules("classic"), get_rules("classic", tiebreak="group-only", ace_low_straight=True)):
        value = ev.evaluate("As Ah Ad 8c 8d", rules)
        assert value.description == "full house, aces over eights"
        assert ev.category_of_key(value.key, rules) == value.category
        ev.hand_keys(ev.rank_packets(deal.live, rules).masks, rules)
    a = Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h")
    showdown(a, a, deal)
"""

CLASSIC_SOLVER = """
    from quintet.game import Deal
    from quintet import symmetry as canonical
    from solver.advisor.advice import best_response
    from solver.advisor.equilibrium import equilibrium
    from solver.problem.deal_tables import DealTables

    deal = Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc")
    assert DealTables.build(deal).n_classes == 749
    canonical.canonical_exposed(deal.exposed, group=canonical.symmetry_group(deal.rules))
    assert best_response(deal, "uniform").optimal
    equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0, time_limit=60)
"""

DRAW_HAND = """
    from quintet.rules import get_rules
    assert ev.evaluate("As Ah Ad Ac Jk", get_rules("draw54")).description == "five of a kind, aces"
"""

REPORT = """
    import json, sys
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("quintet", "solver"))))
"""


def modules_after(*steps: str) -> list[str]:
    """The quintet/solver modules loaded by a fresh interpreter that runs ``steps``."""
    code = "".join(textwrap.dedent(s) for s in (*steps, REPORT))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def draw_modules(modules: list[str]) -> list[str]:
    return [m for m in modules if m == "quintet.draw" or m.startswith("quintet.draw.")]


def test_classic_game_path_loads_no_draw_module():
    modules = modules_after(CLASSIC_GAME)
    assert "quintet.evaluator" in modules and "quintet.kernels" in modules
    assert draw_modules(modules) == []


def test_classic_solver_path_loads_no_draw_module():
    modules = modules_after(CLASSIC_SOLVER)
    assert {"solver.problem.deal_tables", "quintet.symmetry", "solver.advisor.equilibrium"} <= set(modules)
    assert draw_modules(modules) == []


def test_a_draw_rule_set_loads_the_draw_package_on_first_use():
    # the control of the two tests above: the same check sees quintet.draw once a draw hand is ranked
    modules = modules_after(CLASSIC_GAME, DRAW_HAND)
    assert {"quintet.draw", "quintet.draw.tables", "quintet.draw.kernels"} <= set(draw_modules(modules))


def test_quintet_never_imports_solver():
    modules = modules_after("import quintet.cli, quintet.draw.cli\n", CLASSIC_GAME, DRAW_HAND)
    assert "quintet.draw.cli" in modules
    assert [m for m in modules if m.split(".")[0] == "solver"] == []
