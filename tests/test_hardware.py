"""The hardware cost model: pass times, implied c, speedup, and the sampled timeline."""

import dataclasses
import math

import numpy as np
import pytest

import specdec
from specdec import hardware
from specdec.hardware import ACCELERATORS, MODELS

H100 = ACCELERATORS["H100 SXM"]
PAIRS = list(hardware.PAIRS)
ROOFLINE = hardware.with_pass_overhead(H100, 0)  # the H100 without its fixed time per pass


def plain_pass_time(model, accelerator, batch, positions, context):
    """The model written out by hand, one term at a time."""
    kv_bytes_per_token = 2 * model.layers * model.kv_heads * model.head_dim * 2
    weight_bytes = model.parameters * 2
    cache_bytes = batch * context * kv_bytes_per_token
    memory_seconds = (weight_bytes + cache_bytes) / accelerator.memory_bandwidth
    weight_flops = 2 * model.parameters * batch * positions
    # Attention: per query head, q·k over the context (2·head_dim FLOPs a token) and the weighted
    # sum of the values (2·head_dim more), in every layer.
    attention_flops = 4 * model.layers * model.attention_heads * model.head_dim * context * batch * positions
    compute_seconds = (weight_flops + attention_flops) / accelerator.peak_flops
    slower = memory_seconds if memory_seconds > compute_seconds else compute_seconds
    return accelerator.pass_overhead + slower


@pytest.mark.parametrize("accelerator", list(ACCELERATORS.values()), ids=list(ACCELERATORS))
@pytest.mark.parametrize("model", list(MODELS.values()), ids=list(MODELS))
@pytest.mark.parametrize("batch, positions, context", [(1, 1, 0), (1, 9, 1024), (64, 5, 2048), (512, 17, 512)])
def test_pass_time_matches_a_plain_implementation(accelerator, model, batch, positions, context):
    expected = plain_pass_time(model, accelerator, batch, positions, context)
    assert hardware.forward_pass_time(model, accelerator, batch, positions, context) == pytest.approx(expected, rel=1e-12)


def test_kv_bytes_per_token_of_the_published_shapes():
    # 2 (key and value) × layers × key/value heads × head size × 2 bytes.
    assert MODELS["Llama 2 70B"].kv_bytes_per_token == 2 * 80 * 8 * 128 * 2 == 327_680
    assert MODELS["Llama 2 7B"].kv_bytes_per_token == 524_288  # no grouped-query attention: 32 heads
    assert MODELS["Llama 3.2 1B"].kv_bytes_per_token == 32_768


def test_h100_ridge_is_about_295_flop_per_byte():
    assert H100.ridge == pytest.approx(989e12 / 3.35e12)
    assert round(H100.ridge) == 295


def test_every_accelerator_and_model_names_its_source():
    for entry in [*ACCELERATORS.values(), *MODELS.values()]:
        assert entry.source.startswith("https://"), entry.name
    # The dense figure is half of the "with sparsity" one the vendors headline.
    for name, sparse_tflops in [("H100 SXM", 1979), ("H200 SXM", 1979), ("A100 80GB SXM", 624), ("L4", 242)]:
        assert ACCELERATORS[name].peak_flops == pytest.approx(sparse_tflops / 2 * 1e12, rel=2e-3)
        assert str(sparse_tflops)[:1] in ACCELERATORS[name].source


def test_scoring_a_few_positions_costs_the_same_as_one_while_memory_bound():
    one = hardware.forward_pass_time(70e9, H100, positions=1)
    assert one == pytest.approx(140e9 / 3.35e12 + 1.3e-3)
    for positions in range(1, 9):
        assert hardware.forward_pass_time(70e9, H100, positions=positions) == one


def test_past_the_ridge_the_time_grows_in_proportion_to_the_positions():
    at_1000 = hardware.forward_pass_time(70e9, ROOFLINE, positions=1000, context=0)
    at_2000 = hardware.forward_pass_time(70e9, ROOFLINE, positions=2000, context=0)
    assert at_2000 == pytest.approx(2 * at_1000)
    assert at_1000 == pytest.approx(2 * 70e9 * 1000 / 989e12)


def test_roofline_is_flat_then_rises_at_the_ridge():
    positions, seconds = hardware.roofline(70e9, H100, max_positions=600, context=0)
    assert positions.tolist() == list(range(1, 601))
    flat = seconds <= seconds[0]
    first_rise = int(positions[np.argmin(flat)])
    assert first_rise == math.floor(H100.ridge) + 1  # b·t passes 989/3.35 ≈ 295.2
    assert np.all(np.diff(seconds) >= 0)
    # At batch 8 the flat region ends eight times sooner.
    positions, seconds = hardware.roofline(70e9, H100, batch=8, max_positions=600, context=0)
    assert int(positions[np.argmin(seconds <= seconds[0])]) == math.floor(H100.ridge / 8) + 1


@pytest.mark.parametrize("batch", [1, 8, 64, 512, 1024])
@pytest.mark.parametrize("context", [0, 1024, 32768])
def test_compute_bound_from_is_where_the_roofline_starts_to_rise(batch, context):
    model = hardware.MODELS["Llama 3.1 70B"]
    ridge = hardware.compute_bound_from(model, H100, batch=batch, context=context)
    positions, seconds = hardware.roofline(model, H100, batch=batch, max_positions=4096, context=context)
    rising = positions[seconds > seconds[0]]
    if ridge < 1:  # compute-bound at one position already: every further position costs more
        assert rising[0] == 2 and seconds[1] - H100.pass_overhead == pytest.approx(2 * (seconds[0] - H100.pass_overhead))
    else:
        assert rising[0] - 1 <= ridge < rising[0]


