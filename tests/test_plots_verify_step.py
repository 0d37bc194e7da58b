"""What a verify step reveals draw by draw, and the figure that shows it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specdec import sample_draft, trace_step
from specdec.narrate import draw_total, frame_at, subscript
from specdec.plots.verify_step import VerifyStepFigure
from specdec.rows import random_rows, spec_example, token_labels

from .test_plots_blit import assert_looks_like_a_full_draw


def random_trace(gamma, vocab, seed, closeness):
    rng = np.random.default_rng(seed)
    target_probs, draft_probs = random_rows(gamma, vocab, closeness, rng)
    return trace_step(target_probs, draft_probs, sample_draft(draft_probs, rng), rng)


def test_subscript():
    assert subscript(0) + subscript(12) == "₀₁₂"


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 8), st.integers(2, 64), st.integers(0, 10_000), st.floats(0, 1))
def test_frames_reveal_the_trace_one_draw_at_a_time(gamma, vocab, seed, closeness):
    trace = random_trace(gamma, vocab, seed, closeness)
    total = draw_total(trace)
    assert total == len(trace.tokens)
    previous_states = ["pending"] * gamma
    for draws in range(total + 1):
        frame = frame_at(trace, draws)
        assert frame.tokens == trace.tokens[:draws] and frame.origins == trace.origins[:draws]
        assert frame.finished == (draws == total)
        decided = [state for state in frame.draft_states if state in ("accepted", "rejected")]
        assert len(decided) == min(draws, len(trace.positions))
        # A verdict, once shown, stays; pending proposals only ever become decided or discarded.
        for before, after in zip(previous_states, frame.draft_states):
            assert before == after or before == "pending"
        previous_states = frame.draft_states
        assert frame.bonus_drawn == (trace.all_accepted and draws == total)
        if gamma == 0:
            assert frame.focus is None
        else:
            assert 0 <= frame.focus < gamma
    if not trace.all_accepted:
        assert frame.draft_states.count("rejected") == 1


def test_specs_first_example_frame_by_frame():
    trace = trace_step(*spec_example(), np.random.default_rng(0))
    frames = [frame_at(trace, draws) for draws in range(4)]
    assert [frame.draft_states for frame in frames] == [
        ["pending", "pending"], ["accepted", "pending"], ["accepted", "accepted"], ["accepted", "accepted"]]
    assert [frame.bonus_next for frame in frames] == [False, False, True, False]
    assert frames[3].bonus_drawn and frames[3].tokens == [0, 1, 0]
    with pytest.raises(ValueError, match="draws must be in 0 … 3"):
        frame_at(trace, 4)


@pytest.mark.parametrize("gamma, vocab, seed", [(4, 8, 7), (4, 8, 3), (0, 2, 0), (8, 64, 1), (2, 4, 0)])
def test_figure_shows_each_frame(gamma, vocab, seed):
    trace = random_trace(gamma, vocab, seed, 0.5)
    labels = token_labels(vocab)
    picture = VerifyStepFigure()
    for draws in range(draw_total(trace) + 1):
        frame = frame_at(trace, draws)
        picture.update(trace, frame, labels)
        shown = [text.get_text() for text in picture.output_texts[:draws]]
        assert shown == [labels[token] for token in trace.tokens[:draws]]
        assert all(not text.get_visible() for text in picture.output_texts[draws:])
        picture.png()
    position = frame.position
    if position is not None and not position.accepted:
        assert picture.test_title.get_text() == "rejected ✗"
        assert picture.drawn_text.get_text() == labels[position.resampled_token]
    elif trace.all_accepted:
        assert picture.drawn_text.get_text() == labels[trace.bonus_token]
    assert_looks_like_a_full_draw(picture.png(), picture.figure)


def test_too_many_draft_tokens_for_the_figure_is_refused():
    trace = random_trace(3, 4, 0, 0.5)
    with pytest.raises(ValueError, match="γ <= 2"):
        VerifyStepFigure(max_gamma=2).update(trace, frame_at(trace, 0), token_labels(4))
