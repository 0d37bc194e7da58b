"""The frame every explorer shares: readouts as data, layout that wraps, a static view, the presentation
switch, an accessible picture, legible text that never collides, fast redraws; and the discovery of explorers."""

import base64
import importlib
import inspect
import io
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

import specdec.explore
from specdec.validation import DEFAULT_MAX_GAMMA, MAX_GAMMA, MAX_VOCAB
from specdec.explore.frame import (COMPACT_FIGURE_INCHES, COMPACT_TEXT_SCALE, CSS, DPI, LONG_LABEL_CHARS, MIN_HEADING_PX,
                                   MIN_TEXT_PX, MIN_TRACK_PX, WIDEST_FIGURE_INCHES, Explorer, FastRedraw, Readout, bold,
                                   compact, enlarge_small_text, figure_scale, heading_texts, line, new_figure,
                                   png_bytes, png_from_rgba, presentation, smallest_text_px, styled, table)

from .explorer_driving import (assert_looks_like_a_full_draw, build, drawn_texts, explorer_names, extreme_settings,
                               pixels, text_collisions)
from .test_explore_legends import check_entry, legend_entries

#: The width a picture gets in JupyterLab 4 at 1280×720 with the file browser open (CSS px, measured in Chromium).
OUTPUT_WIDTH_PX = 844

EXPLORER_NAMES = explorer_names()

_BUILT = {}


def built(name):
    """Each explorer at its defaults, built once for the whole module (building one draws its first view)."""
    if name not in _BUILT:
        _BUILT[name] = build(name)
    return _BUILT[name]


@pytest.fixture
def presenting():
    """Presentation mode on for one test, and off again afterwards whatever happens."""
    presentation(scale=1.5)
    yield
    presentation(False)


def png_size(data: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(data)).size


def style_sheet(explorer) -> str:
    body = explorer.children[-1]
    sheets = [child.value for child in body.children
              if isinstance(child, widgets.HTML) and child.value.startswith("<style>")]
    assert len(sheets) == 1
    return sheets[0]


class Square:
    """The least a picture needs: a figure, `update` and PNG bytes."""

    def __init__(self):
        self.figure = new_figure(2, 1)
        self.axes = self.figure.add_subplot(xlabel="x", ylabel="x²")
        (self.curve,) = self.axes.plot([0], [0])
        self.updates = 0

    def update(self, x):
        self.curve.set_data([0, x], [0, x * x])
        self.updates += 1

    def png(self):
        return png_bytes(self.figure)


class SquareExplorer(Explorer):
    """A tiny explorer: a slider, two buttons, a readout with one key line."""

    title = "Squares"

    def __init__(self, x=2, **options):
        self.presses = 0
        controls = {"x": widgets.IntSlider(value=x, min=0, max=9, description="x"),
                    "y": widgets.IntSlider(value=0, min=0, max=9, description="a long label for the y slider"),
                    "double": widgets.Button(description="double"), "count": widgets.Button(description="count")}
        super().__init__(controls, [["x", "y"], ["double", "count"]], Square(), **options)
        self.on_click("double", self.double)
        self.on_click("count", self.count)

    def double(self):
        self.controls["x"].value = min(9, 2 * self.value("x"))
        self.controls["y"].value = self.value("x")

    def count(self):
        self.presses += 1

    def compute(self):
        self.picture.update(self.value("x"))
        return {"x": self.value("x"), "square": self.value("x") ** 2, "presses": self.presses}

    def describe(self, shown):
        return Readout([line("x = ", shown["x"], ", y = ", self.value("y")), line("x² = ", bold(shown["square"])),
                        line("pressed ", shown["presses"], " times <not markup>", note=True)])


# ---- readouts as data ---------------------------------------------------------------------------------


