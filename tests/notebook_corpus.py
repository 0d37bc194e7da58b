"""The notebook cells that print numbers measured on the standard library's docstrings.

`specdec.text.stdlib_corpus` reads the running Python's own docstrings, which differ between Python
versions; these cells print values measured on it (α, characters per call, speedups). Strict nbval
compares them on the Python the notebooks were executed with; `tests/conftest.py` runs them without
comparing on any other, and `tests/test_corpus_notebooks.py` checks on every Python that they print the
same lines with other numbers when the corpus is another text, and that no other cell depends on it.
"""

from __future__ import annotations

import json
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

#: Notebook file name -> the ids of its cells that print values measured on the corpus.
CORPUS_CELLS = {
    "07_real_text.ipynb": {"9283b85a", "726a3178"},
    "09_lossy_shortcuts_and_adaptive_gamma.ipynb": {"ed8e0fcc", "f697acb6"},
}


def executed_with(name: str) -> tuple[int, int]:
    """The Python (major, minor) that the committed notebook `name` was executed with."""
    version = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["metadata"]["language_info"]["version"]
    major, minor = version.split(".")[:2]
    return int(major), int(minor)
