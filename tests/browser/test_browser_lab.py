"""Every notebook, run once in JupyterLab in Chromium as a learner runs it, and checked on that run.

For each notebook: open it, wait for its kernel, run all cells; then no error output and every widget
drawn (the `ran` fixture, one run per notebook). The checks below then share that run, in this order:

1. Layout (each notebook of the series that shows an explorer): at 1280×720 with the file browser open
   (as JupyterLab starts), and at 1024×768 with it closed, nothing inside an explorer reaches past its
   output area and every slider track is at least 80 px; at 1280×720 every figure text is at least
   12 px on screen (titles and axis labels 14 px).
2. Accessibility: axe-core finds no serious or critical violation inside the notebook's explorers,
   none exempt (the slider handles, which ipywidgets 8.1.9 leaves unnamed, are named by the frame's
   shim, ``SliderNames`` in ``specdec/explore/frame.py``). For each explorer of `specdec.explore.EXPLORERS`,
   in the notebook that builds it: the picture has a text alternative that names the explorer; Tab,
   pressed from just before it, reaches every control; the first control Tab reaches changes with the
   keyboard (an arrow key, Enter or Space), and the readout changes, with the key lines in an ARIA live
   region that has text to announce; the reverse keys (the other arrow, the other option) bring the
   control back to its value, so the moves below start from the notebook's own control values.
3. Every explorer answers its controls: the readout shows the value specdec computes and the picture
   changes; each explorer's screenshot goes to tests/browser/screenshots/; no uncaught page error.

Every explorer of the package must be built by some notebook (`test_every_explorer_is_in_a_notebook`),
so the audit covers them all. The checks can fail: see test_browser_canaries.py.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

import pytest

import specdec.explore

from .accessibility import (describe, focus_control, labelled_controls, operate_by_keyboard,
                            serious_violations, tab_through, undo_by_keyboard)
from .explorer_moves import EXPLORERS
from .layout_checks import layout, layout_problems
from .notebook_checks import assert_explorers_answer, assert_runs_cleanly
from .series import NOTEBOOKS, notebook_paths, slug

pytestmark = pytest.mark.browser

PATHS = notebook_paths()

#: name -> (viewport in CSS px, file browser open, figure text checked): the projector's text-size
#: rule holds at 1280×720; on the small laptop, what matters is that nothing is cut off.
SCREENS = {
    "1280x720 sidebar open": ((1280, 720), True, True),
    "1024x768 sidebar closed": ((1024, 768), False, False),
}


def shows_widgets(path: str) -> bool:
    """Whether the committed notebook has a widget among its outputs."""
    notebook = json.loads((NOTEBOOKS / path).read_text())
    return any("application/vnd.jupyter.widget-view+json" in output.get("data", {})
               for cell in notebook["cells"] for output in cell.get("outputs", []))


def notebook_building(name: str) -> str | None:
    """The first notebook of the series (not the solutions) whose code calls the explorer class `name`."""
    call = re.compile(rf"\b{re.escape(name)}\s*\(")
    for path in PATHS:
        if "/" in path:
            continue
        notebook = json.loads((NOTEBOOKS / path).read_text())
        if any(cell["cell_type"] == "code" and call.search("".join(cell["source"])) for cell in notebook["cells"]):
            return path
    return None


EXPLORER_NOTEBOOKS = [path for path in PATHS if shows_widgets(path) and "/" not in path]
#: Explorer class name -> the notebook that builds it, for every explorer that some notebook builds.
BUILT_IN = {name: path for name in specdec.explore.EXPLORERS if (path := notebook_building(name))}
AUDITED = [(path, name) for name, path in BUILT_IN.items()]


@pytest.fixture(scope="module")
def ran(request, lab, screenshots):
    """The notebook `request.param` run in JupyterLab's page, cleanly; open until the next notebook's run.

    Yields the tab and its explorers by title."""
    path = request.param
    with lab.notebook(path, failure_screenshot=screenshots / "failures" / f"lab-{slug(path)}.png") as tab:
        assert_runs_cleanly(tab)
        yield tab, {view.title: view for view in tab.explorers()}


@pytest.fixture(scope="module")
def name(request):
    """The explorer class name a test is parametrized with; a fixture of the module's scope, so that
    pytest keeps each notebook's tests together on one run of it (`ran`)."""
    return request.param


@contextmanager
def screenshot_on_failure(tab, path):
    try:
        yield
    except BaseException:
        path.parent.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(path=str(path), full_page=True)
        raise


def test_there_are_notebooks_to_run():
    assert PATHS, f"no notebooks under {NOTEBOOKS}"


def test_every_explorer_is_in_a_notebook():
    """The audit and the keyboard test run on the notebooks: each explorer must be built in one."""
    assert specdec.explore.EXPLORERS, "specdec.explore has no explorer"
    missing = sorted(set(specdec.explore.EXPLORERS) - set(BUILT_IN))
    assert not missing, f"no notebook of the series builds {missing}"


