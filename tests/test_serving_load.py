"""Speculation under load, in the cost model of notebook 05."""

import dataclasses

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


def test_the_throughput_crossover_is_the_latency_one_where_that_batch_fits():
    # In lockstep both speedups are one ratio: at γ = 4 the crossover batch fits, so it is the same batch; at
    # γ = 1, α = 0.65 one request still gains at every batch the draft leaves room for, so the batch never loses.
    four = load_curves(DEVICES, *PAIR, 4, 0.8, context=SHORT_CONTEXT)
    assert four.throughput_crossover == four.latency_crossover
    one = load_curves(DEVICES, *PAIR, 1, 0.65, context=SHORT_CONTEXT)
    assert one.throughput_crossover is None


def test_what_fits_counts_bf16_weights_and_kv_cache_by_hand():
    # Plain decoding holds the target only: 2 bytes a weight, 1,024 tokens of 2·80·8·128·2 bytes per sequence;
    # speculation adds the draft's 2 bytes a weight and 2·16·8·64·2 bytes a token.
    target, draft = PAIR
    batches = [1, 100, 400, 500, 534, 600]
    curves = load_curves(DEVICES, target, draft, 4, 0.8, context=SHORT_CONTEXT, batches=batches)
    plain = [2 * 70.6e9 + b * 1024 * 327_680 <= 320e9 for b in batches]
    both = [2 * (70.6e9 + 1.24e9) + b * 1024 * (327_680 + 32_768) <= 320e9 for b in batches]
    assert curves.fits_plain.tolist() == plain and curves.fits_speculative.tolist() == both
    assert plain != both  # the batches chosen tell the two apart
    # A memory that holds exactly what one sequence needs: it fits, both ways.
    exact_plain = dataclasses.replace(DEVICES, memory_capacity=2 * 70.6e9 + 1024 * 327_680)
    assert load_curves(exact_plain, target, draft, 4, 0.8, context=SHORT_CONTEXT,
                       batches=[1]).fits_plain.tolist() == [True]
    short = dataclasses.replace(exact_plain, memory_capacity=exact_plain.memory_capacity - 1)
    assert load_curves(short, target, draft, 4, 0.8, context=SHORT_CONTEXT,
                       batches=[1]).fits_plain.tolist() == [False]
    exact_both = dataclasses.replace(DEVICES, memory_capacity=2 * (70.6e9 + 1.24e9) + 1024 * (327_680 + 32_768))
    curves = load_curves(exact_both, target, draft, 4, 0.8, context=SHORT_CONTEXT, batches=[1])
    assert curves.fits_speculative.tolist() == [True]


def test_a_context_of_zero_is_allowed():
    curves = load_curves(DEVICES, *PAIR, 4, 0.8, context=0, batches=[1])
    assert curves.context == 0 and curves.latency_speedup[0] > 1
