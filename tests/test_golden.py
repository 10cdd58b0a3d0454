"""Every front-end's JSON for the example deal is what ``tests/data/golden.json`` recorded
(``tests/golden.py``): a refactoring that must not change behaviour is checked by it.

Floats compare to 1e-9 (relative); equilibria and safe mixes by their fields and their
certificate (``tests/golden.py``)."""

from __future__ import annotations

import json
import math
from typing import Any

import golden
import pytest


def _diff(a: Any, b: Any, where: str = "") -> str | None:
    """Where ``a`` and ``b`` first differ ('' when they agree)."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-9,
                                                                                        abs_tol=1e-12):
            return None
        return f"{where}: {a!r} != {b!r}"
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return f"{where}: keys {sorted(a.keys() ^ b.keys())} differ"
        for k in a:
            d = _diff(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            d = _diff(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{where}: {a!r} != {b!r}"


RECORDED = json.loads(golden.GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(golden.COMMANDS))
def test_json_is_as_recorded(name):
    program, args = golden.COMMANDS[name]
    answer = golden.run(program, args)
    # every answer names its kind, every hand its category (a machine name)
    assert answer["kind"] == KINDS[name]
    assert _categorised(answer) == []
    if name in ("solve-equilibrium", "solve-safe"):
        got = golden.structure(answer)
        limit = 0.01 if name == "solve-equilibrium" else 0.5
        assert answer["exploitability"] <= limit + 1e-9
        assert abs(sum(e["probability"] for e in answer["mix"]) - 1) < 1e-9
    else:
        got = golden.normalize(answer)
    assert _diff(RECORDED[name], got) is None, _diff(RECORDED[name], got)


def test_the_comparison_sees_a_change():
    # the control: a changed value, a missing key and a changed list are each seen
    base = {"a": [1.0, {"b": "x"}]}
    assert _diff(base, {"a": [1.0 + 1e-6, {"b": "x"}]})
    assert _diff(base, {"a": [1.0, {}]})
    assert _diff(base, {"a": [1.0]})
    assert _diff(base, {"a": [1.0, {"b": "x"}]}) is None


KINDS = {"solve-uniform": "solution", "solve-greedy": "solution", "solve-mixture": "solution",
         "solve-points": "solution", "solve-fix": "solution", "solve-grade": "grade",
         "solve-equilibrium": "equilibrium", "solve-safe": "safe", "showdown": "showdown", "hand": "hand",
         "compare": "compare", "draw": "draw", "tournament": "tournament"}


def _categorised(value: Any, where: str = "") -> list[str]:
    """Where a hand in words comes without its category (a machine name), in a JSON value."""
    from quintet.rules import Category

    slugs = {c.slug for c in Category.all()}
    missing = []
    if isinstance(value, dict):
        if isinstance(value.get("hand"), str) and value.get("category") not in slugs:
            missing.append(f"{where}.hand")
        hands = value.get("hands")
        if isinstance(hands, list) and all(isinstance(h, str) for h in hands):
            categories = value.get("categories")
            if not (isinstance(categories, list) and len(categories) == len(hands) and set(categories) <= slugs):
                missing.append(f"{where}.hands")
        for k, v in value.items():
            missing += _categorised(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            missing += _categorised(v, f"{where}[{i}]")
    return missing


def test_the_category_check_sees_a_hand_without_one():
    # the control of the check in test_json_is_as_recorded: a hand without its category, or with
    # its words for a category, is seen
    assert _categorised({"x": [{"hand": "four aces", "category": "four of a kind"}]}) == [".x[0].hand"]
    assert _categorised({"hands": ["four aces"], "categories": []}) == [".hands"]
    assert _categorised({"hand": "four aces", "category": "four_of_a_kind"}) == []
