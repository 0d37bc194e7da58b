"""The four functions of the rule, the trace, the draft sampler, and the step's per-position rates and speedup."""

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec import core
from specdec.narrate import spec_example

from .reference_rule import plain_residual, plain_step
from .strategies import distribution_pairs, verify_inputs

SPEC_TARGET = [0.5, 0.3, 0.2, 0.0]
SPEC_DRAFT = [0.25, 0.25, 0.25, 0.25]


def traced_tokens(target_probs, draft_probs, draft_tokens, rng):
    return specdec.trace_step(target_probs, draft_probs, draft_tokens, rng).tokens


# Every rule-level test runs against both ways of running the rule.
STEP_IMPLEMENTATIONS = pytest.mark.parametrize(
    "step", [specdec.speculative_step, traced_tokens], ids=["speculative_step", "trace_step"]
)


def test_spec_acceptance_rate_and_residual():
    alpha = specdec.acceptance_rate(SPEC_TARGET, SPEC_DRAFT)
    assert alpha == 0.7 and type(alpha) is float
    residual = specdec.residual_distribution(SPEC_TARGET, SPEC_DRAFT)
    np.testing.assert_allclose(residual, [0.83333333, 0.16666667, 0.0, 0.0], atol=5e-9)
    assert residual.shape == (4,) and residual.dtype == np.float64


@STEP_IMPLEMENTATIONS
@pytest.mark.parametrize(
    "draft_tokens, seed, expected",
    [([0, 1], 0, [0, 1, 0]), ([3, 0], 0, [0]), ([0, 0], 3, [0, 0, 3])],
)
def test_spec_steps(step, draft_tokens, seed, expected):
    target_probs, draft_probs, _ = spec_example()
    tokens = step(target_probs, draft_probs, draft_tokens, np.random.default_rng(seed))
    assert tokens == expected
    assert type(tokens) is list and all(type(token) is int for token in tokens)


def test_spec_expected_tokens():
    values = (specdec.expected_tokens(0.8, 4), specdec.expected_tokens(1.0, 4), specdec.expected_tokens(0.0, 4))
    assert values == pytest.approx((3.3616, 5.0, 1.0), abs=1e-12)
    assert all(type(value) is float for value in values)
    assert specdec.expected_tokens(1.0, 4) == 5.0


@pytest.mark.parametrize("gamma", range(9))
def test_expected_tokens_is_stable_next_to_one(gamma):
    assert abs(specdec.expected_tokens(1 - 1e-12, gamma) - (gamma + 1)) < 1e-9
    # Continuity from below: the closer α is to 1, the closer the value is to γ+1, never beyond it.
    values = [specdec.expected_tokens(1 - 10.0 ** -k, gamma) for k in range(3, 16)]
    assert all(a <= b <= gamma + 1 for a, b in zip(values, values[1:]))


@given(st.floats(0, 1), st.integers(0, 30))
def test_expected_tokens_stays_between_1_and_gamma_plus_1(alpha, gamma):
    value = specdec.expected_tokens(alpha, gamma)
    assert 1.0 <= value <= gamma + 1
    if gamma == 0:  # exactly 1: no draft is no speedup, not 1.0000000000000002×
        assert value == 1.0 and specdec.speedup(alpha, 0, 20) == 1.0


@given(st.floats(0, 1), st.integers(0, 30))
def test_expected_tokens_matches_the_series(alpha, gamma):
    series = math.fsum(alpha**k for k in range(gamma + 1))
    assert specdec.expected_tokens(alpha, gamma) == pytest.approx(series, rel=1e-12, abs=1e-12)


def test_residual_fallback_is_a_float_copy_of_the_target():
    target = np.array([0.25, 0.75])
    residual = specdec.residual_distribution(target, target.copy())
    assert residual is not target and not np.shares_memory(residual, target)
    np.testing.assert_array_equal(residual, target)
    assert residual.dtype == np.float64
    from_list = specdec.residual_distribution([1, 0], [1, 0])
    assert from_list.dtype == np.float64 and from_list.tolist() == [1.0, 0.0]


def test_no_nan_when_rounding_forces_a_rejection_where_p_equals_q():
    # q is p plus rounding noise: the ratio of the drafted token is just below 1, but max(0, p - q) has
    # no mass, so a rejection must fall back to p rather than divide 0 by 0.
    p = np.array([0.1, 0.2, 0.7])
    q = np.nextafter(p, 1.0)
    residual = specdec.residual_distribution(p, q)
    assert np.isfinite(residual).all() and residual.sum() == pytest.approx(1.0)
    for seed in range(200):
        tokens = specdec.speculative_step(np.stack([p, p]), q[None, :], [2], np.random.default_rng(seed))
        assert all(0 <= token < 3 for token in tokens)


