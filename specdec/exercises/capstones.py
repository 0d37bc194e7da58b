"""Two capstone exercises, checked with the checker's machinery: `check_capstone(name, function)`.

* ``roll_back_caches``: after a verify step, what the target's and the draft's KV caches keep. The
  verify pass wrote the pending token and the γ draft tokens into the target's cache; only the
  pending token and the k accepted ones may stay. The draft ran on the pending token and
  d₁ … d_{γ−1}: after a rejection it is cropped the same way; after a full acceptance it has not
  seen d_γ and catches up on it. Either way both caches then hold the same text, and the token the
  step emitted last has no keys yet (it is the next pass's first position). This is the engine
  model of `specdec.serving.kv_cache_steps`, with each cache slot shown as the token it holds.
* ``deterministic_step``: verify tokens proposed without sampling (a greedy or lookup draft, q = δₓ):
  accept xᵢ when u < pᵢ(xᵢ), else draw from pᵢ without xᵢ, renormalised
  (`specdec.deterministic_draft.deterministic_draft_step`, whose draws the check compares).

Each known mistake is a small wrong function marked ``# the mistake``, registered beside its hint
with the six exercises' mistakes (`specdec.exercises.mistakes.MISTAKES`).

>>> def roll_back_caches(target_slots, draft_slots, draft_tokens, emitted):
...     raise NotImplementedError
>>> print(check_capstone("roll_back_caches", roll_back_caches).headline)
✗ roll_back_caches: not implemented yet
"""

from __future__ import annotations

import functools

import numpy as np

from ..deterministic_draft import deterministic_draft_step
from ..validation import checked
from .cases import SPEC_TARGET_PROBS, Case, frozen
from .checker import (CHECK_ARGUMENTS, TIME_LIMIT, TOKENS, CheckResult, Exercise, Problem, ResultKind, as_tokens,
                      check_exercise, describe_type, exercise_name)
from .mistakes import MISTAKES, STOP_AT_REJECTION, Mistake

# --- Rolling the caches back -----------------------------------------------------------------------


def roll_back_caches(target_slots, draft_slots, draft_tokens, emitted) -> tuple[list[int], list[int]]:
    """The target's and the draft's cache slots after one verify step, as new lists.

    `target_slots` ends with the pending token and the γ draft tokens (what the verify pass wrote);
    `draft_slots` ends with the pending token and the first γ − 1 draft tokens; `emitted` is the
    step's output, k accepted draft tokens then one resampled or bonus token.

    >>> roll_back_caches([7, 5, 1, 2, 3], [7, 5, 1, 2], [1, 2, 3], [1, 4])  # k = 1: keeps 7, 5 (pending), 1
    ([7, 5, 1], [7, 5, 1])
    >>> roll_back_caches([7, 5, 1, 2], [7, 5, 1], [1, 2], [1, 2, 9])  # all accepted: the draft catches up on 2
    ([7, 5, 1, 2], [7, 5, 1, 2])
    """
    kept = len(target_slots) - len(draft_tokens) + len(emitted) - 1  # 1 + k of the γ + 1 written stay
    if len(emitted) - 1 < len(draft_tokens):
        return target_slots[:kept], draft_slots[:kept]
    return target_slots[:kept], draft_slots + [draft_tokens[-1]]


def _cache_case(label, context, pending, drafted, emitted, source="edge") -> Case:
    """A step after `context` (tokens whose keys both caches held) with the `pending` token."""
    before = (*context, pending)
    inputs = (("target_slots", (*before, *drafted)), ("draft_slots", (*before, *drafted[:-1])),
              ("draft_tokens", tuple(drafted)), ("emitted", tuple(emitted)))
    return Case(label, inputs, source=source)


def _random_cache_case(seed: int) -> Case:
    rng = np.random.default_rng(seed)
    gamma = int(rng.integers(1, 7))
    accepted = int(rng.integers(0, gamma + 1))
    context, pending = rng.integers(0, 50, size=int(rng.integers(0, 6))).tolist(), int(rng.integers(0, 50))
    drafted = rng.integers(0, 50, size=gamma).tolist()
    last = int(rng.integers(0, 50))
    if accepted < gamma and last == drafted[accepted]:  # a replacement is never the token it replaces
        last = (last + 1) % 50
    return _cache_case(f"random step (γ = {gamma}, k = {accepted}, seed {seed})", context, pending, drafted,
                       drafted[:accepted] + [last], source="random")


