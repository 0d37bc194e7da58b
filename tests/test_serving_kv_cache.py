"""The KV caches of a speculative generation: exact handling equals recomputation; broken handling is caught."""

import numpy as np
import pytest

from specdec.goodness_of_fit import goodness_of_fit
from specdec.neural import greedy_text, load_draft, load_target, probabilities
from specdec.serving.kv_cache_steps import CACHE_RULES, generate_with_caches, recomputed_rows, rows_along_run

PROMPT = "Return the "


@pytest.fixture(scope="module")
def models():
    return load_target(), load_draft()


def test_exact_caches_give_the_rows_of_a_full_recomputation_over_many_steps(models):
    target, draft = models
    run = generate_with_caches(target, draft, PROMPT, 60, 4, 1.0, np.random.default_rng(2))
    assert len(run.steps) >= 15 and any(k < 4 for k in run.accepted_counts) and any(k == 4 for k in run.accepted_counts)
    cached = rows_along_run(run)
    assert np.abs(cached - recomputed_rows(target, PROMPT, run.text, 1.0)).max() < 1e-4
    for step in run.steps:  # both caches hold the text but the pending token after every step
        assert step.target_length_after == step.draft_length_after == step.start + step.target_kept
        assert step.target_written == step.target_kept + step.target_cropped


@pytest.mark.parametrize("prompt", ["Return the ", "The value", "def f(x):"])
def test_exact_and_catch_up_free_caches_equal_plain_greedy_decoding(models, prompt):
    target, draft = models
    plain = greedy_text(target, prompt, 20)
    for rule in ("exact", "forgets_catch_up"):
        assert generate_with_caches(target, draft, prompt, 20, 4, 0.0, np.random.default_rng(0), rule=rule).text == plain


def test_forgetting_to_crop_changes_the_greedy_output(models):
    target, draft = models
    differs = [generate_with_caches(target, draft, p, 20, 4, 0.0, np.random.default_rng(0),
                                    rule="forgets_to_crop").text != greedy_text(target, p, 20)
               for p in ("Return the ", "The value", "def f(x):")]
    assert all(differs)


def _joint_law(target, prompt, temperature):
    """Exact law of the first two characters: p(c₁) p(c₂ | c₁), one cached pass per c₁."""
    ids, size = target.encode(prompt), len(target.vocab)
    cache = target.new_cache()
    first = probabilities(target.logits(target.forward(ids, cache)[-1:]), temperature)[0]
    joint = np.zeros((size, size))
    for a in np.flatnonzero(first > 0):
        branch = cache.copy()
        joint[a] = first[a] * probabilities(target.logits(target.forward([a], branch)), temperature)[0]
    return joint.ravel() / joint.sum()


def test_forgetting_to_crop_changes_the_law_at_temperature_one(models):
    """600 two-character runs (γ = 1) fail the chi-square against the target's exact joint law."""
    target, draft = models
    law = _joint_law(target, PROMPT, 1.0)
    rng = np.random.default_rng(5)
    size = len(target.vocab)
    samples = [run.tokens[0] * size + run.tokens[1] for run in
               (generate_with_caches(target, draft, PROMPT, 2, 1, 1.0, rng, rule="forgets_to_crop") for _ in range(600))]
    assert not goodness_of_fit(np.array(samples), law).passed


def test_a_draft_that_is_not_caught_up_keeps_the_law_and_accepts_less(models):
    target, draft = models
    exact = generate_with_caches(target, draft, "def ", 100, 4, 0.0, np.random.default_rng(0))
    lagging = generate_with_caches(target, draft, "def ", 100, 4, 0.0, np.random.default_rng(0), rule="forgets_catch_up")
    assert lagging.text == exact.text
    assert np.mean(lagging.accepted_counts) < np.mean(exact.accepted_counts)
    assert sum(step.draft_caught_up for step in exact.steps) > 0 == sum(s.draft_caught_up for s in lagging.steps)


def test_bad_arguments_are_refused_before_anything_runs(models):
    target, draft = models
    with pytest.raises(ValueError, match="rule must be one of"):
        generate_with_caches(target, draft, PROMPT, 5, 2, 0.0, np.random.default_rng(0), rule="crop")
    with pytest.raises(ValueError, match="do not fit"):
        generate_with_caches(target, draft, PROMPT, 40, 4, 0.0, np.random.default_rng(0), rule="forgets_to_crop")
    assert set(CACHE_RULES) == {"exact", "forgets_to_crop", "forgets_catch_up"}


