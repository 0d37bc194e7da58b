"""The real-text explorer of notebook 07, driven headless: what it shows is the generation's and the theory's numbers."""

import html
import re

import numpy as np
import pytest

import specdec
from specdec.palette import ORIGIN_COLOURS
from specdec.text import Generation, fitted_model, mean_acceptance_rate, sample_contexts, speculative_generate
from specdec.text import ngram as ngram_module
from specdec.explore import text as text_module
from specdec.explore.text import CONTEXT_COUNT, SEED_COUNT, TextExplorer, coloured_text_html

from .explorer_driving import assert_picture_is_a_full_render

# A corpus small enough to fit every order in a blink, varied enough to give every draft its own α.
CORPUS = (
    "The cat sat on the mat. The rat sat on the hat. The cat saw the rat, and the rat ran to the mat.\n"
    "Then the dog came by, and the cat and the rat ran off together down the long road to the sea.\n"
    "Return the value of the attribute, or raise an error if the attribute does not exist.\n"
) * 12


@pytest.fixture(scope="module", autouse=True)
def temporary_cache(tmp_path_factory):
    """Counts kept on disk go to a temporary directory, never to the user's cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SPECDEC_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="module")
def explorer(temporary_cache):
    return TextExplorer(CORPUS, length=120)


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

    # Characters per call over several seeds, the basis of any claim about how they move with γ.
    spread = shown["seed_spread"]
    if values["seed_spread"]:
        runs = [speculative_generate(target, draft, values["prompt"], 120, gamma, np.random.default_rng(seed))
                for seed in range(SEED_COUNT)]
        per_call = [len(run.text) / run.target_calls for run in runs]
        np.testing.assert_allclose(spread.characters_per_call, per_call)
        assert (spread.low, spread.high) == (min(per_call), max(per_call))
        assert spread.mean == pytest.approx(sum(per_call) / SEED_COUNT)
        np.testing.assert_allclose(shown["seed_speedups"], [run.speedup_from_calls(c) for run in runs])
    else:
        assert spread is None and shown["seed_speedups"] is None

    # The picture: one α bar per draft order, the measured line on the chosen one, the gain bars.
    alpha_axes, tokens_axes, speed_axes = explorer.figure.axes
    heights = [bar.get_height() for bar in alpha_axes.patches[:4]]
    np.testing.assert_allclose(heights, list(shown["alpha_by_draft_order"].values()))
    (measured_line,) = [line for line in alpha_axes.lines if line.get_label() == "measured in this run"]
    assert measured_line.get_ydata()[0] == shown["measured_alpha"]
    assert np.mean(measured_line.get_xdata()) == values["draft_order"]
    # Characters per call and speedup on axes of their own, each fixed whatever γ is.
    assert [bar.get_height() for bar in tokens_axes.patches] == pytest.approx(
        [shown["tokens_per_target_call"], shown["expected_tokens"]])
    assert [bar.get_height() for bar in speed_axes.patches] == pytest.approx(
        [shown["measured_speedup"], shown["predicted_speedup"]])
    assert tokens_axes.get_ylim() == speed_axes.get_ylim() == (0, 12)
    (ceiling,) = [line for line in tokens_axes.lines if line.get_linestyle() == "--"]
    assert list(ceiling.get_ydata()) == [gamma + 1, gamma + 1]
    assert all(line.get_linestyle() != "--" for line in speed_axes.lines)  # γ + 1 not across the speedups

    # The text and the readout.
    assert shown["text_html"] == coloured_text_html(generation)
    readout = shown["readout"].text()
    assert f"α measured in this run: {shown['measured_alpha']:.3f}" in readout
    mean = f"{shown['mean_acceptance_rate']:.3f}"
    assert f"ᾱ = {mean}" in readout
    assert f"per target call: {shown['tokens_per_target_call']:.2f} in this run" in readout
    # The theory is labelled with the α it used, the averaged one.
    assert f"expected_tokens(ᾱ = {mean}, γ = {gamma}) = {shown['expected_tokens']:.2f}" in readout
    assert f"speedup(ᾱ = {mean}, γ = {gamma}, c = {c}) = {shown['predicted_speedup']:.2f}×" in readout
    assert "One run of 120 characters is noisy" in readout
    tokens_mean, speed_mean = explorer.picture.tokens.spread[0], explorer.picture.speed.spread[0]
    if spread is not None:
        speedups = shown["seed_speedups"]
        assert f"characters per call: mean {spread.mean:.2f}, from {spread.low:.2f} to {spread.high:.2f}" in readout
        assert (f"speedup at c = {c}: mean {speedups.mean():.2f}×, from {speedups.min():.2f}× to "
                f"{speedups.max():.2f}×") in readout
        assert tokens_mean.get_ydata()[0] == spread.mean and speed_mean.get_ydata()[0] == speedups.mean()
        assert list(explorer.picture.speed.spread[1].get_ydata()) == [speedups.min(), speedups.max()]
    else:
        assert f"tick “mean over {SEED_COUNT} seeds”" in readout
        assert np.isnan(tokens_mean.get_ydata()[0]) and np.isnan(speed_mean.get_ydata()[0])  # no marker drawn
    # The accepted characters of the text and the draft characters that passed agree, or the readout says why.
    passed, tested = sum(generation.visited_accepted), len(generation.visited_accepted)
    in_text = generation.origins.count("accepted")
    assert f"accepted {in_text}," in readout and f"{passed} of {tested}" in readout
    cut = passed - in_text
    assert 0 <= cut <= generation.discarded
    assert (f"{cut} of them came after character 120, where the text stops, so {in_text} are in the text"
            in readout) == (cut > 0)
    assert explorer.readout.value == shown["readout"].html()


def test_the_first_view(explorer):
    assert set(explorer.controls) == {"draft_order", "target_order", "gamma", "temperature", "seed", "prompt", "c",
                                      "seed_spread"}
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
    ("seed_spread", [True, False]),
])
def test_every_control_updates_the_view(explorer, name, values):
    for value in values:
        explorer.controls[name].value = value
        assert_view_matches_the_run(explorer)
        assert_picture_is_a_full_render(explorer)


def test_the_mean_over_seeds_follows_gamma_while_ticked(explorer):
    explorer.controls["seed_spread"].value = True
    try:
        for gamma in (1, 6, 4):
            explorer.controls["gamma"].value = gamma
            assert_view_matches_the_run(explorer)
            assert_picture_is_a_full_render(explorer)
    finally:
        explorer.controls["seed_spread"].value = False


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


def counting_tables(monkeypatch):
    """Record every table of counts computed from the text (not loaded from memory or disk)."""
    counted = []
    original = ngram_module._raw_table

    def counting(ids, length, size):
        counted.append(length)
        return original(ids, length, size)

    monkeypatch.setattr(ngram_module, "_raw_table", counting)
    return counted


def test_models_are_fitted_once_per_order(explorer, monkeypatch):
    for order in (4, 6, 5):
        explorer.controls["target_order"].value = order
    counted = counting_tables(monkeypatch)
    for order in (4, 6, 5):
        explorer.controls["target_order"].value = order
    explorer.controls["temperature"].value = 1.5
    explorer.controls["temperature"].value = 1.0
    assert counted == []


def test_the_first_picture_counts_only_what_it_shows_and_reports_progress(monkeypatch):
    corpus = CORPUS + "A corpus of its own, so nothing of it is counted yet. " * 3
    counted = counting_tables(monkeypatch)
    messages = []

    def recorder(title):
        def report(message):
            messages.append(message)
        report.done = lambda: messages.append("done")
        return report

    monkeypatch.setattr(text_module, "ProgressLine", recorder)
    explorer = TextExplorer(corpus, target_order=5, length=40)
    # Draft orders 1 … 4 (the left panel) and the 5-gram target: contexts of 0 … 4 characters.
    assert sorted(counted) == [0, 1, 2, 3, 4]
    assert [message for message in messages if "counting" in message] == [
        f"counting the contexts of length {length}" for length in counted]
    assert messages[-1] == "done"
    explorer.controls["target_order"].value = 7  # counted when the slider first reaches it
    assert sorted(counted) == [0, 1, 2, 3, 4, 5, 6]
    del counted[:], messages[:]
    TextExplorer(corpus, target_order=7, length=40)  # everything is known now: nothing to report
    assert counted == [] and messages == ["done"]


def test_progress_is_shown_only_in_a_notebook(capsys, monkeypatch):
    report = text_module.ProgressLine("Preparing")
    report("reading")  # outside a notebook: nothing shown, nothing raised
    report.done()
    assert capsys.readouterr().out == "" and report.handle is None

    shown = []

    class Handle:
        def update(self, bundle, raw):
            shown.append(("update", bundle["text/plain"]))

    def display(bundle, raw, display_id):
        shown.append(("display", bundle["text/plain"]))
        return Handle()

    monkeypatch.setattr(text_module, "get_ipython", lambda: type("Shell", (), {"kernel": object()})())
    monkeypatch.setattr(text_module, "display", display)
    report = text_module.ProgressLine("Preparing")
    report("reading")
    report("counting")
    report.done()
    assert shown == [("display", "Preparing: reading …"), ("update", "Preparing: counting …"), ("update", "")]
    assert report.handle is None


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


@pytest.mark.parametrize("generation, error, words", [
    (None, TypeError, "generation must be a specdec.text.Generation, got NoneType"),
    ("text", TypeError, "generation must be a specdec.text.Generation, got str"),
])
def test_coloured_text_refuses_what_is_not_a_generation(generation, error, words):
    with pytest.raises(error, match=re.escape(words)):
        coloured_text_html(generation)


def test_coloured_text_names_an_unknown_origin():
    # Generation refuses unknown origins itself; one forced past it is still named, not a KeyError.
    generation = Generation("", "ab", ("accepted", "bonus"), (2,), 1, 1, 1)
    object.__setattr__(generation, "origins", ("accepted", "typo"))
    with pytest.raises(ValueError, match="generation.origins holds 'typo': each origin must be one of 'accepted'"):
        coloured_text_html(generation)


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
    ({"c": 0}, ValueError, "c must be an integer in 1 … 100, got 0"),
    ({"seed_spread": "yes"}, TypeError, "seed_spread"),
])
def test_bad_arguments(kwargs, error, words):
    arguments = {"corpus": CORPUS, **kwargs}
    with pytest.raises(error, match=rf"^{words}\b"):  # the message starts by naming the argument
        TextExplorer(**arguments)


def test_the_default_corpus_is_the_standard_library(monkeypatch):
    from specdec.text import corpus as corpus_module

    monkeypatch.setattr(corpus_module, "stdlib_corpus", lambda: CORPUS + "Stdlib stand-in. " * 10)
    explorer = TextExplorer(length=20)
    assert len(explorer.shown["generation"].text) == 20


def test_what_notebook_07_says_of_gamma_over_six_seeds():
    from specdec.text import stdlib_corpus

    explorer = TextExplorer(stdlib_corpus(), draft_order=4, target_order=5, seed_spread=True)
    means = {}
    for c in (20, 5):
        for gamma in (2, 4, 8):
            with explorer.batch():
                explorer.controls["gamma"].value, explorer.controls["c"].value = gamma, c
            means[c, gamma] = explorer.shown["seed_spread"].mean, explorer.shown["seed_speedups"].mean()
    per_call = [means[20, gamma][0] for gamma in (2, 4, 8)]
    speedups = [means[20, gamma][1] for gamma in (2, 4, 8)]
    # Characters per call keep rising with γ; the speedup at c = 20 grows much more slowly ...
    assert per_call == sorted(per_call) and speedups[2] / speedups[0] < 0.8 * per_call[2] / per_call[0]
    # ... and at c = 5 the long draft no longer pays.
    assert means[5, 8][1] < means[5, 4][1]
