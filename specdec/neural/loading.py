"""Load the committed weights: ``weights/models.npz`` and the record of how they were made.

`training/train_all.py` (at the repository root, with PyTorch) writes both files; this module needs
numpy only. Every loader returns a fresh object, built from arrays read once per session.

>>> record = training_record()
>>> sorted(record["models"])[:3]
['draft', 'draft_distilled', 'eagle']
>>> load_target().config.layers
4
"""

from __future__ import annotations

import functools
import json
from importlib import resources

import numpy as np

from .transformer import Config, Transformer


@functools.cache
def weight_arrays() -> dict[str, np.ndarray]:
    """Every committed array, by name (float16 weights, int16 check ids, int32 vocabulary code points)."""
    with resources.files("specdec.neural").joinpath("weights", "models.npz").open("rb") as file:
        with np.load(file) as stored:
            return {name: stored[name] for name in stored.files}


@functools.cache
def _record_text() -> str:
    return resources.files("specdec.neural").joinpath("weights", "record.json").read_text(encoding="utf-8")


def training_record() -> dict:
    """The record of the training run: command, seed, steps, wall times, losses (a fresh dict)."""
    return json.loads(_record_text())


def vocabulary() -> list[str]:
    """The characters of the neural models, in id order; the last one stands for any other character."""
    return [chr(int(code)) for code in weight_arrays()["vocab"]]


def _transformer(name: str) -> Transformer:
    config = training_record()["models"][name]["config"]
    return Transformer(weight_arrays(), name + ".", Config(**config), vocabulary())


def load_target() -> Transformer:
    """The target: a 4-layer character transformer."""
    return _transformer("target")


def load_draft(distilled: bool = False) -> Transformer:
    """The separate 2-layer draft model, trained on the data or (``distilled=True``) on the target's rows.

    >>> load_draft().config.layers, load_draft(distilled=True).config.width
    (2, 64)
    """
    if not isinstance(distilled, bool):
        raise TypeError(f"distilled must be True or False, got {distilled!r}")
    return _transformer("draft_distilled" if distilled else "draft")
