"""MkDocs hook: the benchmark results join the site as they stand in the repository.

``benchmarks/RESULTS.md`` and the plots it shows are written by the benchmark scripts; the
site serves them as the page ``benchmarks/RESULTS/`` at build time instead of a copy under
``docs/`` that would drift.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path in [BENCHMARKS / "RESULTS.md", *sorted(BENCHMARKS.glob("*.png"))]:
        files.append(File.generated(config, f"benchmarks/{path.name}", abs_src_path=str(path)))
    return files