def test_a_readout_renders_its_lines_to_html_plain_text_and_key_lines():
    readout = Readout([line("α = 0.80 & γ < 5"), line("Speedup = ", bold("2.80×")), line("aside", note=True),
                       line("first", item=True), line("second", item=True), table(["k", "P"], [[1, "0.2"]])])
    assert readout.plain() == ["α = 0.80 & γ < 5", "Speedup = 2.80×", "aside", "first", "second", "k P", "1 0.2"]
    assert readout.html() == ("<p>α = 0.80 &amp; γ &lt; 5</p><p>Speedup = <b>2.80×</b></p>"
                              "<p class='specdec-note'>aside</p><ol class='specdec-note'><li>first</li><li>second</li>"
                              "</ol><table><tr><th>k</th><th>P</th></tr><tr><td>1</td><td>0.2</td></tr></table>")
    assert [key.plain() for key in readout.key_lines()] == ["Speedup = 2.80×"]
    assert readout.key_html() == "<div role='status' aria-live='polite'><div>Speedup = <b>2.80×</b></div></div>"


def test_key_lines_are_the_marked_ones_else_the_bold_ones_else_the_first():
    marked = Readout([line("a ", bold("1")), line("b", key=True), line("c ", bold("2"), key=False)])
    assert [key.plain() for key in marked.key_lines()] == ["b"]
    many = Readout([line(bold(str(i))) for i in range(6)])
    assert [key.plain() for key in many.key_lines()] == ["0", "1", "2", "3"]
    assert [key.plain() for key in Readout([line("only words"), line("more")]).key_lines()] == ["only words"]
    excluded = Readout([line("x ", bold("1"), key=False), line("plain")])
    assert [key.plain() for key in excluded.key_lines()] == ["x 1"]  # none chosen: the first line


def test_an_html_line_keeps_its_words_for_the_plain_view():
    chips = line("Output: A ✓", html="Output: <span style='color:green'>A ✓</span>")
    readout = Readout([chips])
    assert readout.plain() == ["Output: A ✓"] and "<span style='color:green'>" in readout.html()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=12), st.booleans()), min_size=1, max_size=6))
def test_markup_in_the_words_is_shown_as_words(parts):
    readout = Readout([line(*(bold(text) if strong else text for text, strong in parts))])
    words = "".join(text for text, _ in parts)
    assert readout.plain() == ([" ".join(words.split())] if words.strip() else [])
    shown = re.sub(r"</?b>|</?p>", "", readout.html())
    assert "<" not in shown.replace("&lt;", "")  # every < of the words is escaped


# ---- the explorer base ----------------------------------------------------------------------------------


def test_an_explorer_draws_on_every_change_and_once_per_button_press():
    explorer = SquareExplorer()
    assert explorer.shown["square"] == 4 and explorer.summary() == (
        "Squares\nx = 2, y = 0\nx² = 4\npressed 0 times <not markup>")
    updates = explorer.picture.updates
    explorer.controls["x"].value = 3
    assert explorer.shown["square"] == 9 and explorer.picture.updates == updates + 1
    explorer.controls["double"].click()  # two controls move: one redraw
    assert (explorer.shown["x"], explorer.value("y")) == (6, 6) and explorer.picture.updates == updates + 2
    explorer.controls["count"].click()  # a button that moves nothing still redraws
    assert explorer.shown["presses"] == 1 and explorer.picture.updates == updates + 3
    with explorer.batch():
        explorer.controls["x"].value = 1
        explorer.controls["y"].value = 1
        assert explorer.shown["x"] == 6  # drawn when the batch closes
    assert explorer.shown["x"] == 1 and explorer.picture.updates == updates + 4
    assert "&lt;not markup&gt;" in explorer.readout.value


def test_observe_names_the_controls_that_redraw():
    explorer = SquareExplorer(observe=["x"])
    explorer.controls["y"].value = 5
    assert "y = 0" in explorer.summary()
    explorer.controls["x"].value = 4
    assert "x = 4, y = 5" in explorer.summary()
    silent = SquareExplorer(observe=False)
    silent.controls["x"].value = 7
    assert silent.shown["x"] == 2