@functools.cache
def cache_cases() -> tuple[Case, ...]:
    """The cases of roll_back_caches: worked examples, edge cases, seeded random steps."""
    return (_cache_case("worked example: k = 1 of γ = 3 accepted", [7], 5, [1, 2, 3], [1, 4], source="worked"),
            _cache_case("worked example: all γ = 2 accepted, the bonus token 9", [7], 5, [1, 2], [1, 2, 9],
                        source="worked"),
            _cache_case("the first draft token rejected (k = 0)", [7, 8], 5, [1, 2, 3], [6]),
            _cache_case("an empty context: the pending token is the prompt's only token", [], 5, [1, 2], [1, 3]),
            _cache_case("γ = 1, accepted", [3, 4], 5, [6], [6, 0]),
            _cache_case("γ = 1, rejected", [3, 4], 5, [6], [0]),
            _cache_case("a draft token equal to the pending token, rejected", [2], 5, [5, 5], [5, 1]),
            *(_random_cache_case(500 + seed) for seed in range(16)))


def _as_two_lists(value):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None
    target, draft = as_tokens(value[0]), as_tokens(value[1])
    return None if target is None or draft is None else (target, draft)


def _caches_differ(a, b) -> str | None:
    wrong = [what for what, yours, right in zip(("the target's", "the draft's"), a, b) if yours != right]
    return None if not wrong else " and ".join(wrong) + " cache slots differ"


def _two_lists_type(got) -> Problem | None:
    value = got.value
    if not isinstance(value, tuple) or not all(type(part) is list for part in value):
        return Problem("type", f"the slots are right but you returned {describe_type(value)} of "
                       f"{' and '.join(describe_type(part) for part in value)}", RETURN_TWO_LISTS)
    if not all(type(token) is int for part in value for token in part):
        return Problem("type", "the slots are right but some are numpy integers",
                       "return Python ints: convert each with int(…).")
    return None


RETURN_TWO_LISTS = "return a tuple of two lists of ints: return target_slots_after, draft_slots_after."
TWO_CACHES = ResultKind("a pair of lists (target_slots, draft_slots)", RETURN_TWO_LISTS, _as_two_lists,
                        _caches_differ, _two_lists_type)


def _rolled_back(target_slots, draft_slots, draft_tokens, emitted, accepted=None, crop_target=True,
                 crop_draft=True, catch_up=True):
    """`roll_back_caches` written out, with the parts a wrong version changes as arguments."""
    accepted = len(emitted) - 1 if accepted is None else accepted
    keep = len(target_slots) - len(draft_tokens) + accepted
    target_after = target_slots[:keep] if crop_target else list(target_slots)
    if accepted < len(draft_tokens):
        return target_after, (draft_slots[:keep] if crop_draft else list(draft_slots))
    return target_after, (draft_slots + [draft_tokens[-1]] if catch_up else list(draft_slots))


def _drops_pending(target_slots, draft_slots, draft_tokens, emitted):
    accepted = len(emitted) - 1
    keep = len(target_slots) - len(draft_tokens) - 1 + accepted  # the mistake: the pending token's slot cropped
    if accepted < len(draft_tokens):
        return target_slots[:keep], draft_slots[:keep]
    return target_slots[:keep], draft_slots + [draft_tokens[-1]]


def _keeps_the_new_token(target_slots, draft_slots, draft_tokens, emitted):
    target_after, draft_after = roll_back_caches(target_slots, draft_slots, draft_tokens, emitted)
    return target_after + emitted[-1:], draft_after + emitted[-1:]  # the mistake: a token whose keys no pass wrote


KEEP = ("keep 1 + k of the γ + 1 slots the verify pass wrote, the pending token's and the k accepted draft tokens': "
        "k = len(emitted) − 1, since the step emits the k accepted tokens and one more.")

