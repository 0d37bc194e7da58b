"""generate and speculative_generate: the target's law, honest call counts, and the plumbing around the core."""

import math

import numpy as np
import pytest
from scipy import stats

from specdec.core import sample_draft, speculative_step
from specdec.text import Generation, NGramModel, generate, speculative_generate
from specdec.text.generation import model_rows
from specdec.theory import acceptance_rates

# A small alphabet keeps the joint law of two characters small enough to check cell by cell.
SMALL_TEXT = "abacabad cab dab bad cad abba dada acab baca " * 3
PROMPT = "ab"


@pytest.fixture(scope="module")
def small_pair():
    """A unigram draft and a 3-gram target that disagree a lot (α near one half)."""
    return NGramModel(order=3).fit(SMALL_TEXT), NGramModel(order=1).fit(SMALL_TEXT)


@pytest.fixture(scope="module")
def rhyme_pair():
    text = "the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat. "
    return NGramModel(order=4).fit(text), NGramModel(order=2).fit(text)


def exact_joint(model, prompt):
    """P(c1, c2 | prompt) = p(c1 | prompt) · p(c2 | prompt c1), from next_distribution alone."""
    first = model.next_distribution(prompt)
    second = np.array([model.next_distribution(prompt + char) for char in model.vocab])
    return first[:, None] * second


def pooled(observed, expected, minimum=5.0):
    """Cells with an expected count below `minimum` merged into one, as the chi-square test needs."""
    big = expected >= minimum
    if big.all():
        return observed, expected
    return np.append(observed[big], observed[~big].sum()), np.append(expected[big], expected[~big].sum())


def test_the_first_two_characters_have_the_targets_law(small_pair):
    target, draft = small_pair
    samples = 20_000
    gamma = 2  # paths: reject at once (a second step follows), reject second, or all accepted and cut
    rng = np.random.default_rng(2024)
    size = len(target.vocab)
    index = {char: i for i, char in enumerate(target.vocab)}
    counts = np.zeros((size, size))
    paths = {"two steps": 0, "cut": 0, "one step, resampled second": 0}
    for _ in range(samples):
        result = speculative_generate(target, draft, PROMPT, 2, gamma, rng)
        counts[index[result.text[0]], index[result.text[1]]] += 1
        if result.target_calls == 2:
            paths["two steps"] += 1
        elif result.discarded:
            paths["cut"] += 1
        else:
            paths["one step, resampled second"] += 1
    assert min(paths.values()) > samples // 20, paths

    joint = exact_joint(target, PROMPT)
    assert abs(joint.sum() - 1) < 1e-12
    observed, expected = pooled(counts.ravel(), samples * joint.ravel())
    assert len(observed) > 10
    assert stats.chisquare(observed, expected).pvalue > 1e-3

    # The test has power: a sampler that returned the draft's law would be rejected outright.
    draft_joint = exact_joint(draft, PROMPT)
    draft_cells, _ = pooled(samples * draft_joint.ravel(), samples * joint.ravel())
    assert stats.chisquare(draft_cells, expected).statistic > 1000


def test_gamma_zero_is_plain_generation_draw_for_draw(rhyme_pair):
    target, draft = rhyme_pair
    plain = generate(target, "the ", 40, np.random.default_rng(7))
    through_the_rule = speculative_generate(target, draft, "the ", 40, 0, np.random.default_rng(7))
    assert through_the_rule.text == plain.text
    assert through_the_rule.target_calls == plain.target_calls == 40
    assert through_the_rule.draft_calls == 0
    assert set(through_the_rule.origins) == {"bonus"}


def test_the_loop_is_sample_draft_then_the_core_rule(rhyme_pair):
    """The same text as a loop written here from the rule: γ draft draws, then speculative_step."""
    target, draft = rhyme_pair
    gamma, n_tokens = 3, 50
    vocab = target.vocab
    rng = np.random.default_rng(11)
    text = ""
    while len(text) < n_tokens:
        drafted, draft_rows = "", []
        for _ in range(gamma):
            draft_rows.append(draft.next_distribution("the " + text + drafted))
            drafted += vocab[sample_draft([draft_rows[-1]], rng)[0]]
        target_rows = [target.next_distribution("the " + text + drafted[:i]) for i in range(gamma + 1)]
        tokens = speculative_step(target_rows, draft_rows, [vocab.index(c) for c in drafted], rng)
        text += "".join(vocab[t] for t in tokens)
    result = speculative_generate(target, draft, "the ", n_tokens, gamma, np.random.default_rng(11))
    assert result.text == text[:n_tokens]
    assert result.discarded == len(text) - n_tokens