@pytest.mark.parametrize("accelerator", list(ACCELERATORS.values()), ids=list(ACCELERATORS))
@pytest.mark.parametrize("target, draft", PAIRS)
@pytest.mark.parametrize("gamma", [0, 1, 4, 8])
@pytest.mark.parametrize("alpha", [0.0, 0.6, 0.8, 1.0])
def test_at_batch_1_the_expected_speedup_is_speedup_of_alpha_gamma_c(accelerator, target, draft, gamma, alpha):
    times = hardware.pass_times(accelerator, MODELS[target], MODELS[draft], gamma, batch=1)
    assert times.verify_overhead == 1.0  # memory-bound: the verify pass costs one plain pass
    assert times.speedup(alpha) == pytest.approx(specdec.speedup(alpha, gamma, times.implied_c), rel=1e-12)
    assert times.speculative_tokens_per_second(alpha) / times.plain_tokens_per_second() == pytest.approx(
        times.speedup(alpha), rel=1e-12)


@pytest.mark.parametrize("target, draft", PAIRS)
@pytest.mark.parametrize("alpha, gamma", [(0.62, 3), (0.8, 4), (0.9, 8)])
def test_the_sampled_timeline_speedup_converges_to_speedup_of_alpha_gamma_c(target, draft, alpha, gamma):
    # Pool 60 timelines of 1,000 tokens (about 20,000 steps): the long-run speedup is
    # (tokens emitted) × plain time / (steps × step time). Its standard error follows from the
    # spread of the token counts; the test allows four of them.
    total_tokens, total_steps, squares = 0, 0, 0.0
    for seed in range(60):
        line = hardware.sample_timeline(H100, MODELS[target], MODELS[draft], gamma, alpha, seed=seed, tokens=1000)
        counts = np.array(line.step_counts, dtype=float)
        total_tokens += counts.sum()
        total_steps += counts.size
        squares += (counts ** 2).sum()
    times = line.times
    scale = times.target_decode / times.step_time
    pooled = total_tokens / total_steps * scale
    mean = total_tokens / total_steps
    standard_error = math.sqrt(squares / total_steps - mean ** 2) / math.sqrt(total_steps) * scale
    formula = specdec.speedup(alpha, gamma, times.implied_c)
    assert abs(pooled - formula) <= 4 * standard_error
    assert standard_error < 0.01 * formula  # the tolerance is tight: under 4 % of the speedup


def test_timeline_steps_are_the_real_rule_from_the_seed():
    line = hardware.sample_timeline(H100, MODELS["Llama 2 70B"], MODELS["Llama 2 7B"], 4, 0.7, seed=11, tokens=30)
    rows = hardware.rows_with_acceptance(0.7, 4)
    _, counts = specdec.sample_steps(*rows, 30, np.random.default_rng(11))
    assert list(line.step_counts) == counts[: len(line.step_counts)].tolist()
    assert sum(line.step_counts[:-1]) < 30 <= line.speculative_tokens
    again = hardware.sample_timeline(H100, MODELS["Llama 2 70B"], MODELS["Llama 2 7B"], 4, 0.7, seed=11, tokens=30)
    assert again == line
    other = hardware.sample_timeline(H100, MODELS["Llama 2 70B"], MODELS["Llama 2 7B"], 4, 0.7, seed=12, tokens=30)
    assert other.step_counts != line.step_counts


def test_timeline_lanes_are_contiguous_and_coloured_by_origin():
    line = hardware.sample_timeline(H100, MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"], 3, 0.6, seed=2, tokens=25)
    for lane in (line.plain, line.speculative):
        for before, after in zip(lane, lane[1:]):
            assert after.start == pytest.approx(before.start + before.duration)
    assert len(line.plain) == 25 and all(p.origins == ("target",) for p in line.plain)
    verifies = [p for p in line.speculative if p.model == "target"]
    drafts = [p for p in line.speculative if p.model == "draft"]
    assert len(verifies) == len(line.step_counts) and len(drafts) == 3 * len(verifies)
    for verify, count in zip(verifies, line.step_counts):
        assert len(verify.origins) == count
        assert verify.origins[-1] == ("bonus" if count == 4 else "resampled")
        assert set(verify.origins[:-1]) <= {"accepted"}
    assert line.speculative_time_per_token == pytest.approx(
        (verifies[-1].start + verifies[-1].duration) / line.speculative_tokens)
    assert line.sampled_speedup == pytest.approx(line.plain_time_per_token / line.speculative_time_per_token)


def test_rows_have_exactly_the_acceptance_rate_alpha():
    for alpha in [0.0, 0.05, 0.5, 0.75, 1.0]:
        target, draft = hardware.rows_with_acceptance(alpha, 3)
        assert specdec.acceptance_rates(target, draft).tolist() == pytest.approx([alpha] * 3, abs=1e-15)


@pytest.mark.parametrize("accelerator", list(ACCELERATORS.values()), ids=list(ACCELERATORS))
@pytest.mark.parametrize("target, draft", PAIRS)
def test_as_the_batch_grows_verifying_stops_being_free_and_the_speedup_falls(accelerator, target, draft):
    # Weights only (no KV cache) and no fixed time per pass: then c stays put and only the verify
    # pass changes.
    accelerator = hardware.with_pass_overhead(accelerator, 0)
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096]
    runs = [hardware.pass_times(accelerator, MODELS[target], MODELS[draft], 4, batch=b, context=0) for b in batches]
    speedups = [times.speedup(0.8) for times in runs]
    overheads = [times.verify_overhead for times in runs]
    assert all(later <= earlier * (1 + 1e-12) for earlier, later in zip(speedups, speedups[1:]))
    assert all(later >= earlier for earlier, later in zip(overheads, overheads[1:]))
    assert overheads[0] == 1.0 and overheads[-1] == pytest.approx(5.0)  # finally 5 positions cost 5 passes
    assert speedups[-1] < 0.6 * speedups[0] and speedups[-1] < 1  # slower than plain decoding