def test_a_control_set_while_computing_draws_nothing_more():
    class Mirror(SquareExplorer):
        def compute(self):
            self.controls["y"].value = self.value("x")  # a mirror slider, as the verify step's draws slider
            return super().compute()

    explorer = Mirror()
    updates = explorer.picture.updates
    explorer.controls["x"].value = 5
    assert explorer.value("y") == 5 and explorer.picture.updates == updates + 1


def test_on_change_replaces_the_redraw_of_one_control():
    explorer = SquareExplorer()
    seen = []
    explorer.on_change("y", lambda: seen.append(explorer.value("y")))
    updates = explorer.picture.updates
    explorer.controls["y"].value = 3
    assert seen == [3] and explorer.picture.updates == updates + 1


# ---- layout ---------------------------------------------------------------------------------------------


def test_children_are_title_rows_and_a_body_holding_picture_and_readout():
    explorer = SquareExplorer()
    title, *rows, body = explorer.children
    assert "Squares" in title.value and CSS["title"] in title._dom_classes
    assert len(rows) == 2 and all(CSS["controls"] in row._dom_classes for row in rows)
    assert body.children[:3] == (explorer.image, explorer.readout, explorer.key_readout)
    assert CSS["explorer"] in explorer._dom_classes and CSS["compact"] not in explorer._dom_classes
    assert all(row.layout.flex_flow == "row wrap" for row in rows) and body.layout.flex_flow == "row wrap"
    assert explorer.readout.layout.min_width == "16em"
    assert explorer.image.layout.min_width == "0" and CSS["picture"] in explorer.image._dom_classes
    assert explorer.layout.max_width == "100%" and body.layout.max_width == "100%"


def test_style_sheet_keeps_tracks_wide_and_the_picture_inside_the_output():
    sheet = style_sheet(SquareExplorer())
    assert f".specdec-explorer .slider-container {{ min-width: {MIN_TRACK_PX}px; }}" in sheet
    assert ".specdec-picture { max-width: 100%; height: auto;" in sheet
    assert ".specdec-explorer .widget-hslider, .specdec-explorer .jupyter-widget-hslider { min-width: min-content; }" in sheet
    assert ".specdec-label-above > .jupyter-widget-label { flex: 1 0 100%;" in sheet


#: Menus: the width of one character of a label or an option, in em (13 px text, about 7 px a character),
#: and the width a menu without a width of its own gets (ipywidgets' inline width, 300 px), in em.
MENU_EM_PER_CHAR, MENU_DEFAULT_EM = 0.55, 300 / 13


def label_above_rule(control) -> tuple[bool, bool]:
    """(must carry its label above, may carry it) for one control.

    A slider with a label longer than `LONG_LABEL_CHARS` must, and only it among sliders. A menu must when
    its label and its longest option, side by side, are wider than the menu (so the option would be cut),
    and may when its longest option is longer than `LONG_LABEL_CHARS` (a long option shows whole under
    its label, in the compact side column too). Nothing else carries the label above.
    """
    description = getattr(control, "description", "") or ""
    if "slider" in type(control).__name__.lower():
        long = len(description) > LONG_LABEL_CHARS
        return long, long
    if isinstance(control, widgets.Dropdown):
        longest = max((len(label) for label in control._options_labels), default=0)
        width = control.layout.width
        width_em = float(width[:-2]) if width and width.endswith("em") else MENU_DEFAULT_EM
        must = (len(description) + longest + 3) * MENU_EM_PER_CHAR > width_em
        return must, must or longest > LONG_LABEL_CHARS
    return False, False


@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_every_control_of_every_explorer_with_a_long_label_or_long_options_is_marked(name):
    for control in built(name).controls.values():
        must, may = label_above_rule(control)
        marked = CSS["label_above"] in control._dom_classes
        assert must <= marked <= may, (name, getattr(control, "description", ""), "marked" if marked else "unmarked")



