"""A batch verified in one pass equals its sequences verified one by one; counts, padding, slowest."""

import numpy as np
import pytest

from specdec.core import expected_tokens
from specdec.goodness_of_fit import goodness_of_fit
from specdec.serving.batch import batch_run, expected_tokens_per_pass, verify_batch, verify_sequence


def _random_batch(rng, b, gamma, v):
    target = rng.dirichlet(np.ones(v) * 0.5, size=(b, gamma + 1))
    draft = rng.dirichlet(np.ones(v) * 0.5, size=(b, gamma))
    tokens = np.array([[rng.choice(v, p=draft[i, j]) for j in range(gamma)] for i in range(b)])
    return target, draft, tokens, rng.random((b, gamma + 1))


def test_the_batch_decides_what_each_sequence_alone_decides():
    rng = np.random.default_rng(0)
    for _ in range(20):
        target, draft, tokens, uniforms = _random_batch(rng, 16, 4, 6)
        step = verify_batch(target, draft, tokens, uniforms)
        alone = [verify_sequence(target[i:i + 1], draft[i:i + 1], tokens[i:i + 1], uniforms[i:i + 1]) for i in range(16)]
        assert step.emitted == alone
        assert step.accepted.tolist() == [len(e) - 1 for e in alone]
        assert step.tokens == sum(map(len, alone)) and step.slots == 16 * 5
        assert step.rejected_slots == sum(4 + 1 - len(e) for e in alone)
        roles = step.slot_roles()
        assert [(row == "rejected").sum() for row in roles] == [5 - len(e) for e in alone]


def test_each_sequence_of_a_batch_emits_the_target_law():
    """20,000 copies of one sequence in a batch: the first token follows p₀ (chi-square)."""
    rng = np.random.default_rng(1)
    target, draft, tokens, _ = _random_batch(rng, 1, 2, 5)
    n = 20_000
    first = rng.choice(5, size=n, p=draft[0, 0])
    second = np.array([rng.choice(5, p=draft[0, 1]) for _ in range(1)]).repeat(n)
    step = verify_batch(np.repeat(target, n, 0), np.repeat(draft, n, 0), np.stack([first, second], 1), rng.random((n, 3)))
    assert goodness_of_fit(np.array([e[0] for e in step.emitted]), target[0, 0]).passed


def test_throughput_follows_the_mean_and_the_batch_waits_for_the_slowest():
    alpha, gamma = 0.7, 4
    small = batch_run(alpha, gamma, 2, 64, np.random.default_rng(0))
    large = batch_run(alpha, gamma, 256, 64, np.random.default_rng(0))
    assert abs(large.tokens_per_pass / 256 - expected_tokens(alpha, gamma)) < 0.05
    assert abs(expected_tokens_per_pass(alpha, gamma, 256) / 256 - expected_tokens(alpha, gamma)) < 1e-12
    assert large.slowest_passes > small.slowest_passes
    assert abs(large.mean_passes - 64 / expected_tokens(alpha, gamma)) < 1.5


def test_mismatched_shapes_are_refused():
    rng = np.random.default_rng(0)
    target, draft, tokens, uniforms = _random_batch(rng, 3, 2, 4)
    with pytest.raises(ValueError, match="draft_rows must have shape"):
        verify_batch(target, draft[:, :1], tokens, uniforms)
    with pytest.raises(ValueError, match="uniforms"):
        verify_batch(target, draft, tokens, uniforms + 1)


