"""The one Chromium of a test session, shared by the browser suite and the static-view tests.

Playwright's sync API runs one event loop per thread, so a second `sync_playwright()` started while the
first is open fails; every test that needs a browser asks for this fixture instead.
"""

from __future__ import annotations

import pytest

from tests.browser.jupyter_driver import CHROMIUM, CHROMIUM_ARGS, browser_unavailable, require_chromium


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium, headless, driven by pip's Playwright."""
    require_chromium()
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        except PlaywrightError as error:
            browser_unavailable(f"Chromium at {CHROMIUM} did not start: {error.message.splitlines()[0]}")
        try:
            yield browser
        finally:
            browser.close()


def pytest_collection_modifyitems(config, items):
    """On a Python the notebooks were not executed with, run their corpus cells without comparing outputs.

    Those cells print values measured on the running Python's own docstrings (`tests/notebook_corpus.py`);
    `tests/test_corpus_notebooks.py` checks their lines on every Python, with the numbers masked.
    """
    import sys

    from tests.notebook_corpus import CORPUS_CELLS, executed_with

    for item in items:
        cells = CORPUS_CELLS.get(item.path.name) if hasattr(item, "cell") else None
        if cells and item.cell.get("id") in cells and sys.version_info[:2] != executed_with(item.path.name):
            item.options["check"] = False


def pytest_report_header(config):
    import sys

    from tests.notebook_corpus import CORPUS_CELLS, executed_with

    versions = {executed_with(name) for name in CORPUS_CELLS}
    if sys.version_info[:2] in versions:
        return None
    count = sum(len(cells) for cells in CORPUS_CELLS.values())
    tested = ", ".join(f"{major}.{minor}" for major, minor in sorted(versions))
    return (f"notebooks: executed with Python {tested}; on this Python the {count} cells that print values measured "
            "on the standard library's docstrings run without comparing their outputs "
            "(tests/test_corpus_notebooks.py checks their lines)")
