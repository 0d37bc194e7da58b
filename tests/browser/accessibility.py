"""Accessibility checks of the explorers on a JupyterLab page: an axe-core audit and the keyboard.

`serious_violations` runs axe-core (bundled by axe-playwright-python) over the explorers' boxes only
(the front end's own chrome is not this project's) and keeps the violations of impact "serious" or
"critical". None is exempt: the one ipywidgets 8.1.9 leaves in every explorer (a slider handle with
no accessible name) is closed by the frame's shim, ``SliderNames`` in ``specdec/explore/frame.py``.
`tab_through` presses Tab from just before an explorer until the focus leaves it, and
says which of its controls the focus reached; `operate_by_keyboard` changes the focused control with
the keys a keyboard user would press (an arrow key for a slider; Space, an arrow and Enter for a
dropdown; Enter for a button; Space for a checkbox).
"""

from __future__ import annotations

import time

from .jupyter_driver import REDRAW_SECONDS

#: The impacts axe-core ranks above "moderate": each one blocks some readers from the content.
BLOCKING_IMPACTS = ("serious", "critical")
#: The explorers' boxes, as the frame marks them.
EXPLORER_SELECTOR = ".specdec-explorer"
#: At most this many Tab presses to walk through one explorer.
MAX_TABS = 60


_EXPLORER_OF = """(targets) => targets.map(target => {
    const node = document.querySelector(target);
    const box = node && node.closest('.specdec-explorer');
    const title = box && box.querySelector('.specdec-title');
    return title ? title.textContent.trim() : null;
})"""


def serious_violations(page, selector: str = EXPLORER_SELECTOR) -> list[dict]:
    """The serious and critical axe-core violations inside the elements matching `selector`, one
    entry per rule: the rule's id, its impact, its help text, the number of nodes, the targets (CSS
    selectors) of the first nodes and the explorers they lie in (title -> node count).
    """
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page, context={"include": [[selector]]}, options={"resultTypes": ["violations"]})
    found = []
    for violation in results.response["violations"]:
        if violation["impact"] not in BLOCKING_IMPACTS:
            continue
        targets = [node["target"][-1] for node in violation["nodes"]]
        explorers: dict = {}
        for title in page.evaluate(_EXPLORER_OF, targets):
            explorers[title] = explorers.get(title, 0) + 1
        found.append({"id": violation["id"], "impact": violation["impact"], "help": violation["help"],
                      "count": len(targets), "targets": targets[:4], "explorers": explorers,
                      "html": [node["html"][:160] for node in violation["nodes"]][:2]})
    return found


def describe(violations: list[dict]) -> str:
    """The violations, one paragraph each, for an assertion message."""
    return "\n".join(f"{v['impact']} {v['id']} ({v['count']} nodes, in {v['explorers']}): {v['help']}; "
                     f"at {v['targets']} {v['html']}" for v in violations)


_CONTROL_OF_FOCUS = """(box) => {
    const active = document.activeElement;
    if (!active || !box.contains(active)) { return {inside: false}; }
    const control = active.closest('[data-control]');
    let kind = 'other';
    if (active.matches('.noUi-handle')) { kind = 'slider'; }
    else if (active.matches('select')) { kind = 'dropdown'; }
    else if (active.matches('button')) { kind = 'button'; }
    else if (active.matches('input[type=checkbox]')) { kind = 'checkbox'; }
    else if (active.matches('input, textarea')) { kind = 'text'; }
    return {inside: true, control: control ? control.dataset.control : null, kind};
}"""

_START_BEFORE = """(box) => {
    // A focusable point just before the explorer, so that the next Tab enters it.
    let start = box.previousElementSibling && box.previousElementSibling.dataset.tabStart
        ? box.previousElementSibling : null;
    if (!start) {
        start = document.createElement('span');
        start.tabIndex = 0;
        start.dataset.tabStart = '1';
        box.parentElement.insertBefore(start, box);
    }
    start.focus();
    return document.activeElement === start;
}"""

_LABELLED_CONTROLS = """(box) => [...box.querySelectorAll('[data-control]')]
    .filter(element => element.offsetParent !== null && !element.matches('[disabled], :has(> [disabled])')
                       && !element.querySelector('.slider[disabled], select[disabled], input[disabled]'))
    .map(element => element.dataset.control)"""

_LIVE_TEXT = """(box) => [...box.querySelectorAll('[aria-live]')].map(region => region.innerText.trim()).join('\\n')"""


def labelled_controls(view) -> list[str]:
    """The labels of the explorer's controls that are shown and enabled (the driver marks each
    control with ``data-control``); a hidden or disabled control is rightly out of the Tab order."""
    return view.locator.evaluate(_LABELLED_CONTROLS)


def tab_through(view) -> list[dict]:
    """Press Tab from just before the explorer until the focus leaves it; each stop inside it, in order."""
    if not view.locator.evaluate(_START_BEFORE):
        raise RuntimeError(f"{view.title!r}: could not put the focus just before the explorer")
    stops = []
    for _ in range(MAX_TABS):
        view.page.keyboard.press("Tab")
        where = view.locator.evaluate(_CONTROL_OF_FOCUS)
        if not where["inside"]:
            break
        stops.append(where)
    return stops