def test_with_a_kv_cache_the_speedup_of_a_70b_target_still_falls_with_the_batch():
    for draft in ("Llama 3.1 8B", "Llama 3.2 1B"):
        speedups = [hardware.pass_times(H100, MODELS["Llama 3.1 70B"], MODELS[draft], 4, batch=b).speedup(0.8)
                    for b in [1, 4, 16, 64, 256, 1024]]
        assert all(later < earlier for earlier, later in zip(speedups, speedups[1:]))


def test_devices_needed():
    assert hardware.devices_needed(MODELS["Llama 2 70B"], H100) == 2  # 140 GB of bf16 weights, 80 GB devices
    assert hardware.devices_needed(MODELS["Llama 2 70B"], ACCELERATORS["H200 SXM"]) == 1
    assert hardware.devices_needed(MODELS["Llama 2 7B"], ACCELERATORS["L4"]) == 1
    assert hardware.devices_needed(MODELS["Llama 2 70B"], ACCELERATORS["L4"]) == 6


def test_step_origins():
    assert hardware.step_origins(1, 0) == ("bonus",)
    assert hardware.step_origins(1, 3) == ("resampled",)
    assert hardware.step_origins(4, 3) == ("accepted",) * 3 + ("bonus",)
    with pytest.raises(ValueError, match="count must be an integer in 1 … 4"):
        hardware.step_origins(5, 3)


# Bad input: a clear error that names the argument, before anything is computed.

@pytest.mark.parametrize("value, error, words", [
    (0, ValueError, "must be > 0"),
    (-7e9, ValueError, "must be > 0"),
    (float("nan"), ValueError, "finite number > 0"),
    (float("inf"), ValueError, "finite number > 0"),
    (1 + 2j, TypeError, "real number > 0"),
    (True, TypeError, "real number > 0"),
    ("70B", TypeError, "real number > 0"),
])
def test_bad_model_size_is_refused(value, error, words):
    with pytest.raises(error, match="target") as caught:
        hardware.pass_times(H100, value, 1e9, 4)
    assert words in str(caught.value)
    with pytest.raises(error, match="model"):
        hardware.forward_pass_time(value, H100)


@pytest.mark.parametrize("field, value, error", [
    ("memory_bandwidth", 0.0, ValueError), ("memory_bandwidth", -1.0, ValueError),
    ("memory_bandwidth", float("nan"), ValueError), ("peak_flops", float("inf"), ValueError),
    ("peak_flops", 0, ValueError), ("memory_capacity", 2j, TypeError),
])
def test_bad_accelerator_numbers_are_refused(field, value, error):
    broken = dataclasses.replace(H100, **{field: value})
    with pytest.raises(error, match=f"accelerator.{field}"):
        hardware.forward_pass_time(70e9, broken)


def test_bad_model_shape_is_refused():
    broken = dataclasses.replace(MODELS["Llama 2 7B"], kv_heads=0)
    with pytest.raises(ValueError, match="draft.kv_heads"):
        hardware.pass_times(H100, MODELS["Llama 2 70B"], broken, 4)
    broken = dataclasses.replace(MODELS["Llama 2 7B"], parameters=-1.0)
    with pytest.raises(ValueError, match="target.parameters must be > 0"):
        hardware.pass_times(H100, broken, MODELS["Llama 2 7B"], 4)


def test_not_an_accelerator_is_refused():
    with pytest.raises(TypeError, match="accelerator must be an Accelerator.*H100 SXM"):
        hardware.forward_pass_time(70e9, "H100 SXM")


@pytest.mark.parametrize("batch, error, words", [
    (0, ValueError, "batch must be an integer in 1 … 65,536, got 0"),
    (-3, ValueError, "batch must be an integer in 1"),
    (10**12, ValueError, "batch must be an integer in 1 … 65,536"),
    (2.0, TypeError, "batch must be an integer"),
    (float("nan"), TypeError, "batch must be an integer"),
    (1j, TypeError, "batch must be an integer"),
])
def test_bad_batch_is_refused(batch, error, words):
    for call in (lambda: hardware.forward_pass_time(70e9, H100, batch=batch),
                 lambda: hardware.pass_times(H100, 70e9, 7e9, 4, batch=batch),
                 lambda: hardware.sample_timeline(H100, 70e9, 7e9, 4, 0.8, batch=batch),
                 lambda: hardware.roofline(70e9, H100, batch=batch)):
        with pytest.raises(error) as caught:
            call()
        assert words in str(caught.value)


