"""The verify step in words."""

import numpy as np
from hypothesis import given, settings

import specdec
from specdec.narrate import narrate_trace
from specdec.rows import spec_example

from .strategies import verify_inputs


def test_a_rejection_is_told_with_its_numbers():
    target_probs, draft_probs, _ = spec_example()
    trace = specdec.trace_step(target_probs, draft_probs, [3, 0], np.random.default_rng(0))
    lines = narrate_trace(trace)
    assert lines == [
        "position 0: draft proposed D with p(D) = 0.0000, q(D) = 0.2500; threshold min(1, p/q) = 0.0000; "
        f"u = {trace.positions[0].uniform:.4f} >= 0.0000, rejected; redrawn from the residual norm(max(0, p - q)): A",
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
