"""A character n-gram language model with interpolated Kneser–Ney smoothing.

An n-gram model of order n predicts the next character from the n − 1 characters before it. Raw
counts alone give zero probability to anything not seen after a context, so the model mixes each
order with the one below it (interpolated Kneser–Ney, Chen & Goodman 1998). For a context h of
length k with counts c(h w):

    P(w | h) = max(c(h w) − D, 0) / c(h) + D · N(h •) / c(h) · P(w | h')

where h' is h without its first character, N(h •) is the number of distinct characters seen after
h and D is a discount in (0, 1]. The longest context uses raw counts; the shorter ones use
*continuation* counts, c(h w) = the number of distinct characters seen before h w, which ask "in how
many contexts does w follow h?" rather than "how often?". At the bottom sits the uniform
distribution over the vocabulary, so every character has some probability in every context.

What is simplified, and why:

* characters instead of subword tokens: a vocabulary of about a hundred symbols keeps every row
  small enough to print and plot, and a model fits in a second without any download;
* one discount per order, D = n₁ / (n₁ + 2n₂) from the number of n-grams seen once (n₁) and twice
  (n₂), instead of modified Kneser–Ney's three;
* no start-of-text padding: a context shorter than n − 1 characters (the start of a short prompt)
  is read with the continuation estimates of its own length;
* temperature T is applied to the final distribution, p ↦ p^(1/T) renormalised, which is
  softmax(log p / T): what an engine does to a network's logits.

Counts are stored sparsely: for each context length, the sorted keys of the contexts seen, and for
each context only the characters seen after it (a compressed sparse row layout).

>>> model = NGramModel(order=3).fit("abracadabra")
>>> model.vocab
['a', 'b', 'c', 'd', 'r', '�']
>>> p = model.next_distribution("ab")
>>> model.vocab[int(p.argmax())], round(float(p.sum()), 12)
('r', 1.0)
"""

from __future__ import annotations

import copy
import functools
import itertools
import sys
from dataclasses import dataclass

import numpy as np

from .. import validation
from ..validation import Constraint, Count, Integers, PositiveNumber, checked
from . import disk_cache

#: The symbol that stands for any character the model did not see when it was fitted.
UNKNOWN = "\N{REPLACEMENT CHARACTER}"

#: The largest order the model accepts: six characters of context.
MAX_ORDER = 7

#: The longest text `NGramModel.fit` accepts: ten million characters, ten times the corpus of the
#: notebooks. An order-7 fit of that took about 2.4 s and 0.5 GB at its peak on the project's 2-core
#: machine, and both grow in proportion to the length.
MAX_TEXT_LENGTH = 10_000_000

#: The discount used when the counts cannot estimate one (no n-gram was seen exactly once).
FALLBACK_DISCOUNT = 0.5

#: How many distributions a fitted model remembers, per (context, temperature). Generation revisits
#: the same short contexts constantly (after "th", after ". "), and a look-up is far cheaper than
#: smoothing again; about 7 MB at a hundred symbols. When full, it forgets the older half.
MEMO_SIZE = 8192

#: Contexts of at most this many characters end every longer context, and they are few (about
#: four thousand in the notebooks' corpus): the model remembers its partial sums over them (see
#: `NGramModel._partial_sums`), so a new context of five characters costs three levels of sums, not six.
SHARED_CONTEXT_LENGTH = 2

# Context keys pack k character ids in base V into one int64; this bound keeps them exact.
_KEY_LIMIT = 2**62


@dataclass(frozen=True)
class _Level:
    """The smoothed counts for contexts of one length, in compressed sparse row form."""

    keys: np.ndarray  # (contexts,) int64, sorted: each context packed as a base-V number
    indptr: np.ndarray  # (contexts + 1,) int64: the characters after context r are entries indptr[r]:indptr[r+1]
    chars: np.ndarray  # (entries,) int64: the character ids seen after each context
    counts: np.ndarray  # (entries,) float64: their raw or continuation counts
    totals: np.ndarray  # (contexts,) float64: c(h), the sum of a context's counts
    followers: np.ndarray  # (contexts,) float64: N(h •), the number of distinct characters after h
    discount: float
    # Precomputed for lookups: P(w | h) = discounted[entry of w] + backoff[h] · P(w | h').
    discounted: np.ndarray  # (entries,) float64: (c(h w) − D) / c(h)
    backoff: np.ndarray  # (contexts,) float64: D · N(h •) / c(h), the weight of the shorter context

    def find(self, key: int) -> int:
        """The row of the context with this key, or −1 if it was never seen."""
        row = int(self.keys.searchsorted(key))
        if row < len(self.keys) and int(self.keys[row]) == key:
            return row
        return -1

    @property
    def nbytes(self) -> int:
        return sum(array.nbytes for array in self.arrays())

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.keys, self.indptr, self.chars, self.counts, self.totals, self.followers,
                self.discounted, self.backoff)