def test_limits_are_checked_before_anything_is_allocated():
    with pytest.raises(ValueError, match="max_positions must be an integer in 1 … 65,536"):
        hardware.roofline(70e9, H100, max_positions=10**15)
    with pytest.raises(ValueError, match="tokens must be an integer in 1 … 1,000"):
        hardware.sample_timeline(H100, 70e9, 7e9, 4, 0.8, tokens=10**15)
    with pytest.raises(ValueError, match="gamma must be an integer in 0 … 65,535"):
        hardware.rows_with_acceptance(0.5, 10**15)
    with pytest.raises(ValueError, match="positions must be an integer in 1"):
        hardware.forward_pass_time(70e9, H100, positions=0)
    with pytest.raises(ValueError, match="context must be an integer in 0"):
        hardware.forward_pass_time(70e9, H100, context=-1)


def test_bad_alpha_and_seed_are_refused():
    with pytest.raises(ValueError, match="alpha must be in"):
        hardware.sample_timeline(H100, 70e9, 7e9, 4, 1.5)
    with pytest.raises(TypeError, match="alpha must be a real number"):
        hardware.sample_timeline(H100, 70e9, 7e9, 4, 0.5 + 0j)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        hardware.sample_timeline(H100, 70e9, 7e9, 4, 0.5, seed=-1)


def test_the_tables_are_not_changed_by_use():
    before = (dict(ACCELERATORS), dict(MODELS))
    hardware.sample_timeline(H100, MODELS["Llama 2 70B"], MODELS["Llama 2 7B"], 4, 0.8, batch=64)
    assert (dict(ACCELERATORS), dict(MODELS)) == before
    with pytest.raises(dataclasses.FrozenInstanceError):
        H100.memory_bandwidth = 1.0


def test_speedup_against_batch_is_pass_times_at_each_batch():
    target, draft = MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]
    batches = [1, 3, 64, 700]
    model, formula = hardware.speedup_against_batch(H100, target, draft, 5, 0.7, batches)
    for b, ours, free in zip(batches, model, formula):
        times = hardware.pass_times(H100, target, draft, 5, batch=b)
        assert ours == times.speedup(0.7)
        assert free == specdec.speedup(0.7, 5, times.implied_c)
        assert ours <= free  # the verify pass costs at least one plain pass
    assert model[0] == formula[0] and model[-1] < formula[-1]
    with pytest.raises(ValueError, match="each of batches must be an integer in 1"):
        hardware.speedup_against_batch(H100, target, draft, 5, 0.7, [1, 0])
    with pytest.raises(TypeError, match="batches must be a sequence"):
        hardware.speedup_against_batch(H100, target, draft, 5, 0.7, 8)


# The pairs: one vocabulary, and a draft no larger than its target.

def test_every_pair_of_the_lesson_shares_a_vocabulary_and_has_the_smaller_model_as_draft():
    assert hardware.DEFAULT_PAIR in hardware.PAIRS
    for target, draft in hardware.PAIRS:
        assert MODELS[target].vocabulary == MODELS[draft].vocabulary != ""
        assert MODELS[draft].parameters < MODELS[target].parameters
    assert MODELS["Llama 3.1 70B"].vocabulary != MODELS["Llama 2 70B"].vocabulary


@pytest.mark.parametrize("call", [
    lambda t, d: hardware.pass_times(H100, t, d, 4),
    lambda t, d: hardware.sample_timeline(H100, t, d, 4, 0.8),
    lambda t, d: hardware.speedup_against_batch(H100, t, d, 4, 0.8),
    lambda t, d: hardware.memory_check(H100, t, d),
    lambda t, d: hardware.batches_that_fit(H100, t, d),
    lambda t, d: hardware.size_ratio(t, d),
])
def test_a_pair_without_a_shared_vocabulary_or_with_a_larger_draft_is_refused(call):
    with pytest.raises(ValueError, match="draft must share the target's vocabulary: Llama 3.2 1B uses Llama 3"):
        call(MODELS["Llama 2 70B"], MODELS["Llama 3.2 1B"])
    with pytest.raises(ValueError, match="draft must not be larger than its target: the draft has 70,600,000,000"):
        call(MODELS["Llama 3.2 1B"], MODELS["Llama 3.1 70B"])
    with pytest.raises(ValueError, match="draft must not be larger than its target"):
        call(7e9, 70e9)
    call(7e9, 7e9)  # the same size is allowed (self-drafting with a shortened model of equal size)


