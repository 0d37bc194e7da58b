"""The hardware cost model: pass times, implied c, speedup, and the sampled timeline."""

import dataclasses
import math

import numpy as np
import pytest

import specdec
from specdec import hardware
from specdec.hardware import ACCELERATORS, MODELS

H100 = ACCELERATORS["H100 SXM"]
PAIRS = [("Llama 2 70B", "Llama 2 7B"), ("Llama 2 70B", "Llama 3.2 1B"), ("Llama 2 7B", "Llama 160M")]


def plain_pass_time(parameters, kv_bytes_per_token, bandwidth, flops, batch, positions, context):
    """The model written out by hand, one term at a time."""
    weight_bytes = parameters * 2
    cache_bytes = batch * context * kv_bytes_per_token
    memory_seconds = (weight_bytes + cache_bytes) / bandwidth
    compute_seconds = 2 * parameters * batch * positions / flops
    return memory_seconds if memory_seconds > compute_seconds else compute_seconds


@pytest.mark.parametrize("accelerator", list(ACCELERATORS.values()), ids=list(ACCELERATORS))
@pytest.mark.parametrize("model", list(MODELS.values()), ids=list(MODELS))
@pytest.mark.parametrize("batch, positions, context", [(1, 1, 0), (1, 9, 1024), (64, 5, 2048), (512, 17, 512)])
def test_pass_time_matches_a_plain_implementation(accelerator, model, batch, positions, context):
    kv = 2 * model.layers * model.kv_heads * model.head_dim * 2
    expected = plain_pass_time(model.parameters, kv, accelerator.memory_bandwidth, accelerator.peak_flops,
                               batch, positions, context)
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
    assert one == pytest.approx(140e9 / 3.35e12)
    for positions in range(1, 9):
        assert hardware.forward_pass_time(70e9, H100, positions=positions) == one


def test_past_the_ridge_the_time_grows_in_proportion_to_the_positions():
    at_1000 = hardware.forward_pass_time(70e9, H100, positions=1000, context=0)
    at_2000 = hardware.forward_pass_time(70e9, H100, positions=2000, context=0)
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
    line = hardware.sample_timeline(H100, MODELS["Llama 2 70B"], MODELS["Llama 3.2 1B"], 3, 0.6, seed=2, tokens=25)
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
    # Weights only (no KV cache): then c stays put and only the verify pass changes.
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096]
    runs = [hardware.pass_times(accelerator, MODELS[target], MODELS[draft], 4, batch=b, context=0) for b in batches]
    speedups = [times.speedup(0.8) for times in runs]
    overheads = [times.verify_overhead for times in runs]
    assert all(later <= earlier * (1 + 1e-12) for earlier, later in zip(speedups, speedups[1:]))
    assert all(later >= earlier for earlier, later in zip(overheads, overheads[1:]))
    assert overheads[0] == 1.0 and overheads[-1] == pytest.approx(5.0)  # finally 5 positions cost 5 passes
    assert speedups[-1] < 0.6 * speedups[0] and speedups[-1] < 1  # slower than plain decoding


def test_with_a_kv_cache_the_speedup_of_a_70b_target_still_falls_with_the_batch():
    for draft in ("Llama 2 7B", "Llama 3.2 1B"):
        speedups = [hardware.pass_times(H100, MODELS["Llama 2 70B"], MODELS[draft], 4, batch=b).speedup(0.8)
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
    target, draft = MODELS["Llama 2 70B"], MODELS["Llama 3.2 1B"]
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