@STEP_IMPLEMENTATIONS
def test_a_token_the_target_forbids_is_never_accepted(step):
    # p(x) = 0 gives threshold 0, and the rule is the strict u < threshold: even u = 0 rejects.
    target_probs = [[0.0, 1.0], [0.5, 0.5]]
    draft_probs = [[1.0, 0.0]]
    for seed in range(300):
        assert step(target_probs, draft_probs, [0], np.random.default_rng(seed)) == [1]


@STEP_IMPLEMENTATIONS
@pytest.mark.parametrize(
    "target_probs, draft_probs, expected",
    [
        ([[0.0, 1.0], [0.5, 0.5]], [[1.0, 0.0]], [1]),  # threshold 0 = u: rejected, the residual is all on 1
        ([[0.25, 0.75], [0.5, 0.5]], [[0.5, 0.5]], [1]),  # threshold 0.25/0.5 = 0.5 = u: rejected, residual on 1
    ],
)
def test_a_uniform_equal_to_the_threshold_rejects(step, target_probs, draft_probs, expected):
    # The comparison is the strict u < min(1, p/q): u equal to the threshold, rigged here, is a rejection.
    threshold = target_probs[0][0] / draft_probs[0][0]
    assert step(target_probs, draft_probs, [0], core.rigged_generator(threshold)) == expected


@pytest.mark.parametrize("row", [[0.5, 0.5 + 4e-7], [0.25, 0.25, 0.5 + 9e-7]])
def test_acceptance_rates_never_exceed_one_for_rows_summing_just_above_one(row):
    # The checks accept sums within 1e-6 of 1; with q = p, Σ min(p, q) is that sum, but α is a probability: 1.
    assert sum(row) > 1.0
    assert specdec.acceptance_rate(row, row) == 1.0
    assert specdec.acceptance_rates([row, row], [row]).tolist() == [1.0]


def test_rigged_generator_leaves_no_buffered_half_word():
    # The rigged 64-bit output for u = 2⁻⁵³ is 1 << 11 (k = 1 in the top 53 bits); a 32-bit draw takes its
    # low half, 2048, and not a stale 32-bit value left over in the generator's buffer.
    rng = core.rigged_generator(2.0**-53)
    assert rng.integers(2**32, dtype=np.uint32) == 2048


@STEP_IMPLEMENTATIONS
@settings(max_examples=200, deadline=None)
@given(verify_inputs())
def test_step_agrees_with_an_independent_plain_implementation(step, case):
    target, draft, tokens, seed = case
    ours_rng, plain_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    assert step(target, draft, tokens, ours_rng) == plain_step(target.tolist(), draft.tolist(), tokens, plain_rng)
    assert ours_rng.bit_generator.state == plain_rng.bit_generator.state


@settings(max_examples=200, deadline=None)
@given(verify_inputs())
def test_trace_tokens_and_rng_state_equal_the_step(case):
    target, draft, tokens, seed = case
    step_rng, trace_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    emitted = specdec.speculative_step(target, draft, tokens, step_rng)
    trace = specdec.trace_step(target, draft, tokens, trace_rng)
    assert trace.tokens == emitted
    assert step_rng.bit_generator.state == trace_rng.bit_generator.state


@settings(max_examples=200, deadline=None)
@given(verify_inputs())
def test_output_length_and_range(case):
    target, draft, tokens, seed = case
    emitted = specdec.speculative_step(target, draft, tokens, np.random.default_rng(seed))
    assert 1 <= len(emitted) <= len(tokens) + 1
    assert all(type(token) is int and 0 <= token < target.shape[1] for token in emitted)
    # Every token before the last is an accepted draft token, in order.
    assert emitted[:-1] == tokens[: len(emitted) - 1]


@settings(max_examples=150, deadline=None)
@given(verify_inputs())
def test_trace_records_every_draw_consistently(case):
    target, draft, tokens, seed = case
    trace = specdec.trace_step(target, draft, tokens, np.random.default_rng(seed))
    assert len(trace.origins) == len(trace.tokens)
    for position in trace.positions:
        i, x = position.index, position.draft_token
        assert x == tokens[i]
        assert position.target_prob == target[i, x] and position.draft_prob == draft[i, x]
        assert position.acceptance_probability == min(1.0, target[i, x] / draft[i, x])
        assert position.accepted == (position.uniform < position.acceptance_probability)
        if position.accepted:
            assert position.residual is None and position.resampled_token is None
        else:
            np.testing.assert_allclose(position.residual, plain_residual(target[i], draft[i]))
            assert trace.tokens[-1] == position.resampled_token
    rejected = [position for position in trace.positions if not position.accepted]
    assert len(rejected) <= 1 and (not rejected or rejected[0] is trace.positions[-1])
    if trace.all_accepted:
        assert len(trace.positions) == len(tokens)
        np.testing.assert_array_equal(trace.bonus_distribution, target[-1])
        assert trace.tokens[-1] == trace.bonus_token and trace.origins[-1] == "bonus"
    else:
        assert trace.bonus_distribution is None and trace.origins[-1] == "resampled"


