"""Every notebook, run in JupyterLab in Chromium as a learner runs it.

For each notebook: open it, wait for its kernel, run all cells; then no error output, every widget
drawn, and every explorer answers its controls: the readout shows the value specdec computes and the
picture changes. Each explorer's screenshot goes to tests/browser/screenshots/.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil

import pytest

import specdec.widgets

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


def test_each_entry_names_an_explorer_function_and_its_title():
    """The table's picture names are the explorers' functions, and each title is in that function's module."""
    modules = [importlib.import_module(f"specdec.widgets.{info.name}")
               for info in pkgutil.iter_modules(specdec.widgets.__path__)]
    pictures = [check.picture for check in EXPLORERS.values()]
    assert len(set(pictures)) == len(pictures), pictures
    for title, check in EXPLORERS.items():
        homes = [module for module in modules if callable(getattr(module, check.picture, None))]
        assert homes, f"no function {check.picture} in specdec.widgets"
        assert title in inspect.getsource(homes[0]), f"{homes[0].__name__} no longer titles an explorer {title!r}"
