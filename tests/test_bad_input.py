"""Issue 12: each public function refuses bad input with a message naming the argument, before any
draw and without touching the input; where the input is valid, the output is finite and correct.

Every case calls the public function with an argument that is wrong in exactly one way, then checks
the error type, the words of its message, that the generator made no draw and that every argument
still equals a deep copy taken before the call.
"""

import copy
import dataclasses
import math

import numpy as np
import pytest

import specdec as sd
from specdec import validation
from specdec.goodness_of_fit import (
    MAX_SIZES,
    MAX_TOTAL_COUNT,
    check_steps,
    fit_counts,
    format_p_value,
    goodness_of_fit,
    max_deviation_by_size,
)
from specdec.output_law import position_law, position_tokens, reach_probabilities, token_count_law
from specdec.narrate import spec_example
from specdec.temperature import related_logits, softmax
from specdec.text import Generation, NGramModel, generate, mean_acceptance_rate, sample_contexts, speculative_generate
from specdec.text.agreement import MAX_CONTEXT_LENGTH, MAX_CONTEXTS
from specdec.text.corpus import stdlib_source_files
from specdec.text.generation import MAX_TOKENS
from specdec.text.ngram import MAX_TEXT_LENGTH

TARGET_PROBS, DRAFT_PROBS, DRAFT_TOKENS = spec_example()
P, Q = TARGET_PROBS[0], DRAFT_PROBS[0]
TEXT = "the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat."
TARGET_MODEL, DRAFT_MODEL = NGramModel(order=3).fit(TEXT), NGramModel(order=1).fit(TEXT)


def same(first, second) -> bool:
    """Deep equality of an argument and its deep copy: numpy arrays by dtype, shape and values, and
    objects without their own ``==`` (a fitted model) attribute by attribute."""
    if type(first) is not type(second):
        return False
    if isinstance(first, np.ndarray):
        return (first.dtype == second.dtype and first.shape == second.shape
                and np.array_equal(first, second, equal_nan=first.dtype.kind in "fc"))
    if isinstance(first, (list, tuple)):
        return len(first) == len(second) and all(map(same, first, second))
    if isinstance(first, dict):
        return first.keys() == second.keys() and all(same(first[key], second[key]) for key in first)
    if isinstance(first, float) and math.isnan(first):
        return math.isnan(second)
    if dataclasses.is_dataclass(first):
        return all(same(getattr(first, f.name), getattr(second, f.name)) for f in dataclasses.fields(first))
    if hasattr(first, "__dict__") and type(first).__eq__ is object.__eq__:
        return same(vars(first), vars(second))
    return first == second


def assert_refused(function, arguments, error, words, absent=()):
    """Call function(*arguments, rng), expect `error` with every one of `words` (and none of `absent`)
    in its message, and check that rng made no draw and the arguments are unchanged."""
    rng = np.random.default_rng(12)
    state = copy.deepcopy(rng.bit_generator.state)
    before = copy.deepcopy(arguments)
    with pytest.raises(error) as raised:
        function(*arguments, rng)
    message = str(raised.value)
    for word in words:
        assert word in message, f"{word!r} missing from: {message}"
    for word in absent:
        assert word not in message, f"{word!r} should not be in: {message}"
    assert rng.bit_generator.state == state, "a draw was made before the refusal"
    assert same(arguments, before), "an argument was modified"


# 1. Complex input, refused wherever an array or a number is read. -----------------------------------

COMPLEX_P = np.array([0.5 + 0.2j, 0.3 - 0.2j, 0.2, 0.0])
COMPLEX_ROWS = TARGET_PROBS.astype(complex)
COMPLEX_ROWS[0, :2] += [0.2j, -0.2j]
COMPLEX_LIST_OF_ROWS = [row.astype(complex) for row in DRAFT_PROBS]  # a list of complex arrays, not one array

