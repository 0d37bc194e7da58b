"""How engines draft (notebook 10): six drafters on one small neural target, verified exactly.

The target is `specdec.neural`'s character transformer; the text, generated with the exact verify
rule, is coloured by origin. Left: acceptance at each draft position in this run. Right: τ (characters
per target pass) against the draft's bytes per step relative to one target pass, for every drafter at
its default setting (`frontier`), with this run marked.
"""

from __future__ import annotations

import functools

import ipywidgets as widgets
import numpy as np

from .. import palette
from ..neural import load_target, speculative_generate
from ..neural.measure import (DRAFTERS, FRONTIER_TEMPERATURES, CHAIN_GAMMA, REPEATING_PROMPTS, TREE_DEPTH, TREE_WIDTH,
                              build_drafter, committed_measurements, cost_of, describe_drafter, held_out_prompts,
                              measure_drafter)
from ..neural.costs import predicted_speedup
from ..validation import Between, Count, OneOf, checked
from .text import origin_html
from .frame import (COMPACT_FIGURE_INCHES, DRAFT_GAMMA_SLIDER_RANGE, Explorer, FastRedraw, Picture, Readout, bold,
                    compact, labelled, line, new_figure, panel_axes, role_style, slider, styled)

RUN_LENGTH = 64  #: characters generated per run
#: Slider ranges (γ of the chains: `DRAFT_GAMMA_SLIDER_RANGE`): the Medusa tree's width and depth, the temperature
#: (whose stops are the temperatures at which the frontier is committed).
WIDTH_RANGE = (1, 4)
DEPTH_RANGE = (1, 3)
FRONTIER_TEMPERATURE_RANGE = (FRONTIER_TEMPERATURES[0], FRONTIER_TEMPERATURES[-1])
FRONTIER_TEMPERATURE_STEP = FRONTIER_TEMPERATURES[1] - FRONTIER_TEMPERATURES[0]
FRONTIER_PROMPTS, FRONTIER_LENGTH = 3, 32  #: held-out prompts, and characters after each, measuring the frontier
FRONTIER_XMAX = 2.6  #: the right end of the τ-against-cost axis, which holds every drafter at its default setting
MAX_PROMPT = 64  #: the longest prompt accepted: the target's context is 128 characters and 64 are generated
#: The frontier's marker for each drafter: a drafter is no role of `specdec.palette.ROLES`, so the markers
#: are grey with a black edge and differ by shape (the distilled draft, a variant of the draft model, hollow).
MARKERS = {"draft model": "o", "distilled draft": "s", "layer skip": "^", "Medusa": "D", "EAGLE": "P",
           "prompt lookup": "X"}
#: The origins of the text, as its legend names them.
ORIGIN_NAMES = {"accepted": "accepted draft character", "resampled": "resampled after a rejection",
                "bonus": "bonus from the target (also: a step with no draft)"}


