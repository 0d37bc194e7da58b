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