@STEP_IMPLEMENTATIONS
@settings(max_examples=100, deadline=None)
@given(verify_inputs())
def test_inputs_are_never_modified(step, case):
    target, draft, tokens, seed = case
    as_lists = (target.tolist(), draft.tolist(), list(tokens))
    originals = copy.deepcopy(as_lists)
    step(target, draft, tokens, np.random.default_rng(seed))
    step(*as_lists, np.random.default_rng(seed))
    assert as_lists == originals
    assert target.tolist() == originals[0] and draft.tolist() == originals[1] and tokens == originals[2]


@settings(max_examples=200, deadline=None)
@given(distribution_pairs())
def test_residual_sums_to_one_and_is_zero_where_p_does_not_exceed_q(pair):
    p, q = pair
    before = (p.copy(), q.copy())
    residual = specdec.residual_distribution(p, q)
    assert residual.sum() == pytest.approx(1.0)
    if (p > q).any():
        assert (residual[p <= q] == 0).all()
    np.testing.assert_allclose(residual, plain_residual(p, q), atol=1e-15)
    np.testing.assert_array_equal(p, before[0])
    np.testing.assert_array_equal(q, before[1])


def test_the_rule_is_written_once(monkeypatch):
    calls = []

    def recording_rule(target, draft, tokens, rng, positions=None):
        calls.append(positions is not None)
        return [0]

    monkeypatch.setattr(core, "verify", recording_rule)
    target_probs, draft_probs, draft_tokens = spec_example()
    specdec.speculative_step(target_probs, draft_probs, draft_tokens, np.random.default_rng(0))
    specdec.trace_step(target_probs, draft_probs, draft_tokens, np.random.default_rng(0))
    assert calls == [False, True]


def test_gamma_zero_is_one_bonus_draw():
    for draft_probs in ([], np.empty((0, 3))):
        rng, reference = np.random.default_rng(5), np.random.default_rng(5)
        trace = specdec.trace_step([[0.2, 0.3, 0.5]], draft_probs, [], rng)
        assert trace.tokens == [int(reference.choice(3, p=[0.2, 0.3, 0.5]))]
        assert trace.positions == () and trace.origins == ["bonus"]


def test_rows_within_the_tolerance_are_renormalised_for_the_bonus_draw():
    # Sums off by 1e-7 are accepted by the checks but would be refused by numpy's choice.
    target = [[0.5, 0.5 + 1e-7]]
    assert specdec.speculative_step(target, [], [], np.random.default_rng(0)) in ([0], [1])


def test_sample_draft_draws_one_choice_per_row_in_order():
    draft_probs = np.array([[0.1, 0.9, 0.0], [0.0, 0.0, 1.0], [0.5, 0.25, 0.25]])
    rng, reference = np.random.default_rng(11), np.random.default_rng(11)
    tokens = specdec.sample_draft(draft_probs, rng)
    assert tokens == [int(reference.choice(3, p=row)) for row in draft_probs]
    assert all(type(token) is int for token in tokens) and tokens[1] == 2
    assert rng.bit_generator.state == reference.bit_generator.state
    assert specdec.sample_draft([], np.random.default_rng(0)) == []


def test_the_step_quantities_have_one_definition_in_core():
    # theory and the package re-export core's functions; the checker imports speedup from core.
    from specdec import theory

    for name in ("speedup", "acceptance_rates", "expected_tokens_for_rates"):
        assert getattr(theory, name) is getattr(core, name) is getattr(specdec, name)
    assert core.speedup(0.8, 4, 20) == core.unchecked_speedup(0.8, 4, 20) == pytest.approx(3.3616 / 1.2)


def test_with_no_draft_rows_an_empty_draft_of_any_width_is_no_rows():
    """γ = 0: a (0, V′) draft array says nothing about V, so every step function takes it as (0, V)."""
    target = np.array([[0.25, 0.75]])
    for draft in ([], np.empty((0, 5)), np.empty((0, 0))):
        assert specdec.speculative_step(target, draft, [], np.random.default_rng(0)) in ([0], [1])
        assert specdec.acceptance_rates(target, draft).shape == (0,)
        output, counts = specdec.sample_steps(target, draft, 10, np.random.default_rng(0))
        assert counts.tolist() == [1] * 10 and set(output.ravel().tolist()) <= {0, 1}
