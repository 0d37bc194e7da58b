"""The frame every explorer shares: layout that wraps, a static view, the presentation switch, legible text."""

import base64
import io

import ipywidgets as widgets
import pytest
from PIL import Image

import specdec.widgets
from specdec.plots import new_figure, styled
from specdec.plots.canvas import (COMPACT_FIGURE_INCHES, DPI, MIN_HEADING_PX, MIN_TEXT_PX, WIDEST_FIGURE_INCHES,
                                  enlarge_small_text, figure_scale, heading_texts, smallest_text_px)
from specdec.plots.fast_redraw import FastRedraw
from specdec.widgets import presentation, speedup_explorer, verify_step_explorer
from specdec.widgets.explorer import (CSS, LONG_LABEL_CHARS, MIN_TRACK_PX, Explorer, key_lines, plain_lines,
                                      presentation_scale)

#: The width a picture gets in JupyterLab 4 at 1280×720 with the file browser open (CSS px, measured in
#: Chromium: the output area is 848 px wide; the brief's estimate was ~950).
OUTPUT_WIDTH_PX = 844

EXPLORER_NAMES = sorted(name for name in specdec.widgets.__all__ if name.endswith("_explorer"))

_BUILT = {}


def built(name):
    """Each explorer of the series, built once for the whole module (the text explorer takes seconds)."""
    if name not in _BUILT:
        _BUILT[name] = getattr(specdec.widgets, name)()
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


# ---- layout -----------------------------------------------------------------------------------


def test_children_are_title_rows_and_a_body_holding_picture_and_readout():
    explorer = speedup_explorer()
    title, *rows, body = explorer.children
    assert "Tokens per step and speedup" in title.value and CSS["title"] in title._dom_classes
    assert rows and all(CSS["controls"] in row._dom_classes for row in rows)
    assert body.children[:2] == (explorer.image, explorer.readout)
    assert CSS["explorer"] in explorer._dom_classes and CSS["compact"] not in explorer._dom_classes


def test_controls_wrap_and_the_readout_moves_below_the_picture_when_narrow():
    explorer = verify_step_explorer()
    _title, *rows, body = explorer.children
    assert all(row.layout.flex_flow == "row wrap" for row in rows)
    assert body.layout.flex_flow == "row wrap"  # the readout wraps below the picture
    assert explorer.readout.layout.min_width == "16em"
    assert explorer.image.layout.min_width == "0" and CSS["picture"] in explorer.image._dom_classes
    assert explorer.layout.max_width == "100%" and body.layout.max_width == "100%"


def test_style_sheet_keeps_tracks_wide_and_the_picture_inside_the_output():
    sheet = style_sheet(speedup_explorer())
    assert f".specdec-explorer .slider-container {{ min-width: {MIN_TRACK_PX}px; }}" in sheet
    assert MIN_TRACK_PX >= 80
    assert ".specdec-picture { max-width: 100%; height: auto;" in sheet
    # a slider is never narrower than label + track + readout
    assert ".specdec-explorer .widget-hslider, .specdec-explorer .jupyter-widget-hslider { min-width: min-content; }" in sheet
    assert ".specdec-label-above > .jupyter-widget-label { flex: 1 0 100%;" in sheet


def test_only_sliders_with_long_labels_carry_their_label_above():
    explorer = speedup_explorer()
    long_label, short_label = explorer.controls["c"], explorer.controls["alpha"]
    assert len(long_label.description) > LONG_LABEL_CHARS >= len(short_label.description)
    assert CSS["label_above"] in long_label._dom_classes
    assert CSS["label_above"] not in short_label._dom_classes
    assert long_label.description == "cost ratio c (target time / draft time)"  # the words stay the control's


@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_every_slider_of_every_explorer_with_a_long_label_is_marked(name):
    for control in built(name).controls.values():
        description = getattr(control, "description", "") or ""
        is_slider = "slider" in type(control).__name__.lower()
        marked = CSS["label_above"] in control._dom_classes
        assert marked == (is_slider and len(description) > LONG_LABEL_CHARS), (name, description)


# ---- the static view --------------------------------------------------------------------------


