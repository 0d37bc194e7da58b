"""Why speculative decoding is fast: a cost model of one forward pass, and a sampled timeline.

A forward pass of a transformer over ``t`` new positions for each of ``b`` sequences has to

* read every weight once from memory, plus each sequence's KV cache (the keys and values it keeps
  for the tokens so far): ``bytes = bytes_per_parameter · N + b · context · kv_bytes_per_token``;
* do about ``2 · N · b · t`` floating-point operations (one multiply and one add per weight, per
  position scored).

Its time is modelled as the larger of the two: ``max(bytes / bandwidth, FLOPs / peak FLOP/s)``.
At small batch, reading the weights takes far longer than the arithmetic, so scoring γ+1 positions
costs the same as scoring one until ``b·t`` nears the accelerator's FLOP-per-byte ratio (about 295
FLOP/byte on an H100 SXM; the ratio of FLOPs to bytes of one pass is ``b·t`` at two bytes per
weight). That is why the target's verify pass is nearly free, and why it stops being free when the
batch grows.

What the model simplifies, on purpose:

* Peak numbers: real kernels reach a fraction of the datasheet's bandwidth and FLOP/s.
* No kernel launch overhead, no communication between devices, no sampling or scheduling time.
  A model larger than one device's memory (70B in bf16 is 140 GB) would run on several devices;
  the model keeps the single device's numbers and `devices_needed` only says how many it would take.
* The KV cache is read at one fixed context length; it does not grow during the generation, and
  attention's own FLOPs are left out.
* The draft is not free: each of its passes is costed with the same formula, and c follows from it.
* The acceptance rate α is the same at every position, as in Leviathan et al. 2023.

Every accelerator number is the vendor's peak, dense (without structured sparsity), bf16 or fp16
on tensor cores, with its source in `Accelerator.source`.

>>> times = pass_times(ACCELERATORS["H100 SXM"], MODELS["Llama 2 70B"], MODELS["Llama 3.2 1B"], gamma=4)
>>> round(times.target_decode * 1e3, 1), round(times.implied_c, 1)
(41.9, 55.8)
>>> times.target_verify == times.target_decode  # five positions cost the same as one
True
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from . import validation
from .core import expected_tokens
from .sampling import sample_steps
from .theory import speedup

#: Bytes per weight and per cached key/value: bf16.
BF16_BYTES = 2
#: Context length (tokens already in each sequence's KV cache) when none is given.
DEFAULT_CONTEXT = 1024
#: Largest batch, number of positions per pass, context and timeline length accepted: far past any
#: setting the lessons use, and small enough that nothing is allocated before the limits are checked.
MAX_BATCH = 1 << 16
MAX_POSITIONS = 1 << 16
MAX_CONTEXT = 1 << 24
MAX_TIMELINE_TOKENS = 1_000


@dataclass(frozen=True)
class Accelerator:
    """Peak numbers of one accelerator, from its vendor."""

    name: str
    memory_bandwidth: float
    """Bytes per second read from the device's main memory (HBM, GDDR or unified memory)."""
    peak_flops: float
    """Dense bf16/fp16 FLOP per second of the matrix units (without structured sparsity)."""
    memory_capacity: float
    """Bytes of device memory."""
    source: str
    """Where the numbers come from."""

    @property
    def ridge(self) -> float:
        """FLOP per byte at which compute and memory take the same time: peak FLOP/s ÷ bandwidth."""
        return self.peak_flops / self.memory_bandwidth