# (id, function taking (*arguments, rng), arguments, the argument the message must name)
COMPLEX_CASES = [
    ("acceptance_rate", lambda p, q, rng: sd.acceptance_rate(p, q), (COMPLEX_P, Q), "target"),
    ("residual_distribution", lambda p, q, rng: sd.residual_distribution(p, q), (P, COMPLEX_P), "draft"),
    ("tv_distance", lambda p, q, rng: sd.tv_distance(p, q), (COMPLEX_P, Q), "p"),
    ("kl_divergence", lambda p, q, rng: sd.kl_divergence(p, q), (P, COMPLEX_P), "q"),
    ("position_law", lambda p, q, rng: position_law(p, q), (COMPLEX_P, Q), "target"),
    ("speculative_step", lambda t, d, x, rng: sd.speculative_step(t, d, x, rng),
     (COMPLEX_ROWS, DRAFT_PROBS, DRAFT_TOKENS), "target_probs"),
    ("speculative_step list of complex rows", lambda t, d, x, rng: sd.speculative_step(t, d, x, rng),
     (TARGET_PROBS, COMPLEX_LIST_OF_ROWS, DRAFT_TOKENS), "draft_probs"),
    ("trace_step", lambda t, d, x, rng: sd.trace_step(t, d, x, rng),
     (TARGET_PROBS, DRAFT_PROBS.astype(complex), DRAFT_TOKENS), "draft_probs"),
    ("sample_draft", lambda d, rng: sd.sample_draft(d, rng), (DRAFT_PROBS.astype(np.complex64),), "draft_probs"),
    ("acceptance_rates", lambda t, d, rng: sd.acceptance_rates(t, d), (COMPLEX_ROWS, DRAFT_PROBS), "target_probs"),
    ("token_count_law", lambda t, d, rng: token_count_law(t, d), (COMPLEX_ROWS, DRAFT_PROBS), "target_probs"),
    ("reach_probabilities", lambda t, d, rng: reach_probabilities(t, d), (TARGET_PROBS, COMPLEX_LIST_OF_ROWS),
     "draft_probs"),
    ("sample_steps", lambda t, d, n, rng: sd.sample_steps(t, d, n, rng), (COMPLEX_ROWS, DRAFT_PROBS, 100),
     "target_probs"),
    ("softmax", lambda z, rng: softmax(z), (np.array([1.0 + 1.0j, 0.0]),), "logits"),
    ("softmax list", lambda z, rng: softmax(z), ([1.0 + 1.0j, 0.0],), "logits"),
    ("real_array", lambda z, rng: validation.real_array(z, "z"), (np.array([1j]),), "z"),
]

# Scalars: numbers.Real excludes complex, so these are refused by type.
COMPLEX_SCALAR_CASES = [
    ("expected_tokens", lambda a, rng: sd.expected_tokens(a, 3), (np.complex128(0.5),), "alpha"),
    ("token_count_distribution", lambda a, rng: sd.token_count_distribution(a, 3), (0.5 + 0j,), "alpha"),
    ("speedup", lambda c, rng: sd.speedup(0.8, 3, c), (20 + 0j,), "c"),
    ("softmax temperature", lambda t, rng: softmax([1.0, 0.0], t), (1 + 0j,), "temperature"),
    ("related_logits spread", lambda s, rng: related_logits(4, rng, spread=s), (2 + 0j,), "spread"),
    ("NGramModel temperature", lambda t, rng: NGramModel(2, temperature=t), (1 + 0j,), "temperature"),
]

COMPLEX_RATE_CASES = [
    pytest.param(function, id=function.__name__)
    for function in (sd.token_count_distribution_for_rates, sd.expected_tokens_for_rates, sd.survival_probabilities)
]


@pytest.mark.parametrize("function, arguments, name", [case[1:] for case in COMPLEX_CASES],
                         ids=[case[0] for case in COMPLEX_CASES])
def test_complex_arrays_are_refused_naming_the_argument(function, arguments, name):
    assert_refused(function, arguments, TypeError, [f"{name} must be", "complex", ".real"])


@pytest.mark.parametrize("function, arguments, name", [case[1:] for case in COMPLEX_SCALAR_CASES],
                         ids=[case[0] for case in COMPLEX_SCALAR_CASES])
def test_complex_numbers_are_refused_naming_the_argument(function, arguments, name):
    assert_refused(function, arguments, TypeError, [f"{name} must be", "complex"])


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("function", COMPLEX_RATE_CASES)
def test_complex_rates_are_refused(function):
    # Today numpy only warns (ComplexWarning) and the call goes on: "DID NOT RAISE".
    assert_refused(lambda rates, rng: function(rates), (np.array([0.5 + 0.1j, 0.5]),), TypeError, ["rates", "complex"])


