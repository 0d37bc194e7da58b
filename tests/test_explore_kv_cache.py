"""The KV-cache explorer of notebook 11, driven headless: the slots shown are the ones the run recorded."""

import pytest

from specdec.explore.kv_cache import KV_GAMMA_RANGE, KVCacheExplorer, cache_run, plain_text, slot_kinds

from .browser.moves import ExplorerCheck, Move
from .explorer_driving import assert_picture_is_a_full_render

BROWSER_CHECK = ExplorerCheck("KVCacheExplorer", (
    Move("cache rule", "choose:target forgets to crop", lambda values: ["differs from plain greedy decoding"]),
    Move("cache rule", "choose:crop and catch up (exact)", lambda values: ["same as plain greedy decoding"]),
))


@pytest.fixture(scope="module")
def explorer():
    return KVCacheExplorer()


def test_every_step_shows_the_recorded_slots(explorer):
    for gamma in range(KV_GAMMA_RANGE[0], KV_GAMMA_RANGE[1] + 1, 2):
        explorer.controls["gamma"].value = gamma
        run = cache_run(gamma, "exact", 0.0, 0)
        for number in range(1, len(run.steps) + 1):
            explorer.controls["step"].value = number
            step = explorer.shown["step"]
            assert step is run.steps[number - 1]
            kinds = [kind for kind, _ in slot_kinds(step, "exact")["target"][1]]
            assert kinds.count("kept") == step.target_kept and kinds.count("cropped") == step.target_cropped
            assert f"Target: wrote {step.target_written} slots, kept {step.target_kept}" in explorer.summary()
    assert_picture_is_a_full_render(explorer)


def test_the_broken_crop_is_seen_in_the_text_and_the_catch_up_only_in_acceptance(explorer):
    explorer.controls["gamma"].value = 4
    explorer.controls["rule"].value = "forgets_to_crop"
    assert explorer.shown["differs_at"] is not None and "differs from plain" in explorer.summary()
    assert explorer.shown["run"].text != plain_text()
    explorer.controls["rule"].value = "forgets_catch_up"
    assert explorer.shown["differs_at"] is None
    explorer.controls["rule"].value = "exact"
    assert explorer.shown["run"].text == plain_text()


def test_next_step_button_moves_one_step_and_stops_at_the_last(explorer):
    explorer.controls["step"].value = 1
    explorer.controls["next"].click()
    assert explorer.shown["index"] == 1
    last = len(explorer.shown["run"].steps)
    explorer.controls["step"].value = last
    explorer.controls["next"].click()
    assert explorer.shown["index"] == last - 1


def test_one_rejected_slot_left_in_the_cache_is_singular():
    explorer = KVCacheExplorer(gamma=1, rule="forgets_to_crop")
    for step in range(1, len(explorer.shown["run"].steps) + 1):
        explorer.controls["step"].value = step
        left = explorer.shown["step"].target_cropped
        if left == 1:
            assert "(1 rejected slot left in the cache)" in explorer.summary()
            return
    raise AssertionError("no step of this run leaves exactly one rejected slot")
