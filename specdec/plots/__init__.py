"""Figures of the series, drawn with matplotlib's object API (no pyplot state, no global figure).

Each explorer owns one `Figure`, draws into it again on every change and shows it as a PNG. The
palette and the meaning of each colour are in `specdec.palette`. Names are imported from their topic
module on first use.
"""

import importlib

_EXPORTS = {
    "new_figure": "._canvas",
    "png_bytes": "._canvas",
    "styled": "._canvas",
    "DerivationFigure": ".monte_carlo",
    "MonteCarloFigure": ".monte_carlo",
    "SpeedupFigure": ".speedup",
    "CloudFigure": ".divergence",
    "TemperatureFigure": ".divergence",
    "RealTextFigure": ".text",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
