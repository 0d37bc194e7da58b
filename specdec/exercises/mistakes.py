"""The mistakes learners make, each with the hint that names it, written beside it.

Two kinds. A `Mistake` is a wrong version of an exercise, registered with ``@mistake(exercise,
hint)``: the checker runs it on the same cases as the learner's function, and if the learner's
outputs are its outputs, its hint is the one shown. A `Symptom` is a mistake that the failing case
alone gives away (NaN where max(0, p − q) has no mass, infinity at α = 1, …), tried before the
wrong versions are run; a `last_resort` symptom only if none of them matches.

Each wrong version marks its mistake with the comment ``# the mistake``; everything else is right,
so only the mistake changes the outputs. The wrong verify steps — the slips of a first
implementation: drawing in another order (which changes the tokens a seed gives, not the output
law), going on after a rejection, forgetting the replacement, taking the residual's argmax, the
ratio upside down — are written exactly like `specdec.core.verify`, so that a line diff against it
shows only the marked lines (tests/test_rule_variants.py). After them come the broken rules of
`specdec.broken_rules`, which notebook 03 studies, with their own words.

>>> [m.name for m in MISTAKES["expected_tokens"]]
['exponent_gamma', 'untruncated', 'only_accepted']
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..broken_rules import BROKEN_RULES, EDGE_CASES
from ..core import check_step_arguments, expected_tokens, normalised_for_choice, unchecked_residual
from ..theory import speedup


@dataclass(frozen=True)
class Mistake:
    """A wrong implementation of one exercise and the hint that names what is wrong with it."""

    name: str
    function: Callable
    hint: str
    in_practice: str | None = None
    """Where real code made the same mistake, if known."""


@dataclass(frozen=True)
class Symptom:
    """A mistake told by the failing case and the learner's outcome alone: `shows(case, outcome)`."""

    exercises: tuple[str, ...]
    kinds: tuple[str, ...]
    """The kinds of problem it can explain ("value", "error", "draws")."""
    shows: Callable
    hint: str
    last_resort: bool = False


#: Each exercise's wrong versions, the most specific first: the first the learner reproduces is named.
MISTAKES: dict[str, list[Mistake]] = {}


def mistake(exercise: str, hint: str):
    """Register the decorated function as a known wrong version of `exercise`, named by `hint`."""
    def register(function):
        MISTAKES.setdefault(exercise, []).append(Mistake(function.__name__.lstrip("_"), function, hint))
        return function
    return register


def _not_finite(value) -> bool:
    if isinstance(value, (tuple, list)) and len(value) == 2:  # optimal_gamma's (γ, speedup)
        value = value[1]
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(-1)[0]
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and not math.isfinite(value)


def _arrays(target, draft):
    return np.asarray(target, dtype=np.float64), np.asarray(draft, dtype=np.float64)


# --- acceptance_rate -----------------------------------------------------------------------------

@mistake("acceptance_rate", "α sums the overlap min(p(x), q(x)); you summed max(p(x), q(x)).")
def _summed_max(target, draft):
    p, q = _arrays(target, draft)
    return float(np.maximum(p, q).sum())  # the mistake


@mistake("acceptance_rate", "you returned the total variation distance ½ Σ |p(x) − q(x)|, which is 1 − α.")
def _total_variation(target, draft):
    p, q = _arrays(target, draft)
    return float(0.5 * np.abs(p - q).sum())  # the mistake


@mistake("acceptance_rate", "α is Σ min(p(x), q(x)), not Σ p(x)·q(x).")
def _summed_product(target, draft):
    p, q = _arrays(target, draft)
    return float((p * q).sum())  # the mistake


@mistake("acceptance_rate", "sum min(p(x), q(x)) over the tokens; you took the mean (the sum divided by V).")
def _mean_not_sum(target, draft):
    p, q = _arrays(target, draft)
    return float(np.minimum(p, q).mean())  # the mistake


