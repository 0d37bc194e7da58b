"""Reading notebooks' markdown as a learner sees it: which characters are visible prose, and glossary marks.

Visible prose is the markdown minus code (fenced and inline), LaTeX math, headings, HTML tags and
link targets. A glossary term is "marked" where it sits inside ``<abbr title="definition">…</abbr>``.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

_HIDDEN = [
    re.compile(r"```.*?```", re.S),
    re.compile(r"`[^`\n]*`"),
    re.compile(r"\$\$.*?\$\$", re.S),
    re.compile(r"\$[^$\n]*\$"),
    re.compile(r"^#.*$", re.M),
    re.compile(r"</?[A-Za-z][^<>]*>"),
    re.compile(r"\]\([^)]*\)"),
]
_ABBR = re.compile(r'<abbr title="([^"]*)">(.*?)</abbr>', re.S)


def markdown_cells(path: Path) -> list[str]:
    """The sources of the notebook's markdown cells, in order."""
    return [cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown"]


def hidden_mask(text: str) -> list[bool]:
    """One flag per character of `text`: True where a learner does not read it as prose."""
    mask = [False] * len(text)
    for pattern in _HIDDEN:
        for match in pattern.finditer(text):
            for index in range(match.start(), match.end()):
                mask[index] = True
    return mask


def term_pattern(term: str) -> re.Pattern:
    """The term as a whole word, optionally plural, in any case."""
    words = r"\s+".join(re.escape(word) for word in term.split())
    return re.compile(r"(?<![\w-])" + words + r"s?(?![\w-])", re.I)


def first_use(cells: list[str], term: str):
    """(cell index, match) of the first visible use of `term`, or None."""
    pattern = term_pattern(term)
    for index, text in enumerate(cells):
        mask = hidden_mask(text)
        for match in pattern.finditer(text):
            if not mask[match.start()]:
                return index, match
    return None


def abbr_title_at(text: str, position: int) -> str | None:
    """The (unescaped) title of the ``<abbr>`` whose content holds `position`, or None."""
    for match in _ABBR.finditer(text):
        if match.start(2) <= position < match.end(2):
            return html.unescape(match.group(1))
    return None
