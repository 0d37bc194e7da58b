"""The picture of one token: p and q, the overlap min(p, q) that accepts, and the residual.

The upper axes show three bars for each token: the target p, the overlap min(p, q) and the draft
q. The overlap is drawn once, as a bar of its own between p and q, so the green area on screen is
α, the probability that a draft token is accepted (bars of one width: area is height). The lower axes show where p exceeds q, max(0, p − q), whose mass is 1 − α, next to its
normalised form, the residual r that a rejected token is redrawn from.

What is simplified: the figure draws the rows it is given; it does not check that they are
distributions (the explorer computes them with the core and passes them in). All bars for up to
`max_vocab` tokens exist from the start; a smaller vocabulary hides the rest, so changing V never
rebuilds the figure.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FormatStrFormatter, MaxNLocator

from .. import palette
from .canvas import new_figure, role_style, styled
from .fast_redraw import FastRedraw

_BAR_WIDTH = 0.38
_OFFSET = 0.2
#: The rows panel's three bars per token: p, min(p, q), q.
_ROW_WIDTH = 0.27
_ROW_OFFSET = 0.29


#: The upper y-limits the axes may take. Few of them, so that dragging a slider seldom changes the
#: limits: a change means the tick labels, and so the whole figure, must be drawn again.
Y_TOPS = (0.2, 0.4, 0.6, 0.8, 1.05)


def nice_top(value: float) -> float:
    """The smallest of `Y_TOPS` that leaves a little room above `value`.

    >>> nice_top(0.5), nice_top(0.0), nice_top(1.0)
    (0.6, 0.2, 1.05)
    """
    for top in Y_TOPS:
        if value * 1.05 <= top:
            return top
    return Y_TOPS[-1]


class OneTokenFigure:
    """One figure for one token position, redrawn in place by `update`.

    Parameters
    ----------
    max_vocab : int
        The largest vocabulary the figure will be asked to show; that many bars are made up front.
    width, height : float
        Figure size in inches.

    Examples
    --------
    >>> picture = OneTokenFigure(max_vocab=4)
    >>> picture.update([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25],
    ...                residual=[5 / 6, 1 / 6, 0, 0], labels=list("ABCD"), alpha=0.7)
    >>> [round(float(bar.get_height()), 2) for bar in picture.overlap_bars]
    [0.25, 0.25, 0.2, 0.0]
    """

    def __init__(self, max_vocab: int = 12, width: float = 7.4, height: float = 5.0):
        self.max_vocab = max_vocab
        positions = np.arange(max_vocab)
        zeros = np.zeros(max_vocab)
        with styled():
            self.figure = new_figure(width, height)
            self.rows_axes, self.residual_axes = self.figure.subplots(
                2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 2]}
            )
            rows, residual = self.rows_axes, self.residual_axes

            roles = palette.ROLES
            self.target_bars = rows.bar(positions - _ROW_OFFSET, zeros, _ROW_WIDTH, **role_style("target"),
                                        label=roles["target"].label, zorder=2)
            # The overlap once, between p and q: its bars' total height (and area) is α.
            self.overlap_bars = rows.bar(positions, zeros, _ROW_WIDTH, **role_style("accepted"),
                                         edgecolor="white",
                                         label=roles["accepted"].labelled("overlap\nmin(p, q),\nsums to α"),
                                         zorder=2)
            self.draft_bars = rows.bar(positions + _ROW_OFFSET, zeros, _ROW_WIDTH, **role_style("draft"),
                                       edgecolor="white", label=roles["draft"].label, zorder=2)
            rows.set_ylabel("probability")
            self.rows_legend = rows.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
            rows.set_title("p, q and overlap min(p, q)", loc="left", y=1.0)
            self.rows_title = rows.set_title(" ", loc="right", y=1.0)

            self.excess_bars = residual.bar(positions - _OFFSET, zeros, _BAR_WIDTH, **role_style("resampled"),
                                            edgecolor="white", label=roles["resampled"].labelled("\nmax(0, p − q)"),
                                            zorder=2)
            self.residual_bars = residual.bar(positions + _OFFSET, zeros, _BAR_WIDTH,
                                              **{**role_style("resampled"), "facecolor": "white"},
                                              edgecolor=palette.RESAMPLED, linewidth=1.2,
                                              label=roles["resampled"].labelled("\nresidual r\n(normalised)"),
                                              zorder=2)
            residual.set_ylabel("probability")
            residual.set_xlabel("token")
            self.residual_legend = residual.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0),
                                                   borderaxespad=0)
            residual.set_title("max(0, p − q) and residual r", loc="left", y=1.0)
            self.residual_title = residual.set_title(" ", loc="right", y=1.0)

            note_style = {"ha": "center", "va": "center", "fontsize": 11, "zorder": 5,
                          "bbox": {"facecolor": "white", "edgecolor": palette.NEUTRAL, "alpha": 0.9}}
            self.rows_note = rows.text(0.5, 0.6, "", transform=rows.transAxes, **note_style)
            self.residual_note = residual.text(0.5, 0.6, "", transform=residual.transAxes, **note_style)
            for axes in (rows, residual):
                axes.grid(axis="y", color=palette.NEUTRAL, alpha=0.25, zorder=0)
                # A fixed tick format keeps the tick labels' width, so the frozen layout still fits.
                axes.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
                axes.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))
        self._shown_vocab = None
        self._limits = None
        self.fast = FastRedraw(
            self.figure,
            # The spines change with nothing, but drawing them last keeps them above the bars and
            # the grid, as in a full draw.
            changing=[*self.target_bars, *self.draft_bars, *self.overlap_bars, *self.excess_bars,
                      *self.residual_bars, self.rows_title, self.residual_title, self.rows_note,
                      self.residual_note, *self.rows_axes.spines.values(), *self.residual_axes.spines.values()],
            occasional=[self.rows_axes.xaxis, self.rows_axes.yaxis, self.residual_axes.xaxis,
                        self.residual_axes.yaxis],
        )

    def update(self, target, draft, residual, labels, alpha, note: str = "") -> None:
        """Show normalised rows p and q, their overlap and the residual.

        Parameters
        ----------
        target, draft : array_like of shape (V,) or None
            The normalised rows. None for a row that has no mass: its bars are drawn at zero and
            `note` should say why.
        residual : array_like of shape (V,) or None
            norm(max(0, p − q)) as the core computes it; None when it has no mass.
        labels : list of str
            Token names, one per token.
        alpha : float or None
            The acceptance rate, written in the legend.
        note : str
            A message drawn over the axes (for a degenerate state); empty for none.
        """
        vocab = len(labels)
        self._set_vocabulary(labels)
        p = np.zeros(vocab) if target is None else np.asarray(target, dtype=float)
        q = np.zeros(vocab) if draft is None else np.asarray(draft, dtype=float)
        complete = target is not None and draft is not None
        overlap = np.minimum(p, q) if complete else np.zeros(vocab)
        excess = np.maximum(p - q, 0.0) if complete else np.zeros(vocab)
        r = np.zeros(vocab) if residual is None or not complete else np.asarray(residual, dtype=float)

        for bars, heights in ((self.target_bars, p), (self.draft_bars, q), (self.overlap_bars, overlap),
                              (self.excess_bars, excess), (self.residual_bars, r)):
            for bar, height in zip(bars, heights):
                bar.set_height(height)
                bar.set_visible(height > 0)  # an empty bar would still draw its edge at 0

        alpha_text = "—" if alpha is None else f"{alpha:.3f}"
        mass_text = "—" if alpha is None else f"{1 - alpha:.3f}"
        self.rows_title.set_text(f"α = {alpha_text}")
        self.residual_title.set_text(f"1 − α = {mass_text}")

        residual_note = ""
        if complete and residual is None:
            residual_note = "p = q: max(0, p − q) has no mass, so no token is ever rejected"
        self.rows_note.set_text(note)
        self.rows_note.set_visible(bool(note))
        self.residual_note.set_text(residual_note)
        self.residual_note.set_visible(bool(residual_note))

        limits = (nice_top(max(p.max(), q.max())), nice_top(max(excess.max(), r.max())))
        if limits != self._limits:
            self.rows_axes.set_ylim(0, limits[0])
            self.residual_axes.set_ylim(0, limits[1])
            self._limits = limits
            self.fast.invalidate()

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only what changed since the last call."""
        with styled():
            return self.fast.png()

    def _set_vocabulary(self, labels: list[str]) -> None:
        vocab = len(labels)
        if vocab > self.max_vocab:
            raise ValueError(f"labels has {vocab} tokens, but this figure was made for at most {self.max_vocab}")
        if labels == self._shown_vocab:
            return
        for bars in (self.target_bars, self.draft_bars, self.overlap_bars, self.excess_bars, self.residual_bars):
            for bar in bars[vocab:]:
                bar.set_visible(False)
        self.residual_axes.set_xticks(range(vocab), labels)
        self.residual_axes.set_xlim(-0.6, vocab - 0.4)
        self._shown_vocab = list(labels)
        self.fast.invalidate()
