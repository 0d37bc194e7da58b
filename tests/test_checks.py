"""Bad input: every public function refuses it with a clear message, before any random draw."""

import copy

import numpy as np
import pytest

import specdec
from specdec import validation
from specdec.narrate import random_rows, spec_example, token_labels

TARGET_PROBS, DRAFT_PROBS, DRAFT_TOKENS = spec_example()
GOOD = dict(target_probs=TARGET_PROBS.tolist(), draft_probs=DRAFT_PROBS.tolist(), draft_tokens=[0, 1])


def with_changes(**changes):
    arguments = copy.deepcopy(GOOD)
    arguments.update(changes)
    return arguments


# (what is wrong, arguments, error type, words the message must contain)
BAD_STEPS = [
    ("target is 1-D", with_changes(target_probs=[0.5, 0.5]), ValueError, ["target_probs", "2-D", "shape (2,)"]),
    ("draft is 3-D", with_changes(draft_probs=[DRAFT_PROBS.tolist()]), ValueError, ["draft_probs", "2-D"]),
    ("rows do not match", with_changes(draft_probs=DRAFT_PROBS[:1].tolist(), draft_tokens=[0]), ValueError,
     ["one row more", "3 rows", "has 1"]),
    ("vocabularies differ", with_changes(draft_probs=[[0.5, 0.5], [0.5, 0.5]]), ValueError,
     ["same vocabulary", "V = 4", "V = 2"]),
    ("too few tokens", with_changes(draft_tokens=[0]), ValueError, ["draft_tokens", "expected 2, got 1"]),
    ("too many tokens", with_changes(draft_tokens=[0, 1, 2]), ValueError, ["draft_tokens", "expected 2, got 3"]),
    ("NaN", with_changes(target_probs=[[0.5, 0.3, float("nan"), 0.2], *GOOD["target_probs"][1:]]), ValueError,
     ["target_probs", "NaN", "(0, 2)"]),
    ("inf", with_changes(draft_probs=[[0.25, 0.25, 0.25, float("inf")], GOOD["draft_probs"][1]]), ValueError,
     ["draft_probs", "inf", "(0, 3)"]),
    ("negative", with_changes(draft_probs=[[0.75, -0.25, 0.25, 0.25], GOOD["draft_probs"][1]]), ValueError,
     ["draft_probs", "negative", "-0.25", ">= 0"]),
    ("row sum", with_changes(target_probs=[*GOOD["target_probs"][:2], [0.3, 0.3, 0.3, 0.3]]), ValueError,
     ["target_probs", "row 2", "sums to 1.2", "within 1e-06"]),
    ("token out of range", with_changes(draft_tokens=[0, 4]), ValueError, ["draft_tokens[1] = 4", "0 … 3"]),
    ("negative token", with_changes(draft_tokens=[-1, 0]), ValueError, ["draft_tokens[0] = -1", "out of range"]),
    ("float token", with_changes(draft_tokens=[0, 1.0]), TypeError, ["draft_tokens[1]", "integer", "float"]),
    ("bool token", with_changes(draft_tokens=[True, 0]), TypeError, ["draft_tokens[0]", "integer", "bool"]),
    ("token string", with_changes(draft_tokens="01"), TypeError, ["draft_tokens", "sequence"]),
    ("q(x) = 0", with_changes(draft_probs=[[0.25, 0.25, 0.25, 0.25], [0.0, 0.5, 0.5, 0.0]], draft_tokens=[0, 3]),
     ValueError, ["draft_tokens[1] = 3", "draft_probs[1, 3] = 0", "could not have sampled that token at that position"]),
    ("not numbers", with_changes(target_probs=[["a", "b"], ["c", "d"]]), TypeError, ["target_probs", "numbers"]),
]


@pytest.mark.parametrize("function", [specdec.speculative_step, specdec.trace_step], ids=["step", "trace"])
@pytest.mark.parametrize("what, arguments, error, words", BAD_STEPS, ids=[case[0] for case in BAD_STEPS])
def test_bad_step_arguments_fail_before_any_draw(function, what, arguments, error, words):
    rng = np.random.default_rng(7)
    state = copy.deepcopy(rng.bit_generator.state)
    untouched = copy.deepcopy(arguments)
    with pytest.raises(error) as raised:
        function(**arguments, rng=rng)
    for word in words:
        assert word in str(raised.value), f"{word!r} missing from: {raised.value}"
    assert rng.bit_generator.state == state
    assert arguments == untouched


