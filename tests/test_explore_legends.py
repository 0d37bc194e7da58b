"""Every figure draws each role (target p, draft q, accepted, …) with the palette's colour, hatch and label.

The figures are those of every explorer `specdec.explore` discovers, at their opening state: a new
explorer is checked without being listed here.
"""

import pytest
from matplotlib.collections import PathCollection
from matplotlib.colors import to_rgb
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from specdec import palette

from .explorer_driving import build, explorer_names, extreme_settings

EXPLORER_NAMES = explorer_names()

_FIGURES = {}


def figure_of(name):
    """The figure of explorer `name` at its opening state (built once per test module)."""
    if name not in _FIGURES:
        _FIGURES[name] = build(name).figure
    return _FIGURES[name]


ROLES = palette.ROLES.values()


def legend_entries(figure):
    """The entries of every legend: each axes' own, and the figure's (under several panels)."""
    legends = [axes.get_legend() for axes in figure.axes] + list(figure.legends)
    for legend in legends:
        if legend is not None:
            yield from zip(legend.legend_handles, (text.get_text() for text in legend.get_texts()))


def rgb(colour):
    return None if colour is None or (len(colour) == 4 and colour[3] == 0 and not isinstance(colour, str)) \
        else tuple(round(value, 4) for value in to_rgb(colour))


def roles_of_colour(colour):
    return [role for role in ROLES if colour is not None and rgb(role.colour) == colour]


def role_named_by(label):
    named = [role for role in ROLES if label.startswith(role.label)]
    return max(named, key=lambda role: len(role.label)) if named else None


def check_entry(handle, label):
    """The entry's role, found by its colour, and the role its label names agree; a fill has the role's hatch."""
    if isinstance(handle, Patch):
        face = rgb(handle.get_facecolor()) if handle.get_fill() else None
        filled = face is not None and face != rgb("white")
        colour = face if filled else rgb(handle.get_edgecolor())
        hatch = handle.get_hatch() or ""
    elif isinstance(handle, PathCollection):  # a scatter's markers
        filled, hatch = False, ""
        colour = rgb(handle.get_facecolor()[0])
    else:
        assert isinstance(handle, Line2D), type(handle)
        filled, hatch = False, ""
        marker_face = rgb(handle.get_markerfacecolor()) if handle.get_marker() not in (None, "None", "") else None
        colour = marker_face if roles_of_colour(marker_face) else rgb(handle.get_color())
    by_colour = roles_of_colour(colour)
    named = role_named_by(label)
    if named is not None:
        assert rgb(named.colour) == colour, f"{label!r} is not drawn in {named.label}'s colour"
    if not by_colour:
        return None
    if filled:
        matching = [role for role in by_colour if role.hatch == hatch]
        assert matching, f"{label!r}: colour of {[role.label for role in by_colour]} with hatch {hatch!r}"
    else:
        matching = [role for role in by_colour if not hatch or role.hatch == hatch]
        assert matching, f"{label!r}: outline of {[role.label for role in by_colour]} with hatch {hatch!r}"
    assert named in matching, f"{label!r} should begin with one of {[role.label for role in matching]}"
    return named


def test_each_role_has_its_own_hatch_and_label():
    assert len({role.hatch for role in ROLES}) == len({role.label for role in ROLES}) == len(palette.ROLES)
    assert {palette.ROLES[name].colour for name in ("target", "draft", "accepted", "resampled", "bonus")} == {
        palette.TARGET, palette.DRAFT, palette.ACCEPTED, palette.RESAMPLED, palette.BONUS}


@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_every_legend_entry_takes_colour_hatch_and_label_from_the_palette(name):
    entries = list(legend_entries(figure_of(name)))
    assert entries, f"{name} has no legend"
    for handle, label in entries:
        check_entry(handle, label)


@pytest.mark.parametrize("name, roles", [
    ("OneTokenExplorer", {"target p", "draft q", "accepted", "resampled"}),
    ("VerifyStepExplorer", {"target p", "draft q", "accepted", "resampled", "bonus", "accept zone", "reject zone"}),
    ("SpeedupExplorer", {"resampled", "bonus"}),
])
def test_the_roles_some_legends_show(name, roles):
    found = {check_entry(handle, label) for handle, label in legend_entries(figure_of(name))}
    assert {role.label for role in found if role is not None} == roles


def test_a_check_that_can_fail():
    wrong_hatch = Patch(facecolor=palette.RESAMPLED, hatch="//", label="resampled")
    with pytest.raises(AssertionError):
        check_entry(wrong_hatch, "resampled")
    wrong_label = Patch(facecolor=palette.DRAFT, hatch=palette.ROLES["draft"].hatch, label="proposal")
    with pytest.raises(AssertionError):
        check_entry(wrong_label, "proposal")
    wrong_colour = Patch(facecolor=palette.TARGET, label="accepted")
    with pytest.raises(AssertionError):
        check_entry(wrong_colour, "accepted")


def test_the_verify_step_output_boxes_wear_their_roles():
    explorer = build("VerifyStepExplorer", rows="example A B", draws=3)
    picture, trace = explorer.picture, explorer.trace
    for box, origin in zip(picture.output_boxes, trace.origins):
        role = palette.ROLES[origin]
        assert rgb(box.get_facecolor()) == rgb(role.colour) and box.get_hatch() == role.hatch


