"""The real-text benchmark runs and reports numbers that agree with each other (times are not asserted)."""

import re

import pytest

from benchmarks import text as bench_text
from specdec.theory import speedup


def test_main_prints_every_measurement(capsys):
    assert bench_text.main(["--chars", "60", "--seeds", "1"]) == 0
    output = capsys.readouterr().out
    for words in ("fit of a 6-gram model", "characters/s: speculative", "target calls per character",
                  "speedup at c = 20 from the call counts"):
        assert words in output


def test_measurements_are_consistent():
    result = bench_text.measure(chars=200, seeds=2, gamma=3, c=10.0)
    assert result["target_calls_per_char"] < 1.0
    assert result["draft_calls_per_char"] == pytest.approx(3 * result["target_calls_per_char"])
    tokens_per_call = 1 / result["target_calls_per_char"]
    assert result["implied_speedup"] == pytest.approx(tokens_per_call / (1 + 3 / 10.0))
    assert result["theory_speedup"] == pytest.approx(speedup(result["mean_acceptance_rate"], 3, 10.0))
    assert 0.3 < result["measured_alpha"] < 0.9
    assert result["fit_megabytes"] < 300
    assert re.search(r"ratio \d+\.\d\d", bench_text.report(result))
