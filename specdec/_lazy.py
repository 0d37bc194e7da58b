"""Exports that are imported from their topic module on first use (PEP 562 module __getattr__)."""

import importlib


def lazy_exports(package: str, exports: dict[str, str]):
    """Return `__getattr__` and `__dir__` for `package` that import each name from its module on demand.

    >>> getattr_, dir_ = lazy_exports("specdec", {"speedup": ".theory"})
    >>> getattr_("speedup").__name__, dir_()
    ('speedup', ['speedup'])
    """
    names = sorted(exports)

    def __getattr__(name):
        if name in exports:
            return getattr(importlib.import_module(exports[name], package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return names

    return __getattr__, __dir__
