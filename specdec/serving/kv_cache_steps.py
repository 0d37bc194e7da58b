"""The KV caches of one speculative generation, step by step: written, kept, cropped, caught up.

A verify pass runs the target on γ + 1 new positions (the pending token, then the γ draft tokens),
so it **writes** γ + 1 positions of keys and values into the target's cache. After the step only
the pending token and the k accepted draft tokens may stay (**kept**, 1 + k positions); the γ − k
rejected ones must be **cropped**. The token the step emits last (resampled, or the bonus) has no
keys yet: it is the next step's pending token, the first position of the next pass.

The draft ran on the pending token and on d₁ … d_{γ−1} (it never needs to run on d_γ to propose
it), so after drafting its cache holds γ new positions. After the verify: if a draft token was
rejected, the draft's cache is cropped to the pending token and the k accepted ones; if all γ were
accepted, the draft has not yet seen d_γ and must **catch up** by running on it (engines fold this
into the draft's first pass of the next step). Then both caches hold the same text.

Three ways to handle the caches (`CACHE_RULES`):

* ``"exact"``: as above; output identical to plain decoding at temperature 0, and the target's law
  at any temperature;
* ``"forgets_to_crop"``: the target keeps the rejected positions: the next pass attends to
  characters that are not in the text, at shifted positions. The output is corrupted;
* ``"forgets_catch_up"``: after a step that accepted everything, the draft is not run on d_γ, so
  its cache lacks a character. Only the draft's proposals suffer: the verify rule still uses the q
  the draft sampled from, so the output keeps the target's law and acceptance falls.
  *A broken draft cache costs speed, a broken target cache costs correctness.*

>>> import numpy as np
>>> from specdec.neural import load_target, load_draft, greedy_text
>>> target, draft = load_target(), load_draft()
>>> run = generate_with_caches(target, draft, "Return the ", 16, 3, 0.0, np.random.default_rng(0))
>>> run.text == greedy_text(target, "Return the ", 16)
True
>>> step = run.steps[0]
>>> step.target_written == 4 and step.target_kept + step.target_cropped == 4
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core import speculative_step
from ..neural.transformer import Transformer, probabilities
from ..validation import Constraint, Count, Generator, InstanceOf, OneOf, checked

#: The ways of handling the caches after a verify step.
CACHE_RULES = ("exact", "forgets_to_crop", "forgets_catch_up")
#: The longest draft per step.
MAX_CACHE_GAMMA = 8


@dataclass(frozen=True)
class CacheStep:
    """One draft-then-verify step and what it did to both caches (positions are cache slots)."""

    start: int
    """Target cache length before the pass (the pending token goes into slot `start`)."""
    pending: int
    drafted: list[int]
    accepted: int
    emitted: list[int]
    target_written: int
    target_kept: int
    target_cropped: int
    draft_start: int
    draft_written: int
    draft_kept: int
    draft_cropped: int
    draft_caught_up: int
    target_rows: np.ndarray
    """The target's rows p₀ … p_γ of this pass (float64, after the temperature)."""
    target_length_after: int
    draft_length_after: int
    target_tokens_after: tuple = ()
    """What the target's cache slots hold after the step (token ids), slot 0 first."""
    draft_tokens_after: tuple = ()

    @property
    def origin_of_last(self) -> str:
        return "bonus" if self.accepted == len(self.drafted) else "resampled"


@dataclass
class CacheRun:
    """A generation with the caches recorded: the prompt, the text, each step."""

    prompt: str
    text: str
    rule: str
    gamma: int
    temperature: float
    steps: list[CacheStep] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)

    @property
    def accepted_counts(self) -> list[int]:
        return [step.accepted for step in self.steps]


class Text(Constraint):
    """A str of at least one character."""

    def __call__(self, value, name, arguments):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
        if not value:
            raise ValueError(f"{name} must hold at least one character")
        return value


