"""Figures of notebook 03: why the output is exactly p, and a million samples that show it.

`DerivationFigure` stacks, for each token, the mass that comes out accepted, min(p, q), and the mass
that comes out resampled, (1 − α)·r = max(0, p − q); the stack reaches p exactly. `MonteCarloFigure`
shows sampled verify steps: the frequencies of the tokens at one output position against p and q,
the token counts against their exact law, and the largest deviation from p as n grows, next to a
1/√n guide. A correct rule follows the guide down; a broken one levels off at its bias.

Both figures are built once; updates only change the data of their artists, so
`specdec.plots.fast_redraw.FastRedraw` draws labels and legends once. The derivation's y axis follows
the tallest bar (from a few round tops) and is redrawn when its top changes; the Monte Carlo axes are fixed.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FormatStrFormatter, MaxNLocator

from .. import palette
from .canvas import new_figure, role_style, styled
from .fast_redraw import FastRedraw
from .one_token import nice_top

#: Hatching of sampled frequencies (grey, and unlike every role's hatch: measured, not a role).
SAMPLED_HATCH = "||"

#: The range of the deviation plot's n axis: the explorer's slider runs from 10² to 10⁶.
N_AXIS = (60, 1.6e6)
DEVIATION_AXIS = (1e-4, 1.0)


def target_and_draft_marks(axes, positions, draft_size: float):
    """p as outlined bars and q as diamonds over the tokens at `positions`, all at height 0 for now."""
    zeros = np.zeros(len(positions))
    target, draft = palette.ROLES["target"], palette.ROLES["draft"]
    bars = axes.bar(positions, zeros, width=0.8, fill=False, edgecolor=target.colour, linewidth=2.5,
                    label=target.labelled("outline"))
    (marks,) = axes.plot(positions, zeros, linestyle="none", marker="D", markersize=draft_size,
                         color=draft.colour, markeredgecolor=palette.HIGHLIGHT, label=draft.label)
    return bars, marks


class DerivationFigure:
    """Accepted part + resampled part = p, token by token, with q beside it.

    Parameters
    ----------
    labels : list of str
        One name per token.

    Examples
    --------
    >>> from specdec.output_law import position_law
    >>> picture = DerivationFigure(["A", "B", "C", "D"])
    >>> picture.update(position_law([0.5, 0.3, 0.2, 0.0], [0.25] * 4))
    >>> [round(float(bar.get_y() + bar.get_height()), 3) for bar in picture.resampled_bars]
    [0.5, 0.3, 0.2, 0.0]
    >>> picture.png()[:4]
    b'\\x89PNG'
    """

    def __init__(self, labels):
        self.labels = list(labels)
        positions = np.arange(len(self.labels))
        zeros = np.zeros(len(self.labels))
        with styled():
            self.figure = new_figure(7.5, 4.2)
            axes = self.figure.add_subplot()
            self.axes = axes
            self.accepted_bars = axes.bar(positions, zeros, width=0.6, **role_style("accepted"),
                                          edgecolor="white", linewidth=0.5,
                                          label=palette.ROLES["accepted"].labelled("q·min(1, p/q) = min(p, q)"))
            self.resampled_bars = axes.bar(positions, zeros, width=0.6, **role_style("resampled"),
                                           edgecolor="white", linewidth=0.5,
                                           label=palette.ROLES["resampled"].labelled("(1 − α)·r = max(0, p − q)"))
            self.target_bars, self.draft_marks = target_and_draft_marks(axes, positions, draft_size=9)
            axes.set_xticks(positions, self.labels)
            axes.set(title="Where each output token comes from", xlabel="token",
                     ylabel="probability of being emitted", ylim=(0, 1.05),
                     xlim=(-0.6, len(self.labels) - 0.4))
            axes.yaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
            axes.yaxis.set_major_formatter(FormatStrFormatter("%.2f"))  # labels of one width
            axes.grid(axis="y", color=palette.NEUTRAL, alpha=0.25)
            for bar in [*self.accepted_bars, *self.resampled_bars, *self.target_bars]:
                bar.set_zorder(2)  # above the grid (drawn with the y axis, at zorder 1.5)
            # Under the axes, so that the y limit can follow the bars without meeting the legend.
            self.figure.legend(handles=[self.accepted_bars, self.resampled_bars, self.target_bars,
                                        self.draft_marks], loc="outside lower center", ncols=2)
        self._top = None
        # The spines go with the changing artists, so that they are drawn over the bars, as in a full draw.
        self.fast = FastRedraw(self.figure, [*self.accepted_bars, *self.resampled_bars,
                                              *self.target_bars, self.draft_marks, *self.axes.spines.values()],
                               occasional=[self.axes.yaxis])

    def update(self, law) -> None:
        """Show a `specdec.output_law.PositionLaw`."""
        for accepted_bar, resampled_bar, target_bar, accepted, resampled, target in zip(
            self.accepted_bars, self.resampled_bars, self.target_bars, law.accepted, law.resampled, law.target
        ):
            accepted_bar.set_height(accepted)
            resampled_bar.set_y(accepted)
            resampled_bar.set_height(resampled)
            target_bar.set_height(target)
        self.draft_marks.set_ydata(law.draft)
        # The y axis follows the tallest bar or marker, from a few round tops (`nice_top`).
        top = nice_top(max(float(np.max(law.target)), float(np.max(law.draft))))
        if top != self._top:
            self.axes.set_ylim(0, top)
            self._top = top
            self.fast.invalidate()

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only the bars and markers."""
        with styled():
            return self.fast.png()


