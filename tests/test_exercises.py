"""Tests of specdec.exercises.check: it passes right answers and names the mistakes of wrong ones.

The learner's functions below are written independently of specdec, the way the exercises notebook asks
a learner to write them; each wrong one differs from a right one in one marked place.
"""

from __future__ import annotations

import math
import re
import signal
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import specdec
from specdec import theory
from specdec.broken_rules import BROKEN_RULES, EDGE_CASES
from specdec.exercises import EXERCISE_NAMES, CheckResult, check
from specdec.exercises import checker, mistakes
from specdec.exercises.checker import EXERCISES


def cases_for(name):
    return EXERCISES[name].cases()


def mistakes_for(name):
    return EXERCISES[name].mistakes

# --- Right answers, written out plainly --------------------------------------------------------


def acceptance_rate(target, draft):
    return float(np.minimum(target, draft).sum())


def residual_distribution(target, draft):
    excess = np.maximum(np.asarray(target) - np.asarray(draft), 0.0)
    mass = excess.sum()
    if mass == 0:
        return np.array(target, dtype=float)
    return excess / mass


def speculative_step(target_probs, draft_probs, draft_tokens, rng):
    vocab = len(target_probs[0])
    tokens = []
    for i, x in enumerate(draft_tokens):
        if rng.random() < min(1.0, target_probs[i][x] / draft_probs[i][x]):
            tokens.append(x)
        else:
            tokens.append(int(rng.choice(vocab, p=residual_distribution(target_probs[i], draft_probs[i]))))
            return tokens
    tokens.append(int(rng.choice(vocab, p=target_probs[-1])))
    return tokens


