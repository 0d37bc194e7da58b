"""The old home of the example rows: they live in `specdec.narrate` now (import them from there)."""

from .narrate import (DEFAULT_CONCENTRATION, MAX_ROW_ENTRIES, PROBABILITY_FLOOR, SPEC_DRAFT_PROBS,  # noqa: F401
                      SPEC_DRAFT_TOKENS, SPEC_TARGET_PROBS, blend_rows, dirichlet_rows, random_rows, seeded_step,
                      spec_example, token_labels)
