"""A zoo of verify rules that are almost right, each standing for a mistake real code has made.

Every function here takes `speculative_step`'s arguments, checks them the same way, and makes the
same random draws as the correct rule except where its mistake changes them. Each one is written
out in full, as `check_step_arguments` followed by a copy of `specdec.core.verify`'s loop, so that it
can be read line by line against the rule: every line that differs from `verify` ends with the
comment ``# the mistake``, and a line the mistake leaves out is replaced by such a comment.

`BROKEN_RULES` lists the rules whose bias a sampling check finds: with the rows of their
`biased_example`, 200,000 steps are enough to reject them at any sensible significance level.
Each `BrokenRule` also has a vectorised `sample_steps` with the same law as its function (the tests
compare the two), because a Python loop is too slow for a million steps.

`EDGE_CASES` lists two rules that are wrong only on tiny sets of random draws: u = 0 exactly (2⁻⁵³
for numpy's float64 uniforms), or a rejection that only rounding allows (2·10⁻⁹ per step on the example
rows) — a million sampled steps will not show them, but a generator rigged to produce the fatal uniform
(`rigged_generator`, defined in `specdec.core` and importable from here beside the rules it exposes) does.

What is simplified: in a real engine these mistakes hide inside batched GPU kernels, among logits
processors and samplers; here each is isolated in a dozen lines of numpy.

>>> import numpy as np
>>> from specdec.narrate import spec_example
>>> target_probs, draft_probs, draft_tokens = spec_example()
>>> always_accept(target_probs, draft_probs, [3, 0], np.random.default_rng(0))  # token 3 has p = 0
[3, 0, 2]
>>> sorted(BROKEN_RULES)[:3]
['accept_with_target_probability', 'always_accept', 'drop_bonus_token']
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from .core import (SPEC_DRAFT_PROBS, SPEC_TARGET_PROBS, check_step_arguments, normalised_for_choice, rigged_generator,
                   unchecked_residual)
from .sampling import (
    SAMPLING_ARGUMENTS,
    VerifyTables,
    acceptance_table,
    correct_rule_tables,
    residual_rows,
    sample_with_tables,
)


# --- The broken rules -------------------------------------------------------------------------
# Each body is `check_step_arguments` followed by a copy of `specdec.core.verify`'s loop without its
# tracing lines; only the lines that end with `# the mistake` differ (tests/test_rule_variants.py).


def resample_from_target(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """After a rejection, draw the replacement from pᵢ instead of the residual norm(max(0, pᵢ − qᵢ)).

    The accepted tokens already carry the mass min(p, q); drawing the rest from p counts that mass
    twice, so tokens the draft likes are over-produced.

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> resample_from_target(target_probs, draft_probs, [3, 0], np.random.default_rng(0))
    [0]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        residual = target[i]  # the mistake: p itself, not norm(max(0, p − q))
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def resample_from_draft(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """After a rejection, draw the replacement from qᵢ — the draft model — instead of the residual.

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> resample_from_draft(target_probs, draft_probs, [3, 0], np.random.default_rng(0))
    [1]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        residual = draft[i]  # the mistake: q, not norm(max(0, p − q))
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def accept_with_target_probability(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Accept xᵢ with probability pᵢ(xᵢ) instead of min(1, pᵢ(xᵢ)/qᵢ(xᵢ)).

    A mistake for tokens sampled from qᵢ. With one-hot draft rows (a draft that does not sample) it
    is exactly the deterministic-draft rule, `specdec.deterministic_draft.deterministic_draft_step`.

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> accept_with_target_probability(target_probs, draft_probs, [0, 1], np.random.default_rng(0))
    [0]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = p_x  # the mistake: p(x), not min(1, p(x)/q(x))
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def always_accept(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Skip verification: emit every draft token, then the bonus token. Draws only the bonus.

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> always_accept(target_probs, draft_probs, [3, 0], np.random.default_rng(0))  # p₀(3) = 0
    [3, 0, 2]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = 1.0  # the mistake: every draft token passes, whatever p(x)/q(x) is
        u = 0.0  # the mistake: and no uniform is drawn
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def drop_bonus_token(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """When every draft token passes, return without the bonus token (and without drawing it).

    Every token that is emitted still has the right law; the step just yields fewer tokens, so only
    the law of the token count shows the mistake. With γ = 0 it emits nothing at all.

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> drop_bonus_token(target_probs, draft_probs, [0, 1], np.random.default_rng(0))
    [0, 1]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    # the mistake: no bonus token; the target's last row p_γ is never used
    return output


def one_uniform_for_all(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Draw one uniform per step and compare it at every position, instead of one per position.

    Position 0 is still right. But a step that reached position i > 0 did so because u was small,
    so later draft tokens are accepted too often: the positions become dependent.

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> one_uniform_for_all(target_probs, draft_probs, [0, 1], np.random.default_rng(0))
    [0, 1, 1]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    u = rng.random() if tokens else None  # the mistake: one uniform, drawn once before the loop
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        # the mistake: no new uniform at this position
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def greedy_draft(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Draft greedily — xᵢ = argmax qᵢ — while still using qᵢ in the ratio pᵢ(xᵢ)/qᵢ(xᵢ).

    The `draft_tokens` passed in are checked and then ignored: this rule stands for a draft model
    that never sampled, so each is replaced by the argmax of its row (the first one on a tie). The
    ratio is only valid for tokens drawn from qᵢ; a greedy draft was drawn from a point mass.

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> greedy_draft(target_probs, draft_probs, [3, 3], np.random.default_rng(0))  # proposes [0, 0]
    [0, 1]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    tokens = [int(np.argmax(row)) for row in draft]  # the mistake: the argmax, not a draw from q
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


#: The temperature at which `unprocessed_draft_in_ratio` draws its draft tokens.
DRAFT_TEMPERATURE = 0.5


def unprocessed_draft_in_ratio(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Draft at temperature T = 0.5 but put the unprocessed qᵢ in the ratio pᵢ(xᵢ)/qᵢ(xᵢ).

    `draft_probs` holds the draft model's own distributions qᵢ = softmax(zᵢ). This rule stands for
    an engine that processes the draft's logits zᵢ before sampling, here dividing them by T: the
    tokens come from q'ᵢ = softmax(zᵢ/T), which is qᵢ^(1/T) normalised, while the ratio (and the
    residual) still read qᵢ. The `draft_tokens` passed in are checked and then ignored: each is drawn
    again from q'ᵢ, one ``rng.choice`` per row before the loop. The ratio is right only with the row
    the token was drawn from. Top-k and top-p filtering make the same mistake when the ratio reads
    the unfiltered row.

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> unprocessed_draft_in_ratio(target_probs, draft_probs, [3, 3], np.random.default_rng(0))
    [2, 0, 3]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    sampled_rows = at_temperature(draft, DRAFT_TEMPERATURE)  # the mistake: the tokens come from q'
    tokens = [int(rng.choice(vocab, p=row)) for row in sampled_rows]  # the mistake: the ratio uses q
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def swapped_roles(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Swap p and q in the rule: accept with min(1, qᵢ(xᵢ)/pᵢ(xᵢ)), resample from norm(max(0, qᵢ − pᵢ)).

    >>> import numpy as np
    >>> from specdec.narrate import spec_example
    >>> target_probs, draft_probs, _ = spec_example()
    >>> swapped_roles(target_probs, draft_probs, [3, 0], np.random.default_rng(0))  # p₀(3) = 0
    [3, 0, 0]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = 1.0 if q_x >= p_x else q_x / p_x  # the mistake: min(1, q/p), not min(1, p/q)
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(draft[i], target[i])  # the mistake: and max(0, q − p)
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def accept_on_equal(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Accept when u <= min(1, p/q) instead of u < min(1, p/q).

    Identical to the correct rule except when u equals the threshold exactly. The case that
    matters is p(x) = 0 with u = 0: the rule then emits a token the target says is impossible.

    >>> target_probs, draft_probs, _ = EDGE_CASES["accept_on_equal"].example
    >>> accept_on_equal(target_probs, draft_probs, [3, 0], rigged_generator(0.0))
    [3, 0, 3]
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u <= threshold:  # the mistake: <=, not <
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def residual_without_fallback(target_probs, draft_probs, draft_tokens, rng) -> list[int]:
    """Normalise max(0, p − q) without checking its mass: 0/0 = NaN when p ≤ q everywhere.

    A rejection there is possible only through rounding (rows that sum to 1 − 10⁻⁹, say), so on such
    rows the rule works for hundreds of millions of steps and then crashes: `Generator.choice` refuses
    NaN weights.

    >>> target_probs, draft_probs, tokens = EDGE_CASES["residual_without_fallback"].example
    >>> rng = rigged_generator(EDGE_CASES["residual_without_fallback"].fatal_uniform)
    >>> residual_without_fallback(target_probs, draft_probs, tokens, rng)
    Traceback (most recent call last):
    ...
    ValueError: Probabilities contain NaN
    """
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        excess = np.maximum(target[i] - draft[i], 0.0)  # the mistake: divided by its mass
        with np.errstate(invalid="ignore"):  # the mistake: unchecked, so 0/0 gives NaN
            residual = excess / excess.sum()  # the mistake
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


def at_temperature(rows: np.ndarray, temperature: float) -> np.ndarray:
    """Each row r turned into r^(1/T) normalised: softmax(z/T) for the logits z of r = softmax(z).

    >>> at_temperature(np.array([[0.75, 0.25]]), 0.5)
    array([[0.9, 0.1]])
    """
    powered = rows ** (1.0 / temperature)
    return powered / powered.sum(axis=-1, keepdims=True)


# --- The registries --------------------------------------------------------------------------------

_SPEC_ROWS = (SPEC_TARGET_PROBS, SPEC_DRAFT_PROBS)

# Two tokens, two draft positions: a step reaches position 1 after drafting B only when u < 0.2,
# so a reused uniform then accepts B again for sure.
_DEPENDENT_ROWS = (((0.9, 0.1), (0.9, 0.1), (0.5, 0.5)), ((0.5, 0.5), (0.5, 0.5)))

# A perfect draft, q₀ = p₀: the correct rule accepts every draft token and is exact.
_PERFECT_DRAFT_ROWS = (((0.6, 0.3, 0.1), (0.6, 0.3, 0.1)), ((0.6, 0.3, 0.1),))


@dataclass(frozen=True)
class BrokenRule:
    """One broken verify rule, what it gets wrong, and rows on which its output must be biased."""

    name: str
    function: Callable[..., list]
    """The rule, with `speculative_step`'s signature."""
    mistake: str
    """What the rule does wrong, in one sentence addressed to the learner."""
    real_world: str
    """The mistake in a real engine that this rule stands for."""
    biased_example: tuple
    """(target_probs, draft_probs) as nested tuples: rows on which the rule's law differs from the correct one."""
    where_it_shows: str
    """Where the bias shows on `biased_example`, and why."""
    biased_position: int | None
    """The output position whose law is biased on `biased_example`; None if only the token count is."""
    tables: Callable[[np.ndarray, np.ndarray], VerifyTables]
    """The rule's law as `VerifyTables`, from checked rows (target, draft); used by `sample_steps`."""

    def example_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """`biased_example` as fresh float arrays (target_probs, draft_probs)."""
        target, draft = self.biased_example
        return np.array(target, dtype=np.float64), np.array(draft, dtype=np.float64)

    @SAMPLING_ARGUMENTS
    def sample_steps(self, target_probs, draft_probs, n, rng):
        """n independent steps of this rule at once, vectorised; same law as looping `function`.

        Returns (tokens, counts) exactly like `specdec.sampling.sample_steps`; draws the draft
        tokens itself. The random draws differ from the loop's, the law does not.
        """
        return sample_with_tables(self.tables(target_probs, draft_probs), n, rng)


def _greedy_rows(draft: np.ndarray) -> np.ndarray:
    rows = np.zeros_like(draft)
    rows[np.arange(draft.shape[0]), np.argmax(draft, axis=1)] = 1.0
    return rows


def _rule(function, tables, mistake, real_world, biased_example, where_it_shows, biased_position):
    return BrokenRule(function.__name__, function, mistake, real_world, biased_example, where_it_shows,
                      biased_position, tables)


BROKEN_RULES: dict[str, BrokenRule] = {
    rule.name: rule
    for rule in (
        _rule(
            resample_from_target,
            lambda p, q: replace(correct_rule_tables(p, q), resample_rows=p[:-1]),
            "You drew the resampled token from p, not from the residual norm(max(0, p − q)).",
            "Treating a rejection as an ordinary decoding step and sampling the target's own "
            "distribution, forgetting that the accepted draft tokens already supplied min(p, q).",
            _SPEC_ROWS,
            "Position 0: the output is min(p, q) + (1 − α)·p = (0.40, 0.34, 0.26, 0) instead of "
            "p = (0.5, 0.3, 0.2, 0).",
            0,
        ),
        _rule(
            resample_from_draft,
            lambda p, q: replace(correct_rule_tables(p, q), resample_rows=q),
            "You drew the resampled token from q, the draft, not from the residual norm(max(0, p − q)).",
            "Reusing the draft model's sampler for the replacement token, so a rejected position is "
            "filled in by the model whose proposal was just refused.",
            _SPEC_ROWS,
            "Position 0: token D has p = 0 but is emitted with probability (1 − α)·q(D) = 0.075.",
            0,
        ),
        _rule(
            accept_with_target_probability,
            lambda p, q: replace(correct_rule_tables(p, q), acceptance=np.where(q > 0, p[:-1], 0.0)),
            "You accepted a token sampled from q with probability p(x), not min(1, p(x)/q(x)): q was "
            "dropped. p(x) is the right threshold only for a draft that does not sample (q = δₓ, the "
            "deterministic-draft rule of specdec.deterministic_draft).",
            "Reusing the deterministic-draft rule (accept with p(x), as engines do for a greedy or lookup "
            "draft) for a draft that samples from its softmax.",
            _SPEC_ROWS,
            "Position 0: the accepted mass is q·p instead of min(p, q); the output is "
            "(0.75, 0.20, 0.05, 0) instead of (0.5, 0.3, 0.2, 0).",
            0,
        ),
        _rule(
            always_accept,
            lambda p, q: replace(correct_rule_tables(p, q), acceptance=(q > 0).astype(np.float64)),
            "You never verified: every draft token was accepted.",
            "Trusting the draft without the target's check, which is deploying the small model "
            "under another name.",
            _SPEC_ROWS,
            "Position 0: the output is q = (0.25, 0.25, 0.25, 0.25), including token D with p = 0.",
            0,
        ),
        _rule(
            drop_bonus_token,
            lambda p, q: replace(correct_rule_tables(p, q), bonus_row=None),
            "You dropped the bonus token: when every draft token passed, the step should still add "
            "one token drawn from the target's last row p_γ.",
            "An off-by-one in the verify step that forgets the target pass also scored the position "
            "after the last draft token; the text stays right, but a step in which all γ draft tokens pass "
            "yields one token fewer, so the mean tokens per step falls below the theory's.",
            _SPEC_ROWS,
            "Token count only: a step never yields γ+1 = 3 tokens; P(N = 2) is 0.28 + 0.42 = 0.70 "
            "instead of 0.28. Each emitted token still has the right law.",
            None,
        ),
        _rule(
            one_uniform_for_all,
            lambda p, q: replace(correct_rule_tables(p, q), shared_uniform=True),
            "You drew one uniform for the whole step and compared it at every position; each "
            "position needs its own.",
            "A random number generated once per step (or a random stream seeded identically at "
            "every position) instead of once per position.",
            _DEPENDENT_ROWS,
            "Position 1: reaching it after drafting B means u < 0.2, and the same u then accepts B "
            "again, so position 1 emits (5/6, 1/6) instead of (0.9, 0.1); P(N = 3) is 0.40 instead of 0.36.",
            1,
        ),
        _rule(
            greedy_draft,
            lambda p, q: replace(correct_rule_tables(p, q), draft_rows=_greedy_rows(q)),
            "You drafted greedily (the argmax of q) but used q in the ratio; the ratio p/q is only "
            "right for tokens sampled from q. A greedy draft's distribution is the point mass δₓ: "
            "accept with p(x) and resample from p without x (specdec.deterministic_draft).",
            "A draft model decoded greedily while its softmax is used as q — the limit T → 0 of "
            "processing the draft's logits for sampling but not for the ratio.",
            _SPEC_ROWS,
            "Position 0: the draft always proposes A, whose acceptance probability min(1, p/q) is 1, so "
            "position 0 is always A instead of following p = (0.5, 0.3, 0.2, 0).",
            0,
        ),
        _rule(
            unprocessed_draft_in_ratio,
            lambda p, q: replace(correct_rule_tables(p, q), draft_rows=at_temperature(q, DRAFT_TEMPERATURE)),
            "You drew the draft tokens at temperature 0.5, from q' ∝ q², but put the unprocessed q in "
            "the ratio (and the residual); both must use the distribution the draft token was drawn from.",
            "A logits processor (temperature, top-k, top-p) applied to the draft's logits before "
            "sampling, while the acceptance ratio is computed from the draft's raw softmax.",
            _PERFECT_DRAFT_ROWS,
            "Position 0: the draft equals the target, q₀ = p₀ = (0.6, 0.3, 0.1), so every draft token "
            "passes and position 0 follows the sharpened q'₀ = (0.78, 0.20, 0.02) instead of p₀.",
            0,
        ),
        _rule(
            swapped_roles,
            lambda p, q: VerifyTables(
                draft_rows=q,
                acceptance=acceptance_table(q, p[:-1]),
                resample_rows=residual_rows(q, p[:-1]),
                bonus_row=p[-1],
            ),
            "You swapped p and q: the ratio is p(x)/q(x) (target over draft), and the residual is "
            "max(0, p − q).",
            "Mixing up notations: some papers and engines call the draft p and the target q.",
            _SPEC_ROWS,
            "Position 0: token D has p = 0, but q/p = ∞ accepts it whenever it is drafted and the "
            "residual max(0, q − p) favours it too: D comes out with probability 0.39.",
            0,
        ),
    )
}


@dataclass(frozen=True)
class EdgeCase:
    """A rule that is wrong only on vanishingly rare uniforms, the inputs that expose it and a fatal uniform."""

    name: str
    function: Callable[..., list]
    mistake: str
    real_world: str
    example: tuple
    """(target_probs, draft_probs, draft_tokens) as fresh arrays and a list."""
    fatal_uniform: float
    """The first uniform that exposes the mistake; `rigged_generator(fatal_uniform)` produces it."""
    symptom: str


def _edge_case_example(target, draft, tokens):
    return np.array(target, dtype=np.float64), np.array(draft, dtype=np.float64), list(tokens)


_ALMOST_EQUAL_ROWS = ((0.5 - 1e-9, 0.5), (0.5, 0.5)), ((0.5, 0.5),), (0,)

EDGE_CASES: dict[str, EdgeCase] = {
    "accept_on_equal": EdgeCase(
        "accept_on_equal",
        accept_on_equal,
        "You accepted when u <= p(x)/q(x); the comparison must be strict, u < p(x)/q(x).",
        "Accepting a token with p(x) = 0 when the uniform draw is exactly 0.",
        _edge_case_example(SPEC_TARGET_PROBS, SPEC_DRAFT_PROBS, (3, 0)),
        0.0,
        "With u = 0 it accepts token D, which the target gives probability 0.",
    ),
    "residual_without_fallback": EdgeCase(
        "residual_without_fallback",
        residual_without_fallback,
        "Your residual divides by its own mass, which is 0 when p ≤ q everywhere: 0/0 is NaN.",
        "A residual that is NaN when p == q (up to rounding).",
        _edge_case_example(*_ALMOST_EQUAL_ROWS),
        # Above the threshold (0.5 − 1e-9)/0.5, so the draft token is rejected.
        1.0 - 2.0**-53,
        "A rejection at rows with p ≤ q everywhere crashes the step with NaN probabilities.",
    ),
}