@mistake("acceptance_rate", "you summed the acceptance probabilities min(1, p(x)/q(x)); weight each by q(x), how "
                            "often the draft proposes x: Σ q(x)·min(1, p(x)/q(x)) = Σ min(p(x), q(x)).")
def _summed_ratios(target, draft):
    p, q = _arrays(target, draft)
    return float(np.minimum(1.0, p / q).sum())  # the mistake


ZERO_OVER_ZERO = ("at a token neither model can produce, p(x)/q(x) is 0/0 = NaN, and one NaN makes the sum NaN. "
                  "α = Σ min(p(x), q(x)) needs no division: np.minimum(p, q).sum().")

# --- residual_distribution -----------------------------------------------------------------------

RESIDUAL_WITHOUT_FALLBACK = ("your residual divides by its own mass, which is 0 when p == q: 0/0 is NaN. When "
                             "max(0, p − q) sums to 0, return a float copy of target instead.")
FALLBACK_IS_TARGET = "when max(0, p − q) sums to 0, return a copy of target, not the uniform distribution or zeros."
NOT_CLIPPED = "clip the negative differences to 0 with np.maximum(p - q, 0) before you normalise."


def _with_fallback(excess, p):
    mass = excess.sum()
    return excess / mass if mass > 0 else p.copy()


@mistake("residual_distribution", RESIDUAL_WITHOUT_FALLBACK)
def _without_fallback(target, draft):
    p, q = _arrays(target, draft)
    excess = np.maximum(p - q, 0.0)
    return excess / excess.sum()  # the mistake


@mistake("residual_distribution", FALLBACK_IS_TARGET)
def _uniform_fallback(target, draft):
    p, q = _arrays(target, draft)
    excess = np.maximum(p - q, 0.0)
    mass = excess.sum()
    return excess / mass if mass > 0 else np.full(p.shape, 1.0 / p.size)  # the mistake


@mistake("residual_distribution", FALLBACK_IS_TARGET)
def _zero_fallback(target, draft):
    p, q = _arrays(target, draft)
    excess = np.maximum(p - q, 0.0)
    mass = excess.sum()
    return excess / mass if mass > 0 else np.zeros_like(p)  # the mistake


@mistake("residual_distribution", "divide max(0, p − q) by its sum, so that the residual sums to 1.")
def _not_normalised(target, draft):
    p, q = _arrays(target, draft)
    return np.maximum(p - q, 0.0)  # the mistake


@mistake("residual_distribution", "the residual is max(0, p − q), target minus draft: it puts mass where the "
                                  "target wants more than the draft offered. You used q − p.")
def _draft_minus_target(target, draft):
    p, q = _arrays(target, draft)
    return _with_fallback(np.maximum(q - p, 0.0), p)  # the mistake


@mistake("residual_distribution", "clip with max(0, p − q): |p − q| also counts the tokens the draft offered too "
                                  "much of, and those must not be drawn again.")
def _absolute_difference(target, draft):
    p, q = _arrays(target, draft)
    return _with_fallback(np.abs(p - q), p)  # the mistake


# --- speculative_step ----------------------------------------------------------------------------
# Each is `check_step_arguments` followed by a copy of `specdec.core.verify`'s loop without its tracing
# lines; only the lines that end with `# the mistake` differ (tests/test_rule_variants.py).

DRAW_ORDER = ("your draws are in a different order than the rule's: at each position draw u = rng.random(), "
              "compare it, and at a rejection draw the replacement right away with rng.choice and stop. "
              "Drawing all the uniforms first, or the replacement before u, uses the same stream in another "
              "order, so the same seed gives other tokens.")
STOP_AT_REJECTION = "stop at the first rejection: return right after appending the replacement token."


@mistake("speculative_step", DRAW_ORDER)
def _uniforms_first(target_probs, draft_probs, draft_tokens, rng):
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    uniforms = [rng.random() for _ in tokens]  # the mistake: every uniform drawn before the loop
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        u = uniforms[i]  # the mistake
        if u < threshold:
            output.append(token)
            continue
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


