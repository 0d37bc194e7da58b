"""The interactive explorers of the notebooks (ipywidgets 8).

Each explorer is a function that returns one `Explorer` widget: controls, one matplotlib figure shown
as a PNG image and redrawn in place, and a text readout beside it. Tests drive the controls through
``explorer.controls`` and read what the view shows through ``explorer.shown``. How to add one:
``specdec/widgets/README.md``.
`presentation()` makes every explorer built afterwards larger and compact, for a projector.
"""

from .explorer import Explorer, presentation
from .divergence import divergence_explorer
from .monte_carlo import derivation_explorer, monte_carlo_explorer
from .one_token import one_token_explorer
from .speedup import speedup_explorer
from .temperature import temperature_explorer
from .text import coloured_text_html, text_explorer
from .timeline import timeline_explorer
from .variants import candidates_explorer, lossy_explorer, schedules_explorer
from .verify_step import verify_step_explorer

__all__ = [
    "Explorer",
    "candidates_explorer",
    "coloured_text_html",
    "derivation_explorer",
    "divergence_explorer",
    "lossy_explorer",
    "monte_carlo_explorer",
    "one_token_explorer",
    "presentation",
    "schedules_explorer",
    "speedup_explorer",
    "temperature_explorer",
    "text_explorer",
    "timeline_explorer",
    "verify_step_explorer",
]
