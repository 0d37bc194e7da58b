"""The mistakes learners make: each a small wrong function, with the hint that names it beside it.

A `Mistake` is a wrong function written as a learner would write it, its mistake marked
``# the mistake``; the most specific come first. A `Symptom` is a mistake the failing case alone
gives away (NaN where max(0, p − q) has no mass, infinity at α = 1, …). The wrong verify steps are
`right_step` with one part changed (its acceptance test, its replacement) or written out in full
where the order of draws or the place it stops is the mistake; after a first implementation's slips
come the broken rules of notebook 03 (`specdec.broken_rules`), with its words.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..core import expected_tokens, speedup


@dataclass(frozen=True)
class Mistake:
    """A wrong implementation of one exercise, the hint that names it, and where real code made it."""

    name: str
    function: Callable
    hint: str
    in_practice: str | None = None


@dataclass(frozen=True)
class Symptom:
    """A mistake told by the failing case and the outcome alone, `shows(case, outcome)`, for problems of
    the given kinds ("value", "error", "draws") in the given exercises."""

    exercises: tuple[str, ...]
    kinds: tuple[str, ...]
    shows: Callable
    hint: str
    last_resort: bool = False


def residual(target, draft, fallback=None):
    """A learner's norm(max(0, p − q)), with a float copy of target (or `fallback`) when it has no mass."""
    excess = np.maximum(target - draft, 0.0)
    mass = excess.sum()
    return excess / mass if mass > 0 else np.array(target if fallback is None else fallback, dtype=float)


def without_fallback(target, draft):
    excess = np.maximum(target - draft, 0.0)
    return excess / excess.sum()  # the mistake: no fallback, 0/0 = NaN where max(0, p − q) has no mass


def unclipped(target, draft):
    difference = target - draft  # the mistake: not clipped at 0
    total = difference.sum()
    return difference / total if total > 0 else np.array(target, dtype=float)


def over_one_minus_alpha(target, draft):
    alpha = float(np.minimum(target, draft).sum())
    excess = np.maximum(target - draft, 0.0)
    return excess / (1 - alpha) if alpha < 1 else np.array(target, dtype=float)  # the mistake: 1 − α, not the sum


def accepts_without_drawing(rng, p_x, q_x) -> bool:
    return p_x >= q_x or rng.random() < p_x / q_x  # the mistake: no uniform drawn where p(x) ≥ q(x)


def accepts_on_equal(rng, p_x, q_x) -> bool:
    return rng.random() <= min(1.0, p_x / q_x)  # the mistake: <=, not <


def flipped(rng, p_x, q_x) -> bool:
    return rng.random() < (1.0 if q_x >= p_x else q_x / p_x)  # the mistake: min(1, q/p), not min(1, p/q)


def right_step(p, q, tokens, rng, accepts=lambda rng, p_x, q_x: rng.random() < min(1.0, p_x / q_x),
               replacement=residual):
    """A learner's verify step; the wrong steps change the part they pass in."""
    output = []
    for i, x in enumerate(tokens):
        if accepts(rng, p[i, x], q[i, x]):
            output.append(x)
            continue
        output.append(int(rng.choice(p.shape[1], p=replacement(p[i], q[i]))))
        return output
    return output + [int(rng.choice(p.shape[1], p=p[-1]))]


def replacement_before_uniform(p, q, tokens, rng):
    output = []
    for i, x in enumerate(tokens):
        replacement = int(rng.choice(p.shape[1], p=residual(p[i], q[i])))  # the mistake: drawn before u
        if rng.random() < min(1.0, p[i, x] / q[i, x]):
            output.append(x)
            continue
        return output + [replacement]
    return output + [int(rng.choice(p.shape[1], p=p[-1]))]


