"""Wrong versions of each exercise, the ones learners write, each with the hint that names its mistake.

The checker runs them on the same cases as the learner's function: if the learner's outputs are
the outputs of one of them, that mistake is the one to name. For the verify step this catalogue
adds to the broken rules of `specdec.broken_rules` (which notebook 03 studies) the slips of a first
implementation: drawing in another order (which changes the tokens a seed gives, not the output
law), going on after a rejection, forgetting the replacement, taking the residual's argmax, and the
ratio written upside down.

Each wrong version marks its mistake with the comment ``# the mistake``; everything else is right,
so that only the mistake changes the outputs. The wrong verify steps are written exactly like
`specdec.core.verify`, so that a line diff against it shows only the marked lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import hints
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


# --- acceptance_rate -----------------------------------------------------------------------------

def _arrays(target, draft):
    return np.asarray(target, dtype=np.float64), np.asarray(draft, dtype=np.float64)


def _summed_max(target, draft):
    p, q = _arrays(target, draft)
    return float(np.maximum(p, q).sum())  # the mistake


def _total_variation(target, draft):
    p, q = _arrays(target, draft)
    return float(0.5 * np.abs(p - q).sum())  # the mistake


def _summed_product(target, draft):
    p, q = _arrays(target, draft)
    return float((p * q).sum())  # the mistake


def _mean_not_sum(target, draft):
    p, q = _arrays(target, draft)
    return float(np.minimum(p, q).mean())  # the mistake


def _summed_ratios(target, draft):
    p, q = _arrays(target, draft)
    return float(np.minimum(1.0, p / q).sum())  # the mistake


# --- residual_distribution -----------------------------------------------------------------------

def _with_fallback(excess, p):
    mass = excess.sum()
    return excess / mass if mass > 0 else p.copy()


def _without_fallback(target, draft):
    p, q = _arrays(target, draft)
    excess = np.maximum(p - q, 0.0)
    return excess / excess.sum()  # the mistake


def _uniform_fallback(target, draft):
    p, q = _arrays(target, draft)
    excess = np.maximum(p - q, 0.0)
    mass = excess.sum()
    return excess / mass if mass > 0 else np.full(p.shape, 1.0 / p.size)  # the mistake


def _zero_fallback(target, draft):
    p, q = _arrays(target, draft)
    excess = np.maximum(p - q, 0.0)
    mass = excess.sum()
    return excess / mass if mass > 0 else np.zeros_like(p)  # the mistake


def _not_normalised(target, draft):
    p, q = _arrays(target, draft)
    return np.maximum(p - q, 0.0)  # the mistake


def _draft_minus_target(target, draft):
    p, q = _arrays(target, draft)
    return _with_fallback(np.maximum(q - p, 0.0), p)  # the mistake


def _absolute_difference(target, draft):
    p, q = _arrays(target, draft)
    return _with_fallback(np.abs(p - q), p)  # the mistake


# --- speculative_step ----------------------------------------------------------------------------
# Each is `check_step_arguments` followed by a copy of `specdec.core.verify`'s loop without its tracing
# lines; only the lines that end with `# the mistake` differ (tests/test_rule_variants.py).

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


# --- expected_tokens, speedup, optimal_gamma -----------------------------------------------------

def _exponent_gamma(alpha, gamma):
    return (1 - alpha**gamma) / (1 - alpha) if alpha < 1 else float(gamma)  # the mistake


def _untruncated(alpha, gamma):
    return 1 / (1 - alpha) if alpha < 1 else float("inf")  # the mistake


def _only_accepted(alpha, gamma):
    return expected_tokens(alpha, gamma) - 1  # the mistake


def _cost_times_c(alpha, gamma, c):
    return expected_tokens(alpha, gamma) / (1 + gamma * c)  # the mistake


def _cost_without_target(alpha, gamma, c):
    return expected_tokens(alpha, gamma) / (gamma / c)  # the mistake


def _no_cost(alpha, gamma, c):
    return expected_tokens(alpha, gamma)  # the mistake


def _cost_gamma_plus_one(alpha, gamma, c):
    return expected_tokens(alpha, gamma) / (1 + (gamma + 1) / c)  # the mistake


def _best(alpha, c, gammas, better):
    best_gamma, best_speedup = None, -1.0
    for gamma in gammas:
        value = speedup(alpha, gamma, c)
        if better(value, best_speedup):
            best_gamma, best_speedup = gamma, value
    return best_gamma, best_speedup


def _tie_to_largest(alpha, c):
    return _best(alpha, c, range(1, 21), lambda value, best: value >= best)  # the mistake


def _range_end(alpha, c):
    return _best(alpha, c, range(1, 20), lambda value, best: value > best)  # the mistake


def _range_start(alpha, c):
    return _best(alpha, c, range(0, 21), lambda value, best: value > best)  # the mistake


# Each exercise's known mistakes, the most specific first: the checker names the first one whose
# outputs the learner's function reproduces.

ACCEPTANCE_RATE_MISTAKES = (
    Mistake("summed_max", _summed_max, hints.SUMMED_MAX),
    Mistake("total_variation", _total_variation, hints.TOTAL_VARIATION),
    Mistake("summed_product", _summed_product, hints.SUMMED_PRODUCT),
    Mistake("mean_not_sum", _mean_not_sum, hints.MEAN_NOT_SUM),
    Mistake("summed_ratios", _summed_ratios, hints.SUMMED_RATIOS),
)

RESIDUAL_MISTAKES = (
    Mistake("without_fallback", _without_fallback, hints.RESIDUAL_WITHOUT_FALLBACK),
    Mistake("uniform_fallback", _uniform_fallback, hints.FALLBACK_IS_TARGET),
    Mistake("zero_fallback", _zero_fallback, hints.FALLBACK_IS_TARGET),
    Mistake("not_normalised", _not_normalised, hints.NOT_NORMALISED),
    Mistake("draft_minus_target", _draft_minus_target, hints.DRAFT_MINUS_TARGET),
    Mistake("absolute_difference", _absolute_difference, hints.ABSOLUTE_DIFFERENCE),
)

#: The slips of a first implementation, then the broken rules that notebook 03 studies.
STEP_MISTAKES = (
    Mistake("uniforms_first", _uniforms_first, hints.DRAW_ORDER),
    Mistake("replacement_before_uniform", _replacement_before_uniform, hints.DRAW_ORDER),
    Mistake("continue_after_rejection", _continue_after_rejection, hints.STOP_AT_REJECTION),
    Mistake("bonus_after_rejection", _bonus_after_rejection, hints.STOP_AT_REJECTION),
    Mistake("no_replacement", _no_replacement, hints.REPLACEMENT_MISSING),
    Mistake("greedy_replacement", _greedy_replacement, hints.GREEDY_REPLACEMENT),
    Mistake("ratio_flipped", _ratio_flipped, hints.RATIO_FLIPPED),
) + tuple(
    Mistake(rule.name, rule.function, rule.mistake, rule.real_world)
    for rule in (*BROKEN_RULES.values(), *EDGE_CASES.values())
)

EXPECTED_TOKENS_MISTAKES = (
    Mistake("exponent_gamma", _exponent_gamma, hints.EXPONENT_GAMMA),
    Mistake("untruncated", _untruncated, hints.UNTRUNCATED),
    Mistake("only_accepted", _only_accepted, hints.ONLY_ACCEPTED),
)

SPEEDUP_MISTAKES = (
    Mistake("cost_times_c", _cost_times_c, hints.COST_TIMES_C),
    Mistake("cost_without_target", _cost_without_target, hints.COST_WITHOUT_TARGET),
    Mistake("no_cost", _no_cost, hints.NO_COST),
    Mistake("cost_gamma_plus_one", _cost_gamma_plus_one, hints.COST_GAMMA_PLUS_ONE),
)

OPTIMAL_GAMMA_MISTAKES = (
    Mistake("tie_to_largest", _tie_to_largest, hints.TIE),
    Mistake("range_end", _range_end, hints.RANGE_END),
    Mistake("range_start", _range_start, hints.RANGE_START),
)
