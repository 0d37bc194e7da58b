"""Every exact drafter of specdec.neural keeps the target's law; a broken verify does not.

The laws checked are those of the first and the second generated character after a fixed prompt, at
temperature 1 (`first_two_character_fits`). The second mixes every way a step can end (an accepted
draft followed by a bonus, a resampled character, a new step); its exact value, sum over x₁ of
p(x₁)·p(x₂ | x₁), takes one tree-shaped target pass, checked here against plain forward passes. Each
exact drafter passes both chi-square tests at `SAMPLES` generations (significance 1e-3 each, rare
categories pooled); at the same size the broken variant fails the first.
"""

import itertools

import numpy as np
import pytest

from specdec.core import verify
from specdec.goodness_of_fit import goodness_of_fit
from specdec.neural import (EagleDrafter, MedusaDrafter, ModelDrafter, PromptLookupDrafter, first_two_character_fits,
                            first_two_character_laws, generate, greedy_text, layer_skip_drafter, load_draft,
                            load_target, one_hot_rows, probabilities, speculative_generate, verify_token_tree)
from specdec.neural.drafters import Proposal, TargetState, chain
from specdec.neural.loading import weight_arrays
from specdec.neural.transformer import Block, KVCache
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
    ([1, 2, 3, 4, 9, 2, 3, 4, 8, 1, 2, 3, 4], {}, 2, [8, 1]),  # by default at most 3 characters: the latest [2, 3, 4]
    ([1, 2, 3, 4, 9, 2, 3, 4, 8, 1, 2, 3, 4], {"max_ngram": 4}, 2, [9, 2]),  # …where 4 find the earlier [1, 2, 3, 4]
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



def _plain_row(model, ids, layers=None, adapter=False):
    # One cache-free pass over the whole text; the trained exit h + W·h + b written from the stored arrays.
    hidden = model.forward(ids, layers=layers)[-1].astype(np.float64)
    if adapter:
        arrays = weight_arrays()
        weight, bias = (np.asarray(arrays[f"exit_{layers}.adapter.{name}"], np.float64) for name in ("weight", "bias"))
        hidden = hidden + weight @ hidden + bias
    return probabilities(model.logits(hidden[None].astype(np.float32)), 1.0)[0]


@pytest.mark.parametrize("layers, adapter", [(1, True), (2, True), (2, False), (None, False)])
def test_model_drafter_rows_are_plain_passes_over_the_text_so_far(layers, adapter):
    # The drafter's own law, which verification hides (the output is the target's whatever is drafted): each
    # row is the (early-exit) row after the text plus the tokens drafted before it, also on a second call
    # that extends the text (the drafter's cache must keep only what is still its prefix).
    model = TARGET if layers else load_draft()
    drafter = (layer_skip_drafter(TARGET, gamma=3, layers=layers, trained_exit=adapter) if layers
               else ModelDrafter(model, gamma=3))
    state = TargetState(TARGET, 1.0)
    ids = TARGET.encode(PROMPT)
    drafter.start(state)
    rng = np.random.default_rng(0)
    for extra in ([], None):
        if extra is None:  # the first drafted token kept, then a character the drafter did not propose
            ids = ids + proposal.tokens[:1] + TARGET.encode("(")
        state.start(ids)
        proposal = drafter.propose(state, 3, rng)
        assert len(proposal.tokens) == 3 and proposal.parents == [0, 1, 2]
        for k, row in enumerate(proposal.rows):
            np.testing.assert_allclose(row, _plain_row(model, ids + proposal.tokens[:k], layers, adapter), atol=1e-5)


def test_drafters_run_as_many_passes_as_they_report(monkeypatch):
    state = TargetState(TARGET, 1.0)
    state.start(TARGET.encode(PROMPT))
    draft = ModelDrafter(load_draft(), gamma=3)
    calls = []
    forward = draft.model.forward
    monkeypatch.setattr(draft.model, "forward", lambda *args, **kwargs: calls.append(1) or forward(*args, **kwargs))
    assert draft.propose(state, 3, np.random.default_rng(0)).draft_passes == len(calls) == 3
    eagle = EagleDrafter(TARGET, gamma=3)
    steps = []
    step = eagle._step
    monkeypatch.setattr(eagle, "_step", lambda *args: steps.append(1) or step(*args))
    assert eagle.propose(state, 3, np.random.default_rng(0)).draft_passes == len(steps) == 3


