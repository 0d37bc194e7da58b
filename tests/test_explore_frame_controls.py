"""The frame's control constructors (`slider`, `labelled`) and the kept pixels of `FastRedraw.invalidate(key)`."""

import ipywidgets as widgets

from specdec.explore.frame import LABEL_STYLE, FastRedraw, labelled, new_figure, slider, styled


def test_slider_without_a_step_is_an_int_slider_over_its_limits_with_the_label_in_full():
    control = slider("draft length γ", 4, (1, 8))
    assert type(control) is widgets.IntSlider
    assert (control.value, control.min, control.max, control.description) == (4, 1, 8, "draft length γ")
    assert control.style.description_width == LABEL_STYLE["description_width"]


def test_slider_with_a_step_is_a_float_slider_and_passes_other_traits_on():
    control = slider("acceptance rate α", 0.8, (0.0, 1.0), 0.05, readout_format=".1f", continuous_update=False)
    assert type(control) is widgets.FloatSlider
    assert (control.value, control.min, control.max, control.step) == (0.8, 0.0, 1.0, 0.05)
    assert control.readout_format == ".1f" and control.continuous_update is False


def test_labelled_builds_the_given_kind_with_the_label_in_full():
    menu = labelled(widgets.Dropdown, "context", options=[("short", 1), ("long", 2)], value=2)
    assert type(menu) is widgets.Dropdown and menu.value == 2 and menu.description == "context"
    assert menu.style.description_width == LABEL_STYLE["description_width"]


def _drawn(fast, axes, top, key):
    axes.set_ylim(0, top)
    fast.invalidate(key)
    with styled():
        return fast.png()


def test_a_state_seen_before_gets_the_pixels_drawn_for_it_and_a_new_state_is_drawn():
    with styled():
        axes = new_figure(3, 2).add_subplot(xlabel="x", ylabel="y")
        (curve,) = axes.plot([0, 1], [0, 1])
    fast = FastRedraw(axes.figure, changing=[curve], occasional=[axes.yaxis])
    first = _drawn(fast, axes, 1, key=1)
    second = _drawn(fast, axes, 5, key=5)
    assert first != second  # other ticks drawn for the new limits
    assert _drawn(fast, axes, 1, key=1) == first
    assert set(fast._kept) == {1, 5}
