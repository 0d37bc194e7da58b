"""specdec.narrate: the worked example, seeded random rows and their closeness, token labels, and the step in words."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec.narrate import narrate_trace, random_rows, spec_example, token_labels

from .strategies import verify_inputs


def test_spec_example_is_fresh_each_time():
    first, second = spec_example(), spec_example()
    first[0][0, 0] = 99.0
    assert second[0][0, 0] == 0.5 and spec_example()[0][0, 0] == 0.5
    assert first[2] == [0, 1]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 8), st.integers(2, 64), st.floats(0, 1), st.integers(0, 2**31))
def test_random_rows_are_valid_and_at_least_as_close_as_asked(gamma, vocab, closeness, seed):
    target, draft = random_rows(gamma, vocab, closeness, np.random.default_rng(seed))
    assert target.shape == (gamma + 1, vocab) and draft.shape == (gamma, vocab)
    np.testing.assert_allclose(target.sum(axis=1), 1.0)
    if gamma:
        np.testing.assert_allclose(draft.sum(axis=1), 1.0)
        assert (draft > 0).all()
        assert (specdec.acceptance_rates(target, draft) >= closeness - 1e-9).all()


def test_random_rows_are_reproducible_and_closeness_one_copies_the_target():
    a = random_rows(3, 10, 0.3, np.random.default_rng(4))
    b = random_rows(3, 10, 0.3, np.random.default_rng(4))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    target, draft = random_rows(3, 10, 1.0, np.random.default_rng(4))
    np.testing.assert_allclose(draft, target[:-1])


@pytest.mark.parametrize("vocab, first, last", [(1, "A", "A"), (4, "A", "D"), (26, "A", "Z"), (27, "t0", "t26"), (64, "t0", "t63")])
def test_token_labels(vocab, first, last):
    labels = token_labels(vocab)
    assert len(labels) == vocab == len(set(labels)) and labels[0] == first and labels[-1] == last


def test_a_rejection_is_told_with_its_numbers():
    target_probs, draft_probs, _ = spec_example()
    trace = specdec.trace_step(target_probs, draft_probs, [3, 0], np.random.default_rng(0))
    lines = narrate_trace(trace)
    assert lines == [
        "position 0: draft proposed D with p(D) = 0.0000, q(D) = 0.2500; threshold min(1, p/q) = 0.0000; "
        f"u = {trace.positions[0].uniform:.4f} ≥ 0.0000, rejected; redrawn from the residual norm(max(0, p − q)): A",
        "output: A (1 token: 1 resampled)",
    ]


@settings(max_examples=80, deadline=None)
@given(verify_inputs())
def test_one_line_per_draw_plus_a_summary(case):
    target, draft, tokens, seed = case
    trace = specdec.trace_step(target, draft, tokens, np.random.default_rng(seed))
    labels = [f"tok{i}" for i in range(target.shape[1])]
    lines = narrate_trace(trace, labels)
    assert len(lines) == len(trace.positions) + trace.all_accepted + 1
    assert lines[-1].startswith("output: " + " ".join(labels[t] for t in trace.tokens) + " (")
    for line, position in zip(lines, trace.positions):
        assert line.startswith(f"position {position.index}: draft proposed {labels[position.draft_token]} ")
        assert ("accepted" in line) == position.accepted
    if trace.all_accepted:
        assert lines[-2].endswith(labels[trace.bonus_token])