def prompt_text(value, name, _arguments=None) -> str:
    """A declared check: a prompt of 1 … `MAX_PROMPT` characters."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not 1 <= len(value) <= MAX_PROMPT:
        raise ValueError(f"{name} must hold 1 … {MAX_PROMPT} characters, got {len(value)}")
    return value


class DraftersFigure(Picture):
    """Acceptance by draft position in one run (left); τ against draft bytes per step, every drafter (right).

    Examples
    --------
    >>> picture = DraftersFigure()
    >>> picture.update([0.8, 0.6, None], "EAGLE", {"EAGLE": (0.3, 2.5)}, (0.3, 2.4), "T = 1")
    >>> [round(bar.get_height(), 2) for bar in picture.position_bars[:3]]
    [0.8, 0.6, 0.0]
    """

    def __init__(self):
        short = compact()  # presentation mode: the panels are stacked, shorter axis labels
        with styled():
            self.figure = new_figure(9.6, 3.9, compact_size=COMPACT_FIGURE_INCHES)
            bars_axes, self.frontier_axes = panel_axes(self.figure, 2, width_ratios=(1, 1.3))
            longest = DRAFT_GAMMA_SLIDER_RANGE[1]
            positions = np.arange(1, longest + 1)
            self.position_bars = bars_axes.bar(positions, np.zeros(positions.size), width=0.7, **role_style("accepted"),
                                               edgecolor=palette.HIGHLIGHT, linewidth=0.6)
            bars_axes.set(xlabel="draft position (tree: depth)", xlim=(0.4, longest + 0.6), xticks=positions,
                          ylabel="accepted" if short else "share accepted when reached", ylim=(0, 1.05))
            self.position_title = bars_axes.set_title(" ")
            self.points = {}
            for name in DRAFTERS:
                (self.points[name],) = self.frontier_axes.plot(
                    [np.nan], [np.nan], linestyle="none", marker=MARKERS[name], markersize=9, color=palette.HIGHLIGHT,
                    markerfacecolor="white" if name == "distilled draft" else palette.NEUTRAL, label=name)
            (self.run_point,) = self.frontier_axes.plot(
                [np.nan], [np.nan], linestyle="none", marker="o", markersize=16, markerfacecolor="none",
                markeredgecolor=palette.HIGHLIGHT, markeredgewidth=2, label="this run")
            self.frontier_axes.set(xlabel="draft bytes per step ÷ one target pass", xlim=(-0.1, FRONTIER_XMAX),
                                   ylabel="τ" if short else "τ: characters per pass", ylim=(0.8, longest + 1.5))
            # Beside the panel: inside, a high τ or a costly drafter (layer skip, this run's ring) runs under it.
            self.frontier_axes.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), borderaxespad=0, fontsize="small")
            self.frontier_title = self.frontier_axes.set_title(" ")
        self.fast = FastRedraw(self.figure, [*self.position_bars, self.position_title, *self.frontier_axes.lines,
                                             self.frontier_title], occasional=[self.frontier_axes.xaxis])

    def update(self, acceptance, drafter: str, frontier: dict, run_point, temperature_label: str) -> None:
        """Bars of acceptance by position (None: not reached), the frontier's points, this run's point."""
        for i, bar in enumerate(self.position_bars):
            value = acceptance[i] if i < len(acceptance) else None
            bar.set_height(0.0 if value is None else value)
            bar.set_alpha(1.0 if i < len(acceptance) else 0.15)
        self.position_title.set_text(f"{drafter}: acceptance by position")
        for name, point in self.points.items():
            x, y = frontier.get(name, (np.nan, np.nan))
            point.set_data([x], [y])
        self.run_point.set_data([run_point[0]], [run_point[1]])
        # A long layer-skip chain costs more than the defaults' range: widen the axis so this run stays on it.
        right = max(FRONTIER_XMAX, 1.08 * run_point[0]) if np.isfinite(run_point[0]) else FRONTIER_XMAX
        if right != self.frontier_axes.get_xlim()[1]:
            self.frontier_axes.set_xlim(-0.1, right)
            self.fast.invalidate()
        self.frontier_title.set_text(f"τ against draft cost, {temperature_label}")


_target = functools.cache(load_target)  # the target, loaded once


@functools.lru_cache(maxsize=64)
def run_of(name: str, gamma: int, width: int, depth: int, prompt: str, temperature: float, seed: int):
    """The `speculative_generate` run of these settings, kept: a setting seen before is not run again."""
    target = _target()
    return speculative_generate(target, build_drafter(name, target, gamma, width, depth), prompt, RUN_LENGTH,
                                temperature, np.random.default_rng(seed))


@functools.lru_cache(maxsize=8)
def frontier(temperature: float) -> dict:
    """Each drafter at its default setting: (draft bytes per step, τ); at the slider's temperatures
    (`FRONTIER_TEMPERATURES`) from the committed measurements (16 held-out prompts), at any other
    measured here once on `FRONTIER_PROMPTS` prompts of `FRONTIER_LENGTH` characters, seed 0."""
    committed = committed_measurements()["frontier"].get(f"T={temperature:g}")
    if committed:
        return {name: tuple(committed[name]) for name in DRAFTERS}
    prompts = held_out_prompts(FRONTIER_PROMPTS)
    measured = {name: measure_drafter(_target(), name, prompts, FRONTIER_LENGTH, temperature, seeds=(0,))
                for name in DRAFTERS}
    return {name: (result["bytes_per_step"], result["tau"]) for name, result in measured.items()}


class DraftersExplorer(Explorer):
    """A drafter, its γ or tree, a temperature and a prompt in; the coloured text, τ and the frontier out.

    Parameters
    ----------
    drafter : one of `specdec.neural.measure.DRAFTERS`
    gamma, width, depth : int in 1 … 8 (the chains' draft length), the Medusa tree's 1 … 4 and 1 … 3
    temperature, prompt, seed : float in [0, 1.5] (the target's and the drafter's), 1 … 64 characters, int

    Attributes
    ----------
    shown : the controls' values, ``run`` (the `specdec.neural.NeuralRun`), ``tau``, ``acceptance`` (by position),
        ``cost`` (the `DraftCost`), ``bytes_per_step``, ``speedup`` (`predicted_speedup`), ``frontier``.

    Examples
    --------
    >>> explorer = DraftersExplorer(drafter="prompt lookup", temperature=0.0, prompt=REPEATING_PROMPTS[0])
    >>> explorer.shown["tau"] >= 1.0
    True
    """

    title = "How engines draft: six drafters, one target"

    @checked(drafter=OneOf(*DRAFTERS), gamma=Count(*DRAFT_GAMMA_SLIDER_RANGE), width=Count(*WIDTH_RANGE),
             depth=Count(*DEPTH_RANGE), temperature=Between(*FRONTIER_TEMPERATURE_RANGE), prompt=prompt_text,
             seed=Count(0, 10**9))
    def __init__(self, drafter="EAGLE", gamma=CHAIN_GAMMA, width=TREE_WIDTH, depth=TREE_DEPTH, temperature=1.0,
                 prompt=REPEATING_PROMPTS[0], seed=0):
        self.text_view = widgets.HTML()
        prompts = [*REPEATING_PROMPTS[:2], *held_out_prompts(3)]
        controls = {
            "drafter": labelled(widgets.Dropdown, "drafter", options=list(DRAFTERS), value=drafter,
                                layout=widgets.Layout(width="18em")),
            "gamma": slider("γ (chains)", gamma, DRAFT_GAMMA_SLIDER_RANGE, continuous_update=False),
            "width": slider("tree width (Medusa)", width, WIDTH_RANGE, continuous_update=False),
            "depth": slider("tree depth (Medusa)", depth, DEPTH_RANGE, continuous_update=False),
            "temperature": slider("temperature", temperature, FRONTIER_TEMPERATURE_RANGE, FRONTIER_TEMPERATURE_STEP,
                                  readout_format=".2f", continuous_update=False),
            "prompt": labelled(widgets.Combobox, "prompt", value=prompt, options=prompts, continuous_update=False,
                               ensure_option=False, layout=widgets.Layout(width="30em")),
            "seed": labelled(widgets.BoundedIntText, "seed", value=seed, min=0, max=10**9,
                             layout=widgets.Layout(width="10em")),
        }
        rows = [["drafter", "gamma", "temperature"], ["width", "depth"], ["prompt", "seed"]]
        super().__init__(controls, rows, DraftersFigure(),
                         compact_rows=([["drafter"], ["temperature"]], [["gamma"], ["width", "depth"],
                                                                        ["prompt"], ["seed"]]))
        header, *control_rows, body = self.children
        self.children = (header, body, self.text_view) if self.compact else (header, *control_rows, self.text_view,
                                                                             body)

    def compute(self) -> dict:
        values = {name: self.value(name) for name in self.controls}
        prompt = values["prompt"][:MAX_PROMPT] or " "
        temperature = float(values["temperature"])
        name, gamma, width, depth = values["drafter"], values["gamma"], values["width"], values["depth"]
        run = run_of(name, gamma, width, depth, prompt, temperature, values["seed"])
        positions = depth if name == "Medusa" else gamma
        acceptance = [None if np.isnan(r) else float(r) for r in run.acceptance_by_position(positions)]
        cost = cost_of(name, _target(), gamma, width, depth)
        drafted = run.drafted_per_step
        bytes_per_step = cost.bytes_per_step if name == "Medusa" else cost.bytes_per_token * drafted
        passes = sum(step.draft_passes for step in run.steps) / run.target_passes
        points = frontier(temperature)
        self.picture.update(acceptance, name, points, (bytes_per_step, run.tau), f"T = {temperature:g}")
        self.text_view.value = origin_html(prompt, run.text, run.origins, ORIGIN_NAMES, height="11em")
        return {**values, "run": run, "tau": run.tau, "acceptance": acceptance, "cost": cost,
                "bytes_per_step": bytes_per_step, "drafted_per_step": drafted, "frontier": points,
                "speedup": predicted_speedup(run.tau, cost, drafted, passes)}

    def describe(self, shown: dict) -> Readout:
        run, cost, name = shown["run"], shown["cost"], shown["drafter"]
        shape = (f"tree {shown['width']} wide, {shown['depth']} deep" if name == "Medusa" else f"γ = {shown['gamma']}")
        rates = ", ".join("–" if r is None else f"{r:.2f}" for r in shown["acceptance"])
        about = describe_drafter(name, shown["width"], shown["depth"])
        return Readout([
            line(bold(name), f" ({shape}), temperature {shown['temperature']:g}: {about}"),
            line("τ = ", bold(f"{shown['tau']:.2f}"), f" characters per target pass ({len(run.text)} characters in "
                 f"{run.target_passes} passes, bonus included)", key=True),
            line("acceptance by position: ", bold(rates), key=True),
            line("characters by origin: ",
                 ", ".join(f"{origin} {run.origins.count(origin)}" for origin in ORIGIN_NAMES)),
            line(f"draft cost per drafted character: {cost.flops_per_token:.3f} of a target pass in FLOPs, "
                 f"{cost.bytes_per_token:.3f} in bytes; per step ", bold(f"{shown['bytes_per_step']:.3f}"),
                 " of a target pass in bytes", key=True),
            line("predicted speedup, a target of Llama 3.1 8B's size on an H100 with the same relative draft cost: ",
                 bold(f"{shown['speedup']:.2f}×"), key=True),
            line("Every drafter here is verified exactly: the text has the target's law whatever the draft; "
                 "a better draft only makes it cheaper.", note=True),
        ])
