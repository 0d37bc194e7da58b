"""Two figures on what α depends on: a cloud of (p, q) pairs against TV and KL, and temperature.

`CloudFigure` plots α against TV(p, q), where every pair lies on the line α = 1 − TV, and against
KL(p‖q), where they scatter above Pinsker's bound α ≥ 1 − √(KL/2). `TemperatureFigure` shows a
target and a draft distribution after temperature, and α as the temperatures change, down to
greedy decoding (T = 0).

Both figures are built once; their updates change only the data of the artists that move, and
their axes limits never change, so `specdec.plots.fast_redraw.FastRedraw` draws ticks, labels and
legends once. The KL axis uses a square-root scale: it spreads out the many pairs with a small KL
and turns Pinsker's bound into a straight line. A pair whose KL lies beyond the axis is drawn at
its right edge (the explorer's readout counts them).
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator

from .. import palette
from .fast_redraw import FastRedraw
from .canvas import new_figure, styled

#: The largest KL(p‖q) the cloud's KL axis shows, in nats.
KL_AXIS_MAX = 5.0
KL_TICKS = (0, 0.1, 0.5, 1, 2, 3, 4, 5)

#: Hatching of the draft bars, so p and q differ by more than colour.
DRAFT_HATCH = "\\\\"


def pinsker_bound(kl) -> np.ndarray:
    """The lower bound on α that KL(p‖q) gives through Pinsker's inequality: max(0, 1 − √(KL/2)).

    >>> pinsker_bound([0.0, 0.5, 2.0, 8.0]).tolist()
    [1.0, 0.5, 0.0, 0.0]
    """
    return np.maximum(0.0, 1.0 - np.sqrt(np.asarray(kl, dtype=float) / 2.0))


class CloudFigure:
    """α against TV (left) and against KL(p‖q) (right) for a cloud of pairs, one pair ringed.

    Examples
    --------
    >>> picture = CloudFigure()
    >>> picture.update(alpha=[0.7, 0.9], tv=[0.3, 0.1], kl=[0.4, 9.0], highlighted=1)
    >>> picture.kl_points.get_offsets()[:, 0].tolist()  # the second KL is beyond the axis
    [0.4, 5.0]
    >>> picture.png()[:4]
    b'\\x89PNG'
    """

    def __init__(self):
        point_style = dict(s=18, color=palette.ACCEPTED, alpha=0.75, edgecolors="none", marker="o")
        ring_style = dict(linestyle="none", marker="o", markersize=13, markerfacecolor="none",
                          markeredgecolor=palette.HIGHLIGHT, markeredgewidth=2)
        with styled():
            self.figure = new_figure(9.0, 3.8)
            tv_axes, kl_axes = self.figure.subplots(1, 2)
            self.tv_axes, self.kl_axes = tv_axes, kl_axes

            tv_axes.plot([0, 1], [1, 0], color=palette.NEUTRAL, linestyle="--", linewidth=1.5,
                         label="α = 1 − TV")
            self.tv_points = tv_axes.scatter(np.zeros(0), np.zeros(0), label="one random pair (p, q)",
                                             **point_style)
            (self.tv_ring,) = tv_axes.plot([0], [1], label="highlighted pair", **ring_style)
            tv_axes.set(title="α against total variation", xlabel="TV(p, q) = ½ Σ |p − q|",
                        ylabel="α = Σ min(p, q)", xlim=(0, 1), ylim=(0, 1.03))
            tv_axes.legend(loc="upper right")

            kl_grid = np.linspace(0, KL_AXIS_MAX, 200)
            kl_axes.plot(kl_grid, pinsker_bound(kl_grid), color=palette.NEUTRAL, linestyle="-.",
                         linewidth=1.5, label="Pinsker: α ≥ 1 − √(KL/2)")
            self.kl_points = kl_axes.scatter(np.zeros(0), np.zeros(0), label="one random pair (p, q)",
                                             **point_style)
            (self.kl_ring,) = kl_axes.plot([0], [1], label="highlighted pair", **ring_style)
            kl_axes.set_xscale("function", functions=(_sqrt, np.square))
            kl_axes.xaxis.set_major_locator(FixedLocator(KL_TICKS))
            kl_axes.set(title="α against KL(p‖q)", xlabel="KL(p‖q) in nats (square-root scale)",
                        ylabel="α = Σ min(p, q)", xlim=(0, KL_AXIS_MAX), ylim=(0, 1.03))
            kl_axes.legend(loc="upper right")
        self._fast = FastRedraw(self.figure, [self.tv_points, self.tv_ring, self.kl_points, self.kl_ring])

    def update(self, alpha, tv, kl, highlighted: int) -> None:
        """Show a new cloud (α, TV and KL of each pair) and ring pair number `highlighted`."""
        alpha = np.asarray(alpha, dtype=float)
        tv = np.asarray(tv, dtype=float)
        shown_kl = np.minimum(np.asarray(kl, dtype=float), KL_AXIS_MAX)
        self.tv_points.set_offsets(np.column_stack([tv, alpha]))
        self.kl_points.set_offsets(np.column_stack([shown_kl, alpha]))
        self.tv_ring.set_data([tv[highlighted]], [alpha[highlighted]])
        self.kl_ring.set_data([shown_kl[highlighted]], [alpha[highlighted]])

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the points and rings."""
        with styled():
            return self._fast.png()


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
            self.figure = new_figure(9.5, 3.8)
            bars_axes, curve_axes = self.figure.subplots(1, 2)
            self.bars_axes, self.curve_axes = bars_axes, curve_axes

            self.target_bars = bars_axes.bar(positions - 0.2, zeros, width=0.38, color=palette.TARGET,
                                             label="target p")
            self.draft_bars = bars_axes.bar(positions + 0.2, zeros, width=0.38, color=palette.DRAFT,
                                            hatch=DRAFT_HATCH, edgecolor=palette.HIGHLIGHT, linewidth=0.4,
                                            label="draft q")
            (self.target_pick,) = bars_axes.plot([0], [0], markerfacecolor=palette.TARGET,
                                                 label="greedy pick of p", **pick_style)
            (self.draft_pick,) = bars_axes.plot([0], [0], markerfacecolor=palette.DRAFT,
                                                label="greedy pick of q", **pick_style)
            bars_axes.set_xticks(positions, self.labels)
            # Headroom above 1 keeps the legend clear of a one-hot bar and its greedy-pick triangle.
            bars_axes.set(title="p and q after temperature", xlabel="token", ylabel="probability",
                          ylim=(0, 1.5), xlim=(-0.6, len(self.labels) - 0.4), yticks=np.linspace(0, 1, 6))
            bars_axes.legend(loc="upper left", fontsize=9, ncols=2)

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
            curve_axes.legend(loc="upper right", fontsize=9, ncols=2)
        self._fast = FastRedraw(self.figure, [
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
            return self._fast.png()


def _sqrt(values):
    # The scale is also asked about values left of 0 (margins, the axis edge); clip them to 0.
    return np.sqrt(np.maximum(values, 0.0))
