"""Figures of the series, drawn with matplotlib's object API (no pyplot state, no global figure).

Each explorer owns one `Figure`, draws into it again on every change and shows it as a PNG. The
palette and the meaning of each colour are in `specdec.palette`.
"""

from .canvas import new_figure, png_bytes, role_patch, role_style, styled
from .divergence import CloudFigure
from .monte_carlo import DerivationFigure, MonteCarloFigure
from .one_token import OneTokenFigure
from .speedup import SpeedupFigure
from .temperature import TemperatureFigure
from .text import RealTextFigure
from .verify_step import VerifyStepFigure

__all__ = [
    "CloudFigure",
    "DerivationFigure",
    "MonteCarloFigure",
    "OneTokenFigure",
    "RealTextFigure",
    "SpeedupFigure",
    "TemperatureFigure",
    "VerifyStepFigure",
    "new_figure",
    "png_bytes",
    "role_patch",
    "role_style",
    "styled",
]