def test_published_parameter_counts_match_the_configurations():
    # Weights counted from the published configurations (hidden size, MLP size, vocabulary, tied
    # embeddings): the dataclass rounds them to three figures.
    def count(hidden, mlp, layers, heads, kv_heads, head_dim, vocabulary, tied):
        attention = hidden * heads * head_dim * 2 + hidden * kv_heads * head_dim * 2
        per_layer = attention + 3 * hidden * mlp + 2 * hidden
        return layers * per_layer + vocabulary * hidden * (1 if tied else 2) + hidden

    assert MODELS["Llama 3.1 70B"].parameters == pytest.approx(count(8192, 28672, 80, 64, 8, 128, 128256, False), rel=2e-3)
    assert MODELS["Llama 3.1 8B"].parameters == pytest.approx(count(4096, 14336, 32, 32, 8, 128, 128256, False), rel=2e-3)
    assert MODELS["Llama 3.2 1B"].parameters == pytest.approx(count(2048, 8192, 16, 32, 8, 64, 128256, True), rel=4e-3)
    assert MODELS["Llama 2 70B"].parameters == pytest.approx(count(8192, 28672, 80, 64, 8, 128, 32000, False), rel=2e-3)
    assert MODELS["Llama 2 7B"].parameters == pytest.approx(count(4096, 11008, 32, 32, 32, 128, 32000, False), rel=2e-3)
    assert MODELS["Llama 160M"].parameters == pytest.approx(count(768, 3072, 12, 12, 12, 64, 32000, False), rel=4e-3)


# The fixed time per pass.

def test_the_default_fixed_time_follows_from_the_cited_measurement():
    # llama.cpp #3649: 216 draft passes in 322.8 ms on an A100; 162.42M weights of 2 bytes read at 2,039 GB/s.
    measured = 322.8e-3 / 216 - 162.42e6 * 2 / 2.039e12
    assert hardware.MEASURED_PASS_OVERHEAD == pytest.approx(measured, abs=0.05e-3)
    for chip in ACCELERATORS.values():
        assert chip.pass_overhead == hardware.MEASURED_PASS_OVERHEAD
        assert "https://github.com/ggml-org/llama.cpp/issues/3649" in chip.overhead_source


@pytest.mark.parametrize("accelerator", list(ACCELERATORS.values()), ids=list(ACCELERATORS))
def test_the_fixed_time_puts_c_below_the_size_ratio_the_more_so_the_smaller_the_draft(accelerator):
    target = MODELS["Llama 3.1 70B"]
    shares = []
    for draft in (MODELS["Llama 3.1 8B"], MODELS["Llama 3.2 1B"], 300e6, 100e6):
        flat = hardware.pass_times(hardware.with_pass_overhead(accelerator, 0), target.parameters,
                                   draft if not isinstance(draft, hardware.Model) else draft.parameters, 4, context=0)
        ratio = hardware.size_ratio(target, draft)
        assert flat.implied_c == pytest.approx(ratio, rel=1e-12)  # without it, c is the size ratio
        real = hardware.pass_times(accelerator, target.parameters,
                                   draft if not isinstance(draft, hardware.Model) else draft.parameters, 4, context=0)
        assert real.implied_c < ratio
        shares.append(real.implied_c / ratio)
    assert all(later < earlier for earlier, later in zip(shares, shares[1:]))


def test_the_fixed_time_lowers_c_most_on_the_chips_with_the_fastest_memory():
    target, draft = MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]
    by_bandwidth = sorted(ACCELERATORS.values(), key=lambda chip: chip.memory_bandwidth)
    cs = [hardware.pass_times(chip, target, draft, 4).implied_c for chip in by_bandwidth]
    assert all(later < earlier for earlier, later in zip(cs, cs[1:]))
    flat = [hardware.pass_times(hardware.with_pass_overhead(chip, 0), target, draft, 4).implied_c
            for chip in by_bandwidth]
    assert max(flat) / min(flat) < 1.01  # with no fixed time, c at batch 1 hardly depends on the chip
    assert max(cs) / min(cs) > 2.5  # with it, c on an H200 is less than half of c on an M1 Max


def test_the_lesson_pairs_c_and_speedup_on_an_h100():
    # Worked out by hand for Llama 3.1 70B / Llama 3.2 1B at batch 1, L = 1024, 1.3 ms per pass.
    target, draft = MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]
    target_seconds = 1.3e-3 + (2 * 70.6e9 + 1024 * 2 * 80 * 8 * 128 * 2) / 3.35e12
    draft_seconds = 1.3e-3 + (2 * 1.24e9 + 1024 * 2 * 16 * 8 * 64 * 2) / 3.35e12
    times = hardware.pass_times(H100, target, draft, 4)
    assert times.implied_c == pytest.approx(target_seconds / draft_seconds, rel=1e-12)
    assert round(times.implied_c, 1) == 21.2 and round(hardware.size_ratio(target, draft), 1) == 56.9
    assert round(times.speedup(0.8), 2) == 2.83


# Memory.

def test_the_memory_check_counts_weights_and_both_kv_caches():
    target, draft = MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]
    check = hardware.memory_check(H100, target, draft, batch=1024, context=1024)
    assert check.weights == 2 * (70.6e9 + 1.24e9)
    assert check.kv_cache == 1024 * 1024 * (327_680 + 32_768)
    assert check.kv_cache > 300e9 and not check.fits  # the example: hundreds of GB on one H100
    assert check.capacity == 80e9 and check.needed == check.weights + check.kv_cache
    assert hardware.memory_check(hardware.cluster(H100, 8), target, draft, batch=16, context=1024).fits
    windowed = hardware.memory_check(H100, target, draft, batch=4, context=32768, draft_context=512)
    assert windowed.kv_cache == 4 * (32768 * 327_680 + 512 * 32_768)
    assert hardware.pass_times(H100, target, draft, 4, batch=1024).memory == check