def expected_tokens(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def speedup(alpha, gamma, c):
    return expected_tokens(alpha, gamma) / (1 + gamma / c)


def optimal_gamma(alpha, c):
    best = (1, speedup(alpha, 1, c))
    for gamma in range(2, 21):
        value = speedup(alpha, gamma, c)
        if value > best[1]:
            best = (gamma, value)
    return best


RIGHT = {
    "acceptance_rate": acceptance_rate,
    "residual_distribution": residual_distribution,
    "speculative_step": speculative_step,
    "expected_tokens": expected_tokens,
    "speedup": speedup,
    "optimal_gamma": optimal_gamma,
}

REFERENCE = {
    "acceptance_rate": specdec.acceptance_rate,
    "residual_distribution": specdec.residual_distribution,
    "speculative_step": specdec.speculative_step,
    "expected_tokens": specdec.expected_tokens,
    "speedup": theory.speedup,
    "optimal_gamma": theory.optimal_gamma,
}


# --- Passing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", EXERCISE_NAMES)
def test_the_reference_passes(name):
    result = check(name, REFERENCE[name])
    assert result.passed, result.message
    assert result.message.startswith(f"✓ {name}: all {len(cases_for(name))} cases pass")


@pytest.mark.parametrize("name", EXERCISE_NAMES)
def test_a_plain_right_answer_passes(name):
    result = check(name, RIGHT[name])
    assert result.passed, result.message
    assert bool(result) and result.hint is None and result.case is None


@pytest.mark.parametrize("name", EXERCISE_NAMES)
def test_a_stub_is_reported_as_not_implemented(name):
    def stub(*args):
        raise NotImplementedError

    result = check(name, stub)
    assert not result.passed
    assert result.status == "not implemented"
    assert result.message.startswith(f"✗ {name}: not implemented yet")
    assert "replace `raise NotImplementedError`" in result.message


@pytest.mark.parametrize("name", EXERCISE_NAMES)
def test_a_check_runs_each_function_at_most_once_per_case(name, monkeypatch):
    calls = []
    run = checker.run
    monkeypatch.setattr(checker, "run", lambda function, case, *limit: calls.append((function, id(case))) or run(
        function, case, *limit))

    def wrong(*args):
        return 0  # fails every case, so the checker also searches its catalogue of mistakes

    check(name, wrong)
    assert {function for function, _ in calls} >= {wrong, EXERCISES[name].reference}
    assert len(calls) == len(set(calls)), "a function run twice on one case"


@pytest.mark.parametrize("name", EXERCISE_NAMES)
def test_the_feedback_uses_learner_words(name):
    exercise = EXERCISES[name]
    texts = [case.label for case in exercise.cases()] + [mistake.hint for mistake in exercise.mistakes]
    texts += [check(name, RIGHT[name]).message, check(name, lambda *args: None).message, exercise.passed_means]
    texts += [symptom.hint for symptom in mistakes.SYMPTOMS]
    texts += [value for module in (checker, mistakes) for value in vars(module).values() if isinstance(value, str)]
    for word in ("SPEC", "contract", "nbval"):
        assert not any(word in text for text in texts), word


# --- A function that never returns -------------------------------------------------------------


def loops_forever(*args):
    while True:
        pass


def loops_forever_on_one_line(*args):
    while True: pass  # noqa: E701 -- one line: the loop makes no new line events, only opcode events


def swallows_exceptions_forever(*args):
    while True:
        try:
            sum(range(10))
        except Exception:  # the learner's catch-all must not swallow the time limit
            pass


def assert_reports_a_timeout(result, name):
    assert not result.passed and result.status == "failed"
    assert result.message.startswith(f"✗ {name} did not finish on case 1 of ")
    assert "your function had not returned after 0.2 s, so the check stopped it" in result.message
    assert result.hint.startswith("your function did not return in time")
    assert result.case is cases_for(name)[0]


@pytest.mark.parametrize("function", [loops_forever, loops_forever_on_one_line, swallows_exceptions_forever])
def test_a_function_that_never_returns_is_stopped_and_reported(function):
    handler = signal.getsignal(signal.SIGALRM)
    result = check("speedup", function, time_limit=0.2)
    assert_reports_a_timeout(result, "speedup")  # stopped at the first case, and the check ends there
    assert signal.getsignal(signal.SIGALRM) is handler and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_a_timer_that_was_running_before_the_check_keeps_running():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        assert_reports_a_timeout(check("speedup", loops_forever, time_limit=0.2), "speedup")
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0.0 < remaining <= 30.0 and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_outside_the_main_thread_the_time_limit_still_holds():
    results, traces = [], []

    def in_a_thread():
        results.append(check("expected_tokens", loops_forever, time_limit=0.2))
        traces.append(sys.gettrace())

    worker = threading.Thread(target=in_a_thread, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert_reports_a_timeout(results[0], "expected_tokens")
    assert traces == [None]  # the trace function used for the limit was taken away again


def test_a_slow_but_finite_function_within_the_limit_passes():
    def slow_speedup(alpha, gamma, c):
        time.sleep(0.001)
        return speedup(alpha, gamma, c)

    assert check("speedup", slow_speedup, time_limit=1.0).passed


def test_check_refuses_an_unknown_exercise_and_a_non_function():
    with pytest.raises(ValueError, match="name must be one of 'acceptance_rate'"):
        check("acceptance", acceptance_rate)
    with pytest.raises(TypeError, match="function must be the function you wrote"):
        check("acceptance_rate", 0.7)


# --- The broken rules of notebook 03 -----------------------------------------------------------


@pytest.mark.parametrize("rule_name", sorted({**BROKEN_RULES, **EDGE_CASES}))
def test_every_broken_rule_fails_and_its_mistake_is_named(rule_name):
    rule = {**BROKEN_RULES, **EDGE_CASES}[rule_name]
    result = check("speculative_step", rule.function)
    assert not result.passed
    assert result.hint.endswith(rule.mistake)  # a rule that drafts its own tokens is told so first
    flowing = " ".join(result.message.split())  # the text form wraps long hints
    assert rule.mistake in flowing and rule.real_world in flowing


# --- The mistakes the issue lists, each written as a learner would --------------------------------


def test_a_step_that_returns_numpy_integers():
    def numpy_tokens(target_probs, draft_probs, draft_tokens, rng):
        vocab = len(target_probs[0])
        tokens = []
        for i, x in enumerate(draft_tokens):
            if rng.random() < min(1.0, target_probs[i][x] / draft_probs[i][x]):
                tokens.append(np.int64(x))  # the mistake
            else:
                tokens.append(rng.choice(vocab, p=residual_distribution(target_probs[i], draft_probs[i])))
                return tokens
        tokens.append(rng.choice(np.arange(vocab), p=target_probs[-1]))  # the mistake: a numpy integer
        return tokens

    result = check("speculative_step", numpy_tokens)
    assert not result.passed
    assert "return Python ints, not numpy integers" in result.message
    assert "the tokens are right but they are numpy integers (int64)" in result.message
    assert result.case.label == "worked example 1"


def test_a_residual_that_modifies_its_input():
    def in_place(target, draft):
        target -= draft  # the mistake: overwrites the caller's target
        np.maximum(target, 0.0, out=target)
        mass = target.sum()
        return target / mass if mass > 0 else np.array(target + draft)

    result = check("residual_distribution", in_place)
    assert not result.passed
    assert "you changed the caller's array (target)" in result.message
    assert "target left as it was passed in: [0.5, 0.3, 0.2, 0. ]" in result.message


def test_a_step_that_modifies_the_draft_tokens():
    def pops_tokens(target_probs, draft_probs, draft_tokens, rng):
        tokens = speculative_step(target_probs, draft_probs, draft_tokens, rng)
        draft_tokens.clear()  # the mistake
        return tokens

    result = check("speculative_step", pops_tokens)
    assert result.hint.startswith("you changed the caller's list (draft_tokens): the caller still needs it. Build "
                                  "a new list")


def test_a_step_that_draws_all_uniforms_first():
    def uniforms_first(target_probs, draft_probs, draft_tokens, rng):
        vocab = len(target_probs[0])
        uniforms = rng.random(len(draft_tokens))  # the mistake: every uniform up front
        tokens = []
        for i, x in enumerate(draft_tokens):
            if uniforms[i] < min(1.0, target_probs[i][x] / draft_probs[i][x]):
                tokens.append(x)
            else:
                tokens.append(int(rng.choice(vocab, p=residual_distribution(target_probs[i], draft_probs[i]))))
                return tokens
        tokens.append(int(rng.choice(vocab, p=target_probs[-1])))
        return tokens

    result = check("speculative_step", uniforms_first)
    assert not result.passed
    assert "your draws are in a different order than the rule's" in result.message
    assert result.case.label == "worked example 2"  # worked example 1 accepts both: same draws


def test_a_step_whose_residual_has_no_zero_sum_fallback():
    def residual_without_fallback(target, draft):
        excess = np.maximum(target - draft, 0.0)
        return excess / excess.sum()  # the mistake: 0/0 when p <= q everywhere

    def step(target_probs, draft_probs, draft_tokens, rng):
        vocab = target_probs.shape[1]
        tokens = []
        for i, x in enumerate(draft_tokens):
            if rng.random() < min(1.0, target_probs[i, x] / draft_probs[i, x]):
                tokens.append(x)
            else:
                tokens.append(int(rng.choice(vocab, p=residual_without_fallback(target_probs[i], draft_probs[i]))))
                return tokens
        tokens.append(int(rng.choice(vocab, p=target_probs[-1])))
        return tokens

    step_result = check("speculative_step", step)
    assert "0/0 is NaN" in step_result.message
    assert "ValueError: Probabilities contain NaN" in step_result.message
    assert "max(0, p − q) has no mass here: the fallback" in step_result.message

    residual_result = check("residual_distribution", residual_without_fallback)
    assert residual_result.case.label == "p equal to q"
    assert "your residual divides by its own mass, which is 0 when p == q: 0/0 is NaN" in residual_result.message
    assert "return a float copy of target instead" in residual_result.message


def test_expected_tokens_that_divides_by_zero_at_alpha_one():
    def textbook(alpha, gamma):
        return (1 - alpha ** (gamma + 1)) / (1 - alpha)  # the mistake: no case for α = 1

    result = check("expected_tokens", textbook)
    assert result.case.label.startswith("worked example (α = 1")
    assert "ZeroDivisionError" in result.message
    assert "at α = 1 the formula divides by zero" in result.message


def test_expected_tokens_with_numpy_floats_that_gives_nan_at_alpha_one():
    def numpy_textbook(alpha, gamma):
        alpha = np.float64(alpha)
        return float((1 - alpha ** (gamma + 1)) / (1 - alpha))  # 0/0 = nan with numpy, no exception

    result = check("expected_tokens", numpy_textbook)
    assert re.search(r"\n  got +nan\n", result.message)
    assert "at α = 1 the formula divides by zero" in result.message


SPEEDUP_AT_ALPHA_ONE = "the speedup is (γ + 1)/(1 + γ/c)"


def test_a_speedup_with_the_textbook_formula_is_told_what_alpha_one_gives():
    def textbook(alpha, gamma, c):
        return (1 - alpha ** (gamma + 1)) / (1 - alpha) / (1 + gamma / c)  # the mistake: no case for α = 1

    result = check("speedup", textbook)
    assert "ZeroDivisionError" in result.message and result.hint.endswith(SPEEDUP_AT_ALPHA_ONE + ".")


def test_an_optimal_gamma_whose_search_meets_nan_at_alpha_one_is_told_why_no_gamma_was_kept():
    def nan_search(alpha, c):
        best = (None, -1.0)
        for gamma in range(1, 21):
            alpha_ = np.float64(alpha)
            value = float((1 - alpha_ ** (gamma + 1)) / (1 - alpha_) / (1 + gamma / c))  # the mistake: nan at α = 1
            if value > best[1]:
                best = (gamma, value)
        return best

    result = check("optimal_gamma", nan_search)
    assert "α = 1" in result.case.label and "a search keeps no γ" in result.hint
    assert result.hint.endswith(SPEEDUP_AT_ALPHA_ONE + ".")


def test_a_speedup_that_gives_nan_for_a_free_draft_is_told_to_write_the_cost_as_one_plus_gamma_over_c():
    def over_c_plus_gamma(alpha, gamma, c):
        return expected_tokens(alpha, gamma) * c / (c + gamma)  # the mistake: ∞/∞ at c = ∞

    result = check("speedup", over_c_plus_gamma)
    assert result.case.label.startswith("a free draft") and "c/(c + γ) is ∞/∞ = NaN" in result.hint


def step_with_replacement(replacement):
    """A learner's verify step, right but for its replacement, drawn from ``replacement(p_i, q_i)``."""
    def step(target_probs, draft_probs, draft_tokens, rng):
        vocab, tokens = target_probs.shape[1], []
        for i, x in enumerate(draft_tokens):
            if rng.random() < min(1.0, target_probs[i][x] / draft_probs[i][x]):
                tokens.append(x)
                continue
            return tokens + [int(rng.choice(vocab, p=replacement(target_probs[i], draft_probs[i])))]
        return tokens + [int(rng.choice(vocab, p=target_probs[-1]))]
    return step


def test_a_fallback_to_the_uniform_distribution_fails_the_step_where_p_is_not_uniform():
    def uniform_fallback(p, q):
        excess = np.maximum(p - q, 0.0)
        return excess / excess.sum() if excess.sum() > 0 else np.full(p.size, 1 / p.size)  # the mistake: not p

    result = check("speculative_step", step_with_replacement(uniform_fallback))
    assert result.case.label == "the same at V = 3, where the fallback p is not uniform"


def test_a_known_mistake_that_raises_is_named_only_for_the_same_error():
    def over_one_minus_alpha(p, q):
        return np.maximum(p - q, 0.0) / (1 - np.minimum(p, q).sum())  # the mistake: sums to 0 where p ≤ q

    result = check("speculative_step", step_with_replacement(over_one_minus_alpha))
    assert "do not sum to 1" in result.message
    assert "0/0 is NaN" not in result.hint and result.hint.startswith("rng.choice needs probabilities that sum to 1")


def test_a_residual_computed_in_float32_is_told_how_small_the_difference_is():
    def in_float32(target, draft):
        excess = np.maximum(target - draft, 0.0).astype(np.float32)  # the mistake: float32 arithmetic
        return (excess / excess.sum()).astype(float) if excess.sum() > 0 else np.array(target, dtype=float)

    result = check("residual_distribution", in_float32)
    assert re.search(r"the values differ, but only by up to \d\.\de-0[89]: float32 arithmetic", result.message)


def test_a_step_that_renormalises_its_inputs_in_place_is_told_the_change_is_only_rounding():
    def renormalised(target_probs, draft_probs, draft_tokens, rng):
        target_probs /= target_probs.sum(axis=1, keepdims=True)  # the mistake: writes into the caller's array
        return speculative_step(target_probs, draft_probs, draft_tokens, rng)

    result = check("speculative_step", renormalised)
    assert re.search(r"differed from what was passed in, by at most \d\.\de-\d\d \(too little to show\)",
                     problem_of(result))


def test_an_expected_tokens_kept_from_dividing_by_zero_with_an_epsilon_is_told_what_alpha_one_gives():
    result = check("expected_tokens", lambda alpha, gamma: (1 - alpha ** (gamma + 1)) / (1 - alpha + 1e-12))
    assert result.hint.startswith("at α = 1 the formula divides by zero")


def problem_of(result) -> str:
    return next(row.text for row in result.rows if row.label == "problem")


def test_a_refused_value_says_which_entry_is_of_the_wrong_kind():
    def float_tokens(target_probs, draft_probs, draft_tokens, rng):
        return [float(token) for token in specdec.speculative_step(target_probs, draft_probs, draft_tokens, rng)]

    def float_gamma(alpha, c):
        gamma, best = theory.optimal_gamma(alpha, c)
        return float(gamma), best

    assert problem_of(check("speculative_step", float_tokens)).endswith(
        "not a list of token ids: its entries must be integer token ids, and 0.0 is a float")
    assert problem_of(check("optimal_gamma", float_gamma)).endswith(
        "not a pair (γ, speedup): its first entry must be γ, an int, and 3.0 is a float")


def test_a_step_that_reads_v_from_the_draft_rows_is_told_that_gamma_zero_has_none():
    def vocabulary_from_draft(target_probs, draft_probs, draft_tokens, rng):
        vocab = len(draft_probs[0])  # the mistake: at γ = 0 there is no draft row
        assert vocab == target_probs.shape[1]
        return speculative_step(target_probs, draft_probs, draft_tokens, rng)

    result = check("speculative_step", vocabulary_from_draft)
    assert result.case.label.startswith("γ = 0") and "IndexError" in problem_of(result)
    assert result.hint.startswith("at γ = 0 there are no draft tokens and draft_probs has no rows")


def test_a_lambda_is_rerun_under_a_name_the_learner_replaces():
    result = check("speedup", lambda alpha, gamma, c: 1.0)
    assert 'result = check("speedup", your_function)\n' in result.rows[-1].text


def test_a_function_with_other_parameters_is_told_which_it_must_take():
    result = check("acceptance_rate", lambda target: 0.5)
    assert result.hint == ("your function must take the parameters of specdec.acceptance_rate, in this order: "
                           "(target, draft).")


def test_a_function_unfinished_for_one_case_is_shown_that_case_not_called_unimplemented():
    def unfinished(alpha, gamma):
        if alpha == 1:
            raise NotImplementedError("α = 1 still to do")
        return (1 - alpha ** (gamma + 1)) / (1 - alpha)

    result = check("expected_tokens", unfinished)
    assert result.status == "failed" and "your function raised NotImplementedError: α = 1 still to do" in result.message


def test_a_function_that_calls_exit_is_feedback_not_a_crash():
    def leaves(alpha, c):
        raise SystemExit(1)

    result = check("optimal_gamma", leaves)
    assert result.status == "failed" and "SystemExit" in result.message


def test_an_acceptance_rate_that_returns_a_numpy_float():
    def numpy_float(target, draft):
        return np.minimum(target, draft).sum()  # the mistake: numpy.float64

    result = check("acceptance_rate", numpy_float)
    assert not result.passed
    assert "return a Python float, not a numpy float" in result.message
    assert "np.float64(0.7)" in result.message


# --- Other mistakes it names ---------------------------------------------------------------------


def test_a_step_that_draws_from_the_global_generator():
    def global_rng(target_probs, draft_probs, draft_tokens, rng):
        vocab = target_probs.shape[1]
        tokens = []
        for i, x in enumerate(draft_tokens):
            if np.random.random() < min(1.0, target_probs[i, x] / draft_probs[i, x]):  # the mistake
                tokens.append(x)
            else:
                tokens.append(int(rng.choice(vocab, p=residual_distribution(target_probs[i], draft_probs[i]))))
                return tokens
        tokens.append(int(rng.choice(vocab, p=target_probs[-1])))
        return tokens

    np.random.seed(12345)
    before = np.random.get_state()[1].copy()
    result = check("speculative_step", global_rng)
    assert "draw from the rng argument instead" in result.message
    assert np.array_equal(np.random.get_state()[1], before)  # the check put the global state back


def test_a_step_with_a_non_strict_comparison():
    def non_strict(target_probs, draft_probs, draft_tokens, rng):
        vocab = target_probs.shape[1]
        tokens = []
        for i, x in enumerate(draft_tokens):
            if rng.random() <= target_probs[i, x] / draft_probs[i, x]:  # the mistake
                tokens.append(x)
            else:
                tokens.append(int(rng.choice(vocab, p=residual_distribution(target_probs[i], draft_probs[i]))))
                return tokens
        tokens.append(int(rng.choice(vocab, p=target_probs[-1])))
        return tokens

    result = check("speculative_step", non_strict)
    assert result.case.label == "u = 0 exactly, at a drafted token the target gives probability 0"
    assert "the comparison must be strict" in result.message


def test_a_step_that_makes_an_extra_draw_is_told_how_many():
    def extra_draw(target_probs, draft_probs, draft_tokens, rng):
        tokens = speculative_step(target_probs, draft_probs, draft_tokens, rng)
        rng.random()  # the mistake: one draw the rule does not make
        return tokens

    result = check("speculative_step", extra_draw)
    assert result.case.label == "worked example 1"
    assert "here the rule made 3 draws from rng and yours made 4" in " ".join(result.message.split())


def test_an_exception_is_feedback_with_the_learners_line():
    def typo(target, draft):
        return float(np.minimum(target, drfat).sum())  # noqa: F821 — the mistake

    result = check("acceptance_rate", typo)
    assert not result.passed
    assert "NameError: name 'drfat' is not defined" in result.message
    assert "return float(np.minimum(target, drfat).sum())" in result.message


@pytest.mark.parametrize("returned", [None, "0.7", [0.7], {"alpha": 0.7}])
def test_odd_return_values_are_feedback(returned):
    result = check("acceptance_rate", lambda target, draft: returned)
    assert not result.passed and result.message.startswith("✗ acceptance_rate fails on case 1")


def test_optimal_gamma_that_breaks_ties_towards_the_longest_draft():
    def ties_to_largest(alpha, c):
        best = (1, speedup(alpha, 1, c))
        for gamma in range(2, 21):
            value = speedup(alpha, gamma, c)
            if value >= best[1]:  # the mistake
                best = (gamma, value)
        return best

    result = check("optimal_gamma", ties_to_largest)
    assert result.case.label.startswith("a tie")
    assert "on a tie keep the smallest γ" in result.message


def test_optimal_gamma_that_returns_a_numpy_integer():
    def with_argmax(alpha, c):
        values = [speedup(alpha, gamma, c) for gamma in range(1, 21)]
        best = np.argmax(values)
        return best + 1, values[best]  # the mistake: numpy.int64

    assert "return Python ints, not numpy integers" in check("optimal_gamma", with_argmax).message


def test_optimal_gamma_that_returns_the_argmax_as_gamma():
    def argmax_without_one(alpha, c):
        values = [speedup(alpha, gamma, c) for gamma in range(1, 21)]
        best = np.argmax(values)
        return best, values[best]  # the mistake: the position in the list, counted from 0, not γ

    result = check("optimal_gamma", argmax_without_one)
    assert not result.passed and result.case.label == "the table of best γ (α = 0.6, c = 10)"
    assert re.search(r"expected +\(3, 1\.67", result.message)
    assert re.search(r"got +\(np\.int64\(2\), 1\.67", result.message)
    assert result.hint.startswith("np.argmax gives the position of the best speedup in your list, counted from 0")


def optimal_gamma_rounded(alpha, c):
    gamma = max(range(1, 21), key=lambda g: (speedup(alpha, g, c), -g))
    return gamma, round(speedup(alpha, gamma, c), 2)  # the mistake: the speedup rounded


@pytest.mark.parametrize("name, function, digits", [
    ("speedup", lambda alpha, gamma, c: round(speedup(alpha, gamma, c), 2), "2 decimals"),  # the mistake
    ("residual_distribution", lambda p, q: np.round(residual_distribution(p, q), 1), "1 decimal"),  # the mistake
    ("optimal_gamma", optimal_gamma_rounded, "2 decimals")])
def test_a_result_rounded_before_it_is_returned_is_told_so(name, function, digits):
    result = check(name, function)
    assert not result.passed and result.hint.startswith(f"your result is the right one rounded to {digits}: return")


def test_a_rounding_seen_on_some_failing_cases_only_is_not_named():
    def partly_rounded(alpha, gamma):
        value = expected_tokens(alpha, gamma)
        return round(value, 2) if alpha > 0.5 else value + 1  # the mistake: rounded on some cases, wrong on others

    result = check("expected_tokens", partly_rounded)
    assert not result.passed and result.case.label == "worked example (α = 0.8)"
    assert result.hint is None or "rounded" not in result.hint


@pytest.mark.parametrize("name", ["acceptance_rate", "residual_distribution", "expected_tokens", "speedup",
                                  "optimal_gamma"])
def test_each_known_formula_mistake_is_named(name):
    for mistake in mistakes_for(name):
        result = check(name, mistake.function)
        assert not result.passed, mistake.name
        assert result.hint == mistake.hint, (mistake.name, result.message)


FIRST_STEP_SLIPS = [m for m in mistakes_for("speculative_step") if m.name not in {*BROKEN_RULES, *EDGE_CASES}]


@pytest.mark.parametrize("mistake", FIRST_STEP_SLIPS, ids=lambda mistake: mistake.name)
def test_each_known_step_mistake_is_named(mistake):
    result = check("speculative_step", mistake.function)
    assert not result.passed
    assert result.hint == mistake.hint


def test_a_residual_that_returns_the_callers_array_in_the_fallback():
    def aliased(target, draft):
        excess = np.maximum(target - draft, 0.0)
        mass = excess.sum()
        return excess / mass if mass > 0 else target  # the mistake: the caller's own array

    result = check("residual_distribution", aliased)
    assert result.case.label == "p equal to q"
    assert "the array you returned is target itself" in result.message
    assert "return a new array" in result.message


def test_other_ways_of_drawing_the_same_numbers_pass():
    def with_uniform_and_arange(target_probs, draft_probs, draft_tokens, rng):
        vocab = target_probs.shape[1]
        tokens = []
        for i, x in enumerate(draft_tokens):
            if rng.uniform() < target_probs[i, x] / draft_probs[i, x]:  # uniform() on [0, 1) is random()
                tokens.append(x)
            else:
                residual = residual_distribution(target_probs[i], draft_probs[i])
                tokens.append(int(rng.choice(np.arange(vocab), p=list(residual))))
                return tokens
        return tokens + [int(rng.choice(vocab, p=target_probs[-1]))]

    assert check("speculative_step", with_uniform_and_arange).passed


def test_a_step_that_ignores_rng_is_told_to_use_it():
    def own_generator(target_probs, draft_probs, draft_tokens, rng):
        return speculative_step(target_probs, draft_probs, draft_tokens, np.random.default_rng(0))  # the mistake

    assert "your function never drew from rng" in check("speculative_step", own_generator).message


SOME_RETURN_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
    st.lists(st.integers(-3, 70), max_size=10), st.lists(st.floats(), max_size=5),
    st.tuples(st.integers(0, 25), st.floats()), st.tuples(st.floats(), st.integers(0, 25)),
    st.builds(np.array, st.lists(st.floats(0, 1), max_size=8)), st.dictionaries(st.text(max_size=2), st.integers()),
)


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(EXERCISE_NAMES), returned=SOME_RETURN_VALUE)
def test_whatever_a_function_returns_check_reports_instead_of_crashing(name, returned):
    result = check(name, lambda *args: returned)
    assert not result.passed  # one constant cannot be right on every case
    assert result.message.startswith(f"✗ {name} fails on case ")
    assert result._repr_html_().startswith("<div")


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message")


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(EXERCISE_NAMES),
       error=st.sampled_from([ValueError("bad"), IndexError("index 4 is out of bounds"), ZeroDivisionError(),
                              Unprintable(), TypeError("unsupported operand"), KeyError(3), RuntimeError()]))