#: Vendors quote bf16 tensor throughput "with sparsity" (2:4 structured sparsity); the dense figure,
#: used here, is half of it. Checked against the datasheets on the date of writing.
ACCELERATORS = {
    "H100 SXM": Accelerator(
        "H100 SXM", 3.35e12, 989e12, 80e9,
        "https://www.nvidia.com/en-us/data-center/h100/ — 3.35 TB/s; BF16 Tensor Core 1,979 TFLOPS "
        "with sparsity, so 989 TFLOPS dense; 80 GB",
    ),
    "H200 SXM": Accelerator(
        "H200 SXM", 4.8e12, 989e12, 141e9,
        "https://www.nvidia.com/en-us/data-center/h200/ — 4.8 TB/s; BF16 Tensor Core 1,979 TFLOPS "
        "with sparsity, so 989 TFLOPS dense; 141 GB",
    ),
    "A100 80GB SXM": Accelerator(
        "A100 80GB SXM", 2.039e12, 312e12, 80e9,
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf — 2,039 GB/s; BF16 Tensor Core 312 TFLOPS "
        "(624 with sparsity); 80 GB",
    ),
    "L4": Accelerator(
        "L4", 300e9, 121e12, 24e9,
        "https://www.nvidia.com/en-us/data-center/l4/ — 300 GB/s; BF16 Tensor Core 242 TFLOPS with "
        "sparsity, so 121 TFLOPS dense; 24 GB",
    ),
    "Apple M1 Max (laptop)": Accelerator(
        "Apple M1 Max (laptop)", 400e9, 10.4e12, 64e9,
        "https://www.apple.com/newsroom/2021/10/introducing-m1-pro-and-m1-max-the-most-powerful-chips-"
        "apple-has-ever-built/ — 400 GB/s unified memory, up to 64 GB; 10.4 TFLOPS is Apple's figure "
        "for the 32-core GPU at the October 2021 launch, quoted without a precision (it is the "
        "GPU's FP32 rate); used here as the peak for bf16 too",
    ),
}


@dataclass(frozen=True)
class Model:
    """A decoder-only language model, reduced to what a forward pass has to read and compute."""

    name: str
    parameters: float
    """Number of weights (the nominal size in the model's name)."""
    layers: int
    kv_heads: int
    """Key/value heads per layer (fewer than the query heads with grouped-query attention)."""
    head_dim: int
    source: str

    @property
    def kv_bytes_per_token(self) -> float:
        """Bytes of KV cache per token of context: keys and values, every layer, bf16."""
        return 2 * self.layers * self.kv_heads * self.head_dim * BF16_BYTES


#: Shapes from each model's published configuration; sizes are the nominal ones of the names.
MODELS = {
    "Llama 2 70B": Model(
        "Llama 2 70B", 70e9, 80, 8, 128,
        "https://huggingface.co/meta-llama/Llama-2-70b-hf (config: 80 layers, 8 key/value heads of 128)",
    ),
    "Llama 2 7B": Model(
        "Llama 2 7B", 7e9, 32, 32, 128,
        "https://huggingface.co/meta-llama/Llama-2-7b-hf (config: 32 layers, 32 key/value heads of 128)",
    ),
    "Llama 3.2 1B": Model(
        "Llama 3.2 1B", 1.24e9, 16, 8, 64,
        "https://huggingface.co/meta-llama/Llama-3.2-1B (1.24B parameters; config: 16 layers, "
        "8 key/value heads of 64)",
    ),
    "Llama 160M": Model(
        "Llama 160M", 160e6, 12, 12, 64,
        "https://huggingface.co/JackFram/llama-160m (the small draft of SpecInfer; config: 12 layers, "
        "12 heads, hidden size 768)",
    ),
}


def forward_pass_time(model, accelerator, batch=1, positions=1, context=DEFAULT_CONTEXT) -> float:
    """Seconds one forward pass takes: the larger of its memory time and its compute time.

    Parameters
    ----------
    model : Model, or a number of parameters > 0
        A bare number means a model whose KV cache is left out.
    accelerator : Accelerator
    batch : int >= 1
        Sequences decoded together; they share one read of the weights.
    positions : int >= 1
        New positions scored per sequence: 1 for plain decoding, γ+1 for a verify pass.
    context : int >= 0
        Tokens already in each sequence's KV cache.

    Returns
    -------
    float
        max((2·N + b·context·kv_bytes_per_token) / bandwidth, 2·N·b·t / peak FLOP/s).

    Examples
    --------
    >>> h100 = ACCELERATORS["H100 SXM"]
    >>> one = forward_pass_time(70e9, h100, positions=1)
    >>> round(one * 1e3, 2), forward_pass_time(70e9, h100, positions=8) == one
    (41.79, True)
    >>> round(forward_pass_time(70e9, h100, positions=1000) / one, 2)  # past the ridge: compute-bound
    3.39
    """
    parameters, kv_bytes = _model_numbers(model)
    accelerator = _accelerator(accelerator)
    batch = validation.count(batch, "batch", 1, MAX_BATCH)
    positions = validation.count(positions, "positions", 1, MAX_POSITIONS)
    context = validation.count(context, "context", 0, MAX_CONTEXT)
    return _pass_time(parameters, kv_bytes, accelerator, batch, positions, context)


