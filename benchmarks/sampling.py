"""How fast is `sample_steps`, against a Python loop and against the random generator itself?

Three rates, measured one after the other in the same process on the same rows (V = 64, γ = 4 by
default), so that their ratios mean something even on a busy machine:

1. `sample_steps` on n = 1,000,000 steps;
2. a Python loop of `sample_draft` + `speculative_step` on the same rows; it is about a thousand
   times slower, so a smaller number of loop steps is timed and the rate scaled, and the output
   says so;
3. the generator's own rate, filling a preallocated array with uniforms. A step of the rule as
   written uses up to 2γ + 1 uniforms (a draft token and an acceptance draw per position, one
   resampled or bonus token), so that rate divided by 2γ + 1 bounds the steps/s of any sampler
   that draws its randomness this way.

The three are measured in turn, a few rounds over; each rate is the best of its rounds, the least
disturbed by other work on the machine. Wall times are printed but never asserted; the tests do not run this module.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from specdec.core import sample_draft, speculative_step
from specdec.narrate import random_rows
from specdec.sampling import sample_steps

#: Goals of the project: sample_steps at least this many times the loop ...
GOAL_LOOP_RATIO = 200.0
#: ... and at least this fraction of the generator's bound.
GOAL_BOUND_FRACTION = 0.20


def measure(vocab=64, gamma=4, n=1_000_000, loop_steps=5_000, repeats=3, seed=0) -> dict:
    """Measure the three rates and return them with their ratios (a dict of floats)."""
    target_probs, draft_probs = random_rows(gamma, vocab, 0.5, np.random.default_rng(seed))
    uniforms_per_step = 2 * gamma + 1
    buffer = np.empty(n * uniforms_per_step)
    generator = np.random.default_rng(seed)
    generator.random(out=buffer)  # touch the memory once, so that no measurement pays for it

    def sampler():
        sample_steps(target_probs, draft_probs, n, np.random.default_rng(seed))

    def loop():
        rng = np.random.default_rng(seed)
        for _ in range(loop_steps):
            speculative_step(target_probs, draft_probs, sample_draft(draft_probs, rng), rng)

    def uniforms():
        generator.random(out=buffer)

    # Interleaved, so that a busy spell on the machine slows all three alike; the best of each counts.
    best = {"sampler": float("inf"), "loop": float("inf"), "uniforms": float("inf")}
    for _ in range(max(1, repeats)):
        for name, action in (("sampler", sampler), ("loop", loop), ("uniforms", uniforms)):
            start = time.perf_counter()
            action()
            best[name] = min(best[name], time.perf_counter() - start)
    sampler_seconds, loop_seconds, rng_seconds = best["sampler"], best["loop"], best["uniforms"]

    sampler_rate = n / sampler_seconds
    loop_rate = loop_steps / loop_seconds
    uniform_rate = buffer.size / rng_seconds
    bound = uniform_rate / uniforms_per_step
    return {
        "vocab": vocab,
        "gamma": gamma,
        "n": n,
        "loop_steps": loop_steps,
        "uniforms_per_step": uniforms_per_step,
        "sample_steps_per_second": sampler_rate,
        "sample_steps_seconds": sampler_seconds,
        "loop_steps_per_second": loop_rate,
        "uniforms_per_second": uniform_rate,
        "bound_steps_per_second": bound,
        "loop_ratio": sampler_rate / loop_rate,
        "bound_fraction": sampler_rate / bound,
    }


def report(result: dict) -> str:
    """The measurements as lines of text, with the ratios against the goals."""
    lines = [
        f"sample_steps benchmark: V = {result['vocab']}, γ = {result['gamma']}, n = {result['n']:,}",
        f"  sample_steps:                        {result['sample_steps_per_second']:>14,.0f} steps/s "
        f"({result['sample_steps_seconds']:.3f} s for {result['n']:,} steps)",
        f"  loop of sample_draft + speculative_step: {result['loop_steps_per_second']:>10,.0f} steps/s "
        f"(timed on {result['loop_steps']:,} steps and scaled; {result['n']:,} would take "
        f"{result['n'] / result['loop_steps_per_second']:,.0f} s)",
        f"  generator, uniforms into an array:   {result['uniforms_per_second']:>14,.0f} uniforms/s",
        f"  bound for {result['uniforms_per_step']} uniforms per step:       "
        f"{result['bound_steps_per_second']:>14,.0f} steps/s",
        f"  sample_steps / loop:  {result['loop_ratio']:8.0f}×   (goal ≥ {GOAL_LOOP_RATIO:.0f}×: "
        f"{_met(result['loop_ratio'] >= GOAL_LOOP_RATIO)})",
        f"  sample_steps / bound: {result['bound_fraction']:8.1%}    (goal ≥ {GOAL_BOUND_FRACTION:.0%}: "
        f"{_met(result['bound_fraction'] >= GOAL_BOUND_FRACTION)})",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    """Entry point of ``python -m benchmarks sampling``; returns the process exit code (0)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks sampling", description="Speed of sample_steps against a loop and the RNG."
    )
    parser.add_argument("--vocab", type=int, default=64, help="vocabulary size V (default 64)")
    parser.add_argument("--gamma", type=int, default=4, help="draft length γ (default 4)")
    parser.add_argument("-n", type=int, default=1_000_000, help="steps for sample_steps (default 1,000,000)")
    parser.add_argument("--loop-steps", type=int, default=5_000, help="steps timed in the Python loop (default 5,000)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats per measurement; the best counts (default 3)")
    args = parser.parse_args(argv)
    result = measure(args.vocab, args.gamma, args.n, args.loop_steps, args.repeats)
    print(report(result))
    return 0


def _met(condition: bool) -> str:
    return "met" if condition else "NOT met"


if __name__ == "__main__":
    raise SystemExit(main())
