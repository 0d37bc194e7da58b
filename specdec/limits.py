"""Every limit and default of specdec, in one place: import them from here, never copy a number.

Two kinds, with distinct names where they mean different things:

* what the math accepts (`MAX_GAMMA`, `MAX_VOCAB`, ...): the argument checks refuse anything beyond,
  before any draw or allocation; they are far past any lesson's needs and keep a call's time and
  memory bounded;
* the ranges the explorers' controls offer (``..._SLIDER_MAX``): what fits a picture and a slider.
  A control's bounds are its check: an explorer does not check again what its sliders enforce.

>>> GAMMA_SLIDER_MAX <= TIMELINE_GAMMA_SLIDER_MAX <= DEFAULT_MAX_GAMMA <= MAX_GAMMA
True
"""

# What the math accepts -------------------------------------------------------------------------

#: The largest draft length γ a function that builds a verify step from a size accepts.
MAX_GAMMA = 64
#: The largest vocabulary a function that builds rows from a size accepts (real models have ~10⁵).
MAX_VOCAB = 1_000_000
#: The γ search range unless told otherwise: `optimal_gamma` tries γ = 1 … 20, and a γ schedule
#: drafts at most 20 tokens a step.
DEFAULT_MAX_GAMMA = 20
#: The longest draft `optimal_gamma` searches: far past any useful γ, and a search of a few ms.
LARGEST_MAX_GAMMA = 1_000

# The ranges of the explorers' controls ------------------------------------------------------------

#: The verify-step explorer's γ slider: 0 … 8 draft tokens fit its picture, one column each.
GAMMA_SLIDER_MAX = 8
#: The hardware timeline's γ slider: 0 … 10.
TIMELINE_GAMMA_SLIDER_MAX = 10
#: The smallest vocabulary a V slider offers.
VOCAB_SLIDER_MIN = 2
#: The verify-step explorer's V slider: up to 64 tokens.
VOCAB_SLIDER_MAX = 64
#: The one-token explorer's V slider: up to 12 tokens, each with its own bar and label.
ONE_TOKEN_VOCAB_SLIDER_MAX = 12
#: The derivation explorer gives one slider per token to at most this many tokens.
DERIVATION_VOCAB_MAX = 8
#: The largest seed a seed slider offers.
SEED_SLIDER_MAX = 99
#: The verify-step explorer's seed slider goes further: 0 … 999.
STEP_SEED_SLIDER_MAX = 999
#: The fewest steps the Monte Carlo explorer's log slider offers (the most: `specdec.sampled_runs.MAX_STEPS`).
STEPS_SLIDER_MIN = 100
#: The temperature sliders' range is 0 … 3.
TEMPERATURE_SLIDER_MAX = 3.0
#: The candidates explorer's k slider: 1 … 6 candidates (k ≤ V, so that k distinct candidates exist).
CANDIDATES_SLIDER_MAX = 6
#: The fixed-time-per-pass slider of the hardware timeline: 0 … 3 ms (`specdec.hardware.Accelerator.pass_overhead`).
PASS_TIME_SLIDER_MAX_MS = 3.0
#: The cost-ratio sliders (c = time of a target pass / time of a draft pass) offer 1 … 100.
COST_SLIDER_MAX = 100
