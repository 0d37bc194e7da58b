"""vLLM's acceptance metrics from step counts: hand-made cases, and their limits under a constant α."""

import numpy as np
import pytest

from specdec.core import expected_tokens
from specdec.serving.batch import batch_run
from specdec.serving.metrics import alpha_from_acceptance_length, engine_metrics, metrics_at_alpha


def test_hand_made_steps_give_the_counts_and_rates_by_their_definitions():
    # γ = 3: one step accepts all, one none, one the first token only.
    m = engine_metrics([3, 3, 3], [3, 0, 1])
    assert (m.num_drafts, m.num_draft_tokens, m.num_accepted_tokens) == (3, 9, 4)
    assert m.accepted_per_position.tolist() == [2, 1, 1]
    assert m.mean_acceptance_length == 1 + 4 / 3
    assert m.draft_acceptance_rate == 4 / 9
    assert m.per_position_acceptance.tolist() == [2 / 3, 1 / 3, 1 / 3]
    assert m.conditional_acceptance.tolist() == [2 / 3, 1 / 2, 1.0]


def test_steps_without_a_draft_count_as_tokens_but_not_as_drafts():
    m = engine_metrics([0, 2, 2], [0, 2, 1])
    assert m.num_drafts == 2 and m.mean_acceptance_length == 2.5 and m.draft_acceptance_rate == 0.75


def test_long_runs_converge_to_the_constant_alpha_model():
    alpha, gamma = 0.7, 5
    run = batch_run(alpha, gamma, 2000, 40, np.random.default_rng(0))
    accepted = run.accepted[run.accepted >= 0]
    measured = engine_metrics(np.full(accepted.size, gamma), accepted)
    model = metrics_at_alpha(alpha, gamma)
    assert abs(measured.mean_acceptance_length - model.mean_acceptance_length) < 0.03
    assert abs(measured.draft_acceptance_rate - model.draft_acceptance_rate) < 0.01
    assert np.abs(measured.per_position_acceptance - model.per_position_acceptance).max() < 0.01
    assert np.abs(measured.conditional_acceptance - alpha).max() < 0.02  # α at every depth
    assert np.all(np.diff(measured.per_position_acceptance) < 0)  # falls with depth although α does not


def test_draft_acceptance_rate_is_below_alpha_and_acceptance_length_is_e_n():
    for alpha in (0.3, 0.6, 0.9):
        model = metrics_at_alpha(alpha, 4)
        assert model.mean_acceptance_length == expected_tokens(alpha, 4)
        assert model.draft_acceptance_rate < alpha
        assert abs(alpha_from_acceptance_length(model.mean_acceptance_length, 4) - alpha) < 1e-9


def test_inconsistent_counts_are_refused():
    with pytest.raises(ValueError, match="at most drafted"):
        engine_metrics([2, 2], [3, 0])
    with pytest.raises(ValueError, match="same steps"):
        engine_metrics([2, 2], [1])
    with pytest.raises(ValueError, match="at least one step"):
        engine_metrics([0, 0], [0, 0])
    with pytest.raises(ValueError, match=r"\[1, γ \+ 1\]"):
        alpha_from_acceptance_length(6.0, 4)


def test_a_depth_never_reached_has_no_conditional_rate():
    m = engine_metrics([2, 2], [0, 0])  # nobody got past position 1: position 2 is never reached
    assert m.conditional_acceptance[0] == 0.0 and np.isnan(m.conditional_acceptance[1])


def test_steps_of_one_draft_token_are_drafts():
    # γ = 1 and γ = 2 steps: 2 drafts, 3 draft tokens, 1 accepted (the first step's only token).
    m = engine_metrics([1, 2], [1, 0])
    assert (m.num_drafts, m.num_draft_tokens, m.num_accepted_tokens) == (2, 3, 1)
    assert m.mean_acceptance_length == 1.5 and m.per_position_acceptance.tolist() == [0.5, 0.0]
    assert engine_metrics([1], [1]).mean_acceptance_length == 2.0


def test_gamma_one_and_the_ends_of_the_acceptance_length_range():
    # At γ = 1, E[N] = 1 + α: the draft acceptance rate and the one per-position rate are α itself.
    m = metrics_at_alpha(0.5, 1)
    assert m.mean_acceptance_length == 1.5 and m.draft_acceptance_rate == 0.5
    assert m.per_position_acceptance.tolist() == [0.5]
    assert abs(alpha_from_acceptance_length(1.5, 1) - 0.5) < 1e-9
    assert abs(alpha_from_acceptance_length(1.0, 4)) < 1e-9  # nothing accepted: α = 0
    assert abs(alpha_from_acceptance_length(5.0, 4) - 1.0) < 1e-9  # every draft token accepted: α = 1
    with pytest.raises(TypeError, match="length must be a number"):
        alpha_from_acceptance_length(True, 4)
