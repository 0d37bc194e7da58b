"""How often a draft agrees with its target, averaged over contexts taken from a text.

The acceptance rate of one position, α = Σₓ min(p(x), q(x)), depends on the context: it is high where
the draft spreads its probability as the target does, and low where the target's longer context
sharpens a prediction the draft cannot make (on the notebooks' corpus, with a 5-gram target, a 2-gram
draft, which sees only the "u" of "qu", has α ≈ 0.11 after "qu" and ≈ 0.43 after a space). What
mostly decides the speedup is α along the contexts decoding actually visits (exactly, the mean over
those paths of products of αᵢ: `specdec.theory`). `speculative_generate` records that for
the contexts it visits; `mean_acceptance_rate` averages over any contexts, such as evenly spaced
positions of the corpus, which gives one stable number per model pair.

>>> from specdec.text import NGramModel
>>> text = "the cat sat on the mat and the rat sat on the cat"
>>> contexts = sample_contexts(text, 5, 6)
>>> len(contexts), all(len(context) == 6 for context in contexts)
(5, True)
>>> model = NGramModel(order=3).fit(text)
>>> mean_acceptance_rate(model, model, contexts)
1.0
"""

from __future__ import annotations

import numpy as np

from ..validation import Constraint, Count, checked
from .generation import TEXT, LanguageModel, model_rows

#: The most contexts `sample_contexts` returns, and the longest each may be. The models read only
#: their last ``order − 1 <= 6`` characters, so longer contexts would only cost memory.
MAX_CONTEXTS = 100_000
MAX_CONTEXT_LENGTH = 100
#: How many contexts `mean_acceptance_rate` stacks into one array of rows per model.
CONTEXTS_PER_BATCH = 1_000


class Contexts(Constraint):
    """A non-empty sequence of str."""

    def __call__(self, contexts, name, arguments):
        if isinstance(contexts, str) or not hasattr(contexts, "__len__"):
            raise TypeError(f"{name} must be a sequence of str, got {type(contexts).__name__}")
        if len(contexts) == 0:
            raise ValueError(f"{name} must hold at least one context, got none")
        for i, context in enumerate(contexts):
            if not isinstance(context, str):
                raise TypeError(f"{name}[{i}] must be a str, got {type(context).__name__}")
        return contexts


@checked(text=TEXT, count=Count(1, MAX_CONTEXTS), length=Count(0, MAX_CONTEXT_LENGTH))
def sample_contexts(text, count, length) -> list[str]:
    """`count` contexts of `length` characters, ending at evenly spaced positions of `text`.

    Parameters
    ----------
    text : str
        At least `length` + 1 characters.
    count : int in 1 … `MAX_CONTEXTS` (100,000)
    length : int in 0 … `MAX_CONTEXT_LENGTH` (100)
        Characters per context; the models read only the last ``order − 1`` of them.

    Returns
    -------
    list of str
        The same list for the same arguments: no randomness is involved.

    Examples
    --------
    >>> sample_contexts("abcdefgh", 3, 2)
    ['ab', 'cd', 'fg']
    """
    if len(text) <= length:  # a condition on two arguments
        raise ValueError(f"text must be longer than length = {length} characters, got {len(text)}")
    ends = np.linspace(length, len(text) - 1, count).round().astype(int)
    return [text[end - length:end] for end in ends]


@checked(target=LanguageModel(), draft=LanguageModel(like="target"), contexts=Contexts())
def mean_acceptance_rate(target, draft, contexts) -> float:
    """α = Σₓ min(p(x | h), q(x | h)) averaged over the contexts h.

    Parameters
    ----------
    target, draft : NGramModel
        Or any objects with ``vocab`` and ``next_distribution(context)``, over one shared
        vocabulary.
    contexts : sequence of str
        At least one. They are read `CONTEXTS_PER_BATCH` at a time, so memory does not grow with their number.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> from specdec.text import NGramModel
    >>> text = "abracadabra"
    >>> low, high = NGramModel(order=1).fit(text), NGramModel(order=3).fit(text)
    >>> 0 < mean_acceptance_rate(high, low, ["ab", "ca"]) < 1
    True
    """
    rates = []
    for start in range(0, len(contexts), CONTEXTS_PER_BATCH):
        batch = contexts[start:start + CONTEXTS_PER_BATCH]
        # `model_rows` checks each model's rows once per batch; each row's sum is the same to the last bit as
        # `acceptance_rate` on that pair.
        target_rows, draft_rows = model_rows(target, batch, "target"), model_rows(draft, batch, "draft")
        rates.extend(np.minimum(np.minimum(target_rows, draft_rows).sum(axis=1), 1.0).tolist())
    return float(np.mean(rates))
