"""What a drafter costs, relative to one target pass, and the speedup the hardware cost model predicts.

A pass of a transformer over one new position reads every weight it uses and the cached keys and
values, and does about two FLOPs per weight plus attention's 4·layers·width per cached position (a
block holds 4·width² attention weights and 2·width·m MLP weights: m = 4·width, but the EAGLE block's
own m is read from its weights). `draft_cost` counts both for each drafter, per drafted token and per
step, as fractions of the target's pass at the same context. Weights are counted at 2 bytes each (bf16,
as `specdec.hardware` does), the head tied to the embedding is read once.

`predicted_speedup` puts those fractions into `specdec.hardware`: a target of a chosen published
size on a chosen accelerator, and a draft that costs the measured fraction of it, with the
accelerator's fixed time per pass. A step costs one verify pass over every drafted position plus the
drafter's own passes; plain decoding costs one pass per token.

What is simplified: the fractions come from our 4-layer target and its drafters; a real pair keeps
different ratios (a 1B draft of a 70B target costs about 1/57 of it; an EAGLE head on Llama 3.1 8B,
one decoder layer of its 32 with a fusion layer and the target's 128k-token head, reads about a tenth
of the weights a target pass reads). Prompt lookup's string search and the tree's bookkeeping are free.

>>> from specdec.neural import load_target, load_draft
>>> cost = draft_cost("draft model", load_target(), draft=load_draft())
>>> 0.05 < cost.bytes_per_token < 0.2, cost.passes_per_token
(True, 1.0)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from .. import hardware
from .loading import weight_arrays
from .transformer import Transformer

#: Context at which a pass is costed (the KV cache's length): half the models' context.
COST_CONTEXT = 64
#: The target size and accelerator `predicted_speedup` uses unless told otherwise.
DEFAULT_TARGET = "Llama 3.1 8B"
DEFAULT_ACCELERATOR = "H100 SXM"


@dataclass(frozen=True)
class DraftCost:
    """A drafter's cost as fractions of one target pass over one position."""

    flops_per_token: float
    bytes_per_token: float
    flops_per_step: float
    bytes_per_step: float
    passes_per_token: float
    """Separate forward passes (each with the accelerator's fixed overhead) per drafted token."""


def _pass(width, vocab, blocks, kv_layers, extra_weights=0, context=COST_CONTEXT, mlp_width=None):
    mlp_width = 4 * width if mlp_width is None else mlp_width
    weights = blocks * (4 * width * width + 2 * width * mlp_width) + vocab * width + extra_weights
    flops = 2 * weights + 4 * kv_layers * width * context
    memory = hardware.BF16_BYTES * weights + 2 * kv_layers * width * context * hardware.BF16_BYTES
    return flops, memory


@functools.cache
def eagle_mlp_width() -> int:
    """The hidden width of the committed EAGLE block's MLP (256: twice the target's width of 128)."""
    return int(weight_arrays()["eagle.block.fc.weight"].shape[0])


def target_pass(target: Transformer, context=COST_CONTEXT) -> tuple[float, float]:
    """(FLOPs, bytes) of one target pass over one position at `context` cached positions."""
    c = target.config
    return _pass(c.width, c.vocab, c.layers, c.layers, context=context)


def draft_cost(kind, target: Transformer, draft: Transformer | None = None, layers: int = 2,
               trained_exit=False, gamma: int = 1, width: int = 1, depth: int = 1) -> DraftCost:
    """The cost of one drafter, as fractions of a target pass.

    Parameters
    ----------
    kind : {"draft model", "layer skip", "Medusa", "EAGLE", "prompt lookup"}
    target : Transformer
    draft : Transformer
        The separate draft model (kind "draft model").
    layers, trained_exit : layer skipping's exit (kind "layer skip").
    gamma : int
        Draft tokens per step of a chain (all kinds but Medusa).
    width, depth : int
        The Medusa tree: `depth` heads run once per step for `width` + … + width^depth nodes.
    """
    flops, memory = target_pass(target)
    c = target.config
    if kind == "draft model":
        d = draft.config
        f, m = _pass(d.width, d.vocab, d.layers, d.layers)
        per_token, passes, tokens = (f, m), 1.0, gamma
    elif kind == "layer skip":
        f, m = _pass(c.width, c.vocab, layers, layers, extra_weights=c.width * c.width if trained_exit else 0)
        per_token, passes, tokens = (f, m), 1.0, gamma
    elif kind == "EAGLE":
        # One block with its own MLP width, plus the fusion layer (2·width → width).
        f, m = _pass(c.width, c.vocab, 1, 1, extra_weights=2 * c.width * c.width, mlp_width=eagle_mlp_width())
        per_token, passes, tokens = (f, m), 1.0, gamma
    elif kind == "Medusa":
        nodes = sum(width ** level for level in range(1, depth + 1))
        head_weights = depth * (c.width * c.width + c.vocab * c.width)
        step = (2 * head_weights, hardware.BF16_BYTES * head_weights)
        return DraftCost(step[0] / nodes / flops, step[1] / nodes / memory, step[0] / flops, step[1] / memory, 0.0)
    elif kind == "prompt lookup":
        return DraftCost(0.0, 0.0, 0.0, 0.0, 0.0)
    else:
        raise ValueError(f"kind must be one of 'draft model', 'layer skip', 'Medusa', 'EAGLE', 'prompt lookup', "
                         f"got {kind!r}")
    return DraftCost(per_token[0] / flops, per_token[1] / memory, tokens * per_token[0] / flops,
                     tokens * per_token[1] / memory, passes)


def predicted_speedup(tau, cost: DraftCost, drafted_per_step, passes_per_step, target=DEFAULT_TARGET,
                      accelerator=DEFAULT_ACCELERATOR, context=hardware.DEFAULT_CONTEXT) -> float:
    """Speedup over plain decoding that `specdec.hardware` predicts for a target of a published size.

    Parameters
    ----------
    tau : float
        Measured tokens per target pass.
    cost : DraftCost
        The drafter's cost as fractions of a target pass (bytes set its time: decoding is
        memory-bound at batch 1).
    drafted_per_step : float
        Positions the verify pass scores besides the root (γ, or the tree's nodes).
    passes_per_step : float
        The drafter's own forward passes per step (each pays the accelerator's fixed overhead).
    target, accelerator : str
        Keys of `specdec.hardware.MODELS` and `ACCELERATORS`.

    Examples
    --------
    >>> free = DraftCost(0, 0, 0, 0, 0)
    >>> round(predicted_speedup(2.0, free, 4, 0), 3)  # a free draft: τ itself (4 more positions cost nothing at b = 1)
    2.0
    """
    model = hardware.MODELS[target]
    device = hardware.ACCELERATORS[accelerator]
    plain = hardware.forward_pass_time(model, device, positions=1, context=context)
    verify = hardware.forward_pass_time(model, device, positions=1 + max(0, round(drafted_per_step)), context=context)
    if passes_per_step == 0:  # heads that run inside the target's own pass (Medusa) add their bytes to it
        verify += (plain - device.pass_overhead) * cost.bytes_per_step
    draft_pass = hardware.forward_pass_time(max(1.0, cost.bytes_per_token * model.parameters), device)
    return tau * plain / (verify + passes_per_step * draft_pass)