def _pass_time(parameters, kv_bytes, accelerator, batch, positions, context) -> float:
    memory_bytes = BF16_BYTES * parameters + batch * context * kv_bytes
    flops = 2.0 * parameters * batch * positions
    return max(memory_bytes / accelerator.memory_bandwidth, flops / accelerator.peak_flops)


def roofline(model, accelerator, batch=1, max_positions=64, context=DEFAULT_CONTEXT):
    """Pass time against positions scored per sequence, t = 1 … `max_positions`.

    Returns
    -------
    positions : numpy.ndarray of int, shape (max_positions,)
    seconds : numpy.ndarray of float, shape (max_positions,)
        `forward_pass_time` at each t: flat while memory-bound, then rising in proportion to t.

    Examples
    --------
    >>> positions, seconds = roofline(70e9, ACCELERATORS["H100 SXM"], max_positions=400)
    >>> bool(seconds[7] == seconds[0]), int(positions[np.argmax(seconds > seconds[0])])  # first t that costs more
    (True, 296)
    """
    parameters, kv_bytes = _model_numbers(model)
    accelerator = _accelerator(accelerator)
    batch = validation.count(batch, "batch", 1, MAX_BATCH)
    max_positions = validation.count(max_positions, "max_positions", 1, MAX_POSITIONS)
    context = validation.count(context, "context", 0, MAX_CONTEXT)
    positions = np.arange(1, max_positions + 1)
    memory = (BF16_BYTES * parameters + batch * context * kv_bytes) / accelerator.memory_bandwidth
    compute = 2.0 * parameters * batch * positions / accelerator.peak_flops
    return positions, np.maximum(memory, compute)


@dataclass(frozen=True)
class PassTimes:
    """What one setting costs, in seconds, and what follows from it."""

    target_decode: float
    """One target pass scoring one position per sequence (a plain decoding step)."""
    target_verify: float
    """One target pass scoring γ+1 positions per sequence (the verify pass)."""
    draft_pass: float
    """One draft pass scoring one position per sequence."""
    gamma: int
    batch: int

    @property
    def implied_c(self) -> float:
        """c = target pass time ÷ draft pass time, both at one position."""
        return self.target_decode / self.draft_pass

    @property
    def step_time(self) -> float:
        """γ draft passes, then one verify pass."""
        return self.gamma * self.draft_pass + self.target_verify

    @property
    def verify_overhead(self) -> float:
        """Verify pass time ÷ plain pass time: 1 while verifying is free."""
        return self.target_verify / self.target_decode

    def plain_tokens_per_second(self) -> float:
        """Tokens per second of plain decoding, over the whole batch."""
        return self.batch / self.target_decode

    def speculative_tokens_per_second(self, alpha) -> float:
        """Expected tokens per second of speculative decoding, over the whole batch."""
        return self.batch * expected_tokens(alpha, self.gamma) / self.step_time

    def speedup(self, alpha) -> float:
        """Expected speedup over plain decoding: E[N] · target_decode / step_time.

        At batch 1 while memory-bound, target_verify = target_decode and this is exactly
        ``specdec.speedup(alpha, gamma, implied_c)``.
        """
        return expected_tokens(alpha, self.gamma) * self.target_decode / self.step_time


