"""Every exact drafter of specdec.neural keeps the target's law; a broken verify does not.

The laws checked are those of the first and the second generated character after a fixed prompt, at
temperature 1 (`first_two_character_fits`). The second mixes every way a step can end (an accepted
draft followed by a bonus, a resampled character, a new step); its exact value, sum over x₁ of
p(x₁)·p(x₂ | x₁), takes one tree-shaped target pass, checked here against plain forward passes. Each
exact drafter passes both chi-square tests at `SAMPLES` generations (significance 1e-3 each, rare
categories pooled); at the same size the broken variant fails the first.
"""

import numpy as np
import pytest

from specdec.core import verify
from specdec.goodness_of_fit import goodness_of_fit
from specdec.neural import (EagleDrafter, MedusaDrafter, ModelDrafter, PromptLookupDrafter, first_two_character_fits,
                            first_two_character_laws, generate, greedy_text, layer_skip_drafter, load_draft,
                            load_target, one_hot_rows, probabilities, speculative_generate, verify_token_tree)
from specdec.neural.drafters import TargetState, chain
from specdec.neural.speculative import NeuralRun, StepRecord
from specdec.variants.lossy_acceptance import typical_threshold
from specdec.variants.token_tree import full_tree_parents
from tests.loop_variants import verify_tree

#: Generations per chi-square test.
SAMPLES = 300
#: A short prompt that repeats itself (so prompt lookup drafts), with an uncertain continuation.
PROMPT = "x = x + 1\ny = y"

TARGET = load_target()


class SoftmaxVerifiedGreedyDraft(ModelDrafter):
    """BROKEN with ``deterministic=True``: drafts the most likely token, verifies it as if drawn from softmax q."""

    def law(self, row, token):
        return row


def _drafters():
    vocab = len(TARGET.vocab)
    return {
        "draft model": ModelDrafter(load_draft(), gamma=2),
        "distilled draft": ModelDrafter(load_draft(distilled=True), gamma=2),
        "greedy draft, one-hot law": ModelDrafter(load_draft(), gamma=2, deterministic=True),
        "layer skip, trained exit": layer_skip_drafter(TARGET, gamma=2, layers=1, trained_exit=True),
        "Medusa tree": MedusaDrafter(TARGET, width=2, depth=2),
        "EAGLE": EagleDrafter(TARGET, gamma=2),
        "prompt lookup": PromptLookupDrafter(vocab, gamma=2),
    }


def _fits(drafter, seed, rule="exact"):
    return first_two_character_fits(TARGET, drafter, PROMPT, SAMPLES, np.random.default_rng(seed), rule=rule)


def test_the_exact_laws_of_the_first_two_characters_equal_plain_forward_passes():
    # The tree-shaped pass against one ordinary forward pass per first character.
    first, second = first_two_character_laws(TARGET, PROMPT)
    ids = TARGET.encode(PROMPT)
    plain_first = probabilities(TARGET.logits(TARGET.forward(ids)[-1:]), 1.0)[0]
    rows = np.array([probabilities(TARGET.logits(TARGET.forward(ids + [x])[-1:]), 1.0)[0]
                     for x in range(len(TARGET.vocab))])
    # float32 weights: the two computations agree to about 1e-7, not to the last bit
    np.testing.assert_allclose(first, plain_first, atol=1e-6)
    np.testing.assert_allclose(second, plain_first @ rows, atol=1e-6)


@pytest.mark.parametrize("name", list(_drafters()))
def test_each_exact_drafter_keeps_the_target_law(name):
    fits = _fits(_drafters()[name], seed=len(name))
    assert all(fit.passed for fit in fits), (name, [fit.verdict for fit in fits])


def test_a_deterministic_draft_verified_with_a_softmax_q_fails_the_same_test():
    # Its favourite x, drafted first, is accepted with min(1, p(x)/q(x)) instead of p(x): the first
    # character comes out wrong by far; the second mixes every way a step ends and moves less.
    broken = SoftmaxVerifiedGreedyDraft(load_draft(), gamma=2, deterministic=True)
    first, _ = _fits(broken, seed=3)
    assert not first.passed, first.verdict
def test_typical_acceptance_on_the_medusa_tree_is_lossy_and_its_tv_is_measurable():
    prompt = "Return the number of "
    state = TargetState(TARGET, 1.0)
    state.start(TARGET.encode(prompt))
    medusa = MedusaDrafter(TARGET, width=2, depth=1)
    proposal = medusa.propose(state, 1, np.random.default_rng(0))
    rows, _ = state.score(proposal)
    p = rows[0]
    passing = [t for t in proposal.tokens if p[t] > typical_threshold(p)]
    assert passing, "a candidate of head 1 should pass Medusa's bar after this prompt"
    tv = 1.0 - p[passing[0]]  # typical emits the first passing candidate every time: a point mass
    assert tv > 0.1
    rng = np.random.default_rng(4)
    firsts = [speculative_generate(TARGET, medusa, prompt, 2, 1.0, rng, rule="typical").text[0] for _ in range(100)]
    assert not goodness_of_fit(np.array(TARGET.encode("".join(firsts))), p).passed