class MonteCarloFigure:
    """Sampled output tokens at one position, token counts, and the largest deviation against n.

    Parameters
    ----------
    labels : list of str
        One name per token.
    gamma : int
        The draft length; the count panel shows 0 … γ+1 tokens per step.

    Examples
    --------
    >>> picture = MonteCarloFigure(["A", "B"], gamma=1)
    >>> picture.update(position=0, frequencies=[0.6, 0.4], target=[0.6, 0.4], draft=[0.5, 0.5],
    ...                count_frequencies=[0, 0.2, 0.8], count_law=[0, 0.2, 0.8],
    ...                sizes=[100, 1000], deviations=[0.05, 0.01], guide=[0.05, 0.016], n=1000,
    ...                verdict="passes")
    >>> picture.png()[:4]
    b'\\x89PNG'
    """

    def __init__(self, labels, gamma: int):
        self.labels = list(labels)
        tokens = np.arange(len(self.labels))
        count_values = np.arange(gamma + 2)
        with styled():
            self.figure = new_figure(10.0, 6.6)
            grid = self.figure.subplot_mosaic([["tokens", "counts"], ["deviation", "deviation"]],
                                              width_ratios=[max(2, len(self.labels)), gamma + 2])
            token_axes, count_axes, deviation_axes = grid["tokens"], grid["counts"], grid["deviation"]
            self.token_axes, self.count_axes, self.deviation_axes = token_axes, count_axes, deviation_axes

            zeros = np.zeros(len(self.labels))
            self.sampled_bars = token_axes.bar(tokens, zeros, width=0.6, color=palette.NEUTRAL,
                                               hatch=SAMPLED_HATCH, edgecolor="white", linewidth=0.5,
                                               label="sampled frequency")
            self.target_bars, self.draft_marks = target_and_draft_marks(token_axes, tokens, draft_size=8)
            token_axes.set_xticks(tokens, self.labels)
            token_axes.set(xlabel="output token", ylabel="frequency / probability", ylim=(0, 1.3),
                           xlim=(-0.6, len(self.labels) - 0.4))
            token_axes.legend(loc="upper right", fontsize=9)  # 9 pt (the minimum): clears the verdict line
            self.token_title = token_axes.set_title(" ")
            self.verdict_text = token_axes.text(0.02, 0.96, "", transform=token_axes.transAxes, va="top",
                                                fontsize=10, fontweight="bold")

            empty = np.zeros(gamma + 2)
            self.count_bars = count_axes.bar(count_values, empty, width=0.6, color=palette.NEUTRAL,
                                             hatch=SAMPLED_HATCH, edgecolor="white", linewidth=0.5,
                                             label="sampled frequency")
            self.count_law_bars = count_axes.bar(count_values, empty, width=0.8, fill=False,
                                                 edgecolor=palette.HIGHLIGHT, linewidth=2, linestyle="--",
                                                 label="exact law (outline)")
            count_axes.set_xticks(count_values)
            count_axes.set(title="Tokens per step", xlabel="tokens emitted by one step",
                           ylabel="frequency / probability", ylim=(0, 1.3), xlim=(-0.6, gamma + 1.6))
            count_axes.legend(loc="upper right")
            self.count_verdict_text = count_axes.text(0.02, 0.96, "", transform=count_axes.transAxes, va="top",
                                                      fontsize=10, fontweight="bold")

            (self.deviation_line,) = deviation_axes.plot([1], [1], color=palette.HIGHLIGHT, marker="o",
                                                         markersize=4, linewidth=1.8,
                                                         label="largest |frequency − p| among the first n steps")
            (self.guide_line,) = deviation_axes.plot([1], [1], color=palette.NEUTRAL, linestyle="--",
                                                     linewidth=1.5, label="1/√n guide (one standard deviation)")
            self.n_marker = deviation_axes.axvline(1e5, color=palette.NEUTRAL, linestyle=":", linewidth=1.5,
                                                   label="n on the slider")
            deviation_axes.set(xscale="log", yscale="log", xlim=N_AXIS, ylim=DEVIATION_AXIS,
                               xlabel="steps n (log scale)", ylabel="largest deviation (log scale)")
            self.deviation_title = deviation_axes.set_title(" ")
            deviation_axes.legend(loc="lower left")
        self.fast = FastRedraw(self.figure, [
            *self.sampled_bars, *self.target_bars, self.draft_marks, self.token_title, self.verdict_text,
            *self.count_bars, *self.count_law_bars, self.count_verdict_text,
            self.deviation_line, self.guide_line, self.n_marker, self.deviation_title,
        ])

    def update(self, position: int, frequencies, target, draft, count_frequencies, count_law,
               sizes, deviations, guide, n: int, verdict: str, count_verdict: str = "") -> None:
        """Show position `position`: its sampled frequencies against p (and q, None for the bonus position).

        `verdict` and `count_verdict` are short texts written on the token and count panels, in green
        when they start with "passes" and in vermillion otherwise.
        """
        for bar, value in zip(self.sampled_bars, frequencies):
            bar.set_height(value)
        for bar, value in zip(self.target_bars, target):
            bar.set_height(value)
        if draft is None:
            self.draft_marks.set_visible(False)
        else:
            self.draft_marks.set_visible(True)
            self.draft_marks.set_ydata(draft)
        for bar, value in zip(self.count_bars, count_frequencies):
            bar.set_height(value)
        for bar, value in zip(self.count_law_bars, count_law):
            bar.set_height(value)
        self.token_title.set_text(f"Output tokens at position {position}")
        self.verdict_text.set_text(verdict)
        self.verdict_text.set_color(palette.ACCEPTED if verdict.startswith("passes") else palette.RESAMPLED)
        self.count_verdict_text.set_text(count_verdict)
        self.count_verdict_text.set_color(palette.ACCEPTED if count_verdict.startswith("passes") else palette.RESAMPLED)
        self.deviation_line.set_data(sizes, np.maximum(deviations, DEVIATION_AXIS[0]))
        self.guide_line.set_data(sizes, guide)
        self.n_marker.set_xdata([n, n])
        self.deviation_title.set_text(f"Position {position}: the largest deviation from p as n grows")

    def png(self) -> bytes:
        """The figure as PNG bytes, redrawing only what changes."""
        with styled():
            return self.fast.png()
