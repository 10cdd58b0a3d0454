"""JSON lines files — one JSON value a line: the games' records (``quintet-play --record``) and
the poker hands' history (``quintet poker --history``) — read the one way both are read.

    >>> from pathlib import Path; import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> _ = path.write_text('{"a": 1}\\n\\n[2]\\n')
    >>> list(read_json_lines(path, ValueError, "records file"))
    [(1, {'a': 1}), (3, [2])]
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

__all__ = ["read_json_lines"]


def read_json_lines(path: str | Path, error: type[ValueError], what: str) -> Iterator[tuple[int, object]]:
    """(line number, value) of each line that is not blank; ``error`` naming the file (``what``:
    "records file") when it is missing or unreadable, and the line when it is not JSON."""
    path = Path(path)
    if not path.is_file():
        raise error(f"{what} {str(path)!r} not found")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read ({exc})") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{path}: line {number}: not valid JSON ({exc.msg})") from None
        yield number, value