@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_every_draft_length_and_vocabulary_a_slider_offers_is_one_the_math_accepts(name):
    sizes = {"gamma": DEFAULT_MAX_GAMMA, "vocab": MAX_VOCAB}  # the γ search range, so a chosen γ is one searched
    offered = {control_name: control.max for control_name, control in built(name).controls.items()
               if control_name in sizes}
    assert all(largest <= sizes[control_name] for control_name, largest in offered.items()), (name, offered)
    assert DEFAULT_MAX_GAMMA <= MAX_GAMMA

def test_the_label_above_rule_can_fail():
    long_options = widgets.Dropdown(options=["broken: draft sampled at T = 0.5, raw q in the ratio"],
                                    description="verify rule", layout=widgets.Layout(width="30em"))
    assert label_above_rule(long_options) == (True, True)        # unmarked: cut
    assert label_above_rule(widgets.Dropdown(options=["short"], description="rule")) == (False, False)
    assert label_above_rule(widgets.IntSlider(description="a label of more than twenty-four characters")) == (
        True, True)
    assert label_above_rule(widgets.Button(description="a button with a long description")) == (False, False)


# ---- the static view and accessibility ------------------------------------------------------------------


def test_mimebundle_carries_the_live_view_the_picture_and_the_readout_words():
    explorer = SquareExplorer()
    before = explorer._repr_mimebundle_()
    assert before["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.model_id
    assert base64.b64decode(before["image/png"]) == explorer.image.value
    assert before["text/plain"] == explorer.summary() and "Explorer(" not in before["text/plain"]
    explorer.controls["x"].value = 5
    after = explorer._repr_mimebundle_()
    assert base64.b64decode(after["image/png"]) == explorer.image.value != base64.b64decode(before["image/png"])
    assert "x² = 25" in after["text/plain"] and "x² = 25" not in before["text/plain"]


@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_every_picture_has_a_text_alternative_and_every_readout_a_live_region(name):
    explorer = built(name)
    readout = explorer.shown["readout"]
    assert isinstance(readout, Readout)
    keys = [" ".join(key.plain().split()) for key in readout.key_lines()]
    assert keys and explorer.image.tooltip == " ".join([f"{explorer.title}.", *keys])
    assert explorer.key_readout.value.startswith("<div role='status' aria-live='polite'>")
    assert explorer.key_readout in explorer.children[-1].children  # in the view, in both layouts
    assert explorer.summary().splitlines() == [explorer.title, *readout.plain()]


def test_in_the_ordinary_layout_the_live_key_lines_are_for_screen_readers_only():
    explorer = SquareExplorer()
    assert CSS["screen_reader_only"] in explorer.key_readout._dom_classes
    assert ".specdec-sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden;" in style_sheet(explorer)


#: Words of the developers, not of the lesson (see the project guide).
INTERNAL_WORDS = re.compile(r"\bSPEC\b|(?i:\bcontract|\bnbval)")


def words_on_screen(widget):
    """Every string a learner can read on `widget` and the widgets inside it."""
    texts = [value for attribute in ("description", "tooltip", "value", "placeholder")
             if isinstance(value := getattr(widget, attribute, None), str)]
    texts += [str(option[0] if isinstance(option, tuple) else option) for option in getattr(widget, "options", ()) or ()]
    for child in getattr(widget, "children", ()):
        texts += words_on_screen(child)
    return texts


def test_the_vocabulary_check_finds_an_internal_word():
    box = widgets.VBox([widgets.Dropdown(options=[("SPEC's example", 1)])])
    assert any(INTERNAL_WORDS.search(text) for text in words_on_screen(box))


@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_no_internal_word_on_any_explorer(name):
    explorer = built(name)
    texts = words_on_screen(explorer)
    for control in explorer.controls.values():  # controls not laid out in rows are read too
        texts += words_on_screen(control)
    assert texts and explorer.readout.value in texts
    assert [text for text in texts if INTERNAL_WORDS.search(text)] == []


# ---- the presentation switch ----------------------------------------------------------------------------


def test_presentation_makes_picture_text_and_readout_larger(presenting):
    assert compact() and figure_scale() == 1.5
    large = build("SpeedupExplorer")
    presentation(False)
    normal = build("SpeedupExplorer")
    # Fitted into COMPACT_FIGURE_INCHES (the speedup figure asks for all of it), drawn 1.5 times finer.
    assert png_size(large.image.value) == tuple(round(inches * DPI * 1.5) for inches in COMPACT_FIGURE_INCHES)
    assert png_size(normal.image.value) == (round(WIDEST_FIGURE_INCHES * DPI), round(4.8 * 0.875 * DPI))
    assert smallest_text_px(large.figure) == pytest.approx(1.5 * COMPACT_TEXT_SCALE * smallest_text_px(normal.figure))
    assert large.figure.get_figwidth() == pytest.approx(COMPACT_FIGURE_INCHES[0] / COMPACT_TEXT_SCALE)
    assert "specdec-readout-150" in large.readout._dom_classes
    assert ".specdec-readout-150 { font-size: 150%; }" in style_sheet(large)
    assert "specdec-readout-100" in normal.readout._dom_classes


def test_compact_rows_put_the_named_rows_above_the_key_lines(presenting):
    explorer = SquareExplorer(compact_rows=([["y"]], [["double", "count"], ["x"]]))
    side = explorer.children[1].children[1]
    controls = explorer.controls
    assert [row.children if row is not explorer.key_readout else "key" for row in side.children] == [
        (controls["y"],), "key", (controls["double"], controls["count"]), (controls["x"],)]
    assert CSS["screen_reader_only"] not in explorer.key_readout._dom_classes
    default = SquareExplorer()  # by default the rows with a button come first
    first, key, rest = default.children[1].children[1].children
    assert key is default.key_readout and default.controls["double"] in first.children
    assert default.controls["x"] in rest.children
    presentation(False)
    ordinary = SquareExplorer(compact_rows=([["y"]], []))
    mine = ordinary.controls
    assert [row.children for row in ordinary.children[1:-1]] == [(mine["x"], mine["y"]), (mine["double"], mine["count"])]


def test_after_presentation_off_explorers_are_ordinary_again():
    presentation(scale=2)
    presentation(on=False)
    explorer = SquareExplorer()
    assert not compact() and figure_scale() == 1.0
    assert not explorer.compact and explorer.figure.dpi == DPI


@pytest.mark.parametrize("arguments, error, words", [
    ({"scale": 0.5}, ValueError, "scale must be between 1 and 3"),
    ({"scale": 10}, ValueError, "scale must be between 1 and 3"),
    ({"scale": "1.5"}, TypeError, "scale must be a number"),
    ({"scale": True}, TypeError, "scale must be a number"),
    ({"on": "yes"}, TypeError, "on must be True or False"),
])
def test_presentation_refuses_bad_arguments_and_changes_nothing(arguments, error, words):
    with pytest.raises(error, match=words):
        presentation(**arguments)
    assert not compact() and figure_scale() == 1.0


#: The compact layout at 853×480 CSS px shows a picture in at most about this many CSS px (width, height).
COMPACT_PICTURE_CSS_PX = (400, 315)


@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_presentation_figures_fit_the_compact_box_with_text_near_the_ordinary_size(presenting, name):
    explorer = build(name)
    width, height = explorer.figure.get_size_inches() * COMPACT_TEXT_SCALE
    assert width <= COMPACT_FIGURE_INCHES[0] + 1e-9 and height <= COMPACT_FIGURE_INCHES[1] + 1e-9
    png_width, png_height = png_size(explorer.image.value)
    shown = min(1.0, COMPACT_PICTURE_CSS_PX[0] / png_width, COMPACT_PICTURE_CSS_PX[1] / png_height)
    # 8 CSS px at zoom 150% are 12 device px: the ordinary layout's smallest text at 1280×720.
    assert smallest_text_px(explorer.figure) * shown >= 8.0
    assert 1 <= len(explorer.shown["readout"].key_lines()) <= 4


# ---- legible text that never collides -------------------------------------------------------------------


def test_smallest_text_px_against_sizes_set_by_hand():
    with styled():
        figure = new_figure(4, 3)
        axes = figure.add_subplot()
        axes.set_title("title", fontsize=20)
        axes.set_xlabel("x label", fontsize=16)
        axes.text(0.5, 0.5, "small", fontsize=7.5)
        axes.text(0.5, 0.2, "hidden", fontsize=3, visible=False)
        axes.text(0.5, 0.1, "   ", fontsize=2)
        figure.canvas.draw()
    tick_pt = min(label.get_fontsize() for label in axes.get_xticklabels() + axes.get_yticklabels())
    assert smallest_text_px(figure) == pytest.approx(min(7.5, tick_pt) * 96 / 72)
    assert smallest_text_px(figure, headings=True) == pytest.approx(16 * 96 / 72)
    assert axes.title in heading_texts(figure) and axes.xaxis.label in heading_texts(figure)
    assert smallest_text_px(new_figure(2, 1)) == float("inf")


def test_fast_redraw_raises_small_text_before_the_first_draw():
    with styled():
        figure = new_figure(4, 3)
        axes = figure.add_subplot()
        axes.plot([0, 1], [0, 1], label="line")
        axes.legend(fontsize=6)
        axes.set_ylabel("y", fontsize=8)
        FastRedraw(figure).png()
    assert smallest_text_px(figure) == pytest.approx(MIN_TEXT_PX)
    assert smallest_text_px(figure, headings=True) == pytest.approx(MIN_HEADING_PX)
    big = new_figure(3, 2).text(0, 0, "big", fontsize=20)
    enlarge_small_text(big.get_figure())
    assert big.get_fontsize() == 20


def test_wide_figures_are_scaled_down_to_the_widest_size():
    width, height = new_figure(12, 6).get_size_inches()
    assert (width, height) == (WIDEST_FIGURE_INCHES, WIDEST_FIGURE_INCHES / 2)
    assert new_figure(8, 6).get_size_inches().tolist() == [8, 6]
    assert WIDEST_FIGURE_INCHES * DPI <= OUTPUT_WIDTH_PX


@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_every_explorer_reads_at_12_px_and_headings_at_14_px_at_1280_by_720_with_the_sidebar_open(name):
    explorer = built(name)
    png_width, _ = png_size(explorer.image.value)
    displayed = min(png_width, OUTPUT_WIDTH_PX)  # the picture shows at its natural size, or the output's width
    assert smallest_text_px(explorer.figure) * displayed / png_width >= 12
    assert smallest_text_px(explorer.figure, headings=True) * displayed / png_width >= 14


def test_the_collision_check_finds_overlapping_and_cut_off_text():
    with styled():
        figure = new_figure(3.5, 2.5)
        axes = figure.add_subplot()
        axes.set_title("a long title on the left", loc="left")
        axes.set_title("and one on the right", loc="right")
        axes.text(2.9, 0.5, "past the edge", transform=axes.transData)
        axes.set_xlim(0, 1)
        figure.set_layout_engine(None)  # titles too wide for the figure: no layout to compute
        figure.canvas.draw()
    problems = text_collisions(figure)
    assert "'a long title on the left' overlaps 'and one on the right'" in problems
    assert "'past the edge' runs off the figure" in problems
    with styled():
        tidy = new_figure(3, 2)
        tidy.add_subplot(title="short", xlabel="x", ylabel="y")
        tidy.canvas.draw()
    assert text_collisions(tidy) == []


#: Texts side by side (or one over the other) closer than this, in PNG px, read as one: "1.72×1.68×", 1 px apart.
TEXT_GAP_PX = 3.0


def spaced_text_problems(figure, gap: float = TEXT_GAP_PX) -> list[str]:
    """`text_collisions`, and texts that share a line (or a column) and come closer than `gap` PNG px.

    Two texts share a line when their heights overlap by more than half the smaller one (a column: their
    widths); then their boxes must be `gap` apart across it. Texts only diagonally near (the 0 of the x
    axis under the 0 of the y axis) pass.
    """
    problems = text_collisions(figure)
    renderer = figure.canvas.get_renderer()
    boxes = [(text, text.get_window_extent(renderer)) for text in drawn_texts(figure)]
    for index, (text, box) in enumerate(boxes):
        for other, other_box in boxes[index + 1:]:
            across = min(box.x1, other_box.x1) - max(box.x0, other_box.x0)
            up = min(box.y1, other_box.y1) - max(box.y0, other_box.y0)
            share_up = max(gap, 0.5 * min(box.height, other_box.height))  # on one line: heights overlap this much
            share_across = max(gap, 0.5 * min(box.width, other_box.width))
            close = (up > share_up and -gap < across) or (across > share_across and -gap < up)
            message = f"{text.get_text()!r} overlaps {other.get_text()!r}"
            if close and message not in problems:
                problems.append(message)
    return problems


def test_the_collision_check_finds_text_too_close_to_read_apart():
    with styled():
        figure = new_figure(3, 2)
        axes = figure.add_subplot(xlim=(0, 1))
        first = axes.text(0.2, 0.5, "1.72×")
        figure.canvas.draw()
        box = first.get_window_extent(figure.canvas.get_renderer())
        right = axes.transData.inverted().transform((box.x1 + 1.0, box.y0))[0]  # 1 px to its right
        axes.text(right, 0.5, "1.68×")
        figure.canvas.draw()
    assert text_collisions(figure) == []  # the 1 px margin alone misses it
    assert spaced_text_problems(figure) == ["'1.72×' overlaps '1.68×'"]


def _collisions_at(explorer, settings) -> list[str]:
    with explorer.batch():
        for name, value in settings:
            explorer.controls[name].value = value
    return spaced_text_problems(explorer.figure)


def _states(explorer) -> dict:
    """The settings to check: the defaults, every slider at its minimum, every slider at its maximum."""
    extremes = extreme_settings(explorer)
    return {"defaults": [], "minimum": extremes[0::2], "maximum": extremes[1::2]}


@pytest.mark.parametrize("compact_layout", [False, True], ids=["ordinary", "presentation"])
@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_no_figure_text_overlaps_or_runs_off_at_the_defaults_and_the_extremes(name, compact_layout):
    presentation(compact_layout)
    try:
        explorer = build(name)
        failures = {state: problems for state, settings in _states(explorer).items()
                    if (problems := _collisions_at(explorer, settings))}
    finally:
        presentation(False)
    assert failures == {}


# ---- fast redraws ---------------------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from([3, 4]))
def test_png_from_rgba_round_trips(height, width, seed):
    values = np.random.default_rng(seed).integers(0, 256, size=(height, width, 4), dtype=np.uint8)
    np.testing.assert_array_equal(pixels(png_from_rgba(values)), values)


@pytest.fixture
def line_figure():
    with styled():
        figure = new_figure(4, 3)
        axes = figure.add_subplot()
        (curve,) = axes.plot([0, 1, 2], [0, 1, 0], label="data")
        title = axes.set_title("start", loc="right", y=1.0)
        axes.set_xlabel("x")
        axes.set_ylabel("y")
        axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))  # clear of the changing line
    return figure, axes, curve, title