class Temperature(Constraint):
    """A finite number >= 0."""

    def __call__(self, value, name, arguments):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a number >= 0, got {type(value).__name__}")
        if not (np.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {value}")
        return float(value)


MODEL = InstanceOf(Transformer, "a specdec.neural Transformer")


@checked(target=MODEL, draft=MODEL, prompt=Text(), length=Count(1, 120), gamma=Count(1, MAX_CACHE_GAMMA),
         temperature=Temperature(), rng=Generator(), rule=OneOf(*CACHE_RULES))
def generate_with_caches(target, draft, prompt, length, gamma, temperature, rng, rule="exact") -> CacheRun:
    """Generate `length` characters speculatively, handling both KV caches by `rule`, and record each step.

    Parameters
    ----------
    target, draft : specdec.neural.Transformer
        Over the same vocabulary.
    prompt : str
    length : int, 1 … 120
    gamma : int, 1 … 8
        Draft tokens per step (fewer near the end, so that exactly `length` characters come out).
    temperature : float >= 0
        Both models' temperature; 0 is greedy decoding.
    rng : numpy.random.Generator
    rule : {"exact", "forgets_to_crop", "forgets_catch_up"}

    Returns
    -------
    CacheRun

    Examples
    --------
    >>> import numpy as np
    >>> from specdec.neural import load_target, load_draft
    >>> run = generate_with_caches(load_target(), load_draft(), "def ", 6, 2, 1.0, np.random.default_rng(1))
    >>> len(run.text), sum(len(step.emitted) for step in run.steps) >= 6
    (6, True)
    """
    if draft.vocab != target.vocab:
        raise ValueError("target and draft must share one vocabulary")
    ids = target.encode(prompt)
    growth = length * (gamma + 1) if rule == "forgets_to_crop" else length + gamma
    if len(ids) + growth > target.config.context:
        raise ValueError(f"prompt ({len(ids)} characters) and length {length} at γ = {gamma} do not fit in the "
                         f"context of {target.config.context} under rule {rule!r}: use a shorter prompt or length")
    target_cache, draft_cache = target.new_cache(), draft.new_cache()
    if len(ids) > 1:
        target.forward(ids[:-1], target_cache)
        draft.forward(ids[:-1], draft_cache)
    pending = ids[-1]
    run = CacheRun(prompt, "", rule, gamma, temperature)
    produced: list[int] = []
    while len(produced) < length:
        step_gamma = min(gamma, length - len(produced) - 1) or 1
        start, draft_start = target_cache.length, draft_cache.length
        # Draft: run on the pending token, then on each draft token but the last.
        drafted, draft_rows = [], []
        feed = pending
        for i in range(step_gamma):
            row = probabilities(draft.logits(draft.forward([feed], draft_cache)), temperature)[0]
            token = int(rng.choice(row.size, p=row)) if temperature > 0 else int(np.argmax(row))
            drafted.append(token)
            draft_rows.append(row)
            feed = token
        # Verify: one target pass over the pending token and the γ draft tokens.
        hidden = target.forward([pending, *drafted], target_cache)
        target_rows = probabilities(target.logits(hidden), temperature)
        emitted = speculative_step.__wrapped__(target_rows, np.array(draft_rows), drafted, rng)
        accepted = len(emitted) - 1
        # The target keeps the pending token and the accepted draft tokens.
        kept = 1 + accepted
        if rule != "forgets_to_crop":
            target_cache.truncate(start + kept)
        # The draft: crop after a rejection; catch up on d_γ after a full acceptance.
        caught_up = 0
        if accepted < step_gamma:
            draft_cache.truncate(draft_start + kept)
        elif rule != "forgets_catch_up":
            draft.forward([drafted[-1]], draft_cache)
            caught_up = 1
        run.steps.append(CacheStep(start, pending, drafted, accepted, emitted, step_gamma + 1, kept,
                                   step_gamma + 1 - kept, draft_start, step_gamma, min(kept, step_gamma),
                                   step_gamma - min(kept, step_gamma), caught_up, target_rows,
                                   target_cache.length, draft_cache.length,
                                   tuple(int(x) for x in target_cache.tokens[:target_cache.length]),
                                   tuple(int(x) for x in draft_cache.tokens[:draft_cache.length])))
        produced.extend(emitted)
        pending = emitted[-1]
    produced = produced[:length]
    run.tokens = produced
    run.text = target.decode(produced)
    return run


@checked(target=MODEL, prompt=Text(), text=Text(), temperature=Temperature())
def recomputed_rows(target, prompt, text, temperature) -> np.ndarray:
    """The target's rows for every character of `text` after `prompt`, recomputed without a cache.

    Row i is the law of character i of `text` given the prompt and characters 0 … i − 1: one
    uncached forward pass over the whole string, the reference that cached steps must equal.

    >>> from specdec.neural import load_target
    >>> recomputed_rows(load_target(), "ab", "cd", 1.0).shape
    (2, 102)
    """
    ids = target.encode(prompt + text)
    hidden = target.forward(ids[:-1])
    return probabilities(target.logits(hidden), temperature)[len(target.encode(prompt)) - 1:]


def rows_along_run(run: CacheRun) -> np.ndarray:
    """The target rows each emitted character was decided with, in text order (cached, as the run saw them).

    Row j is the row at the position of character j: for an accepted draft token, its verify row; for
    the last token of a step, the row it was resampled from or drawn from (the bonus).
    """
    rows = [step.target_rows[i] for step in run.steps for i in range(len(step.emitted))]
    return np.array(rows[: len(run.tokens)])
