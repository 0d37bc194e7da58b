"""Growing sampled runs: the prefix tallies are those of the steps themselves, whatever order they were asked in."""

import math

import numpy as np
import pytest

from specdec.broken_rules import BROKEN_RULES
from specdec.goodness_of_fit import fit_counts
from specdec.narrate import spec_example
from specdec.sampled_runs import SampledRun, SampledRuns, deviation_guide
from specdec.sampling import sample_steps


def plain_steps(target, draft, rule, seed, steps):
    """The documented blocks, sampled directly: block k from default_rng([seed, k])."""
    sampler = sample_steps if rule == "correct" else BROKEN_RULES[rule].sample_steps
    blocks = [sampler(target, draft, SampledRun.BLOCK, np.random.default_rng([seed, k]))
              for k in range(-(-steps // SampledRun.BLOCK))]
    return np.concatenate([b[0] for b in blocks])[:steps], np.concatenate([b[1] for b in blocks])[:steps]


@pytest.mark.parametrize("rule", ["correct", "always_accept"])
def test_prefix_tallies_match_the_steps_whatever_the_order_of_the_questions(rule):
    target, draft, _ = spec_example()
    run = SampledRun(target, draft, rule, seed=4)
    for steps in (150_000, 1000, 100_001, 3162):
        tokens, counts = plain_steps(target, draft, rule, 4, steps)
        for position in range(target.shape[0]):
            reached = tokens[:, position][tokens[:, position] >= 0]
            expected = np.bincount(reached, minlength=target.shape[1]) / max(reached.size, 1)
            np.testing.assert_allclose(run.frequencies(steps, position), expected)
        fit, frequencies = run.count_fit(steps, np.array([0.0, 0.3, 0.28, 0.42]))
        np.testing.assert_allclose(frequencies, np.bincount(counts, minlength=4)[:4] / steps)
        assert fit.n == steps
        assert [f.n for f in run.position_fits(steps)] == [int((tokens[:, i] >= 0).sum()) for i in range(3)]
    assert run.sampled == 200_000  # two blocks, sampled once


def test_the_deviation_curve_is_the_largest_gap_at_each_prefix():
    target, draft, _ = spec_example()
    run = SampledRun(target, draft, "correct", seed=0)
    sizes, deviations = run.deviation_curve(1, 20_000)
    assert sizes[0] == 100 and sizes[-1] == 20_000 and np.all(np.diff(sizes) > 0)
    tokens, _ = plain_steps(target, draft, "correct", 0, 20_000)
    for size, deviation in zip(sizes.astype(int), deviations):
        column = tokens[:size, 1]
        reached = column[column >= 0]
        assert deviation == pytest.approx(np.abs(np.bincount(reached, minlength=4) / reached.size - target[1]).max())


def test_runs_are_kept_for_the_most_recent_few():
    target, draft, _ = spec_example()
    runs = SampledRuns(target, draft)
    first = runs.get("correct", 0)
    for seed in range(1, SampledRuns.KEPT):
        runs.get("correct", seed)
    assert runs.get("correct", 0) is first
    for seed in range(10, 10 + SampledRuns.KEPT):
        runs.get("correct", seed)
    assert runs.get("correct", 0) is not first


def test_the_guide_is_one_standard_deviation_of_the_worst_token():
    row = [0.5, 0.3, 0.2, 0.0]
    guide = deviation_guide(row, 0.7, [100, 10_000])
    assert guide.tolist() == pytest.approx([math.sqrt(0.25 / (0.7 * n)) for n in (100, 10_000)])


def test_a_correct_run_passes_and_fit_counts_agrees():
    target, draft, _ = spec_example()
    run = SampledRuns(target, draft).get("correct", 1)
    tokens, _ = plain_steps(target, draft, "correct", 1, 5000)
    column = tokens[:, 0]
    assert run.position_fits(5000)[0].p_value == fit_counts(np.bincount(column, minlength=4), target[0]).p_value


def test_the_deviation_curve_has_eight_points_a_decade_and_each_size_once():
    target, draft, _ = spec_example()
    run = SampledRun(target, draft, "correct", seed=0)
    sizes, deviations = run.deviation_curve(0, 10_000)
    # 10², 10^(2 + 1/8), … up to 10⁴ itself, each once
    assert sizes.tolist() == [round(10 ** (2 + k / 8)) for k in range(17)]
    assert deviations.shape == sizes.shape


def test_a_run_samples_no_block_beyond_the_steps_asked_for():
    target, draft, _ = spec_example()
    run = SampledRun(target, draft, "correct", seed=0)
    run.frequencies(SampledRun.BLOCK, 0)
    assert run.sampled == SampledRun.BLOCK
