"""The training and held-out halves of the corpus, and the character vocabulary of the neural models.

The corpus (`specdec.text.stdlib_corpus`) is cut into blocks of `BLOCK` characters; every
`HELD_OUT_EVERY`-th block (blocks 9, 19, 29, …) is held out, the rest is training text. Blocks
rather than one tail keep both halves a mix of every part of the standard library, and a block of
4096 characters is long enough that almost every held-out context lies inside held-out text.

>>> train, held_out = split_text("abcdefghij" * 5000)
>>> len(train) + len(held_out), round(len(held_out) / 50_000, 2)
(50000, 0.08)
"""

from __future__ import annotations

from ..text.ngram import UNKNOWN  # the symbol for any character outside a model's vocabulary, as the n-gram models use

#: Characters per block of the split.
BLOCK = 4096
#: One block in this many is held out: 10 %.
HELD_OUT_EVERY = 10


def split_text(text) -> tuple[str, str]:
    """(training text, held-out text): the blocks of `text`, every tenth one held out.

    Parameters
    ----------
    text : str

    Returns
    -------
    tuple of str
        The training blocks joined in order, and the held-out blocks joined in order.

    Examples
    --------
    >>> train, held_out = split_text("x" * BLOCK * 9 + "y" * BLOCK)
    >>> set(held_out), len(train) == 9 * BLOCK
    ({'y'}, True)
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    blocks = [text[start:start + BLOCK] for start in range(0, len(text), BLOCK)]
    held = [block for index, block in enumerate(blocks) if index % HELD_OUT_EVERY == HELD_OUT_EVERY - 1]
    kept = [block for index, block in enumerate(blocks) if index % HELD_OUT_EVERY != HELD_OUT_EVERY - 1]
    return "".join(kept), "".join(held)


def vocabulary(text) -> list[str]:
    """The characters of `text` in code point order, then `UNKNOWN`.

    >>> vocabulary("banana")
    ['a', 'b', 'n', '�']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return sorted(set(text) - {UNKNOWN}) + [UNKNOWN]
