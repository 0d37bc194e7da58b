"""An accessibility shim for a gap in ipywidgets: it gives each slider handle of an explorer a name.

ipywidgets 8.1.9 (the newest release) draws a slider with noUiSlider and passes it no
``handleAttributes``: the handle that takes the focus (``<div class="noUi-handle" role="slider">``)
has no aria-label, aria-labelledby or title, and the slider's description, a
``<label class="widget-label">``, is tied to nothing. A screen reader then announces each slider
as an unnamed "slider", and axe-core reports it (rule ``aria-input-field-name``, serious).

`SliderNames` is a widget that shows nothing and takes no room (``display: none``); the frame
places one in each explorer's box. In the browser it finds that box (``.specdec-explorer``) around
itself, gives each slider's description label an id and points the slider's handles at it with
``aria-labelledby``, now and whenever a control is drawn again (a ``MutationObserver`` on the box).
The name is the label itself, so it follows the description if it changes; a slider without a
description stays unnamed, as it should be reported. The widget has no output of its own: where
no widget runs (an exported notebook) nothing of it shows, and the explorer's plain text and
picture are as before.
"""

from __future__ import annotations

import anywidget
import ipywidgets as widgets

#: The browser side: runs once per view of the widget; returns the clean-up that stops observing.
ESM = """
const SLIDERS = ".widget-slider, .jupyter-widget-slider";
const LABEL = ":scope > .widget-label, :scope > .jupyter-widget-label";
const HANDLES = ".noUi-handle[role=slider]";

function nameHandles(box) {
  for (const slider of box.querySelectorAll(SLIDERS)) {
    const label = slider.querySelector(LABEL);
    if (!label) { continue; }
    if (!label.id) { label.id = "specdec-label-" + Math.random().toString(36).slice(2); }
    for (const handle of slider.querySelectorAll(HANDLES)) {
      if (handle.getAttribute("aria-labelledby") !== label.id) { handle.setAttribute("aria-labelledby", label.id); }
    }
  }
}

function render({ el }) {
  let observer = null;
  let frame = null;
  const attach = () => {
    const box = el.closest(".specdec-explorer");
    if (box) {
      nameHandles(box);
      observer = new MutationObserver(() => nameHandles(box));
      observer.observe(box, { childList: true, subtree: true });
    } else if (!el.isConnected) {
      frame = requestAnimationFrame(attach);  // not yet in the page: look again at the next frame
    }
  };
  attach();
  return () => {
    if (frame !== null) { cancelAnimationFrame(frame); }
    if (observer) { observer.disconnect(); }
  };
}

export default { render };
"""


class SliderNames(anywidget.AnyWidget):
    """Names each slider handle of the explorer around it after the slider's description label.

    It shows nothing and takes no room; see the module's docstring for why it exists.

    Examples
    --------
    >>> names = SliderNames()
    >>> names.layout.display, "aria-labelledby" in names._esm
    ('none', True)
    """

    _esm = ESM

    def __init__(self, **kwargs):
        super().__init__(layout=widgets.Layout(display="none"), **kwargs)
