"""The classic interface, Jupyter Notebook 7 (`jupyter notebook`): a notebook opens, runs and redraws.

Notebook 7 handles the arrow keys before the page's widgets do (they move between headings), so a
slider there does not answer ArrowLeft/ArrowRight; the learner drags it with the mouse, and so does
this test.
"""

from __future__ import annotations

import dataclasses

import pytest

from .explorer_moves import Move
from .notebook_checks import assert_explorers_answer, assert_runs_cleanly
from .series import NOTEBOOKS, slug

pytestmark = pytest.mark.browser

#: A notebook with a slider-driven explorer that runs in a few seconds.
NOTEBOOK = "04_tokens_per_step_and_speedup.ipynb"
#: How far a drag moves a slider's handle: a few steps of any slider in the series.
DRAG_PIXELS = 24


def dragged(move: Move) -> Move:
    """The move made with the mouse: a key press on a slider becomes a drag the same way."""
    if move.action in ("key:ArrowRight", "key:ArrowLeft"):
        direction = 1 if move.action == "key:ArrowRight" else -1
        return dataclasses.replace(move, action=f"drag:{direction * DRAG_PIXELS}")
    return move


def test_notebook_in_notebook7(classic, screenshots):
    assert (NOTEBOOKS / NOTEBOOK).exists(), f"{NOTEBOOK} is gone: choose another notebook with an explorer"
    failure = screenshots / "failures" / f"notebook7-{slug(NOTEBOOK)}.png"
    with classic.notebook(NOTEBOOK, failure_screenshot=failure) as tab:
        assert_runs_cleanly(tab)
        titles = assert_explorers_answer(tab, screenshots=None, adapt=dragged)
        assert titles, "no explorer found on the page"
        errors = classic.unexpected_page_errors()
        assert not errors, f"uncaught errors in the page: {errors}"
