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

