"""The KV caches through verify steps (notebook 11): the target's and the draft's slots, written, kept, cropped.

Around the step on screen: the slots the step wrote and kept, those it cropped (or, under a broken rule,
failed to crop), the draft's catch-up slot and the last token emitted (no slot yet). The readout
compares the text with plain greedy decoding at T = 0.
"""

from __future__ import annotations

import functools

import ipywidgets as widgets
import numpy as np
from matplotlib.patches import PathPatch
from matplotlib.path import Path

from .. import palette
from ..validation import Count, OneOf, checked
from ..neural import greedy_text, load_draft, load_target
from ..serving.kv_cache_steps import CACHE_RULES, generate_with_caches
from .frame import (SEED_SLIDER_MAX, Explorer, FastRedraw, Picture, Readout, bold, compact, labelled, line, new_figure,
                    role_patch, role_style, slider, styled)

#: The prompt and the characters each run generates.
PROMPT = "Return the "
TEXT_LENGTH = 16
WINDOW = 14  #: slots shown: the step's slots and a few before them
COMPACT_WINDOW = 8  #: fewer, wider slots in presentation mode
PICTURES_KEPT = 128  #: how many PNGs of states drawn the figure keeps: a state looks the same each time it is shown
KV_GAMMA_RANGE = (1, 6)
RULE_MENU = [("crop and catch up (exact)", "exact"), ("target forgets to crop", "forgets_to_crop"),
             ("draft not caught up", "forgets_catch_up")]
TEMPERATURES = {"greedy, T = 0": 0.0, "sampled, T = 1": 1.0}
#: How each kind of slot is drawn (edges: `EDGE`, unless the kind says otherwise).
EDGE = {"edgecolor": palette.NEUTRAL, "linewidth": 0.8}
SLOT_STYLES = {"earlier": {"facecolor": "#EEEEEE", "hatch": ""}, "kept": role_style("accepted"),
               "cropped": role_style("reject zone"), "catch-up": role_style("draft"),
               "next": {**role_style("bonus"), "linestyle": "--"},
               "stale": {**role_style("reject zone"), "edgecolor": palette.HIGHLIGHT, "linewidth": 2.0}}
ROWS = {"target": 1, "draft": 0}  #: the height of each row of slots


@functools.cache
def _models():
    return load_target(), load_draft()


@functools.lru_cache(maxsize=64)
def cache_run(gamma: int, rule: str, temperature: float, seed: int):
    """The recorded run for these settings (cached)."""
    target, draft = _models()
    return generate_with_caches(target, draft, PROMPT, TEXT_LENGTH, gamma, temperature, np.random.default_rng(seed),
                                rule=rule)


@functools.cache
def plain_text() -> str:
    return greedy_text(_models()[0], PROMPT, TEXT_LENGTH)


def slot_kinds(step, rule: str, window: int = WINDOW):
    """Per row ('target', 'draft'): the first slot shown and, for each slot, (kind, character id). Kinds:
    'earlier' (before the step), 'kept' (written by it, kept), 'cropped' (written, thrown away), 'stale'
    (should have been cropped and was not), 'catch-up', 'next' (the last emitted token: no slot yet)."""
    rows = {}
    for row, start, written, kept, after in (
            ("target", step.start, step.target_written, step.target_kept, step.target_tokens_after),
            ("draft", step.draft_start, step.draft_written, step.draft_kept, step.draft_tokens_after)):
        dropped = "stale" if row == "target" and rule == "forgets_to_crop" else "cropped"
        kinds = [("earlier", token) for token in list(after)[:start]]
        fed = [step.pending, *step.drafted][:written]
        kinds += [("kept" if i < kept else dropped, token) for i, token in enumerate(fed)]
        if row == "draft" and step.draft_caught_up:
            kinds.append(("catch-up", step.drafted[-1]))
        rows[row] = [*kinds, ("next", step.emitted[-1])]
    first = max(0, max(len(kinds) for kinds in rows.values()) - window)
    return {row: (first, kinds[first:]) for row, kinds in rows.items()}


def _slots(places) -> Path:
    """One path of the boxes at (slot, row height) `places` (a patch per kind draws far faster than one per slot)."""
    boxes = [[(x - 0.45, y - 0.4), (x + 0.45, y - 0.4), (x + 0.45, y + 0.4), (x - 0.45, y + 0.4)] for x, y in places]
    return Path.make_compound_path_from_polys(np.array(boxes, dtype=float).reshape(-1, 4, 2))


