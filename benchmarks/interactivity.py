"""How long a learner waits: the time from a control change to the updated view, for every control.

``python -m benchmarks interactivity`` builds each explorer of the series, then changes each of
its controls several times (sliders to spread-out positions, choices to each option in turn, buttons
pressed) and times each change from setting the value to the moment the explorer has rendered its
new PNG and readout: what a notebook shows. It prints, per control, the median and the worst time,
then the median, the 95th percentile and the worst over all changes, against the goals: median
<= 50 ms, 95th percentile <= 100 ms, worst <= 250 ms.

Explorers are timed in the groups the notebooks build them in, each group closed before the next is
built, because a notebook's kernel holds only its own explorers; the full garbage collections that
fall in the run are counted and their longest printed.

What is measured: the kernel's side (the explorer's callback, the figure update and the PNG
encoding). What is not: the message to the browser and the browser drawing the image, which
depend on the browser and the network (on Binder, mostly the network). Wall times depend on what
else the machine is doing: the load average is printed before and after, and the tests never
assert any of these times.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import statistics
import time
from pathlib import Path

import numpy as np


#: The notebooks whose code says which explorers share a kernel.
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

#: Goals on the project's 2-core machine, in milliseconds.
GOAL_MEDIAN_MS = 50.0
GOAL_P95_MS = 100.0
GOAL_WORST_MS = 250.0

#: How many tries per wanted timed click a button gets (some clicks change nothing).
BUTTON_ATTEMPTS = 4

#: What is typed into a text box, in turn (the real-text explorer's prompt).
TYPED_TEXTS = ("Return the ", "The number of ", "If the file ", "This module ", "A list of ")

#: Where on its range a slider is moved, in order, as fractions of the range.
SLIDER_STOPS = (0.5, 0.75, 1.0, 0.9, 0.25, 0.0, 0.1, 0.6, 0.4, 0.8, 0.3, 0.7)


def load_explorers(names=None) -> dict:
    """The explorer classes to time, by class name: every one `specdec.explore` discovers, or those in `names`."""
    from specdec.explore import EXPLORERS

    return {name: explorer for name, explorer in EXPLORERS.items() if not names or name in names}


def changes_for(control, count: int) -> list:
    """`count` actions on one control, each a function that makes one change a learner could make."""
    if _is_button(control):
        return [control.click] * count
    if hasattr(control, "options") and len(control.options) > 1:
        values = [_option_value(option) for option in control.options]
        start = values.index(control.value) if control.value in values else 0
        order = [values[(start + 1 + i) % len(values)] for i in range(count)]
        return [_setter(control, value) for value in order]
    if isinstance(control.value, bool):
        return [_toggler(control)] * count
    if isinstance(control.value, str):  # a text box: what a learner might type, in turn
        return [_setter(control, TYPED_TEXTS[i % len(TYPED_TEXTS)]) for i in range(count)]
    if isinstance(control.value, tuple):  # range sliders: not used by the explorers
        return []
    if hasattr(control, "base"):  # a log slider: min and max are exponents of `base`
        return [_setter(control, control.base ** exponent) for exponent in _exponents(control, count)]
    if hasattr(control, "min") and hasattr(control, "max"):
        return [_setter(control, value) for value in _slider_values(control, count)]
    return []


def measure_control(explorer, name: str, count: int, rng) -> tuple[list[float], int]:
    """Milliseconds taken by each change to one control that changed the view, and the no-op count.

    A button can leave the view as it is (Back at the first draw, Reset right after a reset). So that
    its clicks are timed in different states, each click of a button is preceded, untimed, by one to
    four clicks of the explorer's other buttons, chosen at random, and a button gets up to
    `BUTTON_ATTEMPTS` times `count` tries to collect `count` timed clicks. Changes that alter neither
    the picture nor the readout are counted apart and left out of the times.
    """
    control = explorer.controls[name]
    is_button = _is_button(control)
    others = [other for key, other in explorer.controls.items() if key != name and _is_button(other)]
    attempts = count * BUTTON_ATTEMPTS if is_button else count
    times, unchanged = [], 0
    for change in changes_for(control, attempts):
        if is_button and len(times) == count:
            break
        if is_button and others:
            for _ in range(int(rng.integers(1, 5))):
                others[int(rng.integers(len(others)))].click()
        before = (explorer.image.value, explorer.readout.value)
        start = time.perf_counter()
        change()
        elapsed = (time.perf_counter() - start) * 1000.0
        if (explorer.image.value, explorer.readout.value) == before:
            unchanged += 1
        else:
            times.append(elapsed)
    return times, unchanged


def notebook_groups(explorers: dict, notebooks=NOTEBOOKS) -> list[list[str]]:
    """The explorers' names grouped as the notebooks use them: those a notebook's code builds, in the order of
    the notebooks, then each explorer no notebook builds on its own. Found by reading the notebooks' code."""
    groups, placed = [], set()
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        code = " ".join("".join(cell["source"]) for cell in json.loads(path.read_text())["cells"]
                        if cell["cell_type"] == "code")
        built = [name for name in explorers if name not in placed and re.search(rf"\b{name}\(", code)]
        if built:
            groups.append(built)
            placed.update(built)
    return groups + [[name] for name in explorers if name not in placed]