@pytest.mark.parametrize(
    "rng, words",
    [
        (0, ["rng", "numpy.random.Generator", "int", "np.random.default_rng(seed)"]),
        (np.random.RandomState(0), ["RandomState", "np.random.default_rng(seed)"]),
        (None, ["NoneType", "np.random.default_rng(seed)"]),
        ("seed", ["rng must be a numpy.random.Generator, got str"]),
    ],
)
def test_rng_must_be_a_generator(rng, words):
    for call in (
        lambda: specdec.speculative_step(**GOOD, rng=rng),
        lambda: specdec.trace_step(**GOOD, rng=rng),
        lambda: specdec.sample_draft(GOOD["draft_probs"], rng),
    ):
        with pytest.raises(TypeError) as raised:
            call()
        assert all(word in str(raised.value) for word in words), str(raised.value)


def test_a_row_within_the_tolerance_is_accepted_and_just_beyond_it_is_not():
    nearly = [[0.5, 0.5 + 9e-7]]
    assert specdec.speculative_step(nearly, [], [], np.random.default_rng(0)) in ([0], [1])
    with pytest.raises(ValueError, match="sums to 1.0000011"):
        specdec.speculative_step([[0.5, 0.5 + 1.1e-6]], [], [], np.random.default_rng(0))


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: specdec.acceptance_rate([0.5, 0.5], [1.0]), ValueError, ["same vocabulary"]),
        (lambda: specdec.acceptance_rate([[0.5, 0.5]], [0.5, 0.5]), ValueError, ["target", "1-D"]),
        (lambda: specdec.acceptance_rate([0.5, 0.6], [0.5, 0.5]), ValueError, ["target", "sums to 1.1"]),
        (lambda: specdec.residual_distribution([0.5, 0.5], [1.5, -0.5]), ValueError, ["draft", "negative"]),
        (lambda: specdec.residual_distribution("ab", [0.5, 0.5]), TypeError, ["target"]),
        (lambda: specdec.expected_tokens(1.5, 3), ValueError, ["alpha", "[0, 1]", "1.5"]),
        (lambda: specdec.expected_tokens(-0.1, 3), ValueError, ["alpha", "[0, 1]"]),
        (lambda: specdec.expected_tokens(float("nan"), 3), ValueError, ["alpha", "nan"]),
        (lambda: specdec.expected_tokens("0.5", 3), TypeError, ["alpha", "real number", "str"]),
        (lambda: specdec.expected_tokens(0.5, -1), ValueError, ["gamma", ">= 0", "-1"]),
        (lambda: specdec.expected_tokens(0.5, 2.0), TypeError, ["gamma", "integer", "float"]),
        (lambda: specdec.expected_tokens(0.5, True), TypeError, ["gamma", "integer", "bool"]),
        (lambda: specdec.speedup(0.5, 3, 0), ValueError, ["c", "> 0", "target pass"]),
        (lambda: specdec.speedup(0.5, 3, -2.0), ValueError, ["c", "> 0"]),
        (lambda: specdec.speedup(2, 3, 10), ValueError, ["alpha"]),
        (lambda: specdec.optimal_gamma(0.5, 10, max_gamma=0), ValueError, ["max_gamma", "1", "got 0"]),
        (lambda: specdec.optimal_gamma(0.5, "fast"), TypeError, ["c", "number"]),
        (lambda: specdec.token_count_distribution(1.01, 3), ValueError, ["alpha"]),
        (lambda: specdec.token_count_distribution(0.5, 3.5), TypeError, ["gamma"]),
        (lambda: specdec.token_count_distribution_for_rates([0.5, 1.2]), ValueError, ["rates[1]", "[0, 1]"]),
        (lambda: specdec.token_count_distribution_for_rates([[0.5]]), ValueError, ["rates", "1-D"]),
        (lambda: specdec.expected_tokens_for_rates(["x"]), TypeError, ["rates"]),
        (lambda: specdec.acceptance_rates([[1.0, 0.0]], [[1.0, 0.0]]), ValueError, ["one row more"]),
        (lambda: specdec.tv_distance([0.5, 0.5], [0.2, 0.2, 0.6]), ValueError, ["same vocabulary"]),
        (lambda: specdec.kl_divergence([0.5, float("nan")], [0.5, 0.5]), ValueError, ["p", "NaN"]),
        (lambda: specdec.sample_draft([0.5, 0.5], np.random.default_rng(0)), ValueError, ["draft_probs", "2-D"]),
        (lambda: random_rows(-1, 4, 0.5, np.random.default_rng(0)), ValueError, ["gamma"]),
        (lambda: random_rows(2, 1, 0.5, np.random.default_rng(0)), ValueError, ["vocab", "in 2 … 1,000,000", "got 1"]),
        (lambda: random_rows(2, 4, 1.5, np.random.default_rng(0)), ValueError, ["closeness", "[0, 1]"]),
        (lambda: random_rows(2, 4, 0.5, 0), TypeError, ["np.random.default_rng(seed)"]),
        (lambda: token_labels(0), ValueError, ["vocab", ">= 1"]),
    ],
)
def test_bad_arguments_everywhere_else(call, error, words):
    with pytest.raises(error) as raised:
        call()
    for word in words:
        assert word in str(raised.value), f"{word!r} missing from: {raised.value}"


