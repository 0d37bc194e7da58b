"""The lossy-acceptance explorer of notebook 09, driven headless: every control, against the math."""

import re

import numpy as np
import pytest

from specdec.explore.lossy import LOSSY_DRAFTS, LossyExplorer, LossyFigure, lossy_draft
from specdec.variants.lossy_acceptance import lossy_law
from specdec.variants.pairs import draft_with_acceptance, geometric_target

from .explorer_driving import assert_picture_is_a_full_render, slider_positions
from .notebook_markdown import NOTEBOOKS, markdown_cells
from .test_explore_legends import check_entry, legend_entries


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
    chosen = explorer.picture.chosen_point
    assert chosen.get_xdata()[0] == pytest.approx(law.acceptance) and chosen.get_ydata()[0] == pytest.approx(law.tv)
    text = shown["readout"].text()
    assert f"TV distance of the output from p: {law.tv:.3f}" in text
    change = f"{law.acceptance - shown['exact_acceptance']:+.3f}"
    change = "+0.000" if change == "-0.000" else change.replace("-", "−")  # a minus sign, U+2212
    assert f"change {change}" in text and not re.search(r"\bgain\b", text) and not re.search(r"(?<!\w)-\d", text)
    assert shown["readout"].plain()[0].count(":") == 1  # the rule's name, a colon, what it does


@pytest.fixture(scope="module")
def lossy():
    return LossyExplorer()


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
    assert lossy.shown["law"].tv < 1e-12 and "the output is p" in lossy.shown["readout"].text()
    assert_picture_is_a_full_render(lossy)


def test_what_notebook_09_says_of_the_lossy_explorer():
    # The figures below are the lesson's: its text states them, and the explorer must show them.
    lesson = "\n".join(markdown_cells(NOTEBOOKS / "09_lossy_shortcuts_and_adaptive_gamma.ipynb"))
    assert all(figure in lesson for figure in ("0.946", "0.413", "λ = 0.35", "0.485 against 0.600", "0.885", "0.102"))
    explorer = LossyExplorer()  # typical acceptance, the draft that over-trusts B
    def at(**settings):
        with explorer.batch():
            for name, value in settings.items():
                explorer.controls[name].value = value
        return round(explorer.shown["law"].acceptance, 3), round(explorer.shown["law"].tv, 3)

    # Predict: raising ε moves nothing; lowering δ raises acceptance but the TV distance falls a little.
    assert at(epsilon=0.5) == at(epsilon=0.09) == (0.946, 0.413)
    assert at(delta=0.05) == (1.0, 0.4)
    # Try 1: with the mixing draft the lenient point climbs in several steps as λ falls ...
    at(draft="mixes p with its reverse", rule="lenient", delta=0.3)
    steps = {at(lenience=value) for value in (1.0, 0.7, 0.3, 0.1, 0.05)}
    assert len(steps) == 5 and all(abs(tv - (acceptance - 0.6)) < 1e-3 for acceptance, tv in steps)
    # ... while the draft that over-trusts B moves once, at λ = 0.35.
    at(draft="over-trusts B")
    assert at(lenience=1.0) == at(lenience=0.4) == (0.6, 0.0) and at(lenience=0.35) == (1.0, 0.4)
    # Try 2: the mixing draft under typical acceptance accepts less than the exact rule, and is not exact.
    assert at(draft="mixes p with its reverse", rule="typical") == (0.485, 0.056)
    # Try 3: with q = p the exact and lenient rules are exact; typical acceptance is not, whatever the draft.
    for draft in LOSSY_DRAFTS:
        assert at(draft=draft, alpha=1.0, rule="typical") == (0.885, 0.102)
        assert at(rule="lenient")[1] == at(rule="exact")[1] == 0.0


@pytest.mark.parametrize("arguments, error, words", [
    (dict(rule="medusa"), ValueError, "rule"),
    (dict(alpha=0.1), ValueError, "alpha"),
    (dict(draft="greedy"), ValueError, "draft"),
    (dict(lenience=0.0), ValueError, "lenience"),
    (dict(epsilon=2.0), ValueError, "epsilon"),
    (dict(delta="x"), TypeError, "delta"),
])
def test_bad_arguments_name_themselves(arguments, error, words):
    with pytest.raises(error, match=words):
        LossyExplorer(**arguments)


def test_every_legend_entry_takes_its_role_from_the_palette():
    picture = LossyFigure(["A", "B"], curve_points=3)
    picture.update([0.5, 0.2], [0.2, 0.1], [0.6, 0.4], [0.7, 0.3], "typical", ([0.7, 0.8, 0.9], [0, 0.05, 0.1]),
                   ([0.6, 0.8, 1.0], [0.1, 0.05, 0.0]), (0.7, 0.0), (0.7, 0.4), (0.7, 0.1))
    found = {check_entry(handle, label) for handle, label in legend_entries(picture.figure)}
    assert {role.label for role in found if role is not None} == {"target p", "draft q", "accepted", "resampled"}


def test_the_readout_names_the_lenient_rule_once_and_writes_a_loss_with_a_minus_sign():
    explorer = LossyExplorer(rule="lenient")
    assert explorer.shown["readout"].plain()[0] == "lenient: accepts x outright when p(x)/q(x) ≥ λ = 0.50"
    explorer.controls["rule"].value = "greedy"  # accepts less than the exact rule
    gain = explorer.shown["gain"]
    assert gain < 0 and f"change −{-gain:.3f}" in explorer.shown["readout"].text()
