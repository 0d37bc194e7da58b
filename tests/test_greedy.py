"""Greedy wrapper: one-hot rows, greedy speculative text equals the target's, sampled texts differ."""

import numpy as np
import pytest

from specdec.greedy import Greedy
from specdec.text import NGramModel, generate, speculative_generate

TEXT = "the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat."


@pytest.fixture(scope="module")
def models():
    return NGramModel(order=4).fit(TEXT), NGramModel(order=2).fit(TEXT)


def test_next_distribution_is_one_hot_on_the_argmax(models):
    target, _ = models
    row = target.next_distribution("the ca")
    greedy = Greedy(target).next_distribution("the ca")
    assert greedy.sum() == 1.0 and np.count_nonzero(greedy) == 1
    assert int(np.argmax(greedy)) == int(np.argmax(row))
    assert Greedy(target).vocab == target.vocab


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("gamma", [1, 3, 6])
def test_greedy_speculative_text_is_the_targets_greedy_text(models, seed, gamma):
    target, draft = models
    plain = generate(Greedy(target), "the ", 40, np.random.default_rng(seed)).text
    fast = speculative_generate(Greedy(target), Greedy(draft), "the ", 40, gamma, np.random.default_rng(seed + 9)).text
    # A plain greedy loop, independent of specdec.text.
    context, expected = "the ", ""
    for _ in range(40):
        expected += target.vocab[int(np.argmax(target.next_distribution(context + expected)))]
    assert plain == fast == expected


def test_sampled_texts_from_one_seed_differ(models):
    target, draft = models
    differ = [generate(target, "the ", 40, np.random.default_rng(seed)).text
              != speculative_generate(target, draft, "the ", 40, 3, np.random.default_rng(seed)).text
              for seed in range(5)]
    assert all(differ)


class OnlyVocab:
    vocab = ("a", "b")


class OnlyNextDistribution:
    def next_distribution(self, context):
        return np.array([0.5, 0.5])


@pytest.mark.parametrize("model", [[0.5, 0.5], OnlyVocab(), OnlyNextDistribution()],
                         ids=["list", "no-method", "no-vocab"])
def test_a_non_model_is_refused(model):
    # A model needs both .vocab and a callable .next_distribution; either one alone is refused.
    with pytest.raises(TypeError, match="model must be a language model"):
        Greedy(model)
