"""NGramModel against a plain dictionary implementation of interpolated Kneser–Ney, and its contract."""

import tracemalloc
from collections import Counter, defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specdec.text import ngram as ngram_module
from specdec.text.ngram import MAX_ORDER, UNKNOWN, NGramModel, fitted_model

RHYME = "the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat."


def reference_distribution(text, order, context):
    """Interpolated Kneser–Ney written from the formula with dicts, one level at a time.

    Level k (contexts of k characters) uses raw counts when k = order − 1 and otherwise continuation
    counts: the number of distinct characters seen before h w. Unseen contexts are skipped, not
    used as a reason to stop, so that the model's early exit is checked rather than copied.
    """
    vocab = sorted(set(text) - {UNKNOWN}) + [UNKNOWN]
    size = len(vocab)
    top = order - 1
    tables = []
    for k in range(top + 1):
        table = defaultdict(Counter)
        if k == top:
            for i in range(len(text) - k):
                table[text[i:i + k]][text[i + k]] += 1
        else:
            grams = {text[i:i + k + 2] for i in range(len(text) - k - 1)}
            for gram in grams:
                table[gram[1:-1]][gram[-1]] += 1
        counts = [n for row in table.values() for n in row.values()]
        once, twice = counts.count(1), counts.count(2)
        discount = once / (once + 2 * twice) if once else 0.5
        tables.append((table, discount))
    known = set(vocab)
    tail = "".join(char if char in known else UNKNOWN for char in (context[-top:] if top else ""))
    probs = {w: 1.0 / size for w in vocab}
    for k in range(len(tail) + 1):
        table, discount = tables[k]
        history = tail[len(tail) - k:]
        if history not in table:
            continue
        row = table[history]
        total = sum(row.values())
        weight = discount * len(row) / total
        probs = {w: max(row.get(w, 0) - discount, 0.0) / total + weight * probs[w] for w in vocab}
    values = np.array([probs[w] for w in vocab])
    return vocab, values / values.sum()


