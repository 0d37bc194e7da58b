"""Benchmark scripts: each module's main() prints ratios measured side by side in one run."""
