"""Sampling parameters on both sides of the verify: exact rules pass chi-square, broken ones fail at stated sizes."""

import numpy as np
import pytest

from specdec.goodness_of_fit import goodness_of_fit
from specdec.serving.sampling_parameters import (SAMPLING_RULES, bf16, output_law, processed_probabilities,
                                                 sample_tokens)

RNG = np.random.default_rng(0)
TARGET = RNG.normal(0, 1.5, 16) + 40      # logits near 40: bf16 keeps steps of 0.25 there
DRAFT = TARGET + RNG.normal(0, 0.5, 16)
SETTINGS = dict(temperature=0.5, top_k=5, top_p=0.9)
#: The sample size at which each broken rule fails the test at significance 10⁻³.
CAUGHT_AT = {"target_only": 10_000, "low_precision_draft": 10_000}


def test_processors_by_hand():
    row = processed_probabilities([2.0, 1.0, 0.0, -5.0], temperature=1.0, top_k=3, top_p=0.7)
    e = np.exp([2.0, 1.0])
    assert np.allclose(row, [e[0] / e.sum(), e[1] / e.sum(), 0, 0])
    assert np.allclose(processed_probabilities([1.0, 0.0], temperature=0.5), np.exp([2, 0]) / np.exp([2, 0]).sum())


@pytest.mark.parametrize("rule", ["exact", "raw_draft"])
def test_exact_rules_keep_the_law_of_the_target_sampled_alone(rule):
    law = processed_probabilities(TARGET, **SETTINGS)
    assert np.allclose(output_law(TARGET, DRAFT, rule, **SETTINGS), law)
    tokens = sample_tokens(TARGET, DRAFT, 30_000, np.random.default_rng(1), rule, **SETTINGS)
    assert goodness_of_fit(tokens, law).passed


@pytest.mark.parametrize("rule", sorted(CAUGHT_AT))
def test_broken_rules_fail_the_chi_square_at_their_stated_size(rule):
    law = processed_probabilities(TARGET, **SETTINGS)
    assert 0.5 * np.abs(output_law(TARGET, DRAFT, rule, **SETTINGS) - law).sum() > 0.02
    tokens = sample_tokens(TARGET, DRAFT, CAUGHT_AT[rule], np.random.default_rng(1), rule, **SETTINGS)
    assert not goodness_of_fit(tokens, law).passed


def test_bf16_keeps_eight_significant_bits():
    x = np.array([40.3, 1.0 + 2 ** -9, -3.14159])
    assert np.all(np.abs(bf16(x) - x) <= np.abs(x) * 2 ** -8)
    assert bf16(np.array([40.3]))[0] == 40.25


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="temperature must be a finite number > 0"):
        processed_probabilities([1.0, 0.0], temperature=0)
    with pytest.raises(ValueError, match="rule must be one of"):
        output_law(TARGET, DRAFT, "both")
    with pytest.raises(ValueError, match="same vocabulary"):
        output_law(TARGET, DRAFT[:3])
    assert "exact" in SAMPLING_RULES