class Order(Count):
    """An n-gram order: an integer in 1 … `MAX_ORDER`."""

    def __init__(self):
        super().__init__(1)

    def __call__(self, value, name, arguments):
        order = super().__call__(value, name, arguments)
        if order > MAX_ORDER:
            raise ValueError(f"{name} must be in 1 … {MAX_ORDER}, got {order}")
        return order


class CorpusText(Constraint):
    """Text to fit on: a non-empty str of at most `MAX_TEXT_LENGTH` characters."""

    def __call__(self, text, name, arguments):
        if not isinstance(text, str):
            raise TypeError(f"{name} must be a str, got {type(text).__name__}")
        if not text:
            raise ValueError(f"{name} must contain at least one character, got an empty string")
        if len(text) > MAX_TEXT_LENGTH:
            raise ValueError(
                f"{name} must hold at most {MAX_TEXT_LENGTH:,} characters (MAX_TEXT_LENGTH), got {len(text):,}: "
                f"fit on a part of it"
            )
        return text


ORDER, CORPUS_TEXT = Order(), CorpusText()
TEMPERATURE = PositiveNumber("the sampling temperature: below 1 sharpens, above 1 flattens")


class NGramModel:
    """A character n-gram language model with interpolated Kneser–Ney smoothing.

    Parameters
    ----------
    order : int in 1 … 7
        n: the model looks at the last n − 1 characters. Order 1 ignores the context, order 2 is a
        bigram model (one character of context).
    temperature : finite float > 0
        Sampling temperature applied to every distribution: below 1 sharpens, above 1 flattens.
        However small, the result is finite: it tends to a one-hot on the likeliest character.

    Attributes
    ----------
    vocab : list of str
        The characters of the fitted text in code point order, then `UNKNOWN`. Two models fitted
        on the same text have the same vocabulary, so their distributions line up entry by entry.

    Examples
    --------
    >>> model = NGramModel(order=2).fit("the cat sat on the mat")
    >>> p = model.next_distribution("th")
    >>> model.vocab[int(p.argmax())]
    'e'
    >>> sharp = model.at_temperature(0.5).next_distribution("th")
    >>> bool(sharp.max() > p.max())
    True
    """

    @checked(order=ORDER, temperature=TEMPERATURE)
    def __init__(self, order=3, temperature=1.0):
        self.order = order
        self.temperature = temperature
        self._vocab: list[str] | None = None
        self._index: dict[str, int] = {}
        self._levels: tuple[_Level, ...] = ()
        self._memo: dict[tuple[str, float], np.ndarray] = {}
        self._short_context_sums: dict[tuple, tuple] = {}  # `_partial_sums` over the last ≤ 2 character ids

    @checked(text=CORPUS_TEXT)
    def fit(self, text) -> "NGramModel":
        """Count every context of the text and return the model itself.

        Parameters
        ----------
        text : str
            1 … `MAX_TEXT_LENGTH` characters; lone surrogates (halves of a UTF-16 pair, such as
            "\\ud800", which are not characters) are refused. Refitting replaces everything
            learnt before.

        Returns
        -------
        NGramModel
            ``self``, so that ``NGramModel(order=5).fit(text)`` reads as one expression.

        Examples
        --------
        >>> NGramModel(order=2).fit("hello")
        NGramModel(order=2, temperature=1, V=5)
        """
        vocab, ids = _encode_corpus(text)
        size = len(vocab)
        context_length = self.order - 1
        if size ** context_length >= _KEY_LIMIT:
            raise ValueError(
                f"text has {size} distinct characters, too many for order {self.order}: contexts of "
                f"{context_length} characters would not fit in 64-bit keys (use a lower order or a smaller alphabet)"
            )
        self._vocab = vocab
        self._index = {char: i for i, char in enumerate(vocab)}
        self._levels = _fit_levels(ids, size, context_length)
        self._memo, self._short_context_sums = {}, {}  # new dicts: copies made before this fit keep theirs
        return self

    @property
    def vocab(self) -> list[str]:
        return list(self._fitted_vocab())

    @property
    def nbytes(self) -> int:
        """Bytes held by the count arrays."""
        return sum(level.nbytes for level in self._levels)

    def next_distribution(self, context) -> np.ndarray:
        """The distribution of the next character after `context`.

        Parameters
        ----------
        context : str
            The text so far; only its last ``order − 1`` characters matter. Characters outside
            the vocabulary are read as `UNKNOWN`.

        Returns
        -------
        numpy.ndarray of shape (len(vocab),)
            A new float array, strictly positive at temperature 1, that sums to 1.

        Examples
        --------
        >>> model = NGramModel(order=3).fit("abracadabra")
        >>> model.next_distribution("br").round(3).tolist()
        [0.835, 0.033, 0.033, 0.033, 0.033, 0.033]
        """
        self._fitted_vocab()
        if not isinstance(context, str):
            raise TypeError(f"context must be a str, got {type(context).__name__}")
        width = self.order - 1
        tail = context[-width:] if width else ""
        temperature = self.temperature
        probs = self._memo.get((tail, temperature))
        if probs is None:
            base = self._remember(tail, 1.0, self._smoothed)
            if temperature == 1.0:
                probs = base
            else:
                probs = self._remember(tail, temperature, lambda _: _tempered(base, temperature))
        return probs.copy()

    def _remember(self, tail: str, temperature: float, compute) -> np.ndarray:
        """The memo's read-only array for (tail, temperature), computed and stored if missing."""
        key = (tail, temperature)
        probs = self._memo.get(key)
        if probs is None:
            if len(self._memo) >= MEMO_SIZE:  # forget the older half (a dict keeps the order of insertion)
                for old in list(itertools.islice(self._memo, max(1, MEMO_SIZE // 2))):
                    del self._memo[old]
            probs = compute(tail)
            probs.flags.writeable = False
            self._memo[key] = probs
        return probs

    def _smoothed(self, tail: str) -> np.ndarray:
        """The interpolated Kneser–Ney distribution after `tail` (at most order − 1 characters)."""
        unknown = len(self._vocab) - 1
        ids = [self._index.get(char, unknown) for char in tail]
        shared = ids[len(ids) - min(len(ids), SHARED_CONTEXT_LENGTH):]
        state = self._short_context_sums.get(tuple(shared))
        if state is None:  # at most 1 + V + V² of them: their number needs no bound
            state = self._partial_sums(shared, np.full(len(self._vocab), 1.0 / len(self._vocab)), 0, 0, 1)
            state[0].flags.writeable = False
            self._short_context_sums[tuple(shared)] = state
        probs, key, scale, complete = state
        probs = probs.copy()
        if complete:
            probs = self._partial_sums(ids, probs, len(shared) + 1, key, scale)[0]
        probs /= probs.sum()
        return probs

    def _partial_sums(self, ids: list, probs: np.ndarray, start: int, key: int, scale: int) -> tuple:
        """Fold the contexts of `start` … len(ids) characters ending `ids` into `probs`, shortest first:
        probs ← probs · D·N(h •)/c(h) + max(c(h w) − D, 0)/c(h). `key` packs the ids folded in already, the
        last max(start − 1, 0) of them, and `scale` is V to the power of their number.

        Returns (probs, key, scale, complete), `complete` False if a context was never seen (then no longer
        one was either, and the sum is final). The levels are added in the same order however the work is
        split, so a distribution is the same to the last bit with or without the remembered sums.
        """
        size = len(self._vocab)
        for length in range(start, len(ids) + 1):
            if length:
                key += ids[-length] * scale
                scale *= size
            level = self._levels[length]
            row = level.find(key)
            if row < 0:
                return probs, key, scale, False
            begin, end = int(level.indptr[row]), int(level.indptr[row + 1])
            probs *= level.backoff[row]
            probs[level.chars[begin:end]] += level.discounted[begin:end]
        return probs, key, scale, True

    def clear_memo(self) -> None:
        """Forget the remembered distributions and partial sums (shared with copies of this model).

        The numbers never change, only the time they take: benchmarks time cold look-ups this way.

        >>> model = NGramModel(order=2).fit("abc")
        >>> before = model.next_distribution("a")
        >>> model.clear_memo()
        >>> bool((model.next_distribution("a") == before).all())
        True
        """
        self._memo.clear()
        self._short_context_sums.clear()

    @checked(temperature=TEMPERATURE)
    def at_temperature(self, temperature) -> "NGramModel":
        """The same fitted model at another temperature; the counts are shared, not copied.

        Examples
        --------
        >>> base = NGramModel(order=2).fit("aab")
        >>> hot = base.at_temperature(2.0)
        >>> hot.temperature, base.temperature, hot.vocab == base.vocab
        (2.0, 1.0, True)
        """
        other = copy.copy(self)
        other.temperature = temperature
        return other

    def encode(self, text) -> list[int]:
        """The vocabulary ids of the characters of `text` (`UNKNOWN`'s id for unseen ones).

        >>> NGramModel(order=2).fit("abc").encode("cab!")
        [2, 0, 1, 3]
        """
        vocab = self._fitted_vocab()
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        unknown = len(vocab) - 1
        return [self._index.get(char, unknown) for char in text]

    def decode(self, ids) -> str:
        """The characters with these vocabulary ids, as one string.

        `ids` is a 1-D sequence or array of integers in 0 … V − 1; anything else (a float, a
        negative id, an id past the vocabulary) is refused rather than truncated or wrapped around.

        >>> NGramModel(order=2).fit("abc").decode([2, 0, 1])
        'cab'
        """
        vocab = self._fitted_vocab()
        values = Integers("token ids")(ids, "ids")
        size = len(vocab)
        validation.integers_in_range(values, "ids", 0, size - 1, f"the ids of this model's {size} symbols")
        return "".join([vocab[i] for i in values.tolist()])

    def _adopt(self, vocab: list[str], levels: tuple) -> None:
        """Take counts made elsewhere (`CorpusCounts`), as `fit` would have made them."""
        self._vocab = vocab
        self._index = {char: i for i, char in enumerate(vocab)}
        self._levels = levels
        self._memo, self._short_context_sums = {}, {}

    def _fitted_vocab(self) -> list[str]:
        if self._vocab is None:
            raise RuntimeError(f"this NGramModel(order={self.order}) is not fitted yet: call .fit(text) first")
        return self._vocab

    def __repr__(self) -> str:
        fitted = f", V={len(self._vocab)}" if self._vocab is not None else ", not fitted"
        return f"NGramModel(order={self.order}, temperature={self.temperature:g}{fitted})"


class CorpusCounts:
    """The counts of one text at every context length, computed once, on demand, and shared by every order.

    A model of order n needs the raw counts of contexts of length n − 1 and the continuation counts
    of every shorter length, which are read off the raw counts one length up; so the models of
    orders 1 … 7 on one text share almost all their work. Each raw table is computed the first
    time an order needs it, kept in memory, and kept on disk by `specdec.text.disk_cache` under a
    key made of a hash of the text and of this module's source: a later session loads it in a
    fraction of the time a fit takes, and a cache made from another text or by other code is
    never used.

    Parameters
    ----------
    text : str
        As for `NGramModel.fit`.

    Examples
    --------
    >>> counts = CorpusCounts("abracadabra")
    >>> bool((counts.model(3).next_distribution("ab") == NGramModel(3).fit("abracadabra").next_distribution("ab")).all())
    True
    """

    @checked(text=CORPUS_TEXT)
    def __init__(self, text):
        self.text = text
        self.vocab, self._ids = _encode_corpus(text)
        self.size = len(self.vocab)
        self.key = disk_cache.fingerprint(text, disk_cache.source_fingerprint(sys.modules[__name__]))
        self._raw: dict[int, _Level] = {}
        self._continuation: dict[int, _Level] = {}
        self._levels: dict[int, tuple[_Level, ...]] = {}  # by order

    def model(self, order: int, progress=None) -> NGramModel:
        """A new `NGramModel` of this order at temperature 1, sharing the counts.

        `progress`, if given, is called with a short message before each table that must be counted.
        """
        model = NGramModel(order=order)
        context_length = model.order - 1
        if self.size ** context_length >= _KEY_LIMIT:
            model.fit(self.text)  # raises the fit's error about too many distinct characters
        levels = self._levels.get(model.order)
        if levels is None:
            if context_length == 0:
                levels = (self._raw_level(0, progress),)
            else:  # shortest first, so that progress counts up
                lower = tuple(self._continuation_level(length, progress) for length in range(context_length))
                levels = (*lower, self._raw_level(context_length, progress))
            self._levels[model.order] = levels
        model._adopt(self.vocab, levels)
        return model

    def has_counts_for(self, order: int) -> bool:
        """Whether a model of this order can be made without counting anything (in memory now)."""
        return order in self._levels or (
            max(order - 1, 0) in self._raw and all(length in self._continuation for length in range(order - 1)))

    def _raw_level(self, length: int, progress) -> _Level:
        level = self._raw.get(length)
        if level is None:
            name = f"ngram-{self.key[:16]}-raw{length}"
            level = _level_from_arrays(disk_cache.load_arrays(name, self.key, _STORED), self.size)
            if level is None:
                if progress is not None:
                    progress(f"counting the contexts of length {length}")
                level = _level(*_raw_table(self._ids, length, self.size))
                disk_cache.save_arrays(name, self.key, {"keys": level.keys, "indptr": level.indptr,
                                                        "chars": level.chars, "counts": level.counts})
            self._raw[length] = level
        return level

    def _continuation_level(self, length: int, progress) -> _Level:
        level = self._continuation.get(length)
        if level is None:
            above = self._raw_level(length + 1, progress)
            rows = np.repeat(np.arange(len(above.keys)), np.diff(above.indptr))
            level = _level(*_continuation_table((above.keys, rows, above.chars, None), length, self.size))
            self._continuation[length] = level
        return level


@functools.lru_cache(maxsize=4)
def corpus_counts(text: str) -> CorpusCounts:
    """The one `CorpusCounts` of `text` in this session (the last four texts are kept).

    >>> corpus_counts("abc") is corpus_counts("abc")
    True
    """
    return CorpusCounts(text)


@checked(order=ORDER, text=CORPUS_TEXT)
def fitted_model(order, text, progress=None) -> NGramModel:
    """A model of this order fitted on `text`, fitted once per (order, text) and then reused.

    Fitting a 5-gram on a megabyte takes about a tenth of a second, and reading the corpus about a second;
    notebooks and explorers ask for the same
    few models again and again. The counts are shared between orders and kept on disk between
    sessions (`CorpusCounts`). Each call returns a fresh `NGramModel` object at temperature 1
    that shares the cached counts, so refitting or changing what is returned leaves the cache alone.

    Parameters
    ----------
    order : int in 1 … 7
    text : str
    progress : callable, optional
        Called with a short message (str) before each part that takes time is counted.

    Examples
    --------
    >>> fitted_model(2, "abracadabra").vocab == fitted_model(3, "abracadabra").vocab
    True
    """
    return corpus_counts(text).model(order, progress)


#: The arrays a raw table is stored as on disk; the rest of a level is computed from them.
_STORED = ("keys", "indptr", "chars", "counts")


def _level_from_arrays(arrays, size: int) -> _Level | None:
    """A level from its stored arrays, or None if they are not a sound table (a corrupt file)."""
    if arrays is None:
        return None
    keys, indptr, chars, counts = (arrays[name] for name in _STORED)
    sound = (
        keys.ndim == indptr.ndim == chars.ndim == counts.ndim == 1
        and all(array.dtype.kind in "iu" for array in (keys, indptr, chars)) and counts.dtype.kind in "iuf"
        and len(indptr) == len(keys) + 1 and len(chars) == len(counts)
        and len(indptr) > 0 and indptr[0] == 0 and indptr[-1] == len(chars)
        and bool(np.all(np.diff(indptr) > 0)) and bool(np.all(np.diff(keys) > 0))
        and (len(chars) == 0 or (int(chars.min()) >= 0 and int(chars.max()) < size))
        and bool(np.all(counts >= 1))
    )
    if not sound:
        return None
    rows = np.repeat(np.arange(len(keys)), np.diff(indptr))
    return _level(keys, rows, chars, counts)


def _tempered(probs: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(log p / T): p^(1/T) renormalised, computed in log space so that it never overflows.

    The largest log-probability is subtracted *before* dividing by T: the likeliest characters then
    sit at exactly 0 for every T, and the others at −∞ at worst, so even T = 5e-324 gives a one-hot
    (uniform over ties), the limit as T → 0, instead of −∞ − (−∞) = NaN.
    """
    # log 0 = −∞ is the right logit of an impossible character; a finite logit over a tiny T may
    # overflow to −∞, as it should.
    with np.errstate(divide="ignore", over="ignore"):
        logits = np.log(probs)
        logits -= logits.max()
        logits /= temperature
    tempered = np.exp(logits)
    tempered /= tempered.sum()
    return tempered


def _encode_corpus(text: str) -> tuple[list[str], np.ndarray]:
    """The vocabulary (code point order, then UNKNOWN) and the text as an int64 array of ids."""
    try:
        encoded = text.encode("utf-32-le")
    except UnicodeEncodeError as error:  # only a lone surrogate cannot be encoded
        raise ValueError(
            f"text contains {text[error.start]!r} at index {error.start:,}, a lone surrogate (half of a "
            f"UTF-16 pair), which is not a character; expected text made of characters only "
            f"(decoding bytes with errors='replace' turns such halves into {UNKNOWN!r})"
        ) from None
    points = np.frombuffer(encoded, dtype=np.uint32)
    unknown_point = ord(UNKNOWN)
    seen = np.unique(points)
    seen = seen[seen != unknown_point]
    ids = np.searchsorted(seen, points).astype(np.int64)
    ids[points == unknown_point] = len(seen)
    vocab = [chr(int(point)) for point in seen] + [UNKNOWN]
    return vocab, ids


def _fit_levels(ids: np.ndarray, size: int, top: int) -> tuple[_Level, ...]:
    """Levels 0 … top: raw counts for contexts of length `top`, continuation counts below it."""
    # Level k's continuation counts are read off the distinct (k+2)-grams, which are the entries of
    # the raw table of contexts of length k+1; so raw tables are needed at every length 1 … top
    # (and at length 0 only for a unigram model, whose one level is raw).
    lengths = range(1, top + 1) if top else [0]
    raw = {length: _raw_table(ids, length, size) for length in lengths}
    levels = [_level(*raw[top])]
    for length in range(top - 1, -1, -1):
        levels.insert(0, _level(*_continuation_table(raw[length + 1], length, size)))
    return tuple(levels)


def _raw_table(ids: np.ndarray, length: int, size: int):
    """Every context of `length` characters followed by a character: (keys, rows, chars, counts)."""
    positions = len(ids) - length
    if positions <= 0:
        return _empty_table()
    keys = np.zeros(positions, dtype=np.int64)
    for offset in range(length):
        keys *= size
        keys += ids[offset:offset + positions]
    return _grouped(keys, ids[length:], length, size)


def _continuation_table(raw_above, length: int, size: int):
    """For contexts h of `length` characters: how many distinct characters precede each h w."""
    contexts_above, rows_above, chars_above, _ = raw_above
    if len(rows_above) == 0:
        return _empty_table()
    # Dropping the first character of a packed key is a remainder by V^length. Each distinct
    # (longer context, w) is one distinct character before h w, so counting them gives N(• h w).
    suffixes = contexts_above[rows_above] % (size ** length)
    return _grouped(suffixes, chars_above, length, size)


def _grouped(keys: np.ndarray, chars: np.ndarray, length: int, size: int):
    """Count each distinct (context key, character): (contexts, rows, chars, counts), sorted by key then character.

    When a key and a character fit in one int64 (V^(length+1) < 2^62, true for the corpus at every
    order), both are packed into one number and sorted once; otherwise the contexts are numbered
    first, then the (row, character) pairs counted.
    """
    if size ** (length + 1) < _KEY_LIMIT:
        pairs, counts = np.unique(keys * size + chars, return_counts=True)
        pair_contexts = pairs // size
        new_context = np.empty(len(pairs), dtype=bool)
        new_context[:1] = True
        new_context[1:] = pair_contexts[1:] != pair_contexts[:-1]
        rows = np.cumsum(new_context) - 1
        return pair_contexts[new_context], rows, pairs % size, counts
    contexts, rows = np.unique(keys, return_inverse=True)
    pairs, counts = np.unique(rows.reshape(-1) * size + chars, return_counts=True)
    return contexts, pairs // size, pairs % size, counts


def _empty_table():
    empty = np.zeros(0, dtype=np.int64)
    return empty, empty, empty, empty


def _level(contexts, rows, chars, counts) -> _Level:
    indptr = np.searchsorted(rows, np.arange(len(contexts) + 1)).astype(np.int64)
    weights = counts.astype(np.float64)
    once = int(np.count_nonzero(counts == 1))
    twice = int(np.count_nonzero(counts == 2))
    discount = once / (once + 2 * twice) if once else FALLBACK_DISCOUNT
    totals = np.bincount(rows, weights=weights, minlength=len(contexts))
    followers = np.diff(indptr).astype(np.float64)
    level = _Level(
        keys=contexts.astype(np.int64),
        indptr=indptr,
        chars=chars.astype(np.int64),
        counts=weights,
        totals=totals,
        followers=followers,
        discount=discount,
        discounted=(weights - discount) / totals[rows] if len(rows) else np.zeros(0),
        backoff=discount * followers / np.maximum(totals, 1.0),
    )
    for array in level.arrays():
        array.flags.writeable = False  # shared by every copy of the model
    return level
