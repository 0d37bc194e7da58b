"""Speculation under load, in the cost model of notebook 05."""

import numpy as np

from specdec.hardware import ACCELERATORS, MODELS, cluster, pass_times
from specdec.serving.load import LONG_CONTEXT, SHORT_CONTEXT, load_curves

DEVICES = cluster(ACCELERATORS["H100 SXM"], 4)
PAIR = (MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"])


def test_curves_follow_the_pass_times():
    curves = load_curves(DEVICES, *PAIR, 4, 0.8, context=SHORT_CONTEXT, batches=[1, 64])
    times = pass_times(DEVICES, *PAIR, 4, batch=64, context=SHORT_CONTEXT)
    assert np.isclose(curves.plain_tokens_per_second[1], times.plain_tokens_per_second())
    assert np.isclose(curves.speculative_tokens_per_second[1], times.speculative_tokens_per_second(0.8))
    assert np.allclose(curves.throughput_speedup, curves.latency_speedup)  # lockstep: one ratio per batch


def test_speculation_stops_paying_at_large_batch_in_a_short_context_only():
    short = load_curves(DEVICES, *PAIR, 4, 0.8, context=SHORT_CONTEXT)
    long = load_curves(DEVICES, *PAIR, 4, 0.8, context=LONG_CONTEXT)
    assert short.latency_speedup[0] > 1 and short.latency_crossover is not None
    assert long.latency_crossover is None or long.latency_crossover > short.latency_crossover
    assert np.all(short.fits_speculative <= short.fits_plain)  # the draft takes memory from the batch
    # For the best throughput in a short context, plain decoding's largest batch wins.
    assert short.best_plain_throughput > short.best_speculative_throughput
    assert long.best_speculative_throughput > long.best_plain_throughput


def test_which_ends_the_throughput_gain_first_the_compute_bound_turn_or_the_memory_limit_depends_on_gamma():
    """Notebook 11's two cases: at γ = 4 the verify pass turns compute-bound before the draft's memory binds; at
    γ = 1, α = 0.65 one request is still faster at the largest batch the draft leaves room for, and plain decoding
    wins the best throughput only because it fits a larger batch (the quiz speculation_under_load)."""
    def largest_fitting(fits, curves):
        return int(curves.batches[fits].max())

    four = load_curves(DEVICES, *PAIR, 4, 0.8, context=SHORT_CONTEXT)
    assert four.latency_crossover < largest_fitting(four.fits_speculative, four)
    one = load_curves(DEVICES, *PAIR, 1, 0.65, context=SHORT_CONTEXT)
    assert one.latency_crossover > largest_fitting(one.fits_speculative, one)
    assert largest_fitting(one.fits_plain, one) > largest_fitting(one.fits_speculative, one)
    assert one.best_plain_throughput > one.best_speculative_throughput


def test_the_curves_cover_every_batch_size_so_the_crossover_is_exact():
    curves = load_curves(DEVICES, *PAIR, 4, 0.8, context=SHORT_CONTEXT)
    assert curves.batches.tolist() == list(range(1, 1025))
    crossover = curves.latency_crossover
    assert curves.latency_speedup[crossover - 2] > 1 >= curves.latency_speedup[crossover - 1]