def test_changing_artists_are_redrawn_and_the_rest_kept(line_figure):
    figure, axes, curve, title = line_figure
    fast = FastRedraw(figure, changing=[curve, title], occasional=[axes.xaxis, axes.yaxis])
    first = fast.png()
    assert_looks_like_a_full_draw(first, figure)
    assert figure.get_layout_engine() is None  # frozen after the first render
    curve.set_ydata([1, 0, 1])
    title.set_text("changed")
    second = fast.png()
    assert second != first
    assert_looks_like_a_full_draw(second, figure)


def test_occasional_artists_follow_invalidate(line_figure):
    figure, axes, curve, _title = line_figure
    fast = FastRedraw(figure, changing=[curve], occasional=[axes.yaxis])
    fast.png()
    axes.set_ylim(-5, 5)
    curve.set_ydata([-4, 4, -4])
    fast.invalidate()
    assert_looks_like_a_full_draw(fast.png(), figure)


def test_savefig_still_draws_every_artist(line_figure):
    figure, _axes, curve, title = line_figure
    FastRedraw(figure, changing=[curve, title]).png()
    curve.set_visible(False)
    without = pixels(png_bytes(figure))
    curve.set_visible(True)
    assert not np.array_equal(pixels(png_bytes(figure)), without)


# ---- discovery ------------------------------------------------------------------------------------------


