"""Figures of the series, drawn with matplotlib's object API (no pyplot state, no global figure).

Each explorer owns one `Figure`, draws into it again on every change and shows it as a PNG. The
palette and the meaning of each colour are in `specdec.palette`. Names are imported from their topic
module on first use.
"""

from .._lazy import lazy_exports

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
    "OneTokenFigure": ".one_token",
    "VerifyStepFigure": ".verify_step",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