def test_a_float64_array_is_not_copied_on_the_fast_path():
    # speculative_step runs in loops: the complex check must cost nothing for float64 arrays.
    assert validation.as_float_array(TARGET_PROBS, "target_probs", 2) is TARGET_PROBS
    assert validation.real_array(P, "p") is P


def test_text_and_objects_that_are_not_numbers_are_refused():
    for bad in (["0.5", "0.5"], np.array([{"p": 0.5}, 0.5], dtype=object), [0.5, [0.5, 0.0]]):
        assert_refused(lambda p, rng: sd.acceptance_rate(p, Q), (bad,), TypeError, ["target", "numbers"])


def test_real_values_of_every_numeric_kind_still_work():
    expected = sd.acceptance_rate(P, Q)
    assert sd.acceptance_rate(P.tolist(), Q.astype(np.float32).astype(np.float64)) == expected
    assert sd.acceptance_rate(np.array([1, 0]), np.array([True, False])) == 1.0
    from fractions import Fraction

    assert sd.acceptance_rate(np.array([Fraction(1, 2), Fraction(1, 2)], dtype=object), [0.5, 0.5]) == 1.0


# 2. Helpers that had no checks. ---------------------------------------------------------------------

# (id, function, arguments, error, words)
HELPER_CASES = [
    ("max_deviation token out of range", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     ([0, 5, 1], [0.5, 0.5], [3]), ValueError, ["samples[1] = 5", "out of range", "0 … 1"]),
    ("max_deviation negative token", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     (np.array([0, -1, 1]), [0.5, 0.5], [3]), ValueError, ["samples[1] = -1", "0 … 1"]),
    ("max_deviation float samples", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     (np.array([0.0, 1.0, 1.9]), [0.5, 0.5], [3]), TypeError, ["samples", "integer", "float64"]),
    ("max_deviation float sizes", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     ([0, 1, 1], [0.5, 0.5], [1.5, 3]), TypeError, ["sizes", "integer", "1.5"]),
    ("max_deviation NaN size", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     ([0, 1, 1], [0.5, 0.5], [math.nan]), TypeError, ["sizes", "integer", "nan"]),
    ("max_deviation negative size", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     ([0, 1, 1], [0.5, 0.5], np.array([-2, 3])), ValueError, ["sizes[0] = -2", "1 … 3"]),
    ("max_deviation size past the samples", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     ([0, 1, 1], [0.5, 0.5], [4]), ValueError, ["sizes[0] = 4", "1 … 3"]),
    ("max_deviation 2-D sizes", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     ([0, 1, 1], [0.5, 0.5], [[1, 2]]), ValueError, ["sizes", "1-D"]),
    ("max_deviation no samples", lambda s, e, z, rng: max_deviation_by_size(s, e, z),
     ([], [0.5, 0.5], [1]), ValueError, ["samples", "at least one"]),
    ("format_p_value NaN", lambda p, rng: format_p_value(p), (math.nan,), ValueError, ["p_value", "[0, 1]", "nan"]),
    ("format_p_value negative", lambda p, rng: format_p_value(p), (-0.5,), ValueError, ["p_value", "[0, 1]", "-0.5"]),
    ("format_p_value above 1", lambda p, rng: format_p_value(p), (1.5,), ValueError, ["p_value", "[0, 1]", "1.5"]),
    ("format_p_value text", lambda p, rng: format_p_value(p), ("0.5",), TypeError, ["p_value", "real number", "str"]),
    ("decode id V", lambda ids, rng: DRAFT_MODEL.decode(ids), ([0, len(DRAFT_MODEL.vocab)],), ValueError,
     ["ids[1]", "out of range", f"0 … {len(DRAFT_MODEL.vocab) - 1}"]),
    ("decode id -1", lambda ids, rng: DRAFT_MODEL.decode(ids), ([-1],), ValueError, ["ids[0] = -1", "out of range"]),
    ("decode id 1.7", lambda ids, rng: DRAFT_MODEL.decode(ids), ([1.7],), TypeError, ["ids", "integer", "1.7"]),
    ("decode bools", lambda ids, rng: DRAFT_MODEL.decode(ids), (np.array([True]),), TypeError, ["ids", "integer", "bool"]),
    ("decode text", lambda ids, rng: DRAFT_MODEL.decode(ids), ("ab",), TypeError, ["ids", "integer", "str"]),
    ("decode 2-D", lambda ids, rng: DRAFT_MODEL.decode(ids), ([[0, 1]],), ValueError, ["ids", "1-D"]),
    ("mean_acceptance_rate target None", lambda t, d, c, rng: mean_acceptance_rate(t, d, c),
     (None, DRAFT_MODEL, ["the "]), TypeError, ["target", "language model", "NoneType"]),
    ("mean_acceptance_rate draft None", lambda t, d, c, rng: mean_acceptance_rate(t, d, c),
     (TARGET_MODEL, None, ["the "]), TypeError, ["draft", "language model", "NoneType"]),
    ("mean_acceptance_rate other vocabulary", lambda t, d, c, rng: mean_acceptance_rate(t, d, c),
     (TARGET_MODEL, NGramModel(2).fit("xyz"), ["the "]), ValueError, ["target and draft", "vocabulary"]),
    ("mean_acceptance_rate context not str", lambda t, d, c, rng: mean_acceptance_rate(t, d, c),
     (TARGET_MODEL, DRAFT_MODEL, ["the ", 3]), TypeError, ["contexts[1]", "str", "int"]),
]