@mistake("speculative_step", DRAW_ORDER)
def _replacement_before_uniform(target_probs, draft_probs, draft_tokens, rng):
    target, draft, tokens, rng = check_step_arguments(target_probs, draft_probs, draft_tokens, rng)
    vocab = target.shape[1]
    output: list[int] = []
    for i, token in enumerate(tokens):
        p_x = target.item(i, token)
        q_x = draft.item(i, token)
        threshold = min(1.0, p_x / q_x)
        residual = unchecked_residual(target[i], draft[i])  # the mistake: the replacement is drawn
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))  # the mistake: before u
        u = rng.random()
        if u < threshold:
            output.append(token)
            continue
        # the mistake: no draw here, the replacement was drawn before u
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


@mistake("speculative_step", STOP_AT_REJECTION)
def _continue_after_rejection(target_probs, draft_probs, draft_tokens, rng):
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
        # the mistake: no return, the loop goes on to the next draft token
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


@mistake("speculative_step", STOP_AT_REJECTION)
def _bonus_after_rejection(target_probs, draft_probs, draft_tokens, rng):
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
        break  # the mistake: break, then the bonus token is drawn too
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


@mistake("speculative_step", "at a rejection, append a replacement token drawn from the residual: every step "
                             "emits at least one token.")
def _no_replacement(target_probs, draft_probs, draft_tokens, rng):
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
        # the mistake: no replacement token is drawn or appended
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


@mistake("speculative_step", "draw the replacement with rng.choice(V, p=residual); taking the residual's argmax "
                             "is not a draw from it.")
def _greedy_replacement(target_probs, draft_probs, draft_tokens, rng):
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
        resampled = int(np.argmax(residual))  # the mistake: the argmax, not a draw
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


@mistake("speculative_step", "the acceptance probability is min(1, p(x)/q(x)), target over draft; you used "
                             "q(x)/p(x).")
def _ratio_flipped(target_probs, draft_probs, draft_tokens, rng):
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
        residual = unchecked_residual(target[i], draft[i])
        resampled = int(rng.choice(vocab, p=normalised_for_choice(residual)))
        output.append(resampled)
        return output
    output.append(int(rng.choice(vocab, p=normalised_for_choice(target[-1]))))
    return output


MISTAKES["speculative_step"] += [Mistake(rule.name, rule.function, rule.mistake, rule.real_world)
                                 for rule in (*BROKEN_RULES.values(), *EDGE_CASES.values())]

# --- expected_tokens, speedup, optimal_gamma -----------------------------------------------------

ALPHA_ONE = ("at α = 1 the formula divides by zero (1 − α = 0). There every draft token is accepted and a step "
             "yields γ + 1 tokens: return float(gamma + 1) when alpha == 1.")


@mistake("expected_tokens", "(1 − α^γ)/(1 − α) is one token short: a step yields up to γ + 1 tokens, so the "
                            "exponent is γ + 1.")
def _exponent_gamma(alpha, gamma):
    return (1 - alpha**gamma) / (1 - alpha) if alpha < 1 else float(gamma)  # the mistake


@mistake("expected_tokens", "1/(1 − α) is the mean of a run that never stops; a step stops after γ draft tokens: "
                            "(1 − α^(γ+1))/(1 − α).")
def _untruncated(alpha, gamma):
    return 1 / (1 - alpha) if alpha < 1 else float("inf")  # the mistake


@mistake("expected_tokens", "you counted only the accepted draft tokens; every step also yields one more token "
                            "(the replacement or the bonus).")
def _only_accepted(alpha, gamma):
    return expected_tokens(alpha, gamma) - 1  # the mistake


@mistake("speedup", "c is how many times faster the draft is: a draft pass costs 1/c of a target pass, so a step "
                    "costs 1 + γ/c, not 1 + γ·c.")
def _cost_times_c(alpha, gamma, c):
    return expected_tokens(alpha, gamma) / (1 + gamma * c)  # the mistake