@pytest.mark.parametrize("order", range(1, MAX_ORDER + 1))
@pytest.mark.parametrize("context", ["", "t", "the ", "on the ", "the c", "zzz", "xq the r", "sat\u00e9"])
def test_matches_the_reference_on_a_rhyme(order, context):
    model = NGramModel(order=order).fit(RHYME)
    vocab, expected = reference_distribution(RHYME, order, context)
    assert model.vocab == vocab
    np.testing.assert_allclose(model.next_distribution(context), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("order", [7])
def test_matches_the_reference_with_a_large_alphabet(order):
    # 600 symbols: a context and its next character no longer fit in one 64-bit number together
    # (600^7 > 2^62), so the counts take the slower path that numbers the contexts first. The random
    # part comes twice, so that six-character contexts are seen twice: with every count 1, the
    # discount would be 1 and the longest contexts would add nothing to check.
    rng = np.random.default_rng(0)
    alphabet = [chr(0x4E00 + i) for i in range(600)]
    text = "".join(alphabet[i] for i in rng.integers(0, 40, size=200)) * 2 + "".join(alphabet)
    assert (len(set(text)) + 1) ** order >= ngram_module._KEY_LIMIT  # + 1: the unknown symbol
    model = NGramModel(order=order).fit(text)
    for context in (text[:6], text[100:106], "".join(alphabet[300:306]), text[-6:], alphabet[5] * 6):
        vocab, expected = reference_distribution(text, order, context)
        assert model.vocab == vocab
        np.testing.assert_allclose(model.next_distribution(context), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("order", range(1, MAX_ORDER + 1))
@pytest.mark.parametrize("extra", [-1, 0, 1])
def test_matches_the_reference_on_a_text_about_as_long_as_the_order(order, extra):
    """Texts of order − 1, order and order + 1 characters: the longest contexts seen zero, one or two times."""
    text = "abcabcab"[:max(order + extra, 1)]
    model = NGramModel(order=order).fit(text)
    for context in ("", text[:order - 1], text[1:order], "zz"):
        vocab, expected = reference_distribution(text, order, context)
        np.testing.assert_allclose(model.next_distribution(context), expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(alphabet="ab .c", min_size=1, max_size=80),
    order=st.integers(1, MAX_ORDER),
    context=st.text(alphabet="ab .cz", max_size=8),
)
def test_matches_the_reference_on_random_texts(text, order, context):
    model = NGramModel(order=order).fit(text)
    vocab, expected = reference_distribution(text, order, context)
    assert model.vocab == vocab
    np.testing.assert_allclose(model.next_distribution(context), expected, rtol=1e-12, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=1, max_size=60), order=st.integers(1, 4), context=st.text(max_size=6))
def test_every_distribution_is_positive_and_sums_to_one(text, order, context):
    model = NGramModel(order=order).fit(text)
    probs = model.next_distribution(context)
    assert probs.shape == (len(model.vocab),)
    assert probs.dtype == np.float64
    assert np.all(probs > 0)
    assert abs(probs.sum() - 1.0) < 1e-12


def test_vocabulary_is_the_corpus_characters_then_unknown():
    model = NGramModel(order=3).fit("banana")
    assert model.vocab == ["a", "b", "n", UNKNOWN]
    assert model.encode("z") == [3]  # an unseen character reads as UNKNOWN, the last id
    assert all(isinstance(char, str) and len(char) == 1 for char in model.vocab)


def test_models_fitted_on_the_same_text_share_the_vocabulary():
    assert NGramModel(order=1).fit(RHYME).vocab == NGramModel(order=6).fit(RHYME).vocab


def test_the_unknown_symbol_in_the_text_is_not_counted_twice():
    model = NGramModel(order=2).fit("ab" + UNKNOWN + "ab")
    assert model.vocab == ["a", "b", UNKNOWN]


def test_unseen_characters_in_the_context_read_as_unknown():
    model = NGramModel(order=3).fit(RHYME)
    np.testing.assert_array_equal(model.next_distribution("zq"), model.next_distribution("#" + UNKNOWN + UNKNOWN))


def test_an_unseen_character_reads_as_the_unknown_symbol_the_text_contains():
    text = "ab" + UNKNOWN + "ba" + UNKNOWN + "ab"
    model = NGramModel(order=2).fit(text)
    vocab, expected = reference_distribution(text, 2, UNKNOWN)
    assert model.vocab == vocab
    np.testing.assert_allclose(model.next_distribution(UNKNOWN), expected, rtol=1e-12)
    np.testing.assert_allclose(model.next_distribution("z"), expected, rtol=1e-12)


def test_characters_past_the_unknown_symbol_keep_their_own_ids():
    """Code points above U+FFFD (an emoji) sort after the unknown symbol: each keeps its id, and so does UNKNOWN."""
    text = "a\U0001F600" + UNKNOWN + "\U0001F600a" + UNKNOWN + UNKNOWN + "a\U0001F600"
    model = NGramModel(order=3).fit(text)
    assert model.vocab == ["a", "\U0001F600", UNKNOWN]
    for context in (UNKNOWN, "\U0001F600", "a" + UNKNOWN, UNKNOWN + UNKNOWN, "z"):
        vocab, expected = reference_distribution(text, 3, context)
        np.testing.assert_allclose(model.next_distribution(context), expected, rtol=1e-12, atol=1e-15)


def test_order_one_ignores_the_context():
    model = NGramModel(order=1).fit(RHYME)
    np.testing.assert_array_equal(model.next_distribution("the c"), model.next_distribution(""))


def test_only_the_last_order_minus_one_characters_matter():
    model = NGramModel(order=3).fit(RHYME)
    np.testing.assert_array_equal(model.next_distribution("xyz the c"), model.next_distribution("e c"))


def test_a_seen_continuation_is_the_most_likely():
    model = NGramModel(order=4).fit(RHYME)
    probs = model.next_distribution("the ca")
    assert model.vocab[int(probs.argmax())] == "t"


def test_encode_and_decode_round_trip():
    model = NGramModel(order=2).fit("abc")
    assert model.encode("cab?") == [2, 0, 1, 3]
    assert model.decode([2, 0, 1]) == "cab"


def test_decode_takes_every_id_up_to_unknown_and_refuses_one_past():
    model = NGramModel(order=2).fit("abc")
    assert model.decode(model.encode("ab!")) == "ab" + UNKNOWN
    assert model.decode([3]) == UNKNOWN
    for bad in ([4], [0, 5], [-1]):
        with pytest.raises(ValueError, match="ids"):
            model.decode(bad)


def test_returned_arrays_are_fresh_copies():
    model = NGramModel(order=3).fit(RHYME)
    first = model.next_distribution("the ")
    expected = first.copy()
    first[:] = 0.0
    np.testing.assert_array_equal(model.next_distribution("the "), expected)
    assert model.next_distribution("the ").flags.writeable


def test_the_memo_gives_the_same_numbers_as_a_fresh_model(monkeypatch):
    monkeypatch.setattr(ngram_module, "MEMO_SIZE", 3)
    remembering = NGramModel(order=4).fit(RHYME)
    contexts = ["the c", "on th", "rat ", "the c", "x", "mat.", "the c", "on th"]
    for context in contexts:
        fresh = NGramModel(order=4).fit(RHYME)
        np.testing.assert_array_equal(remembering.next_distribution(context), fresh.next_distribution(context))
    assert len(remembering._memo) <= 3


def test_a_full_memo_forgets_its_older_half_and_keeps_the_recent_rows(monkeypatch):
    monkeypatch.setattr(ngram_module, "MEMO_SIZE", 4)
    model = NGramModel(order=2).fit(RHYME)
    for context in ("a", "b", "c", "d", "e"):
        model.next_distribution(context)
    assert [tail for tail, _ in model._memo] == ["c", "d", "e"]


@pytest.mark.parametrize("order", range(1, MAX_ORDER + 1))
def test_remembered_short_context_sums_change_no_bit(monkeypatch, order):
    contexts = ["", "t", "th", "the c", "on the ", "xq the r", "sat\u00e9", "zz", "the cat sa", "rat, and"]
    remembering = NGramModel(order=order).fit(RHYME)
    first_pass = [remembering.next_distribution(context) for context in contexts]
    remembering._memo.clear()  # the distributions are forgotten, the short-context sums kept and reused
    second_pass = [remembering.next_distribution(context) for context in contexts]
    assert remembering._short_context_sums
    monkeypatch.setattr(ngram_module, "SHARED_CONTEXT_LENGTH", 0)  # every level folded for each context
    folding = NGramModel(order=order).fit(RHYME)
    for context, first, second in zip(contexts, first_pass, second_pass):
        plain = folding.next_distribution(context)
        np.testing.assert_array_equal(first, plain)
        np.testing.assert_array_equal(second, plain)


@pytest.mark.parametrize("temperature", [0.3, 0.5, 2.0, 5.0])
def test_temperature_is_softmax_of_log_probabilities(temperature):
    base = NGramModel(order=3).fit(RHYME)
    tempered = NGramModel(order=3, temperature=temperature).fit(RHYME)
    p = base.next_distribution("the ")
    expected = p ** (1.0 / temperature)
    expected /= expected.sum()
    np.testing.assert_allclose(tempered.next_distribution("the "), expected, rtol=1e-10)
    np.testing.assert_allclose(base.at_temperature(temperature).next_distribution("the "), expected, rtol=1e-10)


def test_low_temperature_sharpens_and_high_flattens():
    model = NGramModel(order=3).fit(RHYME)
    p = model.next_distribution("the ")
    assert model.at_temperature(0.5).next_distribution("the ").max() > p.max()
    assert model.at_temperature(2.0).next_distribution("the ").max() < p.max()


def test_a_very_low_temperature_stays_finite():
    probs = NGramModel(order=3, temperature=1e-3).fit(RHYME).next_distribution("the ")
    assert np.all(np.isfinite(probs)) and abs(probs.sum() - 1) < 1e-12


def test_at_temperature_leaves_the_original_alone_and_shares_the_counts():
    model = NGramModel(order=3).fit(RHYME)
    hot = model.at_temperature(2.0)
    assert model.temperature == 1.0 and hot.temperature == 2.0
    assert hot._levels is model._levels


def test_refitting_forgets_the_distributions_of_the_old_text():
    model = NGramModel(order=2).fit("abababab")
    before = model.next_distribution("a")
    model.fit("aabbaabb")  # the same vocabulary, other counts
    after = model.next_distribution("a")
    np.testing.assert_array_equal(after, NGramModel(order=2).fit("aabbaabb").next_distribution("a"))
    assert not np.allclose(after, before)


def test_refitting_does_not_change_copies_made_before():
    model = NGramModel(order=2).fit("aaaa")
    copy = model.at_temperature(1.0)
    before = copy.next_distribution("a")
    model.fit("bcbcbc")
    assert copy.vocab == ["a", UNKNOWN]
    np.testing.assert_array_equal(copy.next_distribution("a"), before)
    assert model.vocab == ["b", "c", UNKNOWN]


def test_count_arrays_are_read_only():
    model = NGramModel(order=3).fit(RHYME)
    with pytest.raises(ValueError):
        model._levels[1].counts[0] = 5.0


@pytest.fixture
def temporary_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECDEC_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_fitted_model_is_fitted_once_per_order_and_text(temporary_cache, monkeypatch):
    text = RHYME + " once more."
    first = fitted_model(3, text)
    counted = []
    original = ngram_module._raw_table
    monkeypatch.setattr(ngram_module, "_raw_table", lambda *args: counted.append(args[1]) or original(*args))
    second = fitted_model(3, text)
    assert counted == []
    assert second is not first and second._levels is first._levels
    second.fit("something else entirely")
    assert fitted_model(3, text).vocab == first.vocab


def test_fitting_a_six_gram_on_the_corpus_stays_under_300_megabytes():
    from specdec.text import stdlib_corpus

    text = stdlib_corpus()
    tracemalloc.start()
    try:
        model = NGramModel(order=6).fit(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300e6
    assert model.nbytes < 100e6


@pytest.mark.parametrize("order", [0, MAX_ORDER + 1, -1])
def test_order_out_of_range(order):
    with pytest.raises(ValueError, match="order"):
        NGramModel(order=order)


@pytest.mark.parametrize("order", [2.0, "3", True, None])
def test_order_of_the_wrong_type(order):
    with pytest.raises(TypeError, match="order"):
        NGramModel(order=order)


@pytest.mark.parametrize("temperature", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_temperature_values(temperature):
    with pytest.raises(ValueError, match="temperature"):
        NGramModel(order=2, temperature=temperature)
    with pytest.raises(ValueError, match="temperature"):
        NGramModel(order=2).fit("ab").at_temperature(temperature)


@pytest.mark.parametrize("temperature", ["1", None, True])
def test_bad_temperature_types(temperature):
    with pytest.raises(TypeError, match="temperature"):
        NGramModel(order=2, temperature=temperature)


def test_fit_needs_a_non_empty_string():
    with pytest.raises(TypeError, match="text"):
        NGramModel(order=2).fit(b"bytes")
    with pytest.raises(ValueError, match="text"):
        NGramModel(order=2).fit("")


def test_a_text_of_exactly_the_maximum_length_is_accepted_and_one_more_refused():
    limit = ngram_module.MAX_TEXT_LENGTH
    text = "a" * limit
    assert ngram_module.CORPUS_TEXT(text, "text", {}) is text
    with pytest.raises(ValueError, match="at most"):
        ngram_module.CORPUS_TEXT(text + "a", "text", {})


def test_too_many_distinct_characters_for_the_order():
    text = "".join(chr(0x4E00 + i) for i in range(1500))
    with pytest.raises(ValueError, match="distinct characters"):
        NGramModel(order=7).fit(text)
    assert len(NGramModel(order=3).fit(text).vocab) == 1501


def test_shared_counts_refuse_too_many_distinct_characters_as_a_fit_does(temporary_cache):
    text = "".join(chr(0x4E00 + i) for i in range(1500))
    counts = ngram_module.CorpusCounts(text)
    with pytest.raises(ValueError, match="1501 distinct characters, too many for order 7"):
        counts.model(7)
    assert len(counts.model(3).vocab) == 1501


def test_an_unfitted_model_says_so():
    model = NGramModel(order=4)
    with pytest.raises(RuntimeError, match="fit"):
        model.next_distribution("abc")
    with pytest.raises(RuntimeError, match="fit"):
        model.vocab
    assert "not fitted" in repr(model)


def test_context_and_text_must_be_strings():
    model = NGramModel(order=2).fit("ab")
    with pytest.raises(TypeError, match="context"):
        model.next_distribution(["a"])
    with pytest.raises(TypeError, match="text must be a str, got list"):
        model.encode(["a"])
    with pytest.raises(TypeError, match="text must be a str, got int"):
        ngram_module.corpus_counts(5)


def test_repr_names_order_temperature_and_vocabulary_size():
    assert repr(NGramModel(order=3, temperature=0.5).fit("abc")) == "NGramModel(order=3, temperature=0.5, V=4)"
