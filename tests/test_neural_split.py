"""specdec.neural.split: the training and held-out blocks of the corpus, and the models' character vocabulary."""

import pytest

from specdec.neural.split import split_text, vocabulary
from specdec.text.ngram import UNKNOWN


def test_every_tenth_block_of_4096_characters_is_held_out_in_order():
    # 23 whole blocks, each of one letter, then a partial 24th block: blocks 9 and 19 (J and T) are held out.
    blocks = [chr(ord("A") + i) * 4096 for i in range(23)] + ["x" * 100]
    train, held_out = split_text("".join(blocks))
    assert held_out == "J" * 4096 + "T" * 4096
    assert train == "".join(block for i, block in enumerate(blocks) if i not in (9, 19))


def test_a_partial_tenth_block_is_held_out_and_short_texts_are_all_training():
    text = "a" * (9 * 4096) + "b" * 10
    assert split_text(text) == ("a" * (9 * 4096), "b" * 10)
    assert split_text("abc") == ("abc", "")
    assert split_text("") == ("", "")


def test_vocabulary_sorts_the_characters_and_ends_with_unknown_once():
    assert vocabulary("cab" + UNKNOWN + "a") == ["a", "b", "c", UNKNOWN]
    assert vocabulary("") == [UNKNOWN]


@pytest.mark.parametrize("function", [split_text, vocabulary])
def test_text_must_be_a_str(function):
    with pytest.raises(TypeError, match="text must be a str"):
        function(b"abc")
