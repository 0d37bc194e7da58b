"""The real-text explorer, driven headless: what it shows is the generation's and the theory's numbers."""

import html
import re

import numpy as np
import pytest

import specdec
from specdec.palette import ORIGIN_COLOURS
from specdec.text import Generation, fitted_model, mean_acceptance_rate, sample_contexts, speculative_generate
from specdec.text import ngram as ngram_module
from specdec.widgets.text import CONTEXT_COUNT, coloured_text_html, text_explorer

from .explorer_driving import assert_picture_is_a_full_render

# A corpus small enough to fit every order in a blink, varied enough to give every draft its own α.
CORPUS = (
    "The cat sat on the mat. The rat sat on the hat. The cat saw the rat, and the rat ran to the mat.\n"
    "Then the dog came by, and the cat and the rat ran off together down the long road to the sea.\n"
    "Return the value of the attribute, or raise an error if the attribute does not exist.\n"
) * 12


@pytest.fixture(scope="module")
def explorer():
    return text_explorer(CORPUS, length=120)


def assert_view_matches_the_run(explorer):
    values = {name: control.value for name, control in explorer.controls.items()}
    shown = explorer.shown
    temperature = round(values["temperature"], 2)
    target = fitted_model(values["target_order"], CORPUS).at_temperature(temperature)
    draft = fitted_model(values["draft_order"], CORPUS).at_temperature(temperature)

    # The run on screen is the run speculative_generate makes with the same arguments.
    expected = speculative_generate(target, draft, values["prompt"], 120, values["gamma"],
                                    np.random.default_rng(values["seed"]))
    generation = shown["generation"]
    assert generation == expected

    gamma, c = values["gamma"], values["c"]
    alpha = generation.mean_acceptance_rate
    assert shown["measured_alpha"] == generation.measured_alpha
    assert shown["mean_acceptance_rate"] == alpha
    assert shown["tokens_per_target_call"] == generation.tokens_per_target_call
    assert shown["expected_tokens"] == specdec.expected_tokens(alpha, gamma)
    assert shown["measured_speedup"] == generation.speedup_from_calls(c)
    assert shown["predicted_speedup"] == specdec.speedup(alpha, gamma, c)

    contexts = sample_contexts(CORPUS, CONTEXT_COUNT, 7)
    for order, value in shown["alpha_by_draft_order"].items():
        other = fitted_model(order, CORPUS).at_temperature(temperature)
        assert value == pytest.approx(mean_acceptance_rate(target, other, contexts), rel=1e-12)

    # The picture: one α bar per draft order, the measured line on the chosen one, the gain bars.
    alpha_axes, gain_axes = explorer.figure.axes
    heights = [bar.get_height() for bar in alpha_axes.patches[:4]]
    np.testing.assert_allclose(heights, list(shown["alpha_by_draft_order"].values()))
    (measured_line,) = [line for line in alpha_axes.lines if line.get_label() == "measured in this run"]
    assert measured_line.get_ydata()[0] == shown["measured_alpha"]
    assert np.mean(measured_line.get_xdata()) == values["draft_order"]
    gain_heights = sorted(round(bar.get_height(), 12) for bar in gain_axes.patches)
    assert gain_heights == sorted(round(value, 12) for value in (
        shown["tokens_per_target_call"], shown["measured_speedup"], shown["expected_tokens"], shown["predicted_speedup"]))

    # The text and the readout.
    assert shown["text_html"] == coloured_text_html(generation)
    readout = shown["readout"]
    assert f"α measured: <b>{shown['measured_alpha']:.3f}</b>" in readout
    assert f"{shown['mean_acceptance_rate']:.3f}" in readout
    assert f"per target call: <b>{shown['tokens_per_target_call']:.2f}</b> measured" in readout
    assert f"{shown['predicted_speedup']:.2f}× = speedup(α, γ, c)" in readout
    assert explorer.readout.value == readout


def test_the_first_view(explorer):
    assert set(explorer.controls) == {"draft_order", "target_order", "gamma", "temperature", "seed", "prompt", "c"}
    assert_view_matches_the_run(explorer)
    assert explorer.image.value[:4] == b"\x89PNG"