def test_lists_tuples_and_integer_arrays_are_accepted():
    expected = specdec.speculative_step(TARGET_PROBS, DRAFT_PROBS, [0, 1], np.random.default_rng(0))
    as_tuples = tuple(map(tuple, TARGET_PROBS.tolist())), tuple(map(tuple, DRAFT_PROBS.tolist()))
    assert specdec.speculative_step(*as_tuples, (0, 1), np.random.default_rng(0)) == expected
    assert specdec.speculative_step(TARGET_PROBS, DRAFT_PROBS, np.array([0, 1]), np.random.default_rng(0)) == expected
    assert specdec.speculative_step(TARGET_PROBS, DRAFT_PROBS, [np.int32(0), np.int64(1)], np.random.default_rng(0)) == expected
    assert specdec.acceptance_rate((1, 0), (0.5, 0.5)) == 0.5
    assert specdec.expected_tokens(np.float32(0.5), np.int64(2)) == 1.75


@pytest.mark.parametrize(
    "value, error, words",
    [
        (np.array([0.5 + 0.5j]), TypeError, ["x must be", "complex numbers (complex128)", ".real"]),
        ([0.5, 1j], TypeError, ["x must be", "complex"]),
        (np.array([1 + 0j], dtype=np.complex64), TypeError, ["complex64"]),
        (["0.5"], TypeError, ["x must be", "cannot read as numbers", "<U3"]),
        (np.array(["2020-01-01"], dtype="datetime64[D]"), TypeError, ["cannot read as numbers"]),
        (np.array([1j], dtype=object), TypeError, ["x must be", "real numbers", "complex"]),
        ([[1.0], [1.0, 2.0]], TypeError, ["x must be", "cannot read"]),
        (None, TypeError, ["x must be", "NoneType"]),
        (b"01", TypeError, ["x must be", "bytes"]),
    ],
)
def test_real_array_refuses_what_is_not_real_numbers(value, error, words):
    with pytest.raises(error) as raised:
        validation.real_array(value, "x")
    for word in words:
        assert word in str(raised.value), f"{word!r} missing from: {raised.value}"


def test_real_array_converts_every_real_kind_and_copies_nothing_it_need_not():
    floats = np.array([0.25, 0.75])
    assert validation.real_array(floats, "x") is floats
    assert validation.real_array([True, 2, 0.5], "x").tolist() == [1.0, 2.0, 0.5]
    assert validation.real_array(np.array([3], dtype=np.uint8), "x").dtype == np.float64
    assert validation.real_array(np.array([0.5], dtype=np.float32), "x").tolist() == [0.5]


@pytest.mark.parametrize(
    "value, ndim, error, words",
    [
        ([1.0, 2.0], 1, TypeError, ["ids must be a 1-D array of integer token ids", "float64", "1.0"]),
        ([True, False], 1, TypeError, ["bool"]),
        ([1 + 0j], 1, TypeError, ["complex128"]),
        ([10**30], 1, TypeError, ["object"]),
        ([[1, 2]], 1, ValueError, ["1-D", "shape (1, 2)"]),
        ([1, 2], 2, ValueError, ["2-D", "shape (2,)"]),
        ("12", 1, TypeError, ["ids must be a 1-D array of integer token ids, got str"]),
    ],
)
def test_integers_refuses_anything_but_integers(value, ndim, error, words):
    with pytest.raises(error) as raised:
        validation.Integers("token ids", ndim)(value, "ids")
    for word in words:
        assert word in str(raised.value), f"{word!r} missing from: {raised.value}"