def test_prompt_lookup_drafts_on_this_prompt_and_copies_what_followed():
    lookup = PromptLookupDrafter(len(TARGET.vocab), gamma=4)
    assert TARGET.decode(lookup.lookup(TARGET.encode(PROMPT), 4)) == " = y"  # what followed the earlier "y"
    assert TARGET.decode(lookup.lookup(TARGET.encode("self.a = a\n    self."), 4)) == "a = "
    assert lookup.lookup(TARGET.encode("xyz"), 4) == []


@pytest.mark.parametrize("name", list(_drafters()))
def test_at_temperature_zero_every_drafter_gives_greedy_decoding(name):
    prompt = "def get(self, key):\n    return self."
    run = speculative_generate(TARGET, _drafters()[name], prompt, 20, 0.0, np.random.default_rng(0))
    assert run.text == greedy_text(TARGET, prompt, 20)
    assert 1.0 <= run.tau and len(run.origins) == 20


def test_the_tree_rule_is_the_core_rule_on_a_chain_and_notebook_08s_on_a_shared_q():
    rng = np.random.default_rng(0)
    vocab = 5
    for trial in range(200):
        p = rng.dirichlet(np.ones(vocab), size=4)
        q = rng.dirichlet(np.ones(vocab), size=3)
        tokens = [int(rng.choice(vocab, p=row)) for row in q]
        seed = int(rng.integers(1 << 30))
        ours = verify_token_tree([0, 1, 2], tokens, q, p, np.random.default_rng(seed)).tokens
        assert ours == verify(p, q, tokens, np.random.default_rng(seed))
        parents = full_tree_parents(2, 2)
        shared = rng.dirichlet(np.ones(vocab), size=len(parents) + 1)
        node_tokens = [int(rng.choice(vocab, p=shared[parent])) for parent in parents]
        target_rows = rng.dirichlet(np.ones(vocab), size=len(parents) + 1)
        ours = verify_token_tree(parents, node_tokens, shared[parents], target_rows, np.random.default_rng(seed)).tokens
        assert ours == verify_tree(parents, node_tokens, target_rows, shared, np.random.default_rng(seed))


def test_the_one_hot_rule_accepts_a_deterministic_draft_with_probability_p_of_x():
    p = np.array([[0.2, 0.5, 0.3], [1 / 3, 1 / 3, 1 / 3]])
    rng = np.random.default_rng(1)
    outcomes = [verify_token_tree([0], [1], one_hot_rows([1], 3), p, rng) for _ in range(4000)]
    accepted = np.mean([o.origins[0] == "accepted" for o in outcomes])
    assert abs(accepted - 0.5) < 0.03
    resampled = [o.tokens[0] for o in outcomes if o.origins[0] == "resampled"]
    assert 1 not in resampled  # the residual norm(max(0, p − δ₁)) never gives the rejected token
    with pytest.raises(ValueError, match="probability 0"):
        verify_token_tree([0], [2], one_hot_rows([1], 3), p, rng)


def test_runs_report_tau_and_acceptance_by_position_consistently():
    run = speculative_generate(TARGET, ModelDrafter(load_draft(), gamma=3), "The value of ", 40, 1.0,
                               np.random.default_rng(2))
    assert run.tau == pytest.approx(40 / run.target_passes)
    rates = run.acceptance_by_position(3)
    assert rates.shape == (3,) and np.all((rates[~np.isnan(rates)] >= 0) & (rates[~np.isnan(rates)] <= 1))
    assert set(run.origins) <= {"accepted", "resampled", "bonus"}
    assert generate(TARGET, "The ", 5, 0.0, np.random.default_rng(0)) == greedy_text(TARGET, "The ", 5)


def _step(depth, accepted, emitted):
    return StepRecord(drafted=depth, depth=depth, accepted=accepted, draft_passes=depth, emitted=[0] * emitted,
                      origins=["accepted"] * accepted + ["bonus" if accepted == depth else "resampled"])


