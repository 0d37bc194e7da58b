"""Greedy decoding as a model: the one-hot distribution on a model's most likely next symbol.

Greedy decoding is sampling from a distribution that puts all its mass on the argmax. Wrapping a
language model in `Greedy` gives exactly that distribution, so the generators of `specdec.text`
decode greedily without any change: `generate(Greedy(target), …)` is the target's greedy text, and
`speculative_generate(Greedy(target), Greedy(draft), …)` runs the verify rule on one-hot rows.

On one-hot rows the rule has no randomness left: a draft symbol is accepted exactly when it is the
target's argmax (the ratio is 1 or 0), and the residual of a rejection is the target's one-hot row.
So speculative greedy decoding writes the target's greedy text, whatever the draft and the seed, in
exact arithmetic (in a real engine a batched verify pass can round logits differently and flip a near-tie).
With sampling that is not so: the same seed gives different texts (the rule draws more random
numbers, and in another order), and only the *distribution* of the texts is the same.

What is simplified: a tie goes to the first of the tied symbols in the vocabulary (``numpy.argmax``).

>>> from specdec.text import NGramModel
>>> model = Greedy(NGramModel(order=2).fit("abab"))  # vocabulary a, b and one for unseen symbols
>>> model.vocab == model.model.vocab, model.next_distribution("a").tolist()
(True, [0.0, 1.0, 0.0])
"""

from __future__ import annotations

import numpy as np

from .validation import Distribution


class Greedy:
    """A language model's greedy version: ``next_distribution`` is one-hot on the argmax.

    Parameters
    ----------
    model : object with ``vocab`` and ``next_distribution(context)``
        For example a fitted `specdec.text.NGramModel`.

    Examples
    --------
    >>> import numpy as np
    >>> from specdec.text import NGramModel, generate, speculative_generate
    >>> text = "the cat sat on the mat and the rat sat on the cat"
    >>> target, draft = Greedy(NGramModel(order=4).fit(text)), Greedy(NGramModel(order=1).fit(text))
    >>> plain = generate(target, "the ", 20, np.random.default_rng(0)).text
    >>> fast = speculative_generate(target, draft, "the ", 20, gamma=3, rng=np.random.default_rng(7)).text
    >>> plain == fast
    True
    """

    def __init__(self, model):
        if not callable(getattr(model, "next_distribution", None)) or not hasattr(model, "vocab"):
            raise TypeError(
                "model must be a language model with .vocab and .next_distribution(context), such as a "
                f"fitted specdec.text.NGramModel; got {type(model).__name__}"
            )
        self.model = model

    @property
    def vocab(self):
        """The wrapped model's vocabulary."""
        return self.model.vocab

    def next_distribution(self, context) -> np.ndarray:
        """A new float array with 1 at the wrapped model's most likely next symbol and 0 elsewhere."""
        probs = Distribution()(self.model.next_distribution(context), "next_distribution(context)", {})
        one_hot = np.zeros(probs.size)
        one_hot[int(np.argmax(probs))] = 1.0
        return one_hot

    def __repr__(self) -> str:
        return f"Greedy({self.model!r})"
