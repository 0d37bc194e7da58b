"""The candidates explorer of notebook 08, driven headless: every control, against the math."""

import numpy as np
import pytest

from specdec.explore.candidates import CandidatesExplorer, CandidatesFigure
from specdec.goodness_of_fit import DEFAULT_SIGNIFICANCE, format_p_value, goodness_of_fit
from specdec.variants.broken_candidates import BROKEN_CANDIDATE_RULES
from specdec.variants.multi_candidate import acceptance_by_k, multi_candidate_law, sample_multi_candidate
from specdec.variants.pairs import draft_with_acceptance, geometric_target

from .explorer_driving import assert_picture_is_a_full_render, slider_positions
from .notebook_markdown import NOTEBOOKS, markdown_cells
from .test_explore_legends import check_entry, legend_entries


def assert_candidates_view_matches_the_math(explorer):
    shown = explorer.shown
    k, alpha, rule = (explorer.controls[name].value for name in ("k", "alpha", "rule"))
    n, seed = explorer.controls["n"].value, explorer.controls["seed"].value
    assert (shown["k"], shown["alpha"], shown["rule"], shown["n"], shown["seed"]) == (k, alpha, rule, n, seed)
    p = geometric_target(6, 0.55)
    q = draft_with_acceptance(p, alpha)
    np.testing.assert_allclose(shown["draft"], q)
    exact_curve = acceptance_by_k(p, q, 6)
    np.testing.assert_allclose(shown["exact_by_k"], exact_curve, atol=1e-12)
    if rule == "exact":
        np.testing.assert_allclose(shown["law"], multi_candidate_law(p, q, k).total, atol=1e-12)
        np.testing.assert_allclose(shown["accepted_by_k"], exact_curve, atol=1e-12)
        tokens, _ = sample_multi_candidate(p, q, k, n, np.random.default_rng(seed))
    else:
        broken = BROKEN_CANDIDATE_RULES[rule]
        np.testing.assert_allclose(shown["law"], broken.law(p, q, k), atol=1e-12)
        tokens = broken.sample(p, q, k, n, np.random.default_rng(seed))
    np.testing.assert_allclose(shown["frequencies"], np.bincount(tokens, minlength=6) / n)
    assert shown["fit"].p_value == goodness_of_fit(tokens, p).p_value
    law_axes, k_axes = explorer.figure.axes
    tops = [bar.get_y() + bar.get_height() for bar in law_axes.patches[6:12]]  # the resampled stack
    np.testing.assert_allclose(tops, shown["law"], atol=1e-12)
    # The curves reach as far as the largest k shown so far, not further.
    widest = shown["widest_k"]
    assert widest >= k
    np.testing.assert_allclose(explorer.picture.rule_line.get_ydata(), shown["accepted_by_k"][:widest])
    np.testing.assert_allclose(explorer.picture.exact_line.get_ydata(), exact_curve[:widest], atol=1e-12)
    text = shown["readout"].text()
    assert f"P(some candidate accepted) = {shown['accepted_by_k'][k - 1]:.3f}" in text
    assert f"k = {k}" in text


@pytest.fixture(scope="module")
def candidates():
    return CandidatesExplorer()


def test_the_first_view_is_exact_passes_the_check_and_gives_away_no_second_candidate(candidates):
    assert_candidates_view_matches_the_math(candidates)
    assert candidates.shown["tv"] < 1e-12 and candidates.shown["fit"].passed
    assert "exactly p" in candidates.shown["readout"].text()
    # The Predict asks what a second candidate adds: neither the readout nor the curve says it yet.
    assert candidates.shown["k"] == 1 and len(candidates.picture.rule_line.get_ydata()) == 1
    assert f"{candidates.shown['exact_by_k'][1]:.3f}" not in candidates.summary()


def test_the_curve_grows_with_the_largest_k_tried():
    explorer = CandidatesExplorer(alpha=0.5)
    explorer.controls["k"].value = 3
    explorer.controls["k"].value = 2
    assert explorer.shown["widest_k"] == 3
    np.testing.assert_allclose(explorer.picture.exact_line.get_ydata(), [0.5, 0.675, 0.76], atol=5e-4)
    assert_candidates_view_matches_the_math(explorer)