@pytest.mark.parametrize("name, values", [
    ("seed", [1, 2, 0]),
    ("gamma", [1, 7, 10, 4]),
    ("c", [1, 100, 20]),
    ("temperature", [0.2, 2.0, 1.0]),
    ("prompt", ["Return ", "", "Zebra ", "The "]),
    ("draft_order", [1, 2, 4, 3]),
    ("target_order", [4, 7, 6, 5]),
])
def test_every_control_updates_the_view(explorer, name, values):
    for value in values:
        explorer.controls[name].value = value
        assert_view_matches_the_run(explorer)
        assert_picture_is_a_full_render(explorer)


def test_equal_orders_accept_every_draft(explorer):
    explorer.controls["draft_order"].value = 4
    explorer.controls["target_order"].value = 4
    try:
        shown = explorer.shown
        assert shown["measured_alpha"] == 1.0
        assert shown["alpha_by_draft_order"][4] == pytest.approx(1.0)
        assert set(shown["generation"].origins) <= {"accepted", "bonus"}
        assert "title='resampled'" not in shown["text_html"].split("</div>", 1)[1]
    finally:
        explorer.controls["draft_order"].value = 3
        explorer.controls["target_order"].value = 5


def test_models_are_fitted_once_per_order(explorer):
    for order in (4, 6, 5):
        explorer.controls["target_order"].value = order
    misses = ngram_module._fitted.cache_info().misses
    for order in (4, 6, 5):
        explorer.controls["target_order"].value = order
    explorer.controls["temperature"].value = 1.5
    explorer.controls["temperature"].value = 1.0
    assert ngram_module._fitted.cache_info().misses == misses


def test_coloured_text_marks_every_character_with_its_origin():
    generation = Generation("Hi ", "a<\n&b", ("accepted", "resampled", "bonus", "accepted", "target"),
                            (3, 2), 2, 4, 2)
    page = coloured_text_html(generation, legend=False)
    spans = re.findall(r"<span title='(\w+)' style='([^']*)'>(.*?)</span>", page, flags=re.S)
    assert [origin for origin, _, _ in spans] == list(generation.origins)
    assert [html.unescape(text) for _, _, text in spans] == ["a", "<", "↵\n", "&", "b"]
    for origin, style, _ in spans:
        assert ORIGIN_COLOURS[origin] in style
    styles = {origin: style for origin, style, _ in spans}
    assert "bold" in styles["resampled"] and "bold" in styles["bonus"] and "bold" not in styles["accepted"]
    assert styles["resampled"] != styles["bonus"]  # not by colour alone
    assert "Hi " in page and "<b>" not in page


def test_the_legend_names_each_origin_shown():
    generation = Generation("", "ab", ("accepted", "bonus"), (2,), 1, 1, 1)
    page = coloured_text_html(generation)
    assert "accepted draft character" in page and "bonus from the target" in page
    assert "resampled after a rejection" not in page
    assert "prompt in grey" in page


@pytest.mark.parametrize("kwargs, error, words", [
    ({"corpus": 42}, TypeError, "corpus"),
    ({"corpus": "too short"}, ValueError, "corpus"),
    ({"draft_order": 5}, ValueError, "draft_order"),
    ({"target_order": 3}, ValueError, "target_order"),
    ({"gamma": 0}, ValueError, "gamma"),
    ({"temperature": 3.0}, ValueError, "temperature"),
    ({"temperature": "hot"}, TypeError, "temperature"),
    ({"seed": -1}, ValueError, "seed"),
    ({"prompt": None}, TypeError, "prompt"),
    ({"length": 0}, ValueError, "length"),
    ({"c": 0}, ValueError, "c"),
])
def test_bad_arguments(kwargs, error, words):
    arguments = {"corpus": CORPUS, **kwargs}
    with pytest.raises(error, match=words):
        text_explorer(**arguments)


def test_the_default_corpus_is_the_standard_library(monkeypatch):
    from specdec.text import corpus as corpus_module

    monkeypatch.setattr(corpus_module, "stdlib_corpus", lambda: CORPUS + "Stdlib stand-in. " * 10)
    explorer = text_explorer(length=20)
    assert len(explorer.shown["generation"].text) == 20