def pass_times(accelerator, target, draft, gamma, batch=1, context=DEFAULT_CONTEXT) -> PassTimes:
    """Time of the three kinds of pass for a target/draft pair on one accelerator.

    Parameters
    ----------
    accelerator : Accelerator
    target, draft : Model, or a number of parameters > 0
    gamma : int >= 0
        Draft length: the verify pass scores γ+1 positions.
    batch : int >= 1
    context : int >= 0

    Examples
    --------
    >>> times = pass_times(ACCELERATORS["H100 SXM"], MODELS["Llama 2 70B"], MODELS["Llama 2 7B"], 4)
    >>> round(times.implied_c, 2), round(times.speedup(0.8), 2), round(speedup(0.8, 4, times.implied_c), 2)
    (9.65, 2.38, 2.38)
    >>> big = pass_times(ACCELERATORS["H100 SXM"], MODELS["Llama 2 70B"], MODELS["Llama 2 7B"], 4, batch=256)
    >>> round(big.verify_overhead, 2), round(big.speedup(0.8), 2)  # verifying is no longer free
    (2.69, 0.63)
    """
    accelerator = _accelerator(accelerator)
    target_parameters, target_kv = _model_numbers(target, "target")
    draft_parameters, draft_kv = _model_numbers(draft, "draft")
    gamma = validation.count(gamma, "gamma", 0, MAX_POSITIONS - 1)
    batch = validation.count(batch, "batch", 1, MAX_BATCH)
    context = validation.count(context, "context", 0, MAX_CONTEXT)
    return PassTimes(
        target_decode=_pass_time(target_parameters, target_kv, accelerator, batch, 1, context),
        target_verify=_pass_time(target_parameters, target_kv, accelerator, batch, gamma + 1, context),
        draft_pass=_pass_time(draft_parameters, draft_kv, accelerator, batch, 1, context),
        gamma=gamma,
        batch=batch,
    )


#: Batch sizes of `speedup_against_batch` when none are given: powers of two, 1 … 1024.
BATCH_SIZES = tuple(2 ** k for k in range(11))


def speedup_against_batch(accelerator, target, draft, gamma, alpha, batches=BATCH_SIZES,
                          context=DEFAULT_CONTEXT):
    """Expected speedup at each batch size, by the cost model and by notebook 04's formula.

    Returns
    -------
    model : numpy.ndarray, shape (len(batches),)
        `PassTimes.speedup` at each batch: the verify pass costs what the model says.
    formula : numpy.ndarray, shape (len(batches),)
        speedup(α, γ, c) with that batch's implied c: the verify pass counted as free.

    Examples
    --------
    >>> model, formula = speedup_against_batch(ACCELERATORS["H100 SXM"], 70e9, 7e9, 4, 0.8, [1, 64, 1024])
    >>> np.round(model, 2).tolist(), np.round(formula, 2).tolist()
    ([2.4, 2.27, 0.62], [2.4, 2.4, 2.4])
    """
    accelerator = _accelerator(accelerator)
    _model_numbers(target, "target")
    _model_numbers(draft, "draft")
    gamma = validation.count(gamma, "gamma", 0, MAX_POSITIONS - 1)
    alpha = validation.probability(alpha, "alpha")
    if isinstance(batches, (str, bytes)) or not hasattr(batches, "__len__") or not 1 <= len(batches) <= 1_000:
        raise TypeError(f"batches must be a sequence of 1 … 1,000 batch sizes, got {batches!r}")
    batches = [validation.count(b, "each of batches", 1, MAX_BATCH) for b in batches]
    context = validation.count(context, "context", 0, MAX_CONTEXT)
    runs = [pass_times(accelerator, target, draft, gamma, b, context) for b in batches]
    model = np.array([times.speedup(alpha) for times in runs])
    formula = np.array([speedup(alpha, gamma, times.implied_c) for times in runs])
    return model, formula


def devices_needed(model, accelerator) -> int:
    """How many of `accelerator` the weights need in bf16 (KV cache not counted).

    >>> devices_needed(MODELS["Llama 2 70B"], ACCELERATORS["H100 SXM"])
    2
    """
    parameters, _ = _model_numbers(model)
    accelerator = _accelerator(accelerator)
    return max(1, math.ceil(BF16_BYTES * parameters / accelerator.memory_capacity))