def test_integers_keeps_integer_arrays_and_types_empty_ones():
    ids = np.array([3, 1], dtype=np.int32)
    assert validation.Integers("token ids")(ids, "ids") is ids
    assert validation.Integers("token ids")([], "ids").dtype == np.int64
    assert validation.Integers("token ids", 2)(np.zeros((0, 3)), "ids").shape == (0, 3)


def test_integers_in_range_names_the_first_entry_outside():
    validation.integers_in_range(np.array([0, 2]), "x", 0, 2, "things")
    validation.integers_in_range(np.array([], dtype=int), "x", 0, -1, "things")
    with pytest.raises(ValueError, match=r"x\[1, 0\] = -3 is out of range: things must be in 0 … 2"):
        validation.integers_in_range(np.array([[0, 1], [-3, 5]]), "x", 0, 2, "things")
    with pytest.raises(ValueError, match=r"x\[0\] = 18446744073709551615 is out of range: counts must be in 0 … 9,007,199,254,740,992"):
        validation.integers_in_range(np.array([2**64 - 1], dtype=np.uint64), "x", 0, 2**53, "counts")


@pytest.mark.parametrize("value, error", [(0, ValueError), (-1.5, ValueError), (float("nan"), ValueError),
                                          (float("inf"), ValueError), (True, TypeError), ("1", TypeError),
                                          (1j, TypeError)])
def test_positive_number_says_what_the_parameter_is(value, error):
    with pytest.raises(error) as raised:
        validation.PositiveNumber("the standard deviation of the logits")(value, "spread")
    assert "spread must be a finite number > 0 (the standard deviation of the logits)" in str(raised.value)
    assert validation.PositiveNumber("…")(np.float32(0.5), "spread") == 0.5


@pytest.mark.parametrize(
    "constraint, value, error, words",
    [
        (validation.Distribution(), np.full((2, 2), 0.25), ValueError, ["p must be a 1-D array", "shape (2, 2)"]),
        (validation.DistributionRows(), np.array([0.5, 0.5]), ValueError, ["p must be a 2-D array", "shape (2,)"]),
        (validation.Distribution(), [], ValueError, ["p must have at least one token (V >= 1)"]),
        (validation.DistributionRows(), np.empty((1, 0)), ValueError, ["p must have at least one token", "(1, 0)"]),
        (validation.Distribution(), [2.0], ValueError, ["p must sum to 1", "sums to 2.0"]),
        (validation.Distribution(), [0.0, -0.5, 1.5], ValueError, ["negative entry -0.5 at index (1,)"]),
        (validation.Distribution(), "0.5", TypeError, ["p must be an array (or list) of probabilities", "str"]),
    ],
)
def test_a_distribution_has_its_dimensions_a_token_or_more_and_sums_to_one(constraint, value, error, words):
    with pytest.raises(error) as raised:
        constraint(value, "p")
    for word in words:
        assert word in str(raised.value), f"{word!r} missing from: {raised.value}"


def test_one_token_and_no_rows_are_distributions():
    assert validation.Distribution()([1.0], "p").tolist() == [1.0]
    assert validation.DistributionRows()([], "rows").shape == (0, 0)
    assert validation.DistributionRows()(np.empty((0, 3)), "rows").shape == (0, 3)


def test_the_step_rows_of_one_draft_token_must_share_a_vocabulary():
    with pytest.raises(ValueError) as raised:
        specdec.speculative_step(TARGET_PROBS[:2], [[0.5, 0.5]], [0], np.random.default_rng(0))
    assert "same vocabulary" in str(raised.value) and "V = 4" in str(raised.value) and "V = 2" in str(raised.value)


@pytest.mark.parametrize(
    "constraint, inside, outside",
    [
        (validation.Probability(), [0, 0.5, 1], [-0.1, 1.1, float("nan")]),
        (validation.PositiveFraction(), [1e-9, 0.5, 1], [0, 0.0, -0.1, 1.1]),
        (validation.Between(0, 3, " ms"), [0, 2, 3], [-0.1, 3.5, float("nan")]),
        (validation.CostRatio(), [0.5, 1, 8, float("inf")], [0, -1, float("nan")]),
        (validation.Count(1, 3), [1, 3], [0, 4]),
    ],
    ids=["probability", "positive fraction", "between", "cost ratio", "count"],
)
def test_a_number_inside_its_range_is_returned_as_a_plain_number_and_one_outside_is_refused(constraint, inside,
                                                                                            outside):
    kind = int if isinstance(constraint, validation.Count) else float
    for value in inside:
        checked = constraint(value, "x")
        assert checked == value and type(checked) is kind, (value, checked)
    for value in outside:
        with pytest.raises(ValueError, match=r"^x must be"):
            constraint(value, "x")