def live_text(view) -> str:
    """The text of the explorer's ARIA live regions (what a screen reader announces when it changes)."""
    return view.locator.evaluate(_LIVE_TEXT)


def readout_text(view) -> str:
    return view.locator.locator("[data-explorer-part=readout]").inner_text()


def focus_control(view, label: str) -> dict:
    """Tab to the control labelled `label` (from just before the explorer); where the focus is then."""
    if not view.locator.evaluate(_START_BEFORE):
        raise RuntimeError(f"{view.title!r}: could not put the focus just before the explorer")
    for _ in range(MAX_TABS):
        view.page.keyboard.press("Tab")
        where = view.locator.evaluate(_CONTROL_OF_FOCUS)
        if not where["inside"]:
            break
        if where["control"] == label:
            return where
    raise AssertionError(f"{view.title!r}: Tab never reached the control {label!r}")


#: Key sequences that change each kind of control, tried in order until the control's value changes.
#: A dropdown opens with Space, then an arrow and Enter pick the next option: JupyterLab takes a bare
#: ArrowUp/ArrowDown in command mode to move between cells.
KEYS = {"slider": (("ArrowRight",), ("ArrowLeft",)),
        "dropdown": ((" ", "ArrowDown", "Enter"), (" ", "ArrowUp", "Enter")),
        "button": (("Enter",), (" ",)),
        "checkbox": ((" ",),)}

#: The pause between the keys of one sequence (a dropdown's list opens after Space).
KEY_GAP_SECONDS = 0.15
#: How long a control is given to show a new value after its last key (it does so at once when it moves).
VALUE_SECONDS = 1.0

_FOCUSED_VALUE = """() => {
    // What the control shows as its value: a slider's readout, the chosen option, a box's tick.
    const active = document.activeElement;
    if (!active) { return null; }
    const control = active.closest('[data-control]');
    const readout = control && control.querySelector('.widget-readout');
    if (readout) { return readout.textContent.trim(); }
    if (active.matches('select')) { return active.value; }
    if (active.matches('input[type=checkbox]')) { return String(active.checked); }
    return active.getAttribute('aria-valuenow');
}"""


def _value_changes(page, value, timeout: float = VALUE_SECONDS) -> bool:
    """Whether the focused control shows a value other than `value` within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while page.evaluate(_FOCUSED_VALUE) == value:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def operate_by_keyboard(view, kind: str, timeout: float = REDRAW_SECONDS) -> dict:
    """Press the key sequences of `kind` on the focused control until the readout changes; a sequence
    that leaves the control's value as it was (a slider at its end) gives way to the next. Returns
    the keys pressed (None if none changed anything), the control's value before them, and the
    readout and live-region text before and after."""
    before = {"readout": readout_text(view), "live": live_text(view)}
    pressed = value = None
    for keys in KEYS[kind]:
        value = view.page.evaluate(_FOCUSED_VALUE)
        for key in keys[:-1]:
            view.page.keyboard.press(key)
            time.sleep(KEY_GAP_SECONDS)  # a dropdown's list opens between its keys
        view.page.keyboard.press(keys[-1])
        if kind != "button" and not _value_changes(view.page, value):
            continue
        pressed = keys
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and readout_text(view) == before["readout"]:
            time.sleep(0.1)
        view.tab.wait_until_idle(timeout=timeout)
        break
    return {"keys": pressed, "value": value, "before": before,
            "after": {"readout": readout_text(view), "live": live_text(view)}}


#: The keys that undo a sequence of `KEYS`: the other arrow, the other option, the box ticked again.
REVERSE = {("ArrowRight",): ("ArrowLeft",), ("ArrowLeft",): ("ArrowRight",),
           (" ", "ArrowDown", "Enter"): (" ", "ArrowUp", "Enter"), (" ", "ArrowUp", "Enter"): (" ", "ArrowDown", "Enter"),
           (" ",): (" ",)}


def undo_by_keyboard(view, kind: str, result: dict, timeout: float = REDRAW_SECONDS):
    """Press the keys that undo `result` (what `operate_by_keyboard` returned) on the focused control,
    wait until the control shows its earlier value again and the explorer has redrawn. Returns the
    keys pressed and whether the control's value is back, or (None, False) for a button."""
    reverse = REVERSE.get(tuple(result["keys"] or ())) if kind != "button" else None
    if reverse is None:
        return None, False
    for key in reverse[:-1]:
        view.page.keyboard.press(key)
        time.sleep(KEY_GAP_SECONDS)
    view.page.keyboard.press(reverse[-1])
    deadline = time.monotonic() + VALUE_SECONDS
    while view.page.evaluate(_FOCUSED_VALUE) != result["value"] and time.monotonic() < deadline:
        time.sleep(0.05)
    back = view.page.evaluate(_FOCUSED_VALUE) == result["value"]
    if back:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and readout_text(view) == result["after"]["readout"]:
            time.sleep(0.1)
        view.tab.wait_until_idle(timeout=timeout)
    return reverse, back
