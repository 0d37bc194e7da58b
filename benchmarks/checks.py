"""What the core's safety costs: argument checks per step, and `import specdec` over `import numpy`.

``python -m benchmarks checks`` prints two ratios, each measured side by side in one run:

* the time of `speculative_step` (checks, then the rule) over the time of the same rule on
  already-checked arrays, at V = 64 and γ = 4 (goal: at most 1.30);
* the extra time `import specdec` takes after `import numpy`, over the time of `import numpy`,
  each measured in a fresh interpreter (goal: at most 20% more). Both are timed from bytecode, as
  Python imports them by default: numpy's was compiled at install, specdec's is compiled once into
  a temporary folder first. Where ``PYTHONDONTWRITEBYTECODE`` is set, an import in that environment
  compiles specdec's source every time while numpy loads its bytecode; that case is printed too.
  (`specdec/__init__.py` imports neither matplotlib nor ipywidgets: its care for import time.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from specdec.core import speculative_step, verify
from specdec.narrate import random_rows

_IMPORT_PROBE = (
    "import time; t0 = time.perf_counter(); import numpy; t1 = time.perf_counter(); "
    "import specdec; t2 = time.perf_counter(); print(t1 - t0, t2 - t1)"
)


def time_checks(vocab=64, gamma=4, steps=4000, rounds=15, seed=0) -> tuple[float, float]:
    """Median seconds per step with and without the checks, alternating the two in each round."""
    rng = np.random.default_rng(seed)
    target_probs, draft_probs = random_rows(gamma, vocab, 0.5, rng)
    # The same drafted tokens every step, so both sides do the same work on the same rows.
    draft_tokens = [int(rng.choice(vocab, p=row)) for row in draft_probs]
    checked, bare = [], []
    for round_index in range(rounds):
        for runner, sink in ((speculative_step, checked), (verify, bare)):
            step_rng = np.random.default_rng(round_index)
            start = time.perf_counter()
            for _ in range(steps):
                runner(target_probs, draft_probs, draft_tokens, step_rng)
            sink.append((time.perf_counter() - start) / steps)
    return statistics.median(checked), statistics.median(bare)


def time_import(runs=15, from_bytecode=True) -> tuple[float, float]:
    """Median seconds of `import numpy`, and of `import specdec` after it, in fresh interpreters: from bytecode
    (specdec's written once to a temporary folder first), or under this environment's settings unchanged."""
    environment = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        if from_bytecode:
            environment.pop("PYTHONDONTWRITEBYTECODE", None)
            environment["PYTHONPYCACHEPREFIX"] = cache
            subprocess.run([sys.executable, "-c", _IMPORT_PROBE], env=environment, capture_output=True, check=True)
        numpy_times, specdec_times = [], []
        for _ in range(runs):
            output = subprocess.run([sys.executable, "-c", _IMPORT_PROBE], env=environment, capture_output=True,
                                    text=True, check=True)
            numpy_seconds, specdec_seconds = map(float, output.stdout.split())
            numpy_times.append(numpy_seconds)
            specdec_times.append(specdec_seconds)
    return statistics.median(numpy_times), statistics.median(specdec_times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks checks", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=4000, help="steps per timing round (default: 4000)")
    parser.add_argument("--import-runs", type=int, default=15, help="fresh interpreters to time (default: 15)")
    args = parser.parse_args(argv)

    checked, bare = time_checks(steps=args.steps)
    print("argument checks, V = 64, γ = 4 (median of 15 alternating rounds)")
    print(f"  speculative_step (checks + rule): {checked * 1e6:8.1f} µs/step")
    print(f"  the rule alone, on checked arrays: {bare * 1e6:8.1f} µs/step")
    print(f"  ratio: {checked / bare:.2f}  (goal: at most 1.30)")

    print(f"import time (median of {args.import_runs} fresh interpreters each)")
    settings = [(True, "from bytecode, as Python imports by default")]
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        settings.append((False, "as this environment runs it: PYTHONDONTWRITEBYTECODE is set, so specdec's source is "
                                "compiled at every import unless its bytecode was cached before"))
    for from_bytecode, how in settings:
        numpy_seconds, specdec_seconds = time_import(args.import_runs, from_bytecode)
        print(f"  {how}:")
        print(f"    import numpy:                 {numpy_seconds * 1e3:7.1f} ms")
        print(f"    import specdec, after numpy:  {specdec_seconds * 1e3:7.1f} ms")
        goal = "  (goal: at most 20%)" if from_bytecode else ""
        print(f"    extra: {specdec_seconds / numpy_seconds:.0%} of numpy's{goal}")
    return 0