def step_with_ending(p, q, tokens, rng, ending):
    """A verify step whose rejection ends as `ending` says: "return" (right), "continue", "break" (then
    the bonus), "nothing" (no replacement), "argmax" (the residual's argmax); "no bonus" drops the bonus."""
    output = []
    for i, x in enumerate(tokens):
        if rng.random() < min(1.0, p[i, x] / q[i, x]):
            output.append(x)
            continue
        if ending == "nothing":
            return output  # the mistake: no replacement token is drawn or appended
        if ending == "argmax":
            return output + [int(np.argmax(residual(p[i], q[i])))]  # the mistake: the argmax, not a draw
        output.append(int(rng.choice(p.shape[1], p=residual(p[i], q[i]))))
        if ending == "continue":
            continue  # the mistake: no return, the loop goes on to the next draft token
        if ending == "break":
            break  # the mistake: break, then the bonus token is drawn too
        return output
    if ending == "no bonus":
        return output  # the mistake: no bonus token drawn from the target's last row
    return output + [int(rng.choice(p.shape[1], p=p[-1]))]


def _choice_without_p(p, q, tokens, rng, where):
    """A verify step that draws the replacement, the bonus or both (`where`) with rng.choice(V), no p=."""
    def draw(row, place):
        return int(rng.choice(p.shape[1]) if place in where else rng.choice(p.shape[1], p=row))  # the mistake

    for i, x in enumerate(tokens):
        if rng.random() >= min(1.0, p[i, x] / q[i, x]):
            return list(tokens[:i]) + [draw(residual(p[i], q[i]), "replacement")]
    return list(tokens) + [draw(p[-1], "bonus")]


CHOICE_WITHOUT_P = ("rng.choice(V) without p= draws every token with probability 1/V: pass the distribution, "
                    "rng.choice(V, p=residual) at a rejection and rng.choice(V, p=target_probs[-1]) for the bonus.")


def _uniforms_first(p, q, tokens, rng):
    uniforms = iter([rng.random() for _ in tokens])  # the mistake: every uniform drawn before the loop
    return right_step(p, q, tokens, rng, accepts=lambda rng, p_x, q_x: next(uniforms) < min(1.0, p_x / q_x))


def _one_uniform_for_all(p, q, tokens, rng):
    u = rng.random() if tokens else None  # the mistake: one uniform, drawn once before the loop
    return right_step(p, q, tokens, rng, accepts=lambda rng, p_x, q_x: u < min(1.0, p_x / q_x))


def _unprocessed_draft_in_ratio(p, q, tokens, rng):
    sharpened = q**2 / (q**2).sum(axis=1, keepdims=True)  # the mistake: tokens from q' ∝ q^(1/0.5), ratio with q
    return right_step(p, q, [int(rng.choice(p.shape[1], p=row)) for row in sharpened], rng)


def best_gamma(alpha, c, gammas=range(1, 21), better=lambda value, best: value > best) -> tuple[int, float]:
    """The right (γ, speedup) over γ = 1 … 20: the largest speedup, the smallest γ on a tie (the checker's
    reference); the wrong ones change the range or the comparison."""
    best = (None, -1.0)
    for gamma in gammas:
        value = speedup(alpha, gamma, c)
        if better(value, best[1]):
            best = (gamma, value)
    return best


def _argmax_as_gamma(alpha, c):
    values = [speedup(alpha, gamma, c) for gamma in range(1, 21)]
    best = int(np.argmax(values))
    return best, values[best]  # the mistake: the position in the list, not γ = position + 1


DRAW_ORDER = ("your draws are in a different order than the rule's: at each position draw u = rng.random(), "
              "compare it, and at a rejection draw the replacement right away with rng.choice and stop. "
              "Drawing all the uniforms first, or the replacement before u, makes other draws from the same stream "
              "(more of them, at least when a step stops early), so rng ends in another state and the same seed can "
              "give other tokens.")
STOP_AT_REJECTION = "stop at the first rejection: return right after appending the replacement token."
#: Opens the hint of a zoo rule that drafts its own tokens: in the exercise they are given.
IGNORED_TOKENS = "Your function ignored the draft_tokens it was given and {}: verify the tokens passed in. "
RESIDUAL_WITHOUT_FALLBACK = ("your residual divides by its own mass, which is 0 when p == q: 0/0 is NaN. When "
                             "max(0, p − q) sums to 0, return a float copy of target instead.")
FALLBACK_IS_TARGET = "when max(0, p − q) sums to 0, return a copy of target, not the uniform distribution or zeros."

