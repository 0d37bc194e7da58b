"""Fast redraws: the layered render must look like a full draw, and the PNG encoder must round-trip."""

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from specdec.plots import new_figure, png_bytes, styled
from specdec.plots.fast_redraw import FastRedraw, png_from_rgba


def decode(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))


def assert_looks_like_a_full_draw(fast_png: bytes, figure) -> None:
    """At most a few pixels (antialiased edges where layers meet) may differ from `savefig`."""
    fast, full = decode(fast_png), decode(png_bytes(figure))
    assert fast.shape == full.shape
    difference = np.abs(fast.astype(int) - full.astype(int)).max(axis=2)
    assert (difference > 64).mean() < 5e-4
    assert (difference > 0).mean() < 0.01


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from([3, 4]))
def test_png_from_rgba_round_trips(height, width, seed):
    pixels = np.random.default_rng(seed).integers(0, 256, size=(height, width, 4), dtype=np.uint8)
    np.testing.assert_array_equal(decode(png_from_rgba(pixels)), pixels)


@pytest.fixture
def line_figure():
    with styled():
        figure = new_figure(4, 3)
        axes = figure.add_subplot()
        (line,) = axes.plot([0, 1, 2], [0, 1, 0], label="data")
        title = axes.set_title("start", loc="right", y=1.0)
        axes.set_xlabel("x")
        axes.set_ylabel("y")
        axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))  # clear of the changing line
    return figure, axes, line, title


def test_changing_artists_are_redrawn_and_the_rest_kept(line_figure):
    figure, axes, line, title = line_figure
    fast = FastRedraw(figure, changing=[line, title], occasional=[axes.xaxis, axes.yaxis])
    first = fast.png()
    assert_looks_like_a_full_draw(first, figure)
    assert figure.get_layout_engine() is None  # frozen after the first render
    line.set_ydata([1, 0, 1])
    title.set_text("changed")
    second = fast.png()
    assert second != first
    assert_looks_like_a_full_draw(second, figure)


def test_occasional_artists_follow_invalidate(line_figure):
    figure, axes, line, title = line_figure
    fast = FastRedraw(figure, changing=[line], occasional=[axes.yaxis])
    fast.png()
    axes.set_ylim(-5, 5)
    line.set_ydata([-4, 4, -4])
    fast.invalidate()
    assert_looks_like_a_full_draw(fast.png(), figure)


def test_savefig_still_draws_every_artist(line_figure):
    figure, axes, line, title = line_figure
    fast = FastRedraw(figure, changing=[line, title], occasional=[axes.yaxis])
    fast.png()
    line.set_visible(False)
    without_line = decode(png_bytes(figure))
    line.set_visible(True)
    assert not np.array_equal(decode(png_bytes(figure)), without_line)
