"""The capstone exercises: a right answer passes, a stub is "not implemented", every known mistake is named
with its hint, and the cache exercise's reference keeps exactly what the engine model keeps."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from specdec.exercises.capstones import CAPSTONES, check_capstone
from specdec.exercises.mistakes import MISTAKES


def roll_back_caches(target_slots, draft_slots, draft_tokens, emitted):
    accepted = len(emitted) - 1
    kept = target_slots[:len(target_slots) - len(draft_tokens) + accepted]  # the pending token and k accepted
    if accepted == len(draft_tokens):
        return kept, draft_slots + [draft_tokens[-1]]
    return kept, draft_slots[:len(kept)]


def deterministic_step(target_probs, draft_tokens, rng):
    vocab = len(target_probs[0])
    tokens = []
    for i, x in enumerate(draft_tokens):
        if rng.random() < target_probs[i][x]:
            tokens.append(x)
        else:
            rest = np.array(target_probs[i], dtype=float)
            rest[x] = 0.0
            tokens.append(int(rng.choice(vocab, p=rest / rest.sum())))
            return tokens
    tokens.append(int(rng.choice(vocab, p=target_probs[-1])))
    return tokens


RIGHT = {"roll_back_caches": roll_back_caches, "deterministic_step": deterministic_step}
KNOWN = [(name, mistake) for name in CAPSTONES for mistake in MISTAKES[name]]


@pytest.mark.parametrize("name", list(CAPSTONES))
def test_a_right_answer_and_the_reference_pass(name):
    for function in (RIGHT[name], CAPSTONES[name].reference):
        result = check_capstone(name, function)
        assert result.passed, result.message
        assert result.message.startswith(f"✓ {name}: all {len(CAPSTONES[name].cases())} cases pass")


@pytest.mark.parametrize("name", list(CAPSTONES))
def test_a_stub_is_reported_as_not_implemented(name):
    def stub(*args):
        raise NotImplementedError

    result = check_capstone(name, stub)
    assert result.status == "not implemented" and not result.passed
    assert result.message.startswith(f"✗ {name}: not implemented yet")


def test_each_capstone_has_at_least_three_known_mistakes():
    assert all(len(MISTAKES[name]) >= 3 for name in CAPSTONES)


@pytest.mark.parametrize("name, mistake", KNOWN, ids=[mistake.name for _, mistake in KNOWN])
def test_each_known_mistake_is_named_with_its_hint(name, mistake):
    result = check_capstone(name, mistake.function)
    assert not result.passed
    assert result.hint == mistake.hint, result.message
    assert " ".join(mistake.hint.split()[:6]) in " ".join(result.message.split())
    assert f'check_capstone("{name}"' in result.message


def test_a_learner_who_forgets_to_crop_the_target_is_told_so():
    def forgets(target_slots, draft_slots, draft_tokens, emitted):
        accepted = len(emitted) - 1
        if accepted == len(draft_tokens):
            return list(target_slots), draft_slots + [draft_tokens[-1]]
        return list(target_slots), draft_slots[:len(target_slots) - len(draft_tokens) + accepted]  # the mistake

    result = check_capstone("roll_back_caches", forgets)
    assert "the target's cache slots differ" in result.message
    assert "crop it to the pending token and the k accepted ones" in " ".join(result.message.split())


def test_a_deterministic_step_with_a_non_strict_comparison_is_caught_at_u_zero():
    def non_strict(target_probs, draft_tokens, rng):
        tokens = []
        for i, x in enumerate(draft_tokens):
            if rng.random() <= target_probs[i][x]:  # the mistake
                tokens.append(x)
            else:
                rest = np.array(target_probs[i], dtype=float)
                rest[x] = 0.0
                return tokens + [int(rng.choice(len(rest), p=rest / rest.sum()))]
        return tokens + [int(rng.choice(len(target_probs[-1]), p=target_probs[-1]))]

    result = check_capstone("deterministic_step", non_strict)
    assert result.case.label.startswith("u = 0 exactly")
    assert "the comparison must be strict" in result.message


def test_changing_the_callers_cache_list_is_caught():
    def crops_in_place(target_slots, draft_slots, draft_tokens, emitted):
        kept, draft = roll_back_caches(target_slots, draft_slots, draft_tokens, emitted)
        del target_slots[len(kept):]  # the mistake: the caller's list
        return kept, draft

    assert "after the call, target_slots differed from what was passed in" in check_capstone(
        "roll_back_caches", crops_in_place).message


def test_check_capstone_refuses_an_unknown_name():
    with pytest.raises(ValueError, match="name must be one of 'roll_back_caches', 'deterministic_step'"):
        check_capstone("speculative_step", roll_back_caches)


def test_the_reference_keeps_what_the_engine_model_keeps():
    from specdec.neural import load_draft, load_target
    from specdec.serving.kv_cache_steps import generate_with_caches

    target, draft = load_target(), load_draft()
    for temperature, seed in ((1.0, 1), (0.0, 2)):
        run = generate_with_caches(target, draft, "def ", 30, 3, temperature, np.random.default_rng(seed))
        before = tuple(target.encode("def ")[:-1])
        target_cache, draft_cache = before, before
        rejected = accepted_all = 0
        for step in run.steps:
            after = CAPSTONES["roll_back_caches"].reference(
                [*target_cache, step.pending, *step.drafted], [*draft_cache, step.pending, *step.drafted[:-1]],
                step.drafted, step.emitted)
            assert tuple(after[0]) == step.target_tokens_after and tuple(after[1]) == step.draft_tokens_after
            target_cache, draft_cache = step.target_tokens_after, step.draft_tokens_after
            rejected += step.accepted < len(step.drafted)
            accepted_all += step.accepted == len(step.drafted)
        assert rejected and accepted_all  # both branches were exercised


@pytest.mark.parametrize("name", list(CAPSTONES))
@pytest.mark.parametrize("returned", [None, 0, "slots", [[1], [2]], ([1], None), (np.array([1, 2]), [2]), [1.5],
                                      (1, 2, 3), np.zeros(3)])
def test_odd_return_values_are_feedback_not_a_crash(name, returned):
    result = check_capstone(name, lambda *args: returned)
    assert not result.passed and result.message.startswith(f"✗ {name} fails on case ")
    assert result._repr_html_().startswith("<div")


def test_the_feedback_uses_learner_words():
    texts = [case.label for exercise in CAPSTONES.values() for case in exercise.cases()]
    texts += [exercise.passed_means for exercise in CAPSTONES.values()]
    texts += [text for _, mistake in KNOWN for text in (mistake.hint, mistake.in_practice or "")]
    for word in ("SPEC", "contract", "nbval"):
        assert not any(word in text for text in texts), word


@pytest.mark.parametrize("name, documented_as", [
    ("deterministic_step", "specdec.deterministic_draft.deterministic_draft_step"),
    ("roll_back_caches", "specdec.exercises.capstones.roll_back_caches"),
])
def test_a_function_with_other_parameters_is_pointed_to_a_function_that_exists(name, documented_as):
    result = check_capstone(name, lambda a, b: [1])
    assert f"the parameters of {documented_as}, in this order" in result.hint
    module, _, function = documented_as.rpartition(".")
    assert callable(getattr(importlib.import_module(module), function))
