"""The interactive explorers of the notebooks (ipywidgets 8).

Each explorer is a function that returns one `Explorer` widget: controls, one matplotlib figure shown
as a PNG image and redrawn in place, and a text readout beside it. Tests drive the controls through
``explorer.controls`` and read what the view shows through ``explorer.shown``.

Names are imported from their topic module on first use, so that opening one notebook does not pay
for every explorer.
"""

from .._lazy import lazy_exports

_EXPORTS = {
    "Explorer": "._explorer",
    "one_token_explorer": ".one_token",
    "verify_step_explorer": ".verify_step",
    "speedup_explorer": ".speedup",
    "divergence_explorer": ".divergence",
    "temperature_explorer": ".divergence",
    "derivation_explorer": ".monte_carlo",
    "monte_carlo_explorer": ".monte_carlo",
    "text_explorer": ".text",
    "coloured_text_html": ".text",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