def rows_with_acceptance(alpha, gamma) -> tuple[np.ndarray, np.ndarray]:
    """Target rows (γ+1, 4) and draft rows (γ, 4) whose acceptance rate is exactly α at every position.

    p = (½, ½, 0, 0) and q = α·p + (1 − α)·(0, 0, ½, ½): then Σ min(p, q) = α. A draft token 0 or 1 is
    always accepted and a token 2 or 3 always rejected, so a step's fate is decided by which tokens
    the draft draws; the rule is the real one, only the rows are made up.

    >>> target, draft = rows_with_acceptance(0.75, 2)
    >>> target.shape, draft.shape, float(np.minimum(target[0], draft[0]).sum())
    ((3, 4), (2, 4), 0.75)
    """
    alpha = validation.probability(alpha, "alpha")
    gamma = validation.count(gamma, "gamma", 0, MAX_POSITIONS - 1)
    target_row = np.array([0.5, 0.5, 0.0, 0.0])
    other_row = np.array([0.0, 0.0, 0.5, 0.5])
    draft_row = alpha * target_row + (1.0 - alpha) * other_row
    return np.tile(target_row, (gamma + 1, 1)), np.tile(draft_row, (gamma, 1))


@dataclass(frozen=True)
class Pass:
    """One forward pass on a lane of the timeline."""

    model: str
    """"target" or "draft"."""
    start: float
    duration: float
    origins: tuple[str, ...] = ()
    """Target passes: the origin of each token the pass emits ("accepted", "resampled", "bonus",
    or "target" in plain decoding). Draft passes emit nothing of their own."""


@dataclass(frozen=True)
class Timeline:
    """A short generation, plain and speculative, on the same clock (seconds)."""

    plain: tuple[Pass, ...]
    speculative: tuple[Pass, ...]
    times: PassTimes
    alpha: float
    step_counts: tuple[int, ...]
    """Tokens emitted by each speculative step, as sampled."""

    @property
    def tokens(self) -> int:
        """Tokens in the plain lane (the speculative lane has at least as many)."""
        return len(self.plain)

    @property
    def speculative_tokens(self) -> int:
        return sum(self.step_counts)

    @property
    def plain_time_per_token(self) -> float:
        return self.times.target_decode

    @property
    def speculative_time_per_token(self) -> float:
        return len(self.step_counts) * self.times.step_time / self.speculative_tokens

    @property
    def sampled_speedup(self) -> float:
        """Plain time per token ÷ speculative time per token, for the steps this seed drew."""
        return self.plain_time_per_token / self.speculative_time_per_token

    @property
    def expected_speedup(self) -> float:
        """The mean of the sampled speedup's long-run value: `PassTimes.speedup` at α."""
        return self.times.speedup(self.alpha)

    @property
    def formula_speedup(self) -> float:
        """speedup(α, γ, implied c): the model of notebook 04, which counts the verify pass as free."""
        return speedup(self.alpha, self.times.gamma, self.times.implied_c)


