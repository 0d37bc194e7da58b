"""Counts and the corpus kept on disk: the same numbers as a fresh fit, and any unsound file is ignored and replaced."""

import numpy as np
import pytest

from specdec.text import corpus as corpus_module
from specdec.text import disk_cache
from specdec.text import ngram as ngram_module
from specdec.text.ngram import CorpusCounts, NGramModel

TEXT = "the cat sat on the mat. the rat sat on the hat. the cat saw the rat, and the rat ran to the mat. " * 3
CONTEXTS = ["", "t", "th", "the ", "the c", "zz", "rat, a", "e mat. t"]


@pytest.fixture(autouse=True)
def temporary_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECDEC_CACHE_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def counted(monkeypatch):
    """The context lengths whose counts were computed from the text (not loaded)."""
    lengths = []
    original = ngram_module._raw_table
    monkeypatch.setattr(ngram_module, "_raw_table", lambda *args: lengths.append(args[1]) or original(*args))
    return lengths


def assert_same_as_a_fresh_fit(model, order, text=TEXT):
    fresh = NGramModel(order).fit(text)  # fitted from scratch, with no cache
    assert model.vocab == fresh.vocab
    for context in CONTEXTS:
        np.testing.assert_array_equal(model.next_distribution(context), fresh.next_distribution(context))


@pytest.mark.parametrize("order", range(1, 8))
def test_every_order_from_shared_counts_equals_a_fresh_fit(order):
    assert_same_as_a_fresh_fit(CorpusCounts(TEXT).model(order), order)


def test_counts_are_made_once_then_loaded_from_disk(temporary_cache, counted):
    CorpusCounts(TEXT).model(5)
    assert sorted(counted) == [1, 2, 3, 4]  # order 5: raw counts of contexts of 1 … 4 characters
    assert len(list(temporary_cache.glob("ngram-*-raw*.npz"))) == 4
    del counted[:]
    later = CorpusCounts(TEXT)  # a new session: memory is empty, the disk is not
    models = {order: later.model(order) for order in (2, 3, 4, 5)}
    assert counted == []
    later.model(6)  # only what is missing is counted
    assert counted == [5]
    for order, model in models.items():
        assert_same_as_a_fresh_fit(model, order)


def test_models_of_one_text_share_their_counts():
    counts = CorpusCounts(TEXT)
    assert counts.model(4)._levels[:2] == counts.model(6)._levels[:2]
    assert counts.has_counts_for(6) and not counts.has_counts_for(7)


@pytest.mark.parametrize("fitted", [1, 3, 5])
def test_has_counts_for_says_whether_a_model_would_count_anything(monkeypatch, counted, fitted):
    """Below, at and above the fitted order, has_counts_for(k) is True exactly when model(k) counts nothing."""
    monkeypatch.setenv("SPECDEC_CACHE_DIR", "")  # memory only: nothing can come from disk
    counts = CorpusCounts(TEXT)
    counts.model(fitted)
    for order in range(1, 8):
        said = counts.has_counts_for(order)
        trial = CorpusCounts(TEXT)
        trial._raw, trial._continuation = dict(counts._raw), dict(counts._continuation)
        del counted[:]
        trial.model(order)
        assert said == (counted == []), (fitted, order, counted)


def test_progress_is_reported_for_each_table_counted():
    messages = []
    CorpusCounts(TEXT).model(3, progress=messages.append)
    assert messages == ["counting the contexts of length 1", "counting the contexts of length 2"]
    messages.clear()
    CorpusCounts(TEXT).model(3, progress=messages.append)  # loaded from disk: nothing to report
    assert messages == []


def raw_files(directory):
    return sorted(directory.glob("ngram-*-raw*.npz"))


DAMAGED_TABLES = {  # each breaks one rule of a sound table and keeps the others
    "broken table": lambda a, size: a.update(indptr=a["indptr"][::-1].copy()),  # offsets run backwards
    "duplicate key": lambda a, size: a["keys"].__setitem__(1, a["keys"][0]),
    "empty row": lambda a, size: a["indptr"].__setitem__(1, 0),  # context 0 followed by no character
    "character id = V": lambda a, size: a["chars"].__setitem__(0, size),
    "negative character id": lambda a, size: a["chars"].__setitem__(0, -1),
    "zero count": lambda a, size: a["counts"].__setitem__(0, 0),
    "float keys": lambda a, size: a.update(keys=a["keys"].astype(float)),
    "2-D counts": lambda a, size: a.update(counts=a["counts"].reshape(1, -1)),
    "one offset too few": lambda a, size: a.update(indptr=a["indptr"][1:].copy()),
}


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "wrong arrays", "stale key", *DAMAGED_TABLES])
def test_an_unsound_cache_file_is_ignored_and_replaced(temporary_cache, counted, damage):
    CorpusCounts(TEXT).model(3)
    files = raw_files(temporary_cache)
    target = files[-1]
    if damage == "garbage":
        target.write_bytes(b"not a numpy file at all")
    elif damage == "truncated":
        target.write_bytes(target.read_bytes()[:200])
    elif damage == "empty":
        target.write_bytes(b"")
    else:
        with np.load(target) as stored:
            arrays = {name: stored[name] for name in stored.files}
        if damage == "wrong arrays":
            del arrays["counts"]
        elif damage == "stale key":
            arrays["__key__"] = np.array("made from another text by other code")
        else:
            DAMAGED_TABLES[damage](arrays, len(CorpusCounts(TEXT).vocab))
        np.savez(target, **arrays)
    del counted[:]
    model = CorpusCounts(TEXT).model(3)
    assert counted == [2]  # the damaged table was counted again …
    assert_same_as_a_fresh_fit(model, 3)  # … and the numbers are right
    del counted[:]
    CorpusCounts(TEXT).model(3)
    assert counted == []  # … and the file was replaced by a sound one


