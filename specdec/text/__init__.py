"""Speculative decoding on real text: character n-gram models on an offline English corpus.

Real draft and target networks cannot be downloaded here, nor counted on in Binder; a pair of
character n-gram models can be fitted in about a second on text every Python installation carries.
A low order as the draft and a higher order as the target behave like a real pair: the draft is
cheap and often right, and the target's law is what comes out.

* `NGramModel` (in `ngram`): interpolated Kneser–Ney, orders 1 … 7, with a temperature;
* `stdlib_corpus` (in `corpus`): about a megabyte of the standard library's docstrings;
* `generate` and `speculative_generate` (in `generation`), both returning a `Generation`;
* `sample_contexts` and `mean_acceptance_rate` (in `agreement`): how often a pair agrees.

>>> import numpy as np
>>> from specdec.text import NGramModel, speculative_generate
>>> text = "the cat sat on the mat and the rat sat on the cat"
>>> draft, target = NGramModel(order=2).fit(text), NGramModel(order=4).fit(text)
>>> len(speculative_generate(target, draft, "the ", 10, gamma=3, rng=np.random.default_rng(0)).text)
10
"""

from .agreement import mean_acceptance_rate, sample_contexts
from .corpus import CORPUS_SIZE, stdlib_corpus
from .generation import Generation, generate, speculative_generate
from .ngram import MAX_ORDER, UNKNOWN, NGramModel, fitted_model

__all__ = [
    "CORPUS_SIZE",
    "Generation",
    "MAX_ORDER",
    "NGramModel",
    "UNKNOWN",
    "fitted_model",
    "generate",
    "mean_acceptance_rate",
    "sample_contexts",
    "speculative_generate",
    "stdlib_corpus",
]
