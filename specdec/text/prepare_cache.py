"""Fill the cache before a learner arrives: ``python -m specdec.text.prepare_cache``.

The real-text explorer's first picture takes a few seconds on a machine that has never read the
corpus nor counted its n-grams, and under a second afterwards (`specdec.text.disk_cache`). A
Binder image, or a lab machine before a class, can pay those seconds once, at build time, by
running this module: it reads the corpus and counts the contexts of every order 1 … 7 into the
cache directory.

What is simplified: it prepares the default corpus only (`specdec.text.stdlib_corpus`).
"""

from __future__ import annotations

from pathlib import Path

from . import corpus as corpus_module
from .disk_cache import cache_directory
from .ngram import MAX_ORDER, fitted_model


def prepare_cache(report=print) -> Path | None:
    """Read the corpus and count every order's contexts into the cache; return the cache directory.

    Parameters
    ----------
    report : callable
        Called with a line of text for each part that is read or counted.

    Returns
    -------
    pathlib.Path or None
        Where the files are; None if the cache is switched off (nothing is then kept).
    """
    report("reading the corpus")
    text = corpus_module.stdlib_corpus()
    for order in range(1, MAX_ORDER + 1):
        fitted_model(order, text, progress=report)
    directory = cache_directory()
    report(f"cache ready in {directory}" if directory is not None else "the cache is switched off")
    return directory


if __name__ == "__main__":
    prepare_cache()
