"""The notebook cells that print numbers measured on the standard library's docstrings.

`specdec.text.stdlib_corpus` reads the running Python's own docstrings, which differ between Python
versions; these cells print values measured on it (α, characters per call, speedups). Strict nbval
compares them on the Python the notebooks were executed with; on any other, the repository's root
`conftest.py` has nbval run them without comparing (`leave_corpus_cells_uncompared`). On every Python,
`tests/test_corpus_notebooks.py` checks that they print the same lines with other numbers when the
corpus is another text, and that no other cell depends on it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

#: Notebook file name -> the ids of its cells that print values measured on the corpus.
CORPUS_CELLS = {
    "07_real_text.ipynb": {"9283b85a", "726a3178"},
    "09_lossy_shortcuts_and_adaptive_gamma.ipynb": {"ed8e0fcc", "f697acb6"},
}


@functools.cache
def executed_with(name: str) -> tuple[int, int]:
    """The Python (major, minor) that the committed notebook `name` was executed with."""
    version = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["metadata"]["language_info"]["version"]
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def leave_corpus_cells_uncompared(items, python: tuple[int, int]) -> int:
    """Have nbval run the corpus cells of notebooks executed with another Python than `python` without
    comparing their outputs; the number of cells left uncompared."""
    left = 0
    for item in items:
        cells = CORPUS_CELLS.get(item.path.name) if hasattr(item, "cell") and hasattr(item, "options") else None
        if cells and item.cell.get("id") in cells and python != executed_with(item.path.name):
            item.options["check"] = False
            left += 1
    return left


def header_line(python: tuple[int, int]) -> str | None:
    """What pytest's header says when `python` is not the one the notebooks were executed with."""
    versions = {executed_with(name) for name in CORPUS_CELLS}
    if python in versions:
        return None
    count = sum(len(cells) for cells in CORPUS_CELLS.values())
    executed = ", ".join(f"{major}.{minor}" for major, minor in sorted(versions))
    return (f"notebooks: executed with Python {executed}; on this Python the {count} cells that print values "
            "measured on the standard library's docstrings run without comparing their outputs "
            "(tests/test_corpus_notebooks.py checks their lines)")
