"""Fixtures of the browser suite: one JupyterLab and one Notebook 7 for the whole session (Chromium: tests/conftest.py).

The servers are started lazily, the first time a test asks for them, each on a temporary copy of
notebooks/, and always stopped at the end of the session, whatever the tests did. When the browser
cannot run here, the suite is skipped with the reason, except under CI=true, where that fails it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .jupyter_driver import Frontend, JupyterServer, copy_notebooks
from .series import NOTEBOOKS, SCREENSHOTS


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