def test_each_entry_names_an_explorer_class_and_its_title():
    """The table's picture names are the discovered explorer classes, each with the title it is listed under."""
    pictures = [check.picture for check in EXPLORERS.values()]
    assert len(set(pictures)) == len(pictures), pictures
    assert set(pictures) == set(specdec.explore.EXPLORERS), "every explorer has its browser moves, and no other"
    for title, check in EXPLORERS.items():
        assert specdec.explore.EXPLORERS[check.picture].title == title, check.picture


# ---- 1. layout, at two screens ------------------------------------------------------------------

@pytest.mark.parametrize("ran", EXPLORER_NOTEBOOKS, ids=[slug(path) for path in EXPLORER_NOTEBOOKS], indirect=True)
@pytest.mark.parametrize("screen", list(SCREENS))
def test_explorers_fit_the_screen(lab, ran, screen, screenshots):
    tab, views = ran
    viewport, sidebar, text_sizes = SCREENS[screen]
    assert views, "no explorer found on the page"
    lab.show_as(viewport, sidebar)
    try:
        with screenshot_on_failure(tab, screenshots / "layout" / f"{slug(screen)}-{slug(tab.path)}.png"):
            problems = []
            for view in views.values():
                problems += layout_problems(view.title, layout(view), text_sizes)
            assert not problems, f"at {screen}:\n" + "\n".join(problems)
    finally:
        lab.show_as(lab.viewport, sidebar=False)


# ---- 2. accessibility ---------------------------------------------------------------------------

@pytest.mark.parametrize("ran", EXPLORER_NOTEBOOKS, ids=[slug(path) for path in EXPLORER_NOTEBOOKS], indirect=True)
def test_axe_finds_no_serious_or_critical_violation_in_the_explorers(ran):
    tab, views = ran
    violations = serious_violations(tab.page)
    assert not violations, "axe-core, inside the explorers:\n" + describe(violations)


def view_of(ran, name):
    _, views = ran
    title = specdec.explore.EXPLORERS[name].title
    assert title in views, f"{name} ({title!r}) is not on the page; the page shows {sorted(views)}"
    return views[title]


@pytest.mark.parametrize(("ran", "name"), AUDITED, ids=[name for _, name in AUDITED], indirect=True)
def test_the_picture_has_a_text_alternative(ran, name):
    view = view_of(ran, name)
    alternative = view.locator.locator("[data-explorer-part=figure]").evaluate(
        "img => img.getAttribute('alt') || img.getAttribute('aria-label') || img.getAttribute('title') || ''")
    assert view.title in alternative, f"{view.title!r}: the picture's text alternative is {alternative!r}"


@pytest.mark.parametrize(("ran", "name"), AUDITED, ids=[name for _, name in AUDITED], indirect=True)
def test_tab_reaches_every_control(ran, name):
    view = view_of(ran, name)
    reached = {stop["control"] for stop in tab_through(view)}
    missing = [label for label in labelled_controls(view) if label not in reached]
    assert not missing, f"{view.title!r}: Tab never reaches {missing} (reached: {sorted(filter(None, reached))})"


@pytest.mark.parametrize(("ran", "name"), AUDITED, ids=[name for _, name in AUDITED], indirect=True)
def test_the_keyboard_alone_changes_the_readout(ran, name):
    view = view_of(ran, name)
    stops = [stop for stop in tab_through(view) if stop["control"] and stop["kind"] != "other"]
    assert stops, f"{view.title!r}: Tab reaches no control"
    first = stops[0]
    focus_control(view, first["control"])
    result = operate_by_keyboard(view, first["kind"])
    where = f"{view.title!r}, {first['kind']} {first['control']!r}"
    assert result["keys"] is not None, f"{where}: no key changed its value"
    assert result["after"]["readout"] != result["before"]["readout"], f"{where}: {result['keys']!r} left the readout as it was"
    assert result["after"]["live"].strip(), f"{where}: no ARIA live region with text (key lines) in the explorer"
    if first["kind"] != "button":  # a button's press has no reverse key
        focus_control(view, first["control"])
        undone, back = undo_by_keyboard(view, first["kind"], result)
        assert back, f"{where}: {undone!r} after {result['keys']!r} did not bring its value back"


# ---- 3. the explorers answer their controls -----------------------------------------------------

@pytest.mark.parametrize("ran", PATHS, ids=[slug(path) for path in PATHS], indirect=True)
def test_notebook_in_jupyterlab(lab, ran, screenshots):
    tab, views = ran
    with screenshot_on_failure(tab, screenshots / "failures" / f"lab-{slug(tab.path)}.png"):
        titles = assert_explorers_answer(tab, screenshots)
        if shows_widgets(tab.path):
            assert titles, "the committed notebook shows widgets, but no explorer was found on the page"
        errors = lab.unexpected_page_errors()
        assert not errors, f"uncaught errors in the page: {errors}"
