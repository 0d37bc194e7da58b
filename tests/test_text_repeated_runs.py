"""specdec.text.repeated_runs: the same speculative generation over seeds 0 … n − 1, and its spread."""

import numpy as np
import pytest

from specdec.text import NGramModel, speculative_generate
from specdec.text.repeated_runs import runs_over_seeds

TEXT = "the cat sat on the mat and the rat sat on the cat " * 4


@pytest.fixture(scope="module")
def pair():
    return NGramModel(4).fit(TEXT), NGramModel(2).fit(TEXT)


def test_each_run_is_speculative_generate_with_its_seed(pair):
    target, draft = pair
    spread = runs_over_seeds(target, draft, "the ", 30, 3, seeds=2)
    runs = [speculative_generate(target, draft, "the ", 30, 3, np.random.default_rng(seed)) for seed in (0, 1)]
    assert [run.text for run in spread.runs] == [run.text for run in runs]
    calls = [run.tokens_per_target_call for run in runs]
    assert spread.characters_per_call.tolist() == calls
    assert spread.measured_alpha.tolist() == [run.measured_alpha for run in runs]
    assert spread.mean == pytest.approx(sum(calls) / 2) and (spread.low, spread.high) == (min(calls), max(calls))
    assert spread.speedups(20).tolist() == [run.speedup_from_calls(20) for run in runs]


@pytest.mark.parametrize("seeds", [1, 0])
def test_fewer_than_two_seeds_are_refused(pair, seeds):
    with pytest.raises(ValueError, match="seeds"):
        runs_over_seeds(*pair, "the ", 30, 3, seeds=seeds)
