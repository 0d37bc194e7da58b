"""Driving an explorer headless, as a learner would: building each one, control positions, checks on the picture."""

import inspect
import io

import numpy as np
from PIL import Image

from specdec.explore.frame import png_bytes


def explorer_names() -> list[str]:
    """Every explorer of the series by class name, discovered in specdec.explore (nothing listed by hand)."""
    import specdec.explore

    return sorted(specdec.explore.EXPLORERS)

#: A short corpus for an explorer that learns from text (the standard library's would take seconds).
SMALL_CORPUS = "the cat sat on the mat and the rat sat on the cat " * 20


def build(name: str, **arguments):
    """A fresh explorer of class `name` at its defaults; one that learns from a corpus gets `SMALL_CORPUS`."""
    import specdec.explore

    explorer_class = specdec.explore.EXPLORERS[name]
    parameters = inspect.signature(explorer_class.__init__).parameters
    if "corpus" in parameters and "corpus" not in arguments:
        arguments = {"corpus": SMALL_CORPUS, **({"length": 40} if "length" in parameters else {}), **arguments}
    return explorer_class(**arguments)


def slider_positions(slider):
    """The minimum, the maximum and the middle of a slider (the middle on the slider's step)."""
    low, high = slider.min, slider.max
    if isinstance(slider.value, int):
        return [low, high, (low + high) // 2]
    steps = round((high - low) / slider.step)
    return [low, high, round(low + (steps // 2) * slider.step, 10)]


def extreme_settings(explorer):
    """(name, value) pairs that put each slider of `explorer` at its minimum, then at its maximum."""
    moves = []
    for name, control in explorer.controls.items():
        if hasattr(control, "min") and hasattr(control, "max") and not getattr(control, "disabled", False) \
                and isinstance(control.value, (int, float)) and not isinstance(control.value, bool) \
                and not hasattr(control, "playing"):
            moves += [(name, control.min), (name, control.max)]
    return moves


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")).astype(int)


def assert_looks_like_a_full_draw(fast_png: bytes, figure) -> None:
    """At most a few pixels (antialiased edges where layers meet) may differ from a full ``savefig``."""
    fast, full = pixels(fast_png), pixels(png_bytes(figure))
    assert fast.shape == full.shape
    difference = np.abs(fast - full).max(axis=2)
    assert (difference > 64).mean() < 5e-4
    assert (difference > 0).mean() < 0.01


def assert_picture_is_a_full_render(explorer, most_differing=0.005):
    """The picture on screen, drawn by redrawing only the changing artists, equals a full render.

    The two agree except where a changing artist is drawn over a still one that a full render draws
    on top (a legend edge, a spine): a few pixels. An artist that changes but was not registered as
    changing would leave stale pixels behind.
    """
    shown = pixels(explorer.image.value)
    full = pixels(png_bytes(explorer.figure))
    assert shown.shape == full.shape
    differing = (np.abs(shown - full).max(axis=2) > 0).mean()
    assert differing <= most_differing, f"{differing:.2%} of the pixels differ from a full render"


def drawn_texts(figure) -> list:
    """Every text `figure` shows now (tick labels only of the ticks drawn), after the figure has been drawn."""
    from matplotlib.text import Text

    all_ticks, drawn_ticks = set(), []
    for axes in figure.axes:
        for axis in axes._axis_map.values():
            all_ticks.update(id(label) for tick in axis.majorTicks + axis.minorTicks
                             for label in (tick.label1, tick.label2))
            if axes.axison and axis.get_visible():
                drawn_ticks += [label for tick in axis._update_ticks() for label in (tick.label1, tick.label2)]
    texts = [text for text in figure.findobj(Text) if id(text) not in all_ticks] + drawn_ticks
    return [text for text in texts if text.get_visible() and text.get_text().strip() and text.get_alpha() != 0
            and all(parent.get_visible() for parent in _containers(text))]


def _containers(text) -> list:
    """The legend holding `text`, if any (a hidden legend hides its texts)."""
    figure = text.get_figure()
    legends = [axes.get_legend() for axes in figure.axes] + list(figure.legends)
    return [legend for legend in legends if legend is not None and text in legend.get_texts()]


def text_collisions(figure, margin: float = 1.0) -> list[str]:
    """Texts of `figure` that overlap another text or a legend they are not part of, or run off the figure.

    Boxes are matplotlib's window extents of each shown text, in PNG pixels, shrunk by `margin`.
    """
    renderer = figure.canvas.get_renderer()
    width, height = figure.bbox.width, figure.bbox.height
    texts = drawn_texts(figure)
    boxes = [(text, text.get_window_extent(renderer)) for text in texts]
    legends = [legend for legend in [axes.get_legend() for axes in figure.axes] + list(figure.legends)
               if legend is not None and legend.get_visible()]
    legend_texts = {id(text): legend for legend in legends for text in legend.get_texts()}
    problems = []
    for text, box in boxes:
        if box.x0 < -margin or box.y0 < -margin or box.x1 > width + margin or box.y1 > height + margin:
            problems.append(f"{text.get_text()!r} runs off the figure")
    for index, (text, box) in enumerate(boxes):
        for other, other_box in boxes[index + 1:]:
            if _overlap(box, other_box, margin):
                problems.append(f"{text.get_text()!r} overlaps {other.get_text()!r}")
        for legend in legends:
            if legend_texts.get(id(text)) is not legend and _overlap(box, legend.get_window_extent(renderer), margin):
                problems.append(f"{text.get_text()!r} overlaps a legend")
    return problems


def _overlap(first, second, margin: float) -> bool:
    return (min(first.x1, second.x1) - max(first.x0, second.x0) > 2 * margin
            and min(first.y1, second.y1) - max(first.y0, second.y0) > 2 * margin)
