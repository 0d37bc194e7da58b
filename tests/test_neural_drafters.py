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
from specdec.neural.drafters import TargetState
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