def sample_timeline(accelerator, target, draft, gamma, alpha, batch=1, seed=0, tokens=32,
                    context=DEFAULT_CONTEXT) -> Timeline:
    """Sample a generation of `tokens` tokens, plain and speculative, and lay its passes on a clock.

    Plain decoding takes one target pass per token. Speculative decoding repeats a step: γ draft
    passes, then one verify pass, until at least `tokens` tokens are out. How many tokens each step
    emits is drawn by `specdec.sample_steps` (the real verify rule) on rows whose acceptance rate
    is α (`rows_with_acceptance`), from ``numpy.random.default_rng(seed)``.

    With a batch, every sequence runs in the same passes; the lanes follow one of them.

    Parameters
    ----------
    accelerator : Accelerator
    target, draft : Model, or a number of parameters > 0
    gamma : int >= 0
    alpha : float in [0, 1]
    batch : int >= 1
    seed : int >= 0
    tokens : int in 1 … 1000
    context : int >= 0

    Examples
    --------
    >>> line = sample_timeline(ACCELERATORS["H100 SXM"], MODELS["Llama 2 70B"], MODELS["Llama 2 7B"],
    ...                        gamma=4, alpha=0.8, seed=0, tokens=24)
    >>> line.tokens, line.speculative_tokens >= 24, [p.model for p in line.speculative[:5]]
    (24, True, ['draft', 'draft', 'draft', 'draft', 'target'])
    >>> round(line.expected_speedup, 2) == round(line.formula_speedup, 2)  # batch 1, memory-bound
    True
    """
    accelerator = _accelerator(accelerator)
    _model_numbers(target, "target")
    _model_numbers(draft, "draft")
    gamma = validation.count(gamma, "gamma", 0, MAX_POSITIONS - 1)
    alpha = validation.probability(alpha, "alpha")
    batch = validation.count(batch, "batch", 1, MAX_BATCH)
    seed = validation.count(seed, "seed")
    tokens = validation.count(tokens, "tokens", 1, MAX_TIMELINE_TOKENS)
    context = validation.count(context, "context", 0, MAX_CONTEXT)

    times = pass_times(accelerator, target, draft, gamma, batch, context)
    plain = tuple(Pass("target", i * times.target_decode, times.target_decode, ("target",))
                  for i in range(tokens))

    target_rows, draft_rows = rows_with_acceptance(alpha, gamma)
    # At most `tokens` steps are needed, since each step emits at least one token.
    _, counts = sample_steps(target_rows, draft_rows, tokens, np.random.default_rng(seed))
    emitted = np.cumsum(counts)
    steps = int(np.searchsorted(emitted, tokens)) + 1
    step_counts = tuple(int(k) for k in counts[:steps])

    speculative = []
    clock = 0.0
    for count in step_counts:
        for _ in range(gamma):
            speculative.append(Pass("draft", clock, times.draft_pass))
            clock += times.draft_pass
        speculative.append(Pass("target", clock, times.target_verify, step_origins(count, gamma)))
        clock += times.target_verify
    return Timeline(plain, tuple(speculative), times, alpha, step_counts)


def step_origins(count, gamma) -> tuple[str, ...]:
    """Origins of the tokens of a step that emitted `count` of at most γ+1 tokens.

    >>> step_origins(3, 4), step_origins(5, 4)
    (('accepted', 'accepted', 'resampled'), ('accepted', 'accepted', 'accepted', 'accepted', 'bonus'))
    """
    gamma = validation.count(gamma, "gamma")
    count = validation.count(count, "count", 1, gamma + 1)
    last = "bonus" if count == gamma + 1 else "resampled"
    return ("accepted",) * (count - 1) + (last,)


def _accelerator(value) -> Accelerator:
    if not isinstance(value, Accelerator):
        known = ", ".join(ACCELERATORS)
        raise TypeError(
            f"accelerator must be an Accelerator (one of specdec.hardware.ACCELERATORS: {known}), "
            f"got {type(value).__name__}"
        )
    positive(value.memory_bandwidth, "accelerator.memory_bandwidth")
    positive(value.peak_flops, "accelerator.peak_flops")
    positive(value.memory_capacity, "accelerator.memory_capacity")
    return value


def _model_numbers(value, name: str = "model") -> tuple[float, float]:
    """(parameters, KV bytes per token of context) of a Model or a bare parameter count."""
    if isinstance(value, Model):
        parameters = positive(value.parameters, f"{name}.parameters")
        for part in ("layers", "kv_heads", "head_dim"):
            validation.count(getattr(value, part), f"{name}.{part}", minimum=1)
        return parameters, float(value.kv_bytes_per_token)
    return positive(value, f"{name} (its number of parameters)"), 0.0


def positive(value, name: str) -> float:
    """`value` as a finite float > 0, or a ValueError/TypeError naming `name`.

    >>> positive(3.35e12, "bandwidth")
    3350000000000.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number > 0, got {value!r} of type {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be > 0 (a size, a bandwidth or a rate), got {value!r}")
    return value
