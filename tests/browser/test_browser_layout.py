"""The explorers in presentation mode, and Binder's JupyterLab, in Chromium.

* In presentation mode at 853×480 CSS px with device scale 1.5 (1280×720 at browser zoom 150%):
  for every explorer, its main controls, its figure and its key readout lines are on screen together
  (file browser closed); and its smallest figure text is at least 16 device px, with JupyterLab's
  file browser open and closed (the side column then goes under the picture). One run of a notebook
  that shows every explorer serves these checks.
* JupyterLab configured as Binder's image is (binder/postBuild) shows no news prompt over the notebook;
  the same server without that configuration does, so the check can fail. Both servers start at once,
  and the Binder one is watched for at least as long as the other took to show its prompt.

The layout of each notebook at 1280×720 and 1024×768 is checked on its run in test_browser_lab.py.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from .explorer_moves import EXPLORERS
from .jupyter_driver import Frontend, JupyterServer
from .layout_checks import layout, main_controls, on_screen, presentation_text_px
from .notebook_checks import assert_runs_cleanly

pytestmark = pytest.mark.browser

#: A page of 853×480 CSS px at device scale 1.5: a 1280×720 projector at browser zoom 150%.
PRESENTATION_VIEWPORT, PRESENTATION_SCALE = (853, 480), 1.5

#: The smallest figure text on a projector in presentation mode, in device pixels: read from the back of a room.
PRESENTATION_TEXT_DEVICE_PX = 16

#: How long JupyterLab is given to raise its news prompt after a notebook opens.
PROMPT_SECONDS = 8
#: The Binder server is watched this much longer than the other server took to raise its prompt.
PROMPT_MARGIN_SECONDS = 2


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


@pytest.fixture(scope="module")
def presentation_run(chromium, lab, served_notebooks, screenshots):
    """A page at the projector's size and scale, with the notebook of every explorer in presentation
    mode run once (file browser closed); the page and its explorers."""
    path = _presentation_notebook(served_notebooks)
    frontend = Frontend(chromium, lab.server, viewport=PRESENTATION_VIEWPORT,
                        device_scale_factor=PRESENTATION_SCALE, sidebar=False)
    try:
        with frontend.notebook(path, failure_screenshot=screenshots / "layout" / "presentation-failure.png") as tab:
            assert_runs_cleanly(tab)
            yield frontend, tab.explorers()
    finally:
        frontend.close()


def test_presentation_mode_shows_controls_figure_and_readout_together(presentation_run, screenshots):
    frontend, explorers = presentation_run
    frontend.show_as(PRESENTATION_VIEWPORT, sidebar=False)
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


@pytest.mark.parametrize("sidebar", [False, True], ids=["file browser closed", "file browser open"])
def test_presentation_figure_text_reads_from_the_back_of_the_room(presentation_run, screenshots, sidebar):
    frontend, explorers = presentation_run
    state = "open" if sidebar else "closed"
    frontend.show_as(PRESENTATION_VIEWPORT, sidebar=sidebar)
    try:
        problems = []
        for view in explorers:
            picture = layout(view)["picture"]
            device_px = presentation_text_px(view.title) * picture["shown"] / picture["natural"] * PRESENTATION_SCALE
            if device_px < PRESENTATION_TEXT_DEVICE_PX - 0.05:
                problems.append(f"{view.title!r}: smallest figure text {device_px:.1f} device px (picture "
                                f"{picture['natural']} px shown at {picture['shown']:.0f} CSS px), under "
                                f"{PRESENTATION_TEXT_DEVICE_PX} with the file browser {state}")
        if problems:
            frontend.page.screenshot(path=str(screenshots / "layout" / f"presentation-text-{state}.png"), full_page=True)
        assert not problems, "\n".join(problems)
    finally:
        frontend.show_as(PRESENTATION_VIEWPORT, sidebar=False)


def _toasts(frontend: Frontend) -> list[str]:
    return frontend.page.locator(".Toastify__toast").all_inner_texts()


@pytest.fixture(scope="module")
def news_prompts(chromium, served_notebooks, tmp_path_factory):
    """Start JupyterLab as Binder's image configures it, and the same without that configuration, at
    once; open notebook 00 at 1280×720 on each (Binder's first). Watch both until the second shows a
    news prompt (at most `PROMPT_SECONDS`), then Binder's for `PROMPT_MARGIN_SECONDS` more.
    The texts of the notifications each showed: {"binder": [...], "plain": [...]}."""
    binder = JupyterServer("lab", served_notebooks, tmp_path_factory.mktemp("binder-lab"), as_binder=True)
    plain_post_build = tmp_path_factory.mktemp("plain-post-build") / "postBuild"
    plain_post_build.write_text('jupyter labextension enable "@jupyterlab/apputils-extension:announcements"\n')
    plain = JupyterServer("lab", served_notebooks, tmp_path_factory.mktemp("plain-lab"), as_binder=True)
    plain.post_build = plain_post_build
    servers = {"binder": binder, "plain": plain}
    frontends = {}
    try:
        with ThreadPoolExecutor(len(servers)) as pool:
            for started in [pool.submit(server.start) for server in servers.values()]:
                started.result()
        frontends = {name: Frontend(chromium, server, viewport=(1280, 720), sidebar=True)
                     for name, server in servers.items()}
        with frontends["binder"].notebook("00_start_here.ipynb"), frontends["plain"].notebook("00_start_here.ipynb"):
            opened = time.monotonic()
            deadline = opened + PROMPT_SECONDS
            seen = {name: [] for name in servers}
            while time.monotonic() < deadline and not seen["plain"]:
                seen = {name: _toasts(frontend) for name, frontend in frontends.items()}
                time.sleep(0.25)
            # Binder's page opened first: it has been watched longer than the other one needed.
            deadline = time.monotonic() + PROMPT_MARGIN_SECONDS
            while time.monotonic() < deadline and not seen["binder"]:
                seen["binder"] = _toasts(frontends["binder"])
                time.sleep(0.25)
            return seen
    finally:
        for frontend in frontends.values():
            frontend.close()
        for server in servers.values():
            server.stop()


def test_binder_s_jupyterlab_raises_no_news_prompt(news_prompts):
    assert news_prompts["binder"] == []


def test_without_binder_s_setting_the_news_prompt_does_appear(news_prompts):
    assert any("news" in text.lower() for text in news_prompts["plain"]), news_prompts["plain"]
