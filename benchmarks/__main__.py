"""``python -m benchmarks SUITE [options]``: run one benchmark suite; ``--help`` lists them."""

import argparse
import importlib
import sys

#: Suite name -> what it measures. Each suite is the module of the same name in this folder.
SUITES = {
    "sampling": "sample_steps against a Python loop and the RNG's own rate",
    "checks": "cost of the argument checks per verify step, and the import time of specdec",
    "interactivity": "time from a control change to the updated view, for every explorer",
    "redraw": "each explorer's pictures drawn in place (FastRedraw) against a full savefig",
    "text": "speculative against plain generation on real text",
    "neural": "the numpy transformer's characters per second against PyTorch's, plain and cached",
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Benchmarks print ratios measured side by side in one run. Suites: "
        + "; ".join(f"{name}: {about}" for name, about in SUITES.items()),
    )
    parser.add_argument("suite", choices=sorted(SUITES))
    parser.add_argument("options", nargs=argparse.REMAINDER, help="passed on to the suite (try SUITE --help)")
    args = parser.parse_args(argv)
    return importlib.import_module(f"benchmarks.{args.suite}").main(args.options) or 0


if __name__ == "__main__":
    sys.exit(main())