def test_any_exception_becomes_feedback(name, error):
    def raises(*args):
        raise error

    result = check(name, raises)
    assert not result.passed
    assert f"your function raised {type(error).__name__}" in result.message


# --- How the result shows itself ---------------------------------------------------------------


def test_the_result_renders_as_text_and_html_with_the_same_rows():
    result = check("acceptance_rate", lambda target, draft: np.minimum(target, draft).sum())
    assert isinstance(result, CheckResult)
    assert repr(result) == str(result) == result.message
    page = result._repr_html_()
    assert page.startswith("<div") and "✗ acceptance_rate fails on case 1 of" in page
    for label in ("problem", "inputs", "expected", "got", "hint", "try it"):
        assert f">{label}</th>" in page
        assert f"\n  {label}" in result.message


def test_the_rerun_line_gives_the_failing_inputs_again():
    result = check("speculative_step", BROKEN_RULES["resample_from_draft"].function)
    again = BROKEN_RULES["resample_from_draft"].function(*result.case.arguments())
    expected = specdec.speculative_step(*result.case.arguments())
    assert again != expected
    assert f"expected     {expected}" in result.message and f"got          {again}" in result.message


def test_a_failing_check_leaves_the_frozen_cases_untouched():
    def vandal(target, draft):
        target[:] = 0.0
        return 0.5

    check("acceptance_rate", vandal)
    assert check("acceptance_rate", acceptance_rate).passed
    assert math.isclose(specdec.acceptance_rate(*cases_for("acceptance_rate")[0].arguments()), 0.7)