@pytest.mark.parametrize("function, arguments, error, words", [case[1:] for case in HELPER_CASES],
                         ids=[case[0] for case in HELPER_CASES])
def test_helpers_refuse_bad_input(function, arguments, error, words):
    assert_refused(function, arguments, error, words)


@pytest.mark.parametrize("root, error, words", [
    (42, TypeError, ["root must be a path", "int"]),
    ("/no/such/directory", ValueError, ["root must be an existing directory", "/no/such/directory"]),
    (__file__, ValueError, ["root must be an existing directory"]),
], ids=["int", "missing", "a file"])
def test_stdlib_source_files_wants_an_existing_directory(root, error, words):
    assert_refused(lambda r, rng: stdlib_source_files(r), (root,), error, words)


GOOD_GENERATION = dict(prompt="th", text="e c", origins=("accepted", "accepted", "resampled"), tokens_per_step=(3,),
                       target_calls=1, draft_calls=4, gamma=4, visited_acceptance_rates=(0.9, 0.7, 0.5),
                       visited_accepted=(True, True, False))
BAD_GENERATIONS = [
    ("origins shorter than text", dict(prompt="", text="abc", origins=("accepted",)), ValueError,
     ["origins", "text has 3 characters", "1 entries"]),
    ("unknown origin", dict(origins=("accepted", "accepted", "rejected")), ValueError,
     ["origins[2] = 'rejected'", "accepted, resampled, bonus, target"]),
    ("steps do not sum to the text", dict(tokens_per_step=(2,)), ValueError, ["tokens_per_step", "sum", "3"]),
    ("one step per target call", dict(target_calls=2, draft_calls=8), ValueError, ["tokens_per_step", "target call"]),
    ("a step longer than γ+1", dict(gamma=1, draft_calls=1, visited_acceptance_rates=(0.9,),
                                    visited_accepted=(True,)), ValueError, ["tokens_per_step", "γ+1 = 2"]),
    ("an empty step", dict(tokens_per_step=(3, 0), target_calls=2, draft_calls=8), ValueError,
     ["tokens_per_step[1]", ">= 1"]),
    ("draft calls not γ per step", dict(draft_calls=3), ValueError, ["draft_calls", "γ × target_calls", "got 3"]),
    ("draft calls without γ", dict(gamma=None), ValueError, ["draft_calls", "none without γ"]),
    ("rates and flags differ", dict(visited_accepted=(True, True)), ValueError,
     ["visited_accepted", "visited_acceptance_rates", "2 and 3"]),
    ("a rate above 1", dict(visited_acceptance_rates=(0.9, 1.7, 0.5)), ValueError,
     ["visited_acceptance_rates[1]", "[0, 1]"]),
    ("a flag that is not a bool", dict(visited_accepted=(True, 1, False)), TypeError, ["visited_accepted[1]", "bool"]),
    ("text not a str", dict(text=None), TypeError, ["text", "str", "NoneType"]),
    ("negative discarded", dict(discarded=-1), ValueError, ["discarded", ">= 0"]),
    ("float target calls", dict(target_calls=1.0), TypeError, ["target_calls", "integer"]),
    ("origins not a sequence", dict(origins=3), TypeError, ["origins", "tuple", "int"]),
]


