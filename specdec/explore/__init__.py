"""The interactive explorers of the notebooks (ipywidgets 8), one module per explorer.

Each module holds an explorer's figure class and its `Explorer` subclass, ``XExplorer``; notebooks
build one with ``XExplorer()`` (``from specdec.explore import SpeedupExplorer``). Tests drive it
through ``explorer.controls`` and read what it shows through ``explorer.shown``. `presentation()`
makes every explorer built afterwards larger and compact, for a projector. `EXPLORERS` holds every
explorer, found by looking through the package's modules: nothing is registered by hand. The
modules are looked through on first use of `EXPLORERS` or of an explorer's name, so importing one
module (``specdec.explore.speedup``) imports only that one. How to add one: ``specdec/explore/README.md``.
"""

import importlib
import inspect
import pkgutil

from .frame import Explorer, presentation

#: Modules of the package that hold no explorer.
_FRAME_MODULES = ("frame",)

_found: dict = {}


def _discover() -> dict:
    """Every public `Explorer` subclass defined in a module of this package, by class name."""
    if not _found:
        classes = {}
        for module_info in pkgutil.iter_modules(__path__):
            if module_info.name in _FRAME_MODULES or module_info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{__name__}.{module_info.name}")
            for name, value in inspect.getmembers(module, inspect.isclass):
                if (issubclass(value, Explorer) and value is not Explorer and not name.startswith("_")
                        and value.__module__ == module.__name__):
                    classes[name] = value
        _found.update(sorted(classes.items()))
    return _found


def __getattr__(name: str):
    """`EXPLORERS` (class name -> class, sorted by name) and each explorer class by its name."""
    if name == "EXPLORERS":
        return dict(_discover())
    if name.endswith("Explorer") and name in _discover():
        return _discover()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), "EXPLORERS", *_discover()])


__all__ = ["EXPLORERS", "Explorer", "presentation"]