@pytest.mark.parametrize("name, time_limit, error, words", [
    (["acceptance_rate"], 5, TypeError, ["name must be the exercise's name as a string", "got list"]),
    ("acceptance_rate", 0, ValueError, ["time_limit must be a number of seconds in (0, 600]", "got 0"]),
    ("acceptance_rate", float("nan"), ValueError, ["time_limit must be", "got nan"]),
    ("acceptance_rate", "5", ValueError, ["time_limit must be", "got '5'"]),
])
def test_check_refuses_a_bad_name_or_time_limit_naming_it(name, time_limit, error, words):
    with pytest.raises(error) as raised:
        check(name, lambda target, draft: 0.0, time_limit=time_limit)
    assert all(word in str(raised.value) for word in words), str(raised.value)


def test_a_residual_returned_as_complex_numbers_is_a_type_problem():
    import specdec

    def residual_distribution(target, draft):
        return specdec.residual_distribution(target, draft).astype(complex)

    result = check("residual_distribution", residual_distribution)
    assert not result.passed
    assert "numpy.ndarray of complex128, not an array of real numbers" in result.message


# --- Unusual outcomes: long messages, hidden global draws, errors inside numpy ---------------------


def test_an_exception_with_a_very_long_message_is_reported_shortened():
    message = "the rows must sum to one " * 40

    def raises(target, draft):
        raise ValueError(message)

    result = check("acceptance_rate", raises)
    assert not result.passed and result.status == "failed"
    got = next(row.text for row in result.rows if row.label == "got")
    assert got.startswith("ValueError: the rows must sum to one")
    assert got.split("\n")[0].endswith(" …") and len(got) < len(message)


