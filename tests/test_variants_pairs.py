"""A draft with a chosen acceptance rate."""

import warnings

import numpy as np
import pytest

from specdec.core import acceptance_rate
from specdec.variants.pairs import (
    confident_draft, contrarian, draft_with_acceptance, geometric_target, lowest_acceptance
)


@pytest.mark.parametrize("alpha", [0.25, 0.3, 0.5, 0.77, 0.9, 1.0])
def test_the_draft_has_exactly_the_chosen_acceptance_rate(alpha):
    p = geometric_target(8, 0.6)
    q = draft_with_acceptance(p, alpha)
    assert q.sum() == pytest.approx(1.0) and q.min() >= 0
    assert acceptance_rate(p, q) == pytest.approx(alpha, abs=1e-12)


def test_the_contrarian_reverses_the_ranks_and_bounds_alpha():
    p = np.array([0.1, 0.6, 0.3])
    np.testing.assert_allclose(contrarian(p), [0.6, 0.1, 0.3])
    assert lowest_acceptance(p) == pytest.approx(acceptance_rate(p, contrarian(p)))
    with pytest.raises(ValueError, match=r"alpha must be at least 0\.5000 "):  # 1 − TV(p, s) = 1 − 0.5
        draft_with_acceptance(p, 0.1)
    with pytest.raises(ValueError, match="alpha"):
        draft_with_acceptance(p, 1.5)
    with pytest.raises(ValueError, match="ratio"):
        geometric_target(4, 0.0)


def test_two_tokens_are_enough_for_a_geometric_target():
    np.testing.assert_allclose(geometric_target(2, 0.5), [2 / 3, 1 / 3])


def test_the_lowest_acceptance_itself_is_reached_by_the_contrarian():
    p = np.array([0.1, 0.6, 0.3])  # contrarian (0.6, 0.1, 0.3), TV 0.5: α = 0.5 is t = 1
    np.testing.assert_allclose(draft_with_acceptance(p, 0.5), [0.6, 0.1, 0.3], atol=1e-15)


def test_a_target_that_is_its_own_contrarian_is_its_own_draft():
    p = np.full(4, 0.25)  # uniform: TV(p, contrarian(p)) = 0, only α = 1 is reachable
    np.testing.assert_array_equal(draft_with_acceptance(p, 1.0), p)


@pytest.mark.parametrize("favourite", [0, 1, 4])
@pytest.mark.parametrize("alpha", ["p(f)", 0.5, 0.9, 1.0])
def test_the_confident_draft_has_exactly_the_chosen_acceptance_rate(favourite, alpha):
    p = np.array([0.1, 0.3, 0.2, 0.15, 0.25])
    alpha = p[favourite] if alpha == "p(f)" else alpha
    q = confident_draft(p, alpha, favourite)
    assert q.sum() == pytest.approx(1.0) and q.min() >= 0
    assert acceptance_rate(p, q) == pytest.approx(alpha, abs=1e-12)
    # q = (1 − t)·p + t·δ_f: off the favourite, q is p scaled down by 1 − t = (α − p(f)) / (1 − p(f))
    others = np.arange(p.size) != favourite
    np.testing.assert_allclose(q[others], p[others] * (alpha - p[favourite]) / (1 - p[favourite]), atol=1e-15)


def test_the_lowest_confident_draft_always_proposes_the_favourite():
    p = np.array([0.5, 0.3, 0.2])
    np.testing.assert_allclose(confident_draft(p, 0.3, 1), [0.0, 1.0, 0.0], atol=1e-15)
    with pytest.raises(ValueError, match=r"alpha must be at least p\(favourite\) = 0\.3000"):
        confident_draft(p, 0.29, 1)


def test_a_one_hot_target_is_its_own_confident_draft_without_a_zero_division():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(confident_draft([0.0, 1.0, 0.0], 1.0, 1), [0.0, 1.0, 0.0])


def test_the_favourite_must_be_a_token_of_the_target():
    p = [0.5, 0.3, 0.2]
    with pytest.raises(ValueError, match="favourite"):
        confident_draft(p, 0.9, 3)
    with pytest.raises(ValueError, match="favourite"):
        confident_draft(p, 0.9, -1)
