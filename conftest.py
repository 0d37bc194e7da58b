"""Project-wide pytest hooks: here, so that they also apply when only notebooks/ is collected."""

from __future__ import annotations

import sys

from tests.notebook_corpus import header_line, leave_corpus_cells_uncompared


def pytest_collection_modifyitems(config, items):
    leave_corpus_cells_uncompared(items, sys.version_info[:2])


def pytest_report_header(config):
    return header_line(sys.version_info[:2])
