"""The drafters explorer of notebook 10, driven headless, and the moves the browser suite makes on it."""

import numpy as np
import pytest

from specdec.explore.drafters import RUN_LENGTH, MAX_PROMPT, DraftersExplorer

from .browser.moves import ExplorerCheck, Move


def prompt_options() -> list[str]:
    """The prompts the explorer offers (checked against its menu below)."""
    from specdec.neural.measure import REPEATING_PROMPTS, held_out_prompts

    return [*REPEATING_PROMPTS[:2], *held_out_prompts(3)]


def _prompt(shown: str) -> str:
    """The prompt behind the text a page shows: a one-line input drops the line breaks of an offered prompt."""
    return next((prompt for prompt in prompt_options() if prompt.replace("\n", "") == shown), shown)


def _run_readout(values: dict) -> list[str]:
    """The τ and acceptance lines of the readout, recomputed with specdec from the control values shown.

    The explorer's recipe: the committed target, the chosen drafter at the shown γ or tree, `RUN_LENGTH`
    characters after the prompt, at the shown temperature, a generator seeded with the shown seed.
    """
    from specdec.neural import load_target, speculative_generate
    from specdec.neural.measure import build_drafter

    name = values["drafter"]
    gamma, width, depth = (int(values[label]) for label in ("γ (chains)", "tree width (Medusa)",
                                                            "tree depth (Medusa)"))
    target = load_target()
    run = speculative_generate(target, build_drafter(name, target, gamma, width, depth),
                               _prompt(values["prompt"])[:MAX_PROMPT] or " ", RUN_LENGTH, float(values["temperature"]),
                               np.random.default_rng(int(values["seed"])))
    rates = run.acceptance_by_position(depth if name == "Medusa" else gamma)
    return [f"τ = {run.tau:.2f} characters per target pass ({len(run.text)} characters in {run.target_passes} passes",
            "acceptance by position: " + ", ".join("–" if np.isnan(r) else f"{r:.2f}" for r in rates)]


BROWSER_CHECK = ExplorerCheck("DraftersExplorer", (
    Move("drafter", "choose:prompt lookup", _run_readout),
    Move("drafter", "choose:Medusa", _run_readout),
))


@pytest.fixture(scope="module")
def explorer():
    return DraftersExplorer()


def _shown_values(explorer):
    return {control.description: (str(control.value)) for control in explorer.controls.values()}


@pytest.mark.parametrize("drafter", ["prompt lookup", "Medusa", "draft model"])
def test_the_browser_moves_expect_what_the_explorer_shows(explorer, drafter):
    explorer.controls["drafter"].value = drafter
    plain = "\n".join(explorer.shown["readout"].plain())
    for expected in _run_readout(_shown_values(explorer)):
        assert expected in plain


def test_the_frontier_legend_names_every_drafter_and_this_run(explorer):
    labels = [text.get_text() for text in explorer.picture.frontier_axes.get_legend().get_texts()]
    assert labels == [*explorer.controls["drafter"].options, "this run"]


def test_the_prompt_menu_is_the_one_the_moves_expect(explorer):
    assert list(explorer.controls["prompt"].options) == prompt_options()
    flattened = prompt_options()[0].replace("\n", "")
    assert flattened != prompt_options()[0] and _prompt(flattened) == prompt_options()[0]


def test_a_run_costlier_than_every_default_stays_on_the_cost_axis_and_the_picture_matches_a_full_draw():
    from specdec.explore.drafters import FRONTIER_XMAX, DraftersFigure

    from .explorer_driving import assert_looks_like_a_full_draw

    picture = DraftersFigure()
    frontier = {"layer skip": (2.0, 4.0), "EAGLE": (1.2, 2.0)}
    picture.update([0.9] * 8, "layer skip", frontier, (3.9, 6.4), "T = 0")  # layer skip at γ = 8
    left, right = picture.frontier_axes.get_xlim()
    assert left < 3.9 < right and right > FRONTIER_XMAX
    assert_looks_like_a_full_draw(picture.png(), picture.figure)
    picture.update([0.5, 0.6, 0.7, 0.8], "EAGLE", frontier, (1.2, 2.0), "T = 0")
    assert picture.frontier_axes.get_xlim()[1] == FRONTIER_XMAX
    assert_looks_like_a_full_draw(picture.png(), picture.figure)


def test_the_cost_line_gives_the_step_in_target_passes_with_the_per_character_decimals(explorer):
    explorer.controls["drafter"].value = "EAGLE"
    cost, per_step = explorer.shown["cost"], explorer.shown["bytes_per_step"]
    assert (f"{cost.bytes_per_token:.3f} in bytes; per step {per_step:.3f} of a target pass in bytes"
            in explorer.summary())


def test_a_one_head_medusa_tree_is_described_in_the_singular(explorer):
    explorer.controls["drafter"].value = "Medusa"
    explorer.controls["width"].value, explorer.controls["depth"].value = 1, 1
    assert "the top 1 of the 1 head on the last hidden state" in explorer.summary()
    explorer.controls["width"].value, explorer.controls["depth"].value = 2, 3
    assert "the top 2 of each of 3 heads on the last hidden state" in explorer.summary()
