"""p and q after temperature, and α as the temperatures change, down to greedy decoding (T = 0).

The distributions come from `specdec.temperature.softmax`; the explorer computes them and the α
curves and passes them in. The figure is built once; its updates change only the bars, curves and
markers, and its axes limits never change, so `specdec.plots.fast_redraw.FastRedraw` draws ticks,
labels and legends once.
"""

from __future__ import annotations

import numpy as np

from .. import palette
from .canvas import COMPACT_FIGURE_INCHES, new_figure, panel_axes, role_style, styled
from .fast_redraw import FastRedraw


class TemperatureFigure:
    """p and q after temperature (left); α against the draft temperature and a shared one (right).

    Parameters
    ----------
    labels : list of str
        One name per token.
    temperatures : array_like
        The temperatures, from 0 up, at which the explorer computes the two α curves.

    Examples
    --------
    >>> picture = TemperatureFigure(["A", "B"], [0.0, 1.0])
    >>> picture.update(target=[0.6, 0.4], draft=[0.3, 0.7], draft_temperature=1.0, alpha=0.7,
    ...                alpha_over_draft_temperature=[0.6, 0.7], alpha_over_shared_temperature=[0.0, 0.7])
    >>> list(picture.greedy_marker.get_ydata())
    [0.0]
    """

    def __init__(self, labels, temperatures):
        self.labels = list(labels)
        self.temperatures = np.asarray(temperatures, dtype=float)
        positions = np.arange(len(self.labels))
        zeros = np.zeros(len(self.labels))
        pick_style = dict(linestyle="none", marker="v", markersize=10, markeredgecolor=palette.HIGHLIGHT)
        with styled():
            self.figure = new_figure(9.5, 3.8, compact_size=COMPACT_FIGURE_INCHES)
            bars_axes, curve_axes = panel_axes(self.figure, 2)
            self.bars_axes, self.curve_axes = bars_axes, curve_axes

            target, draft = palette.ROLES["target"], palette.ROLES["draft"]
            self.target_bars = bars_axes.bar(positions - 0.2, zeros, width=0.38, **role_style("target"),
                                             label=target.label)
            self.draft_bars = bars_axes.bar(positions + 0.2, zeros, width=0.38, **role_style("draft"),
                                            edgecolor=palette.HIGHLIGHT, linewidth=0.4, label=draft.label)
            (self.target_pick,) = bars_axes.plot([0], [0], markerfacecolor=target.colour,
                                                 label=target.labelled("greedy pick"), **pick_style)
            (self.draft_pick,) = bars_axes.plot([0], [0], markerfacecolor=draft.colour,
                                                label=draft.labelled("greedy pick"), **pick_style)
            bars_axes.set_xticks(positions, self.labels)
            # Headroom above 1 keeps the legend clear of a one-hot bar and its greedy-pick triangle.
            bars_axes.set(title="p and q after temperature", xlabel="token", ylabel="probability",
                          ylim=(0, 1.5), xlim=(-0.6, len(self.labels) - 0.4), yticks=np.linspace(0, 1, 6))
            bars_axes.legend(loc="upper left", ncols=2)

            flat = np.zeros_like(self.temperatures)
            (self.shared_line,) = curve_axes.plot(self.temperatures, flat, color=palette.NEUTRAL,
                                                  linestyle="--", linewidth=2,
                                                  label="both at one T")
            (self.draft_line,) = curve_axes.plot(self.temperatures, flat, color=palette.HIGHLIGHT,
                                                 linewidth=2, label="draft at T, target fixed")
            (self.current_marker,) = curve_axes.plot([1], [0], linestyle="none", marker="o", markersize=12,
                                                     markerfacecolor="none", markeredgecolor=palette.HIGHLIGHT,
                                                     markeredgewidth=2, clip_on=False,
                                                     label="the sliders now")
            (self.greedy_marker,) = curve_axes.plot([0], [0], linestyle="none", marker="s", markersize=10,
                                                    color=palette.HIGHLIGHT, clip_on=False,
                                                    label="both greedy: α is 0 or 1")
            self.greedy_marker.set_gid("greedy")
            curve_axes.set(title="α as the temperatures change", xlabel="temperature T",
                           ylabel="α = Σ min(p, q)", ylim=(0, 1.5), yticks=np.linspace(0, 1, 6),
                           xlim=(-0.05 * self.temperatures[-1], 1.05 * self.temperatures[-1]))
            curve_axes.legend(loc="upper right", ncols=2)
        self.fast = FastRedraw(self.figure, [
            *self.target_bars, *self.draft_bars, self.target_pick, self.draft_pick,
            self.shared_line, self.draft_line, self.current_marker, self.greedy_marker,
        ])

    def update(self, target, draft, draft_temperature: float, alpha: float,
               alpha_over_draft_temperature, alpha_over_shared_temperature) -> None:
        """Show new distributions, the two α curves over `temperatures`, and the current point."""
        target = np.asarray(target, dtype=float)
        draft = np.asarray(draft, dtype=float)
        for bar, height in zip(self.target_bars, target):
            bar.set_height(height)
        for bar, height in zip(self.draft_bars, draft):
            bar.set_height(height)
        target_pick, draft_pick = int(np.argmax(target)), int(np.argmax(draft))
        self.target_pick.set_data([target_pick - 0.2], [target[target_pick] + 0.06])
        self.draft_pick.set_data([draft_pick + 0.2], [draft[draft_pick] + 0.06])
        self.draft_line.set_ydata(alpha_over_draft_temperature)
        self.shared_line.set_ydata(alpha_over_shared_temperature)
        self.current_marker.set_data([draft_temperature], [alpha])
        self.greedy_marker.set_data([0.0], [alpha_over_shared_temperature[0]])

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the bars, curves and markers."""
        with styled():
            return self.fast.png()
