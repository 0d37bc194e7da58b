"""The broken rules: each makes its own mistake and no other, and the sampling check catches each one.

Detection is tested on each rule's `biased_example`:
* the worked example (p₀ = (0.5, 0.3, 0.2, 0), q₀ uniform, p₁ = (0.1, 0.6, 0.2, 0.1),
  q₁ = (0.4, 0.2, 0.2, 0.2), p₂ uniform) for every rule but two (below): the bias shows at position 0,
  except for drop_bonus_token, whose bias shows in the token count only;
* for one_uniform_for_all, two tokens with p₀ = p₁ = (0.9, 0.1), q₀ = q₁ = (0.5, 0.5): position 0
  is right by construction, position 1 and the count are biased;
* for unprocessed_draft_in_ratio, a perfect draft q₀ = p₀ = (0.6, 0.3, 0.1): every draft token is
  accepted, so position 0 follows the draft's sharpened row instead of p₀.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specdec import sample_draft, speculative_step, trace_step
from specdec.broken_rules import BROKEN_RULES, DRAFT_TEMPERATURE, EDGE_CASES, at_temperature, rigged_generator
from specdec.goodness_of_fit import check_steps, compare_steps, goodness_of_fit
from specdec.output_law import position_tokens
from specdec.narrate import random_rows, spec_example
from specdec.sampling import sample_steps
from specdec.temperature import softmax

ALL_FUNCTIONS = [rule.function for rule in BROKEN_RULES.values()] + [case.function for case in EDGE_CASES.values()]
DETECTION_N = 200_000
LOOP_N = 4_000


def test_the_zoo_has_every_mistake_the_issue_asks_for():
    assert {
        "resample_from_target",
        "resample_from_draft",
        "accept_with_target_probability",
        "always_accept",
        "drop_bonus_token",
        "one_uniform_for_all",
        "greedy_draft",
        "unprocessed_draft_in_ratio",
    } <= set(BROKEN_RULES)
    assert set(EDGE_CASES) == {"accept_on_equal", "residual_without_fallback"}


@pytest.mark.parametrize("rule", BROKEN_RULES.values(), ids=list(BROKEN_RULES))
def test_registry_entries_are_complete(rule):
    assert rule.function.__name__ == rule.name
    for text in (rule.mistake, rule.real_world, rule.where_it_shows):
        assert isinstance(text, str) and len(text) > 30 and text.endswith(".")
    target_probs, draft_probs = rule.example_rows()
    assert target_probs.shape[0] == draft_probs.shape[0] + 1
    assert np.allclose(target_probs.sum(axis=1), 1) and np.allclose(draft_probs.sum(axis=1), 1)
    assert rule.biased_position is None or 0 <= rule.biased_position < target_probs.shape[0]
    rule.example_rows()[0][0, 0] = 9.0  # fresh arrays each time
    assert rule.example_rows()[0][0, 0] != 9.0


@pytest.mark.parametrize("entry", [*BROKEN_RULES.values(), *EDGE_CASES.values()], ids=lambda entry: entry.name)
def test_learner_facing_texts_use_learner_words(entry):
    texts = [entry.mistake, entry.real_world, getattr(entry, "where_it_shows", ""), getattr(entry, "symptom", "")]
    for word in ("SPEC", "contract", "nbval"):
        assert not any(word in text for text in texts), word


@pytest.mark.parametrize("function", ALL_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "target_probs, draft_probs, draft_tokens, error, words",
    [
        ([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5]], [2], ValueError, "out of range"),
        ([[0.5, 0.5], [0.5, 0.5]], [[1.0, 0.0]], [1], ValueError, "draft probability"),
        ([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5]], [0, 1], ValueError, "one token per draft row"),
        ([[0.5, 0.5]], [[0.5, 0.5]], [0], ValueError, "one row more"),
        ([[0.5, 0.7], [0.5, 0.5]], [[0.5, 0.5]], [0], ValueError, "sum to 1"),
        ([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5]], [0.0], TypeError, "integer token id"),
    ],
)
def test_arguments_are_checked_like_the_core_before_any_draw(function, target_probs, draft_probs, draft_tokens, error, words):
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(error, match=words):
        function(target_probs, draft_probs, draft_tokens, rng)
    assert rng.bit_generator.state == before
    with pytest.raises(TypeError, match="Generator"):
        function([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5]], [0], 42)


@pytest.mark.parametrize("function", ALL_FUNCTIONS, ids=lambda f: f.__name__)
def test_inputs_are_not_modified_and_outputs_are_python_ints(function):
    target_probs, draft_probs = random_rows(3, 5, 0.4, np.random.default_rng(0))
    tokens = sample_draft(draft_probs, np.random.default_rng(1))
    copies = target_probs.copy(), draft_probs.copy(), list(tokens)
    for seed in range(20):
        output = function(target_probs, draft_probs, tokens, np.random.default_rng(seed))
        assert all(type(token) is int for token in output)
    assert np.array_equal(target_probs, copies[0]) and np.array_equal(draft_probs, copies[1])
    assert tokens == copies[2]


# --- Each rule makes its own mistake and no other: the same draws as the rule where it can ---------

step_cases = st.tuples(st.integers(0, 4), st.integers(2, 6), st.floats(0.0, 1.0), st.integers(0, 2**31))


def make_step(case):
    gamma, vocab, closeness, seed = case
    target_probs, draft_probs = random_rows(gamma, vocab, closeness, np.random.default_rng(seed))
    tokens = sample_draft(draft_probs, np.random.default_rng(seed + 1)) if gamma else []
    return target_probs, draft_probs, tokens, seed + 2


def run(function, target_probs, draft_probs, tokens, seed):
    rng = np.random.default_rng(seed)
    return function(target_probs, draft_probs, tokens, rng), rng.bit_generator.state


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_resampling_mistakes_change_only_the_replacement_token(case):
    target_probs, draft_probs, tokens, seed = make_step(case)
    correct, correct_state = run(speculative_step, target_probs, draft_probs, tokens, seed)
    for name in ("resample_from_target", "resample_from_draft"):
        broken, state = run(BROKEN_RULES[name].function, target_probs, draft_probs, tokens, seed)
        assert len(broken) == len(correct) and broken[:-1] == correct[:-1]
        assert state == correct_state  # one choice() is one choice(), whatever its weights
        if len(correct) == len(tokens) + 1:
            assert broken == correct  # nothing was rejected, so nothing was resampled


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_edge_case_rules_agree_with_the_rule_on_ordinary_draws(case):
    target_probs, draft_probs, tokens, seed = make_step(case)
    correct = run(speculative_step, target_probs, draft_probs, tokens, seed)
    for edge_case in EDGE_CASES.values():
        assert run(edge_case.function, target_probs, draft_probs, tokens, seed) == correct


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_greedy_draft_is_the_rule_applied_to_the_argmax_tokens(case):
    target_probs, draft_probs, tokens, seed = make_step(case)
    greedy_tokens = [int(np.argmax(row)) for row in draft_probs]
    expected = run(speculative_step, target_probs, draft_probs, greedy_tokens, seed)
    assert run(BROKEN_RULES["greedy_draft"].function, target_probs, draft_probs, tokens, seed) == expected


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_unprocessed_draft_in_ratio_is_the_rule_applied_to_tokens_drafted_at_temperature(case):
    target_probs, draft_probs, tokens, seed = make_step(case)
    rng = np.random.default_rng(seed)
    vocab = target_probs.shape[1]
    # An independent recipe: q' = softmax(log q / T), one draw per row, then the correct rule on the same rng.
    with np.errstate(divide="ignore"):
        sharpened = [softmax(np.log(row), DRAFT_TEMPERATURE) for row in draft_probs]
    drafted = [int(rng.choice(vocab, p=row)) for row in sharpened]
    expected = speculative_step(target_probs, draft_probs, drafted, rng), rng.bit_generator.state
    assert run(BROKEN_RULES["unprocessed_draft_in_ratio"].function, target_probs, draft_probs, tokens, seed) == expected


def test_at_temperature_is_the_softmax_of_the_log_probabilities_over_t():
    rows = np.array([[0.6, 0.3, 0.1, 0.0], [0.25, 0.25, 0.25, 0.25]])
    with np.errstate(divide="ignore"):
        for temperature in (0.5, 0.8, 2.0):
            expected = [softmax(np.log(row), temperature) for row in rows]
            assert np.allclose(at_temperature(rows, temperature), expected, rtol=0, atol=1e-15)


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_drop_bonus_token_only_drops_the_bonus(case):
    target_probs, draft_probs, tokens, seed = make_step(case)
    trace = trace_step(target_probs, draft_probs, tokens, np.random.default_rng(seed))
    broken, state = run(BROKEN_RULES["drop_bonus_token"].function, target_probs, draft_probs, tokens, seed)
    if trace.all_accepted:
        assert broken == trace.tokens[:-1]
    else:
        correct, correct_state = run(speculative_step, target_probs, draft_probs, tokens, seed)
        assert (broken, state) == (correct, correct_state)


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_one_uniform_for_all_differs_only_from_position_one_on(case):
    target_probs, draft_probs, tokens, seed = make_step(case)
    correct = run(speculative_step, target_probs, draft_probs, tokens, seed)
    broken = run(BROKEN_RULES["one_uniform_for_all"].function, target_probs, draft_probs, tokens, seed)
    if len(tokens) <= 1:
        assert broken == correct
    else:
        assert broken[0][0] == correct[0][0]  # the first uniform is the same draw


@pytest.mark.parametrize("first_uniform, seed", [(0.25, 1), (0.75, 4)])
def test_one_uniform_for_all_judges_position_one_on_the_first_uniform(first_uniform, seed):
    # Token 0 at both positions: thresholds min(1, 0.5/0.5) = 1, then min(1, 0.25/0.5) = 0.5. The first uniform
    # passes position 0 either way; reused at position 1, 0.25 passes and 0.75 rejects (the residual is token 1).
    # The seeds make the correct rule's second uniform fall on the other side of 0.5 (0.58 and 0.17).
    target_probs = np.array([[0.5, 0.5], [0.25, 0.75], [0.5, 0.5]])
    draft_probs = np.array([[0.5, 0.5], [0.5, 0.5]])
    broken = BROKEN_RULES["one_uniform_for_all"].function(target_probs, draft_probs, [0, 0],
                                                          rigged_generator(first_uniform, seed))
    correct = speculative_step(target_probs, draft_probs, [0, 0], rigged_generator(first_uniform, seed))
    reused_passes = first_uniform < 0.5
    assert broken[:2] == ([0, 0] if reused_passes else [0, 1]) and len(broken) == (3 if reused_passes else 2)
    assert correct[:2] == ([0, 1] if reused_passes else [0, 0])


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_always_accept_emits_the_draft_and_draws_only_the_bonus(case):
    target_probs, draft_probs, tokens, seed = make_step(case)
    broken, _ = run(BROKEN_RULES["always_accept"].function, target_probs, draft_probs, tokens, seed)
    bonus = int(np.random.default_rng(seed).choice(target_probs.shape[1], p=target_probs[-1]))
    assert broken == tokens + [bonus]


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_accept_with_target_probability_is_right_only_for_one_hot_drafts(case):
    target_probs, _, _, seed = make_step(case)
    gamma, vocab = target_probs.shape[0] - 1, target_probs.shape[1]
    tokens = list(np.random.default_rng(seed).integers(0, vocab, size=gamma))
    one_hot = np.eye(vocab)[tokens].reshape(gamma, vocab)
    # With q = δₓ, min(1, p(x)/q(x)) = p(x), so the mistaken threshold is the right one.
    expected = run(speculative_step, target_probs, one_hot, tokens, seed)
    assert run(BROKEN_RULES["accept_with_target_probability"].function, target_probs, one_hot, tokens, seed) == expected


@settings(max_examples=50, deadline=None)
@given(step_cases)
def test_swapped_roles_is_right_only_when_p_equals_q(case):
    target_probs, _, _, seed = make_step(case)
    draft_probs = target_probs[:-1].copy()
    tokens = sample_draft(draft_probs, np.random.default_rng(seed)) if len(draft_probs) else []
    expected = run(speculative_step, target_probs, draft_probs, tokens, seed)
    assert run(BROKEN_RULES["swapped_roles"].function, target_probs, draft_probs, tokens, seed) == expected


# --- The check catches each one ---------------------------------------------------------------------


def loop_steps(function, target_probs, draft_probs, n, seed):
    rng = np.random.default_rng(seed)
    tokens = np.full((n, target_probs.shape[0]), -1)
    for s in range(n):
        emitted = function(target_probs, draft_probs, sample_draft(draft_probs, rng), rng)
        tokens[s, : len(emitted)] = emitted
    return tokens, (tokens >= 0).sum(axis=1)


def biased_p_value(rule, tokens, counts):
    target_probs, draft_probs = rule.example_rows()
    check = check_steps(tokens, counts, target_probs, draft_probs)
    fit = check.counts if rule.biased_position is None else check.positions[rule.biased_position]
    return fit.p_value, fit.verdict


@pytest.mark.parametrize("rule", BROKEN_RULES.values(), ids=list(BROKEN_RULES))
def test_every_broken_rule_is_detected_at_200000_steps(rule):
    target_probs, draft_probs = rule.example_rows()
    correct_tokens, correct_counts = sample_steps(target_probs, draft_probs, DETECTION_N, np.random.default_rng(1))
    assert check_steps(correct_tokens, correct_counts, target_probs, draft_probs).passed
    tokens, counts = rule.sample_steps(target_probs, draft_probs, DETECTION_N, np.random.default_rng(1))
    p_value, verdict = biased_p_value(rule, tokens, counts)
    assert p_value < 1e-6, verdict
    assert verdict.startswith("fails:")
    assert not check_steps(tokens, counts, target_probs, draft_probs).passed  # the whole check fails too


@pytest.mark.parametrize("rule", BROKEN_RULES.values(), ids=list(BROKEN_RULES))
def test_the_real_function_is_caught_too_and_its_fast_variant_has_the_same_law(rule):
    target_probs, draft_probs = rule.example_rows()
    looped, looped_counts = loop_steps(rule.function, target_probs, draft_probs, LOOP_N, seed=5)
    p_value, verdict = biased_p_value(rule, looped, looped_counts)
    assert p_value < 1e-6, verdict
    fast, _ = rule.sample_steps(target_probs, draft_probs, 100_000, np.random.default_rng(6))
    agreement = compare_steps(looped, fast)
    assert agreement.p_value > 1e-3, agreement.verdict


def spec_position_zero_laws():
    """The law of position 0 of each rule on the worked example's rows, written from the mistake's description."""
    (target, _, _), (draft, _) = spec_example()[0], spec_example()[1]
    p, q = target, draft
    overlap = np.minimum(p, q)
    residual = np.maximum(p - q, 0) / np.maximum(p - q, 0).sum()
    alpha = overlap.sum()
    accepted_by_p = q * p
    swapped_accepted = q * np.where(q >= p, 1.0, q / np.where(p > 0, p, 1.0))
    swapped_residual = np.maximum(q - p, 0) / np.maximum(q - p, 0).sum()
    greedy_token = int(np.argmax(q))
    greedy_accept = min(1.0, p[greedy_token] / q[greedy_token])
    return {
        "resample_from_target": overlap + (1 - alpha) * p,
        "resample_from_draft": overlap + (1 - alpha) * q,
        "accept_with_target_probability": accepted_by_p + (1 - accepted_by_p.sum()) * residual,
        "always_accept": q,
        "greedy_draft": greedy_accept * np.eye(4)[greedy_token] + (1 - greedy_accept) * residual,
        "swapped_roles": swapped_accepted + (1 - swapped_accepted.sum()) * swapped_residual,
    }


@pytest.mark.parametrize("name, law", spec_position_zero_laws().items())
def test_each_rule_produces_exactly_the_law_its_mistake_implies(name, law):
    rule = BROKEN_RULES[name]
    target_probs, draft_probs = rule.example_rows()
    assert not np.allclose(law, target_probs[0])
    tokens, counts = rule.sample_steps(target_probs, draft_probs, DETECTION_N, np.random.default_rng(2))
    fit = goodness_of_fit(position_tokens(tokens, counts, 0), law)
    assert fit.p_value > 1e-3, fit.verdict


def test_unprocessed_draft_in_ratio_produces_the_law_its_description_states():
    rule = BROKEN_RULES["unprocessed_draft_in_ratio"]
    target_probs, draft_probs = rule.example_rows()
    sharpened = draft_probs[0] ** 2 / (draft_probs[0] ** 2).sum()  # q at T = 1/2, written out
    assert np.allclose(sharpened, [0.78, 0.20, 0.02], atol=0.005) and not np.allclose(sharpened, target_probs[0])
    tokens, counts = rule.sample_steps(target_probs, draft_probs, DETECTION_N, np.random.default_rng(4))
    assert np.all(counts == 2)  # q = p: every draft token passes, as with the correct rule
    assert goodness_of_fit(position_tokens(tokens, counts, 0), sharpened).p_value > 1e-3
    assert goodness_of_fit(position_tokens(tokens, counts, 1), target_probs[1]).passed


def test_unprocessed_draft_in_ratio_is_also_caught_on_the_worked_example_at_position_one():
    # q₀ is uniform there, and a uniform row is the same at any temperature: only position 1 shows it.
    rule = BROKEN_RULES["unprocessed_draft_in_ratio"]
    target_probs, draft_probs, _ = spec_example()
    tokens, counts = rule.sample_steps(target_probs, draft_probs, DETECTION_N, np.random.default_rng(5))
    check = check_steps(tokens, counts, target_probs, draft_probs)
    assert check.positions[0].passed and check.positions[1].p_value < 1e-6


def test_one_uniform_and_drop_bonus_produce_the_laws_their_descriptions_state():
    rule = BROKEN_RULES["one_uniform_for_all"]
    tokens, counts = rule.sample_steps(*rule.example_rows(), DETECTION_N, np.random.default_rng(3))
    assert goodness_of_fit(position_tokens(tokens, counts, 1), [5 / 6, 1 / 6]).p_value > 1e-3
    assert goodness_of_fit(counts - 1, [0.4, 0.2, 0.4]).p_value > 1e-3
    rule = BROKEN_RULES["drop_bonus_token"]
    tokens, counts = rule.sample_steps(*rule.example_rows(), DETECTION_N, np.random.default_rng(3))
    assert goodness_of_fit(counts - 1, [0.3, 0.7]).p_value > 1e-3
    for i in range(2):  # every emitted token still has the right law
        assert goodness_of_fit(position_tokens(tokens, counts, i), rule.example_rows()[0][i]).passed


def test_a_step_that_emits_nothing_fails_the_count_check_at_once():
    rule = BROKEN_RULES["drop_bonus_token"]
    target_probs, draft_probs = np.array([[0.3, 0.7]]), np.empty((0, 2))
    assert rule.function(target_probs, [], [], np.random.default_rng(0)) == []
    tokens, counts = rule.sample_steps(target_probs, [], 1_000, np.random.default_rng(0))
    assert np.all(counts == 0) and np.all(tokens == -1)
    check = check_steps(tokens, counts, target_probs, draft_probs)
    assert not check.counts.passed and check.counts.impossible == 1_000
    assert "count" in check.counts.verdict


# --- Edge cases: invisible to sampling, exposed by a rigged generator -------------------------------


@pytest.mark.parametrize("value", [0.0, 0.25, 0.5, 1 - 2.0**-53, 2.0**-53, 0.123456789])
def test_rigged_generator_produces_the_chosen_uniform(value):
    rng = rigged_generator(value)
    expected = np.floor(value * 2.0**53) / 2.0**53
    assert rng.random() == expected
    assert 0.0 <= rng.random() < 1.0  # and carries on as an ordinary generator


def test_rigged_generator_rejects_values_outside_the_unit_interval():
    with pytest.raises(ValueError, match="first_uniform"):
        rigged_generator(1.0)


def test_accept_on_equal_emits_an_impossible_token_when_u_is_zero():
    case = EDGE_CASES["accept_on_equal"]
    target_probs, draft_probs, tokens = case.example
    broken = case.function(target_probs, draft_probs, tokens, rigged_generator(case.fatal_uniform))
    correct = speculative_step(target_probs, draft_probs, tokens, rigged_generator(case.fatal_uniform))
    assert target_probs[0, broken[0]] == 0.0
    assert target_probs[0, correct[0]] > 0.0 and len(correct) == 1


def test_residual_without_fallback_crashes_where_the_rule_falls_back():
    case = EDGE_CASES["residual_without_fallback"]
    target_probs, draft_probs, tokens = case.example
    with pytest.raises(ValueError, match="NaN"):
        case.function(target_probs, draft_probs, tokens, rigged_generator(case.fatal_uniform))
    trace = trace_step(target_probs, draft_probs, tokens, rigged_generator(case.fatal_uniform))
    assert not trace.positions[0].accepted  # the rule rejected too, and drew from its fallback
    assert not np.isnan(trace.positions[0].residual).any()