def test_rates_keep_the_ends_of_zero_to_one_and_name_the_first_outside():
    assert validation.Rates()([0, 1, 0.5], "rates").tolist() == [0.0, 1.0, 0.5]
    with pytest.raises(ValueError, match=r"rates\[2\] must be an acceptance rate in \[0, 1\], got 1.5"):
        validation.Rates()([0, 1, 1.5], "rates")


def test_integers_out_of_range_are_named_in_the_words_given():
    with pytest.raises(ValueError, match="token ids must be in 0 … 3"):
        validation.Integers("token ids", low=0, high=3)([1, 5], "ids")
    with pytest.raises(ValueError, match=r"ids\[0\] = 4 is out of range: ids of the prompt must be in 0 … 3"):
        validation.Integers("token ids", low=0, high=lambda arguments: arguments["vocab"] - 1,
                            within="ids of the prompt")([4], "ids", {"vocab": 4})


# Declared checks: the `checked` decorator. ----------------------------------------------------------

@validation.checked(validation.StepRows("target_probs", "draft_probs"), draft_tokens=validation.DraftTokens(),
                    gamma=validation.Count(1, lambda arguments: len(arguments["draft_tokens"]) + 1),
                    label=validation.OrNone(validation.OneOf("a", "b")))
def _declared(target_probs, draft_probs, draft_tokens, gamma=1, label=None):
    return target_probs, draft_probs, draft_tokens, gamma, label


def test_checked_converts_every_declared_argument_by_position_or_by_name():
    by_position = _declared(TARGET_PROBS.tolist(), DRAFT_PROBS.tolist(), (np.int64(0), 1), 3, "b")
    by_name = _declared(label="b", gamma=3, draft_tokens=(np.int64(0), 1),
                        draft_probs=DRAFT_PROBS.tolist(), target_probs=TARGET_PROBS.tolist())
    for result in (by_position, by_name):
        target, draft, tokens, gamma, label = result
        assert target.dtype == draft.dtype == np.float64 and target.shape == (3, 4)
        assert tokens == [0, 1] and type(tokens[0]) is int and (gamma, label) == (3, "b")
    assert _declared(TARGET_PROBS, DRAFT_PROBS, [0, 1])[3:] == (1, None)  # defaults pass the checks too


@pytest.mark.parametrize(
    "changes, error, words",
    [
        (dict(gamma=4), ValueError, ["gamma must be an integer in 1 … 3, got 4"]),  # a bound read from another argument
        (dict(label="c"), ValueError, ["label must be one of 'a', 'b'; got 'c'"]),
        (dict(draft_tokens=[0, 4]), ValueError, ["draft_tokens[1] = 4"]),
        (dict(draft_probs=[[0.5, 0.5]]), ValueError, ["one row more"]),
    ],
)
def test_checked_refuses_in_the_declared_words(changes, error, words):
    arguments = dict(target_probs=TARGET_PROBS, draft_probs=DRAFT_PROBS, draft_tokens=[0, 1]) | changes
    with pytest.raises(error) as raised:
        _declared(**arguments)
    for word in words:
        assert word in str(raised.value), f"{word!r} missing from: {raised.value}"


def test_checked_keeps_the_name_and_docstring_and_refuses_a_name_that_is_no_parameter():
    assert specdec.acceptance_rate.__name__ == "acceptance_rate" and "Examples" in specdec.acceptance_rate.__doc__
    with pytest.raises(TypeError, match=r"@checked names \['gama'\], which .*\bf has no parameter for"):
        @validation.checked(gama=validation.Count())
        def f(gamma):
            return gamma


@validation.checked(alpha=validation.Probability())
def _scaled(*values, alpha):
    return [value * alpha for value in values]


def test_checked_works_on_functions_with_starred_and_keyword_only_parameters():
    assert _scaled(1, 2, alpha=0.5) == [0.5, 1.0]
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\], got 2.0"):
        _scaled(1, alpha=2)


def test_checked_refuses_an_argument_the_function_does_not_take_even_after_a_full_set_by_position():
    with pytest.raises(TypeError, match="extra"):
        _declared(TARGET_PROBS, DRAFT_PROBS, [0, 1], 1, None, extra=1)