def test_acceptance_by_position_and_tau_counted_by_hand():
    # Three γ = 3 steps accepting 3, 1 and 0 draft tokens. Position 1 is reached by all three and passed by
    # two; position 2 is reached by the first two, passed by the first; position 3 reached and passed by the first.
    run = NeuralRun("p", "", "by hand", 1.0, [_step(3, 3, 4), _step(3, 1, 2), _step(3, 0, 1)])
    np.testing.assert_allclose(run.acceptance_by_position(), [2 / 3, 1 / 2, 1.0])
    np.testing.assert_allclose(run.acceptance_by_position(5), [2 / 3, 1 / 2, 1.0, np.nan, np.nan])
    np.testing.assert_allclose(run.acceptance_by_position(2), [2 / 3, 1 / 2])
    assert run.tau == 7 / 3 and run.drafted_per_step == 3.0 and run.target_passes == 3
    single = NeuralRun("p", "", "by hand", 1.0, [_step(3, 2, 3)])
    assert single.tau == 3.0 and single.drafted_per_step == 3.0
    # Steps of depth 1 only: one position by default; no step at all: one position, never reached.
    shallow = NeuralRun("p", "", "by hand", 1.0, [_step(1, 1, 2), _step(1, 0, 1)])
    np.testing.assert_allclose(shallow.acceptance_by_position(), [0.5])
    assert np.isnan(NeuralRun("p", "", "none", 1.0).acceptance_by_position()).tolist() == [True]


def test_a_run_of_one_character_is_one_step_that_drafts_nothing():
    # One character to make: the target's own row gives it, so the draft model has nothing to propose.
    run = speculative_generate(TARGET, ModelDrafter(load_draft(), gamma=3), "The ", 1, 1.0, np.random.default_rng(0))
    assert run.target_passes == 1 and len(run.text) == 1 and run.tau == 1.0
    assert run.steps[0].drafted == 0 and run.steps[0].draft_passes == 0 and run.origins == ["bonus"]


def test_no_step_drafts_more_than_sixteen_positions():
    # Prompt lookup asked for 40 tokens after a line that repeats: the first step finds 19 characters to copy
    # and room for 39, but every step is capped at MAX_DEPTH = 16 draft positions.
    prompt = "for i in range(10):\n" * 4
    run = speculative_generate(TARGET, PromptLookupDrafter(len(TARGET.vocab), gamma=40), prompt, 40, 0.0,
                               np.random.default_rng(0))
    assert max(step.drafted for step in run.steps) == 16
    assert [step.depth for step in run.steps] == [step.drafted for step in run.steps]  # a chain is as deep as long
    # Nor does a step draft past the requested length: with r characters still to make, at most r − 1 drafts
    # (the step's last character is the target's own).
    remaining = 40
    for step in run.steps:
        assert step.drafted <= remaining - 1
        remaining -= len(step.emitted)
    assert remaining == 0


def test_a_run_that_fills_the_context_exactly_drafts_up_to_its_end():
    prompt = "for i in range(10):\n" * 6  # 120 characters; the target's context holds 128
    lookup = PromptLookupDrafter(len(TARGET.vocab), gamma=16)
    run = speculative_generate(TARGET, lookup, prompt, 8, 0.0, np.random.default_rng(0))
    # The first step finds "for i in range(10)" to copy and has room for 7 drafts: 120 + 1 pending + 7 = 128.
    assert len(run.text) == 8 and run.steps[0].drafted == 7
    assert run.text == greedy_text(TARGET, prompt, 8)
    with pytest.raises(ValueError, match=r"prompt \(120 characters\) \+ length \(9\) must fit"):
        speculative_generate(TARGET, lookup, prompt, 9, 0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"prompt \(120 characters\) \+ length \(9\) must fit"):
        generate(TARGET, prompt, 9, 1.0, np.random.default_rng(0))


@pytest.mark.parametrize("length", [True, 2.5, 0, -1, "3"])
def test_a_length_that_is_not_an_int_of_one_or_more_is_refused(length):
    with pytest.raises(ValueError, match="length must be an int >= 1"):
        speculative_generate(TARGET, PromptLookupDrafter(len(TARGET.vocab), gamma=2), "ab", length, 0.0,
                             np.random.default_rng(0))


@pytest.mark.parametrize("prompt", ["a", "ab", "abc"])
def test_the_target_state_of_a_short_prompt_gives_the_prompt_s_own_row(prompt):
    ids = TARGET.encode(prompt)
    state = TargetState(TARGET, 1.0)
    state.start(ids)
    rows, _ = state.score(chain([], [], 0, len(TARGET.vocab)))
    plain = probabilities(TARGET.logits(TARGET.forward(ids)[-1:]), 1.0)[0]
    np.testing.assert_allclose(rows[0], plain, atol=1e-6)
    assert state.room == 128 - len(ids)


