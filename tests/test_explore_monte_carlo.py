"""The Monte Carlo explorer of notebook 03, driven through its controls and compared with the core."""

import numpy as np
import pytest

from specdec.broken_rules import BROKEN_RULES
from specdec.explore import MonteCarloExplorer
from specdec.explore.monte_carlo import RULE_LABELS
from specdec.narrate import random_rows, spec_example
from specdec.sampled_runs import MAX_STEPS
from specdec.sampling import sample_steps

from .explorer_driving import assert_picture_is_a_full_render


@pytest.fixture(scope="module")
def explorer():
    return MonteCarloExplorer(n=100_000)


def direct_sample(target_probs, draft_probs, rule, seed, n):
    """The first n steps of the explorer's run, sampled here block by block as its docstring promises."""
    sampler = sample_steps if rule == "correct" else BROKEN_RULES[rule].sample_steps
    blocks = [sampler(target_probs, draft_probs, 100_000, np.random.default_rng([seed, k]))
              for k in range(-(-n // 100_000))]
    tokens = np.concatenate([b[0] for b in blocks])[:n]
    counts = np.concatenate([b[1] for b in blocks])[:n]
    return tokens, counts


def test_the_correct_rule_passes_and_the_numbers_match_a_direct_sample(explorer):
    explorer.controls["rule"].value = "correct"
    explorer.controls["seed"].value = 3
    explorer.controls["n"].value = 10**4.5
    shown = explorer.shown
    assert shown["rule"] == "correct" and shown["n"] == 31_623 and shown["passed"]
    target_probs, draft_probs, _ = spec_example()
    tokens, counts = direct_sample(target_probs, draft_probs, "correct", 3, 31_623)
    for i, fit in enumerate(shown["position_fits"]):
        reached = tokens[counts > i, i]
        assert fit.n == reached.size
        frequencies = np.bincount(reached, minlength=4) / reached.size
        if i == shown["position"]:
            assert np.allclose(shown["frequencies"], frequencies)
    assert np.allclose(shown["count_frequencies"], np.bincount(counts, minlength=4) / counts.size)


@pytest.mark.parametrize("rule", list(BROKEN_RULES))
def test_every_broken_rule_fails_visibly(explorer, rule):
    explorer.controls["seed"].value = 0
    explorer.controls["n"].value = 100_000
    explorer.controls["rule"].value = rule
    shown = explorer.shown
    assert not shown["passed"], rule
    text = explorer.shown["readout"].text()
    assert "FAILS" in text and BROKEN_RULES[rule].mistake in text
    # If some position fails, the view jumped to the one whose check is the most damning.
    fits = shown["position_fits"]
    if not all(fit.passed for fit in fits):
        assert shown["position"] == int(np.argmin([fit.p_value for fit in fits]))
    else:
        assert not shown["count_fit"].passed  # only the count shows it (drop_bonus_token)
    explorer.controls["rule"].value = "correct"
    assert explorer.shown["passed"]


def test_the_deviation_curve_falls_like_one_over_root_n_for_the_correct_rule_only():
    explorer = MonteCarloExplorer(n=MAX_STEPS)
    sizes, deviations = explorer.shown["sizes"], explorer.shown["deviations"]
    assert sizes[-1] == MAX_STEPS and sizes[0] == 100
    assert deviations[-1] < 0.005 < deviations[0]
    explorer.controls["rule"].value = "resample_from_target"
    biased = explorer.shown["deviations"]
    assert biased[-1] > 0.09  # levels off at the bias: 0.5 − 0.40 at token A
    assert np.all(biased[sizes >= 10_000] > 0.08)


def test_first_n_steps_do_not_depend_on_the_order_the_slider_visited():
    direct = MonteCarloExplorer(n=316_228)
    stepwise = MonteCarloExplorer(n=1_000)
    for value in (10**4, 10**5, 10**5.5):
        stepwise.controls["n"].value = value
    assert direct.shown["n"] == stepwise.shown["n"] == 316_228
    for a, b in zip(direct.shown["position_fits"], stepwise.shown["position_fits"]):
        assert a.statistic == b.statistic and a.n == b.n


def test_own_rows_and_the_bonus_position_hide_q(explorer):
    target_probs, draft_probs = random_rows(3, 6, 0.5, np.random.default_rng(0))
    own = MonteCarloExplorer(target_probs, draft_probs, n=10_000, seed=5)
    own.controls["position"].value = 3
    assert own.shown["passed"] and len(own.shown["position_fits"]) == 4
    token_axes = own.figure.axes[0]
    assert not [line for line in token_axes.lines if line.get_label() == "draft q"][0].get_visible()


def test_figure_is_updated_in_place_and_controls_are_labelled(explorer):
    figure = explorer.figure
    explorer.controls["position"].value = 2
    explorer.controls["position"].value = 1
    assert explorer.figure is figure
    assert explorer.controls["n"].min == 2 and explorer.controls["n"].max == 6  # 10² … 10⁶ on a log slider
    labels = dict(explorer.controls["rule"].options)
    assert set(labels.values()) == set(RULE_LABELS) and "the correct rule" in labels
    for control in explorer.controls.values():
        assert control.description and control.style.description_width == "initial"


def test_the_picture_after_moves_equals_a_full_render(explorer):
    broken = next(name for name in RULE_LABELS if name != "correct")
    for name, value in (("position", 2), ("n", 4), ("rule", broken), ("seed", 3), ("rule", "correct")):
        explorer.controls[name].value = value
        assert_picture_is_a_full_render(explorer)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"rule": "no_such_rule"}, ValueError, "rule must be one of"),
        ({"n": 10}, ValueError, "n must be an integer in 100 … 1,000,000, got 10"),
        ({"n": 2_000_000}, ValueError, "n must be an integer in 100 … 1,000,000, got 2,000,000"),
        ({"seed": 100}, ValueError, "seed must be an integer in 0 … 99, got 100"),
        ({"n": 1.5e5}, TypeError, "n must be an integer"),
    ],
)
def test_monte_carlo_arguments(kwargs, error, words):
    with pytest.raises(error, match=words):
        MonteCarloExplorer(**kwargs)