def test_a_text_too_short_for_the_order_is_counted_once_then_loaded(counted):
    """Counts with no context of the top length (the text is shorter than the order) are kept on disk too."""
    first = CorpusCounts("abc").model(5)
    assert sorted(counted) == [1, 2, 3, 4]
    del counted[:]
    later = CorpusCounts("abc").model(5)
    assert counted == []
    for context in ("", "ab", "abcz"):
        np.testing.assert_array_equal(later.next_distribution(context), first.next_distribution(context))


def test_another_text_never_reads_this_texts_counts(temporary_cache):
    CorpusCounts(TEXT).model(3)
    other = TEXT.replace("cat", "dog")
    assert_same_as_a_fresh_fit(CorpusCounts(other).model(3), 3, other)
    assert len(raw_files(temporary_cache)) == 4


def test_the_cache_can_be_switched_off(monkeypatch, temporary_cache, counted):
    monkeypatch.setenv("SPECDEC_CACHE_DIR", "")
    assert disk_cache.cache_directory() is None
    CorpusCounts(TEXT).model(3)
    CorpusCounts(TEXT).model(3)
    assert counted == [1, 2, 1, 2]
    assert list(temporary_cache.iterdir()) == []


def test_an_unwritable_cache_directory_does_not_stop_a_fit(monkeypatch, tmp_path):
    blocker = tmp_path / "a file, not a directory"
    blocker.write_text("")
    monkeypatch.setenv("SPECDEC_CACHE_DIR", str(blocker / "cache"))
    assert_same_as_a_fresh_fit(CorpusCounts(TEXT).model(3), 3)


def test_the_default_cache_directory_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("SPECDEC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert disk_cache.cache_directory() == tmp_path / "specdec"


def test_saved_arrays_come_back_only_with_their_key(temporary_cache):
    arrays = {"a": np.arange(5), "b": np.array([0.5, 1.5])}
    disk_cache.save_arrays("sample", "key", arrays)
    loaded = disk_cache.load_arrays("sample", "key", ["a", "b"])
    assert loaded.keys() == arrays.keys()
    for name in arrays:
        np.testing.assert_array_equal(loaded[name], arrays[name])
    assert disk_cache.load_arrays("sample", "other key", ["a", "b"]) is None
    assert disk_cache.load_arrays("sample", "key", ["a"]) is None  # not exactly the arrays expected
    assert disk_cache.load_arrays("missing", "key", ["a"]) is None
    assert [path.name for path in temporary_cache.iterdir()] == ["sample.npz"]  # no temporary file left


def test_the_corpus_is_kept_on_disk_and_read_again_if_the_file_is_unsound(temporary_cache, monkeypatch):
    reads = []
    monkeypatch.setattr(corpus_module, "read_stdlib_corpus", lambda: reads.append(1) or "Docstrings é ✓.")
    read = corpus_module.stdlib_corpus.__wrapped__
    assert read() == "Docstrings é ✓." and reads == [1]
    assert read() == "Docstrings é ✓." and reads == [1]  # from disk
    (path,) = temporary_cache.glob("corpus-*.npz")
    with np.load(path) as stored:
        arrays = {name: stored[name] for name in stored.files}
    arrays["utf8"] = np.frombuffer(b"\xff\xfe broken", dtype=np.uint8)  # not UTF-8
    np.savez(path, **arrays)
    assert read() == "Docstrings é ✓." and reads == [1, 1]
    path.write_bytes(b"junk")
    assert read() == "Docstrings é ✓." and reads == [1, 1, 1]
    assert read() == "Docstrings é ✓." and reads == [1, 1, 1]  # replaced by a sound file


def test_the_corpus_from_disk_equals_the_corpus_read_from_the_sources(temporary_cache):
    read = corpus_module.stdlib_corpus.__wrapped__
    first = read()
    assert read() == first == corpus_module.read_stdlib_corpus()


def test_bad_text_is_refused_as_a_fit_refuses_it():
    with pytest.raises(TypeError, match="text must be a str"):
        CorpusCounts(b"bytes")
    with pytest.raises(ValueError, match="at least one character"):
        CorpusCounts("")
    with pytest.raises(ValueError, match="order must be in 1 … 7"):
        ngram_module.fitted_model(8, TEXT)


def test_prepare_cache_counts_every_order_once(temporary_cache, monkeypatch, counted):
    from specdec.text import prepare_cache

    text = TEXT + " a text of its own for this test."
    monkeypatch.setattr(corpus_module, "stdlib_corpus", lambda: text)
    lines = []
    assert prepare_cache.prepare_cache(report=lines.append) == temporary_cache
    assert sorted(counted) == list(range(7))  # unigram raw counts, then contexts of 1 … 6 characters
    assert lines[0] == "reading the corpus" and lines[-1] == f"cache ready in {temporary_cache}"
    assert len(raw_files(temporary_cache)) == 7
    del counted[:]
    ngram_module.corpus_counts.cache_clear()  # a new session
    for order in range(1, 8):
        ngram_module.fitted_model(order, text)
    assert counted == []
