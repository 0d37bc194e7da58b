"""Benchmarks of specdec, run from the repository's root: ``python -m benchmarks SUITE``.

They are not installed with the package. Each prints ratios measured side by side in one run, never a
wall time to compare against another machine's.
"""
