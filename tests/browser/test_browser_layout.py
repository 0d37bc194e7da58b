"""The explorers as a classroom and a small laptop see them, in JupyterLab in Chromium.

* At 1280×720 with the file browser open (as JupyterLab starts), and at 1024×768 with it closed:
  nothing inside an explorer reaches past its output area, every slider track is at least 80 px,
  and every figure text is at least 12 px on screen (titles and axis labels 14 px).
* In presentation mode at 853×480 CSS px with device scale 1.5 (1280×720 at browser zoom 150%):
  for every explorer, its main controls, its figure and its key readout lines are on screen together
  (file browser closed); and its smallest figure text is at least 16 device px, with JupyterLab's
  file browser open and closed (the side column then goes under the picture).
* JupyterLab configured as Binder's image is (binder/postBuild) shows no news prompt over the notebook;
  the same server without that configuration does, so the check can fail.
"""

from __future__ import annotations

import json
import time

import pytest

from .explorer_moves import EXPLORERS
from .jupyter_driver import Frontend, JupyterServer
from .layout_checks import layout, layout_problems, main_controls, on_screen, presentation_text_px
from .notebook_checks import assert_runs_cleanly
from .series import slug
from .test_browser_lab import PATHS, shows_widgets

pytestmark = pytest.mark.browser

EXPLORER_NOTEBOOKS = [path for path in PATHS if shows_widgets(path) and "/" not in path]

#: name -> (viewport in CSS px, file browser open, figure text checked): the projector's text-size
#: rule holds at 1280×720; on the small laptop, what matters is that nothing is cut off.
SCREENS = {
    "1280x720 sidebar open": ((1280, 720), True, True),
    "1024x768 sidebar closed": ((1024, 768), False, False),
}

#: A page of 853×480 CSS px at device scale 1.5: a 1280×720 projector at browser zoom 150%.
PRESENTATION_VIEWPORT, PRESENTATION_SCALE = (853, 480), 1.5

#: The smallest figure text on a projector in presentation mode, in device pixels: read from the back of a room.
PRESENTATION_TEXT_DEVICE_PX = 16

#: How long JupyterLab is given to raise its news prompt after a notebook opens.
PROMPT_SECONDS = 8


@pytest.fixture(scope="module", params=list(SCREENS))
def screen(request, chromium, lab):
    viewport, sidebar, text_sizes = SCREENS[request.param]
    frontend = Frontend(chromium, lab.server, viewport=viewport, sidebar=sidebar)
    try:
        yield request.param, frontend, text_sizes
    finally:
        frontend.close()


@pytest.mark.parametrize("path", EXPLORER_NOTEBOOKS, ids=[slug(path) for path in EXPLORER_NOTEBOOKS])
def test_explorers_fit_the_screen(screen, screenshots, path):
    name, frontend, text_sizes = screen
    shot = screenshots / "layout" / f"{slug(name)}-{slug(path)}.png"
    with frontend.notebook(path, failure_screenshot=shot) as tab:
        assert_runs_cleanly(tab)
        explorers = tab.explorers()
        assert explorers, f"no explorer found in {path}"
        problems = []
        for view in explorers:
            problems += layout_problems(view.title, layout(view), text_sizes)
        assert not problems, f"at {name}:\n" + "\n".join(problems)


def _presentation_notebook(folder) -> str:
    """A notebook that turns presentation mode on and shows every explorer of the series, one per cell."""
    classes = sorted({check.picture for check in EXPLORERS.values()})
    cells = [f"from specdec.explore import presentation, {', '.join(classes)}\npresentation()"]
    cells += [f"{name}()" for name in classes]
    notebook = {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"cell-{index}", "metadata": {},
                   "outputs": [], "source": source} for index, source in enumerate(cells)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path = folder / "presentation_check.ipynb"
    path.write_text(json.dumps(notebook))
    return path.name


