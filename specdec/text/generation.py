"""Generating text with one model, or speculatively with a draft and a target.

`generate` is plain autoregressive sampling: one target call per character. `speculative_generate`
repeats the verify step of `specdec.core`: the draft proposes γ characters one at a time, the target
scores the γ+1 contexts they lead to, and `specdec.core.trace_step` decides, with exactly the same
code as every other notebook of the series, which characters to keep. Nothing of the rule is
re-implemented here; this module only turns text into rows and tokens back into text.

How calls are counted: one target call per verify step, because a real target scores all γ+1
positions in a single batched forward pass (here that pass is γ+1 calls of `next_distribution`),
and one draft call per drafted character. That is the cost model of `specdec.theory.speedup`.

The last step may produce more characters than asked for (up to γ+1 when fewer remain). They are
cut off: the kept characters are still a sample of the target's law, being a prefix of one, and
the calls that produced the dropped ones are counted anyway, because they were made. `discarded`
says how many characters were cut.

What is simplified: a real engine keeps the models' caches between steps and rolls them back after
a rejection; an n-gram model has no cache, so each context is simply looked up again.

The models' rows are checked once, as they arrive (`model_rows`): a model can be any object with
``next_distribution``, so a row that is not a probability vector is reported with the model's name,
and the rule's own functions (`specdec.core`) then run on the checked rows without checking again.

>>> import numpy as np
>>> from specdec.text import NGramModel
>>> text = "the cat sat on the mat and the rat sat on the cat"
>>> draft, target = NGramModel(order=1).fit(text), NGramModel(order=3).fit(text)
>>> result = speculative_generate(target, draft, "the ", 12, gamma=3, rng=np.random.default_rng(0))
>>> len(result.text), len(result.origins), sum(result.tokens_per_step)
(12, 12, 12)
>>> result.target_calls == len(result.tokens_per_step)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core import acceptance_rates, sample_draft, trace_step
from ..validation import (MAX_GAMMA, SUM_TOLERANCE, Constraint, CostRatio, Count, DistributionRows, Generator,
                          InstanceOf, Probability, checked)

#: One letter per origin, for printing a generation as two aligned lines of plain text.
ORIGIN_LETTERS = {"accepted": "a", "resampled": "R", "bonus": "B", "target": "t"}

#: The most characters one call generates: 100,000 take about 7 s speculatively (5-gram target,
#: 3-gram draft, γ = 4, on the project's 2-core machine), ten times as long as 10,000.
MAX_TOKENS = 100_000


class LanguageModel(Constraint):
    """A language model: an object with ``vocab`` (2 symbols or more) and a callable
    ``next_distribution(context)``, such as a fitted `specdec.text.NGramModel`; returned as it is.

    With `like`, it must share that argument's vocabulary, in the same order.

    >>> from specdec.text import NGramModel
    >>> LanguageModel()(None, "target", {})
    Traceback (most recent call last):
    TypeError: target must be a language model with .vocab and .next_distribution(context), such as a fitted specdec.text.NGramModel; got NoneType
    >>> LanguageModel(like="target")(NGramModel(order=2).fit("xyz"), "draft", {"target": NGramModel(order=1).fit("abc")})
    Traceback (most recent call last):
    ValueError: target and draft must share one vocabulary (fit both on the same text), but the target has 4 symbols and the draft 4, not in the same order
    """

    def __init__(self, like: str | None = None):
        self.like = like

    def __call__(self, model, name, arguments):
        if not callable(getattr(model, "next_distribution", None)) or not hasattr(model, "vocab"):
            raise TypeError(
                f"{name} must be a language model with .vocab and .next_distribution(context), such as a "
                f"fitted specdec.text.NGramModel; got {type(model).__name__}"
            )
        if len(model.vocab) < 2:
            raise ValueError(f"{name}.vocab must hold at least 2 symbols, got {len(model.vocab)}")
        if self.like is not None and list(model.vocab) != list(arguments[self.like].vocab):
            raise ValueError(
                f"{self.like} and {name} must share one vocabulary (fit both on the same text), but the {self.like} "
                f"has {len(arguments[self.like].vocab)} symbols and the {name} {len(model.vocab)}, not in the same order"
            )
        return model


#: Text: a str.
TEXT = InstanceOf(str, "a str")

#: What a generation with a target and a draft is given: the two models, the prompt, the length.
PAIR_GENERATION = dict(target=LanguageModel(), draft=LanguageModel(like="target"), prompt=TEXT,
                       n_tokens=Count(0, MAX_TOKENS))


@dataclass(frozen=True)
class Generation:
    """A generated continuation, where each character came from, and what it cost.

    Attributes
    ----------
    prompt : str
        The text the generation continued.
    text : str
        The continuation only, without the prompt.
    origins : tuple of str
        One per character of `text`: "accepted" (a draft character the rule kept), "resampled"
        (drawn from the residual after a rejection), "bonus" (drawn from the target after every
        draft character passed) or "target" (plain generation).
    tokens_per_step : tuple of int
        How many characters each target call contributed; they sum to ``len(text)``.
    target_calls, draft_calls : int
        Forward passes made: one target call per step, one draft call per drafted character.
    gamma : int or None
        The draft length γ; None for plain generation.
    discarded : int
        Characters the last step produced beyond the requested length, and that were cut.
    visited_acceptance_rates : tuple of float
        α = Σₓ min(p(x), q(x)) at each draft position the rule visited, in order.
    visited_accepted : tuple of bool
        Whether the draft character at that position was accepted.

    The fields must agree with one another, or the constructor raises ValueError or TypeError:
    one origin per character of `text` (each a key of `ORIGIN_LETTERS`); one entry of
    `tokens_per_step` per target call, each in 1 … γ+1, summing to ``len(text)``; γ draft calls
    per target call (none without γ); as many `visited_accepted` as `visited_acceptance_rates`
    (each a probability), and no more than the draft calls.

    Examples
    --------
    >>> generation = Generation("th", "e c", ("accepted", "accepted", "resampled"), (3,), 1, 4, 4,
    ...                         visited_acceptance_rates=(0.9, 0.7, 0.5), visited_accepted=(True, True, False))
    >>> generation.origin_letters, generation.measured_alpha, generation.tokens_per_target_call
    ('aaR', 0.6666666666666666, 3.0)
    """

    prompt: str
    text: str
    origins: tuple[str, ...]
    tokens_per_step: tuple[int, ...]
    target_calls: int
    draft_calls: int
    gamma: int | None = None
    discarded: int = 0
    visited_acceptance_rates: tuple[float, ...] = ()
    visited_accepted: tuple[bool, ...] = ()

    def __post_init__(self):
        for name in ("prompt", "text"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a str, got {type(getattr(self, name)).__name__}")
        counts = {
            name: Count()(getattr(self, name), name) for name in ("target_calls", "draft_calls", "discarded")
        }
        gamma = None if self.gamma is None else Count()(self.gamma, "gamma")
        origins = _tuple_of(self.origins, "origins")
        steps = tuple(Count(1)(step, f"tokens_per_step[{i}]")
                      for i, step in enumerate(_tuple_of(self.tokens_per_step, "tokens_per_step")))
        rates = tuple(Probability()(rate, f"visited_acceptance_rates[{i}]")
                      for i, rate in enumerate(_tuple_of(self.visited_acceptance_rates, "visited_acceptance_rates")))
        accepted = _tuple_of(self.visited_accepted, "visited_accepted")
        for i, origin in enumerate(origins):
            if origin not in ORIGIN_LETTERS:
                raise ValueError(f"origins[{i}] = {origin!r} is not an origin: expected one of {', '.join(ORIGIN_LETTERS)}")
        for i, flag in enumerate(accepted):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"visited_accepted[{i}] must be a bool, got {flag!r} of type {type(flag).__name__}")
        if len(origins) != len(self.text):
            raise ValueError(
                f"origins must hold one origin per character of text: text has {len(self.text)} characters "
                f"and origins {len(origins)} entries"
            )
        if len(steps) != counts["target_calls"]:
            raise ValueError(
                f"tokens_per_step must hold one entry per target call: target_calls = {counts['target_calls']}, "
                f"but tokens_per_step has {len(steps)} entries"
            )
        if sum(steps) != len(self.text):
            raise ValueError(
                f"tokens_per_step must sum to the length of text ({len(self.text)}), but it sums to {sum(steps)}"
            )
        if gamma is not None and steps and max(steps) > gamma + 1:
            raise ValueError(f"each of tokens_per_step must be at most γ+1 = {gamma + 1}, got {max(steps)}")
        drafts_per_call = 0 if gamma is None else gamma
        if counts["draft_calls"] != drafts_per_call * counts["target_calls"]:
            raise ValueError(
                f"draft_calls must be γ × target_calls = {drafts_per_call} × {counts['target_calls']} "
                f"(γ draft calls per step{'; none without γ' if gamma is None else ''}), got {counts['draft_calls']}"
            )
        if len(accepted) != len(rates):
            raise ValueError(
                f"visited_accepted and visited_acceptance_rates must have one entry per visited draft position "
                f"each, got {len(accepted)} and {len(rates)}"
            )
        if len(accepted) > counts["draft_calls"]:
            raise ValueError(
                f"visited_accepted cannot hold more visited positions ({len(accepted)}) than there were draft "
                f"calls ({counts['draft_calls']})"
            )
        for name, value in (("origins", origins), ("tokens_per_step", steps),
                            ("visited_acceptance_rates", rates), ("visited_accepted", tuple(map(bool, accepted)))):
            object.__setattr__(self, name, value)

    @property
    def measured_alpha(self) -> float:
        """The fraction of visited draft positions whose character was accepted (NaN if none)."""
        if not self.visited_accepted:
            return math.nan
        return sum(self.visited_accepted) / len(self.visited_accepted)

    @property
    def mean_acceptance_rate(self) -> float:
        """α averaged over the contexts of the visited draft positions (NaN if none).

        The expected value of `measured_alpha`: each visited position accepts with its own α.
        """
        if not self.visited_acceptance_rates:
            return math.nan
        return float(np.mean(self.visited_acceptance_rates))

    @property
    def tokens_per_target_call(self) -> float:
        """Characters kept per target call (NaN if nothing was generated)."""
        if not self.target_calls:
            return math.nan
        return len(self.text) / self.target_calls

    @property
    def origin_letters(self) -> str:
        """`origins` as one letter per character (a, R, B, t), to print under `text`."""
        return "".join(ORIGIN_LETTERS[origin] for origin in self.origins)

    @checked(c=CostRatio())
    def speedup_from_calls(self, c) -> float:
        """The speedup over plain generation that the call counts imply at cost ratio c.

        Plain generation of ``len(text)`` characters costs ``len(text)`` target passes; this
        generation cost ``target_calls + draft_calls / c`` of them, a draft pass being c times
        cheaper than a target pass. That ratio is what `specdec.theory.speedup` predicts.

        Examples
        --------
        >>> generation = Generation("", "abcd", ("accepted",) * 3 + ("bonus",), (4,), 1, 3, 3)
        >>> round(generation.speedup_from_calls(20), 4)  # 4 characters for 1 + 3/20 target passes
        3.4783
        """
        cost = self.target_calls + self.draft_calls / c
        if cost == 0:
            return math.nan
        return len(self.text) / cost


#: What the rows a model gives for a step must be: probability vectors, one per context.
MODEL_ROWS = DistributionRows()


def model_rows(model, contexts: list[str], name: str) -> np.ndarray:
    """``model.next_distribution(context)`` for each of `contexts`, stacked into a (len(contexts), V) float array
    and checked once: every row a probability vector over the `name` model's vocabulary.

    >>> from specdec.text import NGramModel
    >>> model_rows(NGramModel(order=2).fit("abab"), ["a", "ab"], "target").shape
    (2, 3)
    """
    distributions = [model.next_distribution(context) for context in contexts]
    if len(distributions) == 1:  # a draft position, the most frequent call: a float row that passes costs 2 reductions
        row = distributions[0]
        if (type(row) is np.ndarray and row.dtype == np.float64 and row.shape == (len(model.vocab),)
                and np.minimum.reduce(row) >= 0 and abs(np.add.reduce(row) - 1.0) <= SUM_TOLERANCE):
            return row.reshape(1, -1)  # NaN fails both tests; any other row gets the full check and its message
    what = (f"{name}.next_distribution(context)" if len(contexts) == 1
            else f"{name}.next_distribution over {len(contexts)} contexts")
    rows = MODEL_ROWS(distributions, what)
    if rows.shape[1] != len(model.vocab):
        raise ValueError(f"{what} must give one probability per symbol of {name}.vocab ({len(model.vocab)}), "
                         f"got {rows.shape[1]}")
    return rows


@checked(model=LanguageModel(), prompt=TEXT, n_tokens=Count(0, MAX_TOKENS), rng=Generator())
def generate(model, prompt, n_tokens, rng) -> Generation:
    """Sample `n_tokens` characters after `prompt`, one ``rng.choice`` from the model per character.

    Parameters
    ----------
    model : NGramModel
        Or any object with ``vocab`` and ``next_distribution(context)``.
    prompt : str
    n_tokens : int in 0 … `MAX_TOKENS` (100,000)
    rng : numpy.random.Generator

    Returns
    -------
    Generation
        Every origin is "target"; one target call per character.

    Examples
    --------
    >>> import numpy as np
    >>> from specdec.text import NGramModel
    >>> model = NGramModel(order=3).fit("abracadabra")
    >>> result = generate(model, "ab", 5, np.random.default_rng(0))
    >>> len(result.text), result.target_calls, result.origin_letters
    (5, 5, 'ttttt')
    """
    vocab = model.vocab
    size = len(vocab)
    text = ""
    for _ in range(n_tokens):
        probs = model_rows(model, [prompt + text], "model")[0]
        text += vocab[int(rng.choice(size, p=probs))]
    return Generation(
        prompt=prompt,
        text=text,
        origins=("target",) * n_tokens,
        tokens_per_step=(1,) * n_tokens,
        target_calls=n_tokens,
        draft_calls=0,
    )


@checked(**PAIR_GENERATION, gamma=Count(0, MAX_GAMMA), rng=Generator())
def speculative_generate(target, draft, prompt, n_tokens, gamma, rng) -> Generation:
    """Generate `n_tokens` characters after `prompt` by speculative decoding.

    Each step: the draft proposes γ characters, each drawn from its row with
    `specdec.core.sample_draft`; the target gives the γ+1 rows of the contexts they lead to; and
    `specdec.core.trace_step` accepts, resamples or adds a bonus character. The output has the
    target's law whatever the draft is; a better draft only makes it cheaper.

    Parameters
    ----------
    target, draft : NGramModel
        Or any objects with ``vocab`` and ``next_distribution(context)``; both must have the same
        vocabulary (fit them on the same text).
    prompt : str
    n_tokens : int in 0 … `MAX_TOKENS` (100,000)
        Characters to generate. Characters the last step produces beyond it are cut (see
        `Generation.discarded`).
    gamma : int in 0 … 64 (`specdec.validation.MAX_GAMMA`)
        Draft characters per step. γ = 0 is plain generation through the verify rule.
    rng : numpy.random.Generator
        Per step: γ draft draws, then the draws of the verify step, in the order `specdec.core`
        fixes.

    Returns
    -------
    Generation

    Examples
    --------
    >>> import numpy as np
    >>> from specdec.text import NGramModel
    >>> model = NGramModel(order=3).fit("abracadabra")
    >>> same = speculative_generate(model, model, "ab", 8, gamma=3, rng=np.random.default_rng(0))
    >>> same.measured_alpha, same.tokens_per_step
    (1.0, (4, 4))
    """
    vocab = target.vocab
    text = ""
    origins: list[str] = []
    steps: list[int] = []
    rates: list[float] = []
    accepted: list[bool] = []
    draft_calls = discarded = 0
    while len(text) < n_tokens:
        target_rows, draft_rows, step = draft_and_verify(target, draft, prompt + text, gamma, rng)
        draft_calls += gamma

        visited = len(step.positions)
        rates.extend(acceptance_rates.__wrapped__(target_rows, draft_rows)[:visited].tolist())
        accepted.extend(position.accepted for position in step.positions)
        kept = step.tokens[: n_tokens - len(text)]
        discarded += len(step.tokens) - len(kept)
        text += "".join(vocab[token] for token in kept)
        origins.extend(step.origins[: len(kept)])
        steps.append(len(kept))
    return Generation(
        prompt=prompt,
        text=text,
        origins=tuple(origins),
        tokens_per_step=tuple(steps),
        target_calls=len(steps),
        draft_calls=draft_calls,
        gamma=gamma,
        discarded=discarded,
        visited_acceptance_rates=tuple(rates),
        visited_accepted=tuple(accepted),
    )


def draft_and_verify(target, draft, context: str, gamma: int, rng):
    """One speculative step on text: the draft writes γ characters one by one, then one target pass
    scores the rows after 0, 1, …, γ of them and the rule verifies the draft.

    The arguments are those `speculative_generate` has already checked, and each model's rows are
    checked as they arrive (`model_rows`), so the rule's functions run without checking them again.
    Returns ``(target_rows, draft_rows, step)``, the rows of shapes (γ+1, V) and (γ, V) and the
    `specdec.StepTrace`. Draws: γ ``rng.choice`` for the draft, then the verify step's draws.

    >>> import numpy as np
    >>> from specdec.text import NGramModel
    >>> model = NGramModel(order=2).fit("abab")
    >>> target_rows, draft_rows, step = draft_and_verify(model, model, "a", 2, np.random.default_rng(0))
    >>> target_rows.shape, draft_rows.shape, step.origins
    ((3, 3), (2, 3), ['accepted', 'accepted', 'bonus'])
    """
    vocab = target.vocab
    drafted = ""
    draft_rows = np.empty((gamma, len(vocab)))
    draft_tokens: list[int] = []
    for i in range(gamma):
        draft_rows[i] = model_rows(draft, [context + drafted], "draft")[0]
        draft_tokens += sample_draft.__wrapped__(draft_rows[i:i + 1], rng)
        drafted += vocab[draft_tokens[-1]]
    target_rows = model_rows(target, [context + drafted[:i] for i in range(gamma + 1)], "target")
    return target_rows, draft_rows, trace_step.__wrapped__(target_rows, draft_rows, draft_tokens, rng)


def _tuple_of(value, name: str) -> tuple:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a tuple, got {type(value).__name__}")
    return tuple(value)
