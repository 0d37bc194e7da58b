"""Generate with the neural target: plainly, or draft-then-verify with any drafter of `drafters`.

`speculative_generate` runs steps of: the drafter proposes a chain or tree, the target scores it in
one pass (`TargetState.score`), `verify_token_tree` decides, the target keeps the accepted path.
`NeuralRun` records what every step did: the numbers engines report (τ, the mean tokens per target
pass with the bonus token included, which is vLLM's ``mean_acceptance_length``, 1 + accepted/drafts,
when every step drafts), acceptance by draft
position, and each character's origin (accepted, resampled, bonus) for the coloured text.

>>> import numpy as np
>>> from specdec.neural import load_target, PromptLookupDrafter
>>> target = load_target()
>>> run = speculative_generate(target, PromptLookupDrafter(len(target.vocab), 4), "abc abc ab", 12,
...                            0.0, np.random.default_rng(0))
>>> run.text == greedy_text(target, "abc abc ab", 12)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..goodness_of_fit import goodness_of_fit
from ..validation import Count
from .drafters import Proposal, TargetState
from .transformer import Transformer, probabilities
from .verify import verify_token_tree

#: How many draft positions at most (γ, or a tree's depth).
MAX_DEPTH = 16


@dataclass
class StepRecord:
    """One draft-then-verify step."""

    drafted: int
    """Draft tokens proposed (tree nodes)."""
    depth: int
    """The longest branch: γ for a chain."""
    accepted: int
    """Draft tokens accepted."""
    draft_passes: int
    emitted: list[int]
    origins: list[str]


@dataclass
class NeuralRun:
    """A generation: the prompt, the text, and what every step did."""

    prompt: str
    text: str
    drafter: str
    temperature: float
    steps: list[StepRecord] = field(default_factory=list)

    @property
    def origins(self) -> list[str]:
        return [origin for step in self.steps for origin in step.origins]

    @property
    def target_passes(self) -> int:
        return len(self.steps)

    @property
    def tau(self) -> float:
        """Mean characters per target pass, bonus included."""
        return sum(len(step.emitted) for step in self.steps) / max(1, len(self.steps))

    def acceptance_by_position(self, depth: int | None = None) -> np.ndarray:
        """P(the draft token at position i is accepted | the verify reached position i), i = 1 … depth.

        NaN where no step reached that position.
        """
        depth = depth or max([step.depth for step in self.steps] + [1])
        reached, accepted = np.zeros(depth), np.zeros(depth)
        for step in self.steps:
            for i in range(min(step.depth, step.accepted + 1, depth)):
                reached[i] += 1
                accepted[i] += i < step.accepted
        with np.errstate(invalid="ignore", divide="ignore"):
            return accepted / reached

    @property
    def drafted_per_step(self) -> float:
        return sum(step.drafted for step in self.steps) / max(1, len(self.steps))


def _prompt_ids(target: Transformer, prompt, length) -> list[int]:
    ids = target.encode(prompt)
    if not ids:
        raise ValueError("prompt must hold at least one character")
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise ValueError(f"length must be an int >= 1, got {length!r}")
    if len(ids) + length > target.config.context:
        raise ValueError(f"prompt ({len(ids)} characters) + length ({length}) must fit in the target's context "
                         f"of {target.config.context}")
    return ids


def speculative_generate(target: Transformer, drafter, prompt, length, temperature, rng, rule="exact") -> NeuralRun:
    """Generate `length` characters after `prompt`, drafting with `drafter` and verifying with the target.

    Parameters
    ----------
    target : Transformer
    drafter : one of the drafters of `specdec.neural.drafters`
        Its own γ (``drafter.gamma``) or tree shape sets the draft of each step.
    prompt : str
    length : int >= 1
        prompt + length must fit in the target's context (128 characters).
    temperature : float >= 0
        The target's temperature, and every drafter's. 0 is greedy decoding.
    rng : numpy.random.Generator
    rule : {"exact", "typical"}
        "typical" is Medusa's lossy typical acceptance.

    Returns
    -------
    NeuralRun
        The text has exactly `length` characters: a step that emits more is cut (its record too).
    """
    ids = _prompt_ids(target, prompt, length)
    probabilities(np.zeros(1), temperature)  # checks the temperature
    state = TargetState(target, float(temperature))
    state.start(ids)
    drafter.start(state)
    run = NeuralRun(prompt, "", getattr(drafter, "name", type(drafter).__name__), float(temperature))
    produced: list[int] = []
    while len(produced) < length:
        room = min(state.room - 1, length - len(produced) - 1, MAX_DEPTH)
        gamma = max(0, min(getattr(drafter, "gamma", MAX_DEPTH), room))
        proposal = drafter.propose(state, gamma, rng)
        rows, hidden = state.score(proposal)
        outcome = verify_token_tree(proposal.parents, proposal.tokens, proposal.rows, rows, rng, rule=rule)
        state.commit(outcome.path, outcome.tokens, hidden)
        depth = _depth(proposal.parents)
        emitted = outcome.tokens[: length - len(produced)]
        produced.extend(emitted)
        run.steps.append(StepRecord(proposal.size, depth, len(outcome.path), proposal.draft_passes, emitted,
                                    outcome.origins[: len(emitted)]))
    run.text = target.decode(produced)
    return run


def _depth(parents) -> int:
    depth = [0]
    for parent in parents:
        depth.append(depth[parent] + 1)
    return max(depth)


def generate(target: Transformer, prompt, length, temperature, rng, cached=True) -> str:
    """Plain decoding: one target pass per character, with the KV cache or (``cached=False``) without.

    >>> import numpy as np
    >>> from specdec.neural import load_target
    >>> target = load_target()
    >>> a = generate(target, "The ", 8, 1.0, np.random.default_rng(3))
    >>> a == generate(target, "The ", 8, 1.0, np.random.default_rng(3), cached=False)
    True
    """
    ids = _prompt_ids(target, prompt, length)
    probabilities(np.zeros(1), temperature)
    if cached:
        cache = target.new_cache()
        hidden = target.forward(ids, cache)[-1:]
    out = list(ids)
    for _ in range(length):
        if not cached:
            hidden = target.forward(out)[-1:]
        row = probabilities(target.logits(hidden), temperature)[0]
        out.append(int(rng.choice(row.size, p=row)))
        if cached:
            hidden = target.forward(out[-1:], cache)
    return target.decode(out[len(ids):])


def greedy_text(target: Transformer, prompt, length) -> str:
    """Greedy decoding (temperature 0): the argmax at every position."""
    return generate(target, prompt, length, 0.0, np.random.default_rng(0))


def first_two_character_laws(target: Transformer, prompt, temperature=1.0) -> tuple[np.ndarray, np.ndarray]:
    """The exact laws of the first and the second character the target generates after `prompt`.

    The second is the sum over x of p(x)·p(· | prompt + x), taken in one target pass over a tree in
    which every character x of the vocabulary is a branch of its own.

    >>> from specdec.neural import load_target
    >>> first, second = first_two_character_laws(load_target(), "Return the ")
    >>> round(float(first.sum()), 6), round(float(second.sum()), 6)
    (1.0, 1.0)
    """
    state = TargetState(target, float(temperature))
    state.start(_prompt_ids(target, prompt, 2))
    vocab = len(target.vocab)
    # One pass: row 0 is the root's (the first character's law), row 1 + x the row after x.
    rows, _ = state.score(Proposal([0] * vocab, list(range(vocab)), np.full((vocab, vocab), 1.0 / vocab), 0))
    return rows[0], rows[0] @ rows[1:]


def first_two_character_fits(target: Transformer, drafter, prompt, samples, rng, rule="exact") -> list:
    """Chi-square fits (`goodness_of_fit`) of the first and the second character of `samples`
    speculative generations at temperature 1 to their exact laws (`first_two_character_laws`).

    The first character is the one a draft's first token decides; the second mixes every way a
    step can end (an accepted draft and a bonus, a resampled character, a new step).

    >>> import numpy as np
    >>> from specdec.neural import load_target, PromptLookupDrafter
    >>> target = load_target()
    >>> fits = first_two_character_fits(target, PromptLookupDrafter(len(target.vocab), 2), "ab ab a", 200,
    ...                                 np.random.default_rng(0))
    >>> [fit.passed for fit in fits]
    [True, True]
    """
    samples = Count(1, 10**6)(samples, "samples")
    laws = first_two_character_laws(target, prompt)
    texts = [speculative_generate(target, drafter, prompt, 2, 1.0, rng, rule=rule).text for _ in range(samples)]
    return [goodness_of_fit(np.array(target.encode("".join(text[i] for text in texts))), law)
            for i, law in enumerate(laws)]
