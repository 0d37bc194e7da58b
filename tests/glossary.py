"""The series' glossary: each term and the short definition a learner sees when hovering it.

Notebooks mark a term's first use with ``<abbr title="definition">term</abbr>`` (JupyterLab 4 keeps
the title), and notebook 00 lists every entry. `abbr` writes that markup, so the definition is
the same everywhere.

>>> print(abbr("nat"))
<abbr title="The unit of information measured with natural logarithms: 1 nat = 1/ln 2 ≈ 1.44 bits.">nat</abbr>
"""

from __future__ import annotations

import html

#: Term → definition. Definitions are plain text (no quotes, no markup), one or two sentences.
GLOSSARY = {
    "target model": "The large model whose output we want. Its next-token distribution is p.",
    "draft model": "The small, fast model that guesses the next γ tokens. Its next-token distribution is q.",
    "forward pass": "One run of a network over its input. A target pass over a prefix and γ drafted "
                    "tokens gives next-token distributions for all γ + 1 positions at once.",
    "verify step": "One round of speculative decoding: the draft proposes γ tokens, the target scores "
                   "them in one forward pass, and the rule keeps a prefix of them plus one more token.",
    "acceptance rate": "α = Σ min(p(x), q(x)): the probability that the rule keeps one draft token, at one "
                       "context. Papers report its average over the contexts of a text.",
    "residual": "The distribution norm(max(0, p − q)) from which a rejected draft token is replaced: the "
                "part of p that the accepted draft tokens do not already supply.",
    "bonus token": "The extra token drawn from the target's last row when every draft token of a step "
                   "was accepted.",
    "total variation": "TV(p, q) = ½ Σ |p(x) − q(x)|: the largest difference between the probabilities "
                       "p and q give to any one set of tokens.",
    "KL divergence": "KL(p‖q) = Σ p(x) log(p(x)/q(x)): the average extra information, in nats, spent "
                     "when data from p is coded as if it came from q. Infinite when q(x) = 0 < p(x).",
    "nat": "The unit of information measured with natural logarithms: 1 nat = 1/ln 2 ≈ 1.44 bits.",
    "logit": "A model's raw score for one token. The softmax of the scores divided by the "
             "temperature, softmax(logits / T), gives the next-token probabilities.",
    "temperature": "T in softmax(logits / T): T < 1 sharpens a distribution, T > 1 flattens it, and "
                   "T → 0 puts all the mass on the largest logit.",
    "greedy decoding": "Emitting the most likely token every time: sampling from a distribution with all "
                       "its mass on the argmax. Temperature 0.",
    "cost ratio": "c = time of one target forward pass / time of one draft forward pass: the reciprocal "
                  "of Leviathan et al.'s cost coefficient c, which this series writes c′ = 1/c.",
    "memory bandwidth": "How many bytes per second a chip can read from its memory. Generating one token "
                        "reads every weight of a dense model and its KV cache, so at small batch sizes "
                        "bandwidth, not arithmetic, sets the time of a decoding pass.",
    "Dirichlet": "A distribution over probability vectors. With a small concentration its draws are "
                 "peaked: a few tokens hold most of the mass, as in language models.",
    "chi-square test": "Pearson's goodness-of-fit test: it compares observed counts with the counts a "
                       "law predicts, and gives a p-value.",
    "p-value": "The probability, if the law being tested is right, of a deviation at least as large as "
               "the one observed. A tiny p-value says the data would be very unlikely if the law were right.",
    "n-gram model": "A model that predicts the next symbol from the n − 1 symbols before it, by counting "
                    "how often each symbol followed them in a text.",
}


def abbr(term: str, text: str | None = None) -> str:
    """``<abbr title="definition">text</abbr>`` for a glossary term; `text` defaults to the term.

    >>> abbr("residual", "residuals").endswith(">residuals</abbr>")
    True
    """
    if not isinstance(term, str):
        raise TypeError(f"term must be a glossary term (a str), got {type(term).__name__}")
    if term not in GLOSSARY:
        raise ValueError(f"term must be one of the glossary's terms ({', '.join(GLOSSARY)}), got {term!r}")
    shown = term if text is None else text
    return f'<abbr title="{html.escape(GLOSSARY[term], quote=True)}">{shown}</abbr>'
