"""The timeline explorer, driven headless: every control moves the view to what the cost model says."""

import pytest

import specdec
from specdec import hardware
from specdec.widgets.timeline import MAX_GAMMA, MAX_SEED, TIMELINE_TOKENS, timeline_explorer

from .explorer_driving import assert_picture_is_a_full_render, slider_positions


@pytest.fixture(scope="module")
def explorer():
    return timeline_explorer()


def assert_view_matches_the_cost_model(explorer):
    values = {name: control.value for name, control in explorer.controls.items()}
    shown = explorer.shown
    chip = hardware.ACCELERATORS[values["accelerator"]]
    target, draft = hardware.MODELS[values["target"]], hardware.MODELS[values["draft"]]
    g, a, b, s = values["gamma"], values["alpha"], values["batch"], values["seed"]
    assert (shown["accelerator"], shown["target"], shown["draft"]) == (chip.name, target.name, draft.name)
    assert (shown["gamma"], shown["alpha"], shown["batch"], shown["seed"]) == (g, a, b, s)

    times = hardware.pass_times(chip, target, draft, g, batch=b)
    timeline = hardware.sample_timeline(chip, target, draft, g, a, batch=b, seed=s, tokens=TIMELINE_TOKENS)
    assert shown["times"] == times and shown["timeline"] == timeline
    assert shown["implied_c"] == times.target_decode / times.draft_pass
    assert shown["expected_speedup"] == times.speedup(a)
    assert shown["formula_speedup"] == specdec.speedup(a, g, times.implied_c)
    assert shown["sampled_speedup"] == timeline.sampled_speedup
    assert shown["plain_ms_per_token"] == pytest.approx(times.target_decode * 1e3)
    steps = len(timeline.step_counts)
    assert shown["speculative_ms_per_token"] == pytest.approx(steps * times.step_time / timeline.speculative_tokens * 1e3)
    if b == 1:  # memory-bound at batch 1: the cost model and speedup(α, γ, c) agree
        assert shown["expected_speedup"] == pytest.approx(shown["formula_speedup"], rel=1e-12)

    readout = shown["readout"]
    assert f"implied c = target ÷ draft = <b>{shown['implied_c']:.1f}</b>" in readout
    assert f"Speedup, this seed: <b>{shown['sampled_speedup']:.2f}×</b>" in readout
    assert f"expected, cost model: <b>{shown['expected_speedup']:.2f}×</b>" in readout
    assert f"speedup(α, γ, c) = {shown['formula_speedup']:.2f}×" in readout
    assert f"Time per token, plain: <b>{shown['plain_ms_per_token']:.3g} ms</b>" in readout
    assert f"speculative, this seed: <b>{shown['speculative_ms_per_token']:.3g} ms</b>" in readout
    assert ("needs" in readout) == (hardware.devices_needed(target, chip) > 1)
    for word in ("SPEC", "contract", "nbval"):
        assert word not in readout

    # The picture shows this timeline: one plain pass per token, one tile per emitted token.
    picture = explorer.picture
    assert len(picture.lanes["plain"].get_paths()) == TIMELINE_TOKENS
    tiles = sum(len(picture.lanes[o].get_paths()) for o in ("accepted", "resampled", "bonus"))
    assert tiles == timeline.speculative_tokens
    assert len(picture.lanes["draft"].get_paths()) == g * steps


def test_the_first_view(explorer):
    assert_view_matches_the_cost_model(explorer)
    assert explorer.shown["implied_c"] == pytest.approx(55.8, abs=0.05)
    assert round(explorer.shown["formula_speedup"], 2) == 3.14
    assert "Llama 2 70B needs 2 × 80 GB" in explorer.shown["readout"]
    assert explorer.image.value[:4] == b"\x89PNG"


@pytest.mark.parametrize("name", ["gamma", "alpha", "seed"])
def test_every_slider_at_its_minimum_maximum_and_middle(explorer, name):
    slider = explorer.controls[name]
    before = explorer.image.value
    for value in slider_positions(slider):
        slider.value = value
        assert_view_matches_the_cost_model(explorer)
    assert explorer.image.value != before
    assert_picture_is_a_full_render(explorer)


@pytest.mark.parametrize("name", ["accelerator", "target", "draft", "batch"])
def test_every_choice_of_every_option_control(explorer, name):
    control = explorer.controls[name]
    start = control.value
    pictures = set()
    for option in control.options:
        control.value = option
        assert_view_matches_the_cost_model(explorer)
        pictures.add(explorer.image.value)
    assert len(pictures) == len(control.options)
    assert_picture_is_a_full_render(explorer)
    control.value = start


def test_the_speedup_falls_as_the_batch_grows_on_screen():
    explorer = timeline_explorer(gamma=4, alpha=0.8)
    speedups = []
    for b in hardware.BATCH_SIZES:
        explorer.controls["batch"].value = b
        speedups.append(explorer.shown["expected_speedup"])
    assert all(later <= earlier for earlier, later in zip(speedups, speedups[1:]))
    assert speedups[-1] < 1 < speedups[0]
    assert "free: same time as one position" not in explorer.shown["readout"]


def test_starting_values_are_used():
    explorer = timeline_explorer("L4", "Llama 2 7B", "Llama 160M", gamma=2, alpha=0.5, batch=8, seed=3)
    assert {name: c.value for name, c in explorer.controls.items()} == {
        "accelerator": "L4", "target": "Llama 2 7B", "draft": "Llama 160M",
        "gamma": 2, "alpha": 0.5, "batch": 8, "seed": 3}
    assert_view_matches_the_cost_model(explorer)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"accelerator": "H300"}, ValueError, "accelerator must be one of"),
    ({"accelerator": 3}, TypeError, "accelerator must be a name"),
    ({"target": "GPT-9"}, ValueError, "target must be one of"),
    ({"draft": None}, TypeError, "draft must be a name"),
    ({"gamma": MAX_GAMMA + 1}, ValueError, "gamma must be an integer in 0 … 10"),
    ({"alpha": 1.2}, ValueError, "alpha must be in [0, 1]"),
    ({"batch": 0}, ValueError, "batch must be an integer in 1 … 1,024"),
    ({"batch": 3}, ValueError, "batch must be a power of two"),
    ({"seed": MAX_SEED + 1}, ValueError, "seed must be an integer in 0 … 99"),
])
def test_bad_arguments_are_refused(kwargs, error, words):
    with pytest.raises(error) as caught:
        timeline_explorer(**kwargs)
    assert words in str(caught.value)