@pytest.mark.parametrize("warm_up, draw", [
    (np.random.random, np.random.random),  # part-way through the block of 624 words: only the position moves
    (np.random.standard_normal, np.random.standard_normal),  # a cached Gaussian: only the cache is used up
], ids=["part_way_through_a_block", "cached_gaussian"])
def test_a_single_global_draw_is_caught_whatever_state_the_global_generator_is_in(warm_up, draw):
    def leftover_draw(target, draft):
        draw()  # the mistake: a draw from the global generator, its value unused
        return acceptance_rate(target, draft)

    saved = np.random.get_state()
    try:
        np.random.seed(0)
        warm_up()
        before = np.random.get_state()
        result = check("acceptance_rate", leftover_draw)
        after = np.random.get_state()
    finally:
        np.random.set_state(saved)
    assert not result.passed
    assert result.hint == checker.GLOBAL_RNG
    assert after[2:] == before[2:] and np.array_equal(after[1], before[1])  # the check put the state back


def test_an_error_raised_inside_numpy_is_placed_on_the_learners_line():
    def unnormalised(target_probs, draft_probs, draft_tokens, rng):
        vocab = len(target_probs[0])
        tokens = []
        for i, x in enumerate(draft_tokens):
            if rng.random() < min(1.0, target_probs[i][x] / draft_probs[i][x]):
                tokens.append(x)
            else:
                excess = np.maximum(target_probs[i] - draft_probs[i], 0.0)  # the mistake: never divided by its sum
                tokens.append(int(rng.choice(vocab, p=excess)))
                return tokens
        tokens.append(int(rng.choice(vocab, p=target_probs[-1])))
        return tokens

    result = check("speculative_step", unnormalised)
    assert not result.passed
    got = next(row.text for row in result.rows if row.label == "got")
    assert got.startswith("ValueError: Probabilities do not sum to 1")
    assert got.endswith("of your unnormalised: tokens.append(int(rng.choice(vocab, p=excess))))")