@mistake("speedup", "a step also runs the target once: its cost is 1 + γ/c, not γ/c.")
def _cost_without_target(alpha, gamma, c):
    return expected_tokens(alpha, gamma) / (gamma / c)  # the mistake


@mistake("speedup", "divide the expected tokens by the cost of the step, 1 + γ/c target passes.")
def _no_cost(alpha, gamma, c):
    return expected_tokens(alpha, gamma)  # the mistake


@mistake("speedup", "a step runs γ draft passes, one per draft token, not γ + 1: its cost is 1 + γ/c.")
def _cost_gamma_plus_one(alpha, gamma, c):
    return expected_tokens(alpha, gamma) / (1 + (gamma + 1) / c)  # the mistake


def _best(alpha, c, gammas, better):
    best_gamma, best_speedup = None, -1.0
    for gamma in gammas:
        value = speedup(alpha, gamma, c)
        if better(value, best_speedup):
            best_gamma, best_speedup = gamma, value
    return best_gamma, best_speedup


@mistake("optimal_gamma", "on a tie keep the smallest γ: replace the best only when a speedup is strictly larger "
                          "(>, not >=). np.argmax already returns the first maximum.")
def _tie_to_largest(alpha, c):
    return _best(alpha, c, range(1, 21), lambda value, best: value >= best)  # the mistake


@mistake("optimal_gamma", "np.argmax gives the position of the best speedup in your list, counted from 0, while "
                          "γ starts at 1: return int(np.argmax(values)) + 1 with its speedup.")
def _argmax_as_gamma(alpha, c):
    values = [speedup(alpha, gamma, c) for gamma in range(1, 21)]
    best = int(np.argmax(values))
    return best, values[best]  # the mistake: the position in the list, not γ = position + 1


@mistake("optimal_gamma", "γ runs from 1 to 20 inclusive: range(1, 21) — range(1, 20) stops at 19.")
def _range_end(alpha, c):
    return _best(alpha, c, range(1, 20), lambda value, best: value > best)  # the mistake


@mistake("optimal_gamma", "γ starts at 1: γ = 0 is plain decoding, not a draft length.")
def _range_start(alpha, c):
    return _best(alpha, c, range(0, 21), lambda value, best: value > best)  # the mistake


# --- Told by the failing case ----------------------------------------------------------------------

SYMPTOMS = (
    Symptom(("expected_tokens", "speedup", "optimal_gamma"), ("error", "value"),
            lambda case, got: "alpha_one" in case.tags
            and (isinstance(got.error, ZeroDivisionError) or _not_finite(got.value)), ALPHA_ONE),
    Symptom(("speculative_step",), ("value", "draws"),
            lambda case, got: got.rng_state == case.generator().bit_generator.state,
            "your function never drew from rng, the generator it was given: use rng.random() for each uniform "
            "and rng.choice(V, p=…) for the last token."),
    Symptom(("acceptance_rate",), ("value",),
            lambda case, got: "zero_over_zero" in case.tags and _not_finite(got.value), ZERO_OVER_ZERO),
    Symptom(("residual_distribution",), ("value",),
            lambda case, got: "zero_residual" in case.tags and np.isnan(np.asarray(got.value, float)).any(),
            RESIDUAL_WITHOUT_FALLBACK),
    Symptom(("residual_distribution",), ("value",), lambda case, got: (np.asarray(got.value, float) < 0).any(),
            NOT_CLIPPED),
    Symptom(("speculative_step",), ("error",),
            lambda case, got: "zero_residual" in case.tags and "NaN" in got.error_text, RESIDUAL_WITHOUT_FALLBACK,
            last_resort=True),
    Symptom(("speculative_step",), ("error",), lambda case, got: "sum to 1" in got.error_text,
            "rng.choice needs probabilities that sum to 1: divide the residual max(0, p − q) by its sum before you "
            "draw from it.", last_resort=True),
)