def test_batches_that_fit_are_the_small_ones():
    chip = hardware.cluster(H100, 2)
    target, draft = MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]
    fits = hardware.batches_that_fit(chip, target, draft, context=1024)
    assert fits.tolist() == [hardware.memory_check(chip, target, draft, b, 1024).fits for b in hardware.BATCH_SIZES]
    assert fits[0] and not fits[-1] and np.all(np.diff(fits.astype(int)) <= 0)
    longer = hardware.batches_that_fit(chip, target, draft, context=32768)
    assert longer.sum() < fits.sum()


# Long contexts (MagicDec, Chen et al. 2024): the KV cache dominates and verifying stays free.

def test_with_a_long_context_verifying_stays_free_and_the_speedup_holds_as_the_batch_grows():
    chip = hardware.cluster(H100, 8)
    target, draft = MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]
    batches = [1, 4, 16, 64, 256, 1024]
    short, _ = hardware.speedup_against_batch(chip, target, draft, 4, 0.8, batches, context=1024)
    long, _ = hardware.speedup_against_batch(chip, target, draft, 4, 0.8, batches, context=32768)
    windowed, _ = hardware.speedup_against_batch(chip, target, draft, 4, 0.8, batches, context=32768,
                                                 draft_context=512)
    assert short[-1] < 1 < short[0]  # short context: slower than plain decoding at large batches
    assert np.all(np.diff(long) > 0) and long[-1] > 2  # long context: the speedup grows with the batch
    assert np.all(windowed > long)  # a draft that keeps a window of the cache does better still
    for b in batches:
        assert hardware.pass_times(chip, target, draft, 4, batch=b, context=32768).verify_overhead == 1.0
    assert hardware.pass_times(chip, target, draft, 4, batch=1024, context=1024).verify_overhead > 4
    assert not hardware.batches_that_fit(chip, target, draft, batches, context=32768)[-1]


def test_attention_flops_enter_the_compute_time():
    model = MODELS["Llama 3.1 8B"]
    assert model.attention_flops_per_token == 4 * 32 * 32 * 128
    # Past the ridge, a long context adds its attention FLOPs to the weights' FLOPs.
    short = hardware.forward_pass_time(model, ROOFLINE, batch=64, positions=64, context=0)
    long = hardware.forward_pass_time(model, ROOFLINE, batch=64, positions=64, context=8192)
    per_position = 2 * model.parameters + 8192 * model.attention_flops_per_token
    assert long == pytest.approx(per_position * 64 * 64 / H100.peak_flops) and long > short


# A fraction of the peak, and several devices.

def test_a_fraction_of_peak_moves_the_bend_to_fewer_positions():
    real = hardware.at_fraction_of_peak(ROOFLINE, 0.8, 0.5)
    assert real.memory_bandwidth == 0.8 * H100.memory_bandwidth and real.peak_flops == 0.5 * H100.peak_flops
    assert real.ridge == pytest.approx(H100.ridge * 0.5 / 0.8)
    _, ideal = hardware.roofline(70e9, ROOFLINE, max_positions=400, context=0)
    _, slowed = hardware.roofline(70e9, real, max_positions=400, context=0)
    assert int(np.argmax(slowed > slowed[0])) + 1 == math.floor(real.ridge) + 1 == 185
    assert int(np.argmax(ideal > ideal[0])) + 1 == 296
    assert slowed[0] == pytest.approx(ideal[0] / 0.8)
    for bad in (0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="bandwidth_fraction must be in \\(0, 1\\]"):
            hardware.at_fraction_of_peak(H100, bad, 0.5)
    with pytest.raises(TypeError, match="flops_fraction must be a real number"):
        hardware.at_fraction_of_peak(H100, 0.5, "half")


def test_a_cluster_adds_up_bandwidth_flops_and_memory_but_not_the_fixed_time():
    eight = hardware.cluster(H100, 8)
    assert (eight.memory_bandwidth, eight.peak_flops, eight.memory_capacity) == (
        8 * H100.memory_bandwidth, 8 * H100.peak_flops, 8 * H100.memory_capacity)
    assert eight.pass_overhead == H100.pass_overhead and eight.ridge == pytest.approx(H100.ridge)
    with pytest.raises(ValueError, match="devices must be an integer in 1 … 4,096, got 0"):
        hardware.cluster(H100, 0)


@pytest.mark.parametrize("value, error", [(-1e-3, ValueError), (float("nan"), ValueError), (2.0, ValueError),
                                          ("1 ms", TypeError), (True, TypeError)])
def test_a_bad_fixed_time_is_refused(value, error):
    with pytest.raises(error, match="seconds must be a number of seconds in \\[0, 1\\]"):
        hardware.with_pass_overhead(H100, value)
    with pytest.raises(error, match="accelerator.pass_overhead must be"):
        hardware.forward_pass_time(70e9, dataclasses.replace(H100, pass_overhead=value))


# The papers, at their own settings.

