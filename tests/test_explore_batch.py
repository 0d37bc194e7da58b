"""The batch explorer of notebook 11, driven headless: the slots and passes shown are the simulation's."""

import numpy as np
import pytest

from specdec.explore.batch import BatchExplorer, TOKENS_PER_SEQUENCE
from specdec.serving.batch import batch_run

from .browser.moves import ExplorerCheck, Move
from .explorer_driving import assert_picture_is_a_full_render, slider_positions

BROWSER_CHECK = ExplorerCheck("BatchExplorer", (
    Move("batch size b", "key:ArrowRight",
         lambda values: [f"Passes for {TOKENS_PER_SEQUENCE} tokens: mean"]),
))


@pytest.fixture(scope="module")
def explorer():
    return BatchExplorer()


@pytest.mark.parametrize("name", ["batch", "gamma", "alpha"])
def test_every_slider_shows_the_simulated_batch(explorer, name):
    for value in slider_positions(explorer.controls[name]):
        explorer.controls[name].value = value
        b, gamma, alpha, seed = (explorer.controls[n].value for n in ("batch", "gamma", "alpha", "seed"))
        run = batch_run(alpha, gamma, b, TOKENS_PER_SEQUENCE, np.random.default_rng(seed))
        shown = explorer.shown
        assert np.array_equal(shown["run"].accepted, run.accepted)
        roles = shown["roles"]
        assert roles.shape == (b, gamma + 1)
        assert shown["first_tokens"] + shown["rejected_slots"] == b * (gamma + 1)
        assert [(row == "accepted").sum() for row in roles] == run.accepted[0].tolist()
        assert f"slowest {run.slowest_passes}" in explorer.summary()
    assert_picture_is_a_full_render(explorer)


def test_a_first_pass_of_one_token_is_singular():
    explorer = BatchExplorer(batch=1, gamma=1, alpha=0.0)
    assert explorer.shown["first_tokens"] == 1
    assert "First pass: 1 token from 2 slots scored, 1 rejected" in explorer.summary()
    explorer.controls["alpha"].value = 1.0
    assert "First pass: 2 tokens from 2 slots scored, 0 rejected" in explorer.summary()