# --- The cases themselves ------------------------------------------------------------------------


def test_a_random_draft_row_mixes_in_the_target_by_its_closeness():
    from specdec.exercises import cases

    for closeness in (0.0, 0.5, 1.0):
        target, draft = cases._random_rows(3, 7, closeness, np.random.default_rng(5))
        assert target.shape == (4, 7) and draft.shape == (3, 7)
        for rows in (target, draft):
            assert np.all(rows > 0) and np.allclose(rows.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        # q = closeness·p + (1 − closeness)·d with d ≥ 0: q is at least closeness·p, and q = p at closeness 1
        assert np.all(draft >= closeness * target[:-1] - 1e-15)
    assert np.allclose(draft, target[:-1], rtol=0, atol=1e-15)
    # Dirichlet(0.5) draws can be below 1e-9 (a few of these 64 × 601 are): no row may have a zero or negative entry
    target, draft = cases._random_rows(300, 64, 0.0, np.random.default_rng(6))
    assert np.all(target > 0) and np.all(draft > 0)


def test_the_zero_residual_cases_have_no_residual_mass_though_one_draft_token_is_rejectable():
    tagged = [case for name in ("acceptance_rate", "speculative_step") for case in cases_for(name)
              if "zero_residual" in case.tags]
    assert len(tagged) >= 4
    for case in tagged:
        target, draft = case.arguments()[:2]
        target, draft = np.atleast_2d(target)[0], np.atleast_2d(draft)[0]
        assert np.maximum(target - draft, 0.0).sum() == 0.0, case.label  # p ≤ q on every token
        if case.first_uniform is not None:  # and the rigged u rejects the drafted token: u ≥ p(x)/q(x)
            x = case.arguments()[2][0]
            assert target[x] < draft[x] and case.first_uniform >= target[x] / draft[x], case.label
    rounding = [case for case in tagged if case.label.startswith("p ≤ q everywhere up to rounding")]
    assert rounding and all(not np.array_equal(*case.arguments()[:2]) for case in rounding)


def test_a_right_value_in_a_one_element_array_is_told_it_is_right_and_a_longer_array_is_not_a_number():
    one = check("acceptance_rate", lambda target, draft: np.array([np.minimum(target, draft).sum()]))
    assert not one.passed and one.rows[0].text == "the value is right but it is a numpy.ndarray, not a Python float"
    two = check("acceptance_rate", lambda target, draft: np.array([np.minimum(target, draft).sum(), 0.0]))
    assert not two.passed and two.rows[0].text == "your function returned a numpy.ndarray, not a number"
    assert one.hint == two.hint == checker.RETURN_FLOAT


def test_a_number_returned_as_text_is_not_a_number():
    result = check("acceptance_rate", lambda target, draft: str(float(np.minimum(target, draft).sum())))
    assert not result.passed and result.rows[0].text == "your function returned a str, not a number"


@pytest.mark.parametrize("dtype, problem", [
    (int, "the tokens are right but you returned a numpy.ndarray"),
    (float, "your function returned a numpy.ndarray, not a list of token ids: its entries must be integer token "
            "ids, and np.float64("),
])
def test_tokens_returned_as_a_numpy_array_are_told_whether_they_are_right(dtype, problem):
    def as_array(target_probs, draft_probs, draft_tokens, rng):
        return np.array(speculative_step(target_probs, draft_probs, draft_tokens, rng), dtype=dtype)

    result = check("speculative_step", as_array)
    assert not result.passed and result.rows[0].text.startswith(problem)


def test_a_residual_without_its_fallback_gives_nan_and_is_told_the_values_differ():
    def no_fallback(target, draft):
        excess = np.maximum(target - draft, 0.0)
        return excess / excess.sum()  # the mistake: 0 / 0 where max(0, p − q) has no mass

    result = check("residual_distribution", no_fallback)
    assert not result.passed and result.case.label == "p equal to q"
    assert result.rows[0].text == "the values differ"
    assert "nan" in next(row.text for row in result.rows if row.label == "got")


def test_a_residual_far_off_is_told_the_values_differ_not_blamed_on_rounding():
    def unnormalised(target, draft):
        return np.maximum(target - draft, 0.0)  # the mistake: never divided by its sum

    result = check("residual_distribution", unnormalised)
    assert not result.passed and result.rows[0].text == "the values differ"


def test_an_input_changed_by_a_visible_amount_is_not_called_too_little_to_show():
    def in_place(target, draft):
        target -= draft  # the mistake: overwrites the caller's target, by up to max(q) here
        np.maximum(target, 0.0, out=target)
        mass = target.sum()
        return target / mass if mass > 0 else np.array(target + draft)

    result = check("residual_distribution", in_place)
    assert result.rows[0].text == "after the call, target differed from what was passed in"


def test_optimal_gamma_with_a_numpy_integer_gamma_is_told_the_type_of_gamma():
    def numpy_gamma(alpha, c):
        gamma, best = optimal_gamma(alpha, c)
        return np.int64(gamma), best  # the mistake

    result = check("optimal_gamma", numpy_gamma)
    assert result.rows[0].text == "γ is right but it is a numpy.int64, not an int"


def test_worked_example_1_is_the_lessons_worked_example():
    from specdec.narrate import SPEC_DRAFT_TOKENS

    case = cases_for("speculative_step")[0]
    assert case.label == "worked example 1" and case.seed == 0
    assert tuple(case.arguments()[2]) == tuple(SPEC_DRAFT_TOKENS)
    assert specdec.speculative_step(*case.arguments()) == [0, 1, 0]  # A B A, as `python -m specdec step --example`


@pytest.mark.parametrize("case", cases_for("speculative_step"), ids=lambda case: case.label)
def test_the_rule_row_shows_u_and_the_threshold_in_their_true_order_and_u_below_1(case):
    shown = re.findall(r"u = (\S+) ([<≥]) min\(1, p/q\) = (\S+): (accepted|rejected)", checker.explain_step(case))
    assert len(shown) == len(case.arguments()[2]) or shown[-1][3] == "rejected"
    for u, sign, threshold, verdict in shown:
        assert (sign == "<") == (verdict == "accepted")
        assert (float(u) < float(threshold)) == (sign == "<")  # the digits shown tell the order
        assert float(u) < 1  # a uniform is below 1, and a u of 1 − 2⁻⁵³ must not read as 1


def test_a_step_that_draws_from_rng_in_another_way_is_not_given_a_count_of_draws():
    def extra_integer(target_probs, draft_probs, draft_tokens, rng):
        tokens = speculative_step(target_probs, draft_probs, draft_tokens, rng)
        rng.integers(10)  # the mistake: a 32-bit draw, half of one 64-bit draw, so no count of draws reaches it
        return tokens

    result = check("speculative_step", extra_integer)
    assert result.rows[0].text.startswith("the tokens are right, but rng ended in another state")
    flowing = " ".join(result.hint.split())
    assert "your function drew from rng differently (other methods, or a different number of draws)" in flowing
    assert "None" not in flowing


def test_a_time_limit_of_600_seconds_is_allowed_and_more_is_refused():
    assert check("expected_tokens", expected_tokens, time_limit=600).passed
    with pytest.raises(ValueError, match=r"time_limit must be a number of seconds in \(0, 600\]"):
        check("expected_tokens", expected_tokens, time_limit=600.5)


@pytest.mark.parametrize("name", ["expected_tokens", "speedup", "optimal_gamma"])
def test_each_scalar_case_has_the_values_its_label_names(name):
    for case in cases_for(name):
        inputs = dict(case.inputs)
        for symbol, parameter in (("α", "alpha"), ("γ", "gamma"), ("c", "c")):
            for named in re.findall(rf"(?<!\w){symbol} = ([0-9.]+|∞)", case.label):
                assert parameter in inputs and inputs[parameter] == (math.inf if named == "∞" else float(named)), \
                    case.label
        if "α close to 1" in case.label:
            assert 0.99 < inputs["alpha"] < 1
        if "α within 10⁻⁶ of 1" in case.label:
            assert 0 < 1 - inputs["alpha"] <= 1.0000001e-6
