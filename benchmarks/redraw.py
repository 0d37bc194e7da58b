"""What drawing only what changed saves: each explorer's picture made by `FastRedraw`, against a full savefig.

``python -m benchmarks redraw`` builds each explorer and changes each of its controls as the interactivity
benchmark does. Each time the explorer asks its picture for a new PNG, the picture is made one of two ways,
in turn: its own ``png()`` (`specdec.explore.frame.FastRedraw`: the artists that change are drawn onto kept
pixels) or ``png_bytes(figure)``, every artist drawn by ``savefig``. The two give the same pixels (the tests
check that), so the ratio of their times is what the fast path saves a learner on each change. It prints,
per explorer, the median milliseconds of each way and their ratio, then the ratio of the medians over all
changes.

What is measured: the PNG alone, not the explorer's computation or its readout (the interactivity
benchmark times the whole change). A picture that keeps the PNGs of states it has shown (the KV-cache
explorer's) is timed as it makes them. Wall times depend on the machine's load; the ratio, of two ways
timed in turn on the same changes, much less.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

from benchmarks.interactivity import changes_for, load_explorers

WAYS = ("fast", "full")
#: Below this median (ms), a picture handed back PNGs it kept rather than drawing: no ratio is printed for it.
KEPT_MS = 0.5


def timed_pictures(explorer, times: dict) -> None:
    """Make `explorer`'s picture alternate between its own `png` and a full savefig, adding each time to `times`."""
    from specdec.explore.frame import png_bytes

    picture = explorer.picture
    ways = {"fast": picture.png, "full": lambda: png_bytes(picture.figure)}
    in_turn = itertools.cycle(WAYS)

    def png() -> bytes:
        way = next(in_turn)
        start = time.perf_counter()
        data = ways[way]()
        times[way].append((time.perf_counter() - start) * 1000.0)
        return data

    picture.png = png


def measure(names=None, count: int = 8) -> dict:
    """Per explorer, the milliseconds of each way over every change of every control."""
    result = {}
    for name, make in load_explorers(names).items():
        explorer = make()
        times = {way: [] for way in WAYS}
        timed_pictures(explorer, times)
        for control in explorer.controls.values():
            for change in changes_for(control, count):
                change()
        result[name] = times
    return result


def report(result: dict) -> list[str]:
    lines = ["Time to make each new picture, in ms: FastRedraw (fast) against a full savefig (full), in turn.", "",
             f"{'explorer':<22} {'n':>4} {'fast':>7} {'full':>7} {'full / fast':>12}"]
    every = {way: [] for way in WAYS}
    for name, times in result.items():
        if not (times["fast"] and times["full"]):
            lines.append(f"{name:<22}  (no new picture: its controls changed nothing)")
            continue
        fast, full = statistics.median(times["fast"]), statistics.median(times["full"])
        ratio = f"{full / fast:>11.1f}×" if fast >= KEPT_MS else "  (kept PNGs)"
        lines.append(f"{name:<22} {len(times['fast']) + len(times['full']):>4} {fast:>7.1f} {full:>7.1f} {ratio}")
        for way in WAYS:
            every[way] += times[way]
    if every["fast"]:
        fast, full = statistics.median(every["fast"]), statistics.median(every["full"])
        lines += ["", f"all pictures: median {fast:.1f} ms fast, {full:.1f} ms full: a full redraw takes "
                      f"{full / fast:.1f} times as long"]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks redraw",
                                     description="Each explorer's pictures, drawn in place against in full.")
    parser.add_argument("--changes", type=int, default=8, help="changes per control (default: 8)")
    parser.add_argument("--explorer", action="append", choices=sorted(load_explorers()),
                        help="time only this explorer (repeatable; default: all)")
    args = parser.parse_args(argv)
    if args.changes < 1:
        parser.error(f"--changes must be at least 1, got {args.changes}")
    print("\n".join(report(measure(args.explorer, args.changes))))
    return 0