def test_explorers_are_every_public_explorer_class_of_the_package_modules():
    expected = {}
    for module_info in pkgutil.iter_modules(specdec.explore.__path__):
        module = importlib.import_module(f"specdec.explore.{module_info.name}")
        expected.update({name: value for name, value in inspect.getmembers(module, inspect.isclass)
                         if issubclass(value, Explorer) and value is not Explorer and value.__module__ == module.__name__
                         and not name.startswith("_")})
    assert specdec.explore.EXPLORERS == expected and len(expected) >= 3
    assert all(getattr(specdec.explore, name) is value for name, value in expected.items())
    assert all(name.endswith("Explorer") and value.title != Explorer.title for name, value in expected.items())
    with pytest.raises(AttributeError, match="no attribute 'NoSuchExplorer'"):
        specdec.explore.NoSuchExplorer  # noqa: B018


# ---- the guide ------------------------------------------------------------------------------------------

GUIDE = Path(specdec.explore.__file__).with_name("README.md")


def test_the_guide_s_python_blocks_run_in_order():
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), namespace)  # noqa: S102 - the guide's own examples
    assert issubclass(namespace["TokensExplorer"], Explorer) and "TokensExplorer" not in specdec.explore.EXPLORERS
    entries = list(legend_entries(namespace["TokensFigure"]().figure))  # the guide's figure keeps the legend rule
    assert entries
    for handle, label in entries:
        check_entry(handle, label)


