"""The interactive explorers of the notebooks (ipywidgets 8), one module per explorer.

Each module holds an explorer's figure class and its `Explorer` subclass, ``XExplorer``; notebooks
build one with ``XExplorer()``. Tests drive it through ``explorer.controls`` and read what it shows
through ``explorer.shown``. `presentation()` makes every explorer built afterwards larger and compact,
for a projector. `EXPLORERS` lists every explorer, found by looking through the package's modules
(nothing to register by hand). How to add one: ``specdec/explore/README.md``.
"""

import importlib
import inspect
import pkgutil

from .frame import Explorer, presentation

#: Modules of the package that hold no explorer.
_FRAME_MODULES = ("frame", "figure_kit")


def _discover() -> dict:
    """Every public `Explorer` subclass defined in a module of this package, by class name."""
    found = {}
    for module_info in pkgutil.iter_modules(__path__):
        if module_info.name in _FRAME_MODULES or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for name, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Explorer) and value is not Explorer and value.__module__ == module.__name__ \
                    and not name.startswith("_"):
                found[name] = value
    return dict(sorted(found.items()))


#: Every explorer class of the series, by name (``{"SpeedupExplorer": SpeedupExplorer, ...}``).
EXPLORERS = _discover()
globals().update(EXPLORERS)

__all__ = ["EXPLORERS", "Explorer", "presentation", *EXPLORERS]
