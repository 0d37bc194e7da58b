"""JupyterLab and Notebook 7 opening each committed notebook without running it: every explorer
output shows its picture and its readout's words, and no "Error displaying widget" or empty box.

The notebooks are opened as a reader gets them, untrusted. To keep the time down, every explorer
cell of the series, as committed (outputs, cell ids, stored widget state), is put into one notebook
that each front end opens once: a cell's output renders the same whatever other cells surround it.
The nbconvert exports are checked in tests/test_static_view.py; like it, this reads the notebooks of
``SPECDEC_STATIC_VIEW_NOTEBOOKS`` when that is set.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from .committed_view import ExplorerCell, explorer_cells, explorer_notebook, shown_outputs, view_problems
from .jupyter_driver import WIDGET_RENDER_SECONDS
from .series import NOTEBOOKS, notebook_paths

pytestmark = pytest.mark.browser

SOURCE = Path(os.environ.get("SPECDEC_STATIC_VIEW_NOTEBOOKS") or NOTEBOOKS)
PATHS = [path for path in notebook_paths(SOURCE) if explorer_cells(SOURCE / path)]
#: The notebook, in the servers' root, that holds every explorer cell of the series as committed.
EVERY_EXPLORER = "_committed/every_explorer_output.ipynb"


@pytest.fixture(scope="module")
def committed(served_notebooks) -> dict[str, list[ExplorerCell]]:
    """Write `EVERY_EXPLORER` (each committed explorer cell, unchanged, with the stored widget state):
    opening that one file shows what opening each notebook shows of its explorers. Notebook -> its cells."""
    target = served_notebooks / EVERY_EXPLORER
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(explorer_notebook([SOURCE / path for path in PATHS]), ensure_ascii=False),
                      encoding="utf-8")
    return {path: explorer_cells(SOURCE / path) for path in PATHS}


def problems_after_rendering(page, committed: dict[str, list[ExplorerCell]],
                             seconds: float = WIDGET_RENDER_SECONDS) -> list[str]:
    """Poll what the page shows of every explorer cell until nothing is missing or `seconds` have passed."""
    deadline = time.monotonic() + seconds
    cells = [(path, cell) for path, in_notebook in committed.items() for cell in in_notebook]
    while True:
        shown = shown_outputs(page, [cell for _, cell in cells])
        problems = [f"{path}, cell {cell.cell_id} ({cell.summary[0] if cell.summary else '?'!r}): {problem}"
                    for path, cell in cells for problem in view_problems(shown.get(cell.cell_id), cell)]
        trusted = [cell_id for cell_id, view in shown.items() if view and view["trusted"]]
        if trusted:
            problems.append(f"cells opened trusted, unlike a reader's copy: {trusted}")
        if not problems or time.monotonic() > deadline:
            return problems
        time.sleep(0.25)


def test_the_view_check_catches_what_a_reader_would_miss():
    cell = ExplorerCell("c1", ("Title", "α = 0.80"))
    picture = {"loaded": True, "natural": 840, "shown": 800}
    good = {"pictures": [picture], "outputs": [{"mime": "text/html", "text": "Title α = 0.80", "height": 500}],
            "text": "Title\nα = 0.80", "trusted": False}
    assert view_problems(good, cell) == []
    error = {"pictures": [], "outputs": [{"mime": "", "text": "Error displaying widget: model not found",
                                          "height": 20}], "text": "Error displaying widget: model not found"}
    assert view_problems(error, cell) == [
        "shows ['Error displaying widget']",
        "no picture at least 300 px wide is shown (pictures: [])",
        "the readout's words are not shown: ['Title', 'α = 0.80']"]
    empty = {"pictures": [], "outputs": [{"mime": "", "text": "", "height": 0}], "text": ""}
    assert view_problems(empty, cell)[0] == "an empty box (['?'])"
    assert view_problems(None, cell) == ["the cell or its output area is not on the page"]


def test_there_are_committed_explorers_to_open():
    assert len(PATHS) >= 5, f"only {PATHS} under {SOURCE} have an explorer output"


def test_jupyterlab_shows_every_committed_explorer_view(lab, committed, screenshots):
    failure = screenshots / "failures" / "committed-lab.png"
    with lab.notebook(EVERY_EXPLORER, failure_screenshot=failure) as tab:
        problems = problems_after_rendering(tab.page, committed)
        assert not problems, "JupyterLab, the committed notebooks opened without running them:\n" + "\n".join(problems)


def test_notebook7_shows_every_committed_explorer_view(classic, committed, screenshots):
    failure = screenshots / "failures" / "committed-notebook7.png"
    with classic.notebook(EVERY_EXPLORER, failure_screenshot=failure) as tab:
        problems = problems_after_rendering(tab.page, committed)
        assert not problems, "Notebook 7, the committed notebooks opened without running them:\n" + "\n".join(problems)
