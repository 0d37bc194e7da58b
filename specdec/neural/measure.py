"""τ, acceptance by position, draft cost and predicted speedup of every drafter, on the same target.

`DRAFTERS` names the drafters with the settings the lessons use; `build_drafter` makes one;
`measure_drafter` runs it over prompts and seeds and pools the steps. ``python -m
training.measure_drafters`` (repository root) writes ``weights/measurements.json`` with every
drafter at temperatures 0 and 1 on held-out prompts, prompt lookup also on prompts that repeat
themselves, and every drafter's τ and draft bytes at each of `FRONTIER_TEMPERATURES`;
`committed_measurements` reads that file.

>>> import numpy as np
>>> from specdec.neural import load_target
>>> result = measure_drafter(load_target(), "prompt lookup", ["abc abc abc "], 8, 0.0, seeds=[0])
>>> result["tau"] >= 1.0, len(result["acceptance_by_position"])
(True, 4)
"""

from __future__ import annotations

import functools
import json
from importlib import resources

import numpy as np

from .costs import draft_cost, predicted_speedup
from .drafters import EagleDrafter, MedusaDrafter, ModelDrafter, PromptLookupDrafter, layer_skip_drafter
from .loading import load_draft
from .speculative import speculative_generate
from .split import split_text
from .transformer import Transformer

#: Drafter name -> (kind for `draft_cost`, description; `describe_drafter` fills in Medusa's tree).
#: γ = 4 for the chains, a 2-wide 3-deep tree.
DRAFTERS = {
    "draft model": ("draft model", "a separate 2-layer model of width 64, trained on the data"),
    "distilled draft": ("draft model", "the same model, distilled from the target (DistillSpec)"),
    "layer skip": ("layer skip", "the target's first 2 of 4 layers, a trained exit, its norm and head"),
    "Medusa": ("Medusa", "the top {width} of {heads} on the last hidden state form a tree, one-hot rows"),
    "EAGLE": ("EAGLE", "one block drafting the target's next feature from (feature, next token)"),
    "prompt lookup": ("prompt lookup", "copy what followed the latest match of the last 1-3 characters"),
}
CHAIN_GAMMA = 4
TREE_WIDTH, TREE_DEPTH = 2, 3
#: The temperatures at which every drafter's (draft bytes per step, τ) is measured and committed: the
#: stops of notebook 10's temperature slider.
FRONTIER_TEMPERATURES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
#: Prompts that restate their own context: where prompt lookup can copy.
REPEATING_PROMPTS = (
    "self.name = name\n        self.size = size\n        self.",
    "def add(self, x):\n    self.items.add(x)\ndef remove(self, x):\n    self.",
    ">>> parse('a, b')\n['a', 'b']\n>>> parse('a, b, c')\n[",
    "Return the number of items.\n\nReturn the number of",
)


def build_drafter(name: str, target: Transformer, gamma: int = CHAIN_GAMMA, width: int = TREE_WIDTH,
                  depth: int = TREE_DEPTH):
    """One of `DRAFTERS`, for `target`."""
    if name == "draft model":
        return ModelDrafter(load_draft(), gamma)
    if name == "distilled draft":
        return ModelDrafter(load_draft(distilled=True), gamma, name="distilled draft model")
    if name == "layer skip":
        return layer_skip_drafter(target, gamma, layers=2, trained_exit=True)
    if name == "Medusa":
        return MedusaDrafter(target, width=width, depth=depth)
    if name == "EAGLE":
        return EagleDrafter(target, gamma)
    if name == "prompt lookup":
        return PromptLookupDrafter(len(target.vocab), gamma)
    raise ValueError(f"name must be one of {sorted(DRAFTERS)}, got {name!r}")


def describe_drafter(name: str, width: int = TREE_WIDTH, depth: int = TREE_DEPTH) -> str:
    """The description of one of `DRAFTERS` in words, Medusa's for a tree `width` wide and `depth` deep.

    >>> describe_drafter("Medusa", width=3, depth=1)
    'the top 3 of the 1 head on the last hidden state form a tree, one-hot rows'
    >>> describe_drafter("Medusa", width=2, depth=3)
    'the top 2 of each of 3 heads on the last hidden state form a tree, one-hot rows'
    """
    return DRAFTERS[name][1].format(width=width, heads=f"each of {depth} heads" if depth > 1 else f"the {depth} head")


def cost_of(name: str, target: Transformer, gamma: int = CHAIN_GAMMA, width: int = TREE_WIDTH, depth: int = TREE_DEPTH):
    """`draft_cost` of the named drafter."""
    kind = DRAFTERS[name][0]
    draft = load_draft(distilled=name == "distilled draft") if kind == "draft model" else None
    return draft_cost(kind, target, draft=draft, layers=2, trained_exit=True, gamma=gamma, width=width, depth=depth)


def held_out_prompts(count: int, length: int = 32) -> list[str]:
    """`count` prompts of `length` characters from the held-out text, evenly spaced, each starting a line."""
    from ..text import stdlib_corpus

    held = split_text(stdlib_corpus())[1]
    prompts, spacing = [], len(held) // count
    for i in range(count):
        start = held.find("\n", i * spacing) + 1
        prompts.append(held[start:start + length])
    return prompts


def measure_drafter(target: Transformer, name: str, prompts, length: int, temperature: float, seeds=(0,),
                    gamma: int = CHAIN_GAMMA, width: int = TREE_WIDTH, depth: int = TREE_DEPTH, rule="exact") -> dict:
    """Pooled over every prompt and seed: τ, acceptance by position, drafted tokens and passes per step."""
    drafter = build_drafter(name, target, gamma, width, depth)
    positions = depth if name == "Medusa" else gamma
    emitted = passes = drafted = draft_passes = 0
    reached, accepted = np.zeros(positions), np.zeros(positions)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        for prompt in prompts:
            run = speculative_generate(target, drafter, prompt, length, temperature, rng, rule=rule)
            for step in run.steps:
                emitted += len(step.emitted)
                drafted += step.drafted
                draft_passes += step.draft_passes
                for i in range(min(step.depth, step.accepted + 1, positions)):
                    reached[i] += 1
                    accepted[i] += i < step.accepted
            passes += run.target_passes
    cost = cost_of(name, target, gamma, width, depth)
    tau = emitted / passes
    with np.errstate(invalid="ignore", divide="ignore"):
        by_position = accepted / reached
    return dict(
        tau=tau, acceptance_by_position=[None if np.isnan(r) else float(r) for r in by_position],
        drafted_per_step=drafted / passes, draft_passes_per_step=draft_passes / passes, target_passes=passes,
        flops_per_drafted_token=cost.flops_per_token, bytes_per_drafted_token=cost.bytes_per_token,
        flops_per_step=cost.flops_per_token * drafted / passes if name != "Medusa" else cost.flops_per_step,
        bytes_per_step=cost.bytes_per_token * drafted / passes if name != "Medusa" else cost.bytes_per_step,
        predicted_speedup=predicted_speedup(tau, cost, drafted / passes, draft_passes / passes),
    )


@functools.cache
def _measurements_text() -> str:
    return resources.files("specdec.neural").joinpath("weights", "measurements.json").read_text(encoding="utf-8")


def committed_measurements() -> dict:
    """The measurements written by ``python -m training.measure_drafters`` (a fresh dict)."""
    return json.loads(_measurements_text())