def test_a_shorter_run_is_a_prefix_of_a_longer_one(rhyme_pair):
    target, draft = rhyme_pair
    long = speculative_generate(target, draft, "the ", 80, 4, np.random.default_rng(3))
    for n in (1, 7, 30, 79):
        short = speculative_generate(target, draft, "the ", n, 4, np.random.default_rng(3))
        assert long.text.startswith(short.text) and len(short.text) == n
        assert long.origins[:n] == short.origins


def test_calls_are_counted_per_step(rhyme_pair):
    target, draft = rhyme_pair
    for gamma in (1, 3, 6):
        result = speculative_generate(target, draft, "the ", 97, gamma, np.random.default_rng(gamma))
        assert len(result.text) == len(result.origins) == sum(result.tokens_per_step) == 97
        assert result.target_calls == len(result.tokens_per_step)
        assert result.draft_calls == gamma * result.target_calls
        assert all(1 <= n <= gamma + 1 for n in result.tokens_per_step)
        assert 0 <= result.discarded <= gamma
        assert result.gamma == gamma


def test_origins_follow_the_steps(rhyme_pair):
    target, draft = rhyme_pair
    gamma = 3
    result = speculative_generate(target, draft, "the ", 200, gamma, np.random.default_rng(5))
    position = 0
    for step, count in enumerate(result.tokens_per_step):
        origins = result.origins[position:position + count]
        last_step = step == len(result.tokens_per_step) - 1
        if not last_step:
            assert all(origin == "accepted" for origin in origins[:-1])
            assert origins[-1] == ("bonus" if count == gamma + 1 else "resampled")
        position += count
    assert set(result.origins) == {"accepted", "resampled", "bonus"}


def test_visited_positions_and_their_rates(rhyme_pair):
    target, draft = rhyme_pair
    result = speculative_generate(target, draft, "the ", 300, 4, np.random.default_rng(8))
    assert len(result.visited_accepted) == len(result.visited_acceptance_rates)
    assert all(0.0 <= rate <= 1.0 for rate in result.visited_acceptance_rates)
    assert sum(result.visited_accepted) >= result.origins.count("accepted")
    assert result.measured_alpha == sum(result.visited_accepted) / len(result.visited_accepted)
    assert result.mean_acceptance_rate == pytest.approx(np.mean(result.visited_acceptance_rates))
    assert abs(result.measured_alpha - result.mean_acceptance_rate) < 0.1


def test_the_first_visited_rate_is_the_alpha_of_the_prompt(rhyme_pair):
    target, draft = rhyme_pair
    result = speculative_generate(target, draft, "the ", 1, 2, np.random.default_rng(0))
    rows = acceptance_rates([target.next_distribution("the ")] * 2, [draft.next_distribution("the ")])
    assert result.visited_acceptance_rates[0] == pytest.approx(rows[0])


def test_a_draft_equal_to_the_target_is_always_accepted(rhyme_pair):
    target, _ = rhyme_pair
    result = speculative_generate(target, target, "the ", 23, 4, np.random.default_rng(1))
    assert result.measured_alpha == 1.0
    assert result.mean_acceptance_rate == pytest.approx(1.0)
    assert result.tokens_per_step == (5, 5, 5, 5, 3)
    assert result.discarded == 2
    assert result.origins[:5] == ("accepted",) * 4 + ("bonus",)


def test_plain_generation(rhyme_pair):
    target, _ = rhyme_pair
    result = generate(target, "the ", 30, np.random.default_rng(0))
    assert len(result.text) == 30
    assert result.origins == ("target",) * 30 and result.origin_letters == "t" * 30
    assert result.target_calls == 30 and result.draft_calls == 0
    assert result.tokens_per_step == (1,) * 30
    assert result.gamma is None and math.isnan(result.measured_alpha)
    assert result.speedup_from_calls(20) == 1.0
    assert generate(target, "the ", 30, np.random.default_rng(0)).text == result.text


def test_plain_generation_follows_the_model(rhyme_pair):
    target, _ = rhyme_pair
    rng = np.random.default_rng(0)
    firsts = [generate(target, "the c", 1, rng).text for _ in range(3000)]
    p = target.next_distribution("the c")
    counts = np.array([firsts.count(char) for char in target.vocab])
    observed, expected = pooled(counts, 3000 * p)
    assert stats.chisquare(observed, expected).pvalue > 1e-3


