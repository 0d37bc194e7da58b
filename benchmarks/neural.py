"""The numpy decoder of specdec.neural against PyTorch on the same weights, on this CPU.

``python -m benchmarks neural`` decodes greedily from the committed target, measured side by side
in one run, and prints characters per second for:

* plain decoding: the whole text is run through the network again for every new character;
* cached decoding: each new character is one pass over one position, with the KV cache.

Both sides decode the same characters (checked) from the same prompt. The goal is numpy at least
half PyTorch's rate. PyTorch is not a dependency of specdec: without it the suite says so and stops.
Set the thread counts alike for a fair comparison (numpy's BLAS reads ``OPENBLAS_NUM_THREADS`` when
it starts; on a busy machine one thread is often faster): the suite prints PyTorch's.
Wall times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

from specdec.neural import generate, load_target, training_record, weight_arrays


def _rate(run, characters: int, repeats: int) -> tuple[float, list[int]]:
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
    return characters / best, out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks neural", description=__doc__.split("\n")[0])
    parser.add_argument("--characters", type=int, default=80, help="characters decoded per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per side; the fastest is kept")
    parser.add_argument("--threads", type=int, default=1, help="PyTorch threads")
    parser.add_argument("--prompt", default="Return a new list of the ")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("torch") is None:
        print("skipped: PyTorch is not installed (pip install torch); the numpy side needs nothing more")
        return 0
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from training.torch_models import CharTransformer, greedy_decode, load

    torch.set_num_threads(args.threads)
    target = load_target()
    torch_model = load(CharTransformer(**training_record()["models"]["target"]["config"]), weight_arrays(), "target.")
    torch_model.eval()
    prompt_ids = target.encode(args.prompt)
    n = args.characters
    print(f"greedy decoding of {n} characters after a {len(prompt_ids)}-character prompt; "
          f"PyTorch {torch.__version__} on {args.threads} thread(s), "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"{'decoding':<10} {'numpy chars/s':>14} {'PyTorch chars/s':>16} {'numpy / PyTorch':>16}  same text")
    for cached in (False, True):
        rng = np.random.default_rng(0)
        numpy_rate, numpy_text = _rate(lambda: generate(target, args.prompt, n, 0.0, rng, cached=cached), n,
                                       args.repeats)
        torch_rate, torch_ids = _rate(lambda: greedy_decode(torch_model, prompt_ids, n, cached=cached), n,
                                      args.repeats)
        same = numpy_text == target.decode(torch_ids)
        print(f"{'cached' if cached else 'plain':<10} {numpy_rate:>14.0f} {torch_rate:>16.0f} "
              f"{numpy_rate / torch_rate:>16.2f}  {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