def test_leviathan_t5_at_gamma_7_with_the_paper_sizes():
    for run, alpha, measured in [(hardware.PUBLISHED_RUNS[0], 0.75, 3.4), (hardware.PUBLISHED_RUNS[1], 0.62, 2.6)]:
        assert (run.gamma, run.draft_parameters, run.alpha, run.measured_speedup) == (7, 77e6, alpha, measured)
        comparison = hardware.compare_with_paper(run)
        assert comparison.alpha_reported and comparison.alpha == alpha
        assert comparison.flat_c == pytest.approx(11e9 / 77e6)
        assert comparison.flat_speedup == pytest.approx(specdec.speedup(alpha, 7, 11e9 / 77e6))
        tpu = ACCELERATORS["TPU v4"]
        c = (1.3e-3 + 22e9 / tpu.memory_bandwidth) / (1.3e-3 + 154e6 / tpu.memory_bandwidth)
        assert comparison.model_c == pytest.approx(c) and comparison.model_speedup == pytest.approx(
            specdec.speedup(alpha, 7, c))
    greedy, sampled = (hardware.compare_with_paper(run) for run in hardware.PUBLISHED_RUNS[:2])
    assert (round(greedy.flat_speedup, 2), round(sampled.flat_speedup, 2)) == (3.43, 2.45)
    assert (round(greedy.model_speedup, 2), round(sampled.model_speedup, 2)) == (2.38, 1.71)


def test_chen_chinchilla_at_k_4_with_the_measured_times():
    # Chen et al. 2023, Table 1 (K = 4, batch 1): each task and decoding method with its measured speedup.
    table_1 = {"XSum, nucleus": 1.92, "XSum, greedy": 2.01, "HumanEval, nucleus": 2.46}
    runs = hardware.PUBLISHED_RUNS[2:]
    assert {run.name.split(" / 4B, ")[1]: run.measured_speedup for run in runs} == table_1
    assert all((run.target_parameters, run.draft_parameters, run.accelerator.name)
               == (70e9, 4e9, hardware.cluster(ACCELERATORS["TPU v4"], 16).name) for run in runs)
    for run in runs:
        assert run.gamma == 4 and run.alpha is None and run.measured_c == pytest.approx(14.1 / 1.8)
        comparison = hardware.compare_with_paper(run)
        assert not comparison.alpha_reported
        assert specdec.speedup(comparison.alpha, 4, 14.1 / 1.8) == pytest.approx(run.measured_speedup, rel=1e-9)
        assert comparison.flat_c == pytest.approx(70 / 4)
        pod = hardware.cluster(ACCELERATORS["TPU v4"], 16)
        assert comparison.measured_target_time_ratio == pytest.approx(14.1e-3 / (1.3e-3 + 140e9 / pod.memory_bandwidth))
        assert comparison.measured_draft_time_ratio == pytest.approx(1.8e-3 / (1.3e-3 + 8e9 / pod.memory_bandwidth))
    alphas = [round(hardware.compare_with_paper(run).alpha, 2) for run in hardware.PUBLISHED_RUNS[2:]]
    assert alphas == sorted(alphas)  # a larger measured speedup needs a larger α


def test_alpha_for_speedup_inverts_the_speedup_and_refuses_what_no_alpha_gives():
    for alpha in (0.0, 0.3, 0.62, 0.9, 1.0):
        found = hardware.alpha_for_speedup(specdec.speedup(alpha, 5, 12.0), 5, 12.0)
        assert found == pytest.approx(alpha, abs=1e-12)
    with pytest.raises(ValueError, match="target_speedup must be between 0.7059 \\(α = 0\\) and 4.235"):
        hardware.alpha_for_speedup(5.0, 5, 12.0)
    with pytest.raises(TypeError, match="run must be a PublishedRun"):
        hardware.compare_with_paper("Chen et al.")


# The tables against the published configurations and datasheets (the figures their sources state).

@pytest.mark.parametrize("name, layers, attention_heads, kv_heads, head_dim", [
    ("Llama 3.1 70B", 80, 64, 8, 128),
    ("Llama 3.1 8B", 32, 32, 8, 128),
    ("Llama 3.2 1B", 16, 32, 8, 64),
    ("Llama 2 70B", 80, 64, 8, 128),
    ("Llama 2 7B", 32, 32, 32, 128),
    ("Llama 160M", 12, 12, 12, 64),
])
def test_model_shapes_are_the_published_configurations(name, layers, attention_heads, kv_heads, head_dim):
    model = MODELS[name]
    assert (model.layers, model.attention_heads, model.kv_heads, model.head_dim) == (
        layers, attention_heads, kv_heads, head_dim)
    assert f"{layers} layers" in model.source


@pytest.mark.parametrize("name, bandwidth, capacity", [
    ("H100 SXM", 3.35e12, 80e9), ("H200 SXM", 4.8e12, 141e9), ("A100 80GB SXM", 2.039e12, 80e9),
    ("L4", 300e9, 24e9), ("TPU v4", 1.2e12, 34_359_738_368), ("Apple M1 Max (laptop)", 400e9, 64e9),
])
def test_accelerator_memory_is_the_datasheet_figure(name, bandwidth, capacity):
    # TPU v4: "HBM2 32 GiB", 32 · 1024³ bytes; the others in decimal gigabytes as the vendors label them.
    chip = ACCELERATORS[name]
    assert chip.memory_bandwidth == pytest.approx(bandwidth, rel=1e-12)
    assert chip.memory_capacity == pytest.approx(capacity, rel=1e-12)


def test_an_accelerator_and_a_model_built_by_hand_take_the_documented_defaults():
    # No fixed time per pass unless given; as many query heads as key/value heads unless given.
    chip = hardware.Accelerator("chip", 1e12, 1e14, 1e10, "by hand")
    assert chip.pass_overhead == 0.0
    model = hardware.Model("model", 1e9, 10, 4, 64, "by hand")
    assert model.attention_flops_per_token == 4 * 10 * 4 * 64
    # The pure roofline of this chip: reading 2 GB of weights at 1 TB/s (no KV cache: context 0).
    assert hardware.forward_pass_time(1e9, chip, context=0) == pytest.approx(2e-3, rel=1e-12)


