"""Fixtures of the browser suite: one Chromium, one JupyterLab and one Notebook 7 for the whole session.

The servers are started lazily, the first time a test asks for them, each on a temporary copy of
notebooks/, and always stopped at the end of the session, whatever the tests did. When the browser
cannot run here, the suite is skipped with the reason, except under CI=true, where that fails it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .jupyter_driver import CHROMIUM, CHROMIUM_ARGS, Frontend, JupyterServer, copy_notebooks
from .series import NOTEBOOKS, SCREENSHOTS


def browser_unavailable(reason: str):
    """Skip the browser tests, or fail them under CI, where a missing browser is a broken setup."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI=true requires the browser suite to run", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium, headless, driven by pip's Playwright."""
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        browser_unavailable(f"playwright is not importable: {error}")
    if not CHROMIUM.exists():
        browser_unavailable(f"no Chromium at {CHROMIUM}: install Debian's (apt-get install -y chromium)")
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        except PlaywrightError as error:
            browser_unavailable(f"Chromium at {CHROMIUM} did not start: {error.message.splitlines()[0]}")
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="session")
def served_notebooks(tmp_path_factory) -> Path:
    """A copy of notebooks/ that the servers may write to (they save checkpoints and state there)."""
    return copy_notebooks(NOTEBOOKS, tmp_path_factory.mktemp("browser") / "notebooks")


def _frontend(app, chromium, served_notebooks, tmp_path_factory):
    server = JupyterServer(app, served_notebooks, tmp_path_factory.mktemp(f"jupyter-{app}"))
    try:
        server.start()
        frontend = Frontend(chromium, server)
        try:
            yield frontend
        finally:
            frontend.close()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def lab(chromium, served_notebooks, tmp_path_factory):
    """One JupyterLab server and one page showing it, shared by every notebook test."""
    yield from _frontend("lab", chromium, served_notebooks, tmp_path_factory)


@pytest.fixture(scope="session")
def classic(chromium, served_notebooks, tmp_path_factory):
    """One Jupyter Notebook 7 server (`jupyter notebook`) and one page showing it."""
    yield from _frontend("notebook", chromium, served_notebooks, tmp_path_factory)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where the tests save each explorer's picture (ignored by git; .ci/refresh-screenshots copies some)."""
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS
