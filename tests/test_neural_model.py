"""The numpy transformer of specdec.neural against its record, PyTorch, and itself without a cache."""

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from specdec.neural import (KVCache, generate, load_draft, load_target, probabilities, training_record,
                            weight_arrays)
from specdec.neural.drafters import TargetState, chain

TORCH = importlib.util.find_spec("torch") is not None
ROOT = Path(__file__).resolve().parents[1]


def _mean_cross_entropy(model, windows) -> float:
    total, count = 0.0, 0
    for window in windows:
        logits = model.logits(model.forward(window[:-1])).astype(np.float64)
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        total -= log_probs[np.arange(len(window) - 1), window[1:]].sum()
        count += len(window) - 1
    return total / count


def test_numpy_forward_reproduces_the_recorded_held_out_loss():
    windows = weight_arrays()["check_ids"].astype(np.int64)
    assert windows.shape[0] >= 4 and windows.shape[1] > 100
    assert abs(_mean_cross_entropy(load_target(), windows) - training_record()["check_loss"]) < 1e-4


def test_the_record_says_how_the_weights_were_made_and_how_the_target_compares_with_the_ngram_models():
    record = training_record()
    assert record["command"].startswith("python -m training.train_all") and isinstance(record["seed"], int)
    target = record["models"]["target"]
    assert target["steps"] == record["steps"]["target"] > 0 and target["wall_seconds"] > 0
    assert math.isfinite(target["final_train_loss"])
    # Notebook 07's draft and target are the 3-gram and the 5-gram, fitted on the same training text and
    # scored on the same held-out windows: the transformer beats the draft by far and the target clearly.
    bits = target["held_out_bits_per_character"]
    assert bits < record["ngram_order_3_held_out_bits_per_character"] - 0.5
    assert bits < record["ngram_order_5_held_out_bits_per_character"] - 0.05
    size = sum(path.stat().st_size for path in (ROOT / "specdec" / "neural" / "weights").iterdir())
    assert size <= 5 * 2**20


@pytest.mark.skipif(not TORCH, reason="PyTorch is not installed: the numpy/PyTorch comparison needs it")
def test_numpy_logits_match_pytorch_on_the_same_weights():
    import torch

    sys.path.insert(0, str(ROOT))
    from training.torch_models import CharTransformer, load

    ids = np.random.default_rng(5).integers(0, len(load_target().vocab), size=(2, 60))
    for name, numpy_model in (("target", load_target()), ("draft", load_draft())):
        torch_model = load(CharTransformer(**training_record()["models"][name]["config"]), weight_arrays(), name + ".")
        with torch.no_grad():
            expected = torch_model(torch.from_numpy(ids)).numpy()
        for row, want in zip(ids, expected):
            assert np.abs(numpy_model.logits(numpy_model.forward(row)) - want).max() < 1e-5


def test_cached_decoding_equals_full_recomputation():
    target = load_target()
    ids = target.encode("Return the number of items in the list.\n")
    full = target.logits(target.forward(ids))
    cache = target.new_cache()
    pieces = [target.logits(target.forward(ids[a:b], cache)) for a, b in ((0, 7), (7, 8), (8, 30), (30, len(ids)))]
    assert np.abs(np.concatenate(pieces) - full).max() < 2e-5
    rng_seed = 11
    assert generate(target, "The ", 30, 1.0, np.random.default_rng(rng_seed)) == generate(
        target, "The ", 30, 1.0, np.random.default_rng(rng_seed), cached=False)


def test_a_tree_pass_gives_each_node_the_row_of_its_own_branch_and_keep_leaves_a_valid_cache():
    target = load_target()
    prompt = target.encode("import os\n")
    state = TargetState(target, 1.0)
    state.start(prompt)
    # root -> a, b; a -> c: node 3 sees prompt + a + c only.
    a, b, c = target.encode("abc")
    vocab = len(target.vocab)
    from specdec.neural.drafters import Proposal
    proposal = Proposal([0, 0, 1], [a, b, c], np.full((3, vocab), 1.0 / vocab), 1)
    rows, hidden = state.score(proposal)
    for node, path in ((0, []), (1, [a]), (2, [b]), (3, [a, c])):
        expected = probabilities(target.logits(target.forward(prompt + path))[-1], 1.0)
        assert np.abs(rows[node] - expected).max() < 1e-5
    state.commit([1, 3], [a, c, b], hidden)  # accepted a, c; then emitted b
    assert state.history == prompt + [a, c, b]
    after = target.logits(target.forward([b], state.cache))[-1]
    assert np.abs(after - target.logits(target.forward(prompt + [a, c, b]))[-1]).max() < 2e-5