def test_presentation_mode_shows_controls_figure_and_readout_together(chromium, lab, served_notebooks, screenshots):
    path = _presentation_notebook(served_notebooks)
    frontend = Frontend(chromium, lab.server, viewport=PRESENTATION_VIEWPORT,
                        device_scale_factor=PRESENTATION_SCALE, sidebar=False)
    try:
        with frontend.notebook(path, failure_screenshot=screenshots / "layout" / "presentation-failure.png") as tab:
            assert_runs_cleanly(tab)
            explorers = tab.explorers()
            assert {view.title for view in explorers} == set(EXPLORERS)
            problems = []
            for view in explorers:
                report = on_screen(view, main_controls(view.title))
                view.page.screenshot(path=str(screenshots / "layout" / f"presentation-{EXPLORERS[view.title].picture}.png"))
                for part, place in report["parts"].items():
                    if place is None:
                        problems.append(f"{view.title!r}: no {part!r} found")
                    elif not place["inside"]:
                        problems.append(f"{view.title!r}: {part!r} at x {place['left']}…{place['right']}, "
                                        f"y {place['top']}…{place['bottom']} is not inside the "
                                        f"{report['width']}×{report['height']} window")
            assert not problems, "\n".join(problems)
    finally:
        frontend.close()


@pytest.mark.parametrize("sidebar", [False, True], ids=["file browser closed", "file browser open"])
def test_presentation_figure_text_reads_from_the_back_of_the_room(chromium, lab, served_notebooks, screenshots,
                                                                    sidebar):
    path = _presentation_notebook(served_notebooks)
    frontend = Frontend(chromium, lab.server, viewport=PRESENTATION_VIEWPORT,
                        device_scale_factor=PRESENTATION_SCALE, sidebar=sidebar)
    state = "open" if sidebar else "closed"
    try:
        with frontend.notebook(path, failure_screenshot=screenshots / "layout" / f"presentation-text-{state}.png") as tab:
            assert_runs_cleanly(tab)
            problems = []
            for view in tab.explorers():
                picture = layout(view)["picture"]
                device_px = presentation_text_px(view.title) * picture["shown"] / picture["natural"] * PRESENTATION_SCALE
                if device_px < PRESENTATION_TEXT_DEVICE_PX - 0.05:
                    problems.append(f"{view.title!r}: smallest figure text {device_px:.1f} device px (picture "
                                    f"{picture['natural']} px shown at {picture['shown']:.0f} CSS px), under "
                                    f"{PRESENTATION_TEXT_DEVICE_PX} with the file browser {state}")
            assert not problems, "\n".join(problems)
    finally:
        frontend.close()


def _news_prompts(server: JupyterServer, chromium) -> list[str]:
    """Open notebook 00 at 1280×720 on `server`; the texts of the notifications shown over it."""
    server.start()
    frontend = Frontend(chromium, server, viewport=(1280, 720), sidebar=True)
    try:
        with frontend.notebook("00_start_here.ipynb"):
            deadline = time.monotonic() + PROMPT_SECONDS
            toasts: list[str] = []
            while time.monotonic() < deadline and not toasts:
                toasts = frontend.page.locator(".Toastify__toast").all_inner_texts()
                time.sleep(0.25)
            return toasts
    finally:
        frontend.close()
        server.stop()


def test_binder_s_jupyterlab_raises_no_news_prompt(chromium, served_notebooks, tmp_path_factory):
    server = JupyterServer("lab", served_notebooks, tmp_path_factory.mktemp("binder-lab"), as_binder=True)
    assert _news_prompts(server, chromium) == []


def test_without_binder_s_setting_the_news_prompt_does_appear(chromium, served_notebooks, tmp_path_factory, tmp_path):
    plain = tmp_path / "postBuild"
    plain.write_text('jupyter labextension enable "@jupyterlab/apputils-extension:announcements"\n')
    server = JupyterServer("lab", served_notebooks, tmp_path_factory.mktemp("plain-lab"), as_binder=True)
    server.post_build = plain
    prompts = _news_prompts(server, chromium)
    assert any("news" in text.lower() for text in prompts), prompts
