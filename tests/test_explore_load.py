"""The load explorer of notebook 11, driven headless: curves and crossovers are the cost model's."""

import numpy as np
import pytest

from specdec.explore.load import LoadExplorer, curves_for
from specdec.serving.load import LOAD_BATCHES, LONG_CONTEXT, SHORT_CONTEXT

from .browser.moves import ExplorerCheck, Move
from .explorer_driving import assert_picture_is_a_full_render

BROWSER_CHECK = ExplorerCheck("LoadExplorer", (
    Move("context", f"choose:long ({LONG_CONTEXT:,} tokens)",
         lambda values: [f"Latency: speculation pays at every batch size up to {LOAD_BATCHES[-1]:,}, though only "
                         "b ≤ 14 fits with the draft"]),
))


@pytest.fixture(scope="module")
def explorer():
    return LoadExplorer()


def test_both_contexts_and_a_few_settings(explorer):
    for context in (SHORT_CONTEXT, LONG_CONTEXT):
        explorer.controls["context"].value = context
        for gamma, alpha in ((4, 0.8), (2, 0.5), (8, 0.95)):
            explorer.controls["gamma"].value, explorer.controls["alpha"].value = gamma, alpha
            curves = curves_for(gamma, alpha, context)
            shown = explorer.shown["curves"]
            np.testing.assert_allclose(shown.speculative_tokens_per_second, curves.speculative_tokens_per_second)
            line = explorer.picture.lines["tokens", "speculative"]
            np.testing.assert_allclose(line.get_ydata(), np.where(curves.fits_speculative,
                                                                  curves.speculative_tokens_per_second, np.nan))
            expected = (f"pays at every batch size up to {LOAD_BATCHES[-1]:,}" if curves.latency_crossover is None
                        else f"stops paying at b = {curves.latency_crossover}")
            assert f"Latency: speculation {expected}" in explorer.summary()


@pytest.mark.parametrize("gamma, alpha, context, words", [
    (4, 0.8, SHORT_CONTEXT, "Latency: speculation stops paying at b = 303\n"),
    (8, 1.0, SHORT_CONTEXT, "Latency: speculation stops paying at b = 766, past the largest batch that fits with "
                            "the draft (477)"),
    (4, 0.0, SHORT_CONTEXT, "Latency: speculation does not pay even at b = 1"),
    (4, 0.8, LONG_CONTEXT, f"Latency: speculation pays at every batch size up to {LOAD_BATCHES[-1]:,}, though only "
                           "b ≤ 14 fits with the draft"),
])
def test_the_latency_line_says_whether_its_batch_fits(explorer, gamma, alpha, context, words):
    explorer.controls["context"].value = context
    explorer.controls["gamma"].value, explorer.controls["alpha"].value = gamma, alpha
    assert words in explorer.summary() + "\n"
    assert_picture_is_a_full_render(explorer)
