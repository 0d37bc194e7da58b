"""A small neural target trained for this project, and five drafters of the kinds production engines run.

Numpy only. The target is a character-level decoder-only transformer (`transformer`), trained on
the training blocks of the standard library's docstrings (`split`) by ``python -m
training.train_all --seed 0`` (PyTorch, at the repository root; not needed to use this package).
Its weights and the record of how they were made are in ``weights/``.

* `transformer`: the forward pass, the KV cache, sampling at a temperature;
* `drafters`: a separate draft model (trained on the data, or distilled), layer skipping, Medusa
  heads, an EAGLE-style feature drafter, prompt lookup;
* `verify`: the exact tree rule every drafter is verified with (one-hot rows for deterministic
  drafts), and Medusa's lossy typical acceptance;
* `speculative`: plain and speculative generation, with τ and acceptance by position;
* `costs`: each drafter's cost relative to a target pass, and the speedup `specdec.hardware` predicts.

>>> import numpy as np
>>> from specdec.neural import load_target, load_draft, ModelDrafter, speculative_generate
>>> target = load_target()
>>> run = speculative_generate(target, ModelDrafter(load_draft(), gamma=3), "Return the ", 20, 1.0,
...                            np.random.default_rng(0))
>>> len(run.text), 1.0 <= run.tau <= 4.0
(20, True)
"""

from .costs import DraftCost, draft_cost, predicted_speedup
from .drafters import (EagleDrafter, MedusaDrafter, ModelDrafter, PromptLookupDrafter, Proposal, TargetState,
                       layer_skip_drafter)
from .loading import load_draft, load_target, training_record, vocabulary, weight_arrays
from .speculative import (NeuralRun, first_two_character_fits, first_two_character_laws, generate, greedy_text,
                          speculative_generate)
from .transformer import KVCache, Transformer, probabilities
from .verify import one_hot_rows, verify_token_tree

__all__ = [
    "DraftCost", "EagleDrafter", "KVCache", "MedusaDrafter", "ModelDrafter", "NeuralRun", "PromptLookupDrafter",
    "Proposal", "TargetState", "Transformer", "draft_cost", "first_two_character_fits", "first_two_character_laws",
    "generate", "greedy_text", "layer_skip_drafter",
    "load_draft", "load_target", "one_hot_rows", "predicted_speedup", "probabilities", "speculative_generate",
    "training_record", "verify_token_tree", "vocabulary", "weight_arrays",
]