@pytest.mark.parametrize("name", ["k", "alpha", "seed"])
def test_every_slider_of_the_candidates_explorer(candidates, name):
    for value in slider_positions(candidates.controls[name]):
        candidates.controls[name].value = value
        assert_candidates_view_matches_the_math(candidates)
    assert_picture_is_a_full_render(candidates)


def test_the_rule_and_n_controls_and_the_broken_rules_are_caught():
    explorer = CandidatesExplorer(k=2, alpha=0.5, n=10_000)
    for size in (100, 1_000, 10_000, 50_000):
        explorer.controls["n"].value = size
        assert_candidates_view_matches_the_math(explorer)
    for rule in ("stale residual", "without replacement", "exact"):
        explorer.controls["rule"].value = rule
        assert_candidates_view_matches_the_math(explorer)
        if rule != "exact":
            assert explorer.shown["tv"] > 0.01 and not explorer.shown["fit"].passed
            assert "fails" in explorer.shown["readout"].text()
    assert_picture_is_a_full_render(explorer)


def test_the_check_line_shows_its_threshold_and_the_law_line_speaks_of_this_rule():
    explorer = CandidatesExplorer(k=6, alpha=1.0)  # passes with a p-value under 0.05
    fit, threshold = explorer.shown["fit"], format_p_value(DEFAULT_SIGNIFICANCE)
    assert fit.passed and fit.significance == DEFAULT_SIGNIFICANCE
    readout = explorer.shown["readout"].plain()
    assert f"passes (p-value {format_p_value(fit.p_value)}; it fails below {threshold})" in readout[-1]
    assert readout[-2] == "Computed exactly, this rule's output law is exactly p."
    explorer.controls["alpha"].value = 0.5
    explorer.controls["k"].value = 3
    explorer.controls["rule"].value = "stale residual"
    fit, readout = explorer.shown["fit"], explorer.shown["readout"].plain()
    assert not fit.passed
    assert f"fails (p-value {format_p_value(fit.p_value)}; it fails below {threshold})" in readout[-1]
    assert readout[-2] == f"Computed exactly, this rule's output law is {explorer.shown['tv']:.3f} from p (TV)."


def test_the_try_this_items_of_notebook_08_from_the_states_they_name():
    assert "(TV 0.018)" in "\n".join(markdown_cells(NOTEBOOKS / "08_several_candidates_and_trees.ipynb"))
    # "At α = 0.5 and k = 2": the stale residual overshoots p and is caught at n = 10,000 ...
    explorer = CandidatesExplorer(k=2, alpha=0.5, rule="stale residual", n=10_000)
    assert explorer.shown["accepted_by_k"][1] > explorer.shown["exact_by_k"][1]
    assert round(explorer.shown["tv"], 3) == 0.097 and not explorer.shown["fit"].passed
    # ... distinct candidates are biased less (TV 0.018) and still caught.
    explorer.controls["rule"].value = "without replacement"
    assert round(explorer.shown["tv"], 3) == 0.018 and not explorer.shown["fit"].passed
    # With α = 1 (draft = target) no rule can go wrong: why each item says its α.
    explorer.controls["alpha"].value = 1.0
    assert explorer.shown["tv"] < 1e-12


@pytest.mark.parametrize("arguments, error, words", [
    (dict(k=7), ValueError, "k must be an integer in 1 … 6, got 7"),
    (dict(alpha=0.1), ValueError, "alpha"),
    (dict(rule="fast"), ValueError, "rule"),
    (dict(n=5), ValueError, "n must be one of"),
    (dict(seed=-1), ValueError, "seed"),
])
def test_bad_arguments_name_themselves(arguments, error, words):
    with pytest.raises(error, match=rf"^{words}\b"):  # the message starts by naming the argument
        CandidatesExplorer(**arguments)


def test_every_legend_entry_takes_its_role_from_the_palette():
    picture = CandidatesFigure(["A", "B"], max_k=3)
    picture.update([0.4, 0.1], [0.1, 0.4], [0.5, 0.5], [0.8, 0.2], [0.52, 0.48], 2, [0.5, 0.7, 0.8],
                   [0.5, 0.75, 0.9], 3, "exact rule")
    found = {check_entry(handle, label) for handle, label in legend_entries(picture.figure)}
    assert {role.label for role in found if role is not None} == {"target p", "draft q", "accepted", "resampled"}
