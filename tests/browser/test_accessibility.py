"""Every explorer, run in JupyterLab, audited with axe-core and driven with the keyboard alone.

One notebook builds every explorer of `specdec.explore.EXPLORERS` (found in the package, so a new
explorer is audited without being listed here) and runs in JupyterLab. Then:

- axe-core finds no serious or critical violation inside any explorer's box, apart from those in
  markup that ipywidgets itself writes (`accessibility.UPSTREAM`), which are reported apart and
  checked to be still there, so that the list is shortened when ipywidgets fixes one;
- the picture has a text alternative that names the explorer;
- Tab, pressed from just before an explorer, reaches every one of its controls;
- the first control Tab reaches changes with the keyboard (an arrow key, Enter or Space), and the
  readout changes, with the key lines in an ARIA live region that has text to announce.

A planted box with a picture that has no text alternative shows that the audit can fail.
"""

from __future__ import annotations

import nbformat
import pytest

from .accessibility import (UPSTREAM, focus_control, labelled_controls, operate_by_keyboard,
                            serious_violations, tab_through)
from .notebook_checks import assert_runs_cleanly

pytestmark = pytest.mark.browser

explore = pytest.importorskip("specdec.explore")
EXPLORERS = dict(explore.EXPLORERS)

_CANARY = '''\
import ipywidgets as widgets
canary = widgets.VBox([widgets.HTML("<p>a picture without a text alternative:</p>"
                                    "<img src='data:image/gif;base64,R0lGODlhAQABAAAAACw=' width='40' height='40'>")])
canary.add_class("specdec-a11y-canary")
canary'''


@pytest.fixture(scope="module")
def every_explorer(lab, served_notebooks):
    """JupyterLab's tab, with the notebook that builds every explorer run; the explorers on it by title."""
    folder = served_notebooks / "_accessibility"
    folder.mkdir(exist_ok=True)
    # An explorer that fails to build prints why (its own test says so) and leaves the others to run.
    cells = [nbformat.v4.new_code_cell(f"from specdec.explore import {name}\ntry:\n    display({name}())\n"
                                       f"except Exception as error:\n    print('{name} failed:', repr(error))")
             for name in EXPLORERS]
    cells.append(nbformat.v4.new_code_cell(_CANARY))
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(notebook, folder / "every_explorer.ipynb")
    with lab.notebook("_accessibility/every_explorer.ipynb") as tab:
        assert_runs_cleanly(tab)
        yield tab, {view.title: view for view in tab.explorers()}


def view_of(every_explorer, name):
    _, views = every_explorer
    title = EXPLORERS[name].title
    assert title in views, f"{name} ({title!r}) is not on the page; the page shows {sorted(views)}"
    return views[title]


def test_every_explorer_is_on_the_page(every_explorer):
    tab, views = every_explorer
    assert EXPLORERS, "specdec.explore has no explorer"
    failed = tab.page.evaluate("() => [...window.jupyterapp.shell.currentWidget.node.querySelectorAll("
                               "'.jp-OutputArea-output')].map(o => o.textContent).filter(t => t.includes(' failed: '))")
    assert not failed, failed
    assert sorted(views) == sorted(cls.title for cls in EXPLORERS.values())


@pytest.fixture(scope="module")
def axe_results(every_explorer):
    tab, _ = every_explorer
    return serious_violations(tab.page)


def describe(violations) -> str:
    return "\n".join(f"{v['impact']} {v['id']} ({v['count']} nodes): {v['help']}; at {v['targets']} {v['html']}"
                     + (f"\n  upstream: {v['upstream']}" if v["upstream"] else "") for v in violations)


def test_axe_finds_the_planted_picture_without_alternative(every_explorer):
    tab, _ = every_explorer
    found = serious_violations(tab.page, ".specdec-a11y-canary")
    assert "image-alt" in [violation["id"] for violation in found], found


def test_axe_finds_no_serious_or_critical_violation_in_the_explorers(axe_results):
    ours = [violation for violation in axe_results if not violation["upstream"]]
    assert not ours, "axe-core, inside the explorers:\n" + describe(ours)


def test_the_upstream_violations_are_still_there(axe_results):
    """ipywidgets' own violations, listed in UPSTREAM: when one is fixed upstream, drop it from the list."""
    known = {rule for rule, _, _ in UPSTREAM}
    seen = {violation["id"] for violation in axe_results if violation["upstream"]}
    assert seen == known, f"ipywidgets' violations now: {sorted(seen)}; UPSTREAM lists {sorted(known)}\n" + describe(axe_results)


@pytest.mark.parametrize("name", EXPLORERS)
def test_the_picture_has_a_text_alternative(every_explorer, name):
    view = view_of(every_explorer, name)
    alternative = view.locator.locator("[data-explorer-part=figure]").evaluate(
        "img => img.getAttribute('alt') || img.getAttribute('aria-label') || img.getAttribute('title') || ''")
    assert view.title in alternative, f"{view.title!r}: the picture's text alternative is {alternative!r}"


@pytest.mark.parametrize("name", EXPLORERS)
def test_tab_reaches_every_control(every_explorer, name):
    view = view_of(every_explorer, name)
    reached = {stop["control"] for stop in tab_through(view)}
    missing = [label for label in labelled_controls(view) if label not in reached]
    assert not missing, f"{view.title!r}: Tab never reaches {missing} (reached: {sorted(filter(None, reached))})"


@pytest.mark.parametrize("name", EXPLORERS)
def test_the_keyboard_alone_changes_the_readout(every_explorer, name):
    view = view_of(every_explorer, name)
    stops = [stop for stop in tab_through(view) if stop["control"] and stop["kind"] != "other"]
    assert stops, f"{view.title!r}: Tab reaches no control"
    first = stops[0]
    focus_control(view, first["control"])
    result = operate_by_keyboard(view, first["kind"])
    where = f"{view.title!r}, {first['kind']} {first['control']!r}"
    assert result["keys"] is not None, f"{where}: no key changed its value"
    assert result["after"]["readout"] != result["before"]["readout"], f"{where}: {result['keys']!r} left the readout as it was"
    assert result["after"]["live"].strip(), f"{where}: no ARIA live region with text (key lines) in the explorer"
