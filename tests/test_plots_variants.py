"""The figures of notebook 08 draw every role with the palette's colour, hatch and label.

They are checked with the same function as the other figures (`tests/test_plots_legends.py`).
"""

import pytest

from specdec.plots.variants import CandidatesFigure, LossyFigure, ScheduleFigure
from tests.test_plots_legends import check_entry, legend_entries


def candidates():
    picture = CandidatesFigure(["A", "B"], max_k=3)
    picture.update([0.4, 0.1], [0.1, 0.4], [0.5, 0.5], [0.8, 0.2], [0.52, 0.48], 2, [0.5, 0.7, 0.8],
                   [0.5, 0.75, 0.9], "exact rule")
    return picture


def lossy():
    picture = LossyFigure(["A", "B"], curve_points=3)
    picture.update([0.5, 0.2], [0.2, 0.1], [0.6, 0.4], [0.7, 0.3], "typical", ([0.7, 0.8, 0.9], [0, 0.05, 0.1]),
                   ([0.6, 0.8, 1.0], [0.1, 0.05, 0.0]), (0.7, 0.0), (0.7, 0.4), (0.7, 0.1))
    return picture


def schedules():
    picture = ScheduleFigure(["γ = 1", "heuristic"], steps=3, max_gamma=4)
    picture.update([3, 2, 1], [3, 0, 1], [1.4, 1.5], [1.45], 1, "heuristic")
    return picture


@pytest.mark.parametrize("make, roles", [
    (candidates, {"target p", "draft q", "accepted", "resampled"}),
    (lossy, {"target p", "draft q", "accepted", "resampled"}),
    (schedules, {"accepted"}),
])
def test_every_legend_entry_takes_its_role_from_the_palette(make, roles):
    entries = list(legend_entries(make().figure))
    assert entries
    found = {check_entry(handle, label) for handle, label in entries}
    assert {role.label for role in found if role is not None} == roles
