"""The assertions of the browser tests, shared by the JupyterLab and the Notebook 7 tests."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .explorer_moves import EXPLORERS, ExplorerCheck, Move
from .jupyter_driver import REDRAW_SECONDS, WIDGET_RENDER_SECONDS, ExplorerView, NotebookTab, normalised_text


def assert_runs_cleanly(tab: NotebookTab, widget_seconds: float = WIDGET_RENDER_SECONDS) -> None:
    """Run all cells; then no cell may be left unrun, show an error or write to stderr, and every
    widget view must have rendered within `widget_seconds`."""
    completed = tab.run_all()
    cells = tab.cells()
    errors = [f"cell {cell['index']} ({cell['source']!r}): {error}" for cell in cells for error in cell["errors"]]
    assert not errors, "error outputs:\n" + "\n".join(errors)
    assert completed, "Run All Cells stopped before the end"
    unrun = [cell["index"] for cell in cells if cell["executionCount"] is None]
    assert not unrun, f"code cells left unrun: {unrun}"
    stderr = [f"cell {cell['index']}: {text}" for cell in cells for text in cell["stderr"]]
    assert not stderr, "output on stderr:\n" + "\n".join(stderr)

    report = tab.wait_for_widgets(widget_seconds)
    assert not report["problems"], (f"after {widget_seconds} s:\n" + "\n".join(report["problems"]))
    views_in_model = sum(cell["widgetViews"] for cell in cells)
    assert report["views"] == views_in_model, (
        f"{views_in_model} widget views in the outputs, but {report['views']} shown on the page")


def checks_for(explorers: list[ExplorerView]) -> list[tuple[ExplorerView, ExplorerCheck]]:
    """Pair each explorer on the page with its entry in `EXPLORERS`; fail for one that has none."""
    missing = [view.title for view in explorers if view.title not in EXPLORERS]
    assert not missing, (f"explorers with no moves in tests/browser/explorer_moves.py: {missing}; "
                         "add what a learner would do to each, and what its readout must then say")
    return [(view, EXPLORERS[view.title]) for view in explorers]


def assert_move_redraws(view: ExplorerView, move: Move, timeout: float = REDRAW_SECONDS) -> None:
    """Make `move`; within `timeout` seconds the readout must contain what the core computes, and
    the picture must change."""
    before = view.state()
    values_before = view.control_values()
    view.perform(move.control, move.action)
    after = view.wait_for_redraw(before, timeout)
    values = view.control_values()
    where = f"{view.title!r}, {move.action} on {move.control!r}"
    if move.action.startswith(("key:", "drag:")):
        assert values[move.control] != values_before[move.control], f"{where}: the slider did not move"
    assert after["readout"] != before["readout"], f"{where}: the readout did not change"
    assert after["digest"] != before["digest"], f"{where}: the picture did not change"
    assert after["width"] > 0, f"{where}: the picture does not load"
    shown = normalised_text(after["readout"])
    missing = [text for text in move.expected(values) if normalised_text(text) not in shown]
    assert not missing, f"{where}: the readout lacks {missing}\nit shows: {shown}\ncontrols: {values}"


def assert_explorers_answer(tab: NotebookTab, screenshots: Path | None,
                            adapt: Callable[[Move], Move] = lambda move: move) -> list[str]:
    """Make every move of each explorer's check, and screenshot it when its check says.

    `adapt` may change how a move is made in a front end that needs another gesture. Returns the
    titles of the explorers found.
    """
    explorers = tab.explorers()
    for view, check in checks_for(explorers):
        for made, move in enumerate(check.moves):
            if screenshots is not None and made == check.picture_after:
                view.screenshot(screenshots / f"{check.picture}.png")
            assert_move_redraws(view, adapt(move))
        if screenshots is not None and check.picture_after >= len(check.moves):
            view.screenshot(screenshots / f"{check.picture}.png")
    return [view.title for view in explorers]