def test_monte_carlo_rejects_rows_too_wide_to_show():
    target_probs, draft_probs = random_rows(1, 30, 0.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="at most 26 tokens"):
        MonteCarloExplorer(target_probs, draft_probs)


def test_the_guide_is_an_upper_envelope_the_correct_rule_stays_under():
    from specdec.explore.monte_carlo import GUIDE_DEVIATIONS
    from specdec.output_law import reach_probabilities
    from specdec.sampled_runs import deviation_guide

    explorer = MonteCarloExplorer(n=MAX_STEPS, seed=0)
    target_probs, draft_probs, _ = spec_example()
    for position in range(3):
        explorer.controls["position"].value = position
        sizes, deviations = explorer.shown["sizes"], explorer.shown["deviations"]
        guide = GUIDE_DEVIATIONS * deviation_guide(target_probs[position],
                                                   reach_probabilities(target_probs, draft_probs)[position], sizes)
        np.testing.assert_allclose(explorer.picture.guide_line.get_ydata(), guide)
        assert np.all(deviations < guide)
    explorer.controls["rule"].value = "resample_from_target"  # a biased rule crosses it as n grows
    sizes, deviations = explorer.shown["sizes"], explorer.shown["deviations"]
    assert deviations[-1] > explorer.picture.guide_line.get_ydata()[-1]


def test_the_verdicts_are_clear_of_the_legends():
    explorer = MonteCarloExplorer(rule="always_accept")
    picture = explorer.picture
    assert all(text.get_text().startswith("FAILS") for text in picture.verdict_texts)
    renderer = picture.figure.canvas.get_renderer()
    for axes, text in zip((picture.token_axes, picture.count_axes), picture.verdict_texts):
        verdict, legend = text.get_window_extent(renderer), axes.get_legend().get_window_extent(renderer)
        assert verdict.y0 > legend.y1 or verdict.x1 < legend.x0