@pytest.mark.parametrize("changes, error, words", [case[1:] for case in BAD_GENERATIONS],
                         ids=[case[0] for case in BAD_GENERATIONS])
def test_an_inconsistent_generation_is_refused_at_construction(changes, error, words):
    assert_refused(lambda fields, rng: Generation(**fields), ({**GOOD_GENERATION, **changes},), error, words)


def test_consistent_generations_are_built_and_lists_become_tuples():
    generation = Generation(**{**GOOD_GENERATION, "origins": list(GOOD_GENERATION["origins"])})
    assert generation.origins == GOOD_GENERATION["origins"] and generation.origin_letters == "aaR"
    rng = np.random.default_rng(0)
    for result in (generate(TARGET_MODEL, "the ", 25, rng), speculative_generate(TARGET_MODEL, DRAFT_MODEL, "the ", 25, 3, rng)):
        assert Generation(**{name: getattr(result, name) for name in GOOD_GENERATION} | {"discarded": result.discarded}) == result


# 3. check_steps names the argument that is wrong. -----------------------------------------------------

STEP_TOKENS, STEP_COUNTS = sd.sample_steps(TARGET_PROBS, DRAFT_PROBS, 2_000, np.random.default_rng(0))
TOKEN_99 = STEP_TOKENS.copy()
TOKEN_99[5, 0] = 99
PADDING_READ = STEP_TOKENS.copy()
FIRST_SHORT = int(np.argmax(STEP_COUNTS < 3))
PADDING_READ_COUNTS = STEP_COUNTS.copy()
PADDING_READ_COUNTS[FIRST_SHORT] += 1  # now the −1 padding of that step counts as emitted

CHECK_STEPS_CASES = [
    ("float tokens", (STEP_TOKENS.astype(float), STEP_COUNTS), TypeError, ["tokens must be", "integer", "float64"]),
    ("float counts", (STEP_TOKENS, STEP_COUNTS.astype(float)), TypeError, ["counts must be", "integer", "float64"]),
    ("a token of 99", (TOKEN_99, STEP_COUNTS), ValueError, ["tokens[5, 0] = 99", "out of range", "0 … 3", "V = 4"]),
    ("padding counted as emitted", (PADDING_READ, PADDING_READ_COUNTS), ValueError,
     [f"tokens[{FIRST_SHORT}, {PADDING_READ_COUNTS[FIRST_SHORT] - 1}] = -1", "out of range"]),
    ("a count past γ+1", (STEP_TOKENS, np.where(np.arange(2_000) == 7, 4, STEP_COUNTS)), ValueError,
     ["counts[7] = 4", "0 … 3"]),
    ("wrong columns", (STEP_TOKENS[:, :2], STEP_COUNTS), ValueError, ["tokens", "γ+1 = 3 columns"]),
    ("rows and counts differ", (STEP_TOKENS, STEP_COUNTS[:-1]), ValueError, ["counts", "2,000 rows", "1,999 entries"]),
    ("1-D tokens", (STEP_TOKENS[:, 0], STEP_COUNTS), ValueError, ["tokens", "2-D"]),
]


@pytest.mark.parametrize("arguments, error, words", [case[1:] for case in CHECK_STEPS_CASES],
                         ids=[case[0] for case in CHECK_STEPS_CASES])
def test_check_steps_names_tokens_or_counts(arguments, error, words):
    assert_refused(lambda t, c, rng: check_steps(t, c, TARGET_PROBS, DRAFT_PROBS), arguments, error, words,
                   absent=["samples"])


@pytest.mark.parametrize("arguments, error, words", [
    ((STEP_TOKENS.astype(float), STEP_COUNTS, 0), TypeError, ["tokens", "integer"]),
    ((STEP_TOKENS, STEP_COUNTS.astype(float), 0), TypeError, ["counts", "integer"]),
], ids=["float tokens", "float counts"])
def test_position_tokens_wants_integers(arguments, error, words):
    assert_refused(lambda t, c, i, rng: position_tokens(t, c, i), arguments, error, words)


def test_check_steps_still_passes_a_correct_sample():
    assert check_steps(STEP_TOKENS.astype(np.int32), STEP_COUNTS.tolist(), TARGET_PROBS, DRAFT_PROBS).passed


