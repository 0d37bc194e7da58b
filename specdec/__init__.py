"""specdec: speculative decoding, small enough to watch every random draw.

The math is numpy only, but for the chi-square p-values, which come from scipy. Importing `specdec` loads
neither matplotlib nor ipywidgets: the explorers (each one's figure and controls in one module) live in
`specdec.explore`, which only the notebooks import.

>>> import numpy as np, specdec
>>> specdec.acceptance_rate([0.5, 0.3, 0.2, 0.0], [0.25, 0.25, 0.25, 0.25])
0.7
"""

from . import goodness_of_fit
from .core import (
    PositionTrace,
    StepTrace,
    acceptance_rate,
    expected_tokens,
    residual_distribution,
    sample_draft,
    speculative_step,
    trace_step,
)
from .goodness_of_fit import check_steps
from .output_law import position_law
from .sampling import sample_steps
from .theory import (
    acceptance_rates,
    expected_tokens_for_rates,
    kl_divergence,
    optimal_gamma,
    speedup,
    survival_probabilities,
    token_count_distribution,
    token_count_distribution_for_rates,
    tv_distance,
)

__all__ = [
    "PositionTrace",
    "StepTrace",
    "acceptance_rate",
    "acceptance_rates",
    "check_steps",
    "expected_tokens",
    "expected_tokens_for_rates",
    "goodness_of_fit",
    "kl_divergence",
    "optimal_gamma",
    "position_law",
    "residual_distribution",
    "sample_draft",
    "sample_steps",
    "speculative_step",
    "speedup",
    "survival_probabilities",
    "token_count_distribution",
    "token_count_distribution_for_rates",
    "trace_step",
    "tv_distance",
]