#: Each exercise's wrong versions, the most specific first; each lambda is a learner's whole function.
MISTAKES: dict[str, list[Mistake]] = {
    "acceptance_rate": [
        Mistake("summed_max", lambda p, q: float(np.maximum(p, q).sum()),  # the mistake
                "α sums the overlap min(p(x), q(x)); you summed max(p(x), q(x))."),
        Mistake("total_variation_without_half", lambda p, q: float(1 - np.abs(p - q).sum()),  # the mistake
                "α = 1 − ½ Σ |p(x) − q(x)|, one minus the total variation distance: you left out the ½."),
        Mistake("total_variation", lambda p, q: float(0.5 * np.abs(p - q).sum()),  # the mistake
                "you returned the total variation distance ½ Σ |p(x) − q(x)|, which is 1 − α."),
        Mistake("summed_product", lambda p, q: float((p * q).sum()),  # the mistake
                "α is Σ min(p(x), q(x)), not Σ p(x)·q(x)."),
        Mistake("mean_not_sum", lambda p, q: float(np.minimum(p, q).mean()),  # the mistake
                "sum min(p(x), q(x)) over the tokens; you took the mean (the sum divided by V)."),
        Mistake("ratio_without_min", lambda p, q: float((q * (p / q)).sum()),  # the mistake
                "the acceptance probability is min(1, p(x)/q(x)): without the min, q(x)·p(x)/q(x) is just p(x), "
                "and the sum is 1 (or NaN wherever q(x) = 0, where q(x)·p(x)/q(x) is 0·∞ or 0·NaN)."),
        Mistake("summed_ratios", lambda p, q: float(np.minimum(1.0, p / q).sum()),  # the mistake
                "you summed the acceptance probabilities min(1, p(x)/q(x)); weight each by q(x), how often the "
                "draft proposes x: Σ q(x)·min(1, p(x)/q(x)) = Σ min(p(x), q(x))."),
    ],
    "residual_distribution": [
        Mistake("over_one_minus_alpha", over_one_minus_alpha,
                "you divided max(0, p − q) by 1 − α. The two are equal in exact arithmetic, but rows sum to 1 only "
                "up to rounding, so 1 − α can be positive (1e-9 in one case here) while max(0, p − q) sums to 0. "
                "Divide by the residual's own sum, and return a copy of target when that sum is 0."),
        Mistake("without_fallback", without_fallback, RESIDUAL_WITHOUT_FALLBACK),
        Mistake("uniform_fallback", lambda p, q: residual(p, q, np.full(p.shape, 1 / p.size)),  # the mistake
                FALLBACK_IS_TARGET),
        Mistake("zero_fallback", lambda p, q: residual(p, q, np.zeros_like(p)), FALLBACK_IS_TARGET),  # the mistake
        Mistake("unclipped", unclipped,
                "clip first, max(0, p − q): p − q itself sums to 0 (both rows sum to 1), so dividing by its sum "
                "gives a fallback or a division by a rounding error."),
        Mistake("not_normalised", lambda p, q: np.maximum(p - q, 0.0),  # the mistake
                "divide max(0, p − q) by its sum, so that the residual sums to 1."),
        Mistake("draft_minus_target", lambda p, q: residual(q, p, fallback=p),  # the mistake: q − p
                "the residual is max(0, p − q), target minus draft: it puts mass where the target wants more "
                "than the draft offered. You used q − p."),
        Mistake("absolute_difference", lambda p, q: residual(np.abs(p - q), 0.0 * p, fallback=p),  # the mistake
                "clip with max(0, p − q): |p − q| also counts the tokens the draft offered too much of, and those "
                "must not be drawn again."),
    ],
    "speculative_step": [
        Mistake("uniforms_first", _uniforms_first, DRAW_ORDER),
        Mistake("replacement_before_uniform", replacement_before_uniform, DRAW_ORDER),
        Mistake("continue_after_rejection", lambda *step: step_with_ending(*step, "continue"), STOP_AT_REJECTION),
        Mistake("bonus_after_rejection", lambda *step: step_with_ending(*step, "break"), STOP_AT_REJECTION),
        Mistake("no_replacement", lambda *step: step_with_ending(*step, "nothing"),
                "at a rejection, append a replacement token drawn from the residual: every step emits at least "
                "one token."),
        Mistake("greedy_replacement", lambda *step: step_with_ending(*step, "argmax"),
                "draw the replacement with rng.choice(V, p=residual); taking the residual's argmax is not a draw "
                "from it."),
        Mistake("uniform_only_when_needed", lambda *step: right_step(*step, accepts=accepts_without_drawing),
                "where p(x) ≥ q(x) you skipped the uniform, since the token passes anyway. Your tokens follow the "
                "right law, but the rule draws u = rng.random() at every position it visits, so yours uses the "
                "stream differently and the same seed gives other tokens: draw u first, then compare."),
        *(Mistake(name, lambda *step, where=where: _choice_without_p(*step, where), CHOICE_WITHOUT_P)
          for name, where in (("choice_without_p", ("replacement", "bonus")),
                              ("replacement_without_p", ("replacement",)), ("bonus_without_p", ("bonus",)))),
        Mistake("bonus_from_last_draft_row", lambda p, q, x, rng: right_step(p[:-1] if x else p, q, x, rng),
                # the mistake: with p[:-1], right_step's bonus row p[-1] is p_(γ-1)
                "draw the bonus from the target's last row, target_probs[-1] (p_γ, which scores the position after "
                "the last draft token); you drew it from the row of the last draft token."),
        Mistake("ratio_flipped", lambda *step: right_step(*step, accepts=flipped),
                "the acceptance probability is min(1, p(x)/q(x)), target over draft; you used q(x)/p(x)."),
        # The broken rules of notebook 03 (specdec.broken_rules).
        Mistake("resample_from_target", lambda *step: right_step(*step, replacement=lambda p, q: p),  # the mistake
                "You drew the resampled token from p, not from the residual norm(max(0, p − q)).",
                "Treating a rejection as an ordinary decoding step and sampling the target's own distribution, "
                "forgetting that the accepted draft tokens already supplied min(p, q)."),
        Mistake("resample_from_draft", lambda *step: right_step(*step, replacement=lambda p, q: q),  # the mistake
                "You drew the resampled token from q, the draft, not from the residual norm(max(0, p − q)).",
                "Reusing the draft model's sampler for the replacement token, so a rejected position is filled in "
                "by the model whose proposal was just refused."),
        Mistake("accept_with_target_probability",
                lambda *step: right_step(*step, accepts=lambda rng, p_x, q_x: rng.random() < p_x),  # the mistake
                "You accepted a token sampled from q with probability p(x), not min(1, p(x)/q(x)): q was dropped. "
                "p(x) is the right threshold only for a draft that does not sample (q = δₓ, the deterministic-draft "
                "rule of specdec.deterministic_draft).",
                "Reusing the deterministic-draft rule (accept with p(x), as engines do for a greedy or lookup "
                "draft) for a draft that samples from its softmax."),
        Mistake("always_accept", lambda *step: right_step(*step, accepts=lambda rng, p_x, q_x: True),  # the mistake
                "You never verified: every draft token was accepted.",
                "Trusting the draft without the target's check, which is deploying the small model under another "
                "name."),
        Mistake("drop_bonus_token", lambda *step: step_with_ending(*step, "no bonus"),
                "You dropped the bonus token: when every draft token passed, the step should still add one token "
                "drawn from the target's last row p_γ.",
                "An off-by-one in the verify step that forgets the target pass also scored the position after the "
                "last draft token; the text stays right, but a step in which all γ draft tokens pass yields one "
                "token fewer, so the mean tokens per step falls below the theory's."),
        Mistake("one_uniform_for_all", _one_uniform_for_all,
                "You drew one uniform for the whole step and compared it at every position; each position needs "
                "its own.",
                "A random number generated once per step (or a random stream seeded identically at every position) "
                "instead of once per position."),
        Mistake("greedy_draft", lambda p, q, x, rng: right_step(p, q, np.argmax(q, 1).tolist(), rng),  # the mistake
                IGNORED_TOKENS.format("proposed the argmax of each row of q")
                + "You drafted greedily (the argmax of q) but used q in the ratio; the ratio p/q is only right for "
                "tokens sampled from q. A greedy draft's distribution is the point mass δₓ: accept with p(x) and "
                "resample from p without x (specdec.deterministic_draft).",
                "A draft model decoded greedily while its softmax is used as q — the limit T → 0 of processing the "
                "draft's logits for sampling but not for the ratio."),
        Mistake("unprocessed_draft_in_ratio", _unprocessed_draft_in_ratio,
                IGNORED_TOKENS.format("drew tokens of its own")
                + "You drew the draft tokens at temperature 0.5, from q' ∝ q², but put the unprocessed q in the ratio "
                "(and the residual); both must use the distribution the draft token was drawn from.",
                "A logits processor (temperature, top-k, top-p) applied to the draft's logits before sampling, while "
                "the acceptance ratio is computed from the draft's raw softmax."),
        Mistake("swapped_roles", lambda *step: right_step(*step, accepts=flipped,  # the mistake: max(0, q − p) too
                                                          replacement=lambda p_i, q_i: residual(q_i, p_i)),
                "You swapped p and q: the ratio is p(x)/q(x) (target over draft), and the residual is max(0, p − q).",
                "Mixing up notations: some papers and engines call the draft p and the target q."),
        Mistake("accept_on_equal", lambda *step: right_step(*step, accepts=accepts_on_equal),
                "You accepted when u <= p(x)/q(x); the comparison must be strict, u < p(x)/q(x).",
                "Accepting a token with p(x) = 0 when the uniform draw is exactly 0."),
        Mistake("residual_without_fallback", lambda *step: right_step(*step, replacement=without_fallback),
                "Your residual divides by its own mass, which is 0 when p ≤ q everywhere: 0/0 is NaN.",
                "A residual that is NaN when p == q (up to rounding)."),
    ],
    "expected_tokens": [
        Mistake("exponent_gamma", lambda a, g: (1 - a**g) / (1 - a) if a < 1 else float(g),  # the mistake
                "(1 − α^γ)/(1 − α) = 1 + α + … + α^(γ−1) leaves out α^γ, the chance that all γ draft tokens pass "
                "and the bonus token comes too: a step yields up to γ + 1 tokens, so the exponent is γ + 1."),
        Mistake("untruncated", lambda a, g: 1 / (1 - a) if a < 1 else float("inf"),  # the mistake
                "1/(1 − α) is the mean of a run that never stops; a step stops after γ draft tokens: "
                "(1 − α^(γ+1))/(1 − α)."),
        Mistake("only_accepted", lambda a, g: expected_tokens(a, g) - 1,  # the mistake
                "you counted only the accepted draft tokens; every step also yields one more token (the "
                "replacement or the bonus)."),
    ],
    "speedup": [
        Mistake("cost_times_c", lambda a, g, c: expected_tokens(a, g) / (1 + g * c),  # the mistake
                "c is how many times faster the draft is: a draft pass costs 1/c of a target pass, so a step costs "
                "1 + γ/c, not 1 + γ·c (Leviathan et al.'s c is the reciprocal, a draft pass over a target pass, "
                "hence their γc + 1)."),
        Mistake("cost_without_target", lambda a, g, c: expected_tokens(a, g) / (g / c),  # the mistake
                "a step also runs the target once: its cost is 1 + γ/c, not γ/c."),
        Mistake("floor_division", lambda a, g, c: expected_tokens(a, g) / (1 + g // c),  # the mistake
                "γ/c is a true division: gamma // c rounds down to a whole number, 0 whenever γ < c, as if the "
                "draft were free. Write 1 + gamma / c."),
        Mistake("no_cost", lambda a, g, c: expected_tokens(a, g),  # the mistake
                "divide the expected tokens by the cost of the step, 1 + γ/c target passes."),
        Mistake("cost_gamma_plus_one", lambda a, g, c: expected_tokens(a, g) / (1 + (g + 1) / c),  # the mistake
                "a step runs γ draft passes, one per draft token, not γ + 1: its cost is 1 + γ/c."),
    ],
    "optimal_gamma": [
        Mistake("tie_to_largest", lambda a, c: best_gamma(a, c, better=lambda new, best: new >= best),  # the mistake
                "on a tie keep the smallest γ: replace the best only when a speedup is strictly larger (>, not >=). "
                "np.argmax already returns the first maximum."),
        Mistake("argmax_as_gamma", _argmax_as_gamma,
                "np.argmax gives the position of the best speedup in your list, counted from 0, while γ starts at 1: "
                "return int(np.argmax(values)) + 1 with its speedup."),
        Mistake("range_end", lambda a, c: best_gamma(a, c, range(1, 20)),  # the mistake
                "γ runs from 1 to 20 inclusive: range(1, 21) — range(1, 20) stops at 19."),
        Mistake("range_to_ten", lambda a, c: best_gamma(a, c, range(1, 11)),  # the mistake
                "search γ = 1 … 20, range(1, 21): a search that stops at γ = 10 misses the best draft length at high "
                "α (13 at α = 0.9 and c = 20)."),
        Mistake("range_start", lambda a, c: best_gamma(a, c, range(0, 21)),  # the mistake
                "γ starts at 1: γ = 0 is plain decoding, not a draft length."),
    ],
}


def not_finite(value) -> bool:
    if isinstance(value, (tuple, list)) and len(value) == 2:  # optimal_gamma's (γ, speedup)
        value = value[1]
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(-1)[0]
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and not math.isfinite(value)


def no_gamma_chosen(value) -> bool:
    return isinstance(value, (tuple, list)) and len(value) == 2 and value[0] is None


SYMPTOMS = [
    Symptom(("expected_tokens",), ("error", "value"), lambda case, got: "alpha_one" in case.tags
            and (isinstance(got.error, ZeroDivisionError) or not_finite(got.value) or got.value == 0),  # 0: 0/ε
            "at α = 1 the formula divides by zero (1 − α = 0). There every draft token is accepted and a step yields "
            "γ + 1 tokens: return float(gamma + 1) when alpha == 1."),
    Symptom(("speedup", "optimal_gamma"), ("error", "value", "type"), lambda case, got: "alpha_one" in case.tags
            and (isinstance(got.error, ZeroDivisionError) or not_finite(got.value) or no_gamma_chosen(got.value)),
            "at α = 1 the formula for the expected tokens divides by zero (1 − α = 0), giving an error or NaN (and "
            "a comparison with NaN is always False, so a search keeps no γ). There every draft token passes and a "
            "step yields γ + 1 tokens: the speedup is (γ + 1)/(1 + γ/c)."),
    Symptom(("speedup",), ("value",), lambda case, got: "free_draft" in case.tags and not_finite(got.value),
            "at c = ∞ (a free draft), c/(c + γ) is ∞/∞ = NaN: write the step's cost as 1 + γ/c, which is 1 there."),
    Symptom(("speculative_step", "deterministic_step"), ("value", "draws"), lambda case, got: got.rng_state
            == case.generator().bit_generator.state, "your function never drew from rng, the generator it was "
            "given: use rng.random() for each uniform and rng.choice(V, p=…) for the last token."),
    Symptom(("acceptance_rate",), ("value",), lambda case, got: "zero_over_zero" in case.tags and not_finite(got.value),
            "at a token neither model can produce, p(x)/q(x) is 0/0 = NaN, and one NaN makes the sum NaN. "
            "α = Σ min(p(x), q(x)) needs no division: np.minimum(p, q).sum()."),
    Symptom(("residual_distribution",), ("value",), lambda case, got: "zero_residual" in case.tags
            and np.isnan(np.asarray(got.value, float)).any(), RESIDUAL_WITHOUT_FALLBACK),
    Symptom(("residual_distribution",), ("value",), lambda case, got: (np.asarray(got.value, float) < 0).any(),
            "clip the negative differences to 0 with np.maximum(p - q, 0) before you normalise."),
    Symptom(("speculative_step",), ("error",), lambda case, got: "zero_residual" in case.tags
            and "NaN" in got.error_text, RESIDUAL_WITHOUT_FALLBACK, last_resort=True),
    Symptom(("speculative_step",), ("error",), lambda case, got: "no_draft_rows" in case.tags
            and isinstance(got.error, IndexError), "at γ = 0 there are no draft tokens and draft_probs has no rows: "
            "take V and the bonus row from target_probs (V = len(target_probs[0]), target_probs[-1]), which every "
            "step has."),
    Symptom(("speculative_step",), ("error",), lambda case, got: "sum to 1" in got.error_text,
            "rng.choice needs probabilities that sum to 1: divide the residual max(0, p − q) by its sum before you "
            "draw from it.", last_resort=True),
]