class KVCacheFigure(Picture):
    """Two rows of cache slots (target above, draft below) with the characters they hold."""

    def __init__(self):
        self.window = COMPACT_WINDOW if compact() else WINDOW
        with styled():
            self.figure = new_figure(9.0, 3.4, compact_size=(6.4, 4.4))
            self.axes = self.figure.add_subplot(xlabel="cache slot (position in the text)", ylim=(-0.85, 1.7),
                                                xlim=(-0.6, self.window - 0.4), xticks=[], yticks=[1, 0],
                                                yticklabels=["target", "draft"], ylabel="cache")
            self.slots = {kind: self.axes.add_patch(PathPatch(_slots([]), **{**EDGE, **style}))
                          for kind, style in SLOT_STYLES.items()}
            self.letters = {row: [self.axes.text(i, y, "", ha="center", va="center", fontsize="small")
                                  for i in range(self.window)] for row, y in ROWS.items()}
            # The figure's own legend, under the panel: the layout leaves room for it (an axes legend lost a row).
            keys = [role_patch("accepted", "written, kept"), role_patch("reject zone", "cropped"),
                    role_patch("reject zone", "not cropped", edgecolor=palette.HIGHLIGHT, linewidth=2),
                    role_patch("draft", "catch-up"), role_patch("bonus", "next: no slot yet")]
            self.figure.legend(handles=keys, loc="outside lower center", ncols=2 if compact() else 3, fontsize="small")
            self.title = self.axes.set_title(" ")
            self.slot_numbers = [self.axes.text(i, -0.62, "", ha="center", va="center", fontsize="small",
                                                color=palette.NEUTRAL) for i in range(0, self.window, 2)]
        self.state, self.pictures = None, {}  # the state on screen; PNGs of states drawn, oldest first
        self.fast = FastRedraw(self.figure, changing=[*self.slots.values(), *self.letters["target"],
                                                      *self.letters["draft"], self.title], occasional=self.slot_numbers)

    def update(self, rows, decode, title: str) -> None:
        places = {kind: [] for kind in self.slots}
        for row, (_first, kinds) in rows.items():
            for i, letter in enumerate(self.letters[row]):
                letter.set_visible(i < len(kinds))
                if i < len(kinds):
                    kind, token = kinds[i]
                    places[kind].append((i, ROWS[row]))
                    letter.set_text(decode([token]).replace(" ", "␣"))
        for kind, patch in self.slots.items():
            patch.set_path(_slots(places[kind]))
        first = min(first for first, _kinds in rows.values())
        if self.slot_numbers[0].get_text() != str(first):  # the slot numbers change only with the first slot shown
            for k, number in enumerate(self.slot_numbers):
                number.set_text(str(first + 2 * k))
            self.fast.invalidate()
        self.title.set_text(title)
        self.state = (title, *((first, tuple(kinds)) for first, kinds in rows.values()))

    def png(self) -> bytes:
        if self.state not in self.pictures:
            if len(self.pictures) == PICTURES_KEPT:
                del self.pictures[next(iter(self.pictures))]
            self.pictures[self.state] = super().png()
        return self.pictures[self.state]


class KVCacheExplorer(Explorer):
    """The target's and the draft's KV caches, one verify step at a time, under a cache rule.

    Parameters
    ----------
    gamma, rule, temperature : int in 1 … 6, one of `CACHE_RULES`, 0.0 or 1.0
    seed, step : int in 0 … 99, int >= 1 (the verify step on screen, clipped to the run's steps)

    Examples
    --------
    >>> explorer = KVCacheExplorer(gamma=3)
    >>> explorer.shown["step"].target_written
    4
    """

    title = "The KV caches at each verify step"

    @checked(gamma=Count(*KV_GAMMA_RANGE), rule=OneOf(*CACHE_RULES), temperature=OneOf(0.0, 1.0),
             seed=Count(0, SEED_SLIDER_MAX), step=Count(1, TEXT_LENGTH))
    def __init__(self, gamma=4, rule="exact", temperature=0.0, seed=0, step=1):
        controls = {
            "rule": labelled(widgets.Dropdown, "cache rule", label_above="compact", value=rule, options=RULE_MENU),
            "temperature": labelled(widgets.Dropdown, "temperature", value=temperature, options=TEMPERATURES.items()),
            "gamma": slider("draft length γ", gamma, KV_GAMMA_RANGE),
            "step": slider("verify step", step, (1, TEXT_LENGTH)),
            "seed": slider("seed", seed, (0, SEED_SLIDER_MAX)),
            "next": widgets.Button(description="next step ▶"),
        }
        super().__init__(controls, [["rule", "temperature"], ["gamma", "step"], ["seed", "next"]], KVCacheFigure())
        self.on_click("next", self.next_step)

    def next_step(self):
        self.controls["step"].value = min(self.value("step") + 1, len(self.shown["run"].steps))

    def compute(self):
        run = cache_run(*(self.value(name) for name in ("gamma", "rule", "temperature", "seed")))
        index = min(self.value("step"), len(run.steps)) - 1
        step = run.steps[index]
        target = _models()[0]
        self.picture.update(slot_kinds(step, run.rule, self.picture.window), target.decode,
                            f"step {index + 1} of {len(run.steps)}: {step.accepted} of {len(step.drafted)} accepted")
        plain = plain_text()
        return {"run": run, "step": step, "index": index, "rule": run.rule, "temperature": run.temperature,
                "text_so_far": target.decode(run.tokens[: sum(len(s.emitted) for s in run.steps[: index + 1])]),
                "differs_at": next((i for i, (a, b) in enumerate(zip(run.text, plain)) if a != b), None),
                "plain": plain, "mean_accepted": float(np.mean(run.accepted_counts))}

    def describe(self, shown):
        step = shown["step"]
        left = step.target_cropped if shown["rule"] == "forgets_to_crop" else 0  # rejected slots left in the cache
        verdict = ("sampled: compare laws, not one text" if shown["temperature"] != 0.0
                   else "same as plain greedy decoding" if shown["differs_at"] is None
                   else f"differs from plain greedy decoding from character {shown['differs_at'] + 1}")
        return Readout([
            line("Target: wrote ", bold(step.target_written), " slots, kept ", bold(step.target_kept), ", cropped ",
                 bold(step.target_cropped - left),
                 f" ({left} rejected slot{'' if left == 1 else 's'} left in the cache)" if left else ""),
            line("Draft: wrote ", step.draft_written, ", kept ", step.draft_kept, ", cropped ", step.draft_cropped,
                 ", caught up ", step.draft_caught_up),
            line("Text so far: ", repr(shown["text_so_far"]), key=False),
            line("Whole run: ", bold(verdict)),
            line(f"Mean accepted per step: {shown['mean_accepted']:.2f} of γ = {shown['run'].gamma}", key=False),
        ])
