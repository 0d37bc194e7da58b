"""α against TV and KL(p‖q) for a seeded cloud of random pairs (notebook 06).

Every pair (`specdec.divergence.pair_cloud`) lies on α = 1 − TV; against KL only above Pinsker's bound
α ≥ 1 − √(KL/2). The KL axis has a square-root scale; a pair past its end sits at its edge.
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.ticker import FixedLocator

from .. import palette
from ..validation import Count, checked
from ..divergence import CLOUD_SIZE, MIN_ALPHA_SPREAD, MIN_NEIGHBOURS, pair_cloud, pinsker_bound
from .frame import (COMPACT_FIGURE_INCHES, SEED_SLIDER_MAX, VOCAB_SLIDER_MAX, VOCAB_SLIDER_MIN, Explorer, FastRedraw,
                    Picture, Readout, bold, compact, line, new_figure, panel_axes, slider, styled)

#: The largest KL(p‖q) the KL axis shows, in nats, and its ticks.
KL_AXIS_MAX = 5.0
KL_TICKS = (0, 0.1, 0.5, 1, 2, 3, 4, 5)


class CloudFigure(Picture):
    """α against TV (left) and against KL(p‖q) (right) for a cloud of pairs, one pair ringed.

    Examples
    --------
    >>> picture = CloudFigure()
    >>> picture.update(alpha=[0.7, 0.9], tv=[0.3, 0.1], kl=[0.4, 9.0], highlighted=1)
    >>> picture.kl_points.get_offsets()[:, 0].tolist()  # the second KL is beyond the axis
    [0.4, 5.0]
    """

    def __init__(self):
        short = compact()  # presentation mode: shorter legend labels, so that the legends fit where no pair lies
        points = dict(s=18, color=palette.HIGHLIGHT, alpha=0.45, edgecolors="none",
                      label="one pair (p, q)" if short else "one random pair (p, q)")
        ring = dict(linestyle="none", marker="o", markersize=13, markerfacecolor="none",
                    markeredgecolor=palette.HIGHLIGHT, markeredgewidth=2, label="highlighted pair")
        with styled():
            self.figure = new_figure(9.0, 3.8, compact_size=COMPACT_FIGURE_INCHES)
            self.tv_axes, self.kl_axes = tv_axes, kl_axes = panel_axes(self.figure, 2)
            tv_axes.plot([0, 1], [1, 0], color=palette.NEUTRAL, linestyle="--", linewidth=1.5, label="α = 1 − TV")
            self.tv_points = tv_axes.scatter(np.zeros(0), np.zeros(0), **points)
            (self.tv_ring,) = tv_axes.plot([0], [1], **ring)
            tv_axes.set(title="α against total variation", xlabel="TV(p, q) = ½ Σ |p − q|",
                        ylabel="α = Σ min(p, q)", xlim=(0, 1), ylim=(0, 1.03))
            kl_grid = np.linspace(0, KL_AXIS_MAX, 200)
            kl_axes.plot(kl_grid, pinsker_bound(kl_grid), color=palette.NEUTRAL, linestyle="-.", linewidth=1.5,
                         label="Pinsker's bound" if short else "Pinsker: α ≥ 1 − √(KL/2)")
            self.kl_points = kl_axes.scatter(np.zeros(0), np.zeros(0), **points)
            (self.kl_ring,) = kl_axes.plot([0], [1], **ring)
            # The scale is also asked about values left of 0 (margins): clip them to 0.
            kl_axes.set_xscale("function", functions=(lambda x: np.sqrt(np.maximum(x, 0.0)), np.square))
            kl_axes.xaxis.set_major_locator(FixedLocator(KL_TICKS))
            kl_axes.set(title="α against KL(p‖q)", xlabel="KL(p‖q) in nats (square-root scale)",
                        ylabel="α = Σ min(p, q)", xlim=(0, KL_AXIS_MAX), ylim=(0, 1.03))
            # Lower left, where no pair lies: below the line α = 1 − TV, and below Pinsker's bound (whose
            # panel names only the bound: the points and the ring are named on the TV panel).
            tight = dict(borderpad=0.3, labelspacing=0.25, handlelength=1.6, handletextpad=0.5, borderaxespad=0.3)
            tv_axes.legend(loc="lower left", **tight)
            kl_axes.legend(handles=kl_axes.get_lines()[:1], loc="lower left", **tight)
        self.fast = FastRedraw(self.figure, [self.tv_points, self.tv_ring, self.kl_points, self.kl_ring])

    def update(self, alpha, tv, kl, highlighted: int) -> None:
        """Show a new cloud (α, TV and KL of each pair) and ring pair number `highlighted`."""
        alpha, tv = np.asarray(alpha, dtype=float), np.asarray(tv, dtype=float)
        shown_kl = np.minimum(np.asarray(kl, dtype=float), KL_AXIS_MAX)
        self.tv_points.set_offsets(np.column_stack([tv, alpha]))
        self.kl_points.set_offsets(np.column_stack([shown_kl, alpha]))
        self.tv_ring.set_data([tv[highlighted]], [alpha[highlighted]])
        self.kl_ring.set_data([shown_kl[highlighted]], [alpha[highlighted]])


class DivergenceExplorer(Explorer):
    """α against TV and KL(p‖q) for a seeded cloud of random pairs, with one pair highlighted.

    Parameters
    ----------
    seed, vocab, pair : int in 0 … 99, 2 … 64 (tokens V of every pair), 0 … 199 (the pair ringed)

    Attributes
    ----------
    shown : ``cloud`` (a `PairCloud`), the control values, ``alpha``, ``tv`` and ``kl`` of the ringed pair,
        ``largest_gap`` (max |α − (1 − TV)|), ``beyond_axis`` (pairs with KL past the axis), ``kl_neighbours``
        (pairs with a KL within 10% of its, itself included), ``neighbour_alpha_range``, ``kl_band``.

    Examples
    --------
    >>> explorer = DivergenceExplorer()
    >>> explorer.shown["largest_gap"] < 1e-12
    True
    """

    title = "α, total variation and KL divergence"

    @checked(seed=Count(0, SEED_SLIDER_MAX), vocab=Count(VOCAB_SLIDER_MIN, VOCAB_SLIDER_MAX),
             pair=Count(0, CLOUD_SIZE - 1))
    def __init__(self, seed=0, vocab=8, pair=0):
        controls = {
            "seed": slider("cloud seed", seed, (0, SEED_SLIDER_MAX)),
            "vocab": slider("tokens per distribution V", vocab, (VOCAB_SLIDER_MIN, VOCAB_SLIDER_MAX)),
            "pair": slider("highlighted pair", pair, (0, CLOUD_SIZE - 1)),
        }
        self.cloud = functools.lru_cache(maxsize=1)(pair_cloud)  # moving the highlight alone keeps the cloud
        # The KL-band line answers notebook 06's Predict (same KL, same α?): shown once a control has moved.
        self.opening, self.moved = (seed, vocab, pair), False
        super().__init__(controls, [["seed", "vocab"], ["pair"]], CloudFigure())

    def compute(self) -> dict:
        seed, vocab, index = self.value("seed"), self.value("vocab"), self.value("pair")
        cloud = self.cloud(seed, vocab)
        self.moved = self.moved or (seed, vocab, index) != self.opening
        self.picture.update(cloud.alpha, cloud.tv, cloud.kl, index)
        band = cloud.kl_band(index)
        return {
            "cloud": cloud, "seed": seed, "vocab": vocab, "pair": index,
            "alpha": float(cloud.alpha[index]), "tv": float(cloud.tv[index]), "kl": float(cloud.kl[index]),
            "largest_gap": cloud.largest_gap, "beyond_axis": int(np.sum(cloud.kl > KL_AXIS_MAX)),
            "kl_neighbours": band.count, "neighbour_alpha_range": (band.alpha_low, band.alpha_high),
            "kl_band": band,
        }

    def describe(self, shown: dict) -> Readout:
        cloud, beyond, band, kl = shown["cloud"], shown["beyond_axis"], shown["kl_band"], shown["kl"]
        return Readout([
            line(f"{len(cloud.alpha)} random pairs over V = {shown['vocab']} tokens, seed {shown['seed']}"),
            line(f"Largest |α − (1 − TV)| in the cloud: {shown['largest_gap']:.1e}: every pair lies on the line."),
            line(f"KL(p‖q) spans {cloud.kl.min():.3f} … {cloud.kl.max():.3f} nats."),
            *([line(f"{beyond} pair{'s' if beyond != 1 else ''} with KL > {KL_AXIS_MAX:g} drawn at the right edge")]
              if beyond else []),
            line(bold(f"Pair {shown['pair']}"), ": α = ", bold(f"{shown['alpha']:.3f}"),
                 f", TV = {shown['tv']:.3f}, 1 − TV = {1 - shown['tv']:.3f}", key=True),
            line(f"KL(p‖q) = {kl:.3f} nats; Pinsker's bound max(0, 1 − √(KL/2)) = {float(pinsker_bound(kl)):.3f}",
                 key=True),
            *([line(kl_band_text(band))] if self.moved else []),
        ])


def kl_band_text(band) -> str:
    """What the pairs near one KL show, with a conclusion only when they support it.

    `band.count` includes the highlighted pair itself: the text counts the others.

    >>> from specdec.divergence import KLBand
    >>> kl_band_text(KLBand(count=2, alpha_low=0.5, alpha_high=0.6))[:55]
    "Only 1 other pair has a KL within 10% of this one's: to"
    """
    others, needed = band.count - 1, MIN_NEIGHBOURS - 1
    if not band.enough_pairs:
        start = ("No other pair has" if others == 0 else
                 f"Only {others} other {'pair has' if others == 1 else 'pairs have'}")
        return (f"{start} a KL within 10% of this one's: too few to say how much α varies at this KL "
                f"(it takes {needed} others). Highlight a pair where the cloud is denser.")
    text = f"This pair and the {others} other{'' if others == 1 else 's'} whose KL is within 10% of its have α " \
           f"from {band.alpha_low:.3f} to {band.alpha_high:.3f}"
    if band.shows_kl_does_not_fix_alpha:
        return text + ": the same KL, clearly different α. KL alone does not fix α."
    return (text + f", a spread of {band.spread:.3f}, under {MIN_ALPHA_SPREAD}: these pairs alone do not "
            "show α varying at this KL. Highlight another pair, or change the seed or V.")
