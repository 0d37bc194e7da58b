"""α against TV and against KL(p‖q) for a cloud of (p, q) pairs (`specdec.divergence`).

`CloudFigure` plots α against TV(p, q), where every pair lies on the line α = 1 − TV, and against
KL(p‖q), where they scatter above Pinsker's bound α ≥ 1 − √(KL/2).

The figure is built once; its updates change only the data of the points and rings, and its axes
limits never change, so `specdec.plots.fast_redraw.FastRedraw` draws ticks, labels and legends once. The KL axis uses a square-root scale: it spreads out the many pairs with a small KL
and turns Pinsker's bound into a straight line. A pair whose KL lies beyond the axis is drawn at
its right edge (the explorer's readout counts them).
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator

from .. import palette
from ..divergence import pinsker_bound
from .canvas import COMPACT_FIGURE_INCHES, new_figure, panel_axes, styled
from .fast_redraw import FastRedraw

#: The largest KL(p‖q) the cloud's KL axis shows, in nats.
KL_AXIS_MAX = 5.0
KL_TICKS = (0, 0.1, 0.5, 1, 2, 3, 4, 5)

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
        point_style = dict(s=18, color=palette.HIGHLIGHT, alpha=0.45, edgecolors="none", marker="o")
        ring_style = dict(linestyle="none", marker="o", markersize=13, markerfacecolor="none",
                          markeredgecolor=palette.HIGHLIGHT, markeredgewidth=2)
        with styled():
            self.figure = new_figure(9.0, 3.8, compact_size=COMPACT_FIGURE_INCHES)
            tv_axes, kl_axes = panel_axes(self.figure, 2)
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
        self.fast = FastRedraw(self.figure, [self.tv_points, self.tv_ring, self.kl_points, self.kl_ring])

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
            return self.fast.png()


def _sqrt(values):
    # The scale is also asked about values left of 0 (margins, the axis edge); clip them to 0.
    return np.sqrt(np.maximum(values, 0.0))