# 4. Infinity where it makes no sense; each parameter explains itself. ------------------------------------

@pytest.mark.parametrize("spread, error", [(math.inf, ValueError), (-math.inf, ValueError), (math.nan, ValueError),
                                           (0.0, ValueError), (-1.0, ValueError), ("2", TypeError)])
def test_related_logits_refuses_a_spread_that_is_not_positive_and_finite(spread, error):
    assert_refused(lambda s, rng: related_logits(5, rng, spread=s), (spread,), error,
                   ["spread must be a finite number > 0", "standard deviation of the target logits"],
                   absent=["target pass"])


def test_the_cost_ratio_keeps_its_own_explanation():
    with pytest.raises(ValueError, match="the time of one target pass divided by one draft pass"):
        sd.speedup(0.5, 3, 0)


# 5. Sizes that cannot work are refused before anything is allocated. ------------------------------------

SIZE_CASES = [
    ("related_logits vocab", lambda v, rng: related_logits(v, rng), (validation.MAX_VOCAB + 1,),
     ["vocab", "2 … 1,000,000", "1,000,001"]),
    ("related_logits huge vocab", lambda v, rng: related_logits(v, rng), (10**12,), ["vocab", "1,000,000"]),
    ("generate n_tokens", lambda n, rng: generate(TARGET_MODEL, "the ", n, rng), (MAX_TOKENS + 1,),
     ["n_tokens", "0 … 100,000"]),
    ("speculative_generate n_tokens", lambda n, rng: speculative_generate(TARGET_MODEL, DRAFT_MODEL, "a", n, 3, rng),
     (10**9,), ["n_tokens", "0 … 100,000"]),
    ("speculative_generate gamma", lambda g, rng: speculative_generate(TARGET_MODEL, DRAFT_MODEL, "a", 5, g, rng),
     (validation.MAX_GAMMA + 1,), ["gamma", "0 … 64", "65"]),
    ("sample_contexts count", lambda c, rng: sample_contexts(TEXT, c, 3), (MAX_CONTEXTS + 1,),
     ["count", "1 … 100,000"]),
    ("sample_contexts length", lambda n, rng: sample_contexts(TEXT * 10, 2, n), (MAX_CONTEXT_LENGTH + 1,),
     ["length", "0 … 100"]),
    ("max_deviation_by_size sizes", lambda z, rng: max_deviation_by_size([0, 1], [0.5, 0.5], z),
     (np.ones(MAX_SIZES + 1, dtype=int),), ["sizes", "at most 10,000", "10,001"]),
    ("fit_counts total", lambda c, rng: fit_counts(c, [0.5, 0.5]), (np.array([MAX_TOTAL_COUNT, 1]),),
     ["counts", "total at most 2**53"]),
]


@pytest.mark.parametrize("function, arguments, words", [case[1:] for case in SIZE_CASES],
                         ids=[case[0] for case in SIZE_CASES])
def test_sizes_beyond_the_limits_are_refused_naming_the_limit(function, arguments, words):
    assert_refused(function, arguments, ValueError, words)