def test_sampling_at_temperature_zero_is_the_argmax_and_bad_temperatures_are_refused():
    assert probabilities([0.1, 2.0, 2.0, -1.0], 0).tolist() == [0.0, 1.0, 0.0, 0.0]
    rows = probabilities(np.array([[0.0, math.log(3.0)]]), 1.0)
    assert np.allclose(rows, [[0.25, 0.75]])
    for bad in (-1.0, float("nan"), "1"):
        with pytest.raises((ValueError, TypeError), match="temperature"):
            probabilities([0.0, 1.0], bad)
    with pytest.raises(ValueError, match="context"):
        generate(load_target(), "x" * 120, 20, 1.0, np.random.default_rng(0))
    cache = KVCache(1, 1, 4, 2)
    with pytest.raises(ValueError, match="length"):
        cache.truncate(1)
    assert chain([], [], 0, 5).rows.shape == (0, 5)


def test_layer_norm_uses_pytorch_s_epsilon_inside_the_square_root():
    """layer_norm of a row of tiny spread: (x − mean) / √(variance + 1e-5), by hand."""
    from specdec.neural.transformer import layer_norm

    a = 1e-3  # x = (−a, a): mean 0, variance a², so each entry becomes ±a / √(a² + 1e-5) ≈ ±0.3015
    out = layer_norm(np.array([[-a, a]], np.float32), np.ones(2, np.float32), np.zeros(2, np.float32))
    expected = a / math.sqrt(a * a + 1e-5)
    np.testing.assert_allclose(out, [[-expected, expected]], rtol=1e-4)
    constant = layer_norm(np.full((1, 4), 7.0, np.float32), np.ones(4, np.float32), np.full(4, 0.5, np.float32))
    assert np.array_equal(constant, np.full((1, 4), 0.5, np.float32))


@pytest.mark.parametrize("temperature, expected", [
    (1.0, [0.25, 0.75]), (0.5, [0.1, 0.9]), (2.0, [1 / (1 + 3 ** 0.5), 3 ** 0.5 / (1 + 3 ** 0.5)])])
def test_probabilities_divide_the_logits_by_the_temperature_even_when_they_are_huge(temperature, expected):
    """softmax(z / T) with odds 3 : 1 at T = 1 gives odds 3^(1/T) : 1, also for logits near 1000."""
    for offset in (0.0, 1000.0):
        rows = probabilities(np.array([offset, offset + math.log(3.0)]), temperature)
        np.testing.assert_allclose(rows, expected, rtol=1e-12)


def test_probabilities_default_to_temperature_one():
    """probabilities(z) is softmax(z) itself."""
    z = np.array([[0.0, 1.0, -2.0], [3.0, 3.0, 0.5]])
    by_hand = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(probabilities(z), by_hand, rtol=1e-12)


def test_encode_maps_unknown_characters_to_the_last_symbol_and_refuses_non_strings():
    """A character outside the vocabulary becomes the last id; decode inverts encode on known text; non-str refused."""
    target = load_target()
    last = len(target.vocab) - 1
    assert target.encode("a€b") == [target.vocab.index("a"), last, target.vocab.index("b")]
    assert target.decode(target.encode("def f(x):\n")) == "def f(x):\n"
    for bad in (b"abc", ["a", "b"]):
        with pytest.raises(TypeError, match="str"):
            target.encode(bad)


def test_a_copied_cache_continues_like_the_original_and_is_independent_of_it():
    """Notebook 11 branches on cache.copy(): each branch equals a full pass, and the original is untouched."""
    target = load_target()
    ids = target.encode("for i in ")
    cache = target.new_cache()
    target.forward(ids, cache)
    saved_keys = [k.copy() for k in cache.keys]
    for char in "rx":
        branch = cache.copy()
        assert branch.length == len(ids) and branch.capacity == cache.capacity
        row = target.logits(target.forward(target.encode(char), branch))[-1]
        assert branch.length == len(ids) + 1 and cache.length == len(ids)
        full = target.logits(target.forward(ids + target.encode(char)))[-1]
        assert np.abs(row - full).max() < 2e-5
    assert all(np.array_equal(k, saved) for k, saved in zip(cache.keys, saved_keys))
    assert cache.tokens[len(ids)] == -1


