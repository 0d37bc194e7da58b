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


@pytest.mark.parametrize("x, rounded", [
    (1 + 2 ** -7 + 2 ** -8, 1 + 2 ** -6),             # halfway, odd last kept bit: up to the even neighbour
    (1 + 2 ** -8, 1.0),                                # halfway, even last kept bit: down
    (1 + 2 ** -8 + 2 ** -20, 1 + 2 ** -7),             # just above halfway: up
    (1 + 2 ** -7 + 2 ** -8 + 2 ** -20, 1 + 2 ** -6),   # just above halfway, odd: up
    (1 + 2 ** -7 + 2 ** -8 - 2 ** -20, 1 + 2 ** -7),   # just below halfway: down
])
def test_bf16_rounds_to_nearest_with_ties_to_even(x, rounded):
    # bfloat16 keeps 7 bits after the point: near 1 its steps are 2⁻⁷.
    assert bf16(np.array([x]))[0] == rounded


def test_top_k_of_one_is_greedy_and_top_p_of_one_keeps_every_token():
    assert processed_probabilities([0.0, 2.0, 1.0], top_k=1).tolist() == [0.0, 1.0, 0.0]
    # A token 40 nats below the best has probability 4·10⁻¹⁸: the mass above it rounds to 1, yet top_p = 1 keeps it.
    row = processed_probabilities([0.0, -40.0], top_p=1.0)
    assert row[1] == pytest.approx(np.exp(-40.0), rel=1e-9)


def test_top_p_stops_at_the_first_set_whose_mass_reaches_it():
    # Two equal tokens: the first alone has mass 0.5 = top_p, so the second is dropped.
    assert processed_probabilities([0.0, 0.0], top_p=0.5).tolist() == [1.0, 0.0]
    assert processed_probabilities([0.0, 0.0], top_p=0.51).tolist() == [0.5, 0.5]


def test_large_logits_do_not_overflow():
    e = np.exp(-1.0)
    assert np.allclose(processed_probabilities([1000.0, 999.0]), [1 / (1 + e), e / (1 + e)])


@pytest.mark.parametrize("logits", [[[1.0, 0.0], [0.0, 1.0]], [1.0], [1.0, float("nan")], [float("inf"), 0.0]])
def test_logits_must_be_one_row_of_at_least_two_finite_numbers(logits):
    with pytest.raises(ValueError, match="1-D array of at least 2 finite logits"):
        processed_probabilities(logits)


def test_a_bool_temperature_is_refused():
    with pytest.raises(TypeError, match="temperature must be a number > 0"):
        processed_probabilities([1.0, 0.0], temperature=True)


def _reference_law(p, q_sample, q_verify):
    """Draw x from q_sample, accept with min(1, p(x)/q_verify(x)) (always where q_verify(x) = 0), else draw the
    residual."""
    law = np.zeros_like(p)
    for x in range(p.size):
        accept = 1.0 if q_verify[x] == 0 else min(1.0, p[x] / q_verify[x])
        law[x] += q_sample[x] * accept
    residual = np.maximum(p - q_verify, 0.0)
    residual = residual / residual.sum() if residual.sum() > 0 else p
    return law + (1.0 - law.sum()) * residual


def test_each_broken_rule_has_the_law_of_its_own_pair_of_draft_rows():
    # Draft logits [1, 0.5, 0.5 + 2⁻¹²] under top-k = 2: in full precision the kept pair is tokens 0 and 2; bf16
    # rounds 0.5 + 2⁻¹² to 0.5, a tie that keeps tokens 0 and 1. So the low-precision draft proposes a token (1) the
    # verifier's row gives probability 0.
    z_p, z_q = np.array([0.2, 1.0, 0.0]), np.array([1.0, 0.5, 0.5 + 2 ** -12])
    settings = dict(temperature=1.0, top_k=2, top_p=1.0)
    p = processed_probabilities(z_p, **settings)
    shaped, raw = processed_probabilities(z_q, **settings), processed_probabilities(z_q, temperature=1.0)
    low = processed_probabilities(bf16(z_q), **settings)
    assert shaped[1] == 0 and low[1] > 0 and low[2] == 0
    assert np.allclose(output_law(z_p, z_q, "target_only", **settings), _reference_law(p, shaped, raw), atol=1e-12)
    low_law = output_law(z_p, z_q, "low_precision_draft", **settings)
    assert np.allclose(low_law, _reference_law(p, low, shaped), atol=1e-12)


def test_identical_rows_and_the_defaults():
    z = np.array([1.0, 0.0, -1.0])
    # p = q: every draft token is accepted, the residual is empty; no 0/0 anywhere.
    assert np.allclose(output_law(z, z), processed_probabilities(z))
    assert sample_tokens(z, z, 1, np.random.default_rng(0)).shape == (1,)
    tokens = sample_tokens(z, z, 5000, np.random.default_rng(0))
    assert goodness_of_fit(tokens, processed_probabilities(z)).passed
    # Defaults: temperature 1, no top-k (0), no top-p (1.0).
    assert np.allclose(output_law(z, -z), output_law(z, -z, "exact", 1.0, 0, 1.0))
    assert np.allclose(output_law(z, -z), processed_probabilities(z)) and processed_probabilities(z).min() > 0
    same = [sample_tokens(z, -z, 200, np.random.default_rng(4), *extra) for extra in ((), ("exact", 1.0, 0, 1.0))]
    assert same[0].tolist() == same[1].tolist()