MISTAKES["roll_back_caches"] = [
    Mistake("forgets_to_crop", lambda *step: _rolled_back(*step, crop_target=False),  # the mistake
            "the target's cache still holds the rejected draft tokens: crop it to the pending token and the k "
            "accepted ones, or its next pass attends to tokens that are not in the text.",
            "An engine that forgets to crop the target's KV cache after a rejection: at temperature 0 the text "
            "follows plain decoding until the first rejection, then drifts."),
    Mistake("forgets_catch_up", lambda *step: _rolled_back(*step, catch_up=False),  # the mistake
            "when every draft token passes, the draft has not yet run on the last one, d_γ: catch it up (append "
            "draft_tokens[-1]) so that both caches hold the same text.",
            "An engine that skips the draft's catch-up: the output keeps the target's law, since the verify rule "
            "uses the q the draft sampled from, but the draft proposes from a text that lacks a token, and "
            "acceptance falls."),
    Mistake("drops_pending", _drops_pending, "the verify pass's first slot holds the pending token, the one the "
            "previous step emitted: it is part of the text and stays. " + KEEP),
    Mistake("keeps_one_rejected", lambda *step: _rolled_back(*step, accepted=len(step[-1])),  # the mistake
            "one slot too many: the last emitted token is the replacement or the bonus, not an accepted draft token. "
            + KEEP),
    Mistake("keeps_the_new_token", _keeps_the_new_token,
            "the token the step emitted last has no keys yet: it is the next step's pending token, the first "
            "position of the next pass. Keep only the pending token's and the accepted tokens' slots."),
    Mistake("draft_not_cropped", lambda *step: _rolled_back(*step, crop_draft=False),  # the mistake
            "after a rejection the draft's cache holds rejected draft tokens too: crop it to the same slots as the "
            "target's, so that its next proposals follow the text."),
]


# --- Verifying a deterministic draft ---------------------------------------------------------------


def _without(p, x):
    rest = p.copy()
    rest[x] = 0.0
    return rest / rest.sum()


def _unnormalised(p, x):
    rest = p.copy()
    rest[x] = 0.0
    return rest  # the mistake: p with x removed sums to 1 − p(x)


def one_hot_step(p, tokens, rng, accepts=lambda rng, p_x: rng.random() < p_x, replacement=_without):
    """A learner's deterministic-draft step; the wrong ones change the part they pass in."""
    output = []
    for i, x in enumerate(tokens):
        if accepts(rng, p[i, x]):
            output.append(x)
            continue
        output.append(int(rng.choice(p.shape[1], p=replacement(p[i], x))))
        return output
    return output + [int(rng.choice(p.shape[1], p=p[-1]))]


def _continue_after_rejection(p, tokens, rng):
    output = []
    for i, x in enumerate(tokens):
        if rng.random() < p[i, x]:
            output.append(x)
            continue
        output.append(int(rng.choice(p.shape[1], p=_without(p[i], x))))  # the mistake: no return after it
    return output + [int(rng.choice(p.shape[1], p=p[-1]))]


def _greedy_acceptance(p, tokens, rng):
    output = []
    for i, x in enumerate(tokens):
        if x == int(np.argmax(p[i])):  # the mistake: kept when the target likes it best, without a uniform
            output.append(x)
            continue
        output.append(int(rng.choice(p.shape[1], p=_without(p[i], x))))
        return output
    return output + [int(rng.choice(p.shape[1], p=p[-1]))]


def _accepts_on_equal(rng, p_x) -> bool:
    return rng.random() <= p_x  # the mistake: <=, not <


MISTAKES["deterministic_step"] = [
    Mistake("resample_from_p", lambda p, x, rng: one_hot_step(p, x, rng, replacement=lambda p_i, x: p_i),  # the mistake
            "after a rejection draw from p without the rejected token x, renormalised: norm(max(0, p − δₓ)). "
            "Drawing from p itself gives x a second chance, so x comes out more often than p(x)."),
    Mistake("greedy_acceptance", _greedy_acceptance,
            "accept x with probability p(x): draw u = rng.random() and keep x when u < p(x). Keeping x only when "
            "the target likes it best is greedy verification, exact only at temperature 0."),
    Mistake("accepts_on_equal", lambda p, x, rng: one_hot_step(p, x, rng, accepts=_accepts_on_equal),
            "the comparison must be strict, u < p(x): with u = 0 exactly, u <= p(x) keeps a token the target gives "
            "probability 0."),
    Mistake("not_renormalised", lambda p, x, rng: one_hot_step(p, x, rng, replacement=_unnormalised),
            "p with x set to 0 sums to 1 − p(x): divide it by that sum before you draw from it with rng.choice."),
    Mistake("continue_after_rejection", _continue_after_rejection, STOP_AT_REJECTION),
]


