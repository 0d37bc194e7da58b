"""Beyond one chain of draft tokens: several candidates, token trees, lossy shortcuts, adaptive γ.

Each module has one job and the standards of `specdec.core`: arguments checked before any random
draw, a documented order of draws, a trace of each decision, and exact laws where they exist.

* `multi_candidate`: k candidates at one position, verified one after the other against a residual
  that shrinks after each rejection (SpecInfer's multi-step speculative sampling); its exact law,
  which is p, and P(some candidate is accepted) as a function of k;
* `broken_candidates`: two ways to get that rule wrong, with their exact (wrong) laws;
* `token_tree`: a tree of draft tokens verified node by node, against a chain of the same size;
* `lossy_acceptance`: Medusa's typical acceptance, a lenient ratio threshold and greedy top-1
  matching, with their acceptance rates and the TV distance of their output from p;
* `adaptive_gamma`: Hugging Face's heuristic draft length schedule, fixed γ and an oracle on text;
* `pairs`: a target and a draft with a chosen acceptance rate α.

Nothing here is imported by ``import specdec``; import the modules you need.

>>> from specdec.variants.multi_candidate import acceptance_by_k
>>> acceptance_by_k([0.5, 0.3, 0.2, 0.0], [0.25] * 4, 3).round(3)
array([0.7  , 0.825, 0.869])
"""
