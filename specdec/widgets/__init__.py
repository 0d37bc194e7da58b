"""The interactive explorers of the notebooks (ipywidgets 8).

Each explorer is a function that returns one `Explorer` widget: controls, one matplotlib figure shown
as a PNG image and redrawn in place, and a text readout beside it. Tests drive the controls through
``explorer.controls`` and read what the view shows through ``explorer.shown``.
"""

from ._explorer import Explorer

__all__ = ["Explorer"]
