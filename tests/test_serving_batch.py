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
