"""MkDocs hooks: the benchmark results join the site as they stand in the repository, and the
paper's figures are computed from the benchmark data at build time.

``benchmarks/RESULTS.md`` and the plots it shows are written by the benchmark scripts; the
site serves them as the page ``benchmarks/RESULTS/`` at build time instead of a copy under
``docs/`` that would drift.  ``docs/paper.md`` is a template whose ``{{name}}`` placeholders
``docs/paper_figures.py`` fills from ``benchmarks/data/``; a missing data file or an unknown
placeholder fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

DOCS = Path(__file__).resolve().parent
BENCHMARKS = DOCS.parent / "benchmarks"
if str(DOCS) not in sys.path:
    sys.path.insert(0, str(DOCS))

import paper_figures  # noqa: E402


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path in [BENCHMARKS / "RESULTS.md", *sorted(BENCHMARKS.glob("*.png"))]:
        files.append(File.generated(config, f"benchmarks/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri != "paper.md":
        return markdown
    try:
        return paper_figures.render(markdown)
    except paper_figures.PaperError as e:
        raise PluginError(str(e)) from e
