"""Lossy acceptance rules: exact laws against a plain implementation and against sampling."""

import numpy as np
import pytest

from specdec.goodness_of_fit import goodness_of_fit
from specdec.variants.lossy_acceptance import (
    MEDUSA_DELTA,
    MEDUSA_EPSILON,
    LOSSY_RULES,
    acceptance_probabilities,
    entropy,
    lossy_law,
    sample_lossy,
    trace_lossy,
    typical_threshold,
)
from tests import reference_variants as reference
from tests.loop_variants import lossy_step

SPEC_ROW = ([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25])
SETTINGS = [dict(), dict(lenience=0.5), dict(epsilon=0.3, delta=0.9), dict(lenience=0.1, epsilon=0.02)]


@pytest.mark.parametrize("rule", LOSSY_RULES)
@pytest.mark.parametrize("settings", SETTINGS)
def test_each_law_matches_a_plain_implementation(rule, settings):
    rows = np.random.default_rng(len(rule))
    for _ in range(30):
        vocab = int(rows.integers(2, 8))
        p, q = rows.dirichlet(np.full(vocab, 0.5)), rows.dirichlet(np.full(vocab, 0.5))
        law = lossy_law(rule, p, q, **settings)
        expected, acceptance = reference.lossy_law(rule, list(p), list(q), **settings)
        np.testing.assert_allclose(law.output, expected, atol=1e-12)
        assert law.acceptance == pytest.approx(acceptance, abs=1e-12)
        assert law.tv == pytest.approx(0.5 * np.abs(np.array(expected) - p).sum(), abs=1e-12)
        assert law.output.sum() == pytest.approx(1.0)


def test_the_exact_rule_and_lenience_one_have_tv_zero_and_alpha():
    p, q = SPEC_ROW
    for rule, settings in (("exact", {}), ("lenient", dict(lenience=1.0))):
        law = lossy_law(rule, p, q, **settings)
        assert law.tv == pytest.approx(0.0, abs=1e-12) and law.acceptance == pytest.approx(0.7)


def test_lowering_lenience_accepts_more_and_moves_further_from_p():
    p, q = [0.45, 0.25, 0.15, 0.1, 0.05], [0.1, 0.3, 0.2, 0.2, 0.2]
    laws = [lossy_law("lenient", p, q, lenience=value) for value in (1.0, 0.8, 0.6, 0.4, 0.2)]
    assert all(a.acceptance <= b.acceptance for a, b in zip(laws, laws[1:]))
    assert all(a.tv <= b.tv + 1e-12 for a, b in zip(laws, laws[1:]))
    assert laws[-1].acceptance > laws[0].acceptance and laws[-1].tv > 0


def test_greedy_always_emits_the_top_token_and_typical_follows_medusa_threshold():
    p, q = SPEC_ROW
    law = lossy_law("greedy", p, q)
    np.testing.assert_array_equal(law.output, [1, 0, 0, 0])
    assert law.tv == pytest.approx(0.5)
    flat = [0.25] * 4
    assert entropy(flat) == pytest.approx(np.log(4))
    assert typical_threshold(flat) == pytest.approx(min(MEDUSA_EPSILON, MEDUSA_DELTA / 4))
    assert typical_threshold([1.0, 0.0]) == pytest.approx(MEDUSA_EPSILON)


@pytest.mark.parametrize("rule", LOSSY_RULES)
def test_sampled_tv_matches_the_exact_tv(rule):
    p, q = [0.45, 0.25, 0.15, 0.1, 0.05], [0.1, 0.3, 0.2, 0.2, 0.2]
    law = lossy_law(rule, p, q, lenience=0.5)
    tokens = sample_lossy(rule, p, q, 400_000, np.random.default_rng(1), lenience=0.5)
    fit = goodness_of_fit(tokens, law.output)
    assert fit.passed
    sampled_tv = 0.5 * np.abs(np.bincount(tokens, minlength=5) / tokens.size - p).sum()
    assert sampled_tv == pytest.approx(law.tv, abs=4 * fit.typical_tv + 1e-9)


@pytest.mark.parametrize("rule", LOSSY_RULES)
def test_the_one_position_step_follows_the_law(rule):
    p, q = [0.45, 0.25, 0.15, 0.1, 0.05], [0.1, 0.3, 0.2, 0.2, 0.2]
    rng = np.random.default_rng(2)
    tokens = [lossy_step(rule, p, q, int(rng.choice(5, p=q)), rng, lenience=0.5) for _ in range(20_000)]
    assert goodness_of_fit(np.array(tokens), lossy_law(rule, p, q, lenience=0.5).output).passed