def test_zero_tokens(rhyme_pair):
    target, draft = rhyme_pair
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    for result in (generate(target, "x", 0, rng), speculative_generate(target, draft, "x", 0, 3, rng)):
        assert result.text == "" and result.target_calls == 0 and result.draft_calls == 0
        assert math.isnan(result.tokens_per_target_call)
    assert rng.bit_generator.state == state


def test_prompt_characters_outside_the_vocabulary(rhyme_pair):
    target, draft = rhyme_pair
    result = speculative_generate(target, draft, "Ünïcödé → ", 10, 2, np.random.default_rng(0))
    assert len(result.text) == 10 and result.prompt == "Ünïcödé → "


def test_speedup_from_calls_and_letters():
    generation = Generation("p", "abcde", ("accepted", "bonus", "resampled", "accepted", "bonus"),
                            (2, 3), target_calls=2, draft_calls=4, gamma=2)
    assert generation.speedup_from_calls(4) == pytest.approx(5 / (2 + 4 / 4))
    assert generation.speedup_from_calls(math.inf) == pytest.approx(2.5)
    assert generation.tokens_per_target_call == 2.5
    assert generation.origin_letters == "aBRaB"
    with pytest.raises(ValueError, match="c"):
        generation.speedup_from_calls(0)


class NotAModel:
    vocab = ["a", "b"]


@pytest.mark.parametrize("call, error, words", [
    (lambda t, d, rng: speculative_generate(NotAModel(), d, "a", 3, 2, rng), TypeError, "target"),
    (lambda t, d, rng: speculative_generate(t, "draft", "a", 3, 2, rng), TypeError, "draft"),
    (lambda t, d, rng: speculative_generate(t, NGramModel(2).fit("xyz"), "a", 3, 2, rng), ValueError, "vocabulary"),
    (lambda t, d, rng: speculative_generate(t, d, 42, 3, 2, rng), TypeError, "prompt"),
    (lambda t, d, rng: speculative_generate(t, d, "a", -1, 2, rng), ValueError, "n_tokens"),
    (lambda t, d, rng: speculative_generate(t, d, "a", 2.0, 2, rng), TypeError, "n_tokens"),
    (lambda t, d, rng: speculative_generate(t, d, "a", 3, -2, rng), ValueError, "gamma"),
    (lambda t, d, rng: speculative_generate(t, d, "a", 3, True, rng), TypeError, "gamma"),
    (lambda t, d, rng: speculative_generate(t, d, "a", 3, 2, 0), TypeError, "rng"),
    (lambda t, d, rng: generate(t, None, 3, rng), TypeError, "prompt"),
    (lambda t, d, rng: generate(NotAModel(), "a", 3, rng), TypeError, "model"),
    (lambda t, d, rng: generate(t, "a", -3, rng), ValueError, "n_tokens"),
])
def test_bad_arguments_are_refused_before_any_draw(rhyme_pair, call, error, words):
    target, draft = rhyme_pair
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(error, match=words):
        call(target, draft, rng)
    assert rng.bit_generator.state == state


class RowsOf:
    """A model whose rows come from `row(context, good_row)`: a way to hand the rule a bad row."""

    def __init__(self, model, row):
        self.model, self.row, self.vocab = model, row, model.vocab

    def next_distribution(self, context):
        return self.row(context, self.model.next_distribution(context))


def with_nan(context, good):
    bad = good.copy()
    bad[1] = np.nan
    return bad


@pytest.mark.parametrize("which, row, error, words", [
    ("draft", with_nan, ValueError, r"draft\.next_distribution\(context\) contains NaN"),
    ("draft", lambda context, good: np.append(good, 0.0), ValueError, r"draft\.next_distribution\(context\) must give one "
                                                          r"probability per symbol of draft\.vocab"),
    ("draft", lambda context, good: good * 2, ValueError, r"each row of draft\.next_distribution\(context\) must sum "
                                                          r"to 1 \(within 1e-06\), but row 0 sums to 2\.0"),
    ("draft", lambda context, good: -good, ValueError, r"draft\.next_distribution\(context\) contains a negative entry"),
    ("draft", lambda context, good: good * np.inf, ValueError, r"draft\.next_distribution\(context\) contains inf"),
    ("target", lambda context, good: good * 2, ValueError, r"target\.next_distribution over 3 contexts must sum to 1"),
    ("target", lambda context, good: "abc", TypeError, r"target\.next_distribution over 3 contexts"),
])
def test_a_model_row_that_is_not_a_distribution_is_named_before_the_rule_uses_it(rhyme_pair, which, row, error, words):
    target, draft = rhyme_pair
    models = {"target": target, "draft": draft}
    models[which] = RowsOf(models[which], row)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(error, match=words):
        speculative_generate(models["target"], models["draft"], "the ", 10, 2, rng)
    if which == "draft":  # the first draft row is checked before the first draw
        assert rng.bit_generator.state == state


