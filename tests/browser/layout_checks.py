"""What the layout tests measure on the page: overflow, slider tracks, picture scale, what is on screen.

Each check reads the DOM of one explorer (found by the frame's CSS classes, `specdec.explore.frame.CSS`)
and returns plain data, so that the assertions in the tests say in words what is wrong and where.
"""

from __future__ import annotations

import functools
import math

from specdec.explore.frame import MIN_HEADING_PX, MIN_TEXT_PX, smallest_text_px
from specdec.explore.frame import MIN_TRACK_PX

from ..explorer_driving import build

from .explorer_moves import EXPLORERS
from .jupyter_driver import ExplorerView

#: How far (CSS px) an element may reach past the output area before it counts as cut off: rounding.
OVERFLOW_SLACK_PX = 1.0

_LAYOUT = """(box) => {
    const area = box.closest('.jp-OutputArea-output') || box.parentElement;
    const limit = area.getBoundingClientRect();
    const shown = (el) => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
    };
    const describe = (el) => {
        const classes = [...el.classList].filter(c => c.startsWith('specdec') || c.startsWith('widget')).join('.');
        const text = (el.innerText || el.alt || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
        return `${el.tagName.toLowerCase()}${classes ? '.' + classes : ''} "${text}"`;
    };
    const overflow = [];
    for (const el of [box, ...box.querySelectorAll('*')]) {
        if (!shown(el)) { continue; }
        const past = el.getBoundingClientRect().right - limit.right;
        if (past > %(slack)s) { overflow.push({what: describe(el), past: Math.round(past)}); }
    }
    const tracks = [...box.querySelectorAll('.widget-slider')].filter(shown).map(slider => {
        const track = slider.querySelector('.noUi-target') || slider.querySelector('.slider-container');
        const label = slider.querySelector('.widget-label');
        // The label's lines as drawn (a wrapped label may run out of its box onto the track).
        const lines = label ? (() => { const range = document.createRange(); range.selectNodeContents(label);
            return [...range.getClientRects()]; })() : [];
        const bar = track.getBoundingClientRect();
        const onTrack = lines.filter(line => line.bottom > bar.top + 1 && line.top < bar.bottom - 1
                                     && line.right > bar.left + 1 && line.left < bar.right - 1).length;
        return {label: label ? label.textContent.trim() : '', width: bar.width, linesOnTrack: onTrack};
    });
    const img = box.querySelector('.specdec-picture');
    return {
        overflow: overflow.slice(0, 8),
        overflowCount: overflow.length,
        areaWidth: limit.width,
        tracks,
        picture: {natural: img.naturalWidth, shown: img.getBoundingClientRect().width},
    };
}""" % {"slack": OVERFLOW_SLACK_PX}

_ON_SCREEN = """(box, labels) => {
    box.scrollIntoView({block: 'start'});
    const width = window.innerWidth, height = window.innerHeight;
    const place = (el) => {
        if (!el) { return null; }
        const r = el.getBoundingClientRect();
        const inside = r.width > 0 && r.height > 0 && r.left >= -1 && r.top >= -1
            && r.right <= width + 1 && r.bottom <= height + 1;
        return {inside, top: Math.round(r.top), bottom: Math.round(r.bottom), left: Math.round(r.left),
                right: Math.round(r.right)};
    };
    const parts = {
        figure: place(box.querySelector('.specdec-picture')),
        'key readout': place(box.querySelector('.specdec-key-readout')),
    };
    for (const label of labels) {
        parts[label] = place(box.querySelector(`[data-control="${label.replace(/"/g, '\\\\"')}"]`));
    }
    return {parts, width, height};
}"""


def layout(view: ExplorerView) -> dict:
    """Overflow past the output area, slider track widths and the picture's scale, for one explorer."""
    return view.locator.evaluate(_LAYOUT)


def on_screen(view: ExplorerView, labels: list[str]) -> dict:
    """Scroll the explorer's top to the top of the window; where its picture, key readout and the
    controls named by `labels` then are, and whether each lies wholly inside the window."""
    return view.locator.evaluate(_ON_SCREEN, labels)


def main_controls(title: str) -> list[str]:
    """The controls a learner uses first: those the explorer's browser moves touch, in order."""
    seen: list[str] = []
    for move in EXPLORERS[title].moves:
        if move.control not in seen:
            seen.append(move.control)
    return seen


@functools.lru_cache(maxsize=None)
def figure_text_px(title: str) -> tuple[float, float, int]:
    """(smallest text, smallest title or axis label, PNG width) of the explorer's figure, in PNG pixels,
    built by its class with its default arguments, as the notebooks build them."""
    explorer = build(EXPLORERS[title].picture)
    width = int(round(explorer.figure.get_figwidth() * explorer.figure.dpi))
    return smallest_text_px(explorer.figure), smallest_text_px(explorer.figure, headings=True), width


@functools.lru_cache(maxsize=None)
def presentation_text_px(title: str) -> float:
    """The smallest text of the explorer's figure built in presentation mode, in PNG pixels."""
    from specdec.explore import presentation

    presentation()
    try:
        return smallest_text_px(build(EXPLORERS[title].picture).figure)
    finally:
        presentation(False)


def layout_problems(title: str, report: dict, text_sizes: bool = True) -> list[str]:
    """What is wrong with one explorer's layout report, in words; empty when it fits.

    With `text_sizes`, figure text must also be large enough on screen (the projector's rule).
    """
    problems = [f"{title!r}: {item['what']} reaches {item['past']} px past the output area "
                f"({report['areaWidth']:.0f} px wide)" for item in report["overflow"]]
    if report["overflowCount"] > len(report["overflow"]):
        problems.append(f"{title!r}: … and {report['overflowCount'] - len(report['overflow'])} more elements")
    problems += [f"{title!r}: the track of slider {track['label']!r} is {track['width']:.0f} px, under "
                 f"{MIN_TRACK_PX} px" for track in report["tracks"] if track["width"] < MIN_TRACK_PX - 0.5]
    problems += [f"{title!r}: {track['linesOnTrack']} line(s) of the label of slider {track['label']!r} lie on "
                 "its track" for track in report["tracks"] if track.get("linesOnTrack")]
    picture = report["picture"]
    if not picture["natural"]:
        return problems + [f"{title!r}: the picture did not load"]
    if not text_sizes:
        return problems
    text_px, heading_px, _ = figure_text_px(title)
    scale = picture["shown"] / picture["natural"]
    for size, smallest, what in ((text_px, MIN_TEXT_PX, "text"), (heading_px, MIN_HEADING_PX, "titles and axis labels")):
        if math.isfinite(size) and size * scale < smallest - 0.05:
            problems.append(f"{title!r}: figure {what} of {size:.1f} PNG px, the picture {picture['natural']} px "
                            f"wide shown at {picture['shown']:.0f} px in an output area of "
                            f"{report['areaWidth']:.0f} px, is {size * scale:.1f} px on screen, under {smallest:g} px")
    return problems