def _one_hot_case(label, target_probs, draft_tokens, seed, first_uniform=None, source="edge") -> Case:
    inputs = (("target_probs", frozen(target_probs)), ("draft_tokens", tuple(draft_tokens)))
    return Case(label, inputs, seed, first_uniform, source=source)


def _random_one_hot(seed: int, gamma: int, vocab: int) -> Case:
    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.full(vocab, 0.5), size=gamma + 1)
    # A greedy draft's guesses: mostly the target's own argmax, sometimes another token.
    tokens = [int(np.argmax(row)) if rng.random() < 0.6 else int(rng.integers(vocab)) for row in rows[:-1]]
    return _one_hot_case(f"random step (γ = {gamma}, V = {vocab}, seed {seed})", rows, tokens, seed, source="random")


@functools.cache
def one_hot_cases() -> tuple[Case, ...]:
    """The cases of deterministic_step: worked examples, edge cases, seeded random steps."""
    spec = SPEC_TARGET_PROBS
    return (_one_hot_case("worked example: greedy draft [0, 1]", spec, [0, 1], 2, source="worked"),
            _one_hot_case("worked example: draft [3, 1], p₀(3) = 0", spec, [3, 1], 0, source="worked"),
            _one_hot_case("γ = 0: no draft tokens, only the bonus token", [[0.1, 0.2, 0.7]], [], 5),
            _one_hot_case("p(x) = 1: the draft token always passes", [[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]], [1], 4),
            _one_hot_case("u = 0 exactly, at a proposed token the target gives probability 0", spec, [3, 1], 1,
                          first_uniform=0.0),
            *(_random_one_hot(600 + i, gamma, vocab) for i, (gamma, vocab) in enumerate(
                [(1, 3), (2, 4), (3, 5), (2, 2), (4, 6), (3, 8), (5, 10), (6, 16), (8, 32), (4, 64), (7, 12),
                 (8, 20)])))


CAPSTONES: dict[str, Exercise] = {exercise.name: exercise for exercise in (
    Exercise("roll_back_caches", roll_back_caches, cache_cases, TWO_CACHES,
             "the same target and draft slots as the engine model of specdec.serving.kv_cache_steps, as two new "
             "lists, and your inputs left unchanged", documented_as="specdec.exercises.capstones.roll_back_caches"),
    Exercise("deterministic_step", deterministic_draft_step, one_hot_cases, TOKENS,
             "the same tokens as specdec.deterministic_draft.deterministic_draft_step, rng left in the same state, "
             "a list of Python ints, and your inputs left unchanged",
             documented_as="specdec.deterministic_draft.deterministic_draft_step"),
)}


@checked(name=exercise_name(CAPSTONES), **CHECK_ARGUMENTS)
def check_capstone(name: str, function, time_limit: float = TIME_LIMIT) -> CheckResult:
    """Check your implementation of a capstone exercise, as `specdec.exercises.check` does the others.

    Parameters
    ----------
    name : str
        "roll_back_caches" or "deterministic_step".
    function : callable
        Your function: ``roll_back_caches(target_slots, draft_slots, draft_tokens, emitted)`` returning
        the two caches' slots after the step, or ``deterministic_step(target_probs, draft_tokens, rng)``.
    time_limit : float, optional
        Seconds your function may take on one case.

    Returns
    -------
    CheckResult

    Examples
    --------
    >>> check_capstone("roll_back_caches", roll_back_caches).passed
    True
    """
    return check_exercise(CAPSTONES[name], function, time_limit, check_name="check_capstone")