def measure(names=None, count: int = 8, seed: int = 0) -> dict:
    """Build each notebook's explorers and time every control; returns the rows of the report and the totals.

    A notebook's kernel holds only that notebook's explorers, so each group is closed (its widgets and
    figures let go, then collected, untimed) before the next is built: otherwise all the explorers' objects
    accumulate in one process and Python's full garbage collections, which scan every live object and can
    fall inside a timed change, grow with them. Those collections are counted and timed all the same.
    """
    import ipywidgets

    explorers = load_explorers(names)
    rng = np.random.default_rng(seed)
    rows, all_times, builds, pauses = [], [], {}, []
    groups = notebook_groups(explorers)
    collection = {"started": None, "untimed": False}

    def time_collections(phase, info):
        if info["generation"] < 2 or collection["untimed"]:
            return
        if phase == "start":
            collection["started"] = time.perf_counter()
        elif collection["started"] is not None:
            pauses.append((time.perf_counter() - collection["started"]) * 1000.0)
            collection["started"] = None

    gc.callbacks.append(time_collections)
    try:
        for group in groups:
            for name in group:
                start = time.perf_counter()
                explorer = explorers[name]()
                builds[name] = (time.perf_counter() - start) * 1000.0
                for control_name, control in explorer.controls.items():
                    times, unchanged = measure_control(explorer, control_name, count, rng)
                    all_times.extend(times)
                    rows.append({
                        "explorer": name, "control": control_name, "kind": type(control).__name__,
                        "continuous": getattr(control, "continuous_update", None),
                        "times": times, "unchanged": unchanged,
                    })
            explorer = None
            ipywidgets.Widget.close_all()
            collection["untimed"] = True
            gc.collect()
            collection["untimed"] = False
    finally:
        gc.callbacks.remove(time_collections)
    return {"rows": rows, "times": all_times, "builds": builds, "groups": groups, "full_collections": pauses}