def test_explorer_titles_are_unique():
    titles = [explorer.title for explorer in specdec.explore.EXPLORERS.values()]
    assert len(titles) == len(set(titles)), sorted(title for title in titles if titles.count(title) > 1)


def test_the_guide_names_every_explorer_and_the_current_goals():
    text = GUIDE.read_text(encoding="utf-8")
    assert [name for name in EXPLORER_NAMES if f"`{name}`" not in text] == []
    for goal in ("median ≤ 50 ms", "95th percentile\n  ≤ 100 ms", "worst ≤ 250 ms"):
        assert goal in text


def test_the_guide_s_table_lists_the_explorers_each_notebook_builds():
    listed: dict[str, set] = {}
    for number, cell in re.findall(r"^\| (\d\d) \| (.*) \|$", GUIDE.read_text(encoding="utf-8"), flags=re.M):
        listed.setdefault(number, set()).update(re.findall(r"`(\w+Explorer)`", cell))
    built = {}
    for path in sorted(Path(specdec.explore.__file__).parents[2].joinpath("notebooks").glob("[0-9][0-9]_*.ipynb")):
        code = "\n".join("".join(cell["source"]) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
                         if cell["cell_type"] == "code")
        if names := set(re.findall(r"\b(\w+Explorer)\(", code)) & set(EXPLORER_NAMES):
            built[path.name[:2]] = names
    assert listed == built


def test_every_explorer_has_its_browser_moves_whichever_test_module_is_imported_first():
    probe = ("import tests.test_explore_load\n"  # it imports the moves' module, which gathers every test module's check
             "from tests.browser.explorer_moves import EXPLORERS\n"
             "print(sorted(check.picture for check in EXPLORERS.values()))")
    root = Path(specdec.explore.__file__).parents[2]
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=root, check=True)
    assert result.stdout.strip() == str(sorted(EXPLORER_NAMES))
