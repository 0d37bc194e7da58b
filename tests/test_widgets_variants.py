"""The candidates and lossy-acceptance explorers, driven headless: every control, against the math."""

import numpy as np
import pytest

from specdec.goodness_of_fit import goodness_of_fit
from specdec.variants.broken_candidates import BROKEN_CANDIDATE_RULES
from specdec.variants.lossy_acceptance import lossy_law
from specdec.variants.multi_candidate import acceptance_by_k, multi_candidate_law, sample_multi_candidate
from specdec.variants.pairs import draft_with_acceptance, geometric_target
from specdec.widgets.variants import LOSSY_DRAFTS, candidates_explorer, lossy_draft, lossy_explorer

from .explorer_driving import assert_picture_is_a_full_render, slider_positions


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
    assert f"P(some candidate accepted) = <b>{shown['accepted_by_k'][k - 1]:.3f}</b>" in shown["readout"]
    assert f"k = {k}" in shown["readout"]


@pytest.fixture(scope="module")
def candidates():
    return candidates_explorer()


def test_the_first_view_is_exact_and_passes_the_check(candidates):
    assert_candidates_view_matches_the_math(candidates)
    assert candidates.shown["tv"] < 1e-12 and candidates.shown["fit"].passed
    assert "exactly p" in candidates.shown["readout"]


@pytest.mark.parametrize("name", ["k", "alpha", "seed"])
def test_every_slider_of_the_candidates_explorer(candidates, name):
    for value in slider_positions(candidates.controls[name]):
        candidates.controls[name].value = value
        assert_candidates_view_matches_the_math(candidates)
    assert_picture_is_a_full_render(candidates)


def test_the_rule_and_n_controls_and_the_broken_rules_are_caught():
    explorer = candidates_explorer(k=2, alpha=0.5, n=10_000)
    for size in (100, 1_000, 10_000, 50_000):
        explorer.controls["n"].value = size
        assert_candidates_view_matches_the_math(explorer)
    for rule in ("stale residual", "without replacement", "exact"):
        explorer.controls["rule"].value = rule
        assert_candidates_view_matches_the_math(explorer)
        if rule != "exact":
            assert explorer.shown["tv"] > 0.01 and not explorer.shown["fit"].passed
            assert "fails" in explorer.shown["readout"]
    assert_picture_is_a_full_render(explorer)


def assert_lossy_view_matches_the_math(explorer):
    shown = explorer.shown
    values = {name: explorer.controls[name].value for name in ("rule", "alpha", "draft", "lenience", "epsilon", "delta")}
    assert {name: shown[name] for name in values} == values
    p = geometric_target(8, 0.6)
    favourite = LOSSY_DRAFTS[values["draft"]]
    q = lossy_draft(favourite, values["alpha"])
    if favourite < 0:
        np.testing.assert_allclose(q, draft_with_acceptance(p, values["alpha"]))
    else:
        assert q[favourite] >= p[favourite] and np.minimum(p, q).sum() == pytest.approx(values["alpha"])
    law = lossy_law(values["rule"], p, q, lenience=values["lenience"], epsilon=values["epsilon"], delta=values["delta"])
    np.testing.assert_allclose(shown["law"].output, law.output, atol=1e-12)
    assert shown["law"].tv == pytest.approx(law.tv, abs=1e-12)
    assert shown["gain"] == pytest.approx(law.acceptance - values["alpha"], abs=1e-9)
    lenient = [lossy_law("lenient", p, q, lenience=value) for value in np.linspace(1.0, 0.05, 20)]
    np.testing.assert_allclose(shown["lenient_curve"][1], [x.tv for x in lenient], atol=1e-12)
    law_axes, trade_axes = explorer.figure.axes
    chosen = [line for line in trade_axes.lines if line.get_label() == "chosen rule"][0]
    assert chosen.get_xdata()[0] == pytest.approx(law.acceptance) and chosen.get_ydata()[0] == pytest.approx(law.tv)
    assert f"TV distance of the output from p: <b>{law.tv:.3f}</b>" in shown["readout"]
    assert f"gain <b>{law.acceptance - shown['exact_acceptance']:+.3f}</b>" in shown["readout"]


@pytest.fixture(scope="module")
def lossy():
    return lossy_explorer()


def test_the_first_view_is_medusa_defaults(lossy):
    assert_lossy_view_matches_the_math(lossy)
    assert (lossy.shown["epsilon"], lossy.shown["delta"]) == (0.09, 0.3)
    assert lossy.shown["gain"] > 0 and lossy.shown["law"].tv > 0


@pytest.mark.parametrize("name", ["alpha", "lenience", "epsilon", "delta", "draft"])
def test_every_slider_of_the_lossy_explorer(lossy, name):
    for rule in ("typical", "lenient"):
        lossy.controls["rule"].value = rule
        positions = list(LOSSY_DRAFTS) if name == "draft" else slider_positions(lossy.controls[name])
        for value in positions:
            lossy.controls[name].value = value
            assert_lossy_view_matches_the_math(lossy)
    assert_picture_is_a_full_render(lossy)


