"""sample_contexts and mean_acceptance_rate: evenly spaced contexts, and α averaged over them."""

import numpy as np
import pytest

from specdec.core import acceptance_rate
from specdec.text import NGramModel, agreement, mean_acceptance_rate, sample_contexts

TEXT = "the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat. "


def test_contexts_end_at_evenly_spaced_positions():
    contexts = sample_contexts(TEXT, 10, 5)
    assert len(contexts) == 10 and all(len(context) == 5 for context in contexts)
    assert contexts[0] == TEXT[:5] and contexts[-1] == TEXT[len(TEXT) - 6:len(TEXT) - 1]
    assert sample_contexts(TEXT, 10, 5) == contexts


def test_one_context():
    assert sample_contexts("abcdef", 1, 3) == ["abc"]


def test_mean_acceptance_rate_is_the_mean_of_the_cores_alpha():
    target, draft = NGramModel(order=4).fit(TEXT), NGramModel(order=2).fit(TEXT)
    contexts = sample_contexts(TEXT, 20, 6)
    expected = np.mean([acceptance_rate(target.next_distribution(c), draft.next_distribution(c)) for c in contexts])
    assert mean_acceptance_rate(target, draft, contexts) == pytest.approx(expected)


def test_the_contexts_are_read_in_batches_and_each_alpha_is_the_cores_to_the_last_bit(monkeypatch):
    monkeypatch.setattr(agreement, "CONTEXTS_PER_BATCH", 3)
    target, draft = NGramModel(order=5).fit(TEXT), NGramModel(order=2).fit(TEXT).at_temperature(0.7)
    contexts = sample_contexts(TEXT, 10, 6)
    expected = np.mean([acceptance_rate(target.next_distribution(c), draft.next_distribution(c)) for c in contexts])
    assert mean_acceptance_rate(target, draft, contexts) == float(expected)


def test_a_model_whose_rows_are_not_distributions_is_named():
    class Leaky:
        vocab = NGramModel(order=2).fit(TEXT).vocab

        def next_distribution(self, context):
            return np.full(len(self.vocab), 0.5)

    with pytest.raises(ValueError, match=r"draft\.next_distribution over 2 contexts.*sum to 1"):
        mean_acceptance_rate(NGramModel(order=2).fit(TEXT), Leaky(), ["the c", "on th"])


def test_a_richer_draft_agrees_more():
    contexts = sample_contexts(TEXT, 40, 6)
    target = NGramModel(order=5).fit(TEXT)
    rates = [mean_acceptance_rate(target, NGramModel(order=n).fit(TEXT), contexts) for n in (1, 2, 3, 4)]
    assert rates == sorted(rates) and rates[0] < 0.5 < rates[-1]


@pytest.mark.parametrize("args, error, words", [
    ((b"bytes", 3, 2), TypeError, "text"),
    (("abc", 0, 1), ValueError, "count"),
    (("abc", 2, -1), ValueError, "length"),
    (("abc", 2, 3), ValueError, "longer"),
])
def test_bad_sampling_arguments(args, error, words):
    with pytest.raises(error, match=words):
        sample_contexts(*args)


def test_contexts_must_be_a_non_empty_sequence():
    model = NGramModel(order=2).fit("ab")
    with pytest.raises(TypeError, match="contexts"):
        mean_acceptance_rate(model, model, "ab")
    with pytest.raises(ValueError, match="contexts"):
        mean_acceptance_rate(model, model, [])


def test_contexts_of_length_zero_are_empty_strings():
    # A unigram model reads no context at all: its α needs none.
    assert sample_contexts("abcdef", 3, 0) == ["", "", ""]
