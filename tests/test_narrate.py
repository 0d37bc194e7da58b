"""specdec.narrate: the worked example, seeded random rows and their closeness, token labels, and the step in words."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec import narrate as narrate_module
from specdec.narrate import draw_total, frame_at, narrate_trace, random_rows, spec_example, token_labels

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


def test_random_rows_follow_the_documented_recipe():
    # Dirichlet(0.5) rows, each entry + 1e-9 and renormalised; draft rows closeness·p + (1 − closeness)·d, renormalised.
    gamma, vocab, closeness = 2, 5, 0.3
    target, draft = random_rows(gamma, vocab, closeness, np.random.default_rng(3))
    reference = np.random.default_rng(3)

    def rows(count):
        values = reference.dirichlet(np.full(vocab, 0.5), size=count) + 1e-9
        return values / values.sum(axis=1, keepdims=True)

    p, d = rows(gamma + 1), rows(gamma)
    q = closeness * p[:-1] + (1 - closeness) * d
    np.testing.assert_allclose(target, p, rtol=1e-12, atol=0)
    np.testing.assert_allclose(draft, q / q.sum(axis=1, keepdims=True), rtol=1e-12, atol=0)


def test_random_rows_refuse_one_entry_past_the_real_limit():
    # (2·5 + 1)·909,091 = 10,000,001 probabilities, one more than MAX_ROW_ENTRIES = 10,000,000.
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="gamma and vocab together"):
        random_rows(5, 909_091, 0.5, rng)
    assert rng.bit_generator.state == state


@pytest.mark.parametrize("gamma, vocab", [(0, 7), (1, 5), (3, 4), (6, 2)])
def test_random_rows_limit_counts_two_gamma_plus_one_rows(monkeypatch, gamma, vocab):
    entries = (2 * gamma + 1) * vocab  # γ+1 target rows and γ draft rows, plus γ independent rows blended in
    monkeypatch.setattr(narrate_module, "MAX_ROW_ENTRIES", entries)
    target, draft = random_rows(gamma, vocab, 0.5, np.random.default_rng(0))  # exactly at the limit: made
    assert target.shape == (gamma + 1, vocab) and draft.shape == (gamma, vocab)
    monkeypatch.setattr(narrate_module, "MAX_ROW_ENTRIES", entries - 1)
    with pytest.raises(ValueError, match="gamma and vocab together"):
        random_rows(gamma, vocab, 0.5, np.random.default_rng(0))


def test_the_bonus_line_names_gamma_zero_and_the_bonus_row():
    # γ = 0: no draft token, the one token comes from p₀ (one-hot on B here).
    trace = specdec.trace_step(np.array([[0.0, 1.0, 0.0]]), np.zeros((0, 3)), [], np.random.default_rng(0))
    assert narrate_trace(trace) == ["bonus: with no draft tokens (γ = 0) the step draws its one token from p₀: B",
                                    "output: B (1 token: 1 bonus)"]
    # γ = 1 with q = p one-hot on B: always accepted, then the bonus from p₁ (one-hot on C).
    trace = specdec.trace_step(np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), np.array([[0.0, 1.0, 0.0]]), [1],
                               np.random.default_rng(0))
    u = trace.positions[0].uniform
    assert narrate_trace(trace) == [
        "position 0: draft proposed B with p(B) = 1.0000, q(B) = 1.0000; threshold min(1, p/q) = 1.0000; "
        f"u = {u:.4f} < 1.0000, accepted",
        "bonus: every draft token passed, so one more token is drawn from p₁: C",
        "output: B C (2 tokens: 1 accepted, 1 bonus)",
    ]


@pytest.mark.parametrize("labels", ["ABCD", b"ABCD", 4])
def test_labels_that_are_not_a_list_of_names_are_refused(labels):
    trace = specdec.trace_step(*spec_example(), np.random.default_rng(0))
    with pytest.raises(TypeError, match="labels must be a list of 4 token names"):
        narrate_trace(trace, labels)


def _frames(trace):
    return [frame_at(trace, draws) for draws in range(draw_total(trace) + 1)]


def test_frames_of_an_all_accepted_step_end_with_the_bonus():
    trace = specdec.trace_step(*spec_example(), np.random.default_rng(0))  # A, B accepted, then the bonus A
    frames = _frames(trace)
    assert draw_total(trace) == 3 and [frame.total for frame in frames] == [3] * 4
    assert [frame.finished for frame in frames] == [False, False, False, True]
    assert [frame.draft_states for frame in frames] == [
        ["pending", "pending"], ["accepted", "pending"], ["accepted", "accepted"], ["accepted", "accepted"]]
    assert [frame.focus for frame in frames] == [0, 0, 1, 1]
    assert [frame.position for frame in frames] == [None, trace.positions[0], trace.positions[1], trace.positions[1]]
    assert [frame.tokens for frame in frames] == [[], [0], [0, 1], [0, 1, 0]]
    assert frames[3].origins == ["accepted", "accepted", "bonus"]
    assert [frame.bonus_next for frame in frames] == [False, False, True, False]
    assert [frame.bonus_drawn for frame in frames] == [False, False, False, True]


@pytest.mark.parametrize("draft_tokens", [[3, 0], [3, 3]])
def test_frames_of_a_step_rejected_at_once_discard_the_rest(draft_tokens):
    trace = specdec.trace_step(*spec_example()[:2], draft_tokens, np.random.default_rng(0))  # D has p = 0: rejected
    frames = _frames(trace)
    assert draw_total(trace) == 1 and [frame.total for frame in frames] == [1, 1]
    assert [frame.finished for frame in frames] == [False, True]
    assert [frame.draft_states for frame in frames] == [["pending", "pending"], ["rejected", "discarded"]]
    assert [frame.focus for frame in frames] == [0, 0]
    assert [frame.position for frame in frames] == [None, trace.positions[0]]
    assert frames[1].tokens == [0] and frames[1].origins == ["resampled"]
    assert [frame.bonus_next for frame in frames] == [False, False]
    assert [frame.bonus_drawn for frame in frames] == [False, False]
    with pytest.raises(ValueError, match="draws must be in 0 … 1"):
        frame_at(trace, 2)


def test_frames_of_a_step_rejected_at_its_second_position():
    # q = p = δ_A at position 0 (accepted surely); at position 1 the draft B has p(B) = 0 (rejected surely).
    target = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1 / 3] * 3, [1 / 3] * 3])
    draft = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1 / 3] * 3])
    trace = specdec.trace_step(target, draft, [0, 1, 2], np.random.default_rng(0))
    frames = _frames(trace)
    assert [frame.total for frame in frames] == [2, 2, 2]
    assert [frame.draft_states for frame in frames] == [
        ["pending"] * 3, ["accepted", "pending", "pending"], ["accepted", "rejected", "discarded"]]
    assert [frame.focus for frame in frames] == [0, 0, 1]
    assert [frame.position for frame in frames] == [None, trace.positions[0], trace.positions[1]]
    assert frames[2].tokens == [0, 0] and frames[2].origins == ["accepted", "resampled"]
    assert not any(frame.bonus_next or frame.bonus_drawn for frame in frames)


def test_frames_of_a_gamma_zero_step():
    trace = specdec.trace_step(np.array([[0.0, 1.0, 0.0]]), np.zeros((0, 3)), [], np.random.default_rng(0))
    frames = _frames(trace)
    assert [frame.total for frame in frames] == [1, 1] and [frame.finished for frame in frames] == [False, True]
    assert [frame.focus for frame in frames] == [None, None] and [frame.position for frame in frames] == [None, None]
    assert [frame.draft_states for frame in frames] == [[], []]
    assert [frame.tokens for frame in frames] == [[], [1]]
    assert [frame.bonus_next for frame in frames] == [True, False]
    assert [frame.bonus_drawn for frame in frames] == [False, True]