def data_under_legends(figure, samples: int = 40) -> list[str]:
    """The legends inside an axes that cover that axes' data: a point of a line (sampled along each segment, so
    a straight line of two points counts along its length), a scatter's point, or a bar with some height.

    A legend outside the axes, or one over a line that only marks a level across the whole axes (γ + 1), passes;
    a legend partly inside its panel and partly past its edge is a problem too.
    """
    from matplotlib.patches import Rectangle
    import numpy as np

    renderer = figure.canvas.get_renderer()
    figure.draw_without_rendering()  # places every legend (loc="best" too) without drawing a pixel
    problems = []
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box, frame = legend.get_window_extent(renderer), axes.get_window_extent(renderer)
        covered = []
        for artist in axes.get_children():
            if not artist.get_visible():
                continue
            points = np.zeros((0, 2))
            if isinstance(artist, Line2D):
                xy = artist.get_xydata()
                xy = xy[np.all(np.isfinite(xy), axis=1)]
                spanning = artist.get_transform() != axes.transData  # axhline, axvline: a level, not data
                if len(xy) and not spanning:
                    display = artist.get_transform().transform(xy)
                    steps = np.linspace(0, 1, samples)[:, None, None]
                    points = (display[:-1] + steps * (display[1:] - display[:-1])).reshape(-1, 2) \
                        if len(display) > 1 else display
            elif isinstance(artist, PathCollection):
                points = artist.get_offset_transform().transform(artist.get_offsets())
            elif isinstance(artist, Rectangle) and artist is not axes.patch \
                    and artist.get_height() > 0 and artist.get_width() > 0:
                corners = artist.get_window_extent(renderer)
                if min(corners.x1, box.x1) - max(corners.x0, box.x0) > 1 and \
                        min(corners.y1, box.y1) - max(corners.y0, box.y0) > 1:
                    covered.append(artist.get_label() or type(artist).__name__)
                continue
            inside_axes = (points[:, 0] >= frame.x0) & (points[:, 0] <= frame.x1) & \
                (points[:, 1] >= frame.y0) & (points[:, 1] <= frame.y1) if len(points) else np.zeros(0, bool)
            under = points[inside_axes]
            if len(under) and np.any((under[:, 0] > box.x0) & (under[:, 0] < box.x1) &
                                     (under[:, 1] > box.y0) & (under[:, 1] < box.y1)):
                covered.append(artist.get_label())
        if covered:
            problems.append(f"{axes.get_title()!r}: the legend covers {sorted(set(covered))}")
        overlap_x = min(box.x1, frame.x1) - max(box.x0, frame.x0)
        overlap_y = min(box.y1, frame.y1) - max(box.y0, frame.y0)
        inside = overlap_x > 0 and overlap_y > 0  # a legend in the panel (not one beside or under it)
        past = box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1 or box.y1 > frame.y1 + 1
        if inside and past:
            problems.append(f"{axes.get_title()!r}: the legend reaches past the panel's edge")
    return problems


@pytest.mark.parametrize("compact_layout", [False, True], ids=["ordinary", "presentation"])
@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_no_legend_covers_the_data_of_its_panel(name, compact_layout):
    from specdec.explore import presentation

    presentation(compact_layout)
    try:
        figure = build(name).figure
    finally:
        presentation(False)
    assert data_under_legends(figure) == []


def test_the_legend_check_finds_a_legend_on_the_data_and_one_past_the_panel():
    from specdec.explore.frame import new_figure, styled

    with styled():
        figure = new_figure(4, 3)
        axes = figure.add_subplot(title="on the data", xlim=(0, 1), ylim=(0, 1))
        axes.plot([0, 1], [0.9, 0.9], label="level")  # two points, out of the legend: covered between them
        axes.legend(loc="upper right")
        figure.canvas.draw()
    assert data_under_legends(figure) == ["'on the data': the legend covers ['level']"]
    axes.get_legend().remove()
    axes.legend(loc="lower left", bbox_to_anchor=(0.8, 0.0))
    assert data_under_legends(figure) == ["'on the data': the legend reaches past the panel's edge"]
    axes.get_legend().remove()
    axes.legend(loc="lower left")
    assert data_under_legends(figure) == []


@pytest.mark.parametrize("compact_layout", [False, True], ids=["ordinary", "presentation"])
@pytest.mark.parametrize("name", EXPLORER_NAMES)
def test_no_legend_covers_the_data_with_any_slider_at_either_end(name, compact_layout):
    from specdec.explore import presentation

    presentation(compact_layout)
    try:
        explorer, problems = build(name), {}
        ends = extreme_settings(explorer)  # (slider, minimum), (slider, maximum), … : one slider at a time
        for (control, low), (_, high) in zip(ends[0::2], ends[1::2]):
            before = explorer.controls[control].value
            for value in (low, high):
                explorer.controls[control].value = value
                if found := data_under_legends(explorer.figure):
                    problems[f"{control} = {value}"] = found
            explorer.controls[control].value = before  # the others stay where they were
    finally:
        presentation(False)
    assert problems == {}
