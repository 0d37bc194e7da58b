"""Speculation under load (notebook 11): the batch's tokens per second and one request's time per token, against b.

Notebook 05's cost model: Llama 3.1 70B verified, Llama 3.2 1B drafting, on four H100 SXM treated as
one. Batch sizes that do not fit are left out; the batch size where speculation stops paying is marked.
"""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from .. import palette
from ..hardware import ACCELERATORS, MODELS, cluster
from ..serving.load import LOAD_BATCHES, LONG_CONTEXT, SHORT_CONTEXT, load_curves
from ..validation import Count, OneOf, Probability, checked
from .frame import (COMPACT_FIGURE_INCHES, DRAFT_GAMMA_SLIDER_RANGE, Explorer, FastRedraw, Picture, Readout, bold,
                    compact, labelled, line, new_figure, panel_axes, slider, styled)

DEVICES = cluster(ACCELERATORS["H100 SXM"], 4)
TARGET_MODEL, DRAFT_MODEL = MODELS["Llama 3.1 70B"], MODELS["Llama 3.2 1B"]
CONTEXTS = {f"short ({SHORT_CONTEXT:,} tokens)": SHORT_CONTEXT, f"long ({LONG_CONTEXT:,} tokens)": LONG_CONTEXT}


def curves_for(gamma: int, alpha: float, context: int):
    """The load curves of the lesson's setting."""
    return load_curves(DEVICES, TARGET_MODEL, DRAFT_MODEL, gamma, alpha, context=context)


class LoadFigure(Picture):
    """Two log-log panels against batch size: tokens/s of the batch, seconds per token of one request."""

    def __init__(self):
        short = compact()
        with styled():
            self.figure = new_figure(9.6, 3.8, compact_size=COMPACT_FIGURE_INCHES)
            self.throughput_axes, self.latency_axes = panels = panel_axes(self.figure, 2)
            self.lines, batches, marked = {}, np.array(LOAD_BATCHES), [2 ** k - 1 for k in range(11)]  # b = 1, 2, 4, …
            for axes, kind in zip(panels, ("tokens", "seconds")):
                (self.lines[kind, "plain"],) = axes.plot(batches, np.ones(batches.size), color=palette.HIGHLIGHT,
                                                         marker="o", markevery=marked, label="plain decoding")
                (self.lines[kind, "speculative"],) = axes.plot(batches, np.ones(batches.size), color=palette.NEUTRAL,
                                                               marker="s", markevery=marked, linestyle="--",
                                                               label="speculative")
                axes.set_xscale("log", base=2)
                axes.set(yscale="log", xlim=(0.7, 1500), xlabel="batch size b")
            self.throughput_axes.set(ylabel="tokens/s" if short else "tokens/s, whole batch", ylim=(10, 1e5))
            self.latency_axes.set(ylabel="s/token" if short else "s per token, one request", ylim=(1e-3, 1))
            self.throughput_axes.legend(loc="lower right", fontsize="small")
            self.crossovers = [axes.axvline(np.nan, color=palette.NEUTRAL, linestyle=":", linewidth=1.5)
                               for axes in panels]
            self.title = self.latency_axes.set_title(" ")
        self.fast = FastRedraw(self.figure, changing=[*self.lines.values(), *self.crossovers, self.title])

    def update(self, curves) -> None:
        for kind, plain, speculative in (
                ("tokens", curves.plain_tokens_per_second, curves.speculative_tokens_per_second),
                ("seconds", curves.plain_seconds_per_token, curves.speculative_seconds_per_token)):
            self.lines[kind, "plain"].set_data(curves.batches, np.where(curves.fits_plain, plain, np.nan))
            self.lines[kind, "speculative"].set_data(curves.batches,
                                                     np.where(curves.fits_speculative, speculative, np.nan))
        crossover = curves.latency_crossover
        for marker in self.crossovers:
            marker.set_xdata([np.nan if crossover is None else crossover] * 2)
        self.title.set_text("no crossover in range" if crossover is None else
                            "no gain even at b = 1" if crossover == 1 else f"stops paying at b = {crossover}")


class LoadExplorer(Explorer):
    """Tokens per second and time per token against batch size, with and without speculation.

    Parameters
    ----------
    context, gamma, alpha : `SHORT_CONTEXT` or `LONG_CONTEXT`, int in 1 … 8, float in [0, 1]

    Examples
    --------
    >>> explorer = LoadExplorer()
    >>> explorer.shown["curves"].latency_crossover
    303
    """

    title = "Speculation under load"

    @checked(context=OneOf(SHORT_CONTEXT, LONG_CONTEXT), gamma=Count(*DRAFT_GAMMA_SLIDER_RANGE),
             alpha=Probability())
    def __init__(self, context=SHORT_CONTEXT, gamma=4, alpha=0.8):
        controls = {"context": labelled(widgets.Dropdown, "context", label_above="compact",
                                        options=list(CONTEXTS.items()), value=context),
                    "gamma": slider("draft length γ", gamma, DRAFT_GAMMA_SLIDER_RANGE),
                    "alpha": slider("acceptance rate α", alpha, (0.0, 1.0), 0.05)}
        super().__init__(controls, [["context"], ["gamma", "alpha"]], LoadFigure())

    def compute(self):
        curves = curves_for(self.value("gamma"), self.value("alpha"), self.value("context"))
        self.picture.update(curves)
        return {"curves": curves, "context": self.value("context")}

    def describe(self, shown):
        curves = shown["curves"]
        crossover = curves.latency_crossover
        fits_plain, fits_spec = (int(curves.batches[fits].max()) if fits.any() else 0
                                 for fits in (curves.fits_plain, curves.fits_speculative))
        best_plain, best_spec = curves.best_plain_throughput, curves.best_speculative_throughput
        return Readout([
            line(f"Context {shown['context']:,} tokens: largest batch that fits {fits_plain} plain, {fits_spec} "
                 "with the draft"),
            latency_line(crossover, fits_spec),
            line("Best throughput: plain ", bold(f"{best_plain:,.0f} tokens/s"), ", speculative ",
                 bold(f"{best_spec:,.0f} tokens/s")),
            line("For throughput, speculation " + ("pays" if best_spec > best_plain else "does not pay") +
                 " at the best batch each can fit."),
        ])


def latency_line(crossover: int | None, fits: int):
    """The readout's latency line: where speculation stops paying, and whether that batch fits with the draft."""
    if crossover is None:
        return line(f"Latency: speculation pays at every batch size up to {LOAD_BATCHES[-1]:,}",
                    f", though only b ≤ {fits:,} fits with the draft" if fits < LOAD_BATCHES[-1] else "")
    if crossover == 1:
        return line("Latency: speculation ", bold("does not pay even at b = 1"))
    return line("Latency: speculation stops paying at ", bold(f"b = {crossover}"),
                f", past the largest batch that fits with the draft ({fits:,})" if crossover > fits else "")