def test_keep_refuses_rows_outside_the_new_positions():
    """keep(start, rows) needs start ≤ row < length, and the error names that range."""
    cache = KVCache(1, 1, 8, 2)
    cache.length = 6
    for rows in ([2], [3, 6]):
        with pytest.raises(ValueError, match="3 … 5"):
            cache.keep(3, rows)
    cache.keep(3, np.array([5, 4]))
    assert cache.length == 5


def test_forward_refuses_positions_past_the_context_and_positions_past_the_cache():
    """Exactly `context` characters fit; one more, a tree position at the context, or an overfull cache is refused."""
    target = load_target()
    context = target.config.context
    ids = target.encode("ab" * context)
    assert target.forward(ids[:context]).shape == (context, target.config.width)
    with pytest.raises(ValueError, match="context"):
        target.forward(ids[:context + 1])
    with pytest.raises(ValueError, match="context"):
        target.forward(ids[:2], target.new_cache(), positions=[context - 1, context])
    c = target.config
    small = KVCache(c.layers, c.heads, 5, c.head_width)
    target.forward(ids[:3], small)
    with pytest.raises(ValueError, match="3 cached"):
        target.forward(ids[:3], small)
    target.forward(ids[:2], small)
    assert small.length == 5


def test_positions_and_previous_characters_may_be_given_as_plain_lists():
    """forward with the default positions and previous characters, spelt out as Python lists, gives the same stream."""
    target = load_target()
    ids = target.encode("x = 1")
    default = target.forward(ids)
    previous = [[ids[i - k] if i - k >= 0 else -1 for k in range(1, target.config.shifts + 1)]
                for i in range(len(ids))]
    spelt_out = target.forward(ids, positions=list(range(len(ids))), previous=previous)
    assert np.array_equal(spelt_out, default)


def test_parameter_count_is_the_size_of_the_committed_arrays_the_pass_reads():
    """All of the target's arrays for a full pass; the arrays of blocks beyond `layers` are left out."""
    arrays = weight_arrays()
    target = load_target()

    def size(name_test):
        return sum(array.size for name, array in arrays.items() if name.startswith("target.") and name_test(name))

    assert target.parameter_count() == size(lambda name: True)
    for layers in (0, 1, 3):
        skipped = tuple(f"target.blocks.{i}." for i in range(layers, target.config.layers))
        assert target.parameter_count(layers) == size(lambda name: not name.startswith(skipped))


def test_a_config_without_shifts_builds_a_model_with_no_shift_tables():
    """Config's shifts default to 0: a model whose arrays hold no shift tables builds and runs."""
    from specdec.neural.transformer import Config, Transformer

    rng = np.random.default_rng(3)
    vocab, width, context = 5, 4, 6
    shapes = {"embed.weight": (vocab, width), "position.weight": (context, width), "ln_f.weight": (width,),
              "ln_f.bias": (width,), "blocks.0.ln1.weight": (width,), "blocks.0.ln1.bias": (width,),
              "blocks.0.qkv.weight": (3 * width, width), "blocks.0.proj.weight": (width, width),
              "blocks.0.ln2.weight": (width,), "blocks.0.ln2.bias": (width,),
              "blocks.0.fc.weight": (4 * width, width), "blocks.0.out.weight": (width, 4 * width)}
    arrays = {"m." + name: rng.normal(size=shape) for name, shape in shapes.items()}
    config = Config(vocab=vocab, width=width, layers=1, heads=2, context=context)
    model = Transformer(arrays, "m.", config, list("abcde"))
    assert model.config.shifts == 0 and model.shift == []
    stream = model.forward([2, 4, 1])
    assert stream.shape == (3, width) and np.isfinite(stream).all()
    np.testing.assert_allclose(stream[0], model.forward([2])[0], atol=1e-5)  # causal: position 0 sees itself only
    assert model.parameter_count() == sum(array.size for array in arrays.values())