def test_the_limits_themselves_are_accepted():
    rng = np.random.default_rng(0)
    assert len(sample_contexts(TEXT * 2, 3, MAX_CONTEXT_LENGTH)[0]) == MAX_CONTEXT_LENGTH
    assert speculative_generate(TARGET_MODEL, DRAFT_MODEL, "a", 3, validation.MAX_GAMMA, rng).gamma == 64
    assert fit_counts(np.array([MAX_TOTAL_COUNT // 2, MAX_TOTAL_COUNT // 2]), [0.5, 0.5]).passed
    assert max_deviation_by_size([0, 1], [0.5, 0.5], np.full(MAX_SIZES, 2)).tolist() == [0.0] * MAX_SIZES


def test_fit_refuses_a_text_longer_than_the_limit():
    model = NGramModel(order=2)
    with pytest.raises(ValueError, match=r"text must hold at most 10,000,000 characters .* got 10,000,001"):
        model.fit("a" * (MAX_TEXT_LENGTH + 1))
    assert "not fitted" in repr(model)


# 6. Edge arithmetic: refused clearly, or finite and correct. --------------------------------------------

@pytest.mark.parametrize("counts", [np.array([2**62, 2**62]), np.array([2**63, 2**63], dtype=np.uint64),
                                    np.array([2**63 - 1, 1])], ids=["2**62 each", "uint64 2**63", "int64 max"])
def test_fit_counts_refuses_totals_that_would_overflow(counts):
    assert_refused(lambda c, rng: fit_counts(c, [0.5, 0.5]), (counts,), ValueError, ["counts", "2**53"])


def test_fit_counts_is_exact_just_below_the_limit():
    fit = fit_counts(np.array([2**51, 2**51]), [0.5, 0.5])
    assert fit.n == 2**52 and fit.tv == 0.0 and fit.statistic == 0.0 and math.isfinite(fit.typical_tv)


@pytest.mark.parametrize("order, temperature", [(1, 5e-324), (3, 1e-310), (2, 1e-300), (4, 1e-200)])
def test_a_tiny_temperature_gives_the_one_hot_limit(order, temperature):
    base = NGramModel(order=order).fit(TEXT)
    for context in ("", "th", "the c", "zz"):
        p = base.next_distribution(context)
        limit = (p == p.max()).astype(float)  # p^(1/T) / Σ p^(1/T) → uniform over the argmax set
        limit /= limit.sum()
        cold = base.at_temperature(temperature).next_distribution(context)
        assert np.all(np.isfinite(cold))
        np.testing.assert_array_equal(cold, limit)


@pytest.mark.parametrize("temperature", [0.05, 0.2])
def test_small_temperatures_match_the_power_formula(temperature):
    base = NGramModel(order=3).fit(TEXT)
    p = base.next_distribution("the ")
    expected = p ** (1.0 / temperature)  # plain, no logs: fine while max(p)^(1/T) stays a normal float
    expected /= expected.sum()
    np.testing.assert_allclose(base.at_temperature(temperature).next_distribution("the "), expected, rtol=1e-9)


def test_softmax_at_a_tiny_temperature_is_the_one_hot_without_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert softmax([1.0, 3.0, 2.0], 5e-324).tolist() == [0.0, 1.0, 0.0]
        assert softmax([1.0, 3.0, 3.0], 1e-310).tolist() == [0.0, 0.5, 0.5]


@pytest.mark.parametrize("text, index", [("ab\ud800c", 2), ("\udfffabc", 0), ("abc\udc80", 3)])
def test_fit_refuses_a_lone_surrogate_naming_text(text, index):
    model = NGramModel(order=2)
    assert_refused(lambda t, rng: model.fit(t), (text,), ValueError,
                   ["text contains", f"at index {index}", "lone surrogate", "not a character"])
    assert "not fitted" in repr(model)


def test_a_surrogate_in_a_context_reads_as_unknown():
    model = NGramModel(order=2).fit("abc")
    assert model.encode("a\ud800") == [0, 3]
    np.testing.assert_array_equal(model.next_distribution("\ud800"), model.next_distribution("z"))


def test_goodness_of_fit_names_samples_and_never_truncates():
    assert_refused(lambda s, rng: goodness_of_fit(s, [0.5, 0.5]), (np.array([0.0, 1.0]),), TypeError,
                   ["samples", "integer"])
    assert_refused(lambda s, rng: goodness_of_fit(s, [0.5, 0.5]), ([0, 1, 2],), ValueError,
                   ["samples[2] = 2", "0 … 1"])


# The lead's part: rows, narration, sampling sizes and the terminal face. --------------------------

from specdec import cli  # noqa: E402
from specdec.narrate import narrate_trace  # noqa: E402
from specdec.narrate import MAX_ROW_ENTRIES, random_rows  # noqa: E402
from specdec.sampling import MAX_SAMPLED_TOKENS  # noqa: E402

TRACE = sd.trace_step(TARGET_PROBS, DRAFT_PROBS, DRAFT_TOKENS, np.random.default_rng(0))

LEAD_CASES = [
    ("random_rows concentration inf", lambda rng: random_rows(2, 4, 0.5, rng, concentration=math.inf),
     ValueError, ["concentration must be a finite number > 0", "Dirichlet concentration", "got inf"]),
    ("random_rows concentration 0", lambda rng: random_rows(2, 4, 0.5, rng, concentration=0),
     ValueError, ["concentration must be", "Dirichlet"]),
    ("random_rows gamma 1e9", lambda rng: random_rows(10**9, 4, 0.5, rng),
     ValueError, ["gamma must be an integer in 0 … 64", "1,000,000,000"]),
    ("random_rows vocab 1e9", lambda rng: random_rows(2, 10**9, 0.5, rng),
     ValueError, ["vocab must be an integer in 2 … 1,000,000"]),
    ("random_rows too many entries", lambda rng: random_rows(64, 10**6, 0.5, rng),
     ValueError, ["gamma and vocab together", f"{MAX_ROW_ENTRIES:,}"]),
    ("sample_steps n 1e12", lambda rng: sd.sample_steps(TARGET_PROBS, DRAFT_PROBS, 10**12, rng),
     ValueError, ["n must be an integer in 0 …", f"{MAX_SAMPLED_TOKENS // 3:,}"]),
    ("narrate_trace None", lambda rng: narrate_trace(None),
     TypeError, ["trace must be a StepTrace", "got NoneType"]),
    ("narrate_trace one label", lambda rng: narrate_trace(TRACE, ["A"]),
     ValueError, ["labels must name every token", "4 names, got 1"]),
    ("narrate_trace labels not strings", lambda rng: narrate_trace(TRACE, [0, 1, 2, 3]),
     TypeError, ["labels must be strings"]),
    ("optimal_gamma max_gamma 1e9", lambda rng: sd.optimal_gamma(0.9, 20, max_gamma=10**9),
     ValueError, ["max_gamma must be an integer in 1 … 1,000"]),
]


@pytest.mark.parametrize("function, error, words", [case[1:] for case in LEAD_CASES],
                         ids=[case[0] for case in LEAD_CASES])
def test_rows_narration_and_sizes_refuse_bad_input(function, error, words):
    assert_refused(function, (), error, words)


@pytest.mark.parametrize("arguments, words", [
    (["step", "--gamma", "1000000000"], ["--gamma must be an integer in 0 … 64"]),
    (["step", "--vocab", "1000000000"], ["--vocab must be an integer in 2 … 1,000,000"]),
    (["step", "--seed", "-1"], ["--seed must be an integer >= 0, got -1"]),
    (["step", "--closeness", "2"], ["--closeness must be in [0, 1]"]),
    (["step", "--example", "--gamma", "-1", "--vocab", "0"], ["--example fixes", "--gamma, --vocab"]),
    (["step", "--gamma", "x"], ["argument --gamma: invalid int value: 'x'"]),
    (["speedup", "--alpha", "0.9", "--c", "20", "--max-gamma", "1000000000"],
     ["--max-gamma must be an integer in 1 … 1,000"]),
    (["speedup", "--alpha", "nan", "--c", "20"], ["--alpha must be in [0, 1], got nan"]),
    (["speedup", "--alpha", "0.9", "--c", "-1"], ["--c must be > 0"]),
])
def test_the_terminal_face_prints_one_line_naming_the_option(capsys, arguments, words):
    with pytest.raises(SystemExit) as exited:
        cli.main(arguments)
    assert exited.value.code == 2
    printed = capsys.readouterr()
    assert printed.out == ""
    lines = printed.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), printed.err
    assert all(word in lines[0] for word in words), lines[0]


def test_a_step_with_no_draft_tokens_is_not_told_that_they_all_passed():
    trace = sd.trace_step([[0.5, 0.5]], np.zeros((0, 2)), [], np.random.default_rng(0))
    lines = narrate_trace(trace)
    assert "every draft token passed" not in " ".join(lines)
    assert lines[0].startswith("bonus: with no draft tokens (γ = 0)")


@pytest.mark.parametrize("schedule", ["fixed", "heuristic", "oracle"])
@pytest.mark.parametrize("keyword", ["gamma", "max_gamma"])
def test_schedules_refuse_a_draft_length_past_the_limit_before_any_draw(schedule, keyword):
    from specdec.variants.adaptive_gamma import generate_with_schedule

    assert_refused(lambda rng: generate_with_schedule(TARGET_MODEL, DRAFT_MODEL, "the ", 10, schedule, rng,
                                                      **{keyword: 10**9}),
                   (), ValueError, [f"{keyword} must be an integer in 1 … {validation.MAX_GAMMA}"])
