"""Driving an explorer headless, as a learner would: control positions, and checks on the picture."""

import io

import numpy as np
from PIL import Image

from specdec.plots import png_bytes


def slider_positions(slider):
    """The minimum, the maximum and the middle of a slider (the middle on the slider's step)."""
    low, high = slider.min, slider.max
    if isinstance(slider.value, int):
        return [low, high, (low + high) // 2]
    steps = round((high - low) / slider.step)
    return [low, high, round(low + (steps // 2) * slider.step, 10)]


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")).astype(int)


def assert_picture_is_a_full_render(explorer, most_differing=0.005):
    """The picture on screen, drawn by redrawing only the changing artists, equals a full render.

    A full render draws every artist afresh. The two agree except where a changing artist is drawn
    over a still one that a full render draws on top (a legend edge, a spine): a few pixels. An
    artist that changes but was not registered as changing would leave stale pixels behind.
    """
    shown = pixels(explorer.image.value)
    full = pixels(png_bytes(explorer.figure))
    assert shown.shape == full.shape
    differing = (np.abs(shown - full).max(axis=2) > 0).mean()
    assert differing <= most_differing, f"{differing:.2%} of the pixels differ from a full render"