# Hand-made one-sequence steps (V = 2 or 3, γ = 1) whose outcome follows from the rule by hand: position i
# accepts when uᵢ · q(xᵢ) < p(xᵢ); the last uniform picks the resampled or bonus token by inverse CDF.
ONE_STEP_CASES = [
    # accept (0.2 · 1 < 0.5), then the bonus row [0, 1] can only give its last token
    ([[[0.5, 0.5], [0.0, 1.0]]], [[[1.0, 0.0]]], [[0]], [[0.2, 0.7]], [0, 1]),
    # accept, then the bonus row [0.5, 0.5]: u = 0.7 lies past its first half
    ([[[0.5, 0.5], [0.5, 0.5]]], [[[1.0, 0.0]]], [[0]], [[0.2, 0.7]], [0, 1]),
    # accept, then the bonus row [0, 0, 1]: the last token of three
    ([[[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]], [[[1.0, 0.0, 0.0]]], [[0]], [[0.2, 0.0]], [0, 2]),
    # u · q = p exactly (0.5 · 1 = 0.5): rejected; the residual max(p − q, 0) = [0, 0.5] gives token 1
    ([[[0.5, 0.5], [1.0, 0.0]]], [[[1.0, 0.0]]], [[0]], [[0.5, 0.0]], [1]),
    # rejected where the residual is all zero (p within 1e-9 of a probability vector, p(0) < q(0)): the
    # resampled token is drawn from p itself, and u = 0.1 falls in its first token
    ([[[0.5 - 1e-10, 0.5], [1.0, 0.0]]], [[[0.5, 0.5]]], [[0]], [[1 - 1e-12, 0.1]], [0]),
]


@pytest.mark.parametrize("target, draft, tokens, uniforms, expected", ONE_STEP_CASES)
def test_hand_made_steps_give_the_tokens_the_rule_gives_by_hand(target, draft, tokens, uniforms, expected):
    assert verify_sequence(target, draft, tokens, uniforms) == expected
    step = verify_batch(target, draft, tokens, uniforms)
    assert step.emitted == [expected] and step.accepted.tolist() == [len(expected) - 1]


def test_slot_roles_name_each_slot():
    # γ = 1: the first sequence accepts its token and draws the bonus; the second rejects it and resamples.
    step = verify_batch([[[0.5, 0.5], [1.0, 0.0]]] * 2, [[[1.0, 0.0]]] * 2, [[0], [0]], [[0.2, 0.7], [0.9, 0.7]])
    assert step.slot_roles().tolist() == [["accepted", "bonus"], ["resampled", "rejected"]]


def test_a_uniform_of_zero_is_accepted_and_one_is_refused():
    target, draft, tokens = [[[0.5, 0.5], [1.0, 0.0]]], [[[1.0, 0.0]]], [[0]]
    assert verify_sequence(target, draft, tokens, [[0.0, 0.0]]) == [0, 0]
    with pytest.raises(ValueError, match="uniforms"):
        verify_sequence(target, draft, tokens, [[1.0, 0.0]])


@pytest.mark.parametrize("change, words", [
    (lambda t, d, x, u: (t[0], d, x, u), r"target_rows must have shape \(b, γ\+1, V\)"),
    (lambda t, d, x, u: (t, d[:, :1], x, u), r"draft_rows must have shape \(3, 2, 4\)"),
    (lambda t, d, x, u: (t, d, x[:, :1], u), r"draft_tokens must be integers of shape \(3, 2\)"),
    (lambda t, d, x, u: (t, d, x.astype(float), u), r"draft_tokens must be integers of shape \(3, 2\)"),
    (lambda t, d, x, u: (2 * t, d, x, u), "every row of target_rows must be a probability vector"),
    (lambda t, d, x, u: (t, d, np.full_like(x, 4), u), "draft_tokens must lie in 0 … 3"),
])
def test_bad_batches_are_refused_with_the_shape_they_need(change, words):
    target, draft, tokens, uniforms = _random_batch(np.random.default_rng(0), 3, 2, 4)
    with pytest.raises(ValueError, match=words):
        verify_batch(*change(target, draft, tokens, uniforms))


def test_a_draft_token_with_zero_draft_probability_is_refused():
    with pytest.raises(ValueError, match=r"q\(x\) > 0"):
        verify_sequence([[[0.5, 0.5], [1.0, 0.0]]], [[[1.0, 0.0]]], [[1]], [[0.2, 0.7]])


def test_without_a_draft_every_pass_makes_one_token_per_sequence():
    run = batch_run(0.9, 0, 3, 4, np.random.default_rng(0))  # γ = 0: nothing to accept
    assert run.passes_per_sequence.tolist() == [4, 4, 4] and run.tokens_per_pass == 3.0
    assert expected_tokens_per_pass(0.9, 0, 3) == 3.0


def test_a_batch_of_one_and_a_single_token_are_allowed():
    run = batch_run(1.0, 4, 1, 1, np.random.default_rng(0))  # α = 1: the one pass accepts all γ
    assert run.passes_per_sequence.tolist() == [1] and run.accepted.tolist() == [[4]]
    assert expected_tokens_per_pass(1.0, 4, 1) == 5.0


def test_a_sequence_stops_at_the_pass_that_gives_it_its_tokens():
    # Each column of `accepted` holds one sequence's kᵢ, then −1 once it has its tokens: its total before its last
    # pass is short of `tokens`, its total after it is not (64 sequences: some land exactly on 10).
    tokens = 10
    run = batch_run(0.6, 3, 64, tokens, np.random.default_rng(3))
    exact = 0
    for i in range(64):
        column = run.accepted[:, i]
        ks = column[column >= 0]
        assert column[:ks.size].tolist() == ks.tolist() and run.passes_per_sequence[i] == ks.size
        assert np.all(column[ks.size:] == -1)
        totals = np.cumsum(ks + 1)
        assert totals[-1] >= tokens and (ks.size == 1 or totals[-2] < tokens)
        exact += totals[-1] == tokens
    assert exact > 0