def test_every_rule_of_the_lossy_explorer(lossy):
    for rule in ("exact", "greedy", "lenient", "typical"):
        lossy.controls["rule"].value = rule
        assert_lossy_view_matches_the_math(lossy)
    lossy.controls["rule"].value = "exact"
    assert lossy.shown["law"].tv < 1e-12 and "the output is p" in lossy.shown["readout"]
    assert_picture_is_a_full_render(lossy)


@pytest.mark.parametrize("function, arguments, error, words", [
    (candidates_explorer, dict(k=7), ValueError, "k"),
    (candidates_explorer, dict(alpha=0.1), ValueError, "alpha"),
    (candidates_explorer, dict(rule="fast"), ValueError, "rule"),
    (candidates_explorer, dict(n=5), ValueError, "n must be one of"),
    (candidates_explorer, dict(seed=-1), ValueError, "seed"),
    (lossy_explorer, dict(rule="medusa"), ValueError, "rule"),
    (lossy_explorer, dict(alpha=0.1), ValueError, "alpha"),
    (lossy_explorer, dict(draft="greedy"), ValueError, "draft"),
    (lossy_explorer, dict(lenience=0.0), ValueError, "lenience"),
    (lossy_explorer, dict(epsilon=2.0), ValueError, "epsilon"),
    (lossy_explorer, dict(delta="x"), TypeError, "delta"),
])
def test_bad_arguments_name_themselves(function, arguments, error, words):
    with pytest.raises(error, match=words):
        function(**arguments)


@pytest.fixture(scope="module")
def comparison():
    from specdec.text import NGramModel
    from specdec.variants.adaptive_gamma import compare_schedules

    text = ("the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat. "
            "then the cat sat on the hat, and the rat sat on the cat. ") * 3
    return compare_schedules(NGramModel(order=4).fit(text), NGramModel(order=2).fit(text), "the ", 400, c=20,
                             seed=0, fixed_gammas=range(1, 6))


def assert_schedules_view_matches_the_math(explorer, comparison):
    from specdec.theory import optimal_gamma, speedup
    from specdec.widgets.variants import schedule_runs

    shown = explorer.shown
    c, name = explorer.controls["c"].value, explorer.controls["schedule"].value
    runs = schedule_runs(comparison)
    assert (shown["c"], shown["schedule"]) == (c, name)
    assert shown["speedups"] == [run.speedup(c) for run in runs.values()]
    assert shown["speedup"] == runs[name].speedup(c)
    assert shown["tokens_per_call"] == runs[name].tokens_per_target_call
    best = max(sorted(comparison.fixed), key=lambda gamma: comparison.fixed[gamma].speedup(c))
    assert shown["best_fixed"] == best
    assert (shown["theory_gamma"], shown["theory_speedup"]) == optimal_gamma(comparison.mean_alpha, c)
    step_axes, speed_axes = explorer.figure.axes
    np.testing.assert_allclose([bar.get_height() for bar in speed_axes.patches], shown["speedups"])
    theory = [line for line in speed_axes.lines if line.get_label().startswith("speedup(")][0]
    np.testing.assert_allclose(theory.get_ydata(), [speedup(comparison.mean_alpha, g, c) for g in sorted(comparison.fixed)])
    gamma_line = [line for line in step_axes.lines if line.get_label() == "γ drafted"][0]
    shown_steps = min(len(runs[name].gammas), len(gamma_line.get_ydata()))
    np.testing.assert_array_equal(gamma_line.get_ydata()[:shown_steps], runs[name].gammas[:shown_steps])
    assert f"At c = {c}: speedup <b>{shown['speedup']:.2f}×</b>" in shown["readout"]
    assert f"Best fixed γ measured at this c: <b>{best}</b>" in shown["readout"]


def test_every_control_of_the_schedules_explorer(comparison):
    from specdec.widgets.variants import schedules_explorer

    explorer = schedules_explorer(comparison)
    assert_schedules_view_matches_the_math(explorer, comparison)
    for value in slider_positions(explorer.controls["c"]):
        explorer.controls["c"].value = value
        assert_schedules_view_matches_the_math(explorer, comparison)
    for name in explorer.controls["schedule"].options:
        explorer.controls["schedule"].value = name
        assert_schedules_view_matches_the_math(explorer, comparison)
    assert_picture_is_a_full_render(explorer)


def test_the_schedules_explorer_refuses_bad_arguments(comparison):
    from specdec.widgets.variants import schedules_explorer

    with pytest.raises(TypeError, match="comparison"):
        schedules_explorer({"heuristic": None})
    with pytest.raises(ValueError, match="c must be"):
        schedules_explorer(comparison, c=0)