def test_bad_arguments_are_refused_before_any_draw():
    p, q = SPEC_ROW
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match="rule must be one of"):
        lossy_step("medusa", p, q, 0, rng)
    with pytest.raises(ValueError, match="lenience"):
        lossy_step("lenient", p, q, 0, rng, lenience=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        lossy_law("typical", p, q, epsilon=1.5)
    with pytest.raises(ValueError, match="token"):
        lossy_step("exact", p, [0.5, 0.5, 0.0, 0.0], 3, rng)
    with pytest.raises(TypeError, match="token"):
        lossy_step("exact", p, q, 1.0, rng)
    with pytest.raises(ValueError, match="draft"):
        sample_lossy("exact", p, [0.5, 0.5, 0.5, -0.5], 10, rng)
    assert rng.bit_generator.state == before


@pytest.mark.parametrize("rule", LOSSY_RULES)
def test_the_step_makes_the_same_draws_as_a_plain_implementation_and_its_trace_agrees(rule):
    rows = np.random.default_rng(8)
    for case in range(200):
        vocab = int(rows.integers(2, 7))
        p, q = rows.dirichlet(np.full(vocab, 0.5)), rows.dirichlet(np.full(vocab, 0.5))
        x = int(rows.choice(vocab, p=q))
        settings = dict(lenience=float(rows.choice([0.3, 0.6, 1.0])), epsilon=0.09, delta=float(rows.choice([0.3, 0.9])))
        ours, theirs, traced = (np.random.default_rng(case) for _ in range(3))
        token = lossy_step(rule, p, q, x, ours, **settings)
        assert token == reference.lossy_step(rule, list(p), list(q), x, theirs, **settings)
        assert ours.bit_generator.state == theirs.bit_generator.state
        trace = trace_lossy(rule, p, q, x, traced, **settings)
        assert trace.token == token and trace.draft_token == x
        if trace.uniform is None:
            assert trace.accepted == (trace.acceptance_probability == 1.0)
        else:
            assert trace.accepted == (trace.uniform < trace.acceptance_probability)
        assert (trace.replacement is None) == trace.accepted
        if trace.accepted:
            assert token == x
        assert (trace.uniform is None) == (rule in ("typical", "greedy"))


def test_entropy_ignores_tokens_of_probability_zero():
    assert entropy([0.5, 0.5, 0.0]) == pytest.approx(np.log(2))
    assert entropy([0.0, 0.25, 0.25, 0.25, 0.25]) == pytest.approx(np.log(4))


def test_the_bars_at_equality_typical_is_strict_and_lenient_is_not():
    # p(0) = 0.09 = ε, and δ·exp(−H(p)) ≈ 0.22 > ε, so the bar is exactly p(0): "p(x) > bar" rejects it.
    np.testing.assert_array_equal(acceptance_probabilities("typical", [0.09, 0.91], [0.5, 0.5]), [0.0, 1.0])
    # p(0)/q(0) = 0.5 = λ: "p/q ≥ λ" accepts it outright.
    lenient = acceptance_probabilities("lenient", [0.25, 0.75], [0.5, 0.5], lenience=0.5)
    np.testing.assert_array_equal(lenient, [1.0, 1.0])


def test_a_draft_token_equal_to_v_is_refused_with_the_range():
    expected = r"token must be a token the draft could propose \(0 … 3 with q\(x\) > 0\), got 4"
    with pytest.raises(ValueError, match=expected):
        lossy_step("exact", SPEC_ROW[0], SPEC_ROW[1], 4, np.random.default_rng(0))


def test_the_trace_defaults_are_medusas_and_lenience_one():
    p, q = SPEC_ROW
    for seed in range(20):
        default = trace_lossy("lenient", p, q, seed % 4, np.random.default_rng(seed))
        exact = trace_lossy("exact", p, q, seed % 4, np.random.default_rng(seed), epsilon=MEDUSA_EPSILON,
                            delta=MEDUSA_DELTA)
        assert default.token == exact.token and default.acceptance_probability == exact.acceptance_probability


@pytest.mark.parametrize("rule", ["exact", "lenient"])
def test_the_vectorised_accept_test_and_replacement_draw_are_independent(rule):
    # The last token is accepted with probability 1/6 and the residual (0.6, 0.4, 0, 0) has two tokens: reusing
    # one uniform for the test and for the replacement would draw token 0 with probability 0.52, not 0.6, after a
    # rejection.
    p, q = [0.4, 0.3, 0.2, 0.1], [0.1, 0.1, 0.2, 0.6]
    tokens = sample_lossy(rule, p, q, 40_000, np.random.default_rng(3), lenience=0.5)
    assert goodness_of_fit(tokens, lossy_law(rule, p, q, lenience=0.5).output).passed