def test_mimebundle_carries_the_live_view_the_picture_and_the_readout_words():
    explorer = speedup_explorer(alpha=0.8, gamma=4, c=20)
    bundle = explorer._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.model_id
    assert base64.b64decode(bundle["image/png"]) == explorer.image.value
    text = bundle["text/plain"]
    assert text.splitlines()[0] == "Tokens per step and speedup"
    assert "Speedup = E[N] / (1 + γ/c) = 2.80× (faster than plain decoding)" in text.splitlines()
    assert "Explorer(" not in text and "<" not in text


def test_mimebundle_follows_the_controls():
    explorer = speedup_explorer(alpha=0.8, gamma=4, c=20)
    before = explorer._repr_mimebundle_()
    explorer.controls["alpha"].value = 0.5
    after = explorer._repr_mimebundle_()
    assert base64.b64decode(after["image/png"]) == explorer.image.value != base64.b64decode(before["image/png"])
    assert "α = 0.50" in after["text/plain"] and "α = 0.50" not in before["text/plain"]


def test_plain_lines_split_at_breaks_and_drop_markup():
    readout = "<p><b>Draw 2</b> <span style='color:#7F7F7F'>(γ = 4)</span></p><ol><li>x<sub>1</sub></li><li>y &lt; 1</li></ol>"
    assert plain_lines(readout) == ["Draw 2 (γ = 4)", "x_1", "y < 1"]
    assert plain_lines("<style>.a { b: c }</style>text") == ["text"]


def test_key_lines_take_the_bold_lines_or_the_first():
    readout = "<p>α = 0.8</p><p>E[N] = <b>3.4</b><br>cost 1.2<br>Speedup <b>2.8×</b></p><ol><li><b>x</b></li></ol>"
    assert key_lines(readout) == "<div>E[N] = <b>3.4</b></div><div>Speedup <b>2.8×</b></div>"
    assert key_lines(readout, limit=1) == "<div>E[N] = <b>3.4</b></div>"
    assert key_lines("<p>only words</p><p>more</p>") == "<div>only words</div>"


# ---- the presentation switch ------------------------------------------------------------------


def test_presentation_makes_picture_text_and_readout_larger(presenting):
    assert presentation_scale() == 1.5 and figure_scale() == 1.5
    large = speedup_explorer()
    presentation(False)
    normal = speedup_explorer()
    # The compact figure: fitted into COMPACT_FIGURE_INCHES (the speedup figure asks for all of it), drawn
    # 1.5 times finer, so the same text is 1.5 times more PNG pixels on a picture shown about 400 px wide.
    assert png_size(large.image.value) == tuple(round(inches * DPI * 1.5) for inches in COMPACT_FIGURE_INCHES)
    assert png_size(normal.image.value) == (round(WIDEST_FIGURE_INCHES * DPI), round(4.8 * 0.875 * DPI))
    assert smallest_text_px(large.figure) == pytest.approx(1.5 * smallest_text_px(normal.figure))
    assert "specdec-readout-150" in large.readout._dom_classes
    assert ".specdec-readout-150 { font-size: 150%; }" in style_sheet(large)
    assert "specdec-readout-100" in normal.readout._dom_classes


class _Picture:
    """The least a picture needs: a figure and PNG bytes."""

    def __init__(self):
        self.figure = new_figure(2, 1)

    def png(self):
        return b"png"


#: The compact layout at 853×480 CSS px shows a picture in at most about this many CSS px (width, height):
#: the output area less the side column, and the window less JupyterLab's bars (measured in Chromium).
COMPACT_PICTURE_CSS_PX = (400, 315)


@pytest.mark.parametrize("name", sorted(name for name in specdec.widgets.__all__ if name.endswith("_explorer")))
def test_presentation_figures_fit_the_compact_box_with_text_near_the_ordinary_size(presenting, name):
    explorer = getattr(specdec.widgets, name)()
    width, height = explorer.figure.get_size_inches()
    assert width <= COMPACT_FIGURE_INCHES[0] + 1e-9 and height <= COMPACT_FIGURE_INCHES[1] + 1e-9
    png_width, png_height = png_size(explorer.image.value)
    shown = min(1.0, COMPACT_PICTURE_CSS_PX[0] / png_width, COMPACT_PICTURE_CSS_PX[1] / png_height)
    # 8 CSS px at zoom 150% are 12 device px: the ordinary layout's smallest text at 1280×720.
    assert smallest_text_px(explorer.figure) * shown >= 8.0
    assert "<b>" in explorer.key_readout.value and len(plain_lines(explorer.key_readout.value)) <= 4