@pytest.mark.parametrize("history, kwargs, gamma, expected", [
    ([1, 2, 3, 9, 1, 2, 3, 8, 1, 2, 3], {}, 2, [8, 1]),    # the latest earlier [1, 2, 3], not the first
    ([1, 2, 1, 2, 1, 2], {}, 2, [1, 2]),                    # [2, 1, 2] last seen at 1, followed by 1, 2
    ([1, 2, 1, 2, 1, 2], {}, 1, [1]),
    ([5, 6, 7, 1, 2, 4, 2], {}, 3, [4, 2]),                 # only [2] recurs: what followed its earlier place
    ([5, 6, 7, 1, 2, 4, 2], {"min_ngram": 2}, 3, []),       # …which min_ngram = 2 does not accept
    ([1, 2, 9, 3, 2, 5, 1, 2], {}, 2, [9, 3]),              # [1, 2] recurs
    ([1, 2, 9, 3, 2, 5, 1, 2], {"max_ngram": 1}, 2, [5, 1]),  # with one character of context, the latest [2]
    ([4, 4], {}, 3, [4]),
    ([4], {}, 3, []),
])
def test_prompt_lookup_by_hand(history, kwargs, gamma, expected):
    lookup = PromptLookupDrafter(10, gamma, **kwargs)
    assert lookup.lookup(history, gamma) == expected


def test_prompt_lookup_proposes_one_hot_rows_without_a_forward_pass():
    state = TargetState(TARGET, 1.0)
    state.start(TARGET.encode("abcab"))
    proposal = PromptLookupDrafter(len(TARGET.vocab), gamma=3).propose(state, 3, np.random.default_rng(0))
    # "ab" recurs at 0; what followed it, up to 3 characters, runs into the suffix itself: "cab"
    assert TARGET.decode(proposal.tokens) == "cab" and proposal.draft_passes == 0 and proposal.parents == [0, 1, 2]
    np.testing.assert_array_equal(proposal.rows, one_hot_rows(proposal.tokens, len(TARGET.vocab)))


def test_drafter_settings_at_their_limits_are_taken_and_past_them_refused():
    draft, vocab = load_draft(), len(TARGET.vocab)
    for gamma in (0, 16):
        assert ModelDrafter(draft, gamma).gamma == gamma
    for gamma in (-1, 17, True, 2.0):
        with pytest.raises(ValueError, match="gamma must be an int in 0 … 16"):
            ModelDrafter(draft, gamma)
    for layers in (1, 3):  # the target has 4 blocks
        assert layer_skip_drafter(TARGET, 2, layers=layers).name == f"layer skip ({layers} of 4 layers)"
    for layers in (0, 4):
        with pytest.raises(ValueError, match="layers must be in 1 … 3"):
            layer_skip_drafter(TARGET, 2, layers=layers)
    for width, depth in ((1, 1), (4, 3)):  # 3 Medusa heads were trained
        assert MedusaDrafter(TARGET, width=width, depth=depth).parents == full_tree_parents(depth, width)
    for width, depth, words in ((0, 2, "width must be in 1 … 4"), (5, 2, "width must be in 1 … 4"),
                                (2, 0, "depth must be in 1 … 3"), (2, 4, "depth must be in 1 … 3")):
        with pytest.raises(ValueError, match=words):
            MedusaDrafter(TARGET, width=width, depth=depth)
    assert PromptLookupDrafter(vocab, 2, max_ngram=1, min_ngram=1).lookup([3, 3], 2) == [3]
    for max_ngram, min_ngram in ((1, 0), (1, 2)):
        with pytest.raises(ValueError, match="min_ngram"):
            PromptLookupDrafter(vocab, 2, max_ngram=max_ngram, min_ngram=min_ngram)


def test_the_first_two_character_laws_need_room_for_two_characters_only():
    first, second = first_two_character_laws(TARGET, "x" * 126)  # 126 + 2 = 128, the whole context
    assert abs(first.sum() - 1) < 1e-6 and abs(second.sum() - 1) < 1e-6
    with pytest.raises(ValueError, match="context"):
        first_two_character_laws(TARGET, "x" * 127)


def test_first_two_character_fits_take_one_to_a_million_samples():
    lookup = PromptLookupDrafter(len(TARGET.vocab), gamma=2)
    assert len(first_two_character_fits(TARGET, lookup, "ab ab a", 1, np.random.default_rng(0))) == 2
    for samples in (0, 10**6 + 1):
        with pytest.raises(ValueError, match="samples must be an integer in 1 … 1,000,000"):
            first_two_character_fits(TARGET, lookup, "ab ab a", samples, np.random.default_rng(0))