def test_forward_pass_time_defaults_to_one_position_of_one_sequence():
    # A chip so slow at arithmetic that every position counts: 2 FLOPs per weight at 10⁹ FLOP/s is 2 s.
    slow = hardware.Accelerator("slow", 1e15, 1e9, 1e12, "by hand")
    assert hardware.forward_pass_time(1e9, slow) == pytest.approx(2.0, rel=1e-12)
    assert hardware.forward_pass_time(1e9, slow, positions=3) == pytest.approx(6.0, rel=1e-12)


def test_roofline_defaults_to_64_positions():
    positions, seconds = hardware.roofline(70e9, H100)
    assert positions.tolist() == list(range(1, 65)) and seconds.shape == (64,)


def test_memory_check_defaults_to_one_sequence_and_a_setting_that_fills_memory_exactly_fits():
    # One sequence of 1,024 tokens, both models' caches: 1,024 · (2·80·8·128·2 + 2·16·8·64·2) bytes.
    check = hardware.memory_check(H100, MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"])
    assert check.kv_cache == 1024 * (327_680 + 32_768)
    assert check.weights == 2 * (70.6e9 + 1.24e9)
    # Bare parameter counts have no KV cache: 2 · (1.5 + 0.5)·10⁹ bytes of weights fill a 4 GB device.
    exact = dataclasses.replace(ROOFLINE, memory_capacity=4e9)
    assert hardware.memory_check(exact, 1.5e9, 0.5e9).needed == 4e9
    assert hardware.memory_check(exact, 1.5e9, 0.5e9).fits
    assert not hardware.memory_check(exact, 1.5e9, 0.5e9 + 1).fits


def test_a_published_run_with_one_measured_time_has_no_measured_c():
    run = dataclasses.replace(hardware.PUBLISHED_RUNS[0], target_time=14.1e-3, draft_time=None)
    assert run.measured_c is None
    assert dataclasses.replace(run, draft_time=1.41e-3).measured_c == pytest.approx(10.0)


def test_alpha_for_speedup_at_gamma_one():
    # γ = 1: speedup(α, 1, c) = (1 + α) / (1 + 1/c); at c = 10, α = 0.5 gives 1.5 / 1.1.
    assert hardware.alpha_for_speedup(1.5 / 1.1, 1, 10) == pytest.approx(0.5, abs=1e-9)


def test_a_draft_that_keeps_no_context():
    times = hardware.pass_times(H100, MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"], 4, draft_context=0)
    assert times.draft_pass == hardware.forward_pass_time(MODELS["Llama 3.2 1B"], H100, context=0)


def test_a_timeline_without_batch_or_tokens_is_one_sequence_of_32_tokens():
    target, draft = MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]
    line = hardware.sample_timeline(H100, target, draft, gamma=4, alpha=0.8)
    one_sequence = hardware.forward_pass_time(target, H100, batch=1)  # a second sequence adds its KV cache
    assert line.tokens == 32 and len(line.plain) == 32 and line.speculative_tokens >= 32
    assert all(p.duration == one_sequence for p in line.plain)
    assert line.plain[-1].start == pytest.approx(31 * one_sequence)


def test_the_whole_peak_is_a_fraction_of_the_peak():
    same = hardware.at_fraction_of_peak(H100, 1.0, 1.0)
    assert same.memory_bandwidth == H100.memory_bandwidth and same.peak_flops == H100.peak_flops


def test_the_smallest_model_shape_is_one_layer_one_head_of_one_dimension():
    # 1 layer, 1 key/value head of dimension 1, query heads left at 0 (as many as the kv heads):
    # 2·1·1·1·2 = 4 bytes of KV cache per token, 4 attention FLOPs per token of context.
    tiny = hardware.Model("tiny", 1e6, 1, 1, 1, "by hand")
    chip = hardware.Accelerator("chip", 1e12, 1e9, 1e10, "by hand")  # slow arithmetic: compute-bound
    # (2·10⁶ + 1,000·4) FLOPs at 10⁹ FLOP/s; reading 2·10⁶ + 1,000·4 bytes at 10¹² B/s is faster.
    assert hardware.forward_pass_time(tiny, chip, context=1000) == pytest.approx(2.004e-3, rel=1e-12)


def test_a_single_batch_size_is_a_list_of_batch_sizes():
    target, draft = MODELS["Llama 3.1 70B"], MODELS["Llama 3.1 8B"]
    rows = hardware.pass_times_for_batches(H100, target, draft, 4, [8])
    assert rows == [hardware.pass_times(H100, target, draft, 4, batch=8)]


def test_sizes_at_or_below_one_are_positive_too():
    assert hardware.positive(1.0, "size") == 1.0 and hardware.positive(1e-3, "size") == 1e-3
    # a one-parameter model: 2 bytes of weights read at 10¹² B/s
    chip = hardware.Accelerator("chip", 1e12, 1e14, 1e10, "by hand")
    assert hardware.forward_pass_time(1.0, chip, context=0) == pytest.approx(2e-12, rel=1e-12)
