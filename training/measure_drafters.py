"""Measure every drafter of specdec.neural on the committed target; write weights/measurements.json.

Run from the repository root (numpy only; no PyTorch needed):

    OPENBLAS_NUM_THREADS=1 nice python -m training.measure_drafters

For each drafter at temperatures 0 and 1: τ (characters per target pass, bonus included),
acceptance by draft position, draft tokens and draft passes per step, the draft's FLOPs and bytes
per drafted token and per step relative to one target pass, and the speedup `specdec.hardware`
predicts for a target of Llama 3.1 8B's size on an H100 SXM with the same relative draft cost.
Prompts: 16 held-out lines of 32 characters, 56 characters generated after each, seeds 0-2 at
temperature 1 (one run at temperature 0, which is deterministic). Prompt lookup is measured also
on `REPEATING_PROMPTS`, text that restates its context. Medusa's tree is also run with typical
acceptance (lossy). Every drafter is also measured, the same way, at each temperature of
`FRONTIER_TEMPERATURES` (the stops of notebook 10's temperature slider), for its frontier of τ
against draft bytes per step.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from specdec.neural import load_target
from specdec.neural.measure import (DRAFTERS, FRONTIER_TEMPERATURES, REPEATING_PROMPTS, held_out_prompts,
                                    measure_drafter)

OUT = Path(__file__).resolve().parents[1] / "specdec" / "neural" / "weights" / "measurements.json"
PROMPTS, LENGTH, SEEDS = 16, 56, (0, 1, 2)


def main(argv=None) -> int:
    started = time.time()
    target = load_target()
    prompts = held_out_prompts(PROMPTS)
    results = dict(command="python -m training.measure_drafters", prompts=PROMPTS, length=LENGTH,
                   seeds_at_temperature_1=list(SEEDS), cost_model="Llama 3.1 8B on H100 SXM (specdec.hardware)",
                   held_out={}, repeating={}, typical={}, frontier={})
    for temperature in (0.0, 1.0):
        seeds = (0,) if temperature == 0 else SEEDS
        key = f"T={temperature:g}"
        for name in DRAFTERS:
            results["held_out"].setdefault(name, {})[key] = measure_drafter(target, name, prompts, LENGTH,
                                                                           temperature, seeds)
            print(f"{name:>16} {key}: tau {results['held_out'][name][key]['tau']:.2f}", flush=True)
        results["repeating"].setdefault("prompt lookup", {})[key] = measure_drafter(
            target, "prompt lookup", list(REPEATING_PROMPTS), LENGTH, temperature, seeds)
        results["typical"].setdefault("Medusa", {})[key] = measure_drafter(target, "Medusa", prompts, LENGTH,
                                                                            temperature, seeds, rule="typical")
    for temperature in FRONTIER_TEMPERATURES:
        key = f"T={temperature:g}"
        points = results["frontier"][key] = {}
        for name in DRAFTERS:
            result = results["held_out"].get(name, {}).get(key) or measure_drafter(
                target, name, prompts, LENGTH, temperature, (0,) if temperature == 0 else SEEDS)
            points[name] = [result["bytes_per_step"], result["tau"]]
        print(f"frontier {key}: " + ", ".join(f"{name} {tau:.2f}" for name, (_, tau) in points.items()), flush=True)
    results["wall_seconds"] = round(time.time() - started, 1)
    OUT.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {OUT} in {results['wall_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
