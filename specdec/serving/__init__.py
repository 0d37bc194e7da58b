"""Inside a serving engine: the KV cache at a rejection, a batch verified together, the metrics engines
report, speculation under load, and sampling parameters applied to both sides.

Numpy only (the KV-cache steps run the small numpy transformer of `specdec.neural`).

* `kv_cache_steps`: what the target's and the draft's caches hold through verify steps: written,
  kept, cropped, the draft's catch-up; broken variants that forget a crop or a catch-up;
* `batch`: b sequences verified in one pass: accepted counts, padding, tokens per pass;
* `metrics`: vLLM's mean acceptance length, draft acceptance rate and per-position acceptance;
* `load`: tokens per second for the batch and time per token for one request, against batch size;
* `sampling_parameters`: temperature, top-k, top-p on both sides, and two broken variants.
"""
