"""Hypothesis strategies shared by the tests: random verify-step inputs, with zeros in the rows."""

import numpy as np
from hypothesis import strategies as st


@st.composite
def distributions(draw, vocab=None, rows=None):
    """A (rows, V) float array of probability rows, some entries exactly 0, from a drawn seed."""
    vocab = vocab if vocab is not None else draw(st.integers(2, 12))
    count = rows if rows is not None else 1
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = rng.dirichlet(np.full(vocab, draw(st.sampled_from([0.1, 0.5, 1.0, 5.0]))), size=count)
    if draw(st.booleans()):
        values[rng.random(values.shape) < 0.3] = 0.0
        values[np.arange(count), rng.integers(0, vocab, count)] += 0.05  # keep every row some mass
    return values / values.sum(axis=1, keepdims=True)


@st.composite
def verify_inputs(draw, max_gamma=6):
    """(target_probs (γ+1, V), draft_probs (γ, V), draft_tokens sampled from q, seed)."""
    vocab = draw(st.integers(2, 12))
    gamma = draw(st.integers(0, max_gamma))
    target = draw(distributions(vocab=vocab, rows=gamma + 1))
    draft = draw(distributions(vocab=vocab, rows=gamma)) if gamma else np.empty((0, vocab))
    if gamma and draw(st.booleans()):
        draft[: gamma // 2 + 1] = target[: gamma // 2 + 1]  # some positions where p == q exactly
    token_rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    tokens = [int(token_rng.choice(vocab, p=row)) for row in draft]
    return target, draft, tokens, draw(st.integers(0, 2**32 - 1))


@st.composite
def distribution_pairs(draw):
    vocab = draw(st.integers(2, 12))
    return draw(distributions(vocab=vocab))[0], draw(distributions(vocab=vocab))[0]