def _medusa_top(ids, width, depth):
    # Head j at the target's last feature (after the text but its pending last character), from the stored arrays.
    arrays = weight_arrays()
    normed = TARGET.normed(TARGET.forward(ids[:-1])[-1:])[0].astype(np.float64)
    top = []
    for j in range(depth):
        weight, bias, out = (np.asarray(arrays[f"medusa.{name}"], np.float64)
                             for name in (f"layers.{j}.weight", f"layers.{j}.bias", f"outputs.{j}"))
        x = normed @ weight.T + bias
        logits = (normed + x / (1 + np.exp(-x))) @ out.T
        top.append([int(t) for t in np.argsort(-logits, kind="stable")[:width]])
    return top


@pytest.mark.parametrize("width, depth, gamma, prompt", [(2, 2, 2, PROMPT), (1, 3, 3, "ab"), (3, 3, 2, PROMPT),
                                                         (2, 3, 4, "The value of ")])
def test_the_medusa_tree_holds_every_path_of_the_heads_top_guesses(width, depth, gamma, prompt):
    ids = TARGET.encode(prompt)
    state = TargetState(TARGET, 1.0)
    state.start(ids)
    proposal = MedusaDrafter(TARGET, width=width, depth=depth).propose(state, gamma, np.random.default_rng(0))
    levels = min(depth, gamma)
    assert proposal.parents == full_tree_parents(levels, width) and proposal.draft_passes == 0
    np.testing.assert_array_equal(proposal.rows, one_hot_rows(proposal.tokens, len(TARGET.vocab)))
    paths = {}
    for node, parent in enumerate(proposal.parents, start=1):
        paths[node] = paths.get(parent, ()) + (proposal.tokens[node - 1],)
    leaves = sorted(path for path in paths.values() if len(path) == levels)
    assert leaves == sorted(itertools.product(*_medusa_top(ids, width, levels)))


@pytest.mark.parametrize("drafter", [MedusaDrafter(TARGET, width=2, depth=2), EagleDrafter(TARGET, gamma=2)],
                         ids=["Medusa", "EAGLE"])
def test_a_one_character_prompt_gives_feature_drafters_nothing_to_read(drafter):
    state = TargetState(TARGET, 1.0)
    state.start(TARGET.encode("a"))
    drafter.start(state)
    proposal = drafter.propose(state, 2, np.random.default_rng(0))
    assert proposal.tokens == [] and proposal.draft_passes == 0 and proposal.rows.shape == (0, len(TARGET.vocab))


def _eagle_rows(ids, drafted):
    # From scratch each time: the fused (true feature at j, token j + 1) for the text, then (predicted feature,
    # drafted token) for each token drafted, through the block in one causal pass on an empty cache.
    arrays = weight_arrays()
    get = lambda name: np.ascontiguousarray(np.asarray(arrays["eagle." + name], np.float32))
    block = Block.from_arrays(get, "block.", TARGET.config.heads)
    c = TARGET.config
    features, next_ids, rows = list(TARGET.forward(ids[:-1])), list(ids[1:]), []
    for k in range(len(drafted) + 1):
        inputs = np.concatenate([np.array(features), TARGET.embed[np.array(next_ids)]], axis=1)
        fused = inputs.astype(np.float64) @ get("fuse.weight").T.astype(np.float64) + get("fuse.bias")
        fused = fused.astype(np.float32)
        cache = KVCache(1, c.heads, c.context, c.head_width)
        predicted = block(fused, cache.keys[0], cache.values[0], 0, np.tri(len(fused), dtype=bool))[-1:]
        rows.append(probabilities(TARGET.logits(predicted), 1.0)[0])
        if k < len(drafted):
            features.append(predicted[0])
            next_ids.append(drafted[k])
    return np.array(rows)


def test_eagle_rows_are_the_block_run_from_scratch_on_the_text_and_its_drafts():
    # Also on a second call after the text grew by one accepted draft and one other character: the block's
    # cache must keep the entries read from true features only.
    eagle = EagleDrafter(TARGET, gamma=3)
    state = TargetState(TARGET, 1.0)
    ids = TARGET.encode("ab = a")
    eagle.start(state)
    rng = np.random.default_rng(0)
    for second in (False, True):
        if second:
            ids = ids + proposal.tokens[:1] + TARGET.encode("(")
        state.start(ids)
        proposal = eagle.propose(state, 3, rng)
        assert len(proposal.tokens) == 3
        np.testing.assert_allclose(proposal.rows, _eagle_rows(ids, proposal.tokens[:-1]), atol=1e-5)


def test_the_target_state_refuses_an_empty_prompt():
    """An empty text has no pending character to score from: start refuses it, naming the reason."""
    with pytest.raises(ValueError, match="at least one character"):
        TargetState(TARGET, 1.0).start([])