def test_compact_rows_put_the_named_rows_above_the_key_lines(presenting):
    controls = {"a": widgets.IntSlider(description="a"), "b": widgets.IntSlider(description="b"),
                "go": widgets.Button(description="go")}
    explorer = Explorer("t", controls, [[controls["go"]], [controls["a"]], [controls["b"]]], _Picture(),
                        lambda: {"readout": "<p>x <b>1</b></p>"},
                        compact_rows=([[controls["b"]]], [[controls["go"]], [controls["a"]]]))
    side = explorer.children[1].children[1]
    assert [row.children if row is not explorer.key_readout else "key" for row in side.children] == [
        (controls["b"],), "key", (controls["go"],), (controls["a"],)]
    presentation(False)
    ordinary = Explorer("t", controls, [[controls["go"]], [controls["a"]]], _Picture(),
                        lambda: {"readout": "<p>x</p>"}, compact_rows=([[controls["b"]]], []))
    assert [row.children for row in ordinary.children[1:-1]] == [(controls["go"],), (controls["a"],)]


def test_presentation_lays_controls_and_key_lines_beside_the_picture(presenting):
    explorer = verify_step_explorer()
    title, body = explorer.children
    assert explorer.compact and CSS["compact"] in explorer._dom_classes
    picture, side, readout, _style = body.children
    assert (picture, readout) == (explorer.image, explorer.readout)
    assert CSS["side"] in side._dom_classes
    first_row, key, *other_rows = side.children  # the buttons, the key lines, then the settings
    assert key is explorer.key_readout
    assert explorer.controls["step"] in first_row.children and explorer.controls["back"] in first_row.children
    settings = [control for row in other_rows for control in row.children]
    assert explorer.controls["gamma"] in settings and explorer.controls["seed"] in settings
    assert "max-height: calc(100vh - " in style_sheet(explorer)
    assert ".specdec-explorer .specdec-side .widget-hslider { flex-wrap: wrap;" in style_sheet(explorer)
    assert "<b>Draw 0</b>" in explorer.key_readout.value
    explorer.controls["step"].click()
    key = plain_lines(explorer.key_readout.value)
    assert key[0] == "Draw 1" and key[1] == f"Latest: {explorer.shown['log'][0]}"
    assert key[2].startswith("Output so far:")


def test_key_readout_marked_by_redraw_is_used(presenting):
    class Picture:
        figure = new_figure(2, 1)

        def png(self):
            return b"png"

    shown = {"readout": "<p>all the words</p><p>x = <b>1</b></p>", "key_readout": "<b>the key line</b>"}
    explorer = Explorer("t", {}, [], Picture(), lambda: dict(shown))
    assert explorer.key_readout.value == "<b>the key line</b>"
    assert explorer.summary() == "t\nall the words\nx = 1"


def test_after_presentation_off_explorers_are_ordinary_again():
    presentation(scale=2)
    presentation(on=False)
    explorer = speedup_explorer()
    assert presentation_scale() is None and figure_scale() == 1.0
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
    assert presentation_scale() is None and figure_scale() == 1.0


# ---- legible text -----------------------------------------------------------------------------


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


def test_smallest_text_px_of_a_figure_without_text_is_infinite():
    assert smallest_text_px(new_figure(2, 1)) == float("inf")


def test_fast_redraw_raises_small_text_before_the_first_draw():
    with styled():
        figure = new_figure(4, 3)
        axes = figure.add_subplot()
        axes.plot([0, 1], [0, 1], label="line")
        axes.legend(fontsize=6)
        axes.set_ylabel("y", fontsize=8)
        fast = FastRedraw(figure)
        fast.png()
    assert smallest_text_px(figure) == pytest.approx(MIN_TEXT_PX)
    assert smallest_text_px(figure, headings=True) == pytest.approx(MIN_HEADING_PX)


def test_enlarge_small_text_leaves_large_text_alone():
    figure = new_figure(3, 2)
    big = figure.text(0, 0, "big", fontsize=20)
    enlarge_small_text(figure)
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