@pytest.mark.parametrize("contexts", [["the "], ["the ", "the c"]])
@pytest.mark.parametrize("row", [lambda context, good: good.tolist(), lambda context, good: good.astype(np.float32),
                                 lambda context, good: good])
def test_model_rows_are_the_model_s_rows_as_float64_whatever_it_returns(rhyme_pair, contexts, row):
    target, _ = rhyme_pair
    rows = model_rows(RowsOf(target, row), contexts, "target")
    expected = np.array([np.asarray(row(context, target.next_distribution(context)), dtype=np.float64)
                         for context in contexts])
    assert rows.dtype == np.float64 and rows.shape == expected.shape
    assert np.array_equal(rows, expected)


def test_plain_generation_checks_the_model_rows_too(rhyme_pair):
    target, _ = rhyme_pair
    with pytest.raises(ValueError, match=r"model\.next_distribution\(context\) contains NaN"):
        generate(RowsOf(target, with_nan), "the ", 5, np.random.default_rng(0))


def test_a_two_symbol_vocabulary_is_enough_and_one_symbol_is_refused():
    two = NGramModel(order=1).fit("aaaa")  # "a" and the unknown symbol
    assert len(two.vocab) == 2
    assert len(generate(two, "a", 3, np.random.default_rng(0)).text) == 3
    assert len(speculative_generate(two, two, "a", 3, 2, np.random.default_rng(0)).text) == 3

    class OneSymbol:
        vocab = ["a"]

        def next_distribution(self, context):
            return np.array([1.0])

    with pytest.raises(ValueError, match="at least 2 symbols"):
        generate(OneSymbol(), "a", 3, np.random.default_rng(0))


def test_plain_generation_discards_nothing(rhyme_pair):
    target, _ = rhyme_pair
    assert generate(target, "the ", 5, np.random.default_rng(0)).discarded == 0
    assert Generation("", "ab", ("target", "target"), (1, 1), 2, 0).discarded == 0


@pytest.mark.parametrize("gamma, steps", [(0, (2,)), (2, (3, 4)), (3, (5,))])
def test_a_step_longer_than_gamma_plus_one_is_refused(gamma, steps):
    text = "x" * sum(steps)
    with pytest.raises(ValueError, match=rf"at most γ\+1 = {gamma + 1}, got {max(steps)}"):
        Generation("", text, ("accepted",) * len(text), steps, len(steps), gamma * len(steps), gamma=gamma)
    # One character fewer in the longest step is allowed.
    shorter = tuple(min(step, gamma + 1) for step in steps)
    text = "x" * sum(shorter)
    Generation("", text, ("accepted",) * len(text), shorter, len(shorter), gamma * len(shorter), gamma=gamma)


def test_one_character_past_the_limit_is_refused(rhyme_pair):
    target, draft = rhyme_pair
    for call in (lambda rng: generate(target, "the ", 100_001, rng),
                 lambda rng: speculative_generate(target, draft, "the ", 100_001, 2, rng)):
        with pytest.raises(ValueError, match="n_tokens"):
            call(np.random.default_rng(0))


def test_speedup_of_one_plain_character_is_one_and_of_nothing_is_nan(rhyme_pair):
    target, _ = rhyme_pair
    assert generate(target, "the ", 1, np.random.default_rng(0)).speedup_from_calls(20) == 1.0
    assert math.isnan(generate(target, "the ", 0, np.random.default_rng(0)).speedup_from_calls(20))


@pytest.mark.parametrize("field", ["origins", "visited_accepted"])
def test_a_generation_field_given_as_a_string_is_refused(field):
    fields = dict(origins=("target", "target"), visited_accepted=())
    fields[field] = "tt" if field == "origins" else ""
    with pytest.raises(TypeError, match=f"{field} must be a tuple"):
        Generation("", "ab", tokens_per_step=(1, 1), target_calls=2, draft_calls=0, **fields)
