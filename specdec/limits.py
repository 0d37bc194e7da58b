"""The old home of specdec's limits and defaults: they live in `specdec.validation` now (import them from there)."""

from .validation import (CANDIDATES_SLIDER_MAX, COST_SLIDER_MAX, DEFAULT_MAX_GAMMA, DERIVATION_VOCAB_MAX,  # noqa: F401
                         GAMMA_SLIDER_MAX, LARGEST_MAX_GAMMA, MAX_GAMMA, MAX_VOCAB, ONE_TOKEN_VOCAB_SLIDER_MAX,
                         PASS_TIME_SLIDER_MAX_MS, SEED_SLIDER_MAX, STEP_SEED_SLIDER_MAX, STEPS_SLIDER_MIN,
                         TEMPERATURE_SLIDER_MAX, TIMELINE_GAMMA_SLIDER_MAX, VOCAB_SLIDER_MAX, VOCAB_SLIDER_MIN)
