"""Every notebook, run in JupyterLab in Chromium as a learner runs it.

For each notebook: open it, wait for its kernel, run all cells; then no error output, every widget
drawn, and every explorer answers its controls: the readout shows the value specdec computes and the
picture changes. Each explorer's screenshot goes to tests/browser/screenshots/.
"""

from __future__ import annotations

import json

import pytest

import specdec.explore

from .explorer_moves import EXPLORERS
from .notebook_checks import assert_explorers_answer, assert_runs_cleanly
from .series import NOTEBOOKS, notebook_paths, slug

pytestmark = pytest.mark.browser

PATHS = notebook_paths()


def shows_widgets(path: str) -> bool:
    """Whether the committed notebook has a widget among its outputs."""
    notebook = json.loads((NOTEBOOKS / path).read_text())
    return any("application/vnd.jupyter.widget-view+json" in output.get("data", {})
               for cell in notebook["cells"] for output in cell.get("outputs", []))


def test_there_are_notebooks_to_run():
    assert PATHS, f"no notebooks under {NOTEBOOKS}"


@pytest.mark.parametrize("path", PATHS, ids=[slug(path) for path in PATHS])
def test_notebook_in_jupyterlab(lab, screenshots, path):
    with lab.notebook(path, failure_screenshot=screenshots / "failures" / f"lab-{slug(path)}.png") as tab:
        assert_runs_cleanly(tab)
        titles = assert_explorers_answer(tab, screenshots)
        if shows_widgets(path):
            assert titles, "the committed notebook shows widgets, but no explorer was found on the page"
        errors = lab.unexpected_page_errors()
        assert not errors, f"uncaught errors in the page: {errors}"


def test_each_entry_names_an_explorer_class_and_its_title():
    """The table's picture names are the discovered explorer classes, each with the title it is listed under."""
    pictures = [check.picture for check in EXPLORERS.values()]
    assert len(set(pictures)) == len(pictures), pictures
    assert set(pictures) == set(specdec.explore.EXPLORERS), "every explorer has its browser moves, and no other"
    for title, check in EXPLORERS.items():
        assert specdec.explore.EXPLORERS[check.picture].title == title, check.picture
