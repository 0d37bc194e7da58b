"""What a drafter costs as fractions of a target pass, counted by hand from the committed models' shapes.

The target: V = 102, width 128, 4 blocks; the draft model: width 64, 2 blocks; EAGLE's MLP is 256 wide.
A pass reads (and multiplies by) blocks·(4w² + 2w·m) + V·w weights, at 2 bytes and 2 FLOPs each, plus
4·layers·w FLOPs and 2·layers·w·2 bytes per cached position (keys and values, bf16).
"""

import pytest

from specdec import hardware
from specdec.neural import DraftCost, draft_cost, load_draft, load_target, predicted_speedup
from specdec.neural.costs import target_pass

TARGET = load_target()

#: Target weights: 4·(4·128² + 2·128·512) + 102·128 = 4·196,608 + 13,056.
TARGET_WEIGHTS = 799_488
#: The target pass at the costing context of 64 (half the models' context of 128): 2·W + 4·4·128·64.
TARGET_PASS = 2 * TARGET_WEIGHTS + 131_072


@pytest.mark.parametrize("context, cache", [(64, 131_072), (0, 0), (10, 20_480)])
def test_a_target_pass_reads_every_weight_once_and_the_kv_cache(context, cache):
    flops, memory = target_pass(TARGET, context=context)
    assert flops == 2 * TARGET_WEIGHTS + cache  # 4·layers·w·context
    assert memory == 2 * TARGET_WEIGHTS + cache  # 2 (K, V)·layers·w·context·2 bytes: the same number here


def test_a_target_pass_is_costed_at_half_the_models_context():
    assert target_pass(TARGET) == (TARGET_PASS, TARGET_PASS)


@pytest.mark.parametrize("kind, options, per_token", [
    # 2·(4·64² + 2·64·256) + 102·64 = 104,832 weights; 4·2·64·64 = 32,768 for the cache.
    ("draft model", {"draft": load_draft()}, 2 * 104_832 + 32_768),
    # two of the target's blocks and its head: 2·196,608 + 13,056 = 406,272; cache 4·2·128·64 = 65,536.
    ("layer skip", {"layers": 2}, 2 * 406_272 + 65_536),
    ("layer skip", {"layers": 2, "trained_exit": True}, 2 * (406_272 + 128 * 128) + 65_536),
    ("layer skip", {"layers": 3}, 2 * (3 * 196_608 + 13_056) + 98_304),
    # one block with a 256-wide MLP (4·128² + 2·128·256 = 131,072), the head, a 2w → w fusion layer (32,768);
    # cache 4·1·128·64 = 32,768.
    ("EAGLE", {}, 2 * (131_072 + 13_056 + 32_768) + 32_768),
])
@pytest.mark.parametrize("gamma", [1, 3])
def test_a_chain_drafter_costs_its_own_pass_per_token_and_gamma_of_them_per_step(kind, options, per_token, gamma):
    cost = draft_cost(kind, TARGET, gamma=gamma, **options)
    fraction = per_token / TARGET_PASS
    assert cost.flops_per_token == pytest.approx(fraction, rel=1e-12)
    assert cost.bytes_per_token == pytest.approx(fraction, rel=1e-12)
    assert cost.flops_per_step == pytest.approx(gamma * fraction, rel=1e-12)
    assert cost.bytes_per_step == pytest.approx(gamma * fraction, rel=1e-12)
    assert cost.passes_per_token == 1.0


@pytest.mark.parametrize("width, depth, nodes", [(2, 2, 6), (3, 1, 3), (1, 3, 3)])
def test_medusa_heads_run_once_per_step_inside_the_target_pass(width, depth, nodes):
    # Each head: a w×w layer and the V×w head, 128² + 102·128 = 29,440 weights, 2 FLOPs and 2 bytes each.
    step = 2 * depth * 29_440 / TARGET_PASS
    cost = draft_cost("Medusa", TARGET, width=width, depth=depth)
    assert cost.flops_per_step == pytest.approx(step, rel=1e-12)
    assert cost.bytes_per_step == pytest.approx(step, rel=1e-12)
    assert cost.flops_per_token == pytest.approx(step / nodes, rel=1e-12)
    assert cost.bytes_per_token == pytest.approx(step / nodes, rel=1e-12)
    assert cost.passes_per_token == 0.0


def test_prompt_lookup_is_free_and_an_unknown_kind_is_refused():
    assert draft_cost("prompt lookup", TARGET, gamma=4) == DraftCost(0.0, 0.0, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="kind must be one of"):
        draft_cost("lookahead", TARGET)


def _time(positions=1, model=hardware.MODELS["Llama 3.1 8B"]):
    return hardware.forward_pass_time(model, hardware.ACCELERATORS["H100 SXM"], positions=positions)


def test_the_predicted_speedup_pays_a_verify_pass_and_the_drafts_own_passes():
    model = hardware.MODELS["Llama 3.1 8B"]
    cost = DraftCost(0.1, 0.1, 0.3, 0.3, 1.0)
    draft = _time(model=0.1 * model.parameters)
    assert predicted_speedup(2.5, cost, 3, 3) == pytest.approx(2.5 * _time() / (_time(4) + 3 * draft), rel=1e-12)
    # a draft smaller than one parameter is costed as one parameter
    tiny = DraftCost(0.0, 0.0, 0.0, 0.0, 1.0)
    assert predicted_speedup(2.0, tiny, 2, 2) == pytest.approx(2.0 * _time() / (_time(3) + 2 * _time(model=1.0)),
                                                               rel=1e-12)


def test_heads_inside_the_target_pass_add_their_bytes_to_it():
    overhead = hardware.ACCELERATORS["H100 SXM"].pass_overhead
    cost = DraftCost(0.05, 0.05, 0.2, 0.2, 0.0)
    verify = _time(7) + 0.2 * (_time() - overhead)
    assert predicted_speedup(3.0, cost, 6, 0) == pytest.approx(3.0 * _time() / verify, rel=1e-12)


def test_a_verify_pass_over_many_positions_is_compute_bound_and_costs_each_of_them():
    free = DraftCost(0.0, 0.0, 0.0, 0.0, 0.0)
    assert _time(4096) > 1.5 * _time()  # past the ridge point: the positions' arithmetic sets the time
    assert predicted_speedup(1.0, free, 4095, 0) == pytest.approx(_time() / _time(4096), rel=1e-12)