def test_a_committed_tree_step_leaves_the_state_a_fresh_start_on_the_longer_text_would():
    """commit keeps the accepted branch's cache and features (what Medusa and EAGLE read), not its sibling's."""
    vocab, ids = len(TARGET.vocab), TARGET.encode(PROMPT)
    state = TargetState(TARGET, 1.0)
    state.start(ids)
    drafted = TARGET.encode(" +1")  # node 1 " " and node 2 "+" both children of the root; node 3 "1" under node 2
    proposal = Proposal([0, 0, 2], drafted, one_hot_rows(drafted, vocab), 0)
    _, hidden = state.score(proposal)
    emitted = drafted[1:] + TARGET.encode(";")  # path 2 → 3 accepted, then a character of the target's own
    state.commit([2, 3], emitted, hidden)
    fresh = TargetState(TARGET, 1.0)
    fresh.start(ids + emitted)
    assert state.history == ids + emitted and state.cache.length == len(ids) + 2
    np.testing.assert_allclose(state.features[: len(ids) + 2], fresh.features[: len(ids) + 2], atol=1e-5)
    empty = chain([], [], 0, vocab)
    np.testing.assert_allclose(state.score(empty)[0], fresh.score(empty)[0], atol=1e-6)


def _expected_draft_rows(kind, ids, tokens):
    if kind == "EAGLE":
        return _eagle_rows(ids, tokens[:-1])
    return np.array([_plain_row(load_draft(), ids + tokens[:k]) for k in range(len(tokens))])


@pytest.mark.parametrize("kind, texts, restart", [
    ("draft model", ["a"], False),                  # a one-character text: nothing cached, the whole text read
    ("draft model", [PROMPT, PROMPT], False),       # the same text again: the cache holds all of it, yet a row is due
    ("draft model", ["ab = a", "xb = a"], False),   # the text changed at its first character: nothing is still a prefix
    ("EAGLE", ["ab"], False),                       # two characters: one true feature, enough to draft
    ("EAGLE", [PROMPT, PROMPT], False),             # the same text again: the last entry is recomputed, not reused
    ("EAGLE", ["ab = a", "xb = a"], True),          # a new generation: start forgets the previous one's entries
])
def test_draft_caches_keep_only_what_still_holds_for_the_text(kind, texts, restart):
    """Drafter rows stay the from-scratch rows for short, repeated and changed texts (the cache is never stale)."""
    drafter = ModelDrafter(load_draft(), gamma=2) if kind == "draft model" else EagleDrafter(TARGET, gamma=2)
    state = TargetState(TARGET, 1.0)
    rng = np.random.default_rng(0)
    for k, text in enumerate(texts):
        ids = TARGET.encode(text)
        state.start(ids)
        if k == 0 or restart:
            drafter.start(state)
        proposal = drafter.propose(state, 2, rng)
        assert len(proposal.tokens) == 2
        np.testing.assert_allclose(proposal.rows, _expected_draft_rows(kind, ids, proposal.tokens), atol=1e-5)


def test_the_medusa_children_of_each_node_are_the_head_s_guesses_best_first():
    """Siblings come in the head's ranking: exact verification tries them in that order, typical emits the first."""
    ids = TARGET.encode(PROMPT)
    state = TargetState(TARGET, 1.0)
    state.start(ids)
    proposal = MedusaDrafter(TARGET, width=3, depth=2).propose(state, 2, np.random.default_rng(0))
    top = _medusa_top(ids, 3, 2)
    level, children = {0: 0}, {}
    for node, parent in enumerate(proposal.parents, start=1):
        level[node] = level[parent] + 1
        children.setdefault(parent, []).append(proposal.tokens[node - 1])
    assert len(children) == 4
    for parent, tokens in children.items():
        assert tokens == top[level[parent]]


@pytest.mark.parametrize("drafter, label", [
    (MedusaDrafter(TARGET, width=3, depth=1), "Medusa heads (tree 3 wide, 1 deep)"),
    (EagleDrafter(TARGET, gamma=2), "EAGLE-style feature drafter"),
    (PromptLookupDrafter(len(TARGET.vocab), gamma=2), "prompt lookup"),
], ids=["Medusa", "EAGLE", "prompt lookup"])
def test_a_run_records_the_drafter_s_label(drafter, label):
    """The run's drafter field is the drafter's own label (Medusa's names its tree), not its class name."""
    run = speculative_generate(TARGET, drafter, "ab ab a", 2, 0.0, np.random.default_rng(0))
    assert drafter.name == run.drafter == label