def report(result: dict, load_before, load_after) -> list[str]:
    lines = [
        "Time from a control change to the updated view (callback + figure + PNG), in ms.",
        f"Machine: {os.cpu_count()} CPUs; load average (1, 5, 15 min) before "
        f"{_load(load_before)}, after {_load(load_after)}.",
        "",
        f"{'explorer':<22} {'control':<20} {'widget':<13} {'drag':<5} {'n':>3} {'median':>7} {'worst':>7}"
        f"  {'no-op':>5}",
    ]
    for row in result["rows"]:
        times = row["times"]
        drag = {True: "live", False: "drop", None: ""}[row["continuous"]]
        start = f"{row['explorer']:<22} {row['control']:<20} {row['kind']:<13} {drag:<5}"
        if not times:
            lines.append(f"{start}   (not measured: {row['unchanged']} changes left the view as it was)")
            continue
        lines.append(f"{start} {len(times):>3} {statistics.median(times):>7.1f} {max(times):>7.1f}  "
                     f"{row['unchanged']:>5}")
    lines.append("")
    lines.append("drag: live = the view follows a slider while it is dragged (continuous_update), "
                 "drop = it updates when the slider is let go.")
    lines.append("no-op: changes that left the picture and the readout as they were (not timed), such as "
                 "Back at the first draw.")
    for name, milliseconds in result["builds"].items():
        lines.append(f"built {name} (first full render included) in {milliseconds:.0f} ms")
    lines.append("kernels, as the notebooks share them out: "
                 + "; ".join(" + ".join(group) for group in result["groups"]))
    pauses = result["full_collections"]
    lines.append(f"full garbage collections during builds and changes: {len(pauses)}"
                 + (f", longest {max(pauses):.1f} ms" if pauses else ""))
    times = result["times"]
    if times:
        median, worst = statistics.median(times), max(times)
        p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else worst
        lines += [
            "",
            f"all {len(times)} changes: median {median:.1f} ms (goal <= {GOAL_MEDIAN_MS:g}: "
            f"{_verdict(median <= GOAL_MEDIAN_MS)}, {median / GOAL_MEDIAN_MS:.2f} of it), 95th percentile "
            f"{p95:.1f} ms (goal <= {GOAL_P95_MS:g}: {_verdict(p95 <= GOAL_P95_MS)}), worst {worst:.1f} ms "
            f"(goal <= {GOAL_WORST_MS:g}: {_verdict(worst <= GOAL_WORST_MS)}, {worst / GOAL_WORST_MS:.2f} of it)",
        ]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks interactivity",
        description="Time every control of every explorer, from the change to the rendered view.",
    )
    parser.add_argument("--changes", type=int, default=8, help="changes per control (default: 8)")
    parser.add_argument("--explorer", action="append", choices=sorted(load_explorers()),
                        help="time only this explorer (repeatable; default: all)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the untimed clicks that precede each timed button click (default: 0)")
    args = parser.parse_args(argv)
    if args.changes < 1:
        parser.error(f"--changes must be at least 1, got {args.changes}")
    load_before = _load_average()
    result = measure(args.explorer, args.changes, args.seed)
    print("\n".join(report(result, load_before, _load_average())))
    return 0


def _slider_values(control, count: int) -> list:
    low, high = control.min, control.max
    step = getattr(control, "step", None) or 1
    values, current = [], control.value
    for i in range(count):
        fraction = SLIDER_STOPS[i % len(SLIDER_STOPS)]
        value = low + round(fraction * (high - low) / step) * step
        value = type(current)(round(value, 10)) if isinstance(current, float) else int(value)
        if value == current:  # no change, no update: move one step instead
            value = current + step if current + step <= high else current - step
            value = type(current)(round(value, 10)) if isinstance(current, float) else int(value)
        values.append(value)
        current = value
    return values


def _is_button(control) -> bool:
    return hasattr(control, "click") and not hasattr(control, "value")


def _exponents(control, count: int) -> list[float]:
    low, high = control.min, control.max
    return [low + SLIDER_STOPS[i % len(SLIDER_STOPS)] * (high - low) for i in range(count)]


def _option_value(option):
    # ipywidgets options are either plain values or (label, value) pairs.
    return option[1] if isinstance(option, tuple) and len(option) == 2 else option


def _setter(control, value):
    def change():
        control.value = value
    return change


def _toggler(control):
    def change():
        control.value = not control.value
    return change


def _load_average():
    try:
        return os.getloadavg()
    except OSError:  # not available on every platform
        return None


def _load(values) -> str:
    return "unknown" if values is None else ", ".join(f"{value:.2f}" for value in values)


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


if __name__ == "__main__":
    raise SystemExit(main())
