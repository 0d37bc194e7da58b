"""The feedback of one check, as plain text for a terminal and as HTML for a notebook.

Both show the same rows (inputs, expected, got, hint, …) in the same order, so what the notebook
tests compare in the text is what the learner reads on screen. No colour carries meaning alone: the
headline starts with ✓ or ✗ and says in words what happened; the coloured bar beside it repeats that.
"""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass

from .. import palette
from .cases import Case

#: Width the prose rows (hints) are wrapped to in the text form.
TEXT_WIDTH = 100

_BAR_COLOURS = {"passed": palette.ACCEPTED, "failed": palette.RESAMPLED, "not implemented": palette.NEUTRAL}


@dataclass(frozen=True, repr=False)
class Row:
    """One labelled row of feedback; `code` rows keep their line breaks and are shown in monospace."""

    label: str
    text: str
    code: bool = False


@dataclass(frozen=True, repr=False)
class CheckResult:
    """What `check` found: whether the function passed, and feedback a learner can act on.

    Attributes
    ----------
    name : str
        The exercise ("speculative_step", …).
    status : str
        "passed", "failed" or "not implemented".
    headline : str
        The first line of the feedback, starting with ✓ or ✗.
    rows : tuple of Row
        The details: the failing case's inputs, what was expected, what came back, the hint, …
    hint : str or None
        The hint for the mistake the failure matches, if one does.
    case : Case or None
        The first failing case; ``result.case.arguments()`` gives fresh copies of its inputs
        (and a fresh generator), to call your function on it again.

    Examples
    --------
    >>> result = CheckResult("speedup", "passed", "✓ speedup: all 3 cases pass")
    >>> result.passed, bool(result)
    (True, True)
    >>> result
    ✓ speedup: all 3 cases pass
    """

    name: str
    status: str
    headline: str
    rows: tuple = ()
    hint: str | None = None
    case: Case | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __bool__(self) -> bool:
        return self.passed

    @property
    def message(self) -> str:
        """The whole feedback as plain text."""
        if not self.rows:
            return self.headline
        width = max(len(row.label) for row in self.rows) + 2
        lines = [self.headline]
        for row in self.rows:
            body = row.text.split("\n") if row.code else textwrap.wrap(row.text, TEXT_WIDTH - width - 2) or [""]
            lines.append(f"  {row.label:<{width}}{body[0]}")
            lines.extend(f"  {'':<{width}}{line}" for line in body[1:])
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.message

    def __str__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        colour = _BAR_COLOURS[self.status]
        cells = []
        for row in self.rows:
            text = html.escape(row.text)
            if row.code:
                text = f'<pre style="margin:0; white-space:pre-wrap; text-align:left">{text}</pre>'
            else:
                text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
            cells.append(
                '<tr><th scope="row" style="text-align:left; vertical-align:top; font-weight:normal; padding:0.15em 1em 0.15em 0">'
                f'{html.escape(row.label)}</th><td style="text-align:left; vertical-align:top; padding:0.15em 0">'
                f"{text}</td></tr>"
            )
        # Inline styles override JupyterLab's, which centre tables and fix their layout.
        table_style = "border-collapse:collapse; table-layout:auto; margin:0.3em auto 0 0"
        table = f'<table style="{table_style}">{"".join(cells)}</table>' if cells else ""
        return (
            f'<div style="border-left:0.35em solid {colour}; padding:0.3em 0.8em; margin:0.2em 0">'
            f'<div style="font-weight:bold">{html.escape(self.headline)}</div>{table}</div>'
        )