def test_the_last_token_is_the_bonus_exactly_when_the_whole_draft_was_accepted(models):
    target, draft = models
    # The target drafting for itself at temperature 0 agrees everywhere: every step ends with its bonus token.
    agreeing = generate_with_caches(target, target, PROMPT, 20, 3, 0.0, np.random.default_rng(0))
    assert all(step.accepted == len(step.drafted) for step in agreeing.steps)
    assert {step.origin_of_last for step in agreeing.steps} == {"bonus"}
    run = generate_with_caches(target, draft, PROMPT, 60, 4, 1.0, np.random.default_rng(2))
    short = [step for step in run.steps if step.accepted < len(step.drafted)]
    assert short and {step.origin_of_last for step in short} == {"resampled"}


def test_one_character_can_be_generated(models):
    target, draft = models
    run = generate_with_caches(target, draft, PROMPT, 1, 4, 0.0, np.random.default_rng(0))
    assert run.text == greedy_text(target, PROMPT, 1) and len(run.tokens) == 1


@pytest.mark.parametrize("temperature, error", [
    (True, TypeError), (-1.0, ValueError), (float("inf"), ValueError), (float("nan"), ValueError), ("1", TypeError),
])
def test_a_bad_temperature_is_refused(models, temperature, error):
    target, draft = models
    with pytest.raises(error, match="temperature"):
        generate_with_caches(target, draft, PROMPT, 5, 2, temperature, np.random.default_rng(0))


@pytest.mark.parametrize("length, drafts", [(8, [4, 2]), (6, [4, 1]), (10, [4, 4])])
def test_an_agreeing_draft_is_caught_up_after_every_step_and_drafts_less_near_the_end(models, length, drafts):
    # γ = 4, every draft token accepted: 4 drafts give 5 characters; the last step drafts what is left but one
    # (at least 1): length 8 → 5 + 3 characters, length 6 → 5 + 2 (one past the end, cut), length 10 → 5 + 5.
    target, _ = models
    run = generate_with_caches(target, target, PROMPT, length, 4, 0.0, np.random.default_rng(0))
    assert [len(step.drafted) for step in run.steps] == drafts
    assert [len(step.emitted) for step in run.steps] == [k + 1 for k in drafts]
    assert [step.draft_caught_up for step in run.steps] == [1] * len(drafts)
    written = [(step.draft_written, step.draft_kept, step.draft_cropped) for step in run.steps]
    assert written == [(k, k, 0) for k in drafts]
    assert run.text == greedy_text(target, PROMPT, length)


@pytest.mark.parametrize("prompt", ["R", "Re"])
def test_a_prompt_of_one_or_two_characters(models, prompt):
    target, draft = models
    assert generate_with_caches(target, draft, prompt, 12, 3, 0.0, np.random.default_rng(0)).text == \
        greedy_text(target, prompt, 12)


def test_at_temperature_one_the_draft_samples_its_tokens(models):
    # The draft's row after PROMPT is spread out (no character above 12%): 20 runs cannot all draft the same one.
    target, draft = models
    rng = np.random.default_rng(0)
    first = {generate_with_caches(target, draft, PROMPT, 2, 1, 1.0, rng).steps[0].drafted[0] for _ in range(20)}
    assert len(first) >= 5


def test_the_context_check_is_exact(models):
    # 11 prompt characters; the context holds 128. Rule "exact" needs prompt + length + γ; "forgets_to_crop"
    # needs prompt + length · (γ + 1).
    target, draft = models
    assert target.config.context == 128 and len(target.encode(PROMPT)) == 11
    run = generate_with_caches(target, draft, PROMPT, 113, 4, 0.0, np.random.default_rng(0))
    assert len(run.text) == 113
    for length, rule in ((114, "exact"), (24, "forgets_to_crop")):
        with pytest.raises(ValueError, match="do not fit"):
            generate_with_caches(target, draft, PROMPT, length, 4, 0.0, np.random.default_rng(0), rule=rule)
    assert len(generate_with_caches(target, draft, PROMPT, 23, 4, 0.0, np.random.default_rng(0),
                                    rule="forgets_to_crop").text) == 23
